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

// The page size the TLB actually caches translations at, which is what
// decides whether 2 MiB pages help: a guest's 2 MiB pages on a hypervisor
// that backs guest memory with 4 KiB pages are 2 MiB to the guest kernel (and
// to /proc/self/smaps) but still need one TLB entry, and on a miss one nested
// page walk, per 4 KiB. Two pointer chases through kPages lines (512 KiB, so
// both run from the L2 cache of current x86 cores): `dense`, the lines packed
// together (128 4 KiB pages), and `spread`, one line in each of kPages
// consecutive 4 KiB pages (32 MiB, 16 2 MiB pages). With 2 MiB translations
// the spread chase needs 16 TLB entries and costs what the dense one does;
// with 4 KiB translations it needs 8192, more than any current x86 L2 TLB
// holds (1.5k-3k entries), so every load adds a page walk. Measured on this
// project's AMD EPYC VM with 2 MiB guest pages granted: dense 6.0 ns, spread
// 19.0 ns per load, and a knee between 2560 and 3584 pages touched, where the
// Zen 4 L2 TLB's 3072 entries run out: 4 KiB translations
// (paper/findings.md, "2 MiB guest pages translate at 4 KiB").
// translation_page_bytes is 2 MiB when spread <= kHugeRatio x dense, else
// 4 KiB; each chase's time is its fastest of 5 interleaved rounds of hops / 5
// loads (at least 2 x kPages). `base` must hold kPages * 4096 bytes; its
// contents are overwritten.
struct TranslationProbe {
  static constexpr size_t kPages = 8192;
  static constexpr double kHugeRatio = 1.5;
  double dense_ns = 0;
  double spread_ns = 0;
  uint64_t translation_page_bytes = 0;
};
TranslationProbe ProbeTranslation(char* base, uint64_t hops, uint64_t seed);

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
