// SBBF: what is specific to Parquet's split-block Bloom filter (the generic
// checks of every registered example are in filter_property_test.cc; the
// bit-exactness with Parquet is checked by the reference vectors,
// vectors-modern/parquet_sbbf.json): sizing, the AVX2 kernel against its
// scalar twin, the model against a closed form and the published figures,
// the measured FP rate against the model, and the reader's checks.
#include "filters/split_block_bloom.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "common/aligned_array.h"
#include "common/test_scale.h"
#include "filters/filter.h"
#include "filters/filter_test_util.h"
#include "filters/fp_model.h"
#include "filters/registry.h"
#include "filters/trailer.h"
#include "hashing/remix.h"
#include "hashing/xxh3.h"

namespace filterlab {
namespace {

using testing_util::ExpectCorruption;
using testing_util::ExpectInvalidSpec;
using testing_util::MustBuild;
using testing_util::MustPolicy;
using testing_util::TestHashes;

// num_blocks = max(1, ceil(n * bpk / 256)).
TEST(SplitBlockBloomTest, SizeIsCeilKeysTimesBitsPerKeyOver256) {
  auto p = MustPolicy("sbbf:bpk=10.3");
  EXPECT_EQ(p->spec(), "sbbf:bpk=10.3,hash=64");
  auto f = MustBuild(*p, TestHashes(1, 1000));
  EXPECT_EQ(f->Describe(), "sbbf:hash=64,blocks=41");  // ceil(10300 / 256)
  EXPECT_EQ(f->DataBytes(), 41u * 32);
  auto empty = MustBuild(*p, {});
  EXPECT_EQ(empty->Describe(), "sbbf:hash=64,blocks=1");
  EXPECT_FALSE(empty->MayContain(12345));
}

TEST(SplitBlockBloomTest, HasNoProbesAndOnlyParquetsHash) {
  auto p = MustPolicy("sbbf:bpk=10");
  EXPECT_FALSE(p->num_probes().has_value());
  EXPECT_FALSE(FindFilterVariant("sbbf")->has_probes);
  EXPECT_EQ(p->hash_width(), HashWidth::k64);
  ExpectInvalidSpec("sbbf:bpk=10,hash=32", {"hash", "64"});
  ExpectInvalidSpec("sbbf:bpk=10,probes=8", {"probes"});
  const std::string key = "parquet";
  EXPECT_EQ(p->HashKey(key), XXH64(key.data(), key.size(), 0));
}

// One key in an empty block sets exactly bit (uint32(h) * SALT[i]) >> 27 of
// word i (the format's definition, written out here), and is then found.
TEST(SplitBlockBloomTest, OneKeySetsOneBitPerWordAsTheFormatSays) {
  const uint32_t salts[8] = {0x47b6137b, 0x44974d91, 0x8824ad5b, 0xa2b7289d,
                             0x705495c7, 0x2df1424b, 0x9efc4947, 0x5c6bfb31};
  for (uint64_t h : TestHashes(0x5B, 100)) {
    alignas(32) uint32_t block[8] = {};
    sbbf::BlockAdd(block, Lower32(h));
    for (int i = 0; i < 8; ++i) {
      EXPECT_EQ(block[i], 1u << ((Lower32(h) * salts[i]) >> 27)) << "word " << i;
    }
    EXPECT_TRUE(sbbf::BlockMayMatch(block, Lower32(h)));
  }
  EXPECT_EQ(sbbf::BlockIndex(uint64_t{0xffffffff} << 32, 1000), 999u);
  EXPECT_EQ(sbbf::BlockIndex(uint64_t{0x80000000} << 32, 1000), 500u);
  EXPECT_EQ(sbbf::BlockIndex(0xffffffff, 1000), 0u);  // the low half never moves the block
}

// The AVX2 kernels against the scalar twins on blocks of every density
// (0 to 1024 random bits set, up to ~98% of a word's bits) and random
// hashes, and the two add paths.
TEST(SplitBlockBloomTest, Avx2KernelsEqualScalar) {
  if (!sbbf::kHasAvx2Path) GTEST_SKIP() << "built without AVX2 (or with FILTERLAB_FORCE_SCALAR)";
#ifdef FILTERLAB_SBBF_AVX2
  SplitMix64 rng(0xA2);
  size_t positives = 0, checks = 0;
  for (int density = 0; density <= 1024; density += 8) {
    for (int trial = 0; trial < 100; ++trial) {
      alignas(32) uint32_t block[8] = {};
      for (int b = 0; b < density; ++b) {
        const uint64_t r = rng.Next();
        block[r % 8] |= 1u << ((r >> 8) % 32);
      }
      const uint32_t h = Lower32(rng.Next());
      const bool scalar = sbbf::BlockMayMatchScalar(block, h);
      ASSERT_EQ(sbbf::BlockMayMatchAvx2(block, h), scalar) << "density " << density << " hash " << h;
      positives += scalar;
      ++checks;
      alignas(32) uint32_t by_avx2[8], by_scalar[8];
      std::copy(block, block + 8, by_avx2);
      std::copy(block, block + 8, by_scalar);
      sbbf::BlockAddAvx2(by_avx2, h);
      sbbf::BlockAddScalar(by_scalar, h);
      ASSERT_TRUE(std::equal(by_avx2, by_avx2 + 8, by_scalar)) << "density " << density << " hash " << h;
    }
  }
  // Both answers occurred, so the comparison covered both outcomes.
  EXPECT_GT(positives, checks / 10);
  EXPECT_LT(positives, checks - checks / 10);
#endif
}

// The model by a second route: (1 - x^J)^8 expanded binomially and
// E[x^{iJ}] = e^{-lambda (1 - x^i)} for Poisson J give
//   FP = sum_{i=0..8} C(8, i) (-1)^i e^{-lambda (1 - (31/32)^i)},
// an alternating sum of 9 terms, accurate to ~1e-14 absolute in long double.
TEST(SplitBlockBloomTest, ModelEqualsTheGeneratingFunctionForm) {
  for (double b : {2.0, 6.0, 10.0, 16.9, 26.4}) {
    const long double lambda = 256.0L / b;
    long double sum = 0, binomial = 1;
    for (int i = 0; i <= 8; ++i) {
      sum += (i % 2 ? -1 : 1) * binomial * std::exp(-lambda * (1 - std::pow(31.0L / 32, i)));
      binomial = binomial * (8 - i) / (i + 1);
    }
    const double model = fpmodel::SplitBlockPoissonFpRate(b, 8);
    EXPECT_NEAR(model, static_cast<double>(sum), 1e-12 + 1e-9 * model) << "bits/key " << b;
  }
}

// Published figures for the split-block filter: 6.0 / 10.5 / 16.9 / 26.4
// bits/key give about 10% / 1% / 0.1% / 0.01%. The bits/key are given to
// 0.1, and 0.05 bits/key moves the rate by up to 2.6% (at 6 bits/key, where
// it falls by 10x over 4.5 bits), so the model must be within 3% of each.
TEST(SplitBlockBloomTest, ModelMeetsThePublishedFigures) {
  const struct {
    double bits_per_key;
    double published_fp;
  } figures[] = {{6.0, 0.1}, {10.5, 0.01}, {16.9, 0.001}, {26.4, 0.0001}};
  for (const auto& f : figures) {
    auto p = MustPolicy("sbbf:bpk=" + FormatNumber(f.bits_per_key));
    // 10^6 keys: the rounding to whole blocks adds < 256 bits (~3e-5 bits/key).
    const double model = p->ModelFpRate(1'000'000);
    EXPECT_NEAR(model / f.published_fp, 1.0, 0.03) << "bits/key " << f.bits_per_key << " model " << model;
  }
  EXPECT_EQ(MustPolicy("sbbf:bpk=10")->ModelFpRate(0), 0.0);
}

// Measured FP against the model. The rate one filter shows is the mean over
// queries of its blocks' rates f(J) = (1 - (31/32)^J)^8, so around the model
// it varies with the filter's own block loads (variance Var f(J) / L, L
// blocks) and with the sampling (Binomial, p (1-p) / Q). 2*10^6 keys and
// 10^7 queries keep both near 0.3% of p at 10 bits/key (a tenth of each
// under sanitizers, common/test_scale.h: ~1% of p); the bound is 4 sigma of
// their sum for the sizes used (a false alarm about once in 16000), no
// further allowance.
TEST(SplitBlockBloomTest, MeasuredFpRateMatchesTheModel) {
  for (double b : {6.0, 10.0}) {
    auto p = MustPolicy("sbbf:bpk=" + FormatNumber(b));
    const size_t n = SanitizerScaled(2'000'000), q = SanitizerScaled(10'000'000);
    auto f = MustBuild(*p, TestHashes(31 + static_cast<uint64_t>(b), n));
    size_t positives = 0;
    SplitMix64 queries(0xF00D + static_cast<uint64_t>(b));
    for (size_t i = 0; i < q; ++i) positives += f->MayContain(queries.Next());
    const double model = p->ModelFpRate(n);
    const double blocks = std::ceil(n * b / 256);
    const double lambda = n / blocks;
    double second_moment = 0;  // E[f(J)^2] over J ~ Poisson(lambda)
    for (int j = 1; j < 400; ++j) {
      const double pmf = std::exp(j * std::log(lambda) - lambda - std::lgamma(j + 1.0));
      second_moment += pmf * std::pow(1 - std::pow(31.0 / 32, j), 16);
    }
    const double sigma = std::sqrt(model * (1 - model) / q + (second_moment - model * model) / blocks);
    EXPECT_NEAR(static_cast<double>(positives) / q, model, 4 * sigma) << "bits/key " << b;
  }
}

// Batch, view and Prefetch answer as MayContain, on a filter large enough
// for several batch chunks.
TEST(SplitBlockBloomTest, BatchAndViewAgreeWithMayContain) {
  auto p = MustPolicy("sbbf:bpk=6");
  const auto added = TestHashes(0xB0, 5000);
  auto f = MustBuild(*p, added);
  std::vector<uint64_t> queries = TestHashes(0xB1, 1000);
  queries.insert(queries.end(), added.begin(), added.begin() + 1000);
  auto results = std::make_unique<bool[]>(queries.size());
  f->MayContainBatch(queries.data(), queries.size(), results.get());
  const FilterView view = f->View();
  size_t positives = 0;
  for (size_t i = 0; i < queries.size(); ++i) {
    view.Prefetch(queries[i]);
    ASSERT_EQ(results[i], f->MayContain(queries[i])) << i;
    ASSERT_EQ(view.MayContain(queries[i]), f->MayContain(queries[i])) << i;
    positives += results[i];
  }
  EXPECT_GE(positives, 1000u);  // every added hash, and some false positives
}

TEST(SplitBlockBloomTest, SerializedBitsAreTheBlocksAndReadInPlaceWhenAligned) {
  auto f = MustBuild(*MustPolicy("sbbf:bpk=10"), TestHashes(3, 1000));
  const std::string bytes = f->Serialize();
  Slice data;
  std::string layout;
  ASSERT_TRUE(ParseFilterlabTrailer(Slice(bytes.data(), bytes.size()), &data, &layout).ok());
  EXPECT_EQ(layout, f->Describe());
  EXPECT_EQ(data.size(), f->DataBytes());
  // At a 32-byte-aligned address the reader's view points at the caller's bytes.
  CacheAlignedArray<char> aligned(bytes.size() + 32);
  for (size_t offset : {size_t{0}, size_t{32}, size_t{4}}) {
    std::copy(bytes.begin(), bytes.end(), aligned.data() + offset);
    std::unique_ptr<Filter> opened;
    ASSERT_TRUE(OpenFilter(Slice(aligned.data() + offset, bytes.size()), &opened).ok());
    const bool in_place = opened->View().data == aligned.data() + offset;
    EXPECT_EQ(in_place, offset % 32 == 0) << "offset " << offset;
    for (uint64_t h : TestHashes(3, 1000)) ASSERT_TRUE(opened->MayContain(h));
  }
}

TEST(SplitBlockBloomTest, ReaderRejectsDamagedLayouts) {
  auto f = MustBuild(*MustPolicy("sbbf:bpk=10"), TestHashes(3, 1000));
  const std::string bytes = f->Serialize();
  Slice data;
  std::string layout;
  ASSERT_TRUE(ParseFilterlabTrailer(Slice(bytes.data(), bytes.size()), &data, &layout).ok());
  auto rewrap = [&](const std::string& l) {
    std::string out;
    AppendWithFilterlabTrailer(data, l, &out);
    return out;
  };
  ASSERT_EQ(layout, "sbbf:hash=64,blocks=40");  // ceil(1000 * 10 / 256)
  ExpectCorruption(rewrap("sbbf:hash=64,blocks=39"), {"sbbf", "1280", "1248"});
  ExpectCorruption(rewrap("sbbf:hash=64"), {"sbbf", "blocks"});
  ExpectCorruption(rewrap("sbbf:blocks=40"), {"sbbf", "hash"});
  ExpectCorruption(rewrap("sbbf:hash=32,blocks=40"), {"sbbf", "hash"});
  ExpectCorruption(rewrap("sbbf:hash=64,blocks=0"), {"sbbf", "blocks"});
  ExpectCorruption(rewrap("sbbf:hash=64,blocks=40,probes=8"), {"sbbf", "probes"});
}

}  // namespace
}  // namespace filterlab
