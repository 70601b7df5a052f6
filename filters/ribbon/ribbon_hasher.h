// How Standard128Ribbon (RocksDB's Ribbon filter, format marker -2) derives
// everything from a key's 64-bit hash: the seeded rehash, the start slot,
// the 128-bit coefficient row and the 32 result bits. The constants are
// schema-critical: they are RocksDB's, so filters built here and there have
// the same bytes (testdata/vectors-modern/ribbon_filter.json).
//
// Seeds. A filter stores an "ordinal" seed 0..255 in its trailer; the
// rehash uses the raw seed, a fixed bijection of it (multiply by an odd
// constant, then fold the high nibble of each byte onto the low one), so
// consecutive ordinals give unrelated rehashes.
//
// Coefficients and result share one product a = h * kCoeffAndResultFactor:
// the row is (a << 64) ^ a ^ kCoeffXor64 with bit 0 forced to 1 (so a key's
// equation always has a pivot at its start slot), the result bits are the
// high 32 bits of a, byte-reversed.
#pragma once

#include <cstdint>

namespace filterlab::ribbon {

using CoeffRow = unsigned __int128;
using ResultRow = uint32_t;
inline constexpr uint32_t kCoeffBits = 128;
inline constexpr uint32_t kMaxResultBits = 32;

inline constexpr uint64_t kRehashFactor = 0x6193d459236a3a0dULL;
inline constexpr uint64_t kCoeffAndResultFactor = 0xc28f82822b650bedULL;
inline constexpr uint64_t kCoeffXor64 = 0xc367844a6e52731dULL;
inline constexpr uint64_t kToRawSeedFactor = 0xc78219a23eeadd03ULL;
inline constexpr uint64_t kSeedMixMask = 0xf0f0f0f0f0f0f0f0ULL;

inline uint32_t RawSeedOf(uint32_t ordinal_seed) {
  uint64_t t = uint64_t{ordinal_seed} * kToRawSeedFactor;
  t ^= (t & kSeedMixMask) >> 4;
  return static_cast<uint32_t>(t);
}

inline uint64_t Rehash(uint64_t key_hash, uint32_t raw_seed) { return (key_hash ^ raw_seed) * kRehashFactor; }

// Start slot in [0, num_starts): the high half of h * num_starts.
inline uint32_t StartOf(uint64_t h, uint32_t num_starts) {
  return static_cast<uint32_t>((static_cast<unsigned __int128>(h) * num_starts) >> 64);
}

inline CoeffRow CoeffRowOf(uint64_t h) {
  const uint64_t a = h * kCoeffAndResultFactor;
  return ((static_cast<CoeffRow>(a) << 64) ^ (a ^ kCoeffXor64)) | 1;
}

inline ResultRow ResultRowOf(uint64_t h) {
  return static_cast<ResultRow>(__builtin_bswap64(h * kCoeffAndResultFactor));
}

inline int Parity128(CoeffRow v) {
  return __builtin_parityll(static_cast<uint64_t>(v) ^ static_cast<uint64_t>(v >> 64));
}

}  // namespace filterlab::ribbon
