// Ribbon back-substitution into the interleaved layout (ribbon_solution.h).
#include "filters/ribbon/ribbon_solution.h"

#include <cmath>
#include <cstring>
#include <vector>

#include "hashing/remix.h"

namespace filterlab::ribbon {

InterleavedLayout InterleavedLayout::For(uint32_t num_blocks, size_t data_bytes) {
  InterleavedLayout l;
  l.num_blocks = num_blocks;
  l.num_segments = static_cast<uint32_t>(data_bytes / sizeof(CoeffRow));
  if (num_blocks == 0) return l;
  l.upper_num_columns = (l.num_segments + num_blocks - 1) / num_blocks;
  l.upper_start_block = l.upper_num_columns * num_blocks - l.num_segments;
  if (l.upper_num_columns > kMaxResultBits) {
    l.upper_num_columns = kMaxResultBits;
    l.upper_start_block = 0;
    l.num_segments = num_blocks * kMaxResultBits;
  }
  return l;
}

double InterleavedLayout::FpRate() const {
  const double lower_portion = static_cast<double>(upper_start_block) * kCoeffBits / num_starts();
  return lower_portion * std::ldexp(1.0, -static_cast<int>(upper_num_columns) + 1) +
         (1.0 - lower_portion) * std::ldexp(1.0, -static_cast<int>(upper_num_columns));
}

void BackSubstitute(const Banding& banding, const InterleavedLayout& layout, uint8_t* data, bool random_free_slots) {
  uint32_t num_columns = layout.upper_num_columns;
  if (num_columns == 0) return;
  // state[j]: column j's solution bits of the 128 slots below the current
  // one, newest in bit 0; a slot's bit is its row's result bit XOR the
  // parity of its row with those (the row's bit 0 is its pivot).
  std::vector<CoeffRow> state(num_columns, 0);
  uint32_t segment = layout.num_segments;
  for (uint32_t block = layout.num_blocks; block > 0;) {
    --block;
    if (block + 1 == layout.upper_start_block) --num_columns;
    for (uint32_t i = (block + 1) * kCoeffBits; i > block * kCoeffBits;) {
      --i;
      const CoeffRow cr = banding.coeff_row(i);
      // With cr = 0 the slot's bit is rr itself.
      const ResultRow rr = cr == 0 && random_free_slots ? static_cast<ResultRow>(Mix64(uint64_t{i} + kGoldenRatio64))
                                                        : banding.result_row(i);
      for (uint32_t j = 0; j < num_columns; ++j) {
        CoeffRow s = state[j] << 1;
        s |= static_cast<CoeffRow>(Parity128(s & cr) ^ static_cast<int>((rr >> j) & 1));
        state[j] = s;
      }
    }
    segment -= num_columns;
    for (uint32_t j = 0; j < num_columns; ++j) {
      const uint64_t low = static_cast<uint64_t>(state[j]);
      const uint64_t high = static_cast<uint64_t>(state[j] >> 64);
      std::memcpy(data + size_t{segment + j} * 16, &low, 8);
      std::memcpy(data + size_t{segment + j} * 16 + 8, &high, 8);
    }
  }
}

}  // namespace filterlab::ribbon
