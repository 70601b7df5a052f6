#include "engine/bench/bench_config.h"

#include <memory>

#include "common/flags.h"
#include "common/strings.h"
#include "engine/bench/benchmarks.h"
#include "engine/db/db_tickers.h"
#include "engine/db/options.h"
#include "engine/util/prefix_extractor.h"
#include "filters/allocation/level_allocation.h"
#include "filters/filter.h"
#include "filters/filter_spec.h"
#include "filters/rocksdb_native_filter.h"

namespace filterlab::lsmbench {

const std::vector<std::string>& KnownBenchmarks() {
  static const std::vector<std::string> names = {"fillseq",          "fillrandom",
                                                 "filluniquerandom", "overwrite",
                                                 "readrandom",       "readmissing",
                                                 "readseq",          "seekrandom",
                                                 "multireadrandom",  "approximatememtablestats",
                                                 "readwhilewriting", "flush",
                                                 "compact",          "waitforcompaction",
                                                 "rewritefilters",   "stats",
                                                 "seekempty",        "scanrange"};
  return names;
}

namespace {

constexpr char kSummary[] =
    "db_bench-style benchmarks of the filterlab LSM engine (and, when built with librocksdb-dev, of RocksDB with "
    "equivalent options). Human-readable results go to stderr, one JSON object per benchmark to stdout.";

bool Contains(const std::vector<std::string>& v, const std::string& x) {
  for (const auto& e : v) {
    if (e == x) return true;
  }
  return false;
}

// The flags' values as the FlagSet writes them; ParseBenchConfig converts
// and checks them into a BenchConfig.
struct RawFlags {
  std::string filter, filter_per_level, filter_policy, filter_budgets, memtable_filter, strides, batched;
  std::string prefix_extractor, range_filter;
  long long num = 0, reads = 0, key_size = 0, value_size = 0, batch_size = 0, seek_nexts = 0, threads = 0, seed = 0,
            block_size = 0, cache_mb = 0, num_levels = 0, prefix_size = 0, keys_per_prefix = 0, max_scan_distance = 0,
            range_size = 0;
};

void DeclareFlags(FlagSet* flags, RawFlags* raw, BenchConfig* c) {
  flags->ChoiceList("benchmarks", "fillrandom,readrandom", KnownBenchmarks(),
                    "comma-separated benchmarks, run in order on one database (a name may repeat, as in db_bench)",
                    &c->benchmarks, FlagSet::Repeats::kAllowed);
  flags->Choice("engine", "filterlab", {"filterlab", "memtable", "rocksdb", "leveldb"},
                "filterlab = our DB (engine/db); memtable = one bare MemTable (no WAL, never flushed); "
                "rocksdb = librocksdb with equivalent options; leveldb = libleveldb (fewer knobs: see its refusals)",
                &c->engine);
  flags->Int("num", 1000000, 1, 10000000000LL, "keys in the key space (and writes of fill benchmarks)", &raw->num);
  flags->Int("reads", -1, -1, 1000000000000LL, "operations of read benchmarks; -1 = --num", &raw->reads);
  flags->Int("key_size", 16, 8, 65536, "key bytes: 8-byte big-endian key number padded with '0' (db_bench's format)",
             &raw->key_size);
  flags->Int("value_size", 100, 0, 64 << 20, "value bytes", &raw->value_size);
  flags->Int("batch_size", 1, 1, 1000000,
             "entries per write batch and keys per MultiGet; the true range width of approximatememtablestats",
             &raw->batch_size);
  // The two multireadrandom lists are String flags parsed entry by entry
  // (ParseListFlag); their help says what the records of other benchmarks report.
  flags->String("multiread_stride", "0",
                "multireadrandom: keys of a batch are k, k+S, k+2S, ... (0 = independent random keys); S in "
                "0..1000000000, or a comma-separated list (0,16,256) to run multireadrandom once per stride on the "
                "same database. Other benchmarks' records report the first stride",
                &raw->strides);
  flags->String("multiread_batched", "true",
                "multireadrandom: one batched MultiGet per batch (true; a bare --multiread_batched is true) or a "
                "loop of Get over the same keys (false, the baseline); or the list true,false to run both. With "
                "lists of both flags multireadrandom runs once per (stride, batched) pair, stride-major in list "
                "order, each with its own line and record. Other benchmarks' records report the first value",
                &raw->batched);
  flags->Int("seek_nexts", 10, 0, 1000000, "seekrandom: Next() calls after each Seek", &raw->seek_nexts);
  flags->Int("prefix_size", 0, 0, 1024,
             "db_bench's: N > 0 sets the prefix extractor fixed:N (--prefix_extractor names others); with "
             "--keys_per_prefix, keys start with an N-byte prefix",
             &raw->prefix_size);
  flags->String("prefix_extractor", "",
                "fixed:N, capped:N or none (RocksDB's NewFixedPrefixTransform / NewCappedPrefixTransform): table and "
                "memtable filters also hold key prefixes; empty = fixed:--prefix_size, or none without it",
                &raw->prefix_extractor);
  flags->Int("keys_per_prefix", 0, 0, 1000000000,
             "db_bench's: key number k starts with the prefix k mod (num / keys_per_prefix), --prefix_size bytes, "
             "so each prefix holds about keys_per_prefix keys; 0 = no prefixes in the keys",
             &raw->keys_per_prefix);
  flags->Bool("whole_key_filtering", "table filters hold whole keys (RocksDB's option; false needs a prefix extractor)",
              &c->whole_key_filtering, true);
  flags->Bool("memtable_whole_key_filtering",
              "the memtable filter holds whole keys (RocksDB's option; false needs a prefix extractor)",
              &c->memtable_whole_key_filtering, true);
  flags->String("key_source", "db_bench",
                "key values: db_bench = the key number; or uniform | normal | clustered | sosd:PATH "
                "(filters/range/range_workload.h: num distinct 64-bit values from --seed, or a SOSD file's), stored "
                "big-endian, so ranges between keys can be empty",
                &c->key_source);
  flags->String("range_filter", "none",
                "every table's range filter: a registered range spec (grafite:bpk=16, rosetta:bpk=16,range=1024, "
                "prefix_bloom:prefix=6,bpk=10, bucketing:bpk=16, ...) or none; asked by seeks with an upper bound",
                &raw->range_filter);
  flags->Int("max_scan_distance", 0, 0, 1000000000000LL,
             "seekrandom: D > 0 sets iterate_upper_bound to key min(k + D, num) for a seek to key k (db_bench's)",
             &raw->max_scan_distance);
  flags->Bool("prefix_same_as_start", "iterators return only keys with the seek target's prefix (RocksDB's)",
              &c->prefix_same_as_start);
  flags->Bool("total_order_seek", "iterators never use prefix filters (RocksDB's)", &c->total_order_seek);
  flags->Bool("auto_prefix_mode",
              "iterators use prefix filters only where the result equals a total-order seek's (RocksDB's, without "
              "its short-key bug)",
              &c->auto_prefix_mode);
  flags->Int("range_size", 1024, 1, 1LL << 62,
             "seekempty and scanrange: key values per range ([lo, lo + range_size - 1])", &raw->range_size);
  flags->Double("range_correlation", -1, -1, 1,
                "seekempty: -1 = uncorrelated (uniform left ends); d in [0, 1] = a stored value + "
                "U[1, 2^round(30 (1 - d))] (Grafite's correlated queries)",
                &c->range_correlation);
  flags->Int("threads", 1, 1, 1024,
             "benchmark threads, each with its own key stream (db_bench's): read benchmarks run --reads per "
             "thread, fills share --num writes among the threads, readwhilewriting runs this many readers beside "
             "its writer; flush, compact, waitforcompaction, rewritefilters and stats run once",
             &raw->threads);
  flags->Int("seed", 301, 0, 9223372036854775807LL, "seed of the key and value generators", &raw->seed);
  flags->Bool("histogram", "also time each call and report latency percentiles", &c->histogram);
  flags->String("filter", "fastlocal:bpk=10",
                "full filter of every table: a registry spec or none (--engine=leveldb: none or legacy_block:bpk=B, "
                "default legacy_block:bpk=10)",
                &raw->filter);
  flags->String("filter_per_level", "",
                "per-level filters SPEC0;SPEC1;... (an empty entry = --filter, none = no filter at that level)",
                &raw->filter_per_level);
  flags->String("filter_policy", "",
                "filter memory across levels: uniform | monkey | no_last_level | optimal, one budget "
                "(--filter_budget_bpk) spread over the levels at every flush and compaction; each level's "
                "--filter / --filter_per_level spec then names only its family (bpk and probes are the "
                "policy's); empty = each level's spec as given. A comma-separated list (uniform,monkey) runs "
                "the benchmarks from the first rewritefilters on once per (budget, policy) pair on the same "
                "tree (see --filter_budget_bpk)",
                &raw->filter_policy);
  flags->String("filter_budget_bpk", "10",
                "with --filter_policy: total filter bits / total keys (filter memory the tables hold), in "
                "0.01..100; or a comma-separated list (2,5,8). With lists of either flag the benchmarks before "
                "the first rewritefilters run once, under the first pair; then, for each budget in list order "
                "and each policy in list order, lsmbench reopens the database under that pair and runs the "
                "benchmarks from rewritefilters to the end, each with its own line and record (whose "
                "filter_policy and filter_budget_bpk say which pair)",
                &raw->filter_budgets);
  flags->Double("filter_found_share", 0, 0, 1,
                "with --filter_policy: the share of lookups for stored keys the policy weighs (0: all "
                "lookups are for missing keys)",
                &c->filter_found_share);
  flags->String("memtable_filter", "none", "memtable filter: a dynamic registry spec or none", &raw->memtable_filter);
  flags->Double("memtable_bloom_ratio", 0.1, 0.0001, 0.25,
                "memtable filter bytes / write buffer bytes (RocksDB memtable_prefix_bloom_size_ratio)",
                &c->memtable_bloom_ratio);
  flags->Bool("hash_index", "data-block hash index (kDataBlockBinaryAndHash)", &c->hash_index);
  flags->Double("util_ratio", 0.75, 0.01, 1, "data-block hash index util ratio (keys per bucket)", &c->util_ratio);
  flags->Choice("approx_algorithm", "new", {"new", "old"},
                "ApproximateNumEntries algorithm of approximatememtablestats (rocksdb 7.8.3 has only old)",
                &c->approx_algorithm);
  flags->Int("block_size", 4096, 256, 64 << 20, "data block bytes", &raw->block_size);
  flags->Int("cache_mb", 1024, 0, 1 << 20, "block cache MiB (0 = none)", &raw->cache_mb);
  flags->Double("write_buffer_mb", 64, 1.0 / 64, 1 << 16, "memtable MiB before a flush (fractions allowed)",
                &c->write_buffer_mb);
  flags->Double("target_file_mb", 64, 1.0 / 64, 1 << 16, "compaction output file MiB (fractions allowed)",
                &c->target_file_mb);
  flags->Double("level1_mb", 256, 1.0 / 64, 1 << 24,
                "L1 target MiB (each deeper level x --level_multiplier; fractions allowed)", &c->level1_mb);
  flags->Double("level_multiplier", 10, 2, 1000, "size ratio T of consecutive levels' targets", &c->level_multiplier);
  flags->Int("num_levels", 7, 2, 20, "levels of the tree (L0 included)", &raw->num_levels);
  flags->Bool("disable_auto_compactions", "no background compactions (flushes still run)",
              &c->disable_auto_compactions);
  flags->Bool("sync", "sync the WAL on every write", &c->sync);
  flags->Choice(
      "wal_recovery_mode", "tolerate_corrupted_tail_records",
      {"tolerate_corrupted_tail_records", "absolute_consistency", "point_in_time", "skip_any_corrupted_records"},
      "filterlab engine: what opening a --db with a damaged WAL does (RocksDB's WALRecoveryMode)",
      &c->wal_recovery_mode);
  flags->Choice("compression", "none", {"none", "lz4", "zstd"},
                "compression of table data blocks (filterlab: per block, kept where it saves 1/8; rocksdb: its "
                "compression and bottommost_compression)",
                &c->compression);
  flags->Double("compression_ratio", 1.0, 0.01, 1.0,
                "values are built so a compressor shrinks them to about this fraction (db_bench's flag, whose "
                "default is 0.5); 1 = incompressible random bytes",
                &c->compression_ratio);
  flags->Bool("use_direct_reads",
              "read tables with O_DIRECT (filterlab: engine/util/direct_file.h; rocksdb: its use_direct_reads), so "
              "a block-cache miss is a storage read; with a small --cache_mb this is the cold workload. Where the "
              "filesystem refuses O_DIRECT (tmpfs) lsmbench says so and reads buffered",
              &c->use_direct_reads);
  flags->Bool(
      "statistics",
      "rocksdb: collect Statistics and report its filter tickers (per-level and memtable filter counters come from the "
      "benchmark thread's perf context: with --threads=1 only)",
      &c->statistics);
  flags->Bool("rocksdb_filter_adapter",
              "rocksdb: build --filter through filterlab's FilterPolicy adapter even when RocksDB has it natively "
              "(fastlocal:bpk=B, legacy:bpk=B, ribbon:bpk=B); those filters are then also built by RocksDB's own "
              "policy and must be byte for byte the same (the adapter's cross-check). Other specs always use the "
              "adapter",
              &c->rocksdb_filter_adapter);
  flags->String("db", "", "database directory; default a fresh temporary directory, removed at the end", &c->db);
  flags->Bool("use_existing_db", "open --db as it is; fill benchmarks are skipped (as in db_bench)",
              &c->use_existing_db);
  flags->Bool("keep_db", "keep the temporary database directory (its path is printed)", &c->keep_db);
}

// Every field of the JSON records (report.cc MakeRecord, the benchmarks'
// own fields in benchmarks.cc, each engine's DescribeOptions / Levels /
// FilterStats). Fields a record may lack are simply absent.
void DeclareRecordFields(FlagSet* flags) {
  // Every record.
  flags->Field("engine", "string", "--engine");
  flags->Field("benchmark", "string", "the benchmark's name");
  flags->Field("num", "int", "--num");
  flags->Field("reads", "int", "--reads (resolved: --num when -1)");
  flags->Field("ops", "int", "operations done");
  flags->Field("seconds", "number", "wall time of the operations");
  flags->Field("micros_per_op", "number", "seconds x 1e6 / ops (0 without ops)");
  flags->Field("ops_per_sec", "number", "ops / seconds (0 without time)");
  flags->Field("cpu_seconds", "number", "CPU time of the benchmark threads over their loops, summed");
  flags->Field("cpu_micros_per_op", "number", "cpu_seconds x 1e6 / ops (0 without ops)");
  flags->Field("mb_per_sec", "number", "fills and scans: (key + value bytes) per second in MiB");
  flags->Field("found", "int?", "read benchmarks: lookups that found their key; null for the others");
  flags->Field("batch_size", "int", "--batch_size");
  flags->Field("stride", "int", "multireadrandom: its pass's stride; others: the first --multiread_stride");
  flags->Field("multiread_batched", "bool",
               "multireadrandom: whether its pass called MultiGet; others: the first --multiread_batched");
  flags->Field("key_size", "int", "--key_size");
  flags->Field("value_size", "int", "--value_size");
  flags->Field("filter", "string", "the --filter policy's canonical spec, or none");
  flags->Field("filter_per_level", "array",
               "with --filter_per_level: per level, the canonical spec its tables are built with, or none");
  flags->Field("hash_index", "bool", "--hash_index");
  flags->Field("util_ratio", "number", "--util_ratio");
  flags->Field("memtable_filter", "string", "the --memtable_filter policy's canonical spec, or none");
  flags->Field("memtable_bloom_ratio", "number", "--memtable_bloom_ratio, 0 without a memtable filter");
  flags->Field("block_size", "int", "--block_size");
  flags->Field("cache_mb", "int", "--cache_mb");
  flags->Field("compression", "string", "--compression");
  flags->Field("compression_ratio", "number", "--compression_ratio");
  flags->Field("write_buffer_mb", "number", "--write_buffer_mb");
  flags->Field("seed", "int", "--seed");
  flags->Field("threads", "int", "benchmarks with a loop: --threads, the threads that ran it");
  flags->Field("thread_ops_per_sec", "array",
               "benchmarks with a loop: each thread's ops / its own loop seconds (ops_per_sec is the aggregate: "
               "all threads' ops / the slowest thread's seconds)");
  // --histogram.
  flags->Field("latency_unit", "string", "with --histogram: the unit of the latency fields (micros per call)");
  flags->Field("p50_micros", "number", "with --histogram: median latency per call");
  flags->Field("p99_micros", "number", "with --histogram: 99th percentile latency per call");
  flags->Field("p999_micros", "number", "with --histogram: 99.9th percentile latency per call");
  flags->Field("max_micros", "number", "with --histogram: largest latency per call");
  // The benchmarks' own fields.
  flags->Field("entries_written", "int", "fill benchmarks: entries written");
  flags->Field("tables_rewritten", "int", "rewritefilters: tables rewritten for the filter allocation");
  flags->Field("seek_nexts", "int", "seekrandom: --seek_nexts");
  flags->Field("prefix_extractor", "string", "the prefix extractor's canonical spec (fixed:N, capped:N) or none");
  flags->Field("keys_per_prefix", "int", "--keys_per_prefix (0: keys without prefixes)");
  flags->Field("whole_key_filtering", "bool", "--whole_key_filtering");
  flags->Field("memtable_whole_key_filtering", "bool", "--memtable_whole_key_filtering");
  flags->Field("key_source", "string", "--key_source");
  flags->Field("range_filter", "string", "the --range_filter policy's canonical spec, or none");
  flags->Field("range_filter_bits_per_key", "number",
               "filterlab engine: bits of all tables' range filter blocks / their entries (outside the "
               "--filter_budget_bpk budget, which spreads the point filters' bits)");
  flags->Field("max_scan_distance", "int", "--max_scan_distance");
  flags->Field("prefix_same_as_start", "bool", "--prefix_same_as_start");
  flags->Field("total_order_seek", "bool", "--total_order_seek");
  flags->Field("auto_prefix_mode", "bool", "--auto_prefix_mode");
  flags->Field("range_size", "int", "seekempty and scanrange: --range_size");
  flags->Field("range_correlation", "number", "seekempty: --range_correlation (-1: uncorrelated)");
  flags->Field("keys_returned", "int", "scanrange: keys the scans returned (each checked against the key set)");
  flags->Field("seek_stats", "object",
               "filterlab engine, and rocksdb with --statistics: RocksDB's seek tickers (PR #11460) since the "
               "benchmark started, as {total, last_level, non_last_level} objects (filterlab: last = the deepest "
               "level holding tables; per level in `levels`), each with filtered (table seeks a filter ruled out: "
               "table skipped), filter_match (a filter passed), data (seeks that read data), data_useful_no_filter "
               "and data_useful_filter_match (... found a key in the seek's range) and fp_rate ((filter_match - "
               "data_useful_filter_match) / (filtered + filter_match - data_useful_filter_match), null without such "
               "seeks; RocksDB 7.8.3 predates the tickers: its total has filtered = BLOOM_FILTER_PREFIX_USEFUL and "
               "filter_match = CHECKED - USEFUL, the others null); memtable_prefix_bloom {hits, misses} (with a "
               "memtable filter and a prefix extractor; RocksDB: bloom_memtable_hit_count / miss_count)");
  flags->Field("nexts_done", "int", "seekrandom: Next() calls that found an entry");
  flags->Field("batches", "int", "multireadrandom: batches looked up");
  flags->Field("writes_during", "int", "readwhilewriting: writes done while the reads ran");
  flags->Field("expected", "int", "approximatememtablestats: the true entries per range (--batch_size)");
  flags->Field("count", "int", "approximatememtablestats: estimates taken");
  flags->Field("mean", "number", "approximatememtablestats: mean estimate");
  flags->Field("stddev", "number", "approximatememtablestats: standard deviation of the estimates");
  flags->Field("stddev_pct", "number", "approximatememtablestats: stddev as a percentage of expected");
  flags->Field("min", "number", "approximatememtablestats: smallest estimate");
  flags->Field("p50", "number", "approximatememtablestats: median estimate");
  flags->Field("p75", "number", "approximatememtablestats: 75th percentile estimate");
  flags->Field("p99", "number", "approximatememtablestats: 99th percentile estimate");
  flags->Field("p99_9", "number", "approximatememtablestats: 99.9th percentile estimate");
  flags->Field("max", "number", "approximatememtablestats: largest estimate");
  flags->Field("zero_fraction", "number", "approximatememtablestats: fraction of estimates that were 0");
  flags->Field("histogram", "array", "approximatememtablestats: [[bucket_low, count], ...] of the estimates");
  flags->Field("table_bytes", "int",
               "approximatememtablestats and stats: bytes in tables when it ran (0: all data in memtables)");
  flags->Field("stats", "string", "stats: the engine's statistics text (the DB's filterlab.stats property)");
  // The engines' own fields.
  flags->Field("approx_algorithm", "string",
               "filterlab engine and approximatememtablestats: the memtable range estimate (new or old)");
  flags->Field("engine_note", "string", "memtable and rocksdb engines: what a reader of the numbers must know");
  flags->Field("memtable_entries", "int", "memtable engine: entries in the memtable");
  flags->Field("engine_version", "string", "rocksdb engine: the library's version");
  flags->Field("rocksdb_options", "string", "rocksdb engine: the options it ran with");
  flags->Field("leveldb_options", "string", "leveldb engine: the options it ran with");
  flags->Field("sst_bytes", "int", "bytes in tables (0 while everything is in memtables)");
  // The DB's counters are named once, in engine/db/db_tickers.h.
  std::string level_tickers, db_tickers;
  for (const engine::TickerInfo& t : engine::kLevelTickerInfo) {
    level_tickers += std::string(level_tickers.empty() ? "" : ", ") + t.name + " (" + t.help + ")";
  }
  for (const engine::TickerInfo& t : engine::kTickerInfo) {
    db_tickers += std::string(db_tickers.empty() ? "" : ", ") + t.name + " (" + t.help + ")";
  }
  flags->Field(
      "levels", "array",
      ("filterlab and rocksdb engines: one object per level that has files or whose filter was consulted "
       "during the benchmark: level (int), files (int), bytes (int), filter (string, filterlab engine: the "
       "canonical spec the level's tables hold, or none) and, where the engine counts them (filterlab "
       "always, rocksdb with --statistics and --threads=1), filter_checked, filter_useful (negatives), "
       "filter_positive, "
       "filter_true_positive (ints, since the benchmark started) and fp_rate (number, or null without "
       "lookups of absent keys: (positive - true_positive) / (checked - true_positive)); filterlab engine "
       "also: entries (int), filter_bytes (int), model_fp (number: the model FP rate a lookup of an absent "
       "key expects at one of its tables, 1 without a filter), range_filter (string: the range filter spec "
       "its tables hold, or empty), range_filter_bytes (int), range_model_fp (number: the range filter's model "
       "or bound FP rate for an empty range of --range_size values placed independently of the keys, at the "
       "level's mean keys per table; null without a range filter or without a model), reach (number: the expected "
       "number of the level's "
       "tables a lookup probes, lookups following the stored keys), wasted_reads (int: lookups - filter_useful - "
       "found) and every level ticker (ints since the benchmark started): " +
       level_tickers)
          .c_str());
  flags->Field("tickers", "object",
               ("filterlab engine: every DB-wide ticker since the benchmark started (ints): " + db_tickers).c_str());
  flags->Field("wal_recovery_mode", "string", "filterlab engine: --wal_recovery_mode");
  flags->Field("recovery", "object",
               "filterlab engine: what its Open recovered and dropped: wal_records_replayed, wal_damaged_regions, "
               "wal_bytes_dropped, wal_records_dropped, wal_writes_dropped, manifest_bytes_dropped, "
               "files_moved_to_lost (ints; damaged logs and orphan tables go to lost/ in the DB directory)");
  flags->Field("direct_reads", "bool",
               "filterlab and rocksdb engines: whether tables were read with O_DIRECT (--use_direct_reads, and the "
               "filesystem accepted it)");
  flags->Field("io", "object",
               "filterlab engine, and rocksdb with --statistics: table reads since the benchmark started: "
               "block_reads {data, index, filter} (blocks read from the file: storage reads with direct reads), "
               "bytes_read {data, index, filter} (filterlab: stored bytes with trailers; rocksdb: bytes its block "
               "cache took in per kind), block_cache {hits, misses} over all kinds, fp_data_block_reads and "
               "fp_data_block_fetches (filterlab: data blocks read / fetched by lookups the filter passed in a "
               "table without the key; null on rocksdb, which does not count them), and per operation: "
               "data_block_reads_per_op and fp_data_block_reads_per_op");
  flags->Field("filter_policy", "string", "with --filter_policy: the policy");
  flags->Field("filter_budget_bpk", "number", "with --filter_policy: --filter_budget_bpk");
  flags->Field("filter_found_share", "number", "with --filter_policy: --filter_found_share");
  flags->Field("level_multiplier", "number", "filterlab engine: --level_multiplier");
  flags->Field("num_levels", "int", "filterlab engine: --num_levels");
  flags->Field("filter_bits_per_key", "number",
               "filterlab engine: bits of all tables' filter blocks / their entries (the memory a budget is held to)");
  flags->Field("fp_reads_per_op", "number?",
               "filterlab engine: data blocks read for keys the table did not hold (false positives, and every "
               "lookup of a missing key in a table without a filter), summed over the levels, per operation; null "
               "without operations");
  flags->Field("fp_reads_model_per_op", "number?",
               "filterlab engine: what the filters' models expect of fp_reads_per_op given the lookups each level "
               "saw (sum of model_fp x (lookups - found)), per operation; null without operations");
  flags->Field("fp_reads_model_sigma_per_op", "number?",
               "filterlab engine: the binomial standard deviation of fp_reads_per_op under the models (sqrt of the "
               "sum of (lookups - found) p (1 - p)) per operation; null without operations");
  flags->Field("fp_reads_tree_model", "number",
               "filterlab engine: what the tree expects of fp_reads_per_op for a missing-key lookup from its tables "
               "alone, no counts measured: sum over levels of reach x model_fp (reach: the expected number of the "
               "level's tables a lookup probes, lookups following the stored keys; engine/db/level_filters.h)");
  flags->Field("filter_stats", "object",
               "other counters since the benchmark started: memtable {negatives, positives} (with a memtable "
               "filter), block_cache {hits, misses, usage, capacity} ({} without a cache; usage = bytes cached "
               "now, the cache footprint; rocksdb with --statistics: usage and capacity from its LRU cache), "
               "hash_index {lookups, "
               "collisions} (with --hash_index); rocksdb with --statistics also total {useful, positive, "
               "true_positive}; rocksdb with a filter through the adapter: adapter {filters_built, entries, "
               "readers_opened, cross_checked, cross_check_identical} since the DB opened");
}

nlohmann::ordered_json Describe(const FlagSet& flags) {
  return DescribeProgram("lsmbench", kSummary, {flags.Description()});
}

// RocksDB's block-based tables offer FastLocalBloom (format_version 5) with
// only a bits/key knob; our spec must say no more than that.
}  // namespace

Status RocksDbTableFilterFor(const FilterPolicy* policy, bool force_adapter, RocksDbTableFilter* out) {
  *out = RocksDbTableFilter{};
  if (policy == nullptr) return Status::OK();
  if (policy->is_dynamic()) {
    return Status::InvalidArgument("lsmbench: --filter=" + policy->spec() +
                                   " cannot be a table filter on --engine=rocksdb: it is a memtable filter "
                                   "(dynamic); allowed: none or any static registry spec");
  }
  const RocksDbNativeFilter native = RocksDbNativeFilterOf(*policy);
  out->format_version = native.format_version;
  if (force_adapter || native.kind == RocksDbNativeFilter::kNone) {
    out->kind = RocksDbTableFilter::kAdapter;
    out->cross_check = native.kind != RocksDbNativeFilter::kNone;
    return Status::OK();
  }
  out->kind = native.kind == RocksDbNativeFilter::kRibbon        ? RocksDbTableFilter::kRibbon
              : native.kind == RocksDbNativeFilter::kLegacyBloom ? RocksDbTableFilter::kLegacyBloom
                                                                 : RocksDbTableFilter::kBloom;
  out->bits_per_key = native.bits_per_key;
  return Status::OK();
}

Status LevelDbFilterBitsFor(const FilterPolicy* policy, double* bits) {
  *bits = 0;
  if (policy == nullptr) return Status::OK();
  FilterSpec spec;
  double bpk = 0;
  Status s = FilterSpec::Parse(policy->spec(), &spec);
  if (s.ok() && policy->variant() == "legacy_block" && spec.Has("bpk")) s = spec.GetDouble("bpk", 10, 0, 100, &bpk);
  std::unique_ptr<FilterPolicy> plain;
  const bool whole = bpk >= 1 && bpk == static_cast<double>(static_cast<int>(bpk));
  if (s.ok() && whole) s = NewFilterPolicy("legacy_block:bpk=" + FormatNumber(bpk), &plain);
  if (!s.ok() || plain == nullptr || plain->spec() != policy->spec()) {
    return Status::InvalidArgument("lsmbench: --filter=" + policy->spec() +
                                   " cannot run on --engine=leveldb: LevelDB's only filter is its Bloom "
                                   "(NewBloomFilterPolicy(whole bits per key)); allowed: none or "
                                   "legacy_block:bpk=B with a whole B");
  }
  *bits = bpk;
  return Status::OK();
}

namespace {

// What LevelDB cannot run (its engine would otherwise ignore the flag).
Status CheckLevelDbLimits(const FlagSet& flags, const BenchConfig& c) {
  double bits = 0;
  Status s = LevelDbFilterBitsFor(c.filter.get(), &bits);
  if (!s.ok()) return s;
  const std::string where = "lsmbench: --engine=leveldb: ";
  if (!c.filter_per_level.empty()) return Status::InvalidArgument(where + "--filter_per_level is not available");
  if (c.memtable_filter != nullptr) return Status::InvalidArgument(where + "LevelDB has no memtable filter");
  if (c.hash_index) return Status::InvalidArgument(where + "LevelDB has no data-block hash index");
  if (c.compression != "none") {
    return Status::InvalidArgument(where + "--compression=" + c.compression +
                                   " is not available (LevelDB offers Snappy only); allowed: none");
  }
  if (c.use_direct_reads) return Status::InvalidArgument(where + "LevelDB has no direct reads");
  if (flags.WasSet("level1_mb")) {
    return Status::InvalidArgument(where + "--level1_mb is not available (LevelDB's level sizes are fixed)");
  }
  if (c.statistics) return Status::InvalidArgument(where + "--statistics applies to --engine=rocksdb only");
  // LevelDB has no prefix extractor, prefix filters or iterate_upper_bound:
  // keys with prefixes, bounds and prefix_same_as_start run there with the
  // bound and prefix applied by lsmbench's iterator (engine.h
  // WithEmulatedBounds), and what only filters could change is refused.
  if (!c.whole_key_filtering) {
    return Status::InvalidArgument(where +
                                   "--whole_key_filtering=false is not available (LevelDB's filters hold "
                                   "whole keys only)");
  }
  if (c.auto_prefix_mode || c.total_order_seek) {
    return Status::InvalidArgument(where +
                                   "--auto_prefix_mode and --total_order_seek are not available (LevelDB "
                                   "has no prefix seek; every seek is total-order)");
  }
  return Status::OK();
}

// RocksDB's memtable Bloom is always DynamicBloom with 6 probes over the
// 32-bit legacy hash; only its size (the bits ratio) is a knob.
Status CheckRocksDbMemtableFilter(const FilterPolicy* policy) {
  if (policy == nullptr) return Status::OK();
  if (policy->variant() != "dynamic" || policy->num_probes() != 6 || policy->hash_width() != HashWidth::k32) {
    return Status::InvalidArgument("lsmbench: --memtable_filter=" + policy->spec() +
                                   " cannot run on --engine=rocksdb: RocksDB's memtable Bloom is DynamicBloom "
                                   "with 6 probes and a 32-bit hash, sized by --memtable_bloom_ratio; allowed: "
                                   "none or dynamic:probes=6,hash=32");
  }
  return Status::OK();
}

// The values of a flag that takes one value or a comma-separated list
// (--multiread_stride, --multiread_batched). Each entry is parsed by a
// one-flag FlagSet declared by `declare`, so an entry accepts exactly what the
// single-value flag always did (1e3 forms, 1/0 for booleans) and a single
// value fails with the same message as before. Entries must be distinct: a
// repeated value would run the same pass twice and read as an extra repeat.
template <typename T, typename Declare>
Status ParseListFlag(const std::string& flag, const std::string& text, Declare declare, std::vector<T>* out) {
  out->clear();
  const std::vector<std::string> entries = Split(text, ',');
  const bool is_list = entries.size() > 1;
  // A list's errors say which entry of the whole value is wrong.
  const std::string where = is_list ? "lsmbench: --" + flag + "=" + text + ": in the list" : "lsmbench";
  const std::string list_note = is_list ? "; the flag takes one value or a comma-separated list of them" : "";
  for (const std::string& entry : entries) {
    T value{};
    FlagSet one(where, "", "");
    declare(&one, &value);
    std::string arg = "--" + flag + "=" + entry;
    char* argv[] = {arg.data()};
    Status s = one.Parse(1, argv);
    if (!s.ok()) return Status::InvalidArgument(s.message() + list_note);
    for (const T& seen : *out) {
      if (seen == value) {
        return Status::InvalidArgument("lsmbench: --" + flag + "=" + text + ": '" + entry +
                                       "' is listed twice; allowed: each value once");
      }
    }
    out->push_back(value);
  }
  return Status::OK();
}

// The policy a filter flag names: "none" gives nullptr. With require_dynamic
// the variant must take inserts one at a time (the memtable filter).
Status ParseFilterFlag(const std::string& flag, const std::string& text, bool require_dynamic,
                       std::shared_ptr<const FilterPolicy>* policy) {
  Status s = engine::FilterPolicyFromSpec(text, policy);
  if (!s.ok()) return Status::InvalidArgument("lsmbench: --" + flag + "=" + text + ": " + s.message());
  if (require_dynamic && *policy != nullptr && !(*policy)->is_dynamic()) {
    return Status::InvalidArgument("lsmbench: --" + flag + "=" + text +
                                   ": the memtable filter takes inserts one at a time, so it must be a dynamic "
                                   "variant (e.g. dynamic:bpk=8,probes=6,hash=32; see ./filterlab list-filters), "
                                   "or none");
  }
  return Status::OK();
}

// --multiread_batched was a boolean flag, so its bare form means true; the
// String flag that now carries its list would take the next argument as its
// value instead, so the bare form is spelled out first.
std::vector<std::string> SpellOutBareFlags(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  for (std::string& arg : args) {
    if (arg == "--multiread_batched" || arg == "--multiread-batched") arg += "=true";
  }
  return args;
}

void CopyScalars(const RawFlags& raw, BenchConfig* c) {
  c->num = raw.num;
  c->reads = raw.reads < 0 ? raw.num : raw.reads;
  c->key_size = raw.key_size;
  c->value_size = raw.value_size;
  c->batch_size = raw.batch_size;
  c->seek_nexts = raw.seek_nexts;
  c->threads = raw.threads;
  c->seed = static_cast<uint64_t>(raw.seed);
  c->block_size = raw.block_size;
  c->cache_mb = raw.cache_mb;
  c->num_levels = raw.num_levels;
  c->prefix_size = raw.prefix_size;
  c->keys_per_prefix = raw.keys_per_prefix;
  c->max_scan_distance = raw.max_scan_distance;
  c->range_size = raw.range_size;
}

// --prefix_extractor, or fixed:--prefix_size; the key layout's limits.
Status ParsePrefixFlags(const RawFlags& raw, BenchConfig* c) {
  std::string spec = raw.prefix_extractor;
  if (spec.empty()) spec = c->prefix_size > 0 ? "fixed:" + std::to_string(c->prefix_size) : "none";
  Status s = engine::PrefixExtractorFromSpec(spec, &c->prefix_extractor);
  if (!s.ok()) return Status::InvalidArgument("lsmbench: --prefix_extractor: " + s.message());
  if (c->keys_per_prefix > 0) {
    if (c->prefix_size == 0) {
      return Status::InvalidArgument("lsmbench: --keys_per_prefix=" + std::to_string(c->keys_per_prefix) +
                                     " needs --prefix_size (the prefix bytes keys start with)");
    }
    if (c->key_size < c->prefix_size + 8) {
      return Status::InvalidArgument("lsmbench: --key_size=" + std::to_string(c->key_size) +
                                     " with --prefix_size=" + std::to_string(c->prefix_size) +
                                     " leaves less than the 8 bytes of the key value; allowed: key_size >= "
                                     "prefix_size + 8");
    }
    if (c->keys_per_prefix > c->num) {
      return Status::InvalidArgument("lsmbench: --keys_per_prefix=" + std::to_string(c->keys_per_prefix) +
                                     " exceeds --num=" + std::to_string(c->num));
    }
  }
  if (!c->whole_key_filtering && c->prefix_extractor == nullptr) {
    return Status::InvalidArgument(
        "lsmbench: --whole_key_filtering=false needs a prefix extractor (--prefix_size or --prefix_extractor): "
        "the filters would hold nothing");
  }
  if (!c->memtable_whole_key_filtering && c->prefix_extractor == nullptr) {
    return Status::InvalidArgument(
        "lsmbench: --memtable_whole_key_filtering=false needs a prefix extractor (--prefix_size or "
        "--prefix_extractor): the memtable filter would hold nothing");
  }
  const bool ranges = Contains(c->benchmarks, "seekempty") || Contains(c->benchmarks, "scanrange");
  if (ranges && c->keys_per_prefix > 0) {
    return Status::InvalidArgument(
        "lsmbench: seekempty and scanrange take ranges of key values; --keys_per_prefix puts a prefix before the "
        "value, so a value range is not a key range (allowed: --keys_per_prefix=0)");
  }
  if (Contains(c->benchmarks, "seekempty") && c->key_source == "db_bench") {
    return Status::InvalidArgument(
        "lsmbench: seekempty needs key values with gaps between them, and db_bench's keys are 0..num-1; allowed: "
        "--key_source=uniform, normal, clustered or sosd:PATH");
  }
  if (c->key_source != "db_bench" && c->key_source != "uniform" && c->key_source != "normal" &&
      c->key_source != "clustered" && c->key_source.rfind("sosd:", 0) != 0) {
    return Status::InvalidArgument("lsmbench: --key_source=" + c->key_source +
                                   " is unknown; allowed: db_bench, uniform, normal, clustered, sosd:PATH (text: "
                                   "key files hold byte strings, which lsmbench's numbered keys cannot take)");
  }
  s = engine::RangeFilterPolicyFromSpec(raw.range_filter, &c->range_filter);
  if (!s.ok()) return Status::InvalidArgument("lsmbench: --range_filter=" + raw.range_filter + ": " + s.message());
  if (c->range_filter != nullptr && c->engine != "filterlab") {
    return Status::InvalidArgument("lsmbench: --range_filter is not available with --engine=" + c->engine +
                                   " (it has no range filters); allowed there: none");
  }
  if (c->key_source != "db_bench" && c->num > (int64_t{1} << 28)) {
    return Status::InvalidArgument("lsmbench: --key_source=" + c->key_source +
                                   " holds every key value in memory (8 "
                                   "bytes each); --num=" +
                                   std::to_string(c->num) + " exceeds its limit 2^28");
  }
  if (c->range_correlation > 1 || (c->range_correlation < 0 && c->range_correlation != -1)) {
    return Status::InvalidArgument("lsmbench: --range_correlation must be -1 (uncorrelated) or in [0, 1]");
  }
  return Status::OK();
}

Status ParseMultiReadLists(const RawFlags& raw, BenchConfig* c) {
  std::vector<long long> strides;
  Status s = ParseListFlag<long long>(
      "multiread_stride", raw.strides,
      [](FlagSet* one, long long* v) { one->Int("multiread_stride", 0, 0, 1000000000, "", v); }, &strides);
  if (!s.ok()) return s;
  c->multiread_strides.assign(strides.begin(), strides.end());
  return ParseListFlag<bool>(
      "multiread_batched", raw.batched, [](FlagSet* one, bool* v) { one->Bool("multiread_batched", "", v); },
      &c->multiread_batched);
}

Status ParseFilters(const RawFlags& raw, BenchConfig* c) {
  Status s = ParseFilterFlag("filter", raw.filter, false, &c->filter);
  if (!s.ok()) return s;
  if (!raw.filter_per_level.empty()) {
    int level = 0;
    for (const std::string& part : Split(raw.filter_per_level, ';')) {
      std::shared_ptr<const FilterPolicy> policy = c->filter;  // an empty entry: --filter
      if (!part.empty()) {
        s = ParseFilterFlag("filter_per_level (level " + std::to_string(level) + ")", part, false, &policy);
        if (!s.ok()) return s;
      }
      c->filter_per_level.push_back(std::move(policy));
      ++level;
    }
  }
  s = ParseFilterFlag("memtable_filter", raw.memtable_filter, true, &c->memtable_filter);
  if (!s.ok()) return s;
  std::vector<double> budgets;
  s = ParseListFlag<double>(
      "filter_budget_bpk", raw.filter_budgets,
      [](FlagSet* one, double* v) { one->Double("filter_budget_bpk", 10, 0.01, 100, "", v); }, &budgets);
  if (!s.ok()) return s;
  c->filter_budgets_bpk = budgets;
  c->filter_budget_bpk = budgets.front();
  if (raw.filter_policy.empty()) return s;
  std::vector<std::string> policies;
  s = ParseListFlag<std::string>(
      "filter_policy", raw.filter_policy, [](FlagSet* one, std::string* v) { one->String("filter_policy", "", "", v); },
      &policies);
  if (!s.ok()) return s;
  for (const std::string& name : policies) {
    allocation::AllocationPolicy policy;
    s = allocation::ParseAllocationPolicy(name, &policy);
    if (!s.ok()) {
      return Status::InvalidArgument("lsmbench: --filter_policy=" + raw.filter_policy +
                                     (policies.size() > 1 ? ": in the list, '" + name + "'" : std::string()) + ": " +
                                     s.message());
    }
  }
  c->filter_policies = policies;
  c->filter_policy = policies.front();
  return Status::OK();
}

// Lists of --filter_policy / --filter_budget_bpk: passes over one tree, which
// start at the first rewritefilters (the tables take each pass's allocation
// there) and may not start a fresh database.
Status CheckAllocationPasses(const RawFlags& raw, const BenchConfig& c) {
  if (AllocationPasses(c).size() <= 1) return Status::OK();
  const std::string lists = "--filter_policy=" + raw.filter_policy + " --filter_budget_bpk=" + raw.filter_budgets;
  const size_t first = FirstAllocationPassBenchmark(c);
  if (first == c.benchmarks.size()) {
    return Status::InvalidArgument("lsmbench: " + lists + " gives " + std::to_string(AllocationPasses(c).size()) +
                                   " (budget, policy) passes, which start at rewritefilters; allowed: lists only "
                                   "with rewritefilters in --benchmarks (e.g. "
                                   "filluniquerandom,waitforcompaction,rewritefilters,readmissing)");
  }
  for (size_t i = first; i < c.benchmarks.size(); ++i) {
    if (NeedsFreshDb(c.benchmarks[i])) {
      return Status::InvalidArgument("lsmbench: " + lists + ": " + c.benchmarks[i] +
                                     " after rewritefilters would start a fresh database in every pass; allowed: "
                                     "fills before the first rewritefilters only (the passes share one tree)");
    }
  }
  return Status::OK();
}

// --filter_budget_bpk and --filter_found_share only mean something with a policy.
Status CheckFilterPolicyFlags(const FlagSet& flags, const BenchConfig& c) {
  if (c.filter_policy.empty()) {
    for (const char* name : {"filter_budget_bpk", "filter_found_share"}) {
      if (flags.WasSet(name)) {
        return Status::InvalidArgument(std::string("lsmbench: --") + name +
                                       " applies with --filter_policy=uniform|monkey|no_last_level|optimal only");
      }
    }
  }
  return Status::OK();
}

// Cross-checks between flags that hold whatever the engine.
Status CheckWorkload(const RawFlags& raw, const BenchConfig& c) {
  if (Contains(c.benchmarks, "approximatememtablestats") && c.batch_size >= c.num) {
    return Status::InvalidArgument("lsmbench: approximatememtablestats needs --batch_size (the range width, " +
                                   std::to_string(c.batch_size) + ") below --num (" + std::to_string(c.num) + ")");
  }
  if (Contains(c.benchmarks, "multireadrandom")) {
    for (const int64_t stride : c.multiread_strides) {
      if (stride > 0 && c.batch_size * stride > c.num) {
        return Status::InvalidArgument(
            "lsmbench: multireadrandom with --multiread_stride=" + std::to_string(stride) +
            (c.multiread_strides.size() > 1 ? " (from --multiread_stride=" + raw.strides + ")" : std::string()) +
            " and --batch_size=" + std::to_string(c.batch_size) + " spans more than --num=" + std::to_string(c.num) +
            " keys; allowed: batch_size x multiread_stride <= num");
      }
    }
  }
  if (c.use_existing_db && c.db.empty()) {
    return Status::InvalidArgument("lsmbench: --use_existing_db needs --db=PATH (the database to open)");
  }
  return Status::OK();
}

// What each engine can run: the memtable engine keeps nothing on disk,
// RocksDB offers only its own filters and the old range estimate.
Status CheckEngineLimits(const FlagSet& flags, BenchConfig* c) {
  if (c->engine == "memtable" && c->use_direct_reads) {
    return Status::InvalidArgument(
        "lsmbench: --use_direct_reads applies to the filterlab and rocksdb engines; "
        "--engine=memtable reads no files");
  }
  if (c->engine == "memtable" && (c->use_existing_db || !c->db.empty())) {
    return Status::InvalidArgument(
        "lsmbench: --engine=memtable keeps nothing on disk; --db and --use_existing_db "
        "apply to the filterlab and rocksdb engines");
  }
  if (c->engine == "rocksdb") {
    if (!c->filter_per_level.empty()) {
      return Status::InvalidArgument(
          "lsmbench: --filter_per_level is not available with --engine=rocksdb (one "
          "filter policy per column family); allowed there: --filter");
    }
    if (!c->filter_policy.empty()) {
      return Status::InvalidArgument(
          "lsmbench: --filter_policy is not available with --engine=rocksdb (its "
          "filters take one bits/key for every level); allowed there: --filter");
    }
    RocksDbTableFilter table_filter;
    Status s = RocksDbTableFilterFor(c->filter.get(), c->rocksdb_filter_adapter, &table_filter);
    if (!s.ok()) return s;
    s = CheckRocksDbMemtableFilter(c->memtable_filter.get());
    if (!s.ok()) return s;
    if (flags.WasSet("approx_algorithm") && c->approx_algorithm == "new") {
      return Status::InvalidArgument(
          "lsmbench: --approx_algorithm=new is not available with --engine=rocksdb: "
          "RocksDB 7.8.3 predates the new estimate (PR #13047); allowed there: old");
    }
    c->approx_algorithm = "old";
  }
  if (c->engine == "leveldb") {
    // LevelDB has one filter; without --filter it gets that filter at the
    // default 10 bits/key rather than a refusal of the default fastlocal.
    if (!flags.WasSet("filter")) {
      Status s = ParseFilterFlag("filter", "legacy_block:bpk=10", false, &c->filter);
      if (!s.ok()) return s;
    }
    Status s = CheckLevelDbLimits(flags, *c);
    if (!s.ok()) return s;
    c->approx_algorithm = "old";  // not run: approximatememtablestats is NotSupported there
  }
  if (c->engine != "rocksdb" && c->statistics) {
    return Status::InvalidArgument(
        "lsmbench: --statistics applies to --engine=rocksdb only (the filterlab engine "
        "always reports its filter statistics)");
  }
  if (c->engine != "rocksdb" && c->rocksdb_filter_adapter) {
    return Status::InvalidArgument(
        "lsmbench: --rocksdb_filter_adapter applies to --engine=rocksdb only (the filterlab engine builds every "
        "filter itself)");
  }
  return Status::OK();
}

}  // namespace

std::vector<MultiReadVariant> MultiReadVariants(const BenchConfig& config) {
  std::vector<MultiReadVariant> variants;
  for (const int64_t stride : config.multiread_strides) {
    for (const bool batched : config.multiread_batched) variants.push_back({stride, batched});
  }
  return variants;
}

std::vector<AllocationPass> AllocationPasses(const BenchConfig& config) {
  std::vector<AllocationPass> passes;
  if (config.filter_policies.empty()) return {AllocationPass{config.filter_policy, config.filter_budget_bpk}};
  for (const double budget : config.filter_budgets_bpk) {
    for (const std::string& policy : config.filter_policies) passes.push_back({policy, budget});
  }
  return passes;
}

size_t FirstAllocationPassBenchmark(const BenchConfig& config) {
  for (size_t i = 0; i < config.benchmarks.size(); ++i) {
    if (config.benchmarks[i] == "rewritefilters") return i;
  }
  return config.benchmarks.size();
}

BenchConfig ConfigForPass(const BenchConfig& config, const AllocationPass& pass) {
  BenchConfig c = config;
  c.filter_policy = pass.policy;
  c.filter_budget_bpk = pass.budget_bpk;
  return c;
}

nlohmann::ordered_json LsmbenchDescription() {
  BenchConfig config;
  RawFlags raw;
  FlagSet flags("lsmbench", kSummary, "");
  DeclareFlags(&flags, &raw, &config);
  DeclareRecordFields(&flags);
  return Describe(flags);
}

Status ParseBenchConfig(int argc, char** argv, BenchConfig* config, std::string* help) {
  help->clear();
  *config = BenchConfig();
  RawFlags raw;
  FlagSet flags("lsmbench", kSummary, "");
  DeclareFlags(&flags, &raw, config);
  DeclareRecordFields(&flags);
  std::vector<std::string> args = SpellOutBareFlags(argc, argv);
  std::vector<char*> arg_ptrs;
  for (std::string& arg : args) arg_ptrs.push_back(arg.data());
  Status s = flags.Parse(static_cast<int>(arg_ptrs.size()), arg_ptrs.data());
  if (!s.ok()) return s;
  if (flags.describe_requested()) {
    *help = Describe(flags).dump() + "\n";
    return Status::OK();
  }
  if (flags.Answered(help)) return Status::OK();
  config->check_only = flags.check_only();
  CopyScalars(raw, config);
  s = ParseMultiReadLists(raw, config);
  if (s.ok()) s = ParseFilters(raw, config);
  if (s.ok()) s = ParsePrefixFlags(raw, config);
  if (s.ok()) s = CheckFilterPolicyFlags(flags, *config);
  if (s.ok()) s = CheckAllocationPasses(raw, *config);
  if (s.ok()) s = CheckWorkload(raw, *config);
  if (s.ok()) s = CheckEngineLimits(flags, config);
  return s;
}

}  // namespace filterlab::lsmbench
