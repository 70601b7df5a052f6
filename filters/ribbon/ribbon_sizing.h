// How many slots a Standard128Ribbon filter gets for n keys, and how many
// bytes of solution for a target FP rate: RocksDB's sizing, reproduced so
// that the same keys give the same filter bytes.
//
// Slots. Banding n random 128-bit rows into m slots succeeds with a
// probability that falls as n/m rises; RocksDB sizes m so that a seed fails
// with chance ~1/20, from measured "keys addable" at m = 2^8..2^17 slots
// (interpolated linearly between powers of two) and above 2^17 a fitted
// overhead m/n growing by 0.0038 per doubling of m. m is rounded up to whole
// 128-slot blocks, at least two.
//
// Bytes. A filter of r solution columns has FP 2^-r; a target between
// 2^-(b+1) and 2^-b gets b columns in its first blocks and b+1 in the rest,
// the split chosen so the average FP (weighted by the share of start slots
// each part owns) is the target. Where the split falls is rounded with a
// bias drawn from the keys (RocksDB's "rounding" entropy), so across
// many filters the average size is exact rather than always rounded down.
#pragma once

#include <cstddef>
#include <cstdint>

namespace filterlab::ribbon {

// RocksDB's Standard128Ribbon limit on keys (the block count must fit the
// trailer's 24 bits with room to spare); beyond it RocksDB builds Bloom.
inline constexpr uint32_t kMaxRibbonKeys = 950000000;

// Slots for n keys (n >= 1): a multiple of 128, at least 256.
uint32_t NumSlotsForKeys(uint32_t num_keys);

// Solution bytes (a multiple of 16) for a filter of num_slots slots aiming
// at FP 1/one_in_fp_rate, with rounding_bias32 the key-derived bias.
size_t SolutionBytesForOneInFpRate(uint32_t num_slots, double one_in_fp_rate, uint32_t rounding_bias32);

}  // namespace filterlab::ribbon
