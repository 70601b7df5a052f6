#include "engine/util/random.h"

#include <gtest/gtest.h>

#include <cmath>

namespace filterlab::engine {
namespace {

TEST(Random, MinimalStandardKnownValue) {
  // Park & Miller (1988): starting from seed 1, the 10000th value is 1043618065.
  Random rnd(1);
  uint32_t x = 0;
  for (int i = 0; i < 10000; ++i) x = rnd.Next();
  EXPECT_EQ(x, 1043618065u);
}

TEST(Random, DeterministicAndSeedDependent) {
  Random a(42), b(42), c(43);
  bool differs = false;
  for (int i = 0; i < 100; ++i) {
    const uint32_t va = a.Next();
    EXPECT_EQ(va, b.Next());
    differs |= va != c.Next();
  }
  EXPECT_TRUE(differs);
}

TEST(Random, DegenerateSeedsStillProduceAStream) {
  for (uint32_t seed : {0u, Random::kModulus, 0xffffffffu}) {
    Random r(seed);
    const uint32_t first = r.Next();
    EXPECT_GE(first, 1u);
    EXPECT_LE(first, Random::kMaxNext);
    EXPECT_NE(first, r.Next());
  }
}

TEST(Random, OneInFourMatchesItsProbability) {
  // Binomial(n=400000, p=1/4): sd = sqrt(n p (1-p)) ≈ 274; allow 5 sd.
  Random rnd(7);
  const int n = 400000;
  int hits = 0;
  for (int i = 0; i < n; ++i) hits += rnd.Next() < Random::kModulus / 4 ? 1 : 0;
  const double sd = std::sqrt(n * 0.25 * 0.75);
  EXPECT_NEAR(hits, n * 0.25, 5 * sd);
}

}  // namespace
}  // namespace filterlab::engine
