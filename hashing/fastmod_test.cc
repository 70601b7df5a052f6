// FastMod32, FastMod32Any, InvariantDivisor32 (scalar and Mod32x8Avx2) and Mod32x8Avx512 against the % operator: every
// divisor FastMod32 accepts, with the numerators where a remainder is most easily wrong (0, the largest, the multiples
// of d and their neighbours) and random ones.
#include "hashing/fastmod.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "common/test_scale.h"
#include "hashing/fastmod_avx2.h"
#include "hashing/fastmod_avx512.h"
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

// The numerators where a remainder by d is most easily wrong (0, the
// largest, the largest multiple of d and the one below it, a random multiple
// and its neighbours), then `randoms` random ones.
std::vector<uint32_t> HardNumerators(uint32_t d, int randoms, SplitMix64* rng) {
  std::vector<uint32_t> a = {0, 0xffffffffu, 0xffffffffu - 0xffffffffu % d, 0xffffffffu - 0xffffffffu % d - 1};
  const uint32_t m = d * (1 + static_cast<uint32_t>(rng->Next() % (0xffffffffu / d)));
  a.insert(a.end(), {m, m - 1, m + 1});
  for (int i = 0; i < randoms; ++i) a.push_back(static_cast<uint32_t>(rng->Next()));
  return a;
}

// Calls check(d, randoms) for every divisor up to 2^17, random divisors up
// to 2^32 - 1, and every power of two with its neighbours.
template <class Check>
void ForEveryKindOfDivisor(SplitMix64* rng, Check&& check) {
  const int randoms = static_cast<int>(SanitizerScaled(10, 5));
  for (uint32_t d = 1; d <= (1u << 17); ++d) check(d, randoms);
  for (int i = 0; i < static_cast<int>(SanitizerScaled(200000)); ++i) {
    check(1 + static_cast<uint32_t>(rng->Next() % 0xffffffffu), 4);
  }
  for (int b = 1; b < 32; ++b) {
    for (uint32_t d : {(1u << b) - 1, 1u << b, (1u << b) + 1}) check(d, 1000);
  }
  check(0xffffffffu, 1000);
}

TEST(FastMod32Any, EqualsTheRemainderForAnyDivisor) {
  SplitMix64 rng(34);
  uint64_t wrong = 0, checked = 0;
  ForEveryKindOfDivisor(&rng, [&](uint32_t d, int randoms) {
    const uint64_t c = FastMod32Any::Multiplier(d);
    for (uint32_t a : HardNumerators(d, randoms, &rng)) wrong += FastMod32Any::Mod(a, d, c) != a % d, ++checked;
  });
  EXPECT_EQ(wrong, 0u);
  EXPECT_GT(checked, uint64_t{1} << 20);
}

TEST(InvariantDivisor32, EqualsTheRemainderForAnyDivisor) {
  SplitMix64 rng(36);
  uint64_t wrong = 0, checked = 0;
  ForEveryKindOfDivisor(&rng, [&](uint32_t d, int randoms) {
    const InvariantDivisor32 div = InvariantDivisor32::For(d);
    for (uint32_t a : HardNumerators(d, randoms, &rng)) wrong += div.Mod(a) != a % d, ++checked;
  });
  EXPECT_EQ(wrong, 0u);
  EXPECT_GT(checked, uint64_t{1} << 20);
}

#if defined(FILTERLAB_FASTMOD_AVX2) || defined(FILTERLAB_FASTMOD_AVX512)
// Holds an eight-lane remainder kernel to % over every kind of divisor and
// its hard numerators: kernel_for(d) gives the kernel for d, a function from
// eight u32 numerators to their remainders.
template <class KernelFor>
void ExpectEightLanesEqualTheRemainder(uint64_t seed, KernelFor&& kernel_for) {
  SplitMix64 rng(seed);
  uint64_t wrong = 0, checked = 0;
  ForEveryKindOfDivisor(&rng, [&](uint32_t d, int randoms) {
    std::vector<uint32_t> a = HardNumerators(d, randoms, &rng);
    a.resize((a.size() + 7) / 8 * 8, 0);
    const auto kernel = kernel_for(d);
    for (size_t i = 0; i < a.size(); i += 8) {
      alignas(32) uint32_t r[8];
      _mm256_store_si256(reinterpret_cast<__m256i*>(r),
                         kernel(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(&a[i]))));
      for (int j = 0; j < 8; ++j) wrong += r[j] != a[i + j] % d, ++checked;
    }
  });
  EXPECT_EQ(wrong, 0u);
  EXPECT_GT(checked, uint64_t{1} << 20);
}
#endif

#ifdef FILTERLAB_FASTMOD_AVX2
TEST(Mod32x8Avx2, EqualsTheRemainderForAnyDivisor) {
  ExpectEightLanesEqualTheRemainder(37, [](uint32_t d) {
    return [div = InvariantDivisor32x8(InvariantDivisor32::For(d))](__m256i a) { return Mod32x8Avx2(a, div); };
  });
}
#endif

#ifdef FILTERLAB_FASTMOD_AVX512
FILTERLAB_AVX512_WARNINGS_OFF
TEST(Mod32x8Avx512, EqualsTheRemainderForAnyDivisor) {
  ExpectEightLanesEqualTheRemainder(35, [](uint32_t d) {
    return [d_pd = _mm512_set1_pd(d), inv_d = _mm512_set1_pd(1.0 / d)](__m256i a) {
      return Mod32x8Avx512(a, d_pd, inv_d);
    };
  });
}
FILTERLAB_AVX512_WARNINGS_ON
#endif

}  // namespace
}  // namespace filterlab
