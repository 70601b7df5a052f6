// Micro-benchmarks of Standard128Ribbon in the shape of the other filters'
// (filter_bench_util.h: one 10,000-key filter from precomputed hashes, build
// ns/key, single and batch-16 queries inside and outside), so
// `--benchmark_filter='ribbon|fastlocal:bpk=10$'` gives Ribbon beside
// FastLocalBloom in one run; and the two phases of construction apart:
// banding with its seed search (ribbon_banding.h) and back-substitution into
// the interleaved layout (ribbon_solution.h), per key.
#include <benchmark/benchmark.h>

#include <string>
#include <vector>

#include "common/aligned_array.h"
#include "filters/filter_bench_util.h"
#include "filters/ribbon/ribbon_banding.h"
#include "filters/ribbon/ribbon_sizing.h"
#include "filters/ribbon/ribbon_solution.h"

namespace filterlab {
namespace {

using bench_util::BenchHashes;
using bench_util::kKeys;
using bench_util::SetTimePer;

// The slots and solution bytes ribbon:bpk=10 gives kKeys keys (~1% FP).
constexpr double kOneInFp = 105.0;
uint32_t Slots() { return ribbon::NumSlotsForKeys(static_cast<uint32_t>(kKeys)); }
ribbon::InterleavedLayout Layout() {
  return ribbon::InterleavedLayout::For(Slots() / ribbon::kCoeffBits,
                                        ribbon::SolutionBytesForOneInFpRate(Slots(), kOneInFp, 0));
}

void BM_Banding(benchmark::State& state) {
  const auto hashes = BenchHashes(1, kKeys);
  for (auto _ : state) {
    ribbon::Banding banding;
    if (!banding.FindSeedAndBand(Slots(), hashes.data(), hashes.size(), 0)) state.SkipWithError("no seed bands");
    benchmark::DoNotOptimize(banding.ordinal_seed());
  }
  SetTimePer(state, "key", kKeys);
}

void BM_BackSubstitute(benchmark::State& state) {
  const auto hashes = BenchHashes(1, kKeys);
  ribbon::Banding banding;
  if (!banding.FindSeedAndBand(Slots(), hashes.data(), hashes.size(), 0)) state.SkipWithError("no seed bands");
  const ribbon::InterleavedLayout layout = Layout();
  CacheAlignedArray<uint8_t> data(layout.data_bytes());
  for (auto _ : state) {
    ribbon::BackSubstitute(banding, layout, data.data());
    benchmark::DoNotOptimize(data.data());
    benchmark::ClobberMemory();
  }
  SetTimePer(state, "key", kKeys);
}

int RegisterRibbonBenchmarks() {
  bench_util::RegisterFilterBenchmarks("ribbon", "ribbon:bpk=10");
  benchmark::RegisterBenchmark("ribbon/banding", BM_Banding);
  benchmark::RegisterBenchmark("ribbon/back_substitute", BM_BackSubstitute);
  return 0;
}
[[maybe_unused]] const int kRibbonRegistered = RegisterRibbonBenchmarks();

}  // namespace
}  // namespace filterlab
