// Micro-benchmarks of the dynamic (memtable) and standard Bloom filters at
// 10 bits/key on 10k-key filters (12.5 KB: the data stays in L1/L2, so these
// are compute costs, not cache misses), in the manner of RocksDB's
// dynamic_bloom_test timings (add, concurrent add, hit, miss) and
// filter_bench (build, query, batched query). Queries go through the Filter
// interface (a virtual call), as the simulator and the engine make them.
//
//   build-*/filterlab_bench --benchmark_filter=BM_Dyn
//       --benchmark_repetitions=9 --benchmark_report_aggregates_only=true
#include <benchmark/benchmark.h>

#include <barrier>
#include <cstdlib>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "filters/filter.h"
#include "filters/filter_bench_util.h"

namespace filterlab {
namespace {

using bench_util::BenchHashes;
using bench_util::kKeys;
using bench_util::MustPolicy;

// One iteration fills a fresh 10k-key filter with Add (single writer). The
// fresh filter's allocation and zeroing (12.5 KB, well under 1% of the time)
// is included, as it is in a memtable's life.
void BM_DynamicAdd(benchmark::State& state) {
  auto policy = MustPolicy("dynamic:bpk=10");
  const auto hashes = BenchHashes(1, kKeys);
  for (auto _ : state) {
    std::unique_ptr<Filter> f;
    if (!policy->NewDynamic(kKeys, &f).ok()) std::abort();
    for (uint64_t h : hashes) f->Add(h);
    benchmark::DoNotOptimize(f.get());
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * kKeys));
}
BENCHMARK(BM_DynamicAdd);

// AddConcurrently from state.threads() writers into one shared 10k-key
// filter: each iteration every thread adds its share of 10k distinct hashes
// into the current filter, then all meet at a barrier whose completion
// installs a fresh filter (so the adds really set bits rather than finding
// them set). With 2 threads both write the same 200 cache lines, so lines
// move between cores, the cost a memtable with concurrent writes pays.
// items_per_second is the writers' combined throughput.
struct SharedFill {
  std::unique_ptr<FilterPolicy> policy = MustPolicy("dynamic:bpk=10");
  std::unique_ptr<Filter> filter;
  std::unique_ptr<std::barrier<std::function<void()>>> round_done;
};
SharedFill* shared_fill = nullptr;

void BM_DynamicAddConcurrently(benchmark::State& state) {
  const size_t threads = static_cast<size_t>(state.threads());
  const size_t share = kKeys / threads;
  if (state.thread_index() == 0) {
    shared_fill = new SharedFill;
    if (!shared_fill->policy->NewDynamic(kKeys, &shared_fill->filter).ok()) std::abort();
    shared_fill->round_done = std::make_unique<std::barrier<std::function<void()>>>(
        static_cast<ptrdiff_t>(threads), std::function<void()>([] {
          if (!shared_fill->policy->NewDynamic(kKeys, &shared_fill->filter).ok()) std::abort();
        }));
  }
  const auto hashes = BenchHashes(1, kKeys);
  const size_t begin = static_cast<size_t>(state.thread_index()) * share;
  for (auto _ : state) {  // the loop's start barrier orders thread 0's setup before every thread's use
    Filter* f = shared_fill->filter.get();
    for (size_t i = begin; i < begin + share; ++i) f->AddConcurrently(hashes[i]);
    shared_fill->round_done->arrive_and_wait();
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * share));
  if (state.thread_index() == 0) {
    delete shared_fill;  // the loop's end barrier: every thread is done with it
    shared_fill = nullptr;
  }
}
BENCHMARK(BM_DynamicAddConcurrently)->Threads(1)->Threads(2)->UseRealTime();

// Builds a filter of 10k hashes per iteration (static variants' only path).
void BM_DynStdBuild(benchmark::State& state, const char* spec) {
  auto policy = MustPolicy(spec);
  const auto hashes = BenchHashes(1, kKeys);
  for (auto _ : state) {
    std::unique_ptr<Filter> f;
    if (!policy->Build(hashes.data(), hashes.size(), &f).ok()) std::abort();
    benchmark::DoNotOptimize(f.get());
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * kKeys));
}
BENCHMARK_CAPTURE(BM_DynStdBuild, dynamic, "dynamic:bpk=10");
BENCHMARK_CAPTURE(BM_DynStdBuild, standard, "standard:bpk=10");

// One MayContain per iteration, cycling through 10k hashes that are all in
// the filter (hit) or, bar ~1% false positives, all absent (miss). Misses
// usually stop at the first word or bit; hits test every probe.
void BM_DynStdQuery(benchmark::State& state, const char* spec, bool hits) {
  auto policy = MustPolicy(spec);
  const auto added = BenchHashes(1, kKeys);
  std::unique_ptr<Filter> f;
  if (!policy->Build(added.data(), added.size(), &f).ok()) std::abort();
  const auto queries = hits ? added : BenchHashes(2, kKeys);
  size_t i = 0, positives = 0;
  for (auto _ : state) {
    const bool may = f->MayContain(queries[i]);
    benchmark::DoNotOptimize(may);
    positives += may;
    if (++i == queries.size()) i = 0;
  }
  state.counters["positive_rate"] = static_cast<double>(positives) / static_cast<double>(state.iterations());
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations()));
}
BENCHMARK_CAPTURE(BM_DynStdQuery, dynamic_hit, "dynamic:bpk=10", true);
BENCHMARK_CAPTURE(BM_DynStdQuery, dynamic_miss, "dynamic:bpk=10", false);
BENCHMARK_CAPTURE(BM_DynStdQuery, standard_hit, "standard:bpk=10", true);
BENCHMARK_CAPTURE(BM_DynStdQuery, standard_miss, "standard:bpk=10", false);

// MayContainBatch over 10k queries per iteration, half hits and half misses
// interleaved (so the per-key exit branch is unpredictable).
void BM_DynStdQueryBatch(benchmark::State& state, const char* spec) {
  auto policy = MustPolicy(spec);
  const auto added = BenchHashes(1, kKeys);
  std::unique_ptr<Filter> f;
  if (!policy->Build(added.data(), added.size(), &f).ok()) std::abort();
  const auto absent = BenchHashes(2, kKeys);
  std::vector<uint64_t> queries(kKeys);
  for (size_t i = 0; i < kKeys; ++i) queries[i] = i % 2 ? added[i] : absent[i];
  std::unique_ptr<bool[]> results(new bool[kKeys]);
  for (auto _ : state) {
    f->MayContainBatch(queries.data(), queries.size(), results.get());
    benchmark::DoNotOptimize(results.get());
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * kKeys));
}
BENCHMARK_CAPTURE(BM_DynStdQueryBatch, dynamic_mixed, "dynamic:bpk=10");
BENCHMARK_CAPTURE(BM_DynStdQueryBatch, standard_mixed, "standard:bpk=10");

}  // namespace
}  // namespace filterlab
