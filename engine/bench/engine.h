// Engine: what lsmbench needs from a key-value store, so one benchmark loop
// drives our DB, a bare memtable and RocksDB alike. Keys and values are
// opaque bytes; "not found" is a result, not an error (Status is for
// failures). Implementations: filterlab_engine.cc (engine/db), memtable_
// engine.cc (one MemTable, what the memtable benchmarks measure) and
// rocksdb_engine_rocksdb.cc (librocksdb, compiled only when CMake finds it).
// Concurrency: with --threads N, N threads call the data calls (Put, Delete,
// WriteBatch, Get, MultiGet, NewIterator and the iterators they own,
// ApproximateMemTableStats) at once, plus readwhilewriting's writer; the
// other calls come from the driver thread between benchmarks.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "common/json_out.h"
#include "common/slice.h"
#include "common/status.h"
#include "engine/bench/bench_config.h"
#include "engine/db/db_stats.h"
#include "engine/db/iterator.h"
#include "engine/db/options.h"
#include "engine/util/prefix_extractor.h"

namespace filterlab::lsmbench {

// One JSON object, fields in insertion order (the simulator's record type).

// Iterators of every engine have the DB's iterator interface (forward scan
// over user keys, newest visible values, deleted keys hidden).
using EngineIterator = engine::Iterator;

// What an iterator's seeks may assume (RocksDB's ReadOptions of the same
// names; engine/db/options.h ReadOptions). `upper_bound` points at a Slice
// the caller may change between seeks (each Seek reads it); null = none.
struct IteratorOptions {
  const Slice* upper_bound = nullptr;
  bool prefix_same_as_start = false;
  bool total_order_seek = false;
  bool auto_prefix_mode = false;
};

class Engine {
 public:
  virtual ~Engine() = default;

  virtual Status Put(const Slice& key, const Slice& value) = 0;
  virtual Status Delete(const Slice& key) = 0;
  // Applies the puts atomically (one write batch).
  virtual Status WriteBatch(const std::vector<std::pair<Slice, Slice>>& puts) = 0;

  virtual Status Get(const Slice& key, std::string* value, bool* found) = 0;
  // Looks up every key (one batched call where the engine has one); values
  // gets one entry per key (empty when absent); *found counts the hits.
  virtual Status MultiGet(const std::vector<Slice>& keys, std::vector<std::string>* values, uint64_t* found) = 0;
  virtual std::unique_ptr<EngineIterator> NewIterator(const IteratorOptions& options) = 0;

  // Writes the memtable to a table and waits for it.
  virtual Status Flush() = 0;
  // Compacts the whole key range down to the last level and waits.
  virtual Status CompactAll() = 0;
  // Returns once no flush or compaction is running or pending.
  virtual Status WaitForCompaction() = 0;
  // Flushes, settles, and rewrites in place every table whose filter differs
  // from what the filter allocation gives its level now
  // (DB::RewriteFilters); *rewritten: tables rewritten. Only the filterlab
  // engine has it.
  virtual Status RewriteFilters(uint64_t* rewritten) {
    *rewritten = 0;
    return Status::NotSupported("rewritefilters: only --engine=filterlab rewrites tables for a filter allocation");
  }

  // Estimated entries and bytes with user keys in [start, limit) in the
  // memtables (GetApproximateMemTableStats).
  virtual Status ApproximateMemTableStats(const Slice& start, const Slice& limit, uint64_t* count, uint64_t* bytes) = 0;
  // Bytes in tables (flushed data), 0 while everything is in memtables.
  virtual uint64_t TableBytes() = 0;
  // The engine's own statistics text (db_bench's "stats" benchmark).
  virtual std::string StatsText() = 0;
  // Fields every JSON record of this engine carries: resolved options and
  // notes a reader of the numbers needs (e.g. how the library was built).
  virtual void DescribeOptions(JsonRecord* record) const = 0;
  // One object per non-empty level (or level whose filter was consulted):
  // level, files, bytes and, where the engine counts them, the filter
  // counters since the last ResetStats (AddFilterCounters). Null when the
  // engine has no levels.
  virtual JsonRecord Levels() = 0;
  // Other filter and cache counters since the last ResetStats (memtable
  // filter, block cache, hash index, totals); null when there are none.
  virtual JsonRecord FilterStats() = 0;
  // Table reads since the last ResetStats (the record's "io" object, see
  // --describe; MakeRecord adds the per-operation figures); null when the
  // engine reads no tables or does not count them.
  virtual JsonRecord IoStats() { return JsonRecord(); }
  // The engine's DB-wide tickers since the last ResetStats (the record's
  // "tickers" object, names as engine/db/db_tickers.h); null where there are none.
  virtual JsonRecord Tickers() { return JsonRecord(); }
  // Seek statistics since the last ResetStats, RocksDB's seek tickers (PR
  // #11460) in total and for the last and the other levels (the record's
  // "seek_stats"); null where the engine does not count seeks.
  virtual JsonRecord SeekStats() { return JsonRecord(); }
  // Zeroes the counters FilterStats, IoStats and Tickers report (called before each benchmark).
  virtual void ResetStats() = 0;
};

// `it` with the options' upper bound and prefix_same_as_start applied by
// the wrapper itself (keys at or past the bound, or with another prefix
// than the last seek target's under `extractor`, end the iteration): how
// engines without these options (the memtable engine, LevelDB) run the
// bounded workloads, with the same results and none of the skipping.
std::unique_ptr<EngineIterator> WithEmulatedBounds(std::unique_ptr<EngineIterator> it, const IteratorOptions& options,
                                                   std::shared_ptr<const engine::PrefixExtractor> extractor);

// RocksDB's seek tickers (PR #11460) as record fields: filtered,
// filter_match, data, data_useful_no_filter, data_useful_filter_match, and
// fp_rate: of the seeks whose range held nothing in a table (filtered +
// filter_match - data_useful_filter_match), the share the filter passed
// (filter_match - data_useful_filter_match); null when there were none.
JsonRecord SeekStatsRecord(const engine::LevelTickers& t);

// A level's filter counters as record fields: filter_checked, filter_useful
// (negatives), filter_positive, filter_true_positive and fp_rate (null when
// no lookup was for an absent key).
void AddFilterCounters(const engine::FilterCounters& counters, JsonRecord* level);

// The options of the filterlab DB lsmbench opens for `config` (at `path`
// with OpenFilterlabEngine); DB::Open validates them.
engine::Options FilterlabDbOptions(const BenchConfig& config);

// Everything OpenEngine would refuse for `config` without opening anything:
// an engine not compiled in, DB options the DB would reject.
Status CheckEngineConfig(const BenchConfig& config);

// Opens the engine named by config.engine on directory `path` (unused by
// the memtable engine). The directory exists; for a fresh database it is
// empty. Engines not compiled in give NotSupported with the reason. With
// --use_direct_reads on a filesystem that refuses O_DIRECT it prints why
// and opens the engine with buffered reads (its records say direct_reads false).
Status OpenEngine(const BenchConfig& config, const std::string& path, std::unique_ptr<Engine>* out);

// Whether --engine=rocksdb / --engine=leveldb is compiled in.
bool HaveRocksDb();
bool HaveLevelDb();

// Per-engine constructors (engine.cc dispatches).
Status OpenFilterlabEngine(const BenchConfig& config, const std::string& path, std::unique_ptr<Engine>* out);
Status OpenMemTableEngine(const BenchConfig& config, std::unique_ptr<Engine>* out);
#ifdef FILTERLAB_HAVE_ROCKSDB
Status OpenRocksDbEngine(const BenchConfig& config, const std::string& path, std::unique_ptr<Engine>* out);
#endif
#ifdef FILTERLAB_HAVE_LEVELDB
Status OpenLevelDbEngine(const BenchConfig& config, const std::string& path, std::unique_ptr<Engine>* out);
#endif

}  // namespace filterlab::lsmbench
