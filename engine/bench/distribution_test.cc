#include "engine/bench/distribution.h"

#include <gtest/gtest.h>

#include <cmath>

namespace filterlab::lsmbench {
namespace {

TEST(DistributionTest, EmptyIsAllZero) {
  Distribution d;
  EXPECT_EQ(d.count(), 0u);
  EXPECT_EQ(d.mean(), 0);
  EXPECT_EQ(d.stddev(), 0);
  EXPECT_EQ(d.Percentile(50), 0);
  EXPECT_NE(d.ToString().find("Count: 0"), std::string::npos);
}

TEST(DistributionTest, SummaryOfKnownSamples) {
  Distribution d;
  for (double v : {4.0, 1.0, 3.0, 2.0, 5.0}) d.Add(v);  // unsorted on purpose
  EXPECT_EQ(d.count(), 5u);
  EXPECT_DOUBLE_EQ(d.mean(), 3.0);
  EXPECT_DOUBLE_EQ(d.stddev(), std::sqrt(2.0));  // population: (4+1+0+1+4)/5
  EXPECT_EQ(d.min(), 1.0);
  EXPECT_EQ(d.max(), 5.0);
  EXPECT_DOUBLE_EQ(d.Percentile(50), 3.0);
  EXPECT_DOUBLE_EQ(d.Percentile(25), 2.0);
  // Rank 0.99 * 4 = 3.96: 4 + 0.96 * (5 - 4).
  EXPECT_DOUBLE_EQ(d.Percentile(99), 4.96);
  EXPECT_DOUBLE_EQ(d.Percentile(0), 1.0);
  EXPECT_DOUBLE_EQ(d.Percentile(100), 5.0);
}

TEST(DistributionTest, AddingAfterAQueryResorts) {
  Distribution d;
  d.Add(10);
  d.Add(20);
  EXPECT_EQ(d.max(), 20);
  d.Add(0);
  EXPECT_EQ(d.min(), 0);
  EXPECT_DOUBLE_EQ(d.Percentile(50), 10);
}

TEST(DistributionTest, FractionEqualCountsExactMatches) {
  Distribution d;
  for (double v : {0.0, 0.0, 7.0, 0.0}) d.Add(v);
  EXPECT_DOUBLE_EQ(d.FractionEqual(0), 0.75);
  EXPECT_DOUBLE_EQ(d.FractionEqual(7), 0.25);
  EXPECT_DOUBLE_EQ(d.FractionEqual(3), 0.0);
}

TEST(DistributionTest, StddevKeepsPrecisionFarFromZero) {
  // Samples 1e9 ± 1: E[x²] − E[x]² would subtract two numbers near 1e18,
  // where doubles are 128 apart, and return noise; the two-pass form is exact.
  Distribution d;
  for (int i = 0; i < 1000; ++i) d.Add(1e9 + (i % 2 == 0 ? 1.0 : -1.0));
  EXPECT_NEAR(d.stddev(), 1.0, 1e-9);
}

TEST(DistributionTest, BucketsFollowTheOneTwoFivePattern) {
  double lo = 0, hi = 0;
  BucketBounds(0, &lo, &hi);
  EXPECT_EQ(lo, 0);
  EXPECT_EQ(hi, 1);
  BucketBounds(9.5, &lo, &hi);
  EXPECT_EQ(lo, 9);
  EXPECT_EQ(hi, 10);
  BucketBounds(10, &lo, &hi);
  EXPECT_EQ(lo, 10);
  EXPECT_EQ(hi, 12);
  BucketBounds(99.9, &lo, &hi);
  EXPECT_EQ(lo, 90);
  EXPECT_EQ(hi, 100);
  BucketBounds(1074, &lo, &hi);
  EXPECT_EQ(lo, 1000);
  EXPECT_EQ(hi, 1200);
  BucketBounds(31099, &lo, &hi);
  EXPECT_EQ(lo, 30000);
  EXPECT_EQ(hi, 35000);
}

TEST(DistributionTest, HistogramLinesCoverEverySample) {
  Distribution d;
  for (int i = 0; i < 100; ++i) d.Add(i < 50 ? 40 : 1000);
  const std::string text = d.ToString();
  EXPECT_NE(text.find("[         40,         45 )       50  50.000%  50.000%"), std::string::npos) << text;
  EXPECT_NE(text.find("[       1000,       1200 )       50  50.000% 100.000%"), std::string::npos) << text;
}

}  // namespace
}  // namespace filterlab::lsmbench
