// Key-hashing cost: XXPH3_64 (ours, RocksDB's filter hash), XXH3_64 (the
// library's final XXH3) and BloomHash32 (the legacy 32-bit hash), ns per key
// at key sizes 8..256 bytes. Keys are distinct and cycle through a 64 KiB
// buffer (L2-resident), at varying alignment as in filter_bench, and each
// hash is independent of the previous one, so this is throughput, not
// latency.
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

BENCHMARK(BM_HashKey<Xxph3>)->Name("XXPH3_64")->Apply(KeySizes);
BENCHMARK(BM_HashKey<Xxh3>)->Name("XXH3_64")->Apply(KeySizes);
BENCHMARK(BM_HashKey<Bloom32>)->Name("BloomHash32")->Apply(KeySizes);

}  // namespace
}  // namespace filterlab
