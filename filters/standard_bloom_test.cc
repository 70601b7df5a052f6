// StandardBloom: exact sizing, probe independence, the FP rate against the
// exact textbook formula, the reader, and spec errors.
#include "filters/standard_bloom.h"

#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "filters/filter.h"
#include "filters/filter_test_util.h"
#include "filters/fp_model.h"
#include "filters/trailer.h"
#include "hashing/remix.h"
#include "hashing/xxh3.h"

namespace filterlab {
namespace {

using testing_util::MustBuild;
using testing_util::MustPolicy;
using testing_util::TestHashes;

TEST(StandardBloomTest, SizeIsExactlyCeilKeysTimesBitsPerKey) {
  auto p = MustPolicy("standard:bpk=10.3");
  auto f = MustBuild(*p, TestHashes(1, 1000));
  // 1000 x 10.3 = 10300 bits (exact millibits, no float round-up to 10301),
  // stored in ceil(10300 / 64) = 161 words.
  EXPECT_EQ(f->Describe(), "standard:hash=64,probes=7,bits=10300");
  EXPECT_EQ(f->DataBytes(), 161u * 8);
  f = MustBuild(*p, TestHashes(2, 7));  // 72.1 -> 73 bits
  EXPECT_EQ(f->Describe(), "standard:hash=64,probes=7,bits=73");
  f = MustBuild(*p, {});  // no keys: one bit, nothing present
  EXPECT_EQ(f->Describe(), "standard:hash=64,probes=7,bits=1");
  EXPECT_FALSE(f->MayContain(99));
  EXPECT_EQ(p->ModelFpRate(0), 0.0);
}

TEST(StandardBloomTest, DefaultProbesAreRoundedOptimumWithinRange) {
  EXPECT_EQ(MustPolicy("standard:bpk=10")->num_probes(), 7);    // 6.93
  EXPECT_EQ(MustPolicy("standard:bpk=16")->num_probes(), 11);   // 11.09
  EXPECT_EQ(MustPolicy("standard:bpk=0.5")->num_probes(), 1);   // 0.35, raised to 1
  EXPECT_EQ(MustPolicy("standard:bpk=100")->num_probes(), 30);  // 69.3, capped
  EXPECT_EQ(MustPolicy("standard:bpk=10,probes=3")->num_probes(), 3);
  EXPECT_EQ(MustPolicy("standard:bpk=10")->spec(), "standard:bpk=10,probes=7,hash=64");
  EXPECT_EQ(MustPolicy("standard:bpk=10,hash=32")->spec(), "standard:bpk=10,probes=7,hash=32");
}

TEST(StandardBloomTest, ProbesAreUniformAndIndependent) {
  // In m = 64 bits, two independent uniform probes coincide with probability
  // exactly 1/64, and each probe hits every bit equally often. 64000 hashes:
  // coincidences ~ Binomial(64000, 1/64), mean 1000, sigma 31; a bit's count
  // of probe 0 ~ mean 1000, sigma 31. Bounds: 4 sigmas (fixed seed).
  std::unique_ptr<StandardBloom> f;
  ASSERT_TRUE(StandardBloom::Create(64, 2, HashWidth::k64, &f).ok());
  SplitMix64 gen(3);
  int coincide = 0;
  std::vector<int> counts(64, 0);
  for (int i = 0; i < 64000; ++i) {
    const uint64_t h = gen.Next();
    const uint64_t b0 = f->ProbeBit(h, 0);
    ASSERT_LT(b0, 64u);
    coincide += b0 == f->ProbeBit(h, 1);
    ++counts[b0];
  }
  EXPECT_NEAR(coincide, 1000, 4 * 31);
  for (int c : counts) EXPECT_NEAR(c, 1000, 4 * 31);
  // The same holds for consecutive small hashes (a weak 32-bit source):
  // Mix64 decorrelates h + i * phi even when the h differ in one bit.
  coincide = 0;
  for (uint64_t h = 0; h < 64000; ++h) coincide += f->ProbeBit(h, 0) == f->ProbeBit(h, 1);
  EXPECT_NEAR(coincide, 1000, 4 * 31);
}

TEST(StandardBloomTest, ThirtyTwoBitFormIgnoresTheHighHalf) {
  std::unique_ptr<StandardBloom> f;
  ASSERT_TRUE(StandardBloom::Create(10000, 5, HashWidth::k32, &f).ok());
  f->Insert(0xabcdef0012345678ULL);
  EXPECT_TRUE(f->MayContain(0x12345678));
  for (int i = 0; i < 5; ++i) EXPECT_EQ(f->ProbeBit(0xabcdef0012345678ULL, i), f->ProbeBit(0x12345678, i));
  auto p = MustPolicy("standard:bpk=10,hash=32");
  const std::string key = "some key";
  EXPECT_EQ(p->HashKey(key), Lower32(XXH3_64(key.data(), key.size())));
  EXPECT_EQ(MustPolicy("standard:bpk=10")->HashKey(key), XXH3_64(key.data(), key.size()));
}

TEST(StandardBloomTest, BatchQueryMatchesSingleQueries) {
  // Batch sizes around the 8-key chunk, and the probe-count extremes (the
  // chunk keeps up to 30 positions per key).
  for (const char* spec : {"standard:bpk=10", "standard:bpk=4,probes=30,hash=32", "standard:bpk=20,probes=1"}) {
    testing_util::ExpectBatchEqualsSingle(spec, {1, 7, 8, 9, 1000});
  }
}

// The view packs m and k into its param: the extremes of both (k = 1 and 30,
// m leaving a partial last word) and both widths answer as the filter.
TEST(StandardBloomTest, OwnViewAnswersAsTheFilter) {
  for (const char* spec : {"standard:bpk=10", "standard:bpk=10,hash=32", "standard:bpk=4,probes=30",
                           "standard:bpk=20.3,probes=1,hash=32"}) {
    auto p = MustPolicy(spec);
    const auto added = TestHashes(31, 3001, p->hash_width());
    auto f = MustBuild(*p, added);
    std::vector<uint64_t> queries = TestHashes(32, 5000);  // full 64 bits: hash=32 must ignore the high half
    queries.insert(queries.end(), added.begin(), added.end());
    testing_util::ExpectOwnViewAgrees(*f, queries, spec);
  }
}

// 10^6 keys at 10 bits/key (k = 7), 10^6 fresh queries; no false negatives
// and the FP rate within 4 binomial sigmas of StandardFpRateExact (sigma ~
// 9e-5, ~1% of the rate). The filter's own content spread is far below that:
// the fraction of set bits in 10^7 bits varies by ~3e-4 relative, so the
// rate (fill^7) by ~0.2%.
TEST(StandardBloomTest, FpRateMatchesExactFormulaAndNoFalseNegatives) {
  constexpr size_t kKeys = 1000000, kQueries = 1000000;
  for (const char* spec : {"standard:bpk=10", "standard:bpk=10,hash=32", "standard:bpk=6,probes=2"}) {
    auto p = MustPolicy(spec);
    SplitMix64 gen(17);
    std::vector<uint64_t> added(kKeys);
    for (auto& h : added) h = gen.Next();
    auto f = MustBuild(*p, added);
    size_t false_negatives = 0;
    for (uint64_t h : added) false_negatives += f->MayContain(h) ? 0 : 1;
    EXPECT_EQ(false_negatives, 0u) << spec;
    size_t positives = 0;
    for (size_t i = 0; i < kQueries; ++i) positives += f->MayContain(gen.Next());
    const double measured = static_cast<double>(positives) / kQueries;
    const double model = p->ModelFpRate(kKeys);
    EXPECT_NEAR(measured, model, 4 * std::sqrt(model * (1 - model) / kQueries)) << spec;
  }
  // The model at the point: (1 - (1 - 1/m)^(kn))^k with m = 10 n, k = 7.
  EXPECT_NEAR(MustPolicy("standard:bpk=10")->ModelFpRate(kKeys), 0.00819, 0.00001);
  // The 32-bit form adds the matches of equal hashes, F = 1 - e^{-n/2^32} =
  // 2.33e-4, and takes the Bloom part at the D = n (1 - 1.16e-4) distinct
  // hashes (-4.6e-6): 2.26e-4 in all.
  EXPECT_NEAR(
      MustPolicy("standard:bpk=10,hash=32")->ModelFpRate(kKeys) - MustPolicy("standard:bpk=10")->ModelFpRate(kKeys),
      2.26e-4, 0.01e-4);
}

TEST(StandardBloomTest, RoundTripThroughSerializedBytes) {
  for (const char* spec : {"standard:bpk=10", "standard:bpk=9.7,hash=32", "standard:bpk=1,probes=30"}) {
    testing_util::ExpectRoundTrip(spec, 3001);  // m (30010, 29110, 3001) leaves a partial last word
  }
}

// Opened from 8-byte aligned bytes it reads them in place (one word per
// probe, so nothing more aligned is needed); from less aligned ones it copies.
TEST(StandardBloomTest, OpensInPlaceWhenWordAlignedAndCopiesOtherwise) {
  for (const char* spec : {"standard:bpk=10", "standard:bpk=10,hash=32", "standard:bpk=10.3,probes=3"}) {
    testing_util::ExpectOpensInPlaceWhenAligned(spec, 20000, alignof(uint64_t));
    testing_util::ExpectOpensInPlaceWhenAligned(spec, 7, alignof(uint64_t));  // one word, bits past m unset
  }
}

TEST(StandardBloomTest, ReaderRejectsInconsistentBytes) {
  std::unique_ptr<StandardBloom> f;
  ASSERT_TRUE(StandardBloom::Create(100, 3, HashWidth::k64, &f).ok());
  f->Insert(5);
  const std::string bytes = f->Serialize();
  Slice data;
  std::string layout;
  ASSERT_TRUE(ParseFilterlabTrailer(bytes, &data, &layout).ok());
  EXPECT_EQ(layout, "standard:hash=64,probes=3,bits=100");
  auto serialized = [](const std::string& l, const std::string& d) {
    std::string b;
    AppendWithFilterlabTrailer(d, l, &b);
    return b;
  };
  testing_util::ExpectCorruption(serialized("standard:hash=64,probes=3,bits=200", data.ToString()), {"needs 32"});
  testing_util::ExpectCorruption(serialized("standard:hash=64,probes=31,bits=100", data.ToString()),
                                 {"probes=31", "[1, 30]"});
  testing_util::ExpectCorruption(serialized("standard:hash=64,bits=100", data.ToString()), {"lacks 'probes'"});
  std::string damaged = data.ToString();
  damaged[15] = static_cast<char>(0x80);  // bit 127 of a 100-bit filter
  testing_util::ExpectCorruption(serialized(layout, damaged), {"beyond its 100 bits"});
}

TEST(StandardBloomTest, BadSpecsNameWhatIsAllowed) {
  testing_util::ExpectInvalidSpec("standard:bpk=10,probes=0", {"probes=0", "[1, 30]"});
  testing_util::ExpectInvalidSpec("standard:bpk=10,probes=31", {"probes=31", "[1, 30]"});
  testing_util::ExpectInvalidSpec("standard:bpk=101", {"bpk=101", "[0.5, 100]"});
  testing_util::ExpectInvalidSpec("standard:bpk=nan", {"bpk=nan", "[0.5, 100]"});
  testing_util::ExpectInvalidSpec("standard:bpk=10,hash=48", {"hash=48", "64 or 32"});
  testing_util::ExpectInvalidSpec("standard:bpk=10,probe=3", {"unknown parameter 'probe'", "bpk, probes, hash"});
  std::unique_ptr<StandardBloom> f;
  Status s = StandardBloom::Create(0, 3, HashWidth::k64, &f);
  EXPECT_TRUE(s.IsInvalidArgument());
  EXPECT_NE(s.message().find("num_bits=0"), std::string::npos) << s.message();
  s = StandardBloom::Create(100, 40, HashWidth::k64, &f);
  EXPECT_NE(s.message().find("num_probes=40"), std::string::npos) << s.message();
  EXPECT_EQ(f, nullptr);
  // Static: no dynamic construction.
  auto policy = MustPolicy("standard:bpk=10");
  std::unique_ptr<Filter> g;
  EXPECT_TRUE(policy->NewDynamic(10, &g).IsNotSupported());
}

}  // namespace
}  // namespace filterlab
