// ParallelFor: run fn(item, worker) for item in [0, n) on `threads` threads,
// handing out items one at a time from an atomic counter. Which worker gets an
// item varies from run to run, so callers make each item's work depend only on
// the item (its own seed) and combine per-worker results with order-free sums:
// that is what keeps the simulator's counts independent of the thread count
// (check-spec, whose items write only their own slots, needs no more).
#pragma once

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <thread>
#include <vector>

namespace filterlab {

template <typename Fn>
void ParallelFor(uint64_t n, int threads, Fn&& fn) {
  if (threads <= 1 || n <= 1) {
    for (uint64_t i = 0; i < n; ++i) fn(i, 0);
    return;
  }
  std::atomic<uint64_t> next{0};
  auto worker = [&](int w) {
    for (uint64_t i = next.fetch_add(1, std::memory_order_relaxed); i < n;
         i = next.fetch_add(1, std::memory_order_relaxed)) {
      fn(i, w);
    }
  };
  std::vector<std::thread> pool;
  const int extra = static_cast<int>(std::min<uint64_t>(threads, n)) - 1;
  for (int w = 1; w <= extra; ++w) pool.emplace_back(worker, w);
  worker(0);
  for (auto& t : pool) t.join();
}

}  // namespace filterlab
