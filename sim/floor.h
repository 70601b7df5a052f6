// The machine's memory floors, so every speed figure can be read against
// them: dependent random-load latency (pointer chasing through a random
// cyclic permutation of 64-byte lines: each load's address comes from the
// previous load) and independent random 64-byte line reads (addresses from a
// cheap generator, software-prefetched `distance` reads ahead; the cost of the
// generator alone is measured in a dry run and subtracted, as speed does),
// and the in-core cost of a random-line prefetch amid compute (how much of a
// line stream a core can hide under other work).
#pragma once

#include <cstddef>
#include <cstdint>

namespace filterlab::sim {

// Writes a single random cycle through the `lines` 64-byte lines of `base`
// (Sattolo's algorithm): line i's first 8 bytes hold the index of the next.
void PreparePointerChase(char* base, size_t lines, uint64_t seed);
// Mean ns per dependent load over `hops` hops (after PreparePointerChase).
double DependentLoadNs(const char* base, uint64_t hops);

// Net ns per independent random line read over the first `lines` lines of
// `base`, `reads` reads per thread, prefetching `distance` ahead (0 = none),
// on `threads` threads at once. With several threads the figure is the
// aggregate: wall time / total reads.
double RandomLineReadNs(const char* base, size_t lines, uint64_t reads, int distance, int threads, uint64_t seed);

// In-core ns per random-line prefetch issued amid compute, and (in
// *work_ns) the compute alone per line: groups of 16 random lines are
// prefetched back to back (prefetcht0, as random_pipelined does through
// FilterView::Prefetch) and followed by 16 x `work` units of register-only
// arithmetic (4 independent multiply-add chains per unit) that needs nothing
// from memory. A core whose line fetches overlap such work fully shows ~0;
// whatever a prefetch holds up in the core (a miss buffer, an address
// translation it must finish before it retires) shows here. Median over 5
// parts, each timed with and without the prefetches back to back.
double PrefetchCostNs(const char* base, size_t lines, uint64_t prefetches, int work, uint64_t seed, double* work_ns);

}  // namespace filterlab::sim
