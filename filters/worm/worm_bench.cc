// Micro-benchmarks of the wormhashing sub-variants in the filter_bench sense
// (RocksDB's util/filter_bench.cc), on one hot 10k-key filter at 10 bits/key with the
// variant's default probes (6 for the line and block variants, 7 for the
// non-local ones, 8 for cache_simd_k8):
//   WormBuild/NAME                       build from precomputed hashes, ns/key
//   WormQuery/NAME/{inside,outside}/{single,batch16}
//                                        ns per query: MayContain one at a time,
//                                        or MayContainBatch on batches of 16
// Hashes are synthetic (SplitMix64), so hashing keys is not included. The
// filter (12.5 KB) stays in L1/L2: this measures probe arithmetic, not memory.
// On a shared, noisy machine run with --benchmark_repetitions=5
// --benchmark_report_aggregates_only=true and read the medians.
#include <benchmark/benchmark.h>

#include <memory>
#include <string>
#include <vector>

#include "filters/filter.h"
#include "filters/worm/worm_scheme.h"
#include "hashing/remix.h"

namespace filterlab::worm {
namespace {

constexpr size_t kKeys = 10000;
constexpr size_t kQueries = 4096;  // a power of two: the loops wrap with a mask
constexpr size_t kBatch = 16;

std::vector<uint64_t> Hashes(uint64_t seed, size_t n) {
  SplitMix64 rng(seed);
  std::vector<uint64_t> out(n);
  for (auto& h : out) h = rng.Next();
  return out;
}

std::unique_ptr<FilterPolicy> Policy(const std::string& name) {
  std::unique_ptr<FilterPolicy> p;
  Status s = NewFilterPolicy(name + ":bpk=10", &p);
  if (!s.ok()) p.reset();
  return p;
}

void BM_WormBuild(benchmark::State& state, std::string name) {
  auto policy = Policy(name);
  if (!policy) return state.SkipWithError(("no policy for " + name).c_str());
  const std::vector<uint64_t> keys = Hashes(1, kKeys);
  for (auto _ : state) {
    std::unique_ptr<Filter> f;
    Status s = policy->Build(keys.data(), keys.size(), &f);
    benchmark::DoNotOptimize(f.get());
    if (!s.ok()) return state.SkipWithError(s.ToString().c_str());
  }
  state.counters["ns/key"] = benchmark::Counter(static_cast<double>(state.iterations() * kKeys),
                                                benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
  state.SetLabel(policy->spec());
}

void BM_WormQuery(benchmark::State& state, std::string name, bool inside, bool batched) {
  auto policy = Policy(name);
  if (!policy) return state.SkipWithError(("no policy for " + name).c_str());
  const std::vector<uint64_t> keys = Hashes(1, kKeys);
  std::unique_ptr<Filter> f;
  Status s = policy->Build(keys.data(), keys.size(), &f);
  if (!s.ok()) return state.SkipWithError(s.ToString().c_str());
  const std::vector<uint64_t> queries =
      inside ? std::vector<uint64_t>(keys.begin(), keys.begin() + kQueries) : Hashes(2, kQueries);
  size_t i = 0;
  uint64_t positives = 0;
  bool results[kBatch];
  if (batched) {
    for (auto _ : state) {
      f->MayContainBatch(queries.data() + i, kBatch, results);
      for (bool r : results) positives += r;
      i = (i + kBatch) & (kQueries - 1);
    }
  } else {
    for (auto _ : state) {
      for (size_t j = 0; j < kBatch; ++j) positives += f->MayContain(queries[i + j]);
      i = (i + kBatch) & (kQueries - 1);
    }
  }
  benchmark::DoNotOptimize(positives);
  state.counters["ns/op"] = benchmark::Counter(static_cast<double>(state.iterations() * kBatch),
                                               benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
  state.SetLabel(policy->spec());
}

const bool kRegistered = [] {
  for (const WormSubVariant* v : AllWormSubVariants()) {
    const std::string name = v->name;
    benchmark::RegisterBenchmark(("WormBuild/" + name).c_str(), BM_WormBuild, name);
    for (bool inside : {true, false}) {
      for (bool batched : {false, true}) {
        const std::string label =
            "WormQuery/" + name + (inside ? "/inside" : "/outside") + (batched ? "/batch16" : "/single");
        benchmark::RegisterBenchmark(label.c_str(), BM_WormQuery, name, inside, batched);
      }
    }
  }
  return true;
}();

}  // namespace
}  // namespace filterlab::worm
