// The interleaved solution layout of Standard128Ribbon and its queries.
//
// Back-substitution solves the banded system from the last slot upwards,
// giving each slot r solution bits (one per result "column"). They are
// stored block by block (128 slots each): block b holds c_b 128-bit
// segments, segment j bit i = column j's solution bit of slot 128b + i,
// little-endian. Blocks before upper_start_block have upper_num_columns - 1
// columns, the rest upper_num_columns, which is how a fractional number of
// result bits per key (a FP between two powers of two) is laid out. Both
// numbers follow from the block count and the data length alone:
//   segments = bytes / 16, upper_num_columns = ceil(segments / blocks),
//   upper_start_block = upper_num_columns * blocks - segments.
//
// A query rehashes with the filter's seed, takes its start slot's block
// and, unless the start is block-aligned, the next one, and checks for
// each column that the parity of (solution bits & coefficient row) equals
// the key's result bit: c_b column reads, all within <= 2 * c_b * 16
// contiguous bytes.
#pragma once

#include <cstddef>
#include <cstdint>

#include "filters/ribbon/ribbon_banding.h"
#include "filters/ribbon/ribbon_hasher.h"

namespace filterlab::ribbon {

struct InterleavedLayout {
  uint32_t num_blocks = 0;
  uint32_t num_segments = 0;
  uint32_t upper_num_columns = 0;
  uint32_t upper_start_block = 0;

  // The layout for num_blocks >= 2 blocks over data_bytes bytes (whole
  // segments; a remainder is ignored). More than 32 columns' worth of data
  // is capped at 32 columns, as RocksDB's reader does.
  static InterleavedLayout For(uint32_t num_blocks, size_t data_bytes);

  uint32_t num_starts() const { return num_blocks * kCoeffBits - kCoeffBits + 1; }
  size_t data_bytes() const { return size_t{num_segments} * sizeof(CoeffRow); }

  // The FP rate of a key not added: a query starting in a lower block
  // checks upper_num_columns - 1 result bits, the others upper_num_columns,
  // each passing with chance 1/2.
  double FpRate() const;
};

// Writes the solution of `banding` (solved with banding.num_slots() =
// 128 * layout.num_blocks) into data (layout.data_bytes() bytes).
void BackSubstitute(const Banding& banding, const InterleavedLayout& layout, uint8_t* data);

inline CoeffRow LoadSegment(const uint8_t* data, uint32_t segment) {
  uint64_t low, high;
  __builtin_memcpy(&low, data + size_t{segment} * 16, 8);
  __builtin_memcpy(&high, data + size_t{segment} * 16 + 8, 8);
  return (static_cast<CoeffRow>(high) << 64) | low;
}

// Where a query for rehashed hash h reads: its first segment and column count.
struct QueryPlace {
  uint32_t segment;
  uint32_t num_columns;
  uint32_t start_bit;
};
inline QueryPlace PlaceOf(uint64_t h, const InterleavedLayout& layout) {
  const uint32_t start = StartOf(h, layout.num_starts());
  const uint32_t block = start / kCoeffBits;
  const bool lower = block < layout.upper_start_block;
  return QueryPlace{block * layout.upper_num_columns - (lower ? block : layout.upper_start_block),
                    layout.upper_num_columns - (lower ? 1u : 0u), start % kCoeffBits};
}

inline bool QueryAt(uint64_t h, const QueryPlace& p, const uint8_t* data) {
  const CoeffRow cr = CoeffRowOf(h);
  const ResultRow expected = ResultRowOf(h);
  if (p.start_bit == 0) {
    for (uint32_t i = 0; i < p.num_columns; ++i) {
      if (Parity128(LoadSegment(data, p.segment + i) & cr) != static_cast<int>((expected >> i) & 1)) return false;
    }
    return true;
  }
  const CoeffRow cr_left = cr << p.start_bit;
  const CoeffRow cr_right = cr >> (kCoeffBits - p.start_bit);
  for (uint32_t i = 0; i < p.num_columns; ++i) {
    const CoeffRow bits = (LoadSegment(data, p.segment + i) & cr_left) ^
                          (LoadSegment(data, p.segment + p.num_columns + i) & cr_right);
    if (Parity128(bits) != static_cast<int>((expected >> i) & 1)) return false;
  }
  return true;
}

// The filter query for a key's 64-bit hash.
inline bool MayContain(uint64_t key_hash, uint32_t raw_seed, const InterleavedLayout& layout, const uint8_t* data) {
  const uint64_t h = Rehash(key_hash, raw_seed);
  return QueryAt(h, PlaceOf(h, layout), data);
}

}  // namespace filterlab::ribbon
