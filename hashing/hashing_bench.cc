// Key-hashing cost: XXPH3_64 (ours, RocksDB's filter hash), XXH3_64 (the
// library's final XXH3) and BloomHash32 (the legacy 32-bit hash), ns per key
// at key sizes 8..256 bytes. Keys are distinct and cycle through a 64 KiB
// buffer (L2-resident), at varying alignment as in filter_bench, and each
// hash is independent of the previous one, so this is throughput, not
// latency. LegacyHash32Batch/<kernel>: the batch form's kernels (scalar,
// AVX2, AVX-512; those the build lacks are skipped) over filter_bench's
// keys, 24..28 bytes of mixed lengths, 1024 keys a call.
#include <benchmark/benchmark.h>

#include <cstdint>
#include <vector>

#include "hashing/legacy_hash.h"
#include "hashing/remix.h"
#include "hashing/xxh3.h"

namespace filterlab {
namespace {

constexpr size_t kBufferBytes = 64 * 1024;

std::vector<char> RandomBytes(size_t n) {
  std::vector<char> bytes(n);
  SplitMix64 gen(0x5eed);
  gen.FillBytes(bytes.data(), n);
  return bytes;
}

template <uint64_t (*Hash)(const char*, size_t)>
void BM_HashKey(benchmark::State& state) {
  const size_t key_size = static_cast<size_t>(state.range(0));
  const std::vector<char> buffer = RandomBytes(kBufferBytes + key_size);
  // Start offsets step by key_size + 3, so successive keys differ and start
  // at every alignment.
  const size_t stride = key_size + 3;
  size_t offset = 0;
  uint64_t sink = 0;
  for (auto _ : state) {
    sink += Hash(buffer.data() + offset, key_size);
    offset += stride;
    if (offset >= kBufferBytes) offset -= kBufferBytes;
  }
  benchmark::DoNotOptimize(sink);
  state.SetItemsProcessed(state.iterations());
  state.SetBytesProcessed(state.iterations() * static_cast<int64_t>(key_size));
}

uint64_t Xxph3(const char* data, size_t n) { return XXPH3_64(data, n); }
uint64_t Xxh3(const char* data, size_t n) { return XXH3_64(data, n); }
uint64_t Bloom32(const char* data, size_t n) { return BloomHash32(data, n); }

void KeySizes(benchmark::internal::Benchmark* b) {
  for (int size : {8, 16, 24, 64, 256}) b->Arg(size);
}

template <LegacyHashKernel kKernel>
void BM_LegacyHashBatch(benchmark::State& state) {
  if (!LegacyHashKernelAvailable(kKernel)) {
    state.SkipWithError("this build lacks the kernel");
    return;
  }
  constexpr size_t kKeys = 1024;
  const std::vector<char> buffer = RandomBytes(kBufferBytes + 64);
  SplitMix64 gen(0x1e9);
  std::vector<Slice> keys;
  size_t offset = 0;
  for (size_t i = 0; i < kKeys; ++i) {
    const size_t len = 24 + gen.Next() % 5;
    keys.emplace_back(buffer.data() + offset, len);
    offset = (offset + len + 3) % kBufferBytes;
  }
  std::vector<uint64_t> out(kKeys);
  for (auto _ : state) {
    LegacyHash32BatchWith(kKernel, keys.data(), kKeys, kBloomHashSeed, out.data());
    benchmark::DoNotOptimize(out.data());
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(state.iterations() * static_cast<int64_t>(kKeys));
}

BENCHMARK(BM_HashKey<Xxph3>)->Name("XXPH3_64")->Apply(KeySizes);
BENCHMARK(BM_HashKey<Xxh3>)->Name("XXH3_64")->Apply(KeySizes);
BENCHMARK(BM_HashKey<Bloom32>)->Name("BloomHash32")->Apply(KeySizes);
BENCHMARK(BM_LegacyHashBatch<LegacyHashKernel::kScalar>)->Name("LegacyHash32Batch/scalar");
BENCHMARK(BM_LegacyHashBatch<LegacyHashKernel::kAvx2>)->Name("LegacyHash32Batch/avx2");
BENCHMARK(BM_LegacyHashBatch<LegacyHashKernel::kAvx512>)->Name("LegacyHash32Batch/avx512");

}  // namespace
}  // namespace filterlab
