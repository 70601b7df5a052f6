// The arithmetic the wormhashing variants are built from
// (the primitives of github.com/pdillinger/wormhashing), written once here.
//
// worm ("wide odd regenerative multiplication"): multiply the hash by the
// range in double width. The upper half is the ranged value (fastrange); the
// lower half becomes the next hash. When the range is odd, h -> h * range
// (mod 2^w) is a bijection (an odd number is invertible mod 2^w), so the
// regenerated hash loses no entropy and one 64-bit hash yields a sequence of
// ranged values with a single multiply each. An even range would shift zero
// bits in at the bottom and wear the hash out, which is why every worm range
// here is odd.
#pragma once

#include <bit>
#include <cstdint>

#include "hashing/remix.h"

namespace filterlab::worm {

// Upper 64 bits of h * range (uniform in [0, range)); *h becomes the lower 64.
inline uint64_t Worm64(uint64_t range, uint64_t* h) {
  const unsigned __int128 product = static_cast<unsigned __int128>(*h) * range;
  *h = static_cast<uint64_t>(product);
  return static_cast<uint64_t>(product >> 64);
}

// 32-bit twin: upper 32 bits of h * range; *h becomes the lower 32.
inline uint32_t Worm32(uint32_t range, uint32_t* h) {
  const uint64_t product = uint64_t{*h} * range;
  *h = static_cast<uint32_t>(product);
  return static_cast<uint32_t>(product >> 32);
}

// The top `bits` bits of *h (uniform in [0, 2^bits)); *h is rotated left by
// `bits` so the next call reads fresh bits. 64 / bits calls exhaust a hash.
inline uint64_t Worm64Bits(int bits, uint64_t* h) {
  const uint64_t top = *h >> (64 - bits);
  *h = RotateLeft64(*h, bits);
  return top;
}

// The largest odd number not above x (x >= 1): the odd worm range that never
// indexes past a real size of x. The original computed x - ~(x & 1), which is
// x + 1 or x + 2 (one element past the end); this is the intended design.
inline uint64_t LargestOddAtMost(uint64_t x) { return (x & 1) != 0 ? x : x - 1; }

// x rounded up to odd, for sizes the variant chooses itself: an odd unit
// count makes the worm range equal the real size (nothing wasted, nothing
// past the end).
inline uint64_t RoundUpToOdd(uint64_t x) { return x | 1; }

// The "block" variants set two probes per 64-bit word: a key touches
// floor(k/2) words (odd k puts its last probe as a third bit in the last
// word; k = 1 uses one word) of an aligned group of roundup_pow2 of that many
// words, so XOR-ing the first word index with 0..touched-1 stays in the group.
inline int BlockWordsTouched(int probes) { return probes < 2 ? 1 : probes / 2; }
inline int BlockGroupWords(int probes) {
  return static_cast<int>(std::bit_ceil(static_cast<unsigned>(BlockWordsTouched(probes))));
}

// A FROM32 variant sees only the low 32 bits of the hash; the 64-bit designs
// that also run on a 32-bit hash widen it by one multiply with an odd
// constant (a bijection on the 32 input bits, so no further collisions; two
// keys with equal low 32 bits still collide completely: fpmodel::NarrowHashFpRate).
inline uint64_t WidenFrom32(uint64_t h) { return uint64_t{Lower32(h)} * kGoldenRatio64; }

}  // namespace filterlab::worm
