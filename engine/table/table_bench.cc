// Table point lookups with and without a full filter: Get of existing keys
// and of absent keys on a 100,000-key table (16-byte user keys, 16-byte
// values, 4 KiB blocks, hash index on) held in memory, with a block cache
// larger than the table (a warm, fully cached workload). The filter's value
// shows on absent keys: a negative skips the index seek and the data block.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "engine/memtable/internal_key.h"
#include "engine/table/block_cache.h"
#include "engine/table/table_builder.h"
#include "engine/table/table_reader.h"
#include "filters/filter.h"
#include "hashing/remix.h"

namespace filterlab::engine {
namespace {

constexpr int kKeys = 100000;

std::string UserKey(uint64_t i) {
  char buf[17];
  std::snprintf(buf, sizeof(buf), "%016llx", static_cast<unsigned long long>(Mix64(i)));
  return std::string(buf, 16);
}

struct TableFixture {
  std::unique_ptr<BlockCache> cache;
  std::unique_ptr<TableReader> table;
};

TableFixture MakeTable(const std::string& filter_spec) {
  std::vector<std::string> keys;
  for (int i = 0; i < kKeys; ++i) keys.push_back(UserKey(2 * i));  // odd i: absent keys
  std::sort(keys.begin(), keys.end());
  std::string bytes;
  auto sink = NewStringSink(&bytes);
  TableOptions o;
  if (!filter_spec.empty()) {
    std::unique_ptr<FilterPolicy> policy;
    if (!NewFilterPolicy(filter_spec, &policy).ok()) std::abort();
    o.filter_policy = std::move(policy);
  }
  o.use_hash_index = true;
  std::unique_ptr<TableBuilder> builder;
  if (!TableBuilder::Open(o, sink.get(), &builder).ok()) std::abort();
  for (const auto& k : keys) {
    std::string ikey;
    AppendInternalKey(&ikey, k, 1, kTypeValue);
    if (!builder->Add(ikey, std::string(16, 'v')).ok()) std::abort();
  }
  if (!builder->Finish().ok()) std::abort();
  TableFixture f;
  f.cache = std::make_unique<BlockCache>(64 << 20);
  TableReaderOptions ro;
  ro.block_cache = f.cache.get();
  if (!TableReader::Open(ro, NewStringFile(std::move(bytes), "bench.sst"), &f.table).ok()) std::abort();
  return f;
}

void BM_TableGet(benchmark::State& state, const char* filter_spec, bool existing) {
  TableFixture f = MakeTable(filter_spec);
  std::vector<std::string> targets;
  SplitMix64 rng(42);
  for (int i = 0; i < 4096; ++i) {
    const uint64_t k = 2 * (rng.Next() % kKeys) + (existing ? 0 : 1);
    std::string t;
    AppendInternalKey(&t, UserKey(k), kMaxSequenceNumber, kValueTypeForSeek);
    targets.push_back(std::move(t));
  }
  LookupResult r;
  for (const auto& t : targets) f.table->Get(t, &r);  // warm the cache
  size_t i = 0, found = 0;
  for (auto _ : state) {
    f.table->Get(targets[i++ & 4095], &r);
    found += r.found;
  }
  state.counters["found_ratio"] = double(found) / state.iterations();
}

BENCHMARK_CAPTURE(BM_TableGet, no_filter_existing, "", true);
BENCHMARK_CAPTURE(BM_TableGet, no_filter_absent, "", false);
BENCHMARK_CAPTURE(BM_TableGet, fastlocal10_existing, "fastlocal:bpk=10", true);
BENCHMARK_CAPTURE(BM_TableGet, fastlocal10_absent, "fastlocal:bpk=10", false);

}  // namespace
}  // namespace filterlab::engine
