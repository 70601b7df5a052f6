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

}  // namespace
}  // namespace filterlab
