// The shape shared by the filter micro-benchmarks (Google Benchmark), in
// the manner of RocksDB filter_bench's "Single filter" mode: one 10,000-key
// filter built from precomputed splitmix64 hashes, build ns/key, and
// may-contain ns/op for added ("inside") and fresh ("outside") hashes, one at
// a time and in batches of 16. The filter fits in L2, so these are compute
// costs, not cache-miss costs. Used by rocksdb_filters_bench.cc,
// split_block_bloom_bench.cc and ribbon/ribbon_bench.cc
// (RegisterFilterBenchmarks), so their figures compare within one run; its
// helpers (BenchHashes, MustPolicy) serve every benchmark file.
#pragma once

#include <benchmark/benchmark.h>

#include <cstdint>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "filters/filter.h"
#include "hashing/remix.h"

namespace filterlab::bench_util {

inline constexpr size_t kKeys = 10000;
inline constexpr size_t kQueries = 1 << 16;  // a power of two: the loops wrap with a mask
inline constexpr size_t kBatch = 16;

inline std::vector<uint64_t> BenchHashes(uint64_t seed, size_t n) {
  SplitMix64 gen(seed);
  std::vector<uint64_t> v(n);
  for (auto& h : v) h = gen.Next();
  return v;
}

inline std::unique_ptr<FilterPolicy> MustPolicy(const std::string& spec) {
  std::unique_ptr<FilterPolicy> p;
  Status s = NewFilterPolicy(spec, &p);
  if (!s.ok()) std::abort();
  return p;
}

// Reports the CPU time per `units` (keys or queries) of one iteration as
// "per_<what>", printed with its unit (e.g. "per_key=9.7ns").
inline void SetTimePer(benchmark::State& state, const char* what, double units) {
  state.counters[std::string("per_") + what] =
      benchmark::Counter(units, benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
}

inline void BM_Build(benchmark::State& state, const std::string& spec) {
  auto policy = MustPolicy(spec);
  const auto hashes = BenchHashes(1, kKeys);
  for (auto _ : state) {
    std::unique_ptr<Filter> f;
    Status s = policy->Build(hashes.data(), hashes.size(), &f);
    benchmark::DoNotOptimize(f.get());
    if (!s.ok()) state.SkipWithError(s.ToString().c_str());
  }
  SetTimePer(state, "key", kKeys);
}

// Queries cycling through kQueries hashes: the added ones (inside) or fresh ones (outside).
inline std::vector<uint64_t> QueryHashes(bool inside) {
  if (!inside) return BenchHashes(2, kQueries);
  const auto added = BenchHashes(1, kKeys);
  std::vector<uint64_t> q(kQueries);
  for (size_t i = 0; i < kQueries; ++i) q[i] = added[(i * 7919) % kKeys];
  return q;
}

// One query per iteration, cycling through QueryHashes(inside):
// `may_match(hash)` is a filter's MayContain or a kernel on its bytes.
template <typename MayMatch>
void QueryLoop(benchmark::State& state, bool inside, const MayMatch& may_match) {
  const auto queries = QueryHashes(inside);
  size_t i = 0, positives = 0;
  for (auto _ : state) {
    positives += may_match(queries[i]);
    i = (i + 1) & (kQueries - 1);
  }
  benchmark::DoNotOptimize(positives);
  SetTimePer(state, "op", 1);
}

// `spec`'s filter over the kKeys added hashes.
inline std::unique_ptr<Filter> BuiltFilter(const std::string& spec) {
  auto policy = MustPolicy(spec);
  const auto added = BenchHashes(1, kKeys);
  std::unique_ptr<Filter> f;
  if (!policy->Build(added.data(), added.size(), &f).ok()) std::abort();
  return f;
}

inline void BM_MayContain(benchmark::State& state, const std::string& spec, bool inside) {
  const std::unique_ptr<Filter> f = BuiltFilter(spec);
  QueryLoop(state, inside, [&](uint64_t h) { return f->MayContain(h); });
}

inline void BM_MayContainBatch(benchmark::State& state, const std::string& spec, bool inside) {
  const std::unique_ptr<Filter> f = BuiltFilter(spec);
  const auto queries = QueryHashes(inside);
  bool results[kBatch];
  size_t i = 0, positives = 0;
  for (auto _ : state) {
    f->MayContainBatch(queries.data() + i, kBatch, results);
    for (bool r : results) positives += r;
    i = (i + kBatch) & (kQueries - 1);
  }
  benchmark::DoNotOptimize(positives);
  SetTimePer(state, "op", kBatch);
}

// The benchmarks every filter gets, under the names experiment configs and
// --benchmark_filter select: "<group>/build/<spec>", then per inside and
// outside "<group>/single/<where>/<spec>" and "<group>/batch16/<where>/<spec>".
inline void RegisterFilterBenchmarks(const std::string& group, const std::string& spec) {
  benchmark::RegisterBenchmark((group + "/build/" + spec).c_str(), BM_Build, spec);
  for (bool inside : {true, false}) {
    const std::string where = inside ? "inside" : "outside";
    benchmark::RegisterBenchmark((group + "/single/" + where + "/" + spec).c_str(), BM_MayContain, spec, inside);
    benchmark::RegisterBenchmark((group + "/batch16/" + where + "/" + spec).c_str(), BM_MayContainBatch, spec, inside);
  }
}

}  // namespace filterlab::bench_util
