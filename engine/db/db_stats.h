// DbStats: the DB's counters as typed values (DB::GetStats), taken in one
// step: per level the files, bytes, the filter its tables hold and the
// filter's counters; the memtable filter, block cache and data-block hash
// index; and the write, flush, compaction and read counters. GetProperty
// formats these same values as text, and lsmbench's records copy them.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "engine/db/db_tickers.h"
#include "engine/table/table_reader.h"

namespace filterlab::engine {

// What table filters answered for point lookups (Get and MultiGet keys):
// every lookup that reached a table with a filter counts once in `checked`
// and once in either `useful` (the filter said absent: the table was
// skipped) or `positive` (it said maybe); `true_positive` counts the
// positives whose key the table held. `lookups` and `found` count every
// table lookup, with a filter or without, so a level without filters still
// shows its traffic.
// Derived from a level's tickers (db_tickers.h) by FromLevel; lsmbench's
// RocksDB engine fills one from RocksDB's per-level perf context.
struct FilterCounters {
  static FilterCounters FromLevel(const LevelTickers& t);

  uint64_t checked = 0;
  uint64_t useful = 0;
  uint64_t positive = 0;
  uint64_t true_positive = 0;
  uint64_t lookups = 0;  // table lookups at the level (>= checked)
  uint64_t found = 0;    // ... that found the key in the table

  // Data blocks read for a key the table did not hold: lookups that passed
  // the filter (or met none) and found nothing; the false positives' cost
  // (each reads one data block, from the block cache or the file). A
  // lookup past a table's last index entry reads none and still counts here,
  // a rare case (keys beyond a sorted level's largest).
  uint64_t wasted_reads() const { return lookups - useful - found; }
  // Table lookups for keys the tables did not hold (with or without a filter).
  uint64_t missing_lookups() const { return lookups - found; }

  // Lookups of keys the tables did not hold: checked - true_positive.
  uint64_t absent() const { return checked - true_positive; }
  // The measured false-positive rate, (positive - true_positive) / absent();
  // nullopt when no lookup was for an absent key. The one place it is computed.
  std::optional<double> FpRate() const;
};

struct LevelStats {
  int level = 0;
  uint64_t files = 0;
  uint64_t bytes = 0;
  // The canonical filter spec of the level's tables ("none" for tables
  // without a filter; several specs joined by " | " when tables written
  // under different options share the level). A level without tables shows
  // the filter new tables there would get.
  std::string filter;
  LevelTickers tickers;  // since the last ResetFilterStats
  FilterCounters filter_counters() const { return FilterCounters::FromLevel(tickers); }
  uint64_t entries = 0;       // internal keys in the level's tables
  uint64_t filter_bytes = 0;  // bytes of their filter blocks
  // Their range filters: the spec(s) as `filter` names the point filters'
  // (a level without tables shows what new tables would get) and the bytes.
  std::string range_filter;
  uint64_t range_filter_bytes = 0;
  // The model FP rate a lookup of an absent key expects at one table of the
  // level (level_filters.h SummarizeLevelFilters; 1 for tables without a
  // filter): the expected value of wasted_reads() / missing_lookups().
  double model_fp = 1;
  // The expected number of the level's tables a lookup probes, lookups
  // following the stored keys' distribution (level_filters.h LookupReach):
  // with model_fp, a missing-key lookup expects reach x model_fp wasted
  // reads here, from the tree alone.
  double reach = 0;
};

struct MemTableFilterStats {
  uint64_t negatives = 0;  // Get calls a memtable filter answered (skip list skipped)
  uint64_t positives = 0;  // ... passed on to the skip list
  // Seeks that probed a memtable's prefix Bloom: it said maybe (hits) / absent (misses: memtable skipped).
  uint64_t prefix_hits = 0;
  uint64_t prefix_misses = 0;
};

struct BlockCacheStats {
  uint64_t hits = 0;
  uint64_t misses = 0;
  uint64_t usage = 0;
  uint64_t capacity = 0;
};

struct HashIndexStats {
  uint64_t lookups = 0;     // data-block hash index lookups
  uint64_t collisions = 0;  // ... that fell back to binary search
};

// What Open's recovery dropped, all zero after a clean recovery. A log or
// table with damage is moved to lost/ in the DB directory, never deleted.
struct RecoveryStats {
  std::string wal_recovery_mode;  // WalRecoveryModeName of the options
  uint64_t wal_records_replayed = 0;
  uint64_t wal_damaged_regions = 0;  // byte ranges the log reader could not read
  uint64_t wal_bytes_dropped = 0;    // bytes of those regions and of intact records not replayed
  uint64_t wal_records_dropped = 0;  // intact records not replayed (point_in_time drops all after damage)
  // Writes (sequence numbers) known to be lost: the gap between the records
  // replayed before and after dropped ones. A dropped tail's count is unknown.
  uint64_t wal_writes_dropped = 0;
  uint64_t manifest_bytes_dropped = 0;  // a torn last edit
  uint64_t files_moved_to_lost = 0;
};

struct DbStats {
  std::vector<LevelStats> levels;  // one per configured level, L0 first
  uint64_t total_sst_bytes = 0;    // bytes of all live tables
  // Of the live memtables only (a flushed memtable's counts leave with it).
  MemTableFilterStats memtable_filter;
  std::optional<BlockCacheStats> block_cache;  // nullopt without a block cache
  // Of the tables currently open in the table cache.
  HashIndexStats hash_index;
  uint64_t data_block_reads = 0;
  // Table reads since Open, summed over every table opened (TableCache::
  // TotalStats): block fetches and file reads by kind, bytes read, and the
  // data blocks that filter false positives cost.
  TableReaderStats table_reads;
  // Tables opened for buffered reads although Options::use_direct_reads was
  // set (the filesystem refused O_DIRECT).
  uint64_t direct_read_fallbacks = 0;
  DbTickers counters;      // every DB-wide ticker since Open (db_tickers.h)
  RecoveryStats recovery;  // of the Open that made this DB object
};

}  // namespace filterlab::engine
