// What XOR and binary fuse filters derive from a key's 64-bit hash: the hash
// remixed with the filter's seed (a construction that fails retries with the
// next seed, which moves every key's slots), and the key's fingerprint.
//
// A key's first slot comes from the top bits of the mixed hash (multiply-high
// range reduction); its other slots from the top bits of SlotBits1/2, which
// depend on every bit of the mixed hash, or (format 4) from what the first
// reduction leaves (XOR: MulHiLo's low half) or from hash bits 16..31 (4-wise
// binary fuse); its fingerprint is the mixed hash's low 8 or 16 bits, which
// the multiply-high reduction hardly sees and no other slot reads. The FP
// model treats the fingerprint as uniform and independent of the slots
// (filters/fuse/peeled_filter.h).
#pragma once

#include <cstdint>

#include "hashing/fastrange.h"
#include "hashing/remix.h"

namespace filterlab::fuse {

// Seed 0 (the first attempt, which peels for 93-99.6% of inputs at 10^4
// keys and all of them from 10^5 up: peeling.h) takes the key's hash as it
// is: the key hashes are already uniform 64-bit values (XXH3), so a query of
// a seed-0 filter spends nothing on the seed. A retry (seed s >= 1) takes
// the hash times an odd multiplier of the seed: bijective in `hash`, so
// distinct hashes stay distinct, and the product needs no further mixing:
// its top bits (the first slot) and the top bits of SlotBits1/2 (the
// others) depend on every bit of the hash, and each seed's multiplier
// differs from the others in every bit (seed x an even step), so a retry
// sees unrelated slots (multiply-shift hashing with another multiplier).
// Format 2 bytes (peeled_filter.h) multiplied for seed 0 too, by
// kSeedMultiplier = kSeedMultipliers.of[0]; MultipliedHash reads them.
inline constexpr uint64_t kSeedMultiplier = 0x9e3779b97f4a7c15ULL;  // odd
inline constexpr uint64_t kSeedStep = 0x7f4a7c159e3779b8ULL;        // even
// Every seed's multiplier, made once: a query loads its multiplier (an L1
// hit) rather than computing it, which keeps a multiply off the one scalar
// multiplier a query's other three or four products already queue on.
// Seeds are below 256 (a filter's layout stores one byte).
inline constexpr int kMaxSeeds = 256;
struct SeedMultipliers {
  uint64_t of[kMaxSeeds];
  constexpr SeedMultipliers() : of() {
    for (int s = 0; s < kMaxSeeds; ++s) of[s] = kSeedMultiplier + static_cast<uint64_t>(s) * kSeedStep;
  }
};
inline constexpr SeedMultipliers kSeedMultipliers{};
inline uint64_t MultipliedHash(uint64_t hash, uint32_t seed) {
  return hash * kSeedMultipliers.of[seed & (kMaxSeeds - 1)];
}
inline uint64_t SeededHash(uint64_t hash, uint32_t seed) { return seed == 0 ? hash : MultipliedHash(hash, seed); }

template <class Fingerprint>
inline Fingerprint FingerprintOf(uint64_t mixed) {
  return static_cast<Fingerprint>(mixed);
}

// Another independent-looking 64-bit value from the mixed hash, for the
// slots after the first: the top bits of a product depend on every bit of
// its operand (the low bits would depend on the low bits only, i.e. on the
// fingerprint), so layouts take only bits 28..63 (the binary fuse offsets,
// 18 bits each at most) or the top bits (XOR's multiply-high ranges). One
// multiply per value, no other mixing: a query's cost is mostly
// instructions, since the out-of-order core overlaps independent queries.
// FastRange64 (hashing/fastrange.h) as a query computes it: with BMI2 one
// mulx, which keeps the range in rdx for all of a query's products and
// writes any register, where mul (what compilers make of the 128-bit
// product, _mulx_u64 included) wants the operand copied into rax and
// overwrites it each time. Inline assembly, since no intrinsic stays mulx.
inline uint64_t MulHi(uint64_t hash, uint64_t range) {
#if defined(__BMI2__) && defined(__x86_64__)
  uint64_t high, low;
  asm("mulxq %2, %1, %0" : "=r"(high), "=r"(low) : "rm"(hash), "d"(range));
  return high;
#else
  return FastRange64(hash, range);
#endif
}

// hash x range as its two 64-bit halves, one mulx under BMI2 (see MulHi).
// The high half is FastRange64(hash, range), the first base-`range` digit of
// hash / 2^64; the low half is what is left of hash / 2^64 after that digit,
// so its own multiply-high by range is the second digit (XOR's third slot,
// format 4: xor_filter.cc).
struct Product128 {
  uint64_t high, low;
};
inline Product128 MulHiLo(uint64_t hash, uint64_t range) {
#if defined(__BMI2__) && defined(__x86_64__)
  uint64_t high, low;
  asm("mulxq %2, %1, %0" : "=r"(high), "=r"(low) : "rm"(hash), "d"(range));
  return {high, low};
#else
  const unsigned __int128 product = static_cast<unsigned __int128>(hash) * range;
  return {static_cast<uint64_t>(product >> 64), static_cast<uint64_t>(product)};
#endif
}

inline constexpr uint64_t kSlotFactor1 = 0xd6e8feb86659fd93ULL;
inline constexpr uint64_t kSlotFactor2 = 0x9fb21c651e98df25ULL;
inline uint64_t SlotBits1(uint64_t mixed) { return mixed * kSlotFactor1; }
inline uint64_t SlotBits2(uint64_t mixed) { return mixed * kSlotFactor2; }

}  // namespace filterlab::fuse
