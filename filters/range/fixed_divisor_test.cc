#include "filters/range/fixed_divisor.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "hashing/remix.h"

namespace filterlab {
namespace {

// Against the hardware divide: divisors at the edges (1, 2, powers of two
// and their neighbours, 2^64 - 1) and random ones of every magnitude, with
// dividends at the edges (0, d - 1, d, multiples, 2^64 - 1) and random.
TEST(FixedDivisor, MatchesTheHardwareDivide) {
  SplitMix64 rng(0xD1F);
  std::vector<uint64_t> divisors = {1, 2, 3, 7, UINT64_MAX, UINT64_MAX - 1, uint64_t{1} << 63};
  for (int b = 1; b < 64; ++b) {
    divisors.push_back((uint64_t{1} << b) - 1);
    divisors.push_back((uint64_t{1} << b) + 1);
    divisors.push_back(rng.Next() >> b | 1);
  }
  for (uint64_t d : divisors) {
    const FixedDivisor div(d);
    std::vector<uint64_t> xs = {0, d - 1, d, UINT64_MAX, UINT64_MAX - 1, UINT64_MAX / d * d, UINT64_MAX / d * d - 1};
    for (int i = 0; i < 2000; ++i) xs.push_back(rng.Next() >> (rng.Next() % 64));
    for (uint64_t x : xs) {
      uint64_t rem = 0;
      ASSERT_EQ(div.DivMod(x, &rem), x / d) << x << " / " << d;
      ASSERT_EQ(rem, x % d) << x << " % " << d;
      ASSERT_EQ(div.Div(x), x / d);
      ASSERT_EQ(div.Mod(x), x % d);
    }
  }
}

}  // namespace
}  // namespace filterlab
