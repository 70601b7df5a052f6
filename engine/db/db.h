// DB: filterlab's mini LSM-tree key-value store (the design of
// RocksDB's DBImpl at small scale: docs/architecture.md). Keys and values are byte strings (empty allowed, several MiB
// fine), ordered bytewise.
//
//   std::unique_ptr<DB> db;
//   Options options; options.create_if_missing = true;
//   Status s = FilterPolicyFromSpec("fastlocal:bpk=10", &options.filter_policy);
//   s = DB::Open(options, "/tmp/mydb", &db);
//   s = db->Put(WriteOptions(), "key", "value");
//   std::string value; s = db->Get(ReadOptions(), "key", &value);
//
// Writes go to the write-ahead log (log_writer.h), then the active memtable;
// a full memtable becomes immutable and a background thread flushes it to a
// level-0 table while a new memtable takes writes; a second background
// thread runs leveled compaction (L0 by file count, L1+ by size targets).
// Reads look in the memtables, then level 0 newest first, then one file per
// level; each table is guarded by its filter. MultiGet does the same for a
// whole sorted batch, one table-reader call per group of keys in one file
// (RocksDB PR #5011). Files on disk: see engine/db/README.md.
//
// All methods are thread-safe; a DB directory can be open in one DB object
// at a time (a LOCK file, flock).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "common/slice.h"
#include "common/status.h"
#include "engine/db/db_stats.h"
#include "engine/db/iterator.h"
#include "engine/db/options.h"
#include "engine/db/write_batch.h"

namespace filterlab::engine {

// A consistent read point: reads through it see exactly the writes
// acknowledged before GetSnapshot. Release with DB::ReleaseSnapshot.
class Snapshot {
 public:
  virtual ~Snapshot() = default;
  virtual uint64_t sequence() const = 0;
};

class DB {
 public:
  // Opens (and with create_if_missing creates) the database in directory
  // `path`, recovering from the WAL. Errors: InvalidArgument for bad
  // options or a path that is not a directory; NotFound if missing without
  // create_if_missing; Busy if another DB object holds its LOCK; Corruption
  // for a damaged manifest or table (nothing on disk is changed then).
  static Status Open(const Options& options, const std::string& path, std::unique_ptr<DB>* db);

  // Closes (as Close()) if still open.
  virtual ~DB() = default;

  virtual Status Put(const WriteOptions& options, const Slice& key, const Slice& value) = 0;
  virtual Status Delete(const WriteOptions& options, const Slice& key) = 0;
  // Applies the batch atomically.
  virtual Status Write(const WriteOptions& options, WriteBatch* batch) = 0;

  // OK and *value, or NotFound (absent or deleted), or an error.
  virtual Status Get(const ReadOptions& options, const Slice& key, std::string* value) = 0;
  // The answers of Get for every key, computed as a batch from one
  // consistent view: (*statuses)[i] / (*values)[i] answer keys[i].
  // Duplicates and any order are allowed.
  virtual void MultiGet(const ReadOptions& options, const std::vector<Slice>& keys, std::vector<std::string>* values,
                        std::vector<Status>* statuses) = 0;
  virtual std::unique_ptr<Iterator> NewIterator(const ReadOptions& options) = 0;

  virtual const Snapshot* GetSnapshot() = 0;
  virtual void ReleaseSnapshot(const Snapshot* snapshot) = 0;

  // Switches a non-empty memtable to immutable and schedules its flush;
  // with wait, returns once every immutable memtable is flushed.
  virtual Status Flush(bool wait = true) = 0;
  // Flushes, then compacts every level's files overlapping the user-key
  // range [*begin, *end] (null = unbounded) down to the last level holding
  // data, dropping shadowed versions and (at the bottom) deletions.
  virtual Status CompactRange(const Slice* begin, const Slice* end) = 0;
  // Returns once no flush is pending and no level needs compaction.
  virtual Status WaitForCompaction() = 0;
  // With Options::filter_allocation: flushes, waits for compactions, then
  // rewrites in place (same level, same keys, one table for one) every table
  // whose filter differs from what the allocation gives its level in the
  // tree as it is now (engine/db/level_filters.h), so that every level holds
  // the allocation of the current shape; background compactions wait during
  // a pass, reads and writes go on. Bigger filters can push a level past its
  // byte target, so it settles and rewrites again until a pass rewrites
  // nothing (at most 4 passes), then waits for compactions. *rewritten (if
  // not null): the tables rewritten. Without filter_allocation: only the
  // flush and the wait.
  virtual Status RewriteFilters(uint64_t* rewritten) = 0;

  // Estimated entries (all versions) and bytes of the memtables with user
  // keys in [start, limit) (RocksDB's GetApproximateMemTableStats).
  virtual void GetApproximateMemTableStats(const Slice& start, const Slice& limit, uint64_t* count,
                                           uint64_t* bytes) = 0;

  // Every counter, typed, taken now (see db_stats.h).
  virtual DbStats GetStats() = 0;
  // The same values as text, for people and tools (false for an unknown name):
  //   filterlab.num-files-at-level<N>   files at level N
  //   filterlab.bytes-at-level<N>       bytes of the tables at level N
  //   filterlab.level-summary           "files[a b c ...] bytes[...]"
  //   filterlab.filter-stats            one line per level: filter checked,
  //                                     useful (negative), positive, true positive,
  //                                     the measured FP rate, table lookups, found,
  //                                     wasted data-block reads, the model FP rate,
  //                                     the filter bytes and the tables' filter
  //   filterlab.filter-stats-level<N>   "checked useful positive true_positive" of level N
  //   filterlab.memtable-filter-stats   memtable filter negatives / positives
  //   filterlab.block-cache-stats       hits misses usage capacity
  //   filterlab.hash-index-stats        data-block hash lookups / collision fallbacks
  //   filterlab.total-sst-bytes         bytes of all live tables
  //   filterlab.recovery-stats          what Open's recovery replayed and dropped (DbStats::recovery)
  //   filterlab.tickers                 every DB-wide ticker (db_tickers.h) as name=value
  //   filterlab.stats                   all of the above
  virtual bool GetProperty(const std::string& name, std::string* value) = 0;
  // Zeroes the per-level filter statistics (e.g. between benchmark phases).
  virtual void ResetFilterStats() = 0;

  // Stops the background threads (after the job in progress) and releases
  // the LOCK. Unflushed writes stay in the WAL and are recovered by the next
  // Open. Further calls return an error.
  virtual Status Close() = 0;
};

// Deletes the database's files in `path` (and the directory if then empty).
// Fails with Busy if the database is open.
Status DestroyDB(const std::string& path);

}  // namespace filterlab::engine
