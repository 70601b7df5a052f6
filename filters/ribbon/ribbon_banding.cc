// Ribbon banding and seed search (ribbon_banding.h).
#include "filters/ribbon/ribbon_banding.h"

#include <algorithm>

namespace filterlab::ribbon {
namespace {

int TrailingZeros128(CoeffRow v) {
  const uint64_t low = static_cast<uint64_t>(v);
  return low != 0 ? __builtin_ctzll(low) : 64 + __builtin_ctzll(static_cast<uint64_t>(v >> 64));
}

}  // namespace

void Banding::Reset(uint32_t num_slots) {
  num_slots_ = num_slots;
  coeff_rows_.assign(num_slots, 0);
  result_rows_.assign(num_slots, 0);
}

bool Banding::Add(uint32_t start, CoeffRow cr, ResultRow rr) {
  uint32_t i = start;
  for (;;) {
    const CoeffRow pivot_row = coeff_rows_[i];
    if (pivot_row == 0) {
      coeff_rows_[i] = cr;
      result_rows_[i] = rr;
      return true;
    }
    cr ^= pivot_row;
    rr ^= result_rows_[i];
    if (cr == 0) return rr == 0;
    const int shift = TrailingZeros128(cr);
    i += static_cast<uint32_t>(shift);
    cr >>= shift;
  }
}

bool Banding::AddAll(const uint64_t* hashes, size_t n, uint32_t raw_seed, bool homogeneous) {
  const uint32_t starts = num_starts();
  // Prefetching the next key's rows hides the random access into a large
  // banding; it changes no result.
  const bool prefetch = starts > 1500;
  uint64_t h = n > 0 ? Rehash(hashes[0], raw_seed) : 0;
  for (size_t k = 0; k < n; ++k) {
    const uint32_t start = StartOf(h, starts);
    const CoeffRow cr = CoeffRowOf(h);
    const ResultRow rr = homogeneous ? 0 : ResultRowOf(h);
    if (k + 1 < n) {
      h = Rehash(hashes[k + 1], raw_seed);
      if (prefetch) {
        const uint32_t next = StartOf(h, starts);
        __builtin_prefetch(&coeff_rows_[next], 1, 1);
        __builtin_prefetch(&result_rows_[next], 1, 1);
      }
    }
    if (!Add(start, cr, rr)) return false;
  }
  return true;
}

bool Banding::FindSeedAndBand(uint32_t num_slots, const uint64_t* hashes, size_t n, uint32_t starting_ordinal_seed,
                              bool homogeneous) {
  uint32_t seed = starting_ordinal_seed & 255;
  do {
    Reset(num_slots);
    if (AddAll(hashes, n, RawSeedOf(seed), homogeneous)) {
      ordinal_seed_ = seed;
      return true;
    }
    seed = (seed + 1) & 255;
  } while (seed != (starting_ordinal_seed & 255));
  return false;
}

}  // namespace filterlab::ribbon
