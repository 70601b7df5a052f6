// lsmbench's configuration: every command-line flag, parsed and cross-checked
// once (benchmark names, filter specs made into typed policies, engine-specific
// limits), so the benchmarks and engines read plain validated fields. Flags
// follow db_bench's names where db_bench has the same knob (--num, --reads,
// --batch_size, --multiread_stride, --seek_nexts, --use_existing_db, ...).
//
// The flag declarations are also lsmbench's description of itself:
// `lsmbench --describe` prints them with every field of its JSON records
// (LsmbenchDescription), and `lsmbench --check ...` runs every validation
// here and exits without running anything.
#pragma once

#include <cstdint>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "common/status.h"

namespace filterlab {
class FilterPolicy;
class RangeFilterPolicy;
}  // namespace filterlab
namespace filterlab::engine {
class PrefixExtractor;
}

namespace filterlab::lsmbench {

// Every benchmark name lsmbench knows, in the order --help lists them.
const std::vector<std::string>& KnownBenchmarks();

struct BenchConfig {
  std::vector<std::string> benchmarks;
  std::string engine = "filterlab";  // filterlab | memtable | rocksdb | leveldb

  // --- workload ---
  int64_t num = 1000000;  // keys in the key space 0..num-1
  int64_t reads = 0;      // operations of read benchmarks (--reads, default num)
  int64_t key_size = 16;
  int64_t value_size = 100;
  int64_t batch_size = 1;  // keys per write batch / MultiGet; range width of approximatememtablestats
  // multireadrandom runs once per (stride, batched) pair, stride-major in list
  // order (MultiReadVariants), all on the same database; each list holds
  // distinct values. Other benchmarks' records report the first of each.
  std::vector<int64_t> multiread_strides = {0};
  // false: multireadrandom runs a loop of Get over the same keys (the baseline)
  std::vector<bool> multiread_batched = {true};
  int64_t seek_nexts = 10;
  // Keys with prefixes (db_bench's --prefix_size and --keys_per_prefix:
  // bench_keys.h KeyFormat) and where key values come from (--key_source:
  // db_bench = the key number; else a key set of filters/range/range_workload.h,
  // uniform | normal | clustered | sosd:PATH: num sorted distinct 64-bit
  // values, key number k's value the k-th, so empty ranges exist).
  int64_t prefix_size = 0;
  int64_t keys_per_prefix = 0;
  std::string key_source = "db_bench";
  // Iterators (RocksDB's ReadOptions): --max_scan_distance D > 0 bounds a
  // seekrandom seek to key k by key min(k + D, num) (db_bench's
  // iterate_upper_bound); seekempty and scanrange always set a bound.
  int64_t max_scan_distance = 0;
  bool prefix_same_as_start = false;
  bool total_order_seek = false;
  bool auto_prefix_mode = false;
  // seekempty / scanrange: ranges of --range_size key values; seekempty's
  // left ends uniform (range_correlation < 0) or a stored value plus
  // U[1, 2^round(30 (1 - d))] (Grafite's correlated queries, d in [0, 1]).
  int64_t range_size = 1024;
  double range_correlation = -1;
  int64_t threads = 1;
  uint64_t seed = 301;
  bool histogram = false;

  // --- engine options (filters as typed policies; nullptr = none) ---
  std::shared_ptr<const FilterPolicy> filter;
  // Per-level filters: entry L is level L's (the --filter policy where the
  // flag's entry was empty); levels past the list use `filter`.
  std::vector<std::shared_ptr<const FilterPolicy>> filter_per_level;
  // --filter_policy: one filter-memory budget spread over the levels
  // (engine/db/level_filters.h); "" = each level's filter as given. The
  // level's --filter / --filter_per_level spec then names its family only.
  std::string filter_policy;
  double filter_budget_bpk = 10;  // --filter_budget_bpk
  // The flags' lists (one entry each without a list; filter_policies empty
  // without --filter_policy). filter_policy and filter_budget_bpk above are
  // the pass being run: the first pair until the passes start
  // (AllocationPasses, ConfigForPass).
  std::vector<std::string> filter_policies;
  std::vector<double> filter_budgets_bpk = {10};
  double filter_found_share = 0;  // --filter_found_share
  std::shared_ptr<const FilterPolicy> memtable_filter;
  double memtable_bloom_ratio = 0.1;
  // --prefix_extractor (or fixed:--prefix_size); null = none. Filters then
  // hold prefixes too; whole_key_filtering / memtable_whole_key_filtering
  // say whether they keep whole keys (RocksDB's options of those names).
  std::shared_ptr<const engine::PrefixExtractor> prefix_extractor;
  bool whole_key_filtering = true;
  bool memtable_whole_key_filtering = true;
  // --range_filter: every table's range filter (any registered range
  // variant); null = none. filterlab engine only.
  std::shared_ptr<const RangeFilterPolicy> range_filter;
  bool hash_index = false;
  double util_ratio = 0.75;
  std::string approx_algorithm = "new";  // new | old
  int64_t block_size = 4096;
  int64_t cache_mb = 1024;
  // MiB, fractions allowed (0.0625 = 64 KiB: many levels from little data).
  double write_buffer_mb = 64;
  double target_file_mb = 64;
  double level1_mb = 256;
  double level_multiplier = 10;  // target(L+1) / target(L)
  int64_t num_levels = 7;
  bool disable_auto_compactions = false;
  bool sync = false;
  std::string wal_recovery_mode = "tolerate_corrupted_tail_records";  // engine::WalRecoveryModeName
  bool statistics = false;                                            // rocksdb: collect Statistics (filter tickers)
  // Tables read with O_DIRECT (both engines); OpenEngine turns it off, with
  // a message, where the database's filesystem refuses O_DIRECT.
  bool use_direct_reads = false;
  std::string compression = "none";  // data blocks: none | lz4 | zstd
  double compression_ratio = 1.0;    // values' compressible share (bench_keys.h ValueSource)

  // --- database location ---
  std::string db;  // "" = a fresh temporary directory
  bool use_existing_db = false;
  bool keep_db = false;

  // --check: everything above was validated; run nothing.
  bool check_only = false;
};

// One multireadrandom pass: its stride and whether it calls MultiGet (true)
// or a loop of Get (false).
struct MultiReadVariant {
  int64_t stride = 0;
  bool batched = true;
};

// Every (stride, batched) pair of the config, stride-major in list order:
// --multiread_stride=0,16 --multiread_batched=true,false gives (0,true),
// (0,false), (16,true), (16,false).
std::vector<MultiReadVariant> MultiReadVariants(const BenchConfig& config);

// One allocation pass: the policy and budget the tables take at its
// rewritefilters, under which the benchmarks after it run.
struct AllocationPass {
  std::string policy;
  double budget_bpk = 10;
};

// Every (budget, policy) pair of the --filter_budget_bpk and --filter_policy
// lists, budget-major in list order (--filter_budget_bpk=2,5
// --filter_policy=uniform,monkey gives (uniform,2), (monkey,2), (uniform,5),
// (monkey,5)); one pass, the flags' values, without lists. Budget-major
// because a pass's bigger filters may push a level past its byte target and
// a compaction then reshapes the tree: with budgets rising, every policy at
// one budget meets the same tree.
std::vector<AllocationPass> AllocationPasses(const BenchConfig& config);
// The index in config.benchmarks of the first rewritefilters, where the
// passes start (benchmarks.size() without one).
size_t FirstAllocationPassBenchmark(const BenchConfig& config);
// config with filter_policy and filter_budget_bpk set to the pass's.
BenchConfig ConfigForPass(const BenchConfig& config, const AllocationPass& pass);

// What RocksDB builds for lsmbench's --filter on --engine=rocksdb: its
// FastLocalBloom (NewBloomFilterPolicy(bits_per_key)) for "fastlocal:bpk=B",
// its Standard128Ribbon (NewRibbonFilterPolicy(bits_per_key), B being the
// Bloom-equivalent bits/key as in our ribbon:bpk=B) for "ribbon:bpk=B"; kind
// kNone for no filter. Any other spec (other variants, other probes or hash
// widths, ribbon:fp=) is InvalidArgument: RocksDB has no such knob.
struct RocksDbTableFilter {
  enum Kind { kNone, kBloom, kRibbon } kind = kNone;
  double bits_per_key = 0;
};
Status RocksDbTableFilterFor(const FilterPolicy* policy, RocksDbTableFilter* out);

// What LevelDB builds for --filter on --engine=leveldb: its Bloom
// (NewBloomFilterPolicy(bits)) for "legacy_block:bpk=B" with whole B, the
// same math; *bits = 0 for no filter. Any other spec is InvalidArgument.
Status LevelDbFilterBitsFor(const FilterPolicy* policy, double* bits);

// Parses argv[1..argc) into *config and cross-checks it. With --help or
// --describe, *help receives the usage text or the JSON description and the
// result is OK; with --check, config->check_only is set. Bad flags or values
// give InvalidArgument naming the flag, the value and what is allowed.
Status ParseBenchConfig(int argc, char** argv, BenchConfig* config, std::string* help);

// What `lsmbench --describe` prints: DescribeProgram("lsmbench", ...) with one
// command holding every flag and every field of the JSON records.
nlohmann::ordered_json LsmbenchDescription();

}  // namespace filterlab::lsmbench
