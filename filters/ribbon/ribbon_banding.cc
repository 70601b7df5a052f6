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

// Keys are banded kLanes at a time, their walks interleaved step by step,
// so that the latency of one walk's dependent row loads overlaps the
// others' (one walk alone is a chain of load, XOR, count trailing zeros,
// add, ~10 steps per key at RocksDB's load). Any interleaving gives the
// same result: each step is atomic, a stored row never changes, and every
// stored row is its key's row plus earlier stored rows, so the stored rows
// are an echelon form of the same row space whatever the order, the pivot
// slots (the leading positions of any echelon basis) are the same, and so
// is the back-substituted solution with free slots 0. Whether some key is
// inconsistent (a seed fails) does not depend on the order either.
namespace {

constexpr int kLanes = 3;
// Keys ahead whose first rows are prefetched, in large bandings only.
constexpr size_t kPrefetchAhead = 8;

struct Walk {
  uint32_t i;
  CoeffRow cr;
  ResultRow rr;
};

}  // namespace

bool Banding::AddAll(const uint64_t* hashes, size_t n, uint32_t raw_seed, bool homogeneous) {
  const uint32_t starts = num_starts();
  CoeffRow* const rows = coeff_rows_.data();
  ResultRow* const results = result_rows_.data();
  auto walk_of = [&](size_t k) {
    const uint64_t h = Rehash(hashes[k], raw_seed);
    return Walk{StartOf(h, starts), CoeffRowOf(h), homogeneous ? 0 : ResultRowOf(h)};
  };
  // Prefetching upcoming keys' first rows hides the random access into a
  // large banding; it changes no result.
  const bool prefetch = starts > 1500;
  auto prefetch_key = [&](size_t k) {
    if (prefetch && k < n) {
      const uint32_t at = StartOf(Rehash(hashes[k], raw_seed), starts);
      __builtin_prefetch(&rows[at], 1, 1);
      __builtin_prefetch(&results[at], 1, 1);
    }
  };
  if (n < 2 * kLanes) {
    for (size_t k = 0; k < n; ++k) {
      const Walk w = walk_of(k);
      if (!Add(w.i, w.cr, w.rr)) return false;
    }
    return true;
  }
  for (size_t k = 0; k < kPrefetchAhead; ++k) prefetch_key(k);
  // The lanes are named locals (not an array) so that they stay in
  // registers. step() advances one walk; it returns 1 when the walk ended
  // (its key stored or cancelled), -1 when the key is inconsistent, else 0.
  auto step = [rows, results](Walk& w) __attribute__((always_inline)) {
    const CoeffRow pivot_row = rows[w.i];
    if (pivot_row == 0) {
      rows[w.i] = w.cr;
      results[w.i] = w.rr;
      return 1;
    }
    w.cr ^= pivot_row;
    w.rr ^= results[w.i];
    if (w.cr == 0) return w.rr == 0 ? 1 : -1;
    const int shift = TrailingZeros128(w.cr);
    w.i += static_cast<uint32_t>(shift);
    w.cr >>= shift;
    return 0;
  };
  // advance(w, x, y) steps walk w (x and y: the other lanes); when w ends
  // it takes the next key, or once the keys run out finishes x and y one
  // at a time. Returns 1 to go on, 0 when all keys are banded, -1 when a
  // key is inconsistent (the seed fails).
  size_t next = 0;
  auto advance = [&](Walk& w, const Walk& x, const Walk& y) __attribute__((always_inline)) {
    const int r = step(w);
    if (r == 0) return 1;
    if (r < 0) return -1;
    if (next == n) return Add(x.i, x.cr, x.rr) && Add(y.i, y.cr, y.rr) ? 0 : -1;
    prefetch_key(next + kPrefetchAhead);
    w = walk_of(next++);
    return 1;
  };
  Walk a = walk_of(next++);
  Walk b = walk_of(next++);
  Walk c = walk_of(next++);
  for (;;) {
    int r;
    if ((r = advance(a, b, c)) != 1 || (r = advance(b, a, c)) != 1 || (r = advance(c, a, b)) != 1) return r == 0;
  }
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
