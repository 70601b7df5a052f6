#include "engine/bench/bench_config.h"

#include <memory>

#include "filters/filter.h"
#include "filters/filter_spec.h"
#include "common/flags.h"

namespace filterlab::lsmbench {

const std::vector<std::string>& KnownBenchmarks() {
  static const std::vector<std::string> names = {
      "fillseq",         "fillrandom",      "filluniquerandom", "overwrite",
      "readrandom",      "readmissing",     "readseq",          "seekrandom",
      "multireadrandom", "approximatememtablestats",            "readwhilewriting",
      "flush",           "compact",         "waitforcompaction", "stats"};
  return names;
}

namespace {

std::vector<std::string> Split(const std::string& text, char sep) {
  std::vector<std::string> parts;
  size_t begin = 0;
  while (true) {
    const size_t end = text.find(sep, begin);
    parts.push_back(text.substr(begin, end == std::string::npos ? std::string::npos : end - begin));
    if (end == std::string::npos) return parts;
    begin = end + 1;
  }
}

std::string JoinNames(const std::vector<std::string>& names) {
  std::string s;
  for (const auto& n : names) s += (s.empty() ? "" : ", ") + n;
  return s;
}

bool Contains(const std::vector<std::string>& v, const std::string& x) {
  for (const auto& e : v) {
    if (e == x) return true;
  }
  return false;
}

// RocksDB's block-based tables offer FastLocalBloom (format_version 5) with
// only a bits/key knob; our spec must say no more than that.
Status CheckRocksDbFilter(const std::string& canonical) {
  if (canonical.empty()) return Status::OK();
  std::unique_ptr<FilterPolicy> policy;
  Status s = NewFilterPolicy(canonical, &policy);
  if (!s.ok()) return s;
  std::unique_ptr<FilterPolicy> plain;
  if (policy->variant() == "fastlocal") {
    s = NewFilterPolicy("fastlocal:bpk=" + FormatNumber(policy->bits_per_key()), &plain);
    if (!s.ok()) return s;
  }
  if (plain == nullptr || plain->spec() != canonical) {
    return Status::InvalidArgument(
        "lsmbench: --filter=" + canonical +
        " cannot run on --engine=rocksdb: RocksDB's table filter is FastLocalBloom (format_version=5, "
        "NewBloomFilterPolicy(bits)), which chooses its own probes and 64-bit hash; allowed: none or "
        "fastlocal:bpk=B");
  }
  return Status::OK();
}

// RocksDB's memtable Bloom is always DynamicBloom with 6 probes over the
// 32-bit legacy hash; only its size (the bits ratio) is a knob.
Status CheckRocksDbMemtableFilter(const std::string& canonical) {
  if (canonical.empty()) return Status::OK();
  std::unique_ptr<FilterPolicy> policy;
  Status s = NewFilterPolicy(canonical, &policy);
  if (!s.ok()) return s;
  if (policy->variant() != "dynamic" || policy->num_probes() != 6 || policy->hash_width() != HashWidth::k32) {
    return Status::InvalidArgument("lsmbench: --memtable_filter=" + canonical +
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

}  // namespace

std::vector<MultiReadVariant> MultiReadVariants(const BenchConfig& config) {
  std::vector<MultiReadVariant> variants;
  for (const int64_t stride : config.multiread_strides) {
    for (const bool batched : config.multiread_batched) variants.push_back({stride, batched});
  }
  return variants;
}

Status CanonicalFilterSpec(const std::string& flag, const std::string& text, bool require_dynamic,
                           std::string* canonical) {
  canonical->clear();
  if (text.empty() || text == "none") return Status::OK();
  std::unique_ptr<FilterPolicy> policy;
  Status s = NewFilterPolicy(text, &policy);
  if (!s.ok()) return Status::InvalidArgument("lsmbench: --" + flag + "=" + text + ": " + s.message());
  if (require_dynamic && !policy->is_dynamic()) {
    return Status::InvalidArgument("lsmbench: --" + flag + "=" + text +
                                   ": the memtable filter takes inserts one at a time, so it must be a dynamic "
                                   "variant (e.g. dynamic:bpk=8,probes=6,hash=32; see ./filterlab list-filters), "
                                   "or none");
  }
  *canonical = policy->spec();
  return Status::OK();
}

Status ParseBenchConfig(int argc, char** argv, BenchConfig* config, std::string* help) {
  help->clear();
  *config = BenchConfig();
  BenchConfig& c = *config;
  std::string benchmarks, filter, filter_per_level, memtable_filter, strides, batched;
  long long num = 0, reads = 0, key_size = 0, value_size = 0, batch_size = 0, seek_nexts = 0,
            threads = 0, seed = 0, block_size = 0, cache_mb = 0, write_buffer_mb = 0, target_file_mb = 0,
            level1_mb = 0;

  FlagSet flags(
      "lsmbench",
      "db_bench-style benchmarks of the filterlab LSM engine (and, when built with librocksdb-dev, of RocksDB "
      "with equivalent options). Human-readable results go to stderr, one JSON object per benchmark to stdout.\n"
      "benchmarks: " + JoinNames(KnownBenchmarks()),
      "");
  flags.String("benchmarks", "fillrandom,readrandom", "comma-separated benchmarks, run in order", &benchmarks);
  flags.Choice("engine", "filterlab", {"filterlab", "memtable", "rocksdb"},
               "filterlab = our DB (engine/db); memtable = one bare MemTable (no WAL, never flushed); "
               "rocksdb = librocksdb with equivalent options",
               &c.engine);
  flags.Int("num", 1000000, 1, 10000000000LL, "keys in the key space (and writes of fill benchmarks)", &num);
  flags.Int("reads", -1, -1, 1000000000000LL, "operations of read benchmarks; -1 = --num", &reads);
  flags.Int("key_size", 16, 8, 65536,
            "key bytes: 8-byte big-endian key number padded with '0' (db_bench's format)", &key_size);
  flags.Int("value_size", 100, 0, 64 << 20, "value bytes", &value_size);
  flags.Int("batch_size", 1, 1, 1000000,
            "entries per write batch and keys per MultiGet; the true range width of approximatememtablestats",
            &batch_size);
  // The two multireadrandom lists are String flags parsed entry by entry
  // below (ParseListFlag); their help says what the records of other
  // benchmarks report.
  flags.String("multiread_stride", "0",
               "multireadrandom: keys of a batch are k, k+S, k+2S, ... (0 = independent random keys); S in "
               "0..1000000000, or a comma-separated list (0,16,256) to run multireadrandom once per stride on the "
               "same database. Other benchmarks' records report the first stride",
               &strides);
  flags.String("multiread_batched", "true",
               "multireadrandom: one batched MultiGet per batch (true; a bare --multiread_batched is true) or a "
               "loop of Get over the same keys (false, the baseline); or the list true,false to run both. With "
               "lists of both flags multireadrandom runs once per (stride, batched) pair, stride-major in list "
               "order, each with its own line and record. Other benchmarks' records report the first value",
               &batched);
  flags.Int("seek_nexts", 10, 0, 1000000, "seekrandom: Next() calls after each Seek", &seek_nexts);
  flags.Int("threads", 1, 1, 1, "benchmark threads (only 1 is implemented)", &threads);
  flags.Int("seed", 301, 0, 9223372036854775807LL, "seed of the key and value generators", &seed);
  flags.Bool("histogram", "also time each call and report latency percentiles", &c.histogram);
  flags.String("filter", "fastlocal:bpk=10", "full filter of every table: a registry spec or none", &filter);
  flags.String("filter_per_level", "",
               "per-level filters SPEC0;SPEC1;... (an empty entry = --filter, none = no filter at that level)",
               &filter_per_level);
  flags.String("memtable_filter", "none", "memtable filter: a dynamic registry spec or none", &memtable_filter);
  flags.Double("memtable_bloom_ratio", 0.1, 0.0001, 0.25,
               "memtable filter bytes / write buffer bytes (RocksDB memtable_prefix_bloom_size_ratio)",
               &c.memtable_bloom_ratio);
  flags.Bool("hash_index", "data-block hash index (kDataBlockBinaryAndHash)", &c.hash_index);
  flags.Double("util_ratio", 0.75, 0.01, 1, "data-block hash index util ratio (keys per bucket)", &c.util_ratio);
  flags.Choice("approx_algorithm", "new", {"new", "old"},
               "ApproximateNumEntries algorithm of approximatememtablestats (rocksdb 7.8.3 has only old)",
               &c.approx_algorithm);
  flags.Int("block_size", 4096, 256, 64 << 20, "data block bytes", &block_size);
  flags.Int("cache_mb", 1024, 0, 1 << 20, "block cache MiB (0 = none)", &cache_mb);
  flags.Int("write_buffer_mb", 64, 1, 1 << 16, "memtable MiB before a flush", &write_buffer_mb);
  flags.Int("target_file_mb", 64, 1, 1 << 16, "compaction output file MiB", &target_file_mb);
  flags.Int("level1_mb", 256, 1, 1 << 24, "L1 target MiB (each deeper level x10)", &level1_mb);
  flags.Bool("disable_auto_compactions", "no background compactions (flushes still run)",
             &c.disable_auto_compactions);
  flags.Bool("sync", "sync the WAL on every write", &c.sync);
  flags.Bool("statistics", "rocksdb: collect Statistics and report its filter tickers", &c.statistics);
  flags.String("db", "", "database directory; default a fresh temporary directory, removed at the end", &c.db);
  flags.Bool("use_existing_db", "open --db as it is; fill benchmarks are skipped (as in db_bench)",
             &c.use_existing_db);
  flags.Bool("keep_db", "keep the temporary database directory (its path is printed)", &c.keep_db);

  // --multiread_batched was a boolean flag, so its bare form means true; the
  // String flag that now carries its list would take the next argument as
  // its value instead, so the bare form is spelled out first.
  std::vector<std::string> args(argv + 1, argv + argc);
  for (std::string& arg : args) {
    if (arg == "--multiread_batched") arg += "=true";
  }
  std::vector<char*> arg_ptrs;
  for (std::string& arg : args) arg_ptrs.push_back(arg.data());
  Status s = flags.Parse(static_cast<int>(arg_ptrs.size()), arg_ptrs.data());
  if (!s.ok()) return s;
  if (flags.Answered(help)) return Status::OK();
  c.num = num;
  c.reads = reads < 0 ? num : reads;
  c.key_size = key_size;
  c.value_size = value_size;
  c.batch_size = batch_size;
  std::vector<long long> stride_list;
  s = ParseListFlag<long long>(
      "multiread_stride", strides,
      [](FlagSet* one, long long* v) { one->Int("multiread_stride", 0, 0, 1000000000, "", v); }, &stride_list);
  if (!s.ok()) return s;
  c.multiread_strides.assign(stride_list.begin(), stride_list.end());
  s = ParseListFlag<bool>(
      "multiread_batched", batched, [](FlagSet* one, bool* v) { one->Bool("multiread_batched", "", v); },
      &c.multiread_batched);
  if (!s.ok()) return s;
  c.seek_nexts = seek_nexts;
  c.threads = threads;
  c.seed = static_cast<uint64_t>(seed);
  c.block_size = block_size;
  c.cache_mb = cache_mb;
  c.write_buffer_mb = write_buffer_mb;
  c.target_file_mb = target_file_mb;
  c.level1_mb = level1_mb;

  for (const std::string& name : Split(benchmarks, ',')) {
    if (name.empty()) continue;  // tolerate "a,,b" and a trailing comma
    if (!Contains(KnownBenchmarks(), name)) {
      return Status::InvalidArgument("lsmbench: --benchmarks: unknown benchmark '" + name +
                                     "'; allowed: " + JoinNames(KnownBenchmarks()));
    }
    c.benchmarks.push_back(name);
  }
  if (c.benchmarks.empty()) {
    return Status::InvalidArgument("lsmbench: --benchmarks is empty; allowed: " + JoinNames(KnownBenchmarks()));
  }

  s = CanonicalFilterSpec("filter", filter, false, &c.filter);
  if (!s.ok()) return s;
  if (!filter_per_level.empty()) {
    int level = 0;
    for (const std::string& part : Split(filter_per_level, ';')) {
      std::string canonical;
      if (part == "none") {
        canonical = "none";  // the DB's per-level marker for "no filter here"
      } else if (!part.empty()) {
        s = CanonicalFilterSpec("filter_per_level (level " + std::to_string(level) + ")", part, false, &canonical);
        if (!s.ok()) return s;
      }
      c.filter_per_level.push_back(canonical);
      ++level;
    }
  }
  s = CanonicalFilterSpec("memtable_filter", memtable_filter, true, &c.memtable_filter);
  if (!s.ok()) return s;

  if (Contains(c.benchmarks, "approximatememtablestats") && c.batch_size >= c.num) {
    return Status::InvalidArgument("lsmbench: approximatememtablestats needs --batch_size (the range width, " +
                                   std::to_string(c.batch_size) + ") below --num (" + std::to_string(c.num) +
                                   ")");
  }
  if (Contains(c.benchmarks, "multireadrandom")) {
    for (const int64_t stride : c.multiread_strides) {
      if (stride > 0 && c.batch_size * stride > c.num) {
        return Status::InvalidArgument("lsmbench: multireadrandom with --multiread_stride=" + std::to_string(stride) +
                                       (c.multiread_strides.size() > 1 ? " (from --multiread_stride=" + strides + ")"
                                                                       : std::string()) +
                                       " and --batch_size=" + std::to_string(c.batch_size) + " spans more than --num=" +
                                       std::to_string(c.num) + " keys; allowed: batch_size x multiread_stride <= num");
      }
    }
  }
  if (c.use_existing_db && c.db.empty()) {
    return Status::InvalidArgument("lsmbench: --use_existing_db needs --db=PATH (the database to open)");
  }
  if (c.engine == "memtable" && (c.use_existing_db || !c.db.empty())) {
    return Status::InvalidArgument("lsmbench: --engine=memtable keeps nothing on disk; --db and --use_existing_db "
                                   "apply to the filterlab and rocksdb engines");
  }
  if (c.engine == "rocksdb") {
    if (!c.filter_per_level.empty()) {
      return Status::InvalidArgument("lsmbench: --filter_per_level is not available with --engine=rocksdb (one "
                                     "filter policy per column family); allowed there: --filter");
    }
    s = CheckRocksDbFilter(c.filter);
    if (!s.ok()) return s;
    s = CheckRocksDbMemtableFilter(c.memtable_filter);
    if (!s.ok()) return s;
    if (flags.WasSet("approx_algorithm") && c.approx_algorithm == "new") {
      return Status::InvalidArgument("lsmbench: --approx_algorithm=new is not available with --engine=rocksdb: "
                                     "RocksDB 7.8.3 predates the new estimate (PR #13047); allowed there: old");
    }
    c.approx_algorithm = "old";
  }
  if (c.engine != "rocksdb" && c.statistics) {
    return Status::InvalidArgument("lsmbench: --statistics applies to --engine=rocksdb only (the filterlab engine "
                                   "always reports its filter statistics)");
  }
  return Status::OK();
}

}  // namespace filterlab::lsmbench
