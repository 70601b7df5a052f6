// FastMod32 against the % operator: every divisor it accepts, with the
// numerators where a remainder is most easily wrong (0, the largest, the
// multiples of d and their neighbours) and random ones.
#include "hashing/fastmod.h"

#include <gtest/gtest.h>

#include <cstdint>

#include "common/test_scale.h"
#include "hashing/remix.h"

namespace filterlab {
namespace {

TEST(FastMod32, EqualsTheRemainderForEveryDivisor) {
  SplitMix64 rng(33);
  const int random_per_divisor = static_cast<int>(SanitizerScaled(64, 16));
  uint64_t wrong = 0;
  for (uint32_t d = 1; d <= FastMod32::kMaxDivisor; ++d) {
    const uint64_t c = FastMod32::Multiplier(d);
    ASSERT_LT(c, uint64_t{1} << FastMod32::kMultiplierBits) << d;
    auto check = [&](uint32_t a) { wrong += FastMod32::Mod(a, d, c) != a % d; };
    check(0);
    check(0xffffffffu);
    check(0xffffffffu - 0xffffffffu % d);      // the largest multiple of d
    check(0xffffffffu - 0xffffffffu % d - 1);  // just below it
    const uint32_t m = d * (1 + static_cast<uint32_t>(rng.Next() % (0xffffffffu / d)));
    check(m);
    check(m - 1);
    check(m + 1);
    for (int i = 0; i < random_per_divisor; ++i) check(static_cast<uint32_t>(rng.Next()));
  }
  EXPECT_EQ(wrong, 0u);
}

// FastMod32Any: every divisor up to 2^17, random divisors up to 2^32 - 1,
// and every power of two with its neighbours, with the numerators above.
TEST(FastMod32Any, EqualsTheRemainderForAnyDivisor) {
  SplitMix64 rng(34);
  uint64_t wrong = 0;
  auto check_divisor = [&](uint32_t d, int randoms) {
    const uint64_t c = FastMod32Any::Multiplier(d);
    auto check = [&](uint32_t a) { wrong += FastMod32Any::Mod(a, d, c) != a % d; };
    check(0);
    check(0xffffffffu);
    check(0xffffffffu - 0xffffffffu % d);
    check(0xffffffffu - 0xffffffffu % d - 1);
    const uint32_t m = d * (1 + static_cast<uint32_t>(rng.Next() % (0xffffffffu / d)));
    check(m);
    check(m - 1);
    check(m + 1);
    for (int i = 0; i < randoms; ++i) check(static_cast<uint32_t>(rng.Next()));
  };
  const int randoms = static_cast<int>(SanitizerScaled(10, 5));
  for (uint32_t d = 1; d <= (1u << 17); ++d) check_divisor(d, randoms);
  for (int i = 0; i < static_cast<int>(SanitizerScaled(200000)); ++i) {
    check_divisor(1 + static_cast<uint32_t>(rng.Next() % 0xffffffffu), 4);
  }
  for (int b = 1; b < 32; ++b) {
    for (uint32_t d : {(1u << b) - 1, 1u << b, (1u << b) + 1}) check_divisor(d, 1000);
  }
  check_divisor(0xffffffffu, 1000);
  EXPECT_EQ(wrong, 0u);
}

}  // namespace
}  // namespace filterlab
