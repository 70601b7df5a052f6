#include "filters/range/range_workload.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <string>

namespace filterlab::workload {
namespace {

bool SortedDistinct(const std::vector<uint64_t>& v) {
  for (size_t i = 1; i < v.size(); ++i) {
    if (v[i] <= v[i - 1]) return false;
  }
  return true;
}

TEST(RangeWorkload, GeneratedKeysAreSortedDistinctAndDeterministic) {
  for (const char* dist : {"uniform", "normal", "clustered"}) {
    std::vector<uint64_t> a, b;
    ASSERT_TRUE(MakeKeys(dist, 100000, 7, &a).ok()) << dist;
    ASSERT_TRUE(MakeKeys(dist, 100000, 7, &b).ok()) << dist;
    EXPECT_EQ(a.size(), 100000u) << dist;
    EXPECT_TRUE(SortedDistinct(a)) << dist;
    EXPECT_EQ(a, b) << dist;
  }
  std::vector<uint64_t> keys;
  Status s = MakeKeys("lognormal", 10, 1, &keys);
  EXPECT_TRUE(s.IsInvalidArgument());
  EXPECT_NE(s.message().find("uniform | normal"), std::string::npos) << s.ToString();
}

// Mean and standard deviation of the normal keys: 2^63 and 2^50. With 10^5
// keys the sample mean's error is sigma / 316 and the sample sd's about
// sigma / 447: 5 standard errors are 1.6% and 1.1% of sigma.
TEST(RangeWorkload, NormalKeysHaveTheStatedMeanAndSpread) {
  std::vector<uint64_t> keys;
  ASSERT_TRUE(MakeKeys("normal", 100000, 3, &keys).ok());
  const long double mu = std::ldexp(1.0L, 63), sigma = std::ldexp(1.0L, 50);
  long double sum = 0, sq = 0;
  for (uint64_t k : keys) {
    const long double z = (static_cast<long double>(k) - mu) / sigma;
    sum += z;
    sq += z * z;
  }
  const long double mean = sum / keys.size(), sd = std::sqrt(sq / keys.size() - mean * mean);
  EXPECT_NEAR(static_cast<double>(mean), 0.0, 5.0 / 316);
  EXPECT_NEAR(static_cast<double>(sd), 1.0, 5.0 / 447);
}

// Zipf(1) over 100 clusters: the largest cluster holds 1/H_100 = 19% of the
// keys, so the keys within 2^32 of the most common centre are far more than
// a uniform share (1%).
TEST(RangeWorkload, ClusteredKeysConcentrate) {
  std::vector<uint64_t> keys;
  ASSERT_TRUE(MakeKeys("clustered", 100000, 5, &keys).ok());
  size_t best = 0;
  for (size_t i = 0; i < keys.size(); i += 97) {
    const auto lo =
        std::lower_bound(keys.begin(), keys.end(), keys[i] > (uint64_t{1} << 32) ? keys[i] - (uint64_t{1} << 32) : 0);
    const auto hi = std::upper_bound(keys.begin(), keys.end(),
                                     keys[i] + std::min<uint64_t>(keys[i] ^ UINT64_MAX, uint64_t{1} << 32));
    best = std::max<size_t>(best, hi - lo);
  }
  EXPECT_GT(best, keys.size() / 10);
}

std::string TempPath(const char* name) { return ::testing::TempDir() + name; }

TEST(RangeWorkload, SosdFilesRoundTripAndMalformedOnesAreRefused) {
  const std::string path = TempPath("keys.sosd");
  {
    std::ofstream out(path, std::ios::binary);
    const uint64_t values[] = {5, 9, 3, 9, 1ULL << 63, UINT64_MAX};
    const uint64_t count = 6;
    out.write(reinterpret_cast<const char*>(&count), 8);
    out.write(reinterpret_cast<const char*>(values), sizeof values);
  }
  std::vector<uint64_t> keys;
  ASSERT_TRUE(MakeKeys("sosd:" + path, 100, 0, &keys).ok());
  EXPECT_EQ(keys, (std::vector<uint64_t>{3, 5, 9, 1ULL << 63, UINT64_MAX}));
  ASSERT_TRUE(LoadSosdKeys(path, 2, &keys).ok());
  EXPECT_EQ(keys.size(), 2u);
  {
    std::ofstream out(path, std::ios::binary);
    const uint64_t count = 10, v = 1;
    out.write(reinterpret_cast<const char*>(&count), 8);
    out.write(reinterpret_cast<const char*>(&v), 8);
  }
  Status s = LoadSosdKeys(path, 100, &keys);
  EXPECT_TRUE(s.IsCorruption()) << s.ToString();
  EXPECT_NE(s.message().find("10 keys"), std::string::npos) << s.ToString();
  EXPECT_TRUE(LoadSosdKeys(TempPath("no-such-file"), 1, &keys).IsNotFound());
  std::remove(path.c_str());
}

TEST(RangeWorkload, TextFilesGiveSortedLinesAndNumbersForIntegerFilters) {
  const std::string path = TempPath("keys.txt");
  {
    std::ofstream out(path, std::ios::binary);
    out << "b\r\na\nb\n\xff\n";
  }
  std::vector<std::string> lines;
  ASSERT_TRUE(LoadTextKeys(path, 100, &lines).ok());
  EXPECT_EQ(lines, (std::vector<std::string>{"a", "b", "\xff"}));
  std::vector<uint64_t> keys;
  EXPECT_TRUE(MakeKeys("text:" + path, 100, 0, &keys).IsInvalidArgument());
  {
    std::ofstream out(path, std::ios::binary);
    out << "18446744073709551615\n12\n7\n12\n";
  }
  ASSERT_TRUE(MakeKeys("text:" + path, 100, 0, &keys).ok());
  EXPECT_EQ(keys, (std::vector<uint64_t>{7, 12, UINT64_MAX}));
  std::remove(path.c_str());
}

TEST(RangeWorkload, EmptyQueriesAreEmptyAndCorrelatedOnesFollowAKey) {
  std::vector<uint64_t> keys;
  ASSERT_TRUE(MakeKeys("uniform", 20000, 1, &keys).ok());
  for (double d : {-1.0, 0.0, 0.5, 0.8, 1.0}) {
    std::vector<RangeQuery> q;
    ASSERT_TRUE(EmptyRangeQueries(keys, 1024, d, 20000, 9, &q).ok()) << d;
    ASSERT_EQ(q.size(), 20000u);
    const uint64_t span = d < 0 ? 0 : CorrelationSpan(d);
    for (const auto& r : q) {
      ASSERT_EQ(r.hi - r.lo, 1023u);
      ASSERT_FALSE(HoldsKeyIn(keys, r.lo, r.hi)) << d;
      if (d >= 0) {
        // The key before lo is at most span values below it.
        auto it = std::upper_bound(keys.begin(), keys.end(), r.lo);
        ASSERT_NE(it, keys.begin());
        ASSERT_LE(r.lo - *(it - 1), span) << d;
        ASSERT_GE(r.lo - *(it - 1), 1u) << d;
      }
    }
  }
  EXPECT_EQ(CorrelationSpan(0.8), 64u);
  EXPECT_EQ(CorrelationSpan(1.0), 1u);
  EXPECT_EQ(CorrelationSpan(0.0), 1ULL << 30);
}

TEST(RangeWorkload, NonEmptyQueriesHoldAKey) {
  std::vector<uint64_t> keys;
  ASSERT_TRUE(MakeKeys("clustered", 5000, 2, &keys).ok());
  std::vector<RangeQuery> q;
  ASSERT_TRUE(NonEmptyRangeQueries(keys, 1 << 20, 10000, 3, &q).ok());
  for (const auto& r : q) ASSERT_TRUE(HoldsKeyIn(keys, r.lo, r.hi));
}

TEST(RangeWorkload, RefusesWhenEmptyRangesAreTooRare) {
  std::vector<uint64_t> keys(100000);
  for (uint64_t i = 0; i < keys.size(); ++i) keys[i] = i;
  std::vector<RangeQuery> q;
  Status s = EmptyRangeQueries(keys, 1 << 20, 1.0, 1000, 1, &q);
  EXPECT_TRUE(s.IsInvalidArgument()) << s.ToString();
  EXPECT_NE(s.message().find("too few empty ranges"), std::string::npos) << s.ToString();
  EXPECT_TRUE(EmptyRangeQueries(keys, 0, -1, 1, 1, &q).IsInvalidArgument());
  EXPECT_TRUE(EmptyRangeQueries(keys, 1, 1.5, 1, 1, &q).IsInvalidArgument());
}

}  // namespace
}  // namespace filterlab::workload
