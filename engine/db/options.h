// Options of the LSM database (db.h): how big the memtable may grow, how the
// levels are sized and compacted, how tables are built (block size, restart
// interval, data-block hash index, filters per level), the memtable filter,
// the block cache, and where warnings go. Names and defaults follow RocksDB
// where it has the same knob (write_buffer_size 64 MiB, L0 triggers 4/20/36,
// L1 target 256 MiB, fanout 10, 7 levels, 64 MiB files, 4 KiB blocks).
//
// Filters are typed policies (filters/filter.h), made from a spec string once
// by whoever builds the Options (FilterPolicyFromSpec; nullptr = no filter),
// so nothing in the DB parses a spec again. Each table records the canonical
// spec it was built with, and reads open a table's filter from the table's
// own bytes: changing these options never changes how existing tables read.
//
// Options::Validate() checks every field and returns InvalidArgument naming
// the option, the value given and what is allowed; DB::Open calls it first.
// ReadOptions / WriteOptions are the per-call options.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "common/status.h"
#include "engine/memtable/memtable.h"
#include "engine/table/format.h"
#include "engine/table/table_builder.h"
#include "filters/allocation/level_allocation.h"

namespace filterlab {
class FilterPolicy;
class RangeFilterPolicy;
}  // namespace filterlab

namespace filterlab::engine {

class Env;
class PrefixExtractor;
class Snapshot;

// What Open does with a damaged write-ahead log (names and meaning follow
// RocksDB's WALRecoveryMode). "Damage" is any byte range the log reader could
// not read as intact records; "the tail" is damage with no intact record
// after it in this or a later log (what a crash during a write leaves).
// Whatever the mode, a log with damage is never deleted (Open moves it to
// lost/ when it opens) and DbStats::recovery says what was dropped.
enum class WalRecoveryMode {
  // Drop a damaged tail; damage before the tail fails Open with a Corruption
  // naming the log, the offset and how many intact records follow.
  kTolerateCorruptedTailRecords,
  // Any damage, a torn tail included, fails Open.
  kAbsoluteConsistency,
  // Replay up to the first damage and drop everything after it (intact
  // records and later logs included): the writes kept are a prefix.
  kPointInTimeRecovery,
  // Replay every intact record, skipping damaged ones.
  kSkipAnyCorruptedRecords,
};
// "tolerate_corrupted_tail_records", "absolute_consistency", "point_in_time",
// "skip_any_corrupted_records".
const char* WalRecoveryModeName(WalRecoveryMode mode);
// Takes those names or RocksDB's numbers 0..3; InvalidArgument listing them.
Status ParseWalRecoveryMode(const std::string& text, WalRecoveryMode* mode);

// The policy of a filter option given as a spec, for whoever builds Options
// from text: "none" gives nullptr (no filter), anything else the registry's
// policy for it. InvalidArgument with the registry's complaint otherwise ("",
// too: "none" is the one spelling of no filter); callers prefix the option.
Status FilterPolicyFromSpec(const std::string& spec, std::shared_ptr<const FilterPolicy>* out);
// The canonical spec of `policy`, or "none" for nullptr.
std::string FilterLabel(const FilterPolicy* policy);
// The same for range filters (filters/range/range_filter.h): "none" gives
// nullptr, anything else the registry's range policy; InvalidArgument with
// the registry's complaint otherwise.
Status RangeFilterPolicyFromSpec(const std::string& spec, std::shared_ptr<const RangeFilterPolicy>* out);
std::string RangeFilterLabel(const RangeFilterPolicy* policy);
// Same filter: both none, or both with the same canonical spec.
bool SameFilter(const FilterPolicy* a, const FilterPolicy* b);

struct Options {
  // --- opening ---
  bool create_if_missing = false;
  bool error_if_exists = false;
  // Also verify the checksum of every data block of every live table on Open
  // (the footer, metaindex, properties, index and filter of every table are
  // always read and verified on Open). Costs one full read of the database.
  bool paranoid_checks = false;

  // Skip the fdatasync of tables, manifests, the directory and of a WAL when
  // it is switched for a new one (RocksDB's old disableDataSync);
  // WriteOptions::sync still syncs the WAL. The DB then still survives a
  // killed process (the OS keeps the written bytes), but not a machine
  // crash. For tests and throwaway benchmark databases only.
  bool disable_data_sync = false;

  // Damaged-WAL policy of Open (WalRecoveryMode above).
  WalRecoveryMode wal_recovery_mode = WalRecoveryMode::kTolerateCorruptedTailRecords;

  // The filesystem (engine/util/env.h); null = Env::Default(), POSIX. Tests
  // put a fault-injecting Env here. Must outlive the DB.
  Env* env = nullptr;

  // --- memtables ---
  // A memtable is switched to immutable (and flushed to L0 in the
  // background) once its memory use reaches this many bytes.
  size_t write_buffer_size = size_t{64} << 20;
  // Memtables in memory at once, the active one included (>= 2): writes stall
  // while max_write_buffer_number - 1 immutable memtables wait for flushes.
  int max_write_buffer_number = 2;
  // Memtable filter (RocksDB's memtable Bloom): nullptr = none, else a dynamic variant's
  // policy such as "dynamic:bpk=8,probes=6,hash=32" (RocksDB's DynamicBloom).
  // Its size is write_buffer_size × memtable_filter_bits_ratio bytes; the
  // ratio must be in (0, 0.25] when a filter is given (RocksDB
  // memtable_prefix_bloom_size_ratio).
  std::shared_ptr<const FilterPolicy> memtable_filter_policy;
  double memtable_filter_bits_ratio = 0.1;
  // What the memtable filter holds (RocksDB's memtable_whole_key_filtering):
  // whole user keys when true, and with a prefix_extractor also the prefixes
  // (a prefix Bloom: seeks skip a memtable without the seek's prefix). Off
  // without an extractor leaves the filter nothing to hold (refused).
  bool memtable_whole_key_filtering = true;
  // Range estimate used by GetApproximateMemTableStats (RocksDB PR #13047).
  ApproxAlgorithm approx_algorithm = ApproxAlgorithm::kNew;

  // --- levels and compaction ---
  int num_levels = 7;                                       // 2..20
  int level0_file_num_compaction_trigger = 4;               // >= 1
  int level0_slowdown_writes_trigger = 20;                  // >= compaction trigger
  int level0_stop_writes_trigger = 36;                      // >= slowdown trigger
  uint64_t max_bytes_for_level_base = uint64_t{256} << 20;  // L1 target
  double level_size_multiplier = 10;                        // target(L+1) = target(L) × this; >= 2
  uint64_t target_file_size = uint64_t{64} << 20;           // compaction output files are cut at this size
  // No background compactions (flushes still run; CompactRange still
  // works). Level-0 slowdowns and stops are then off too, since nothing
  // would lower the L0 file count.
  bool disable_auto_compactions = false;

  // --- tables ---
  size_t block_size = 4096;
  int block_restart_interval = 16;
  bool use_hash_index = false;          // data-block hash index (RocksDB PR #4174)
  double hash_index_util_ratio = 0.75;  // (0, 1]
  ChecksumType checksum_type = ChecksumType::kCRC32C;
  // Compression of table data blocks (engine/table/compression.h).
  CompressionType compression = CompressionType::kNone;
  // Full filter of the tables written to each level: per_level_filter_policy[L]
  // for the levels it covers (nullptr there = no filter at that level), else
  // filter_policy (nullptr = no filter).
  std::shared_ptr<const FilterPolicy> filter_policy;
  std::vector<std::shared_ptr<const FilterPolicy>> per_level_filter_policy;
  // Prefixes (RocksDB's Options::prefix_extractor and BlockBasedTableOptions::
  // whole_key_filtering; engine/util/prefix_extractor.h). With an extractor
  // every table filter also holds the prefixes of its keys in the
  // extractor's domain, and records the extractor; iterators (ReadOptions
  // below) skip tables whose filter lacks the seek's prefix, and Gets probe
  // the prefix where a filter holds no whole keys. A table written under
  // another extractor does not use its prefix entries. whole_key_filtering
  // false (prefixes only) needs an extractor.
  std::shared_ptr<const PrefixExtractor> prefix_extractor;
  bool whole_key_filtering = true;
  // Range filter of the tables written to each level, like the point
  // filters: per_level_range_filter_policy[L] where the vector reaches, else
  // range_filter_policy (nullptr = none); any registered range variant
  // (filters/range/range_filter.h), built from each table's user keys by
  // flushes and compactions and stored as its own block (engine/table/
  // range_filter_block.h). A seek with an upper bound asks it about
  // [target, bound) and skips a table it rules out. Its memory is its own
  // spec's bits per key at every level: filter_allocation's budget spreads
  // the point filters' bits only, whatever the range filters take.
  std::shared_ptr<const RangeFilterPolicy> range_filter_policy;
  std::vector<std::shared_ptr<const RangeFilterPolicy>> per_level_range_filter_policy;
  // Filter memory across the levels under one budget (level_filters.h,
  // filters/allocation/level_allocation.h). Unset: each level's filter is
  // FilterPolicyForLevel as given. Set: FilterPolicyForLevel(L) names only
  // level L's family (its spec without bpk and probes; nullptr = no filter
  // at L whatever the policy), and each flush or compaction sizes the
  // filters of the tables it writes by `policy` from the key counts the
  // levels will have when it is done.
  struct FilterAllocation {
    allocation::AllocationPolicy policy = allocation::AllocationPolicy::kUniform;
    double budget_bits_per_key = 10;  // total filter bits / total keys, (0, 100]
    double existing_share = 0;        // share of lookups for stored keys the policy weighs, [0, 1]
  };
  std::optional<FilterAllocation> filter_allocation;

  // --- caches ---
  size_t block_cache_bytes = size_t{8} << 20;  // shared block cache (CLOCK eviction); 0 = none
  int max_open_files = 1000;                   // table readers kept open (>= 10)
  // Read tables with O_DIRECT (engine/util/direct_file.h), so a block-cache
  // miss is a storage read rather than a page-cache copy; where the
  // filesystem refuses O_DIRECT the tables are read buffered and
  // DbStats::direct_read_fallbacks counts them.
  bool use_direct_reads = false;

  // Receives warnings (dropped WAL tails, background errors) and events
  // (flushes, compactions, recovery), one line each. Null: warnings go to
  // stderr, events are dropped. Called from background threads too.
  std::function<void(const std::string&)> info_log;

  // InvalidArgument naming the option, its value and what is allowed.
  Status Validate() const;
  // The filter tables written to `level` are built with (nullptr = none).
  const std::shared_ptr<const FilterPolicy>& FilterPolicyForLevel(int level) const;
  // The range filter tables written to `level` are built with (nullptr = none).
  const std::shared_ptr<const RangeFilterPolicy>& RangeFilterPolicyForLevel(int level) const;
  // With filter_allocation: level L's filter family (nullptr = no filter there).
  Status FilterFamilyForLevel(int level, std::shared_ptr<const allocation::FamilyCurve>* out) const;
  // Target bytes of level >= 1: max_bytes_for_level_base x level_size_multiplier^(level-1).
  uint64_t MaxBytesForLevel(int level) const;
  // How the DB's memtables are made.
  MemTableOptions MemTableOptionsForDb() const;
  // How tables written to `level` are built.
  TableOptions TableOptionsForLevel(int level) const;

 private:
  Status ValidateFilterAllocation() const;
};

struct ReadOptions {
  // Read as of this snapshot (DB::GetSnapshot); null = the latest data.
  // Every table block read is checksum-verified and goes through the block
  // cache regardless of options.
  const Snapshot* snapshot = nullptr;

  // Iterators (RocksDB's ReadOptions of the same names; what each seek may
  // skip is decided in db_iter.cc, SeekQueryFor):
  // Exclusive upper bound of the keys an iterator returns (null: none); it
  // must outlive the iterator. A seek probes the tables' filters for the
  // range [target, bound) where one can answer, and skips a table whose
  // filter says the range is empty.
  const Slice* iterate_upper_bound = nullptr;
  // With Options::prefix_extractor: after Seek(target), return only keys
  // with target's prefix (none for a target outside the extractor's
  // domain: the iterator is then not bounded by prefix), and skip the
  // memtables and tables whose filter lacks that prefix.
  bool prefix_same_as_start = false;
  // Never use prefix filters (range filters still answer bounded seeks).
  bool total_order_seek = false;
  // Use prefix filters only where the result equals a total-order seek's:
  // when every key in [target, iterate_upper_bound) has target's prefix.
  // Unlike RocksDB's (its DBTest2::AutoPrefixMode1, "BUG"), keys shorter
  // than the prefix length are never skipped: the rule is this range test,
  // not a same-length-successor shortcut.
  bool auto_prefix_mode = false;
};

struct WriteOptions {
  // fdatasync the write-ahead log before acknowledging the write, so the
  // write survives a machine crash; without it it survives a process crash.
  bool sync = false;
};

}  // namespace filterlab::engine
