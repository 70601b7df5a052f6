#include "sim/floor.h"

#include <chrono>
#include <cstring>
#include <thread>
#include <vector>

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

}  // namespace

void PreparePointerChase(char* base, size_t lines, uint64_t seed) {
  // Sattolo: a uniformly random permutation that is one single cycle, so the
  // chase visits every line before repeating.
  std::vector<uint32_t> order(lines);
  for (size_t i = 0; i < lines; ++i) order[i] = static_cast<uint32_t>(i);
  SplitMix64 rng(seed);
  for (size_t i = lines - 1; i > 0; --i) {
    const size_t j = FastRange64(rng.Next(), i);
    std::swap(order[i], order[j]);
  }
  for (size_t i = 0; i < lines; ++i) {
    const uint64_t next = order[(i + 1) % lines];
    std::memcpy(base + uint64_t{order[i]} * 64, &next, 8);
  }
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

double RandomLineReadNs(const char* base, size_t lines, uint64_t reads, int distance, int threads, uint64_t seed) {
  if (threads < 1) threads = 1;
  TimedReads<false>(base, lines, reads / 8 + 1, distance, threads, seed);  // warm-up (TLB, caches)
  const double gross = TimedReads<false>(base, lines, reads, distance, threads, seed);
  const double dry = TimedReads<true>(base, lines, reads, distance, threads, seed);
  return (gross - dry) * 1e9 / (static_cast<double>(reads) * threads);
}

}  // namespace filterlab::sim
