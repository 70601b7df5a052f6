// Micro-benchmarks of the split-block Bloom filter ("sbbf") in the shape of
// the RocksDB-format filters' (filter_bench_util.h: one 10,000-key filter,
// build ns/key, single and batch-16 queries inside and outside), so
// `--benchmark_filter='sbbf|fastlocal:bpk=10$'` gives sbbf beside
// FastLocalBloom in one run; and the two block kernels, AVX2 and scalar, side
// by side (block lookup included). Hashes are precomputed throughout.
#include <benchmark/benchmark.h>

#include <string>
#include <vector>

#include "common/aligned_array.h"
#include "filters/filter_bench_util.h"
#include "filters/split_block_bloom.h"
#include "hashing/remix.h"

namespace filterlab {
namespace {

using bench_util::BenchHashes;
using bench_util::kKeys;

// ceil(10000 * 10 / 256) blocks, as sbbf:bpk=10 sizes them.
constexpr uint32_t kBlocks = (kKeys * 10 + 255) / 256;

template <bool (*kKernel)(const uint32_t*, uint32_t)>
void BM_SbbfKernel(benchmark::State& state, bool inside) {
  const auto added = BenchHashes(1, kKeys);
  CacheAlignedArray<uint32_t> blocks(size_t{kBlocks} * sbbf::kBlockWords);
  for (uint64_t h : added) sbbf::BlockAddScalar(blocks.data() + size_t{sbbf::BlockIndex(h, kBlocks)} * 8, Lower32(h));
  bench_util::QueryLoop(state, inside, [&](uint64_t h) {
    return kKernel(blocks.data() + size_t{sbbf::BlockIndex(h, kBlocks)} * 8, Lower32(h));
  });
}

int RegisterSbbfBenchmarks() {
  bench_util::RegisterFilterBenchmarks("sbbf", "sbbf:bpk=10");
  for (bool inside : {true, false}) {
    const std::string where = inside ? "inside" : "outside";
    benchmark::RegisterBenchmark(("sbbf/kernel/scalar/" + where).c_str(), BM_SbbfKernel<sbbf::BlockMayMatchScalar>,
                                 inside);
#ifdef FILTERLAB_SBBF_AVX2
    benchmark::RegisterBenchmark(("sbbf/kernel/avx2/" + where).c_str(), BM_SbbfKernel<sbbf::BlockMayMatchAvx2>, inside);
#endif
  }
  return 0;
}

[[maybe_unused]] const int kSbbfRegistered = RegisterSbbfBenchmarks();

}  // namespace
}  // namespace filterlab
