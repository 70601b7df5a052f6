// The AVX2 query of RocksDB's legacy full filter (legacy_bloom.h) for 64-byte
// lines, for cores without AVX-512 (legacy_bloom_avx512.h is the same idea
// in one register): the same answer as MayMatchLine<false>
// (legacy_bloom_test.cc checks every probe count 1..30 against it), no
// data-dependent branch. Compiled when the compiler targets AVX2 and
// FILTERLAB_FORCE_SCALAR is not set; the format does not depend on it.
//
// Probe i tests bit x_i & 511 of the line, x_i = h + i * delta mod 2^32
// (delta = rotr32(h, 17)): bit x_i & 31 of the line's u32 word (x_i >> 5) &
// 15. The line is two ymm registers of 8 words. A round takes 8 probes:
// vpermd with index x_i >> 5 (it reads the low 3 bits) fetches each lane's
// word from either half, a blend on bit 8 of x_i (the word's bit 3, moved to
// the sign) keeps the right half's, vpsrlvd by x_i & 31 brings the probed
// bit to bit 0, and vptest checks bit 0 of every lane taking part at once.
// 6 probes (10 bits/key) are one round of ~15 instructions after the line's
// two loads, against RocksDB's loop of one byte load and ~11 instructions per
// probe (~70), all waiting on the line; the per-probe work behind a cache
// miss is what slows the loop's random-filter queries (legacy_bloom_avx512.h
// gives the measurements), since it fills the core's reorder window.
#pragma once

#include <cstdint>

#if defined(__AVX2__) && !defined(FILTERLAB_FORCE_SCALAR)
#define FILTERLAB_LEGACY_AVX2 1
#include <immintrin.h>

#include "hashing/remix.h"
#endif

namespace filterlab::legacy {

#ifdef FILTERLAB_LEGACY_AVX2
inline constexpr bool kHasAvx2Path = true;

// Precondition: 1 <= num_probes <= 30 (kMaxProbes); `line` points at 64
// readable bytes (any alignment).
inline bool MayMatchLine64Avx2(uint32_t h, int num_probes, const uint8_t* line) {
  const uint32_t delta = RotateRight32(h, 17);
  const __m256i low_words = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(line));
  const __m256i high_words = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(line + 32));
  const __m256i lanes = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
  const __m256i bit_index = _mm256_set1_epi32(31);
  const __m256i one = _mm256_set1_epi32(1);
  const __m256i round_step = _mm256_set1_epi32(static_cast<int>(8 * delta));
  __m256i x = _mm256_add_epi32(_mm256_set1_epi32(static_cast<int>(h)),
                               _mm256_mullo_epi32(_mm256_set1_epi32(static_cast<int>(delta)), lanes));
  // Rounds of 8 probes; the last round's lanes past num_probes are not
  // tested. Each round's verdict is ANDed, not branched on: the round count
  // depends on num_probes only.
  int all_set = 1;
  for (int first = 0; first < num_probes; first += 8) {
    const __m256i word_index = _mm256_srli_epi32(x, 5);
    const __m256i from_low = _mm256_permutevar8x32_epi32(low_words, word_index);
    const __m256i from_high = _mm256_permutevar8x32_epi32(high_words, word_index);
    const __m256i high_half = _mm256_slli_epi32(x, 23);  // bit 8 of x_i (word index bit 3) to the sign
    const __m256i word = _mm256_castps_si256(_mm256_blendv_ps(
        _mm256_castsi256_ps(from_low), _mm256_castsi256_ps(from_high), _mm256_castsi256_ps(high_half)));
    const __m256i at_bit0 = _mm256_srlv_epi32(word, _mm256_and_si256(x, bit_index));
    const __m256i taking_part = _mm256_and_si256(_mm256_cmpgt_epi32(_mm256_set1_epi32(num_probes - first), lanes), one);
    all_set &= _mm256_testc_si256(at_bit0, taking_part);  // every lane taking part has bit 0 set
    x = _mm256_add_epi32(x, round_step);
  }
  return all_set != 0;
}
#else
inline constexpr bool kHasAvx2Path = false;
#endif

}  // namespace filterlab::legacy
