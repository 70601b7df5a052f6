#include "common/stats.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <utility>

namespace filterlab {
namespace {

// Published Wilson 95% intervals (Brown, Cai & DasGupta 2001, and Wilson's
// own 81/263 example as tabulated in Newcombe 1998: 0.2553-0.3662).
TEST(WilsonInterval, KnownValues) {
  Interval a = WilsonInterval(0, 10);
  EXPECT_EQ(a.low, 0.0);
  EXPECT_NEAR(a.high, 0.2775, 5e-5);
  Interval b = WilsonInterval(5, 10);
  EXPECT_NEAR(b.low, 0.2366, 5e-5);
  EXPECT_NEAR(b.high, 0.7634, 5e-5);
  Interval c = WilsonInterval(81, 263);
  EXPECT_NEAR(c.low, 0.2553, 5e-5);
  EXPECT_NEAR(c.high, 0.3662, 5e-5);
  Interval d = WilsonInterval(10, 10);
  EXPECT_EQ(d.high, 1.0);
  EXPECT_NEAR(d.low, 1.0 - 0.2775, 5e-5);
}

TEST(WilsonInterval, NoTrialsIsTheWholeRange) {
  Interval a = WilsonInterval(0, 0);
  EXPECT_EQ(a.low, 0.0);
  EXPECT_EQ(a.high, 1.0);
}

// The exact coverage of the Wilson interval at (p, n): the binomial
// probability of the counts whose interval contains p (summed in log space).
double ExactWilsonCoverage(double p, uint64_t n) {
  double covered = 0;
  const double nn = static_cast<double>(n);
  for (uint64_t k = 0; k <= n; ++k) {
    const Interval ci = WilsonInterval(k, n);
    if (ci.low > p || p > ci.high) continue;
    const double kk = static_cast<double>(k);
    covered += std::exp(std::lgamma(nn + 1) - std::lgamma(kk + 1) - std::lgamma(nn - kk + 1) + kk * std::log(p) +
                        (nn - kk) * std::log1p(-p));
  }
  return covered;
}

// Fraction of `reps` intervals, each from n synthetic Bernoulli(p) trials
// (fixed seed), that contain p.
double SampledCoverage(double p, uint64_t n, int reps, uint64_t seed) {
  std::mt19937_64 rng(seed);
  const uint64_t threshold = static_cast<uint64_t>(p * 18446744073709551616.0);
  int covered = 0;
  for (int r = 0; r < reps; ++r) {
    uint64_t hits = 0;
    for (uint64_t i = 0; i < n; ++i) hits += rng() < threshold;
    const Interval ci = WilsonInterval(hits, n);
    covered += ci.low <= p && p <= ci.high;
  }
  return static_cast<double>(covered) / reps;
}

// Coverage on a synthetic Bernoulli source, two ways:
//  1. Nominal: the exact coverage at each (p, n) is within 1.5 points of 95%.
//     Wilson's coverage oscillates around the nominal level with n p (Brown,
//     Cai & DasGupta 2001); for n p >= 20, as here, by at most ~1.5 points
//     (exact values: 0.9503 at p = 0.01, n = 10^4; 0.9372 at 0.3, 100;
//     0.9445 at 0.002, 10^4).
//  2. Sampled: 2000 intervals from a seeded Bernoulli source cover p at a
//     rate within 4 binomial sigma of that exact coverage (sigma =
//     sqrt(c (1 - c) / 2000) ~ 0.0049, so +-2 points): the interval code and
//     the sampling agree with the theory, not just with each other.
TEST(WilsonInterval, CoverageOnBernoulliSource) {
  constexpr int kReps = 2000;
  for (auto [p, n] : {std::pair<double, uint64_t>{0.01, 10000}, {0.3, 100}, {0.002, 10000}}) {
    const double exact = ExactWilsonCoverage(p, n);
    EXPECT_NEAR(exact, 0.95, 0.015) << "p=" << p << " n=" << n;
    const double sampled = SampledCoverage(p, n, kReps, 12345);
    const double sigma = std::sqrt(exact * (1 - exact) / kReps);
    EXPECT_NEAR(sampled, exact, 4 * sigma) << "p=" << p << " n=" << n << " exact coverage " << exact;
  }
}

// The exact coverage computation itself, on a case small enough to check by
// hand: n = 1, p = 0.5. Counts 0 and 1 give [0, 0.79] and [0.21, 1], both
// containing 0.5: coverage 1.
TEST(WilsonInterval, ExactCoverageOfTheSmallestCase) {
  EXPECT_NEAR(ExactWilsonCoverage(0.5, 1), 1.0, 1e-12);
  // n = 10, p = 0.05: k = 0 gives [0, 0.2775] and k = 1 [0.018, 0.404], both
  // covering p, and k >= 2 gives a lower end above 0.05 (k = 2: 0.057), so
  // the coverage is P(k <= 1) = 0.95^10 + 10 * 0.05 * 0.95^9 = 0.91386.
  EXPECT_NEAR(ExactWilsonCoverage(0.05, 10), std::pow(0.95, 10) + 10 * 0.05 * std::pow(0.95, 9), 1e-12);
}

TEST(PairedDifferenceInterval, SignFollowsDiscordance) {
  // 1000 queries only the first said yes to, 100 only the second: first is worse.
  Interval d = PairedDifferenceInterval(1000, 100, 1000000);
  EXPECT_GT(d.low, 0.0);
  EXPECT_NEAR((d.low + d.high) / 2, 900e-6, 1e-12);
  Interval e = PairedDifferenceInterval(100, 100, 1000000);
  EXPECT_LT(e.low, 0.0);
  EXPECT_GT(e.high, 0.0);
  Interval f = PairedDifferenceInterval(0, 0, 1000);
  EXPECT_LT(f.low, 0.0);
  EXPECT_GT(f.high, 0.0);
}

TEST(Median, OddEvenAndEmpty) {
  EXPECT_EQ(Median({3.0}), 3.0);
  EXPECT_EQ(Median({5.0, 1.0, 4.0}), 4.0);
  EXPECT_EQ(Median({40.0, 1.0, 2.0, 3.0}), 2.5);  // order does not matter; an outlier moves nothing
  EXPECT_EQ(Median({-1.0, 18.0, 47.0, 19.0, 20.0}), 19.0);
  EXPECT_TRUE(std::isnan(Median({})));
}

}  // namespace
}  // namespace filterlab
