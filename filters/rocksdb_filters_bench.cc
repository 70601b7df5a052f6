// Micro-benchmarks of the RocksDB-format filters (fastlocal, legacy,
// legacy_block) on one 10,000-key filter at 10 bits/key, in the manner of
// filter_bench's "Single filter" mode (filter_bench_util.h). For
// FastLocalBloom also the two query kernels, AVX2 and scalar, side by side
// at 6 and 16 probes (one and two AVX2 rounds).
// Hashes are precomputed, so hashing is excluded throughout.
#include <benchmark/benchmark.h>

#include <string>
#include <vector>

#include "filters/fast_local_bloom.h"
#include "filters/filter.h"
#include "filters/filter_bench_util.h"

namespace filterlab {
namespace {

using bench_util::BenchHashes;
using bench_util::kKeys;

// The FastLocalBloom query kernels on a built filter's lines (line lookup included).
template <bool (*kKernel)(uint32_t, int, const uint8_t*)>
void BM_FastLocalKernel(benchmark::State& state, int probes, bool inside) {
  const auto added = BenchHashes(1, kKeys);
  const uint32_t len = fastlocal::DataBytesForKeys(kKeys, 10000);
  std::vector<uint8_t> data(len);
  fastlocal::AddAll(added.data(), added.size(), HashWidth::k64, len, probes, data.data());
  bench_util::QueryLoop(state, inside, [&](uint64_t h) {
    const auto s = fastlocal::Split(h, HashWidth::k64);
    return kKernel(s.probe_hash, probes, data.data() + fastlocal::LineOffset(s.line_hash, len));
  });
}

int RegisterRocksDbFilterBenchmarks() {
  for (const char* spec : {"fastlocal:bpk=10", "fastlocal:bpk=10,hash=32", "legacy:bpk=10", "legacy_block:bpk=10"}) {
    bench_util::RegisterFilterBenchmarks("rocksdb", spec);
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

[[maybe_unused]] const int kRocksDbFiltersRegistered = RegisterRocksDbFilterBenchmarks();

}  // namespace
}  // namespace filterlab
