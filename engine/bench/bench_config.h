// lsmbench's configuration: every command-line flag, parsed and cross-checked
// once (benchmark names, filter specs, engine-specific limits), so the
// benchmarks and engines read plain validated fields. Flags follow db_bench's
// names where db_bench has the same knob (--num, --reads, --batch_size,
// --multiread_stride, --seek_nexts, --use_existing_db, ...).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/status.h"

namespace filterlab::lsmbench {

// Every benchmark name lsmbench knows, in the order --help lists them.
const std::vector<std::string>& KnownBenchmarks();

struct BenchConfig {
  std::vector<std::string> benchmarks;
  std::string engine = "filterlab";  // filterlab | memtable | rocksdb

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
  int64_t threads = 1;
  uint64_t seed = 301;
  bool histogram = false;

  // --- engine options (canonical spec strings; "" = none) ---
  std::string filter;
  // Per-level overrides: entry L is the spec of level L ("" = use filter).
  std::vector<std::string> filter_per_level;
  std::string memtable_filter;
  double memtable_bloom_ratio = 0.1;
  bool hash_index = false;
  double util_ratio = 0.75;
  std::string approx_algorithm = "new";  // new | old
  int64_t block_size = 4096;
  int64_t cache_mb = 1024;
  int64_t write_buffer_mb = 64;
  int64_t target_file_mb = 64;
  int64_t level1_mb = 256;
  bool disable_auto_compactions = false;
  bool sync = false;
  bool statistics = false;  // rocksdb: collect Statistics (filter tickers)

  // --- database location ---
  std::string db;  // "" = a fresh temporary directory
  bool use_existing_db = false;
  bool keep_db = false;
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

// Parses argv[1..argc) into *config. With --help, *help receives the usage
// text and the result is OK; bad flags or values give InvalidArgument naming
// the flag, the value and what is allowed.
Status ParseBenchConfig(int argc, char** argv, BenchConfig* config, std::string* help);

// "none" or "" → ""; otherwise the canonical spec of a valid filter policy
// (InvalidArgument naming `flag` on a bad spec). With require_dynamic the
// variant must be a dynamic one (the memtable filter).
Status CanonicalFilterSpec(const std::string& flag, const std::string& text, bool require_dynamic,
                           std::string* canonical);

}  // namespace filterlab::lsmbench
