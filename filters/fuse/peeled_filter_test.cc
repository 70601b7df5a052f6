// What XOR and binary fuse filters share (peeled_filter.h, peeling.h): the
// measured FP rate of every fingerprint width and layout against 2^-f, and
// how many seeds their construction needs.
#include "filters/fuse/peeled_filter.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "common/test_scale.h"
#include "filters/filter_spec.h"
#include "filters/filter_test_util.h"
#include "filters/trailer.h"
#include "hashing/fastrange.h"

namespace filterlab::fuse {
namespace {

using testing_util::MustBuild;
using testing_util::MustPolicy;
using testing_util::TestHashes;

// XOR and 4-wise binary fuse slots as formats 2 and 3 place them (restated
// from the formats' descriptions in xor_filter.cc and binary_fuse_filter.cc,
// so that these tests can make bytes of formats no longer written). XOR: one
// slot per block of B at multiply-high(h, B), (SlotBits1(h), B) and
// (SlotBits2(h), B). 4-wise binary fuse: h0 = multiply-high(h, segment_count
// L), offsets from bits 46.. and 28.. of SlotBits1(h) and bits 46.. of
// SlotBits2(h) at every L.
struct Format3XorLayout {
  static constexpr int kArity = 3;
  uint64_t block_length = 0;
  size_t num_slots() const { return static_cast<size_t>(3 * block_length); }
  void Positions(uint64_t h, uint32_t* pos) const {
    const uint64_t b = block_length;
    pos[0] = static_cast<uint32_t>(FastRange64(h, b));
    pos[1] = static_cast<uint32_t>(b + FastRange64(SlotBits1(h), b));
    pos[2] = static_cast<uint32_t>(2 * b + FastRange64(SlotBits2(h), b));
  }
};
struct Format3FourWiseLayout {
  static constexpr int kArity = 4;
  int log2_length = 2;
  uint64_t segment_count = 0;
  size_t num_slots() const { return static_cast<size_t>((segment_count + 3) << log2_length); }
  void Positions(uint64_t h, uint32_t* pos) const {
    const uint64_t length = uint64_t{1} << log2_length, mask = length - 1;
    const uint64_t h0 = FastRange64(h, segment_count * length);
    pos[0] = static_cast<uint32_t>(h0);
    pos[1] = static_cast<uint32_t>((h0 + length) ^ ((SlotBits1(h) >> 46) & mask));
    pos[2] = static_cast<uint32_t>((h0 + 2 * length) ^ ((SlotBits1(h) >> 28) & mask));
    pos[3] = static_cast<uint32_t>((h0 + 3 * length) ^ ((SlotBits2(h) >> 46) & mask));
  }
};

// A size parameter of a layout text (block_length=, segment_length=, ...).
uint64_t LayoutParam(const std::string& layout, const char* key) {
  FilterSpec parsed;
  EXPECT_TRUE(FilterSpec::Parse(layout, &parsed).ok()) << layout;
  long long value = 0;
  EXPECT_TRUE(parsed.GetInt(key, 0LL, 0LL, 1LL << 32, &value).ok()) << layout;
  return static_cast<uint64_t>(value);
}

// Format 3 bytes of `keys` (trailer included) of the size today's build
// picks for them (formats 3 and 4 size alike), and the array alone.
template <class Layout>
struct OldBytes {
  Layout layout;
  std::string fingerprints;
  std::string serialized;
};
template <class Layout>
OldBytes<Layout> Format3Bytes(const std::vector<uint64_t>& keys, int fingerprint_bits) {
  constexpr bool kXor = Layout::kArity == 3;
  const std::string fingerprint = "fingerprint=" + std::to_string(fingerprint_bits);
  const std::string prefix = kXor ? "xor:" + fingerprint : "binary_fuse:arity=4," + fingerprint;
  const std::string today = MustBuild(*MustPolicy(prefix), keys)->Describe();
  OldBytes<Layout> out;
  std::string size;
  if constexpr (kXor) {
    out.layout = Layout{LayoutParam(today, "block_length")};
    size = "block_length=" + std::to_string(out.layout.block_length);
  } else {
    const uint64_t length = LayoutParam(today, "segment_length");
    out.layout = Layout{__builtin_ctzll(length), LayoutParam(today, "segment_count")};
    size = "segment_length=" + std::to_string(length) + ",segment_count=" + std::to_string(out.layout.segment_count);
  }
  auto same_layout = [&out](size_t, uint32_t) { return out.layout; };
  uint32_t seed = 0;
  auto build = [&](auto fingerprint_type) {
    using Fingerprint = decltype(fingerprint_type);
    Peeled<Layout, Fingerprint> peeled;
    EXPECT_TRUE(
        BuildByPeeling<Fingerprint>(keys.data(), keys.size(), same_layout, kMaxAttempts, "format 3", &peeled).ok());
    out.fingerprints.assign(reinterpret_cast<const char*>(peeled.fingerprints.data()),
                            out.layout.num_slots() * sizeof(Fingerprint));
    seed = peeled.seed;
  };
  fingerprint_bits == 8 ? build(uint8_t{}) : build(uint16_t{});
  const std::string text = prefix + ",hash=64,format=3,seed=" + std::to_string(seed) + "," + size;
  AppendWithFilterlabTrailer(Slice(out.fingerprints.data(), out.fingerprints.size()), text, &out.serialized);
  return out;
}

// 10^6 keys, 4*10^6 fresh queries per spec (fixed seeds): positives are
// Binomial(Q, 2^-f); 4 sigma bounds a false alarm at ~1/16000 per spec
// (sigma: 3.1e-5 at f = 8, i.e. 0.8% of p; 1.95e-6 at f = 16, 13% of p).
// Under the sanitizers a tenth of both, with sigma from the queries asked.
TEST(PeeledFilterTest, MeasuredFpRateIsTwoToTheMinusFingerprintBits) {
  const size_t n = SanitizerScaled(1'000'000);
  const uint64_t q = SanitizerScaled(4'000'000);
  const std::vector<uint64_t> keys = TestHashes(21, n);
  const std::vector<uint64_t> queries = TestHashes(22, q);
  const std::pair<const char*, int> cases[] = {
      {"xor:fingerprint=8", 8},
      {"xor:fingerprint=16", 16},
      {"binary_fuse:arity=3,fingerprint=8", 8},
      {"binary_fuse:arity=4,fingerprint=8", 8},
      {"binary_fuse:arity=3,fingerprint=16", 16},
      {"binary_fuse:arity=4,fingerprint=16", 16},
  };
  for (const auto& [spec, bits] : cases) {
    auto p = MustPolicy(spec);
    auto f = MustBuild(*p, keys);
    std::unique_ptr<bool[]> answers(new bool[q]);
    f->MayContainBatch(queries.data(), q, answers.get());
    size_t positives = 0;
    for (uint64_t i = 0; i < q; ++i) positives += answers[i];
    const double expected = std::ldexp(1.0, -bits);
    EXPECT_NEAR(p->ModelFpRate(n), expected, 1e-12) << spec;  // + n/2^64, equal 64-bit hashes
    EXPECT_EQ(p->ModelFpRate(0), 0.0) << spec;                // an empty filter answers false
    const double sigma = std::sqrt(expected * (1 - expected) / static_cast<double>(q));
    EXPECT_NEAR(static_cast<double>(positives) / static_cast<double>(q), expected, 4 * sigma) << spec;
  }
}

// 500 inputs (SplitMix64, fixed seeds) at each size from 1 to 10^4 keys, and
// 20 at 10^5: every build succeeds, within a few seeds of the first; some
// need a second (so the retry path runs here). The fingerprint width does not
// change the hypergraph, so the 8-bit layouts stand for the 16-bit ones.
// Under the sanitizers a tenth of the inputs at 10^3 keys and up (memory
// safety of the retry path needs no statistics; it took 11.6 s under ASan).
TEST(PeeledFilterTest, SeedsNeededStayFarBelowTheLimit) {
  int retried = 0;
  for (const char* spec :
       {"xor:fingerprint=8", "binary_fuse:arity=3,fingerprint=8", "binary_fuse:arity=4,fingerprint=8"}) {
    auto p = MustPolicy(spec);
    for (size_t n :
         {size_t{1}, size_t{2}, size_t{7}, size_t{20}, size_t{100}, size_t{1000}, size_t{10'000}, size_t{100'000}}) {
      int max_seed = 0;
      const size_t inputs = n >= 100'000 ? 20 : 500;
      const size_t tried = n >= 1000 ? SanitizerScaled(inputs) : inputs;
      for (size_t input = 0; input < tried; ++input) {
        const std::vector<uint64_t> keys = TestHashes(n * 1'000'003 + input, n);
        auto f = MustBuild(*p, keys);
        ASSERT_NE(f, nullptr) << spec << " n=" << n << " input " << input;
        const std::string layout = f->Describe();
        const int seed = std::stoi(layout.substr(layout.find("seed=") + 5));
        max_seed = std::max(max_seed, seed);
        retried += seed > 0;
      }
      EXPECT_LE(max_seed, 10) << spec << " at " << n << " keys";
    }
  }
  EXPECT_GT(retried, 0);
}

// Near the peeling threshold some key sets peel with no seed: binary fuse
// 3-wise at 11501 keys has 12+2 segments of 1024 slots (load 0.80), and of 40
// inputs some failed all 100 seeds before the layout grew after failures
// (GrownKeys). Every build must succeed, some of them through a grown layout
// (13 segments), and none may need more than one growth step.
TEST(PeeledFilterTest, LayoutGrowsWhereNoSeedPeels) {
  auto p = MustPolicy("binary_fuse:arity=3,fingerprint=8");
  int grown = 0;
  for (int input = 0; input < 40; ++input) {
    auto f = MustBuild(*p, TestHashes(0x11501 + input, 11501));
    ASSERT_NE(f, nullptr) << "input " << input;
    const std::string layout = f->Describe();
    const int seed = std::stoi(layout.substr(layout.find("seed=") + 5));
    const bool more = layout.find("segment_count=13") != std::string::npos;
    EXPECT_TRUE(more || layout.find("segment_count=12") != std::string::npos) << layout;
    EXPECT_EQ(more, seed >= static_cast<int>(kSeedsPerSize)) << layout;
    EXPECT_LT(seed, 2 * static_cast<int>(kSeedsPerSize)) << layout;
    grown += more;
  }
  EXPECT_GT(grown, 0) << "no input needed the grown layout: the test no longer covers it";
}

// Bytes carry the slot mixing's format; bytes of another format, or of the
// mixings before format= existed, are refused rather than read with today's
// mixing (which would answer "absent" for stored keys).
TEST(PeeledFilterTest, BytesOfAnotherFormatAreRefused) {
  const std::vector<uint64_t> hashes = TestHashes(11, 5000);
  for (const char* spec :
       {"xor:fingerprint=8", "binary_fuse:arity=3,fingerprint=8", "binary_fuse:arity=4,fingerprint=16"}) {
    SCOPED_TRACE(spec);
    std::unique_ptr<Filter> built = MustBuild(*MustPolicy(spec), hashes);
    const std::string layout = built->Describe();
    const std::string tag = ",format=" + std::to_string(kPeeledFormat);
    ASSERT_NE(layout.find(tag), std::string::npos) << layout;
    const Slice data(static_cast<const char*>(built->View().data), built->DataBytes());

    std::string bytes;
    AppendWithFilterlabTrailer(data, layout, &bytes);
    std::unique_ptr<Filter> reopened;
    ASSERT_TRUE(OpenFilter(bytes, &reopened).ok());
    for (uint64_t h : hashes) ASSERT_TRUE(reopened->MayContain(h));

    std::string old_layout = layout;
    old_layout.erase(old_layout.find(tag), tag.size());
    bytes.clear();
    AppendWithFilterlabTrailer(data, old_layout, &bytes);
    Status s = OpenFilter(bytes, &reopened);
    EXPECT_TRUE(s.IsCorruption()) << s.ToString();
    EXPECT_NE(s.message().find("no format="), std::string::npos) << s.ToString();
    EXPECT_NE(s.message().find("rebuild"), std::string::npos) << s.ToString();

    for (int unknown : {kOldestPeeledFormat - 1, kPeeledFormat + 1}) {
      std::string other = layout;
      other.replace(other.find(tag), tag.size(), ",format=" + std::to_string(unknown));
      bytes.clear();
      AppendWithFilterlabTrailer(data, other, &bytes);
      s = OpenFilter(bytes, &reopened);
      EXPECT_TRUE(s.IsCorruption()) << s.ToString();
      EXPECT_NE(s.message().find("reads formats " + std::to_string(kOldestPeeledFormat) + " to " +
                                 std::to_string(kPeeledFormat) + " only"),
                std::string::npos)
          << s.ToString();
    }
  }
}

// Format 2 bytes remixed every seed's hashes with MultipliedHash, seed 0's
// too; format 3 takes seed 0's hashes as they are (format 4 too, with other
// slots for XOR and 4-wise binary fuse). So format 2 bytes of keys
// {h} at seed 0 are exactly format 3 bytes of the keys {MultipliedHash(h, 0)}
// at seed 0: built that way and labelled format=2, they must hold every h and
// answer any query q as the format 3 filter answers MultipliedHash(q, 0);
// and an opened filter keeps its format in Describe (and so in Serialize).
TEST(PeeledFilterTest, Format2BytesAreReadWithTheirOwnMixing) {
  const std::vector<uint64_t> keys = TestHashes(31, 3000);
  const std::vector<uint64_t> queries = TestHashes(32, 100000);
  std::vector<uint64_t> multiplied;
  for (uint64_t h : keys) multiplied.push_back(MultipliedHash(h, 0));
  for (const char* spec :
       {"xor:fingerprint=8", "binary_fuse:arity=3,fingerprint=16", "binary_fuse:arity=4,fingerprint=8"}) {
    SCOPED_TRACE(spec);
    // Today's bytes for 3-wise binary fuse; format 3 bytes (read through
    // the format 3 reader) for XOR and 4-wise binary fuse, whose slots
    // changed in format 4.
    const std::string kind(spec);
    const bool format3 = kind.find("arity=3") == std::string::npos;
    std::unique_ptr<Filter> built;
    std::string format3_bytes;  // an opened filter reads them in place
    if (kind.find("xor") == 0) {
      format3_bytes = Format3Bytes<Format3XorLayout>(multiplied, 8).serialized;
      ASSERT_TRUE(OpenFilter(format3_bytes, &built).ok());
    } else if (format3) {
      format3_bytes = Format3Bytes<Format3FourWiseLayout>(multiplied, 8).serialized;
      ASSERT_TRUE(OpenFilter(format3_bytes, &built).ok());
    } else {
      built = MustBuild(*MustPolicy(spec), multiplied);
    }
    const std::string layout = built->Describe();
    ASSERT_NE(layout.find(",seed=0,"), std::string::npos) << layout << ": these keys need a seed-0 build";
    const std::string tag = ",format=" + std::to_string(format3 ? 3 : kPeeledFormat);
    std::string old_layout = layout;
    old_layout.replace(old_layout.find(tag), tag.size(), ",format=2");
    std::string bytes;
    AppendWithFilterlabTrailer(Slice(static_cast<const char*>(built->View().data), built->DataBytes()), old_layout,
                               &bytes);
    std::unique_ptr<Filter> old;
    ASSERT_TRUE(OpenFilter(bytes, &old).ok());
    EXPECT_EQ(old->Describe(), old_layout);
    for (uint64_t h : keys) ASSERT_TRUE(old->MayContain(h));
    for (uint64_t q : queries) ASSERT_EQ(old->MayContain(q), built->MayContain(MultipliedHash(q, 0)));
    // The same bytes read as their own format (3, or 4 for 3-wise binary
    // fuse) take the keys' hashes unmixed: they must not hold them (a reader ignoring format= would pass the loop above
    // only by chance, and fail here).
    std::unique_ptr<Filter> misread;
    std::string as_new;
    AppendWithFilterlabTrailer(Slice(static_cast<const char*>(built->View().data), built->DataBytes()), layout,
                               &as_new);
    ASSERT_TRUE(OpenFilter(as_new, &misread).ok());
    size_t held = 0;
    for (uint64_t h : keys) held += misread->MayContain(h);
    EXPECT_LT(held, keys.size() / 10) << "format 2 and 3 read alike at seed 0";
  }
}

// Format 4 moved XOR's third slot and 4-wise binary fuse's third offset
// (segments up to 2^16 slots); format 3 bytes keep theirs. Built with format
// 3's slots (the restatements above) and opened: every key is held, and every
// query (MayContain, the layout's own query, and MayContainBatch, the
// generic Positions path) answers as the XOR of the format-3 slots says. Read
// as format 4 the same bytes hold few keys (a moved slot matches by chance
// 2^-f of the time), so the reader really tells the formats apart.
// Fingerprints 8 and 16; 3000 keys and 300000 (binary fuse L = 64 and 2048).
template <class Layout>
void ExpectFormat3BytesReadWithTheirOwnSlots() {
  for (int fingerprint_bits : {8, 16}) {
    for (size_t n : {size_t{3000}, size_t{300000}}) {
      SCOPED_TRACE(std::to_string(fingerprint_bits) + " bits, " + std::to_string(n) + " keys");
      const std::vector<uint64_t> keys = TestHashes(51, n);
      const std::vector<uint64_t> queries = TestHashes(52, 20000);
      const OldBytes<Layout> old = Format3Bytes<Layout>(keys, fingerprint_bits);
      std::unique_ptr<Filter> f;
      ASSERT_TRUE(OpenFilter(old.serialized, &f).ok());
      const std::string text = f->Describe();
      ASSERT_NE(text.find(",format=3,"), std::string::npos) << text;
      for (uint64_t h : keys) ASSERT_TRUE(f->MayContain(h));

      const auto seed = static_cast<uint32_t>(LayoutParam(text, "seed"));
      const auto* array = reinterpret_cast<const unsigned char*>(old.fingerprints.data());
      auto expected = [&](uint64_t q) {
        const uint64_t h = SeededHash(q, seed);
        uint32_t pos[Layout::kArity];
        old.layout.Positions(h, pos);
        uint32_t x = fingerprint_bits == 8 ? FingerprintOf<uint8_t>(h) : FingerprintOf<uint16_t>(h);
        for (uint32_t slot : pos) {
          x ^= fingerprint_bits == 8 ? LoadFingerprint<uint8_t>(array, slot) : LoadFingerprint<uint16_t>(array, slot);
        }
        return x == 0;
      };
      std::unique_ptr<bool[]> batch(new bool[queries.size()]);
      f->MayContainBatch(queries.data(), queries.size(), batch.get());
      for (size_t i = 0; i < queries.size(); ++i) {
        ASSERT_EQ(f->MayContain(queries[i]), expected(queries[i])) << i;
        ASSERT_EQ(batch[i], expected(queries[i])) << i;
      }

      std::string as_format4 = text;
      as_format4.replace(as_format4.find(",format=3,"), 10, ",format=4,");
      std::string bytes;
      AppendWithFilterlabTrailer(Slice(old.fingerprints.data(), old.fingerprints.size()), as_format4, &bytes);
      std::unique_ptr<Filter> misread;
      ASSERT_TRUE(OpenFilter(bytes, &misread).ok());
      size_t held = 0;
      for (uint64_t h : keys) held += misread->MayContain(h);
      EXPECT_LT(held, keys.size() / 10) << "format 3 and 4 read alike";
    }
  }
}
TEST(PeeledFilterTest, Format3XorBytesAreReadWithTheirOwnSlots) {
  ExpectFormat3BytesReadWithTheirOwnSlots<Format3XorLayout>();
}
TEST(PeeledFilterTest, Format3FourWiseFuseBytesAreReadWithTheirOwnSlots) {
  ExpectFormat3BytesReadWithTheirOwnSlots<Format3FourWiseLayout>();
}

}  // namespace
}  // namespace filterlab::fuse
