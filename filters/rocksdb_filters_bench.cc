// Micro-benchmarks of the RocksDB-format filters (fastlocal, legacy,
// legacy_block) on one 10,000-key filter at 10 bits/key, in the manner of
// filter_bench's "Single filter" mode: build ns/key, and may-contain ns/op
// for added ("inside") and fresh ("outside") hashes, one at a time and in
// batches of 16. The filter fits in L2, so these are compute costs, not
// cache-miss costs. For FastLocalBloom also the two query kernels, AVX2 and
// scalar, side by side at 6 and 16 probes (one and two AVX2 rounds).
// Hashes are precomputed, so hashing is excluded throughout.
#include <benchmark/benchmark.h>

#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "filters/fast_local_bloom.h"
#include "filters/filter.h"
#include "hashing/remix.h"

namespace filterlab {
namespace {

constexpr size_t kKeys = 10000;
constexpr size_t kQueries = 1 << 16;  // a power of two: the loops wrap with a mask
constexpr size_t kBatch = 16;

std::vector<uint64_t> BenchHashes(uint64_t seed, size_t n) {
  SplitMix64 gen(seed);
  std::vector<uint64_t> v(n);
  for (auto& h : v) h = gen.Next();
  return v;
}

std::unique_ptr<FilterPolicy> MustPolicy(const std::string& spec) {
  std::unique_ptr<FilterPolicy> p;
  Status s = NewFilterPolicy(spec, &p);
  if (!s.ok()) std::abort();
  return p;
}

// Reports the CPU time per `units` (keys or queries) of one iteration as
// "per_<what>", printed with its unit (e.g. "per_key=9.7ns").
void SetTimePer(benchmark::State& state, const char* what, double units) {
  state.counters[std::string("per_") + what] =
      benchmark::Counter(units, benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
}

void BM_Build(benchmark::State& state, const std::string& spec) {
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
std::vector<uint64_t> QueryHashes(bool inside) {
  if (!inside) return BenchHashes(2, kQueries);
  const auto added = BenchHashes(1, kKeys);
  std::vector<uint64_t> q(kQueries);
  for (size_t i = 0; i < kQueries; ++i) q[i] = added[(i * 7919) % kKeys];
  return q;
}

void BM_MayContain(benchmark::State& state, const std::string& spec, bool inside) {
  auto policy = MustPolicy(spec);
  const auto added = BenchHashes(1, kKeys);
  std::unique_ptr<Filter> f;
  if (!policy->Build(added.data(), added.size(), &f).ok()) std::abort();
  const auto queries = QueryHashes(inside);
  size_t i = 0, positives = 0;
  for (auto _ : state) {
    positives += f->MayContain(queries[i]);
    i = (i + 1) & (kQueries - 1);
  }
  benchmark::DoNotOptimize(positives);
  SetTimePer(state, "op", 1);
}

void BM_MayContainBatch(benchmark::State& state, const std::string& spec, bool inside) {
  auto policy = MustPolicy(spec);
  const auto added = BenchHashes(1, kKeys);
  std::unique_ptr<Filter> f;
  if (!policy->Build(added.data(), added.size(), &f).ok()) std::abort();
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

// The FastLocalBloom query kernels on a built filter's lines (line lookup included).
template <bool (*kKernel)(uint32_t, int, const uint8_t*)>
void BM_FastLocalKernel(benchmark::State& state, int probes, bool inside) {
  const auto added = BenchHashes(1, kKeys);
  const uint32_t len = fastlocal::DataBytesForKeys(kKeys, 10000);
  std::vector<uint8_t> data(len);
  fastlocal::AddAll(added.data(), added.size(), HashWidth::k64, len, probes, data.data());
  const auto queries = QueryHashes(inside);
  size_t i = 0, positives = 0;
  for (auto _ : state) {
    const auto s = fastlocal::Split(queries[i], HashWidth::k64);
    positives += kKernel(s.probe_hash, probes, data.data() + fastlocal::LineOffset(s.line_hash, len));
    i = (i + 1) & (kQueries - 1);
  }
  benchmark::DoNotOptimize(positives);
  SetTimePer(state, "op", 1);
}

int RegisterAll() {
  for (const char* spec : {"fastlocal:bpk=10", "fastlocal:bpk=10,hash=32", "legacy:bpk=10", "legacy_block:bpk=10"}) {
    const std::string s = spec;
    benchmark::RegisterBenchmark(("rocksdb/build/" + s).c_str(), BM_Build, s);
    for (bool inside : {true, false}) {
      const std::string where = inside ? "inside/" : "outside/";
      benchmark::RegisterBenchmark(("rocksdb/single/" + where + s).c_str(), BM_MayContain, s, inside);
      benchmark::RegisterBenchmark(("rocksdb/batch16/" + where + s).c_str(), BM_MayContainBatch, s, inside);
    }
  }
  for (int probes : {6, 16}) {
    for (bool inside : {true, false}) {
      const std::string suffix = std::string(inside ? "inside" : "outside") + "/probes=" + std::to_string(probes);
      benchmark::RegisterBenchmark(("rocksdb/fastlocal_kernel/scalar/" + suffix).c_str(),
                                   BM_FastLocalKernel<fastlocal::MayMatchLineScalar>, probes, inside);
#ifdef FILTERLAB_FASTLOCAL_AVX2
      benchmark::RegisterBenchmark(("rocksdb/fastlocal_kernel/avx2/" + suffix).c_str(),
                                   BM_FastLocalKernel<fastlocal::MayMatchLineAvx2>, probes, inside);
#endif
    }
  }
  return 0;
}

const int registered = RegisterAll();

}  // namespace
}  // namespace filterlab
