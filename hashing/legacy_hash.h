// The legacy 32-bit key hash of LevelDB/RocksDB (a MurmurHash1 variant), kept
// bit-exact because the legacy filter formats and DynamicBloom depend on it.
// RocksDB's util/hash.cc, Hash() (a MurmurHash1 variant). Weak by modern standards: 32
// bits of entropy per key, so n stored keys cost an extra ~n/2^32 FP rate.
#pragma once

#include <cstddef>
#include <cstdint>

namespace filterlab {

// Seed of BloomHash: legacy full filter, old block-based filter, DynamicBloom.
inline constexpr uint32_t kBloomHashSeed = 0xbc9f1d34;
// Seed of GetSliceHash (PlainTable Bloom).
inline constexpr uint32_t kSliceHashSeed = 397;

uint32_t LegacyHash32(const char* data, size_t n, uint32_t seed);

inline uint32_t BloomHash32(const char* data, size_t n) { return LegacyHash32(data, n, kBloomHashSeed); }

}  // namespace filterlab
