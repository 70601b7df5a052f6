#include "filters/range/elias_fano.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "common/test_scale.h"
#include "filters/range/range_test_util.h"
#include "hashing/remix.h"

namespace filterlab::ef {
namespace {

bool Exact(const std::vector<uint64_t>& v, uint64_t a, uint64_t b) {
  auto it = std::lower_bound(v.begin(), v.end(), a);
  return it != v.end() && *it <= b;
}

void CheckAgainstExact(const std::vector<uint64_t>& values, uint64_t max, uint64_t seed, int queries,
                       int format = kFormatVersion) {
  std::vector<uint64_t> words;
  const Shape shape = Build(values.data(), values.size(), max, &words, format);
  EXPECT_EQ(shape.format, format);
  EXPECT_EQ(words.size(), shape.TotalWords());
  View view(shape, reinterpret_cast<const uint8_t*>(words.data()));
  ASSERT_TRUE(view.Validate().ok()) << view.Validate().ToString();
  SplitMix64 rng(seed);
  for (int i = 0; i < queries; ++i) {
    uint64_t a, b;
    const uint64_t kind = rng.Next() % 4;
    if (kind == 0 || values.empty()) {  // anywhere in [0, max]
      a = max == UINT64_MAX ? rng.Next() : rng.Next() % (max + 1);
    } else {  // near a value
      const uint64_t v = values[rng.Next() % values.size()];
      const uint64_t d = rng.Next() % 64;
      a = kind == 1 ? (v >= d ? v - d : 0) : (v <= UINT64_MAX - d ? v + d : v);
    }
    const uint64_t len = rng.Next() >> (rng.Next() % 64);
    b = a <= UINT64_MAX - len ? a + len : UINT64_MAX;
    ASSERT_EQ(view.AnyInRange(a, b), Exact(values, a, b)) << "[" << a << ", " << b << "] n " << values.size();
  }
  for (uint64_t v : values) ASSERT_TRUE(view.AnyInRange(v, v)) << v;
  std::vector<uint64_t> decoded;
  view.AppendElements(&decoded);
  EXPECT_EQ(decoded, values);
}

// Every set checked in the format built now and in format 2, which readers
// still open.
void CheckBothFormats(const std::vector<uint64_t>& values, uint64_t max, uint64_t seed, int queries) {
  for (int format = kOldestReadableFormat; format <= kFormatVersion; ++format) {
    SCOPED_TRACE("format " + std::to_string(format));
    CheckAgainstExact(values, max, seed, queries, format);
  }
}

TEST(EliasFano, AnswersExactlyOnUniformAndClusteredSets) {
  const int kQueries = static_cast<int>(SanitizerScaled(200000, 10));
  for (size_t n : {size_t{0}, size_t{1}, size_t{2}, size_t{3}, size_t{100}, size_t{5000}}) {
    auto keys = range_testing::UniformSortedKeys(n + 1, n);
    CheckBothFormats(keys, UINT64_MAX, 11 + n, kQueries);
    // A small universe: dense buckets, and low_bits 0 when n > max.
    std::vector<uint64_t> small;
    for (uint64_t k : keys) small.push_back(k % 4096);
    std::sort(small.begin(), small.end());
    small.erase(std::unique(small.begin(), small.end()), small.end());
    CheckBothFormats(small, 4095, 12 + n, kQueries);
  }
  CheckBothFormats(range_testing::ClusteredSortedKeys(5, 20000), UINT64_MAX, 13, kQueries);
  // Every value of a small universe present (all buckets full), and sets at its ends.
  std::vector<uint64_t> all(3000);
  for (uint64_t i = 0; i < all.size(); ++i) all[i] = i;
  CheckBothFormats(all, 2999, 14, kQueries);
  CheckBothFormats({0, UINT64_MAX}, UINT64_MAX, 15, kQueries);
  CheckBothFormats({UINT64_MAX}, UINT64_MAX, 16, kQueries);
}

// Values packed into a few huge buckets (runs of thousands of ones in the
// high vector) between long runs of zeros: what dense keys give Grafite.
// Every select, rank and successor path of the directory (bucket ends and
// successors found past the next word) against the sorted values.
TEST(EliasFano, DenseBucketsAnswerExactly) {
  const int kQueries = static_cast<int>(SanitizerScaled(200000, 10));
  const uint64_t n = SanitizerScaled(100000, 10);
  // n values 4 apart at an offset, in a universe of n 2^14 (l = 14: buckets
  // of 2^14 values hold 4096 each), plus a few spread ones.
  std::vector<uint64_t> values;
  const uint64_t max = (n << 14) - 1;
  for (uint64_t i = 0; i < n; ++i) values.push_back(max / 3 + 4 * i);
  for (uint64_t v : {uint64_t{0}, uint64_t{5}, max / 7, max - 1000, max}) values.push_back(v);
  std::sort(values.begin(), values.end());
  values.erase(std::unique(values.begin(), values.end()), values.end());
  CheckBothFormats(values, max, 17, kQueries);
  // All in bucket 0: l = 14 and every value below 3 * 4000 < 2^14.
  std::vector<uint64_t> one_bucket;
  for (uint64_t i = 0; i < 4000; ++i) one_bucket.push_back(3 * i);
  CheckBothFormats(one_bucket, (uint64_t{4000} << 14) - 1, 18, kQueries);
}

// More than 2^16 blocks of 512 bits: block counts relative to a second
// superblock (12 * 10^6 values, Release builds only: the sanitizers' run
// would take minutes for the same paths the small sets cover).
TEST(EliasFano, SetsPastOneSuperblockAnswerExactly) {
  if (kSanitizedBuild) GTEST_SKIP() << "12M elements; covered in Release";
  const uint64_t n = 12000000;
  std::vector<uint64_t> values(n);
  SplitMix64 rng(19);
  uint64_t v = 0;
  // Steps of 1 or 2 (mean 1.875): max < 2n, so l = 0 and the high vector
  // holds ~2.875n > 2^25 bits.
  for (auto& x : values) x = (v += 1 + (rng.Next() % 8 != 0));
  const Shape s = [&] {
    std::vector<uint64_t> words;
    return Build(values.data(), values.size(), values.back(), &words);
  }();
  ASSERT_GT(s.Blocks(), kBlocksPerSuperblock);
  CheckAgainstExact(values, values.back(), 20, 200000);
}

TEST(EliasFano, SpaceIsWithinTwoBitsAndAQuarterOfTheLogRatio) {
  // 2 + log2((max+1)/n) at most, plus at most 0.25 bits of rank/select
  // directory when (max+1)/n is a power of two (elias_fano.h: block counts
  // 0.125 and inventory 0.125 per element there).
  for (uint64_t ratio_log : {4, 10, 17, 30}) {
    const size_t n = 100000;
    const uint64_t max = (uint64_t{n} << ratio_log) - 1;
    std::vector<uint64_t> v = range_testing::UniformSortedKeys(ratio_log, n);
    for (auto& x : v) x %= max + 1;
    std::sort(v.begin(), v.end());
    v.erase(std::unique(v.begin(), v.end()), v.end());
    std::vector<uint64_t> words;
    const Shape s = Build(v.data(), v.size(), max, &words);
    const double bits_per_element = 64.0 * static_cast<double>(words.size()) / static_cast<double>(v.size());
    const double log_ratio = std::log2(static_cast<double>(max) + 1) - std::log2(static_cast<double>(v.size()));
    EXPECT_LE(bits_per_element, log_ratio + 2.0 + 0.25 + 0.01) << ratio_log;
    EXPECT_GE(bits_per_element, log_ratio + 1.9) << ratio_log;
    EXPECT_EQ(s.n, v.size());
  }
}

TEST(EliasFano, ValidateRefusesInconsistentWords) {
  const auto v = range_testing::UniformSortedKeys(7, 3000);
  std::vector<uint64_t> words;
  const Shape s = Build(v.data(), v.size(), UINT64_MAX, &words);
  for (uint64_t w = s.LowWords(); w < words.size(); ++w) {  // high vector and directory
    std::vector<uint64_t> damaged = words;
    damaged[w] ^= uint64_t{1} << (w % 64);
    View view(s, reinterpret_cast<const uint8_t*>(damaged.data()));
    EXPECT_FALSE(view.Validate().ok()) << "word " << w;
  }
}

}  // namespace
}  // namespace filterlab::ef
