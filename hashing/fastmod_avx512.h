// Eight exact remainders a_i mod d at once (32-bit a_i, any divisor 1 <= d
// < 2^32) in AVX-512 double precision, with no integer division and no
// scalar multiply. Compiled when the compiler targets AVX-512F and
// FILTERLAB_FORCE_SCALAR is not set (FILTERLAB_FASTMOD_AVX512 says so).
//
// Why it is exact. With inv = fl(1/d) and p = fl(a * inv), both rounded to
// nearest, |p - a/d| <= (a/d) 2^-52 (to first order) < 2^-20. So p never
// reaches the next integer above a/d: for a/d < k, k - a/d >= 1/d, which
// would need kd - a <= a 2^-52 < 1 for an integer kd - a >= 1. And it falls
// below floor(a/d) only where a/d is within 2^-20 above it. q = floor(p) is
// therefore floor(a/d) or one less. r = a - q d comes from one fused
// multiply-add, exactly, since q d < 2^33 and every term is an integer below
// 2^53, so r is in [0, 2d), and one masked subtract of d brings it into
// [0, d). fastmod_test.cc checks it against % for every divisor up to 2^17,
// random ones to 2^32 - 1, every power of two and its neighbours, at the
// numerators where a remainder is most easily wrong (the multiples of d and
// their neighbours); without the subtract it fails.
//
// What it is for: legacy_block's query, whose k probes are each h_i mod m
// (RocksDB's LegacyNoLocalityBloomImpl): a DIV per probe there, or the
// two-multiply FastMod32Any, which competes with the key hash for the scalar
// multiplier; these eight lanes cost one 1/d per query and a handful of
// vector instructions.
#pragma once

#if defined(__AVX512F__) && !defined(FILTERLAB_FORCE_SCALAR)
#define FILTERLAB_FASTMOD_AVX512 1
#include <immintrin.h>

#include "common/avx512_warnings.h"

namespace filterlab {

FILTERLAB_AVX512_WARNINGS_OFF  // GCC's false positives on its intrinsics (common/avx512_warnings.h)

// a_i mod d for the eight u32 lanes of `a`; d_pd = d and inv_d = 1.0 / d as
// doubles (the caller computes them once per divisor).
inline __m256i Mod32x8Avx512(__m256i a, __m512d d_pd, __m512d inv_d) {
  const __m512d a_pd = _mm512_cvtepu32_pd(a);
  const __m512d q = _mm512_roundscale_pd(_mm512_mul_pd(a_pd, inv_d), _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC);
  const __m512d r = _mm512_fnmadd_pd(q, d_pd, a_pd);  // a - q d, exact, in [0, 2d)
  return _mm512_cvttpd_epu32(_mm512_mask_sub_pd(r, _mm512_cmp_pd_mask(r, d_pd, _CMP_GE_OQ), r, d_pd));
}

FILTERLAB_AVX512_WARNINGS_ON

}  // namespace filterlab
#endif
