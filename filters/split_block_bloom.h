// The query and insert kernels of the split-block Bloom filter (variant
// "sbbf", split_block_bloom.cc), bit-exact with Parquet's format
// (apache/parquet-format BloomFilter.md): an AVX2 path and a scalar twin that
// gives the same answers (split_block_bloom_test.cc checks). Exposed here
// for that test and the bench; everything else goes through the registry.
//
// A filter is num_blocks blocks of 32 bytes, each eight little-endian 32-bit
// words. A 64-bit hash h picks block ((h >> 32) * num_blocks) >> 32 and sets,
// in word i, bit (uint32(h) * kSalt[i]) >> 27 (multiplication mod 2^32). A
// query tests the same eight bits: one 32-byte load, a multiply, a shift and
// a test, whatever the filter's size.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>

#include "filters/filter.h"

#if defined(__AVX2__) && !defined(FILTERLAB_FORCE_SCALAR)
#define FILTERLAB_SBBF_AVX2 1
#include <immintrin.h>
#endif

namespace filterlab::sbbf {

inline constexpr size_t kBlockBytes = 32;
inline constexpr size_t kBlockWords = 8;

// Parquet's SALT constants (BloomFilter.md).
inline constexpr uint32_t kSalt[kBlockWords] = {0x47b6137bU, 0x44974d91U, 0x8824ad5bU, 0xa2b7289dU,
                                                0x705495c7U, 0x2df1424bU, 0x9efc4947U, 0x5c6bfb31U};

// Index of h's block; num_blocks >= 1. Parquet's multiply-shift range
// reduction of the high 32 bits (the low 32 bits make the mask).
inline uint32_t BlockIndex(uint64_t hash, uint32_t num_blocks) {
  return static_cast<uint32_t>(((hash >> 32) * num_blocks) >> 32);
}

// The reference query: every one of the eight bits is set.
inline bool BlockMayMatchScalar(const uint32_t* block, uint32_t low_hash) {
  uint32_t missing = 0;
  for (size_t i = 0; i < kBlockWords; ++i) missing |= ~block[i] & (1u << ((low_hash * kSalt[i]) >> 27));
  return missing == 0;
}

inline void BlockAddScalar(uint32_t* block, uint32_t low_hash) {
  for (size_t i = 0; i < kBlockWords; ++i) block[i] |= 1u << ((low_hash * kSalt[i]) >> 27);
}

#ifdef FILTERLAB_SBBF_AVX2
inline constexpr bool kHasAvx2Path = true;

inline __m256i MaskAvx2(uint32_t low_hash) {
  const __m256i salts = _mm256_setr_epi32(
      static_cast<int>(kSalt[0]), static_cast<int>(kSalt[1]), static_cast<int>(kSalt[2]), static_cast<int>(kSalt[3]),
      static_cast<int>(kSalt[4]), static_cast<int>(kSalt[5]), static_cast<int>(kSalt[6]), static_cast<int>(kSalt[7]));
  const __m256i products = _mm256_mullo_epi32(_mm256_set1_epi32(static_cast<int>(low_hash)), salts);
  return _mm256_sllv_epi32(_mm256_set1_epi32(1), _mm256_srli_epi32(products, 27));
}

// `block` is 32-byte aligned (filters keep their blocks so).
inline bool BlockMayMatchAvx2(const uint32_t* block, uint32_t low_hash) {
  // testc: 1 iff (~block & mask) == 0.
  return _mm256_testc_si256(_mm256_load_si256(reinterpret_cast<const __m256i*>(block)), MaskAvx2(low_hash)) != 0;
}

inline void BlockAddAvx2(uint32_t* block, uint32_t low_hash) {
  auto* p = reinterpret_cast<__m256i*>(block);
  _mm256_store_si256(p, _mm256_or_si256(_mm256_load_si256(p), MaskAvx2(low_hash)));
}
#else
inline constexpr bool kHasAvx2Path = false;
#endif

// The kernels the filters use: AVX2 when compiled in, else scalar.
inline bool BlockMayMatch(const uint32_t* block, uint32_t low_hash) {
#ifdef FILTERLAB_SBBF_AVX2
  return BlockMayMatchAvx2(block, low_hash);
#else
  return BlockMayMatchScalar(block, low_hash);
#endif
}

inline void BlockAdd(uint32_t* block, uint32_t low_hash) {
#ifdef FILTERLAB_SBBF_AVX2
  BlockAddAvx2(block, low_hash);
#else
  BlockAddScalar(block, low_hash);
#endif
}

// A filter of exactly num_blocks blocks (1..2^29) holding n hashes: what
// the policy builds once it has sized the filter, and what a Parquet writer
// with that bitset size would write (the reference vectors give the count).
std::unique_ptr<Filter> NewSplitBlockBloom(const uint64_t* hashes, size_t n, uint32_t num_blocks);

}  // namespace filterlab::sbbf
