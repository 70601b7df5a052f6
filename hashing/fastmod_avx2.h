// Eight exact remainders a_i mod d at once (32-bit a_i, any divisor 1 <= d
// < 2^32) in AVX2 integer lanes, by multiplying with a precomputed inverse:
// Granlund & Montgomery, "Division by Invariant Integers using
// Multiplication", PLDI 1994, Figure 4.1 (unsigned, N = 32). Compiled when
// the compiler targets AVX2 and FILTERLAB_FORCE_SCALAR is not set
// (FILTERLAB_FASTMOD_AVX2 says so).
//
// Why it is exact. With l = ceil(log2 d) and m' = floor(2^32 (2^l - d) / d)
// + 1, the paper proves q = (t + ((a - t) >> s1)) >> s2 = floor(a / d) for
// every a < 2^32, where t = floor(m' a / 2^32), s1 = min(l, 1) and s2 =
// max(l - 1, 0); m' < 2^32 (since 2^l < 2d), and t <= a, so nothing wraps.
// r = a - q d then fits 32 bits. fastmod_test.cc checks it against % over
// the same divisors and numerators as FastMod32Any.
//
// What it costs: per 8 lanes two 32x32->64 multiplies (vpmuludq, even and
// odd lanes) for t, one 32-bit multiply for q d, and eight shifts, adds and
// blends; no scalar multiply and no division. It is for loops over many
// remainders by one divisor, where the scalar two-multiply FastMod32Any
// (fastmod.h) is bound by the core's one scalar multiplier: legacy_block's
// build, whose every probe is h_i mod m.
#pragma once

#include <cstdint>

#if defined(__AVX2__) && !defined(FILTERLAB_FORCE_SCALAR)
#define FILTERLAB_FASTMOD_AVX2 1
#include <immintrin.h>
#endif

namespace filterlab {

// The paper's constants for one divisor, computed once (a 64-bit division).
struct InvariantDivisor32 {
  uint32_t divisor = 1;
  uint32_t multiplier = 1;  // m'
  int shift1 = 0;           // s1
  int shift2 = 0;           // s2

  // Precondition: d >= 1.
  static InvariantDivisor32 For(uint32_t d) {
    const int l = d == 1 ? 0 : 32 - __builtin_clz(d - 1);  // ceil(log2 d)
    InvariantDivisor32 div;
    div.divisor = d;
    div.multiplier = static_cast<uint32_t>((((uint64_t{1} << l) - d) << 32) / d + 1);
    div.shift1 = l < 1 ? l : 1;
    div.shift2 = l > 1 ? l - 1 : 0;
    return div;
  }

  // The scalar form of the same steps, so tests can hold the constants to % alone.
  uint32_t Mod(uint32_t a) const {
    const uint32_t t = static_cast<uint32_t>((uint64_t{multiplier} * a) >> 32);
    const uint32_t q = (t + ((a - t) >> shift1)) >> shift2;
    return a - q * divisor;
  }
};

#ifdef FILTERLAB_FASTMOD_AVX2
// InvariantDivisor32 in registers, for Mod32x8Avx2.
struct InvariantDivisor32x8 {
  explicit InvariantDivisor32x8(const InvariantDivisor32& div)
      : divisor(_mm256_set1_epi32(static_cast<int>(div.divisor))),
        multiplier(_mm256_set1_epi32(static_cast<int>(div.multiplier))),
        shift1(_mm_cvtsi32_si128(div.shift1)),
        shift2(_mm_cvtsi32_si128(div.shift2)) {}
  __m256i divisor, multiplier;
  __m128i shift1, shift2;
};

// a_i mod d for the eight u32 lanes of `a`.
inline __m256i Mod32x8Avx2(__m256i a, const InvariantDivisor32x8& div) {
  // t = the high halves of m' a_i: vpmuludq multiplies the even lanes (the
  // low dword of each qword), so the odd lanes go through a second one.
  const __m256i even = _mm256_mul_epu32(a, div.multiplier);
  const __m256i odd = _mm256_mul_epu32(_mm256_srli_epi64(a, 32), div.multiplier);
  const __m256i t = _mm256_blend_epi32(_mm256_srli_epi64(even, 32), odd, 0xaa);
  const __m256i q =
      _mm256_srl_epi32(_mm256_add_epi32(t, _mm256_srl_epi32(_mm256_sub_epi32(a, t), div.shift1)), div.shift2);
  return _mm256_sub_epi32(a, _mm256_mullo_epi32(q, div.divisor));
}
#endif

}  // namespace filterlab
