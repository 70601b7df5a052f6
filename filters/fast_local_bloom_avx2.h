// The AVX2 query path of FastLocalBloom (the __AVX2__
// branch of FastLocalBloomImpl::HashMayMatchPrepared, RocksDB's util/bloom_impl.h): tests up to eight probes of one
// 512-bit line per round, with no data-dependent branch inside a round. Compiled when the compiler targets AVX2 and
// FILTERLAB_FORCE_SCALAR is not set; it must give exactly the answer of fastlocal::MayMatchLineScalar
// (fast_local_bloom_test.cc checks this for every probe count 1..30).
//
// Why it works without a gather instruction: probe i tests bit x_i >> 23 of
// the line, x_i = h2 * phi^i. Viewing the line as sixteen little-endian u32
// words, that is bit (x_i >> 23) & 31 of word x_i >> 28. Eight lanes compute
// x_r..x_{r+7} with one vector multiply by phi^0..phi^7; the word is fetched
// by permuting each 256-bit half of the line with the word index's low three
// bits (vpermd) and choosing the half by its top bit (the lane's sign bit).
// A round costs ~10 instructions against ~5 per probe for the scalar loop, so
// it wins from about three probes up and stays one round up to eight probes
// (which is why RocksDB's probe table prefers k <= 8).
#pragma once

#include <cstdint>

#if defined(__AVX2__) && !defined(FILTERLAB_FORCE_SCALAR)
#define FILTERLAB_FASTLOCAL_AVX2 1
#include <immintrin.h>
#endif

namespace filterlab::fastlocal {

#ifdef FILTERLAB_FASTLOCAL_AVX2
inline constexpr bool kHasAvx2Path = true;

// Precondition: 1 <= num_probes; `line` points at 64 readable bytes (any alignment).
inline bool MayMatchLineAvx2(uint32_t h2, int num_probes, const uint8_t* line) {
  // phi^0..phi^7 mod 2^32 (phi = 0x9e3779b9), and phi^8 to step to the next round.
  const __m256i phi_powers =
      _mm256_setr_epi32(0x00000001, static_cast<int>(0x9e3779b9), static_cast<int>(0xe35e67b1), 0x734297e9, 0x35fbe861,
                        static_cast<int>(0xdeb7c719), 0x0448b211, 0x3459b749);
  constexpr uint32_t kPhiPow8 = 0xab25f4c1;
  const __m256i lane_index = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
  const __m256i low_half = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(line));
  const __m256i high_half = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(line + 32));
  const __m256i one = _mm256_set1_epi32(1);

  uint32_t h = h2;
  int remaining = num_probes;
  while (true) {
    const __m256i x = _mm256_mullo_epi32(_mm256_set1_epi32(static_cast<int>(h)), phi_powers);
    // vpermd only looks at the low 3 bits of each index, so x >> 28 serves as the index directly.
    const __m256i word_index = _mm256_srli_epi32(x, 28);
    const __m256i bit_in_word = _mm256_srli_epi32(_mm256_slli_epi32(x, 4), 27);
    const __m256i from_low = _mm256_permutevar8x32_epi32(low_half, word_index);
    const __m256i from_high = _mm256_permutevar8x32_epi32(high_half, word_index);
    const __m256i want_high = _mm256_srai_epi32(x, 31);  // all ones where word_index >= 8
    const __m256i words = _mm256_blendv_epi8(from_low, from_high, want_high);
    const __m256i active = _mm256_cmpgt_epi32(_mm256_set1_epi32(remaining), lane_index);
    const __m256i wanted_bits = _mm256_and_si256(_mm256_sllv_epi32(one, bit_in_word), active);
    // testc: 1 iff (~words & wanted_bits) == 0, i.e. every wanted bit is set.
    const bool all_set = _mm256_testc_si256(words, wanted_bits) != 0;
    if (remaining <= 8) return all_set;
    if (!all_set) return false;
    h *= kPhiPow8;
    remaining -= 8;
  }
}
#else
inline constexpr bool kHasAvx2Path = false;
#endif

}  // namespace filterlab::fastlocal
