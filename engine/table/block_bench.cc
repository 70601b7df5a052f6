// Data-block point seek: binary search vs the data-block hash index on a
// cached (already parsed) block, in the manner of RocksDB's DataBlockSeek
// microbench: N records of 16-byte user keys (internal keys of 24 bytes) and
// 100-byte values, restart interval 16, random existing keys. Also reports
// the hash index's bytes per key at the chosen util ratio.
#include <benchmark/benchmark.h>

#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "engine/memtable/internal_key.h"
#include "engine/table/block.h"
#include "engine/table/block_builder.h"
#include "hashing/remix.h"

namespace filterlab::engine {
namespace {

struct BlockFixture {
  std::unique_ptr<Block> block;
  std::vector<std::string> targets;  // lookup keys (user key, max seq, seek type)
  size_t plain_size = 0;
};

BlockFixture MakeBlock(int records, bool hash, double util) {
  std::vector<std::string> user_keys;
  for (int i = 0; i < records; ++i) {
    char buf[17];
    std::snprintf(buf, sizeof(buf), "%016d", i * 7);  // 16-byte sorted keys
    user_keys.emplace_back(buf, 16);
  }
  BlockFixture f;
  for (bool with_hash : {false, hash}) {
    BlockBuilderOptions o;
    o.restart_interval = 16;
    o.use_hash_index = with_hash;
    o.hash_util_ratio = util;
    BlockBuilder b(o);
    for (const auto& k : user_keys) {
      std::string ikey;
      AppendInternalKey(&ikey, k, 1, kTypeValue);
      b.Add(ikey, std::string(100, 'v'));
    }
    const std::string contents = b.Finish().ToString();
    if (!with_hash) f.plain_size = contents.size();
    if (with_hash == hash) {
      if (hash && !b.hash_index_written()) std::abort();
      if (!Block::Open(contents, "bench block", KeyOrder::kInternal, &f.block).ok()) std::abort();
    }
  }
  SplitMix64 rng(11);
  for (int i = 0; i < 4096; ++i) {
    std::string t;
    AppendInternalKey(&t, user_keys[rng.Next() % user_keys.size()], kMaxSequenceNumber, kValueTypeForSeek);
    f.targets.push_back(std::move(t));
  }
  return f;
}

// Args: records, hash (0 = binary search), util ratio in percent.
void BM_DataBlockSeekForGet(benchmark::State& state) {
  const int records = static_cast<int>(state.range(0));
  const bool hash = state.range(1) != 0;
  const double util = static_cast<double>(state.range(2)) / 100.0;
  const BlockFixture f = MakeBlock(records, hash, util);
  size_t i = 0, found = 0, fallbacks = 0;
  BlockIter it(f.block.get());  // reused, as a table reader reuses its data-block iterator
  for (auto _ : state) {
    it.SeekForGet(f.targets[i++ & 4095]);
    found += it.Valid();
    fallbacks += it.last_hash_outcome() == BlockIter::HashOutcome::kCollision;
  }
  if (static_cast<int64_t>(found) != state.iterations()) state.SkipWithError("existing key not found");
  state.counters["fallback_ratio"] = static_cast<double>(fallbacks) / static_cast<double>(state.iterations());
  state.counters["index_bytes_per_key"] =
      static_cast<double>(f.block->size() - f.plain_size) / static_cast<double>(records);
  state.counters["block_bytes"] = static_cast<double>(f.block->size());
}
// Records per block from 16 to 500 (about 2 KiB to 60 KiB blocks; 32 records
// of ~120 bytes fill db_bench's default 4 KiB block). Repetitions are the
// caller's (--benchmark_repetitions, or the gbench worker's --repetitions).
BENCHMARK(BM_DataBlockSeekForGet)
    ->ArgsProduct({{16, 32, 64, 128, 256, 500}, {0}, {100}})
    ->ArgsProduct({{16, 32, 64, 128, 256, 500}, {1}, {75, 100}})
    ->ArgNames({"records", "hash", "util_pct"});

}  // namespace
}  // namespace filterlab::engine
