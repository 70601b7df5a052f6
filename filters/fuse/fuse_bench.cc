// Micro-benchmarks of XOR and binary fuse filters in the manner of
// fastfilter_cpp's benchmark (precomputed hashes, one large filter):
//   FuseBuild/SPEC/KEYS          construction from hashes, ns/key
//   FuseQuery/SPEC/KEYS/batch    ns per query over fresh (outside) hashes,
//                                MayContainBatch on batches of 64
//   FuseQuery/SPEC/KEYS/single   the same one MayContain at a time
// at 10^6 and 10^7 keys (1.1 MB and 11 MB at 8 bits: in and beyond L2/L3).
// Hashes are synthetic (SplitMix64), so hashing keys is not included. On a
// shared, noisy machine run with --benchmark_repetitions=5
// --benchmark_report_aggregates_only=true and read the medians.
#include <benchmark/benchmark.h>

#include <memory>
#include <string>
#include <vector>

#include "filters/filter.h"
#include "filters/filter_bench_util.h"

namespace filterlab {
namespace {

using bench_util::BenchHashes;
using bench_util::MustPolicy;

constexpr size_t kFuseQueries = size_t{1} << 20;  // a power of two: the loops wrap with a mask
constexpr size_t kFuseBatch = 64;

const char* const kSpecs[] = {"xor:fingerprint=8",
                              "xor:fingerprint=16",
                              "binary_fuse:arity=3,fingerprint=8",
                              "binary_fuse:arity=4,fingerprint=8",
                              "binary_fuse:arity=3,fingerprint=16",
                              "binary_fuse:arity=4,fingerprint=16"};

void BM_FuseBuild(benchmark::State& state, std::string spec) {
  auto policy = MustPolicy(spec);
  const auto keys_count = static_cast<size_t>(state.range(0));
  const std::vector<uint64_t> keys = BenchHashes(1, keys_count);
  for (auto _ : state) {
    std::unique_ptr<Filter> f;
    Status s = policy->Build(keys.data(), keys.size(), &f);
    benchmark::DoNotOptimize(f.get());
    if (!s.ok()) return state.SkipWithError(s.ToString().c_str());
  }
  state.counters["ns/key"] = benchmark::Counter(static_cast<double>(state.iterations() * keys_count),
                                                benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
  state.SetLabel(policy->spec());
}

void BM_FuseQuery(benchmark::State& state, std::string spec, bool batched) {
  auto policy = MustPolicy(spec);
  const std::vector<uint64_t> keys = BenchHashes(1, static_cast<size_t>(state.range(0)));
  std::unique_ptr<Filter> f;
  Status s = policy->Build(keys.data(), keys.size(), &f);
  if (!s.ok()) return state.SkipWithError(s.ToString().c_str());
  const std::vector<uint64_t> queries = BenchHashes(2, kFuseQueries);
  bool results[kFuseBatch];
  size_t i = 0, positives = 0;
  for (auto _ : state) {
    if (batched) {
      f->MayContainBatch(queries.data() + i, kFuseBatch, results);
      for (bool r : results) positives += r;
      i = (i + kFuseBatch) & (kFuseQueries - 1);
    } else {
      positives += f->MayContain(queries[i]);
      i = (i + 1) & (kFuseQueries - 1);
    }
  }
  benchmark::DoNotOptimize(positives);
  state.counters["ns/query"] = benchmark::Counter(static_cast<double>(state.iterations() * (batched ? kFuseBatch : 1)),
                                                  benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
  state.counters["bits/key"] = 8.0 * static_cast<double>(f->DataBytes()) / static_cast<double>(keys.size());
  state.SetLabel(policy->spec());
}

[[maybe_unused]] const bool kFuseRegistered = [] {
  for (const char* spec : kSpecs) {
    benchmark::RegisterBenchmark(("FuseBuild/" + std::string(spec)).c_str(), BM_FuseBuild, spec)
        ->Arg(1'000'000)
        ->Arg(10'000'000)
        ->Unit(benchmark::kMillisecond);
    for (bool batched : {true, false}) {
      benchmark::RegisterBenchmark(("FuseQuery/" + std::string(spec) + (batched ? "/batch" : "/single")).c_str(),
                                   BM_FuseQuery, spec, batched)
          ->Arg(1'000'000)
          ->Arg(10'000'000);
    }
  }
  return true;
}();

}  // namespace
}  // namespace filterlab
