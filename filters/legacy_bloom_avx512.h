// The AVX-512 query of RocksDB's legacy full filter (legacy_bloom.h) for
// 64-byte lines: the same answer as MayMatchLine<false> (legacy_bloom_test.cc
// checks every probe count 1..30 against it), with no data-dependent branch.
// Compiled when the compiler targets AVX-512F and FILTERLAB_FORCE_SCALAR is
// not set; RocksDB's reader has no such path (the format does not depend on
// it).
//
// Probe i tests bit x_i & 511 of the line, x_i = h + i * delta mod 2^32
// (delta = rotr32(h, 17)): bit x_i & 31 of the line's u32 word (x_i >> 5) &
// 15. A 64-byte line is one zmm register, so one vpermd with index x_i >> 5
// (vpermd reads the low 4 bits) fetches every lane's word, one vprorvd by x_i
// (the count is taken mod 32, exactly the bit index) brings its bit to bit
// 0, and one vptestnmd under the lane mask tests all probes at once.
//
// Why it matters. RocksDB's loop (MayMatchLine) makes one byte load and
// ~11 instructions per probe, all waiting on the line: ~70 instructions at
// 6 probes behind a line that, over many filters, misses the cache. The
// core's reorder window then holds fewer queries, so fewer of the next
// queries' misses overlap the current one. Measured (sim speed, random
// filter, 200 MB of 10k-key filters, thread-CPU net ns at load 15-20): the
// loop 185-200, the same loop without its early exit (every probe loaded,
// results ANDed, no data-dependent branch) 179-202, so neither the exit's
// mispredictions nor anything but the per-probe work was the cost (queries
// of added keys, which never exit early, cost the same 184-197); this
// kernel, one load and ~12 instructions, 86-87, FastLocalBloom's 99.
#pragma once

#include <cstdint>

#if defined(__AVX512F__) && !defined(FILTERLAB_FORCE_SCALAR)
#define FILTERLAB_LEGACY_AVX512 1
#include <immintrin.h>

#include "common/avx512_warnings.h"
#include "hashing/remix.h"
#endif

namespace filterlab::legacy {

#ifdef FILTERLAB_LEGACY_AVX512
inline constexpr bool kHasAvx512Path = true;

FILTERLAB_AVX512_WARNINGS_OFF  // GCC's false positives on its intrinsics (common/avx512_warnings.h)

// Precondition: 1 <= num_probes <= 30 (kMaxProbes); `line` points at 64
// readable bytes (any alignment).
inline bool MayMatchLine64Avx512(uint32_t h, int num_probes, const uint8_t* line) {
  const uint32_t delta = RotateRight32(h, 17);
  const __m512i words = _mm512_loadu_si512(line);
  const __m512i one = _mm512_set1_epi32(1);
  if (num_probes <= 8) {
    // i * delta for i = 0..7 with one vpmuludq (1 uop, where vpmulld is 2 on
    // some cores): qword i's product i * delta has its low dword, the
    // product mod 2^32, in dword lane 2i. The odd lanes (the products' high
    // halves) are permuted and rotated too but never tested.
    const __m512i step =
        _mm512_mul_epu32(_mm512_set1_epi32(static_cast<int>(delta)), _mm512_setr_epi64(0, 1, 2, 3, 4, 5, 6, 7));
    const __m512i x = _mm512_add_epi32(_mm512_set1_epi32(static_cast<int>(h)), step);
    const __m512i word = _mm512_permutexvar_epi32(_mm512_srli_epi32(x, 5), words);
    const __m512i at_bit0 = _mm512_rorv_epi32(word, x);
    const auto even_lanes = static_cast<__mmask16>(0x5555u & ((1u << (2 * num_probes)) - 1));
    return _mm512_mask_testn_epi32_mask(even_lanes, at_bit0, one) == 0;
  }
  // 9..30 probes: two rounds of up to 16, lane i of round r testing probe
  // 16 r + i. The first round's answer is kept, not branched on.
  const __m512i steps = _mm512_mullo_epi32(_mm512_set1_epi32(static_cast<int>(delta)),
                                           _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15));
  const __m512i x0 = _mm512_add_epi32(_mm512_set1_epi32(static_cast<int>(h)), steps);
  const __m512i at0 = _mm512_rorv_epi32(_mm512_permutexvar_epi32(_mm512_srli_epi32(x0, 5), words), x0);
  const __mmask16 first_lanes = num_probes >= 16 ? 0xffff : static_cast<__mmask16>((1u << num_probes) - 1);
  const __m512i x1 = _mm512_add_epi32(x0, _mm512_set1_epi32(static_cast<int>(16 * delta)));
  const __m512i at1 = _mm512_rorv_epi32(_mm512_permutexvar_epi32(_mm512_srli_epi32(x1, 5), words), x1);
  const __mmask16 second_lanes = num_probes <= 16 ? 0 : static_cast<__mmask16>((1u << (num_probes - 16)) - 1);
  return (_mm512_mask_testn_epi32_mask(first_lanes, at0, one) | _mm512_mask_testn_epi32_mask(second_lanes, at1, one)) ==
         0;
}

FILTERLAB_AVX512_WARNINGS_ON
#else
inline constexpr bool kHasAvx512Path = false;
#endif

}  // namespace filterlab::legacy
