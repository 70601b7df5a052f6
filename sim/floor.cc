#include "sim/floor.h"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <limits>
#include <thread>
#include <vector>

#include "common/stats.h"
#include "hashing/fastrange.h"
#include "hashing/remix.h"

namespace filterlab::sim {
namespace {

using Clock = std::chrono::steady_clock;

// Reads (or, when kDry, only generates) `reads` random line indices; the
// returned sum keeps the compiler from dropping the loads.
template <bool kDry>
uint64_t RandomReads(const char* base, size_t lines, uint64_t reads, int distance, uint64_t seed) {
  SplitMix64 ahead(seed), now(seed);
  uint64_t sum = 0;
  for (int i = 0; i < distance; ++i) {
    const uint64_t line = FastRange64(ahead.Next(), lines);
    if (!kDry) __builtin_prefetch(base + line * 64, 0, 0);
  }
  for (uint64_t r = 0; r < reads; ++r) {
    if (distance > 0) {
      const uint64_t pre = FastRange64(ahead.Next(), lines);
      if (!kDry) __builtin_prefetch(base + pre * 64, 0, 0);
    }
    const uint64_t line = FastRange64(now.Next(), lines);
    if (kDry) {
      sum += line;
    } else {
      uint64_t v;
      std::memcpy(&v, base + line * 64, 8);
      sum += v;
    }
  }
  return sum;
}

template <bool kDry>
double TimedReads(const char* base, size_t lines, uint64_t reads, int distance, int threads, uint64_t seed) {
  std::vector<uint64_t> sinks(static_cast<size_t>(threads) * 16);
  const auto t0 = Clock::now();
  std::vector<std::thread> pool;
  for (int t = 1; t < threads; ++t) {
    pool.emplace_back([&, t] { sinks[t * 16] = RandomReads<kDry>(base, lines, reads, distance, Mix64(seed + t)); });
  }
  sinks[0] = RandomReads<kDry>(base, lines, reads, distance, Mix64(seed));
  for (auto& th : pool) th.join();
  const double s = std::chrono::duration<double>(Clock::now() - t0).count();
  volatile uint64_t keep = 0;
  for (uint64_t v : sinks) keep = keep + v;
  return s;
}

// One part of PrefetchCostNs: seconds for `groups` groups of 16 lines.
template <bool kDry>
double PrefetchAmidWork(const char* base, size_t lines, uint64_t groups, int work, uint64_t seed, uint64_t* sink) {
  constexpr int kGroup = 16;
  SplitMix64 rng(seed);
  uint64_t a = 1, b = 2, c = 3, d = 4, addresses = 0;
  const auto t0 = Clock::now();
  for (uint64_t g = 0; g < groups; ++g) {
    for (int i = 0; i < kGroup; ++i) {
      const uint64_t line = FastRange64(rng.Next(), lines);
      if (kDry) {
        addresses += line;
      } else {
        __builtin_prefetch(base + line * 64, 0, 3);
      }
    }
    for (int u = 0; u < kGroup * work; ++u) {
      a = a * 0x9E3779B97F4A7C15ULL + u;
      b = b * 0xBF58476D1CE4E5B9ULL + u;
      c = c * 0x94D049BB133111EBULL + u;
      d = d * 0xD6E8FEB86659FD93ULL + u;
      asm volatile("" : "+r"(a), "+r"(b), "+r"(c), "+r"(d));  // keep the chains as written
    }
  }
  const double s = std::chrono::duration<double>(Clock::now() - t0).count();
  *sink += a ^ b ^ c ^ d ^ addresses;
  return s;
}

}  // namespace

namespace {

// Sattolo: a uniformly random permutation of 0..n-1 that is one single
// cycle, so a chase through it visits every element before repeating.
std::vector<uint32_t> RandomCycle(size_t n, uint64_t seed) {
  std::vector<uint32_t> order(n);
  for (size_t i = 0; i < n; ++i) order[i] = static_cast<uint32_t>(i);
  SplitMix64 rng(seed);
  for (size_t i = n - 1; i > 0; --i) {
    const size_t j = FastRange64(rng.Next(), i);
    std::swap(order[i], order[j]);
  }
  return order;
}

// Links the lines `line_of(order[0]), line_of(order[1]), ...` into one cycle
// that DependentLoadNs follows: each line's first 8 bytes hold the index of
// the next line.
template <typename LineOf>
void LinkCycle(char* base, const std::vector<uint32_t>& order, LineOf line_of) {
  for (size_t i = 0; i < order.size(); ++i) {
    const uint64_t next = line_of(order[(i + 1) % order.size()]);
    std::memcpy(base + line_of(order[i]) * 64, &next, 8);
  }
}

}  // namespace

void PreparePointerChase(char* base, size_t lines, uint64_t seed) {
  LinkCycle(base, RandomCycle(lines, seed), [](uint64_t i) { return i; });
}

TranslationProbe ProbeTranslation(char* base, uint64_t hops, uint64_t seed) {
  constexpr size_t kPages = TranslationProbe::kPages;
  // The spread chase's line in 4 KiB page i: its offset in the page varies
  // with i (37 is odd, so all 64 offsets occur), so the 8192 lines fill the
  // cache's sets evenly as the dense chase's do; at one fixed offset they
  // would crowd 1/64 of the sets and miss the cache instead of the TLB.
  // Line 0 (page 0, offset 0) is on the cycle, where DependentLoadNs starts.
  auto spread_line = [](uint64_t page) { return page * 64 + (page * 37) % 64; };
  const uint64_t warm = 2 * kPages;  // every page twice: caches and TLB settled
  // Each chase's time is its fastest of kRounds interleaved rounds: another
  // process or the hypervisor only ever adds time, so one interrupted round
  // cannot decide the verdict (a single round each, under a parallel ctest on
  // a 4 KiB-translating host, once answered 2 MiB).
  constexpr int kRounds = 5;
  const uint64_t per_round = std::max(hops / kRounds, warm);
  const std::vector<uint32_t> dense_order = RandomCycle(kPages, seed);
  const std::vector<uint32_t> spread_order = RandomCycle(kPages, seed + 1);
  TranslationProbe p;
  p.dense_ns = p.spread_ns = std::numeric_limits<double>::infinity();
  for (int round = 0; round < kRounds; ++round) {
    LinkCycle(base, dense_order, [](uint64_t i) { return i; });
    DependentLoadNs(base, warm);
    p.dense_ns = std::min(p.dense_ns, DependentLoadNs(base, per_round));
    LinkCycle(base, spread_order, spread_line);
    DependentLoadNs(base, warm);
    p.spread_ns = std::min(p.spread_ns, DependentLoadNs(base, per_round));
  }
  p.translation_page_bytes = p.spread_ns <= TranslationProbe::kHugeRatio * p.dense_ns ? 2097152 : 4096;
  return p;
}

double DependentLoadNs(const char* base, uint64_t hops) {
  uint64_t line = 0;
  const auto t0 = Clock::now();
  for (uint64_t i = 0; i < hops; ++i) std::memcpy(&line, base + line * 64, 8);
  const double s = std::chrono::duration<double>(Clock::now() - t0).count();
  volatile uint64_t keep = line;
  (void)keep;
  return s * 1e9 / static_cast<double>(hops);
}

double PrefetchCostNs(const char* base, size_t lines, uint64_t prefetches, int work, uint64_t seed, double* work_ns) {
  constexpr int kParts = 5;
  const uint64_t groups = std::max<uint64_t>(1, prefetches / 16 / kParts);
  const double per_part = static_cast<double>(groups * 16);
  uint64_t sink = 0;
  PrefetchAmidWork<false>(base, lines, groups / 8 + 1, work, seed, &sink);  // warm-up
  std::vector<double> costs, works;
  for (int p = 0; p < kParts; ++p) {
    const double gross = PrefetchAmidWork<false>(base, lines, groups, work, seed + p, &sink);
    const double dry = PrefetchAmidWork<true>(base, lines, groups, work, seed + p, &sink);
    costs.push_back((gross - dry) * 1e9 / per_part);
    works.push_back(dry * 1e9 / per_part);
  }
  volatile uint64_t keep = sink;
  (void)keep;
  *work_ns = Median(works);
  return Median(costs);
}

double RandomLineReadNs(const char* base, size_t lines, uint64_t reads, int distance, int threads, uint64_t seed) {
  if (threads < 1) threads = 1;
  TimedReads<false>(base, lines, reads / 8 + 1, distance, threads, seed);  // warm-up (TLB, caches)
  const double gross = TimedReads<false>(base, lines, reads, distance, threads, seed);
  const double dry = TimedReads<true>(base, lines, reads, distance, threads, seed);
  return (gross - dry) * 1e9 / (static_cast<double>(reads) * threads);
}

}  // namespace filterlab::sim
