// Ribbon banding and seed search (ribbon_banding.h).
#include "filters/ribbon/ribbon_banding.h"

#include <algorithm>

namespace filterlab::ribbon {

void Banding::Reset(uint32_t num_slots) {
  num_slots_ = num_slots;
  coeff_words_.assign(2 * size_t{num_slots}, 0);
  result_rows_.assign(num_slots, 0);
}

// Keys are banded kLanes at a time, their walks interleaved step by step,
// so that the latency of one walk's dependent row loads overlaps the
// others' (one walk alone is a chain of load, XOR, count trailing zeros,
// shift, add, ~10 steps per key at RocksDB's load; 3 and 4 lanes measured
// the same in sim speed's build mode). Any interleaving gives
// the same result: each step is atomic, a stored row never changes, and
// every stored row is its key's row plus earlier stored rows, so the stored
// rows are an echelon form of the same row space whatever the order, the
// pivot slots (the leading positions of any echelon basis) are the same,
// and so is the back-substituted solution with free slots 0. Whether some
// key is inconsistent (a seed fails) does not depend on the order either.
namespace {

constexpr int kLanes = 4;
// Keys ahead whose first rows are prefetched, in large bandings only.
constexpr size_t kPrefetchAhead = 8;

// A key's walk: its remaining coefficients (bit 0 at slot i) in two
// 64-bit halves, and its remaining result bits.
struct Walk {
  uint64_t lo, hi;
  uint32_t i;
  ResultRow rr;
};

enum StepResult { kGoOn = 0, kEnded = 1, kInconsistent = -1 };

// One step of a walk, on 64-bit halves with as few instructions as the
// common case allows (the step is the whole cost of banding): the slot is
// empty when its low word is 0 (stored rows have bit 0 set); after the XOR
// bit 0 is clear, so the shift to the next 1 is 1..63 whenever the low
// half is not all zero, and two plain shifts do it; a zero low half (about
// one step in 2^60, or the row cancelled entirely) takes the slow branch.
__attribute__((always_inline)) inline StepResult Step(uint64_t* words, ResultRow* results, Walk& w) {
  uint64_t* const row = words + 2 * size_t{w.i};
  const uint64_t pivot_lo = row[0];
  if (pivot_lo == 0) {
    row[0] = w.lo;
    row[1] = w.hi;
    results[w.i] = w.rr;
    return kEnded;
  }
  w.lo ^= pivot_lo;
  w.hi ^= row[1];
  w.rr ^= results[w.i];
  if (__builtin_expect(w.lo == 0, 0)) {
    if (w.hi == 0) return w.rr == 0 ? kEnded : kInconsistent;
    const int t = __builtin_ctzll(w.hi);
    w.i += 64 + static_cast<uint32_t>(t);
    w.lo = w.hi >> t;
    w.hi = 0;
    return kGoOn;
  }
  const int s = __builtin_ctzll(w.lo);
  w.i += static_cast<uint32_t>(s);
  w.lo = (w.lo >> s) | (w.hi << (64 - s));
  w.hi >>= s;
  return kGoOn;
}

// A whole walk, for the few keys not banded in lanes.
bool AddOne(uint64_t* words, ResultRow* results, Walk w) {
  for (;;) {
    const StepResult r = Step(words, results, w);
    if (r != kGoOn) return r == kEnded;
  }
}

}  // namespace

bool Banding::AddAll(const uint64_t* hashes, size_t n, uint32_t raw_seed, bool homogeneous) {
  const uint32_t starts = num_starts();
  uint64_t* const words = coeff_words_.data();
  ResultRow* const results = result_rows_.data();
  auto walk_of = [&](size_t k) {
    const uint64_t h = Rehash(hashes[k], raw_seed);
    const CoeffRow cr = CoeffRowOf(h);
    return Walk{static_cast<uint64_t>(cr), static_cast<uint64_t>(cr >> 64), StartOf(h, starts),
                homogeneous ? 0 : ResultRowOf(h)};
  };
  // Prefetching upcoming keys' first rows hides the random access into a
  // large banding; it changes no result.
  const bool prefetch = starts > 1500;
  auto prefetch_key = [&](size_t k) {
    if (prefetch && k < n) {
      const uint32_t at = StartOf(Rehash(hashes[k], raw_seed), starts);
      __builtin_prefetch(&words[2 * size_t{at}], 1, 1);
      __builtin_prefetch(&results[at], 1, 1);
    }
  };
  if (n < 2 * kLanes) {
    for (size_t k = 0; k < n; ++k) {
      if (!AddOne(words, results, walk_of(k))) return false;
    }
    return true;
  }
  for (size_t k = 0; k < kPrefetchAhead; ++k) prefetch_key(k);
  // The lanes are named locals (not an array, which the compiler kept in
  // memory) so that they stay in registers. advance(w) steps walk w and,
  // when it ends, gives it the next key; returns 1 to go on, 0 when w ended
  // with no key left (w is then marked done), -1 when a key is
  // inconsistent (the seed fails).
  constexpr uint32_t kDone = UINT32_MAX;
  size_t next = 0;
  auto advance = [&](Walk & w) __attribute__((always_inline)) {
    const StepResult r = Step(words, results, w);
    if (r == kGoOn) return 1;
    if (r == kInconsistent) return -1;
    if (next == n) {
      w.i = kDone;
      return 0;
    }
    prefetch_key(next + kPrefetchAhead);
    w = walk_of(next++);
    return 1;
  };
  Walk a = walk_of(next++);
  Walk b = walk_of(next++);
  Walk c = walk_of(next++);
  int r;
  while ((r = advance(a)) == 1 && (r = advance(b)) == 1 && (r = advance(c)) == 1) {
  }
  if (r < 0) return false;
  // The keys ran out: the other lanes' walks end one at a time.
  for (const Walk* w : {&a, &b, &c}) {
    if (w->i != kDone && !AddOne(words, results, *w)) return false;
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
