// What XOR and binary fuse filters derive from a key's 64-bit hash: the hash
// remixed with the filter's seed (a construction that fails retries with the
// next seed, which moves every key's slots), and the key's fingerprint.
//
// A key's first slot comes from the top bits of the mixed hash (multiply-high
// range reduction); its other slots from the top bits of DerivedBits, which
// depend on every bit of the mixed hash; its fingerprint is the mixed hash's
// low 8 or 16 bits, which the multiply-high reduction hardly sees. The FP
// model treats the fingerprint as uniform and independent of the slots
// (filters/fuse/peeled_filter.h).
#pragma once

#include <cstdint>

#include "hashing/remix.h"

namespace filterlab::fuse {

// Bijective in `hash` for each seed, so distinct hashes stay distinct.
inline uint64_t SeededHash(uint64_t hash, uint32_t seed) { return Mix64(hash + seed * kGoldenRatio64); }

template <class Fingerprint>
inline Fingerprint FingerprintOf(uint64_t mixed) {
  return static_cast<Fingerprint>(mixed);
}

// Another independent-looking 64-bit value from the mixed hash, one per
// rotation: the top bits of a product depend on every bit of its operand (the
// low bits would depend on the low bits only, i.e. on the fingerprint), and
// rotating first makes each rotation weigh the bits differently. Layouts take
// only its top bits.
inline uint64_t DerivedBits(uint64_t mixed, int rotation) {
  return RotateLeft64(mixed, rotation) * 0xd6e8feb86659fd93ULL;
}

}  // namespace filterlab::fuse
