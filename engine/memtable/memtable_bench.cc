// Memtable micro-benchmarks: insert and point lookup at 10^6 entries
// (16-byte random keys, 8-byte values), lookups with and without the
// memtable Bloom, for keys present and absent.
#include <benchmark/benchmark.h>

#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "engine/memtable/memtable.h"
#include "hashing/remix.h"

namespace filterlab::engine {
namespace {

constexpr size_t kEntries = 1000000;

std::vector<std::string> MakeKeys(size_t n, uint64_t seed) {
  SplitMix64 rng(seed);
  std::vector<std::string> keys(n);
  for (auto& k : keys) {
    k.resize(16);
    const uint64_t a = rng.Next(), b = rng.Next();
    std::memcpy(k.data(), &a, 8);
    std::memcpy(k.data() + 8, &b, 8);
  }
  return keys;
}

const std::vector<std::string>& PresentKeys() {
  static const auto* keys = new std::vector<std::string>(MakeKeys(kEntries, 1));
  return *keys;
}
const std::vector<std::string>& AbsentKeys() {
  static const auto* keys = new std::vector<std::string>(MakeKeys(kEntries, 2));
  return *keys;
}

MemTableOptions Options(bool bloom) {
  MemTableOptions o;
  o.write_buffer_size = size_t{64} << 20;
  o.bloom_size_ratio = bloom ? 0.1 : 0.0;  // 64 MiB × 0.1: ~54 bits per key at 10^6 keys
  return o;
}

std::unique_ptr<MemTable> Filled(bool bloom) {
  std::unique_ptr<MemTable> mem;
  if (!MemTable::Create(Options(bloom), &mem).ok()) std::abort();
  const auto& keys = PresentKeys();
  for (size_t i = 0; i < keys.size(); ++i) mem->Add(i + 1, kTypeValue, keys[i], "value123");
  return mem;
}

// ns per Add while filling an empty memtable to 10^6 entries (arg: Bloom on).
void BM_MemTableInsert(benchmark::State& state) {
  const bool bloom = state.range(0) != 0;
  const auto& keys = PresentKeys();
  for (auto _ : state) {
    state.PauseTiming();
    std::unique_ptr<MemTable> mem;
    if (!MemTable::Create(Options(bloom), &mem).ok()) std::abort();
    state.ResumeTiming();
    for (size_t i = 0; i < keys.size(); ++i) mem->Add(i + 1, kTypeValue, keys[i], "value123");
    benchmark::DoNotOptimize(mem.get());
    state.PauseTiming();
    mem.reset();
    state.ResumeTiming();
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * keys.size()));
}
BENCHMARK(BM_MemTableInsert)->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond)->Iterations(1)->Repetitions(3);

// ns per Get at 10^6 entries. Args: Bloom on, key present.
void BM_MemTableGet(benchmark::State& state) {
  const bool bloom = state.range(0) != 0;
  const bool present = state.range(1) != 0;
  static std::unique_ptr<MemTable> mems[2];
  if (!mems[bloom]) mems[bloom] = Filled(bloom);
  const MemTable& mem = *mems[bloom];
  const auto& keys = present ? PresentKeys() : AbsentKeys();
  std::vector<LookupKey> lookups;
  SplitMix64 rng(3);
  constexpr size_t kLookups = 1 << 16;
  lookups.reserve(kLookups);
  for (size_t i = 0; i < kLookups; ++i) lookups.emplace_back(keys[rng.Next() % keys.size()], kMaxSequenceNumber);
  std::string value;
  size_t i = 0, found = 0;
  for (auto _ : state) {
    found += mem.Get(lookups[i++ & (kLookups - 1)], &value) == MemTable::GetResult::kFound;
  }
  benchmark::DoNotOptimize(found);
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations()));
  if (present && static_cast<int64_t>(found) != state.iterations()) state.SkipWithError("present key not found");
}
BENCHMARK(BM_MemTableGet)->ArgsProduct({{0, 1}, {0, 1}})->ArgNames({"bloom", "present"})->Repetitions(3);

}  // namespace
}  // namespace filterlab::engine
