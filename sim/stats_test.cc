#include "sim/stats.h"

#include <gtest/gtest.h>

#include "hashing/remix.h"

namespace filterlab::sim {
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

// Coverage on a synthetic Bernoulli source (fixed seed): the fraction of
// intervals containing the true p. Wilson's actual coverage oscillates around
// the nominal 95% by up to about 2 points for n*p >= 5 (Brown, Cai & DasGupta),
// and 4000 repetitions add a sampling sd of sqrt(.95*.05/4000) = 0.0034, so
// 4 sd: we accept [0.95 - 0.02 - 0.014, 0.95 + 0.02 + 0.014].
double Coverage(double p, uint64_t n, int reps, uint64_t seed) {
  SplitMix64 rng(seed);
  const uint64_t threshold = static_cast<uint64_t>(p * 18446744073709551616.0);
  int covered = 0;
  for (int r = 0; r < reps; ++r) {
    uint64_t hits = 0;
    for (uint64_t i = 0; i < n; ++i) hits += rng.Next() < threshold;
    const Interval ci = WilsonInterval(hits, n);
    covered += ci.low <= p && p <= ci.high;
  }
  return static_cast<double>(covered) / reps;
}

TEST(WilsonInterval, CoverageOnBernoulliSource) {
  for (auto [p, n] : {std::pair<double, uint64_t>{0.01, 2000}, {0.3, 100}, {0.001, 20000}}) {
    const double cov = Coverage(p, n, 4000, 12345);
    EXPECT_GE(cov, 0.916) << "p=" << p << " n=" << n;
    EXPECT_LE(cov, 0.984) << "p=" << p << " n=" << n;
  }
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

}  // namespace
}  // namespace filterlab::sim
