// The legacy 32-bit key hash of LevelDB/RocksDB (a MurmurHash1 variant), kept
// bit-exact because the legacy filter formats and DynamicBloom depend on it.
// RocksDB's util/hash.cc, Hash() (a MurmurHash1 variant). Weak by modern standards: 32
// bits of entropy per key, so n stored keys cost an extra ~n/2^32 FP rate.
//
// Cost. One key is a chain of dependent rounds, one per 4-byte word (add,
// multiply, shift-xor: ~5 cycles of latency each), ~35 cycles for the 24..28-
// byte keys of filter_bench, so hashing keys one call at a time is bound by
// that chain. LegacyHash32Batch hashes many keys at once: with AVX-512, 16
// keys in the lanes of one register, with AVX2 8, one round per word for all
// of them (legacy_hash.cc); AVX2 takes four registers' chains side by side,
// since one register's is still a single chain. Else the inline loop below,
// whose independent chains the core overlaps. On a Zen 3 EPYC (AVX2, no
// AVX-512), 24..28-byte keys of mixed lengths, in one run: scalar 7.8-9.6 ns
// a key, AVX2 3.9-5.4 (three medians of 7 repetitions each;
// `filterlab_bench --benchmark_filter=LegacyHash32Batch`). Per key, AVX2
// spends more instructions putting the key's bytes in a row (a load and a
// mask, or near a page's end a dword-masked load and the tail bytes) than on
// its share of the rounds.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "common/slice.h"

namespace filterlab {

// Seed of BloomHash: legacy full filter, old block-based filter, DynamicBloom.
inline constexpr uint32_t kBloomHashSeed = 0xbc9f1d34;
// Seed of GetSliceHash (PlainTable Bloom).
inline constexpr uint32_t kSliceHashSeed = 397;
// The hash's multiplier.
inline constexpr uint32_t kLegacyHashMul = 0xc6a4a793;

// Inline: a call per key (it was out of line behind FilterPolicy::HashKey)
// cost a fifth of a legacy build's time beside the hash itself.
inline uint32_t LegacyHash32(const char* data, size_t n, uint32_t seed) {
  constexpr uint32_t m = kLegacyHashMul;
  constexpr int r = 24;
  // Only the low 32 bits of n * m take part (the length is multiplied in u64
  // and truncated, as the original does).
  uint32_t h = seed ^ static_cast<uint32_t>(uint64_t{n} * m);
  const char* p = data;
  const char* limit = data + n;
  while (limit - p >= 4) {
    uint32_t w;
    std::memcpy(&w, p, 4);  // little-endian hosts only (checked in CMake)
    p += 4;
    h += w;
    h *= m;
    h ^= (h >> 16);
  }
  // Tail bytes are sign-extended before shifting: the original promoted a
  // plain (signed) char. This is part of the persisted format.
  auto sx = [](char c) { return static_cast<uint32_t>(static_cast<int32_t>(static_cast<signed char>(c))); };
  switch (limit - p) {
    case 3: h += sx(p[2]) << 16; [[fallthrough]];
    case 2: h += sx(p[1]) << 8; [[fallthrough]];
    case 1:
      h += sx(p[0]);
      h *= m;
      h ^= (h >> r);
      break;
    default: break;
  }
  return h;
}

inline uint32_t BloomHash32(const char* data, size_t n) { return LegacyHash32(data, n, kBloomHashSeed); }

// out[i] = LegacyHash32(keys[i], seed) (zero-extended) for i < n: the widest
// kernel this build has (FILTERLAB_FORCE_SCALAR unset): AVX-512 16 keys at a
// time, else AVX2 32 keys a call (then 8), the scalar loop for the rest. Keys
// of any length and alignment. Reads no page a key does not touch: the AVX2
// kernel may load bytes past a key's end within the key's own 4 KiB page
// (they cannot fault, and are masked off), except in sanitizer builds.
void LegacyHash32Batch(const Slice* keys, size_t n, uint32_t seed, uint64_t* out);

// The kernels, so that tests can hold each one the build has to the scalar
// hash (an AVX-512 build also has the AVX2 kernel).
enum class LegacyHashKernel { kScalar, kAvx2, kAvx512 };
bool LegacyHashKernelAvailable(LegacyHashKernel kernel);
// LegacyHash32Batch with the given kernel (the scalar loop if the build lacks it).
void LegacyHash32BatchWith(LegacyHashKernel kernel, const Slice* keys, size_t n, uint32_t seed, uint64_t* out);

}  // namespace filterlab
