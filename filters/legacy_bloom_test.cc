// Tests specific to the legacy RocksDB filters ("legacy": the format_version
// <= 4 full filter; "legacy_block": the old block-based filter): sizing and
// probe rules, the native trailer and its strict reader (including lines of
// other power-of-two sizes), batch == single, round trips and spec errors.
// Bit-exactness against RocksDB is checked by the vector files
// (legacy_locality_bloom.json, legacy_no_locality_bloom.json,
// full_filter_e2e.json).
#include "filters/legacy_bloom.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "common/aligned_array.h"
#include "common/test_scale.h"
#include "filters/filter_test_util.h"
#include "filters/legacy_bloom_avx2.h"
#include "filters/legacy_bloom_avx512.h"
#include "filters/registry.h"
#include "hashing/legacy_hash.h"
#include "hashing/remix.h"

namespace filterlab {
namespace {

using testing_util::ExpectCorruption;

std::unique_ptr<FilterPolicy> Policy(const std::string& spec) { return testing_util::MustPolicy(spec); }
using testing_util::TestHashes;
std::unique_ptr<Filter> Build(const FilterPolicy& p, const std::vector<uint64_t>& hashes) {
  return testing_util::MustBuild(p, hashes);
}

Status Open(const std::string& bytes, std::unique_ptr<Filter>* f) { return OpenFilter(bytes, f); }

TEST(LegacyBloomTest, ProbeCountRule) {
  // floor(0.69 * whole bits) clamped to 1..30.
  EXPECT_EQ(legacy::ChooseNumProbes(0), 1);
  EXPECT_EQ(legacy::ChooseNumProbes(1), 1);
  EXPECT_EQ(legacy::ChooseNumProbes(3), 2);
  EXPECT_EQ(legacy::ChooseNumProbes(10), 6);
  EXPECT_EQ(legacy::ChooseNumProbes(16), 11);
  EXPECT_EQ(legacy::ChooseNumProbes(20), 13);
  EXPECT_EQ(legacy::ChooseNumProbes(43), 29);
  EXPECT_EQ(legacy::ChooseNumProbes(44), 30);
  EXPECT_EQ(legacy::ChooseNumProbes(100), 30);
}

TEST(LegacyBloomTest, PolicyUsesWholeBitsRoundedHalfUp) {
  EXPECT_EQ(Policy("legacy:bpk=20.5")->num_probes(), 14);    // 21 whole bits
  EXPECT_EQ(Policy("legacy:bpk=20.499")->num_probes(), 13);  // 20
  EXPECT_EQ(Policy("legacy:bpk=20.5")->spec(), "legacy:bpk=20.5,probes=14,hash=32");
  EXPECT_EQ(Policy("legacy")->spec(), "legacy:bpk=10,probes=6,hash=32");
  EXPECT_EQ(Policy("legacy:bpk=0.6")->spec(), "legacy:bpk=1,probes=1,hash=32");
  EXPECT_EQ(Policy("legacy_block:bpk=10.5")->spec(), "legacy_block:bpk=10.5,probes=7,hash=32");
  EXPECT_EQ(Policy("legacy:bpk=10,probes=2")->num_probes(), 2);
  // Same filter for requests that round to the same whole bits.
  const auto hashes = TestHashes(1, 1000, HashWidth::k32);
  EXPECT_EQ(Build(*Policy("legacy:bpk=10.4"), hashes)->Serialize(),
            Build(*Policy("legacy:bpk=9.5"), hashes)->Serialize());
}

TEST(LegacyBloomTest, OddLineCount) {
  EXPECT_EQ(legacy::NumLinesForKeys(1, 1), 1u);
  EXPECT_EQ(legacy::NumLinesForKeys(1000, 10), 21u);  // 19.5 -> 20 -> odd 21
  EXPECT_EQ(legacy::NumLinesForKeys(100, 10), 3u);    // 1.95 -> 2 -> 3
  EXPECT_EQ(legacy::NumLinesForKeys(512, 3), 3u);     // exactly 3
  EXPECT_EQ(legacy::NumLinesForKeys(10000, 10), 197u);
  // Capped at 0xffff0000 bits = 8388480 lines, made odd; no overflow for absurd counts.
  EXPECT_EQ(legacy::NumLinesForKeys(uint64_t{1} << 40, 100), 8388481u);
  EXPECT_EQ(legacy::NumLinesForKeys(UINT64_MAX, 100), 8388481u);
}

TEST(LegacyBloomTest, NativeTrailerBytes) {
  auto f = Build(*Policy("legacy:bpk=10"), TestHashes(2, 1000, HashWidth::k32));
  const std::string bytes = f->Serialize();
  ASSERT_EQ(bytes.size(), 21u * 64 + 5);
  EXPECT_EQ(testing_util::HexOf(bytes.substr(bytes.size() - 5)), "0615000000");  // 6 probes, 21 lines
  EXPECT_EQ(f->Describe(), "legacy:hash=32,probes=6,lines=21,line_bytes=64");
  EXPECT_EQ(Build(*Policy("legacy:bpk=10"), {})->Serialize(), "");
}

TEST(LegacyBloomTest, HashKeyIsBloomHash32) {
  const std::string key = "filterlab key";
  EXPECT_EQ(Policy("legacy:bpk=10")->HashKey(key), BloomHash32(key.data(), key.size()));
  EXPECT_EQ(Policy("legacy_block:bpk=10")->HashKey(key), BloomHash32(key.data(), key.size()));
}

TEST(LegacyBloomTest, BadSpecsAreRejectedWithTheKeyNamed) {
  struct Bad {
    const char* spec;
    const char* must_mention;
  };
  for (const char* variant : {"legacy", "legacy_block"}) {
    for (const Bad& b :
         {Bad{":bpk=0", "bpk"}, Bad{":bpk=nan", "bpk"}, Bad{":bpk=-1", "bpk"}, Bad{":bpk=101", "bpk"},
          Bad{":bpk=10,probes=0", "probes"}, Bad{":bpk=10,probes=31", "probes"}, Bad{":bpk=10,hash=64", "hash"},
          Bad{":bpk=10,hash=16", "hash"}, Bad{":bpk=10,rotates=1", "rotates"}}) {
      const std::string spec = std::string(variant) + b.spec;
      std::unique_ptr<FilterPolicy> p;
      Status s = NewFilterPolicy(spec, &p);
      EXPECT_TRUE(s.IsInvalidArgument()) << spec << " -> " << s.ToString();
      EXPECT_NE(s.message().find(b.must_mention), std::string::npos) << spec << " -> " << s.ToString();
    }
  }
}

TEST(LegacyBloomTest, SerializeOpenRoundTrip) {
  for (const char* spec : {"legacy:bpk=10", "legacy:bpk=3,probes=17", "legacy_block:bpk=10", "legacy_block:bpk=1"}) {
    for (size_t keys : {0, 1, 7, 3000}) testing_util::ExpectRoundTrip(spec, keys);
  }
}

TEST(LegacyBloomTest, NoFalseNegatives) {
  for (const char* spec :
       {"legacy:bpk=10", "legacy:bpk=1", "legacy:bpk=50", "legacy_block:bpk=10", "legacy_block:bpk=2"}) {
    testing_util::ExpectNoFalseNegatives(spec, {1, 7, 100000});
  }
}

TEST(LegacyBloomTest, UpperHashBitsAreIgnored) {
  for (const char* spec : {"legacy:bpk=10", "legacy_block:bpk=10"}) {
    auto f = Build(*Policy(spec), TestHashes(6, 2000, HashWidth::k32));
    SplitMix64 gen(7);
    size_t differ = 0;
    for (int i = 0; i < 5000; ++i) {
      const uint64_t h = gen.Next();
      differ += f->MayContain(h) != f->MayContain(Lower32(h));
    }
    EXPECT_EQ(differ, 0u) << spec;
  }
}

TEST(LegacyBloomTest, BatchEqualsSingle) {
  for (const char* spec : {"legacy:bpk=10", "legacy_block:bpk=10", "legacy:bpk=5,probes=23"}) {
    testing_util::ExpectBatchEqualsSingle(spec, {1, 7, 16, 17, 64, 65, 4000});
  }
}

// A legacy filter as a machine with `line_bytes`-byte cache lines builds it.
std::string ForeignLegacyFilter(int log2_line_bytes, uint32_t num_lines, int probes,
                                const std::vector<uint64_t>& hashes) {
  std::string data(size_t{num_lines} << log2_line_bytes, '\0');
  auto* p = reinterpret_cast<uint8_t*>(data.data());
  for (uint64_t hash : hashes) {
    const uint32_t h = Lower32(hash);
    legacy::AddToLine<false>(h, probes, log2_line_bytes, p + legacy::LineOffset<false>(h, num_lines, log2_line_bytes));
  }
  data += static_cast<char>(probes);
  data.append(reinterpret_cast<const char*>(&num_lines), 4);
  return data;
}

// AddAll (word ORs, unrolled per probe count, prefetching above 4096 lines,
// FastMod32 up to 65535 lines) sets exactly the bits of RocksDB's byte loop
// (AddToLine with h % num_lines), for every probe count 1..30 and line
// counts on each side of the prefetch and FastMod32 limits.
TEST(LegacyBloomTest, AddAllEqualsRocksDbLoop) {
  for (uint32_t num_lines : {1u, 47u, 4097u, 65535u, 65537u}) {
    const auto hashes =
        TestHashes(num_lines, SanitizerScaled(std::min<size_t>(num_lines * 16, 200000)), HashWidth::k32);
    for (int probes = 1; probes <= legacy::kMaxProbes; probes += (num_lines > 50 && probes >= 9 ? 7 : 1)) {
      SCOPED_TRACE("lines " + std::to_string(num_lines) + " probes " + std::to_string(probes));
      std::string want = ForeignLegacyFilter(legacy::kLog2LineBytes, num_lines, probes, hashes);
      want.resize(want.size() - legacy::kTrailerBytes);
      std::string got(size_t{num_lines} * 64, '\0');
      legacy::AddAll(hashes.data(), hashes.size(), num_lines, probes, reinterpret_cast<uint8_t*>(got.data()));
      ASSERT_EQ(got, want);
    }
  }
}

// The branch-free AVX-512 kernel answers as RocksDB's loop (MayMatchLine)
// on random lines of every density, every probe count 1..30 (one round of
// up to 8 lanes, or two of 16), at unaligned addresses.
TEST(LegacyBloomTest, Avx512AgreesWithRocksDbLoop) {
  if (!legacy::kHasAvx512Path)
    GTEST_SKIP() << "AVX-512 path not compiled in (no __AVX512F__ or FILTERLAB_FORCE_SCALAR)";
#ifdef FILTERLAB_LEGACY_AVX512
  const auto c = testing_util::CompareLineKernels(
      2718, legacy::kMaxProbes,
      [](uint32_t h, int probes, const uint8_t* line) {
        return legacy::MayMatchLine<false>(h, probes, legacy::kLog2LineBytes, line);
      },
      [](uint32_t h, int probes, const uint8_t* line, bool loop) {
        return size_t{loop != legacy::MayMatchLine64Avx512(h, probes, line)};
      });
  EXPECT_EQ(c.differ, 0u);
  EXPECT_GT(c.trues, 10000u);
  EXPECT_GT(c.falses, 10000u);
#endif
}

// The AVX2 kernel (cores without AVX-512; compiled on AVX-512 targets too,
// which imply AVX2) answers as RocksDB's loop, as above.
TEST(LegacyBloomTest, Avx2AgreesWithRocksDbLoop) {
  if (!legacy::kHasAvx2Path) GTEST_SKIP() << "AVX2 path not compiled in (no __AVX2__ or FILTERLAB_FORCE_SCALAR)";
#ifdef FILTERLAB_LEGACY_AVX2
  const auto c = testing_util::CompareLineKernels(
      3141, legacy::kMaxProbes,
      [](uint32_t h, int probes, const uint8_t* line) {
        return legacy::MayMatchLine<false>(h, probes, legacy::kLog2LineBytes, line);
      },
      [](uint32_t h, int probes, const uint8_t* line, bool loop) {
        return size_t{loop != legacy::MayMatchLine64Avx2(h, probes, line)};
      });
  EXPECT_EQ(c.differ, 0u);
  EXPECT_GT(c.trues, 10000u);
  EXPECT_GT(c.falses, 10000u);
#endif
}

// A filter's view finds its line by FastMod32 up to 65535 lines and by a
// division beyond: both answer as RocksDB's h % num_lines and loop over the
// serialized bytes (at 6 and at 30 probes).
TEST(LegacyBloomTest, ViewAnswersAsRocksDbOnEitherSideOfTheFastModLimit) {
  const struct {
    const char* spec;
    size_t keys;
    bool over;
  } cases[] = {{"legacy:bpk=10", 20000, false}, {"legacy:bpk=100", 330000, false}, {"legacy:bpk=100", 400000, true}};
  for (const auto& c : cases) {
    SCOPED_TRACE(std::string(c.spec) + " keys " + std::to_string(c.keys));
    const auto policy = Policy(c.spec);
    const auto f = Build(*policy, TestHashes(5, c.keys, HashWidth::k32));
    const std::string bytes = f->Serialize();
    uint32_t num_lines = 0;
    std::memcpy(&num_lines, bytes.data() + bytes.size() - 4, 4);
    EXPECT_EQ(num_lines > 65535u, c.over) << num_lines;
    const int probes = *policy->num_probes();
    const auto* data = reinterpret_cast<const uint8_t*>(bytes.data());
    size_t differ = 0, positives = 0;
    for (uint64_t hash : TestHashes(6, SanitizerScaled(200000), HashWidth::k32)) {
      const uint32_t h = Lower32(hash);
      const bool want =
          legacy::MayMatchLine<false>(h, probes, legacy::kLog2LineBytes, data + size_t{h % num_lines} * 64);
      differ += f->MayContain(hash) != want;
      positives += want;
    }
    EXPECT_EQ(differ, 0u);
    EXPECT_GT(positives, 0u);
  }
}

TEST(LegacyBloomTest, ReaderAdaptsToOtherLineSizes) {
  const auto hashes = TestHashes(10, 3000, HashWidth::k32);
  for (int log2 : {7, 8}) {  // aarch64/ppc (128 B) and s390x (256 B)
    const std::string bytes = ForeignLegacyFilter(log2, 47, 6, hashes);
    std::unique_ptr<Filter> f;
    Status s = Open(bytes, &f);
    ASSERT_TRUE(s.ok()) << s.ToString();
    EXPECT_EQ(f->Describe(), "legacy:hash=32,probes=6,lines=47,line_bytes=" + std::to_string(1 << log2));
    size_t missing = 0, positives = 0;
    for (uint64_t h : hashes) missing += !f->MayContain(h);
    for (uint64_t h : TestHashes(11, 10000, HashWidth::k32)) positives += f->MayContain(h);
    EXPECT_EQ(missing, 0u);
    EXPECT_LT(positives, 1000u);  // it really reads the lines (an always-true reader would say 10000)
  }
}

TEST(LegacyBloomTest, ReaderRejectsBadTrailers) {
  const std::string good = Build(*Policy("legacy:bpk=10"), TestHashes(12, 1000, HashWidth::k32))->Serialize();
  const size_t len = good.size() - 5;
  {
    std::string b = good;
    b[len] = 31;
    ExpectCorruption(b, {"offset " + std::to_string(len), "num_probes", "31", "allowed: 1..30"});
  }
  {
    std::string b = good;
    std::memset(b.data() + len + 1, 0, 4);
    ExpectCorruption(b, {"num_lines", "are 0"});
  }
  {
    std::string b = good;
    b[len + 1] = 20;  // 20 lines do not make 1344 bytes with any power-of-two line size
    ExpectCorruption(b, {"data length 1344", "num_lines (20)", "power-of-two"});
  }
  {
    std::string b = good;
    b.erase(0, 64);  // truncated by one line: 1280 is not 21 x 2^s
    ExpectCorruption(b, {"data length 1280", "num_lines (21)", "truncated"});
  }
}

TEST(LegacyBloomTest, NativeReaderIgnoresOtherMarkers) {
  const FilterVariant* v = FindFilterVariant("legacy");
  ASSERT_NE(v, nullptr);
  ASSERT_NE(v->open_native, nullptr);
  std::string b = Build(*Policy("legacy:bpk=10"), TestHashes(13, 1000, HashWidth::k32))->Serialize();
  b[b.size() - 5] = static_cast<char>(-1);
  std::unique_ptr<Filter> f;
  EXPECT_TRUE(v->open_native(b, &f).IsNotFound());
}

// NoLocalityAddAll (eight keys at a time by Mod32x8Avx2 where the compiler
// targets AVX2, the rest by FastMod32Any; unrolled for 4..8 probes) sets
// exactly the bits of RocksDB's loop (NoLocalityAdd, a division per probe) at
// every probe count and bit counts from the smallest to 2^21, a power of two
// among them; 2003 keys, so the last three take the scalar path.
TEST(LegacyBlockBloomTest, AddAllSetsTheBitsOfRocksDbLoop) {
  for (uint32_t total_bits : {64u, 72u, 8000u, 1u << 16, 100008u, 98765u * 8, (1u << 21) + 8}) {
    for (int probes = 1; probes <= legacy::kMaxProbes; ++probes) {
      const auto hashes = TestHashes(total_bits + probes, 2003, HashWidth::k32);
      std::vector<uint8_t> got(total_bits / 8), want(total_bits / 8);
      legacy::NoLocalityAddAll(hashes.data(), hashes.size(), total_bits, probes, got.data());
      for (uint64_t h : hashes) legacy::NoLocalityAdd(Lower32(h), total_bits, probes, want.data());
      ASSERT_EQ(got, want) << "bits " << total_bits << " probes " << probes;
    }
  }
}

// The query (eight remainders at a time in double precision where the
// compiler targets AVX-512, else a division per probe) answers as RocksDB's
// loop (NoLocalityMayMatch) at every probe count, on the keys and on random
// hashes, at sizes from the smallest to past 2^24 bits, over enough passes
// and fails of random hashes that both answers are checked. (Under the
// sanitizers the large size is a tenth, 2^21 bits.)
TEST(LegacyBlockBloomTest, QueryAnswersAsRocksDbLoop) {
  uint64_t passes = 0, fails = 0;
  for (int probes = 1; probes <= legacy::kMaxProbes; ++probes) {
    for (const double bpk : {1.0, 3.0, 10.0}) {
      for (size_t n : {size_t{1}, size_t{7}, size_t{5000}, SanitizerScaled(2100000)}) {
        if (n > 5000 && (probes % 7 != 1 || bpk != 10.0)) continue;  // the large size: a few probe counts
        const auto keys = TestHashes(probes * 100 + n, n, HashWidth::k32);
        auto f = Build(*Policy("legacy_block:bpk=" + std::to_string(bpk) + ",probes=" + std::to_string(probes)), keys);
        const uint32_t total_bits = legacy::BlockFilterBitsForKeys(n, bpk);
        std::vector<uint8_t> want(total_bits / 8);
        for (uint64_t h : keys) legacy::NoLocalityAdd(Lower32(h), total_bits, probes, want.data());
        for (uint64_t h : TestHashes(probes * 1000 + n + 1, 4000, HashWidth::k32)) {
          const bool expected = legacy::NoLocalityMayMatch(Lower32(h), total_bits, probes, want.data());
          ASSERT_EQ(f->MayContain(h), expected) << "probes " << probes << " bits " << total_bits << " hash " << h;
          ++(expected ? passes : fails);
        }
        for (size_t i = 0; i < std::min<size_t>(n, 1000); ++i) ASSERT_TRUE(f->MayContain(keys[i]));
      }
    }
  }
  EXPECT_GT(passes, 20000u);
  EXPECT_GT(fails, 20000u);
}

TEST(LegacyBlockBloomTest, Sizing) {
  EXPECT_EQ(legacy::BlockFilterBitsForKeys(1, 10), 64u);  // at least 64 bits
  EXPECT_EQ(legacy::BlockFilterBitsForKeys(0, 10), 64u);
  EXPECT_EQ(legacy::BlockFilterBitsForKeys(10, 7), 72u);  // 70 -> whole bytes
  EXPECT_EQ(legacy::BlockFilterBitsForKeys(100, 10), 1000u);
  EXPECT_EQ(legacy::BlockFilterBitsForKeys(uint64_t{1} << 40, 10), 0u);  // beyond the 32-bit format
  auto f = Build(*Policy("legacy_block:bpk=7"), TestHashes(14, 10, HashWidth::k32));
  EXPECT_EQ(f->DataBytes(), 9u);
  EXPECT_EQ(f->Describe(), "legacy_block:hash=32,probes=4,bits=72");
}

// The premise of legacy_block's FP model: probe #2 of h is (2A + B) * 65537
// mod 2^32 for h = A*2^17 + B, so it reaches fewer than 2^17.6 values.
TEST(LegacyBlockBloomTest, ProbeTwoCollapsesToOneVariable) {
  SplitMix64 gen(16);
  for (int i = 0; i < 100000; ++i) {
    const uint32_t h = Lower32(gen.Next());
    const uint32_t probe2 = h + 2 * RotateRight32(h, 17);
    const uint32_t s = 2 * (h >> 17) + (h & ((1u << 17) - 1));
    ASSERT_EQ(probe2, s * 65537u) << "h=" << h;
  }
  // With two probes nothing collapses and the model is the standard one.
  EXPECT_DOUBLE_EQ(legacy::NoLocalityFpRate(1000, 10000, 2), std::pow(1 - std::pow(1 - 1.0 / 10000, 2 * 1000), 2));
  // From three probes on the collapse raises the rate above the standard one.
  const double standard = std::pow(1 - std::pow(1 - 1.0 / 1e6, 6 * 1e5), 6);
  EXPECT_GT(legacy::NoLocalityFpRate(1e5, 1000000, 6), 1.2 * standard);
}

TEST(LegacyBlockBloomTest, TooManyKeysIsAnError) {
  // Build checks the size before reading any hash.
  std::unique_ptr<Filter> f;
  Status s = Policy("legacy_block:bpk=10")->Build(nullptr, size_t{500} * 1000 * 1000, &f);
  EXPECT_TRUE(s.IsInvalidArgument()) << s.ToString();
  EXPECT_NE(s.message().find("32-bit bit count"), std::string::npos) << s.ToString();
}

TEST(LegacyBlockBloomTest, LayoutReaderChecksBitCount) {
  auto f = Build(*Policy("legacy_block:bpk=10"), TestHashes(15, 100, HashWidth::k32));  // 1000 bits
  std::string bytes = f->Serialize();
  const std::string layout = f->Describe();
  const size_t at = bytes.find(layout);
  ASSERT_NE(at, std::string::npos);
  std::string other = layout;
  other.replace(other.find("bits=") + 5, std::string::npos, "1008");
  bytes.replace(at, layout.size(), other);
  ExpectCorruption(bytes, {"1008 bits", "125 data bytes"});
}

}  // namespace
}  // namespace filterlab
