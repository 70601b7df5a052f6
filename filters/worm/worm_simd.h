// The split-block probe masks of the cache_simd variants, as an AVX2 path and
// a scalar twin that gives the same answers bit for bit (worm_test checks).
// A key lives in one 256-bit block of eight 32-bit lanes (lane j = bits
// 32j..32j+31 of the block, little-endian) and sets at most one bit per lane,
// so a query is one 256-bit load, an AND and a compare, whatever k is.
//
// cache_simd_fastrange32 (k = 1..8): x = h * golden32, y = x * golden32^2.
// Lanes ((j - rot) mod 8) < k are active, rot = x & 7 (k consecutive lanes,
// rotated by the hash). Lane j's bit is a 5-bit field: x >> 27, 22, 17, 12, 7
// for lanes 0..4 and y >> 27, 22, 17 for lanes 5..7.
// cache_simd_k8 (k = 8): lane j's bit is the top 5 bits of h * golden32^(j+1)
// (Impala/Parquet-style salts; ours are the golden-ratio powers).
#pragma once

#include <cstdint>

#if defined(__AVX2__) && !defined(FILTERLAB_FORCE_SCALAR)
#include <immintrin.h>
#define FILTERLAB_WORM_AVX2 1
#endif

#include "hashing/remix.h"

namespace filterlab::worm::simd {

inline constexpr uint32_t kGolden32Squared = 0xe35e67b1;  // golden32^2 mod 2^32
// golden32^(j+1) mod 2^32, j = 0..7 (the golden-ratio multiplier of RocksDB's util/bloom_impl.h).
inline constexpr uint32_t kLaneSalts[8] = {0x9e3779b9, 0xe35e67b1, 0x734297e9, 0x35fbe861,
                                           0xdeb7c719, 0x0448b211, 0x3459b749, 0xab25f4c1};
inline constexpr int kFieldShifts[8] = {27, 22, 17, 12, 7, 27, 22, 17};

// The 256-bit mask as four little-endian words: lane j is bits 32(j&1).. of word j/2.
struct BlockMask {
  uint64_t w[4];
};

inline BlockMask FastRange32MaskScalar(uint32_t h, int probes) {
  const uint32_t x = h * kGoldenRatio32;
  const uint32_t y = x * kGolden32Squared;
  const uint32_t rot = x & 7;
  BlockMask m{};
  for (uint32_t j = 0; j < 8; ++j) {
    if (((j - rot) & 7) >= static_cast<uint32_t>(probes)) continue;
    const uint32_t source = j < 5 ? x : y;
    const uint32_t field = (source >> kFieldShifts[j]) & 31;
    m.w[j / 2] |= uint64_t{1} << (32 * (j & 1) + field);
  }
  return m;
}

inline BlockMask K8MaskScalar(uint32_t h) {
  BlockMask m{};
  for (uint32_t j = 0; j < 8; ++j) m.w[j / 2] |= uint64_t{1} << (32 * (j & 1) + ((h * kLaneSalts[j]) >> 27));
  return m;
}

inline bool BlockContainsScalar(const uint64_t* block, const BlockMask& m) {
  return ((block[0] & m.w[0]) == m.w[0]) & ((block[1] & m.w[1]) == m.w[1]) & ((block[2] & m.w[2]) == m.w[2]) &
         ((block[3] & m.w[3]) == m.w[3]);
}

inline void BlockAddScalar(uint64_t* block, const BlockMask& m) {
  for (int i = 0; i < 4; ++i) block[i] |= m.w[i];
}

#ifdef FILTERLAB_WORM_AVX2
inline __m256i FastRange32MaskAvx2(uint32_t h, int probes) {
  const uint32_t x = h * kGoldenRatio32;
  const uint32_t y = x * kGolden32Squared;
  const __m256i source =
      _mm256_blend_epi32(_mm256_set1_epi32(static_cast<int>(x)), _mm256_set1_epi32(static_cast<int>(y)), 0xE0);
  const __m256i shifts = _mm256_setr_epi32(27, 22, 17, 12, 7, 27, 22, 17);
  const __m256i field = _mm256_and_si256(_mm256_srlv_epi32(source, shifts), _mm256_set1_epi32(31));
  const __m256i bits = _mm256_sllv_epi32(_mm256_set1_epi32(1), field);
  const __m256i lane = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
  const __m256i distance =
      _mm256_and_si256(_mm256_sub_epi32(lane, _mm256_set1_epi32(static_cast<int>(x & 7))), _mm256_set1_epi32(7));
  const __m256i active = _mm256_cmpgt_epi32(_mm256_set1_epi32(probes), distance);
  return _mm256_and_si256(bits, active);
}

inline __m256i K8MaskAvx2(uint32_t h) {
  const __m256i salts = _mm256_setr_epi32(static_cast<int>(kLaneSalts[0]), static_cast<int>(kLaneSalts[1]),
                                          static_cast<int>(kLaneSalts[2]), static_cast<int>(kLaneSalts[3]),
                                          static_cast<int>(kLaneSalts[4]), static_cast<int>(kLaneSalts[5]),
                                          static_cast<int>(kLaneSalts[6]), static_cast<int>(kLaneSalts[7]));
  const __m256i field = _mm256_srli_epi32(_mm256_mullo_epi32(_mm256_set1_epi32(static_cast<int>(h)), salts), 27);
  return _mm256_sllv_epi32(_mm256_set1_epi32(1), field);
}

// `block` is 32-byte aligned (the array is 64-byte aligned; blocks are 32 bytes).
inline bool BlockContainsAvx2(const uint64_t* block, __m256i mask) {
  return _mm256_testc_si256(_mm256_load_si256(reinterpret_cast<const __m256i*>(block)), mask) != 0;
}

inline void BlockAddAvx2(uint64_t* block, __m256i mask) {
  auto* p = reinterpret_cast<__m256i*>(block);
  _mm256_store_si256(p, _mm256_or_si256(_mm256_load_si256(p), mask));
}

inline BlockMask ToBlockMask(__m256i v) {
  BlockMask m;
  _mm256_storeu_si256(reinterpret_cast<__m256i*>(m.w), v);
  return m;
}
#endif  // FILTERLAB_WORM_AVX2

}  // namespace filterlab::worm::simd
