// --engine=filterlab: our DB (engine/db) behind lsmbench's Engine interface.
// Every lsmbench option maps to one DB option (filter policies per level,
// memtable filter and ratio, hash index and util ratio, block size, block
// cache, write buffer, level and file sizes), so a run's JSON names exactly
// what was measured. Its statistics are the DB's typed DbStats (GetStats);
// the filter counters are zeroed before each benchmark.
#include <algorithm>
#include <cmath>
#include <memory>

#include "engine/bench/engine.h"
#include "engine/db/db.h"
#include "filters/range/range_filter.h"

namespace filterlab::lsmbench {
namespace {

namespace db = engine;

class FilterlabEngine : public Engine {
 public:
  FilterlabEngine(const BenchConfig& config, std::unique_ptr<db::DB> database)
      : config_(config), db_(std::move(database)) {
    write_options_.sync = config.sync;
  }
  ~FilterlabEngine() override {
    if (db_) db_->Close();
  }

  Status Put(const Slice& key, const Slice& value) override { return db_->Put(write_options_, key, value); }
  Status Delete(const Slice& key) override { return db_->Delete(write_options_, key); }
  Status WriteBatch(const std::vector<std::pair<Slice, Slice>>& puts) override {
    // Scratch per calling thread (--threads writers), reused across calls.
    thread_local db::WriteBatch batch;
    batch.Clear();
    for (const auto& [key, value] : puts) batch.Put(key, value);
    return db_->Write(write_options_, &batch);
  }

  Status Get(const Slice& key, std::string* value, bool* found) override {
    Status s = db_->Get(read_options_, key, value);
    *found = s.ok();
    return s.IsNotFound() ? Status::OK() : s;
  }
  Status MultiGet(const std::vector<Slice>& keys, std::vector<std::string>* values, uint64_t* found) override {
    thread_local std::vector<Status> statuses;  // scratch per calling thread
    db_->MultiGet(read_options_, keys, values, &statuses);
    *found = 0;
    for (const Status& s : statuses) {
      if (s.ok()) {
        ++*found;
      } else if (!s.IsNotFound()) {
        return s;
      }
    }
    return Status::OK();
  }
  std::unique_ptr<EngineIterator> NewIterator(const IteratorOptions& options) override {
    db::ReadOptions ro = read_options_;
    ro.iterate_upper_bound = options.upper_bound;
    ro.prefix_same_as_start = options.prefix_same_as_start;
    ro.total_order_seek = options.total_order_seek;
    ro.auto_prefix_mode = options.auto_prefix_mode;
    return db_->NewIterator(ro);
  }

  Status Flush() override { return db_->Flush(/*wait=*/true); }
  Status CompactAll() override { return db_->CompactRange(nullptr, nullptr); }
  Status WaitForCompaction() override { return db_->WaitForCompaction(); }
  Status RewriteFilters(uint64_t* rewritten) override { return db_->RewriteFilters(rewritten); }

  Status ApproximateMemTableStats(const Slice& start, const Slice& limit, uint64_t* count, uint64_t* bytes) override {
    db_->GetApproximateMemTableStats(start, limit, count, bytes);
    return Status::OK();
  }
  uint64_t TableBytes() override { return db_->GetStats().total_sst_bytes; }
  std::string StatsText() override {
    std::string v;
    return db_->GetProperty("filterlab.stats", &v) ? v : std::string("(filterlab.stats unavailable)\n");
  }
  void DescribeOptions(JsonRecord* record) const override {
    (*record)["approx_algorithm"] = config_.approx_algorithm;
    (*record)["wal_recovery_mode"] = config_.wal_recovery_mode;
    const db::RecoveryStats r = db_->GetStats().recovery;
    (*record)["recovery"] = {
        {"wal_records_replayed", r.wal_records_replayed}, {"wal_damaged_regions", r.wal_damaged_regions},
        {"wal_bytes_dropped", r.wal_bytes_dropped},       {"wal_records_dropped", r.wal_records_dropped},
        {"wal_writes_dropped", r.wal_writes_dropped},     {"manifest_bytes_dropped", r.manifest_bytes_dropped},
        {"files_moved_to_lost", r.files_moved_to_lost}};
    (*record)["direct_reads"] = config_.use_direct_reads;
    (*record)["level_multiplier"] = config_.level_multiplier;
    (*record)["num_levels"] = config_.num_levels;
  }
  // The model (or bound) FP rate of the level's range filter for an empty range of --range_size
  // values placed independently of the keys, at the level's mean keys per table: what a seek into
  // an uncorrelated empty range expects at one of its tables. Null without a range filter, without
  // tables, or where the variant has no model (kind empirical).
  JsonRecord RangeModelFp(const db::LevelStats& level) const {
    std::unique_ptr<RangeFilterPolicy> policy;
    if (level.range_filter.empty() || level.range_filter == "none" || level.files == 0 ||
        !NewRangeFilterPolicy(level.range_filter, &policy).ok()) {
      return nullptr;
    }
    const uint64_t keys_per_table = std::max<uint64_t>(1, level.entries / static_cast<uint64_t>(level.files));
    const double fp =
        policy->ModelFpRate(keys_per_table, static_cast<uint64_t>(std::max<int64_t>(1, config_.range_size)));
    return std::isnan(fp) ? JsonRecord(nullptr) : JsonRecord(fp);
  }
  JsonRecord Levels() override {
    JsonRecord levels = JsonRecord::array();
    for (const db::LevelStats& level : db_->GetStats().levels) {
      if (level.files == 0 && level.filter_counters().lookups == 0) continue;
      JsonRecord entry = {
          {"level", level.level}, {"files", level.files}, {"bytes", level.bytes}, {"filter", level.filter}};
      const db::FilterCounters counters = level.filter_counters();
      AddFilterCounters(counters, &entry);
      entry["entries"] = level.entries;
      entry["filter_bytes"] = level.filter_bytes;
      entry["range_filter"] = level.range_filter;
      entry["range_filter_bytes"] = level.range_filter_bytes;
      entry["range_model_fp"] = RangeModelFp(level);
      entry["model_fp"] = level.model_fp;
      entry["reach"] = level.reach;
      for (size_t t = 0; t < db::kNumLevelTickers; ++t) entry[db::kLevelTickerInfo[t].name] = level.tickers.values[t];
      entry["wasted_reads"] = counters.wasted_reads();
      levels.push_back(std::move(entry));
    }
    return levels;
  }
  JsonRecord SeekStats() override {
    const db::DbStats stats = db_->GetStats();
    // RocksDB splits its seek tickers into the last level and the others;
    // ours are per level, summed the same way (last = the deepest level
    // holding tables).
    int last = -1;
    for (const db::LevelStats& l : stats.levels) {
      if (l.files > 0) last = l.level;
    }
    db::LevelTickers total, last_level, other;
    for (const db::LevelStats& l : stats.levels) {
      for (size_t t = 0; t < db::kNumLevelTickers; ++t) {
        total.values[t] += l.tickers.values[t];
        (l.level == last ? last_level : other).values[t] += l.tickers.values[t];
      }
    }
    JsonRecord out = {{"total", SeekStatsRecord(total)},
                      {"last_level", SeekStatsRecord(last_level)},
                      {"non_last_level", SeekStatsRecord(other)}};
    if (config_.memtable_filter != nullptr && config_.prefix_extractor != nullptr) {
      // Live memtables only: a flush since the reset takes its counts along.
      auto since = [](uint64_t now, uint64_t then) { return now >= then ? now - then : 0; };
      out["memtable_prefix_bloom"] = {{"hits", since(stats.memtable_filter.prefix_hits, at_reset_.prefix_hits)},
                                      {"misses", since(stats.memtable_filter.prefix_misses, at_reset_.prefix_misses)}};
    }
    return out;
  }
  JsonRecord FilterStats() override {
    const db::DbStats stats = db_->GetStats();
    JsonRecord out = JsonRecord::object();
    if (config_.memtable_filter != nullptr) {
      out["memtable"] = {{"negatives", stats.memtable_filter.negatives},
                         {"positives", stats.memtable_filter.positives}};
    }
    out["block_cache"] = JsonRecord::object();
    if (stats.block_cache) {
      out["block_cache"] = {{"hits", stats.block_cache->hits - at_reset_.cache_hits},
                            {"misses", stats.block_cache->misses - at_reset_.cache_misses},
                            {"usage", stats.block_cache->usage},
                            {"capacity", stats.block_cache->capacity}};
    }
    if (config_.hash_index) {
      out["hash_index"] = {{"lookups", stats.hash_index.lookups}, {"collisions", stats.hash_index.collisions}};
    }
    return out;
  }
  JsonRecord IoStats() override {
    const db::DbStats stats = db_->GetStats();
    db::TableReaderStats t = stats.table_reads;
    const db::TableReaderStats& b = at_reset_.reads;
    // Counters since the reset; a table opened meanwhile starts from zero.
    auto since = [](uint64_t now, uint64_t then) { return now >= then ? now - then : 0; };
    JsonRecord io;
    io["block_reads"] = {{"data", since(t.data_block_reads, b.data_block_reads)},
                         {"index", since(t.index_reads, b.index_reads)},
                         {"filter", since(t.filter_reads, b.filter_reads)}};
    io["bytes_read"] = {{"data", since(t.data_bytes_read, b.data_bytes_read)},
                        {"index", since(t.index_bytes_read, b.index_bytes_read)},
                        {"filter", since(t.filter_bytes_read, b.filter_bytes_read)}};
    io["block_cache"] = JsonRecord::object();
    if (stats.block_cache) {
      io["block_cache"] = {{"hits", stats.block_cache->hits - at_reset_.cache_hits},
                           {"misses", stats.block_cache->misses - at_reset_.cache_misses}};
    }
    io["fp_data_block_reads"] = since(t.fp_data_block_reads, b.fp_data_block_reads);
    io["fp_data_block_fetches"] = since(t.fp_data_block_fetches, b.fp_data_block_fetches);
    return io;
  }
  JsonRecord Tickers() override {
    const db::DbTickers now = db_->GetStats().counters;
    JsonRecord out = JsonRecord::object();
    for (size_t t = 0; t < db::kNumTickers; ++t) {
      out[db::kTickerInfo[t].name] = now.values[t] - at_reset_.tickers.values[t];
    }
    return out;
  }
  void ResetStats() override {
    db_->ResetFilterStats();
    const db::DbStats stats = db_->GetStats();
    at_reset_.tickers = stats.counters;
    at_reset_.prefix_hits = stats.memtable_filter.prefix_hits;
    at_reset_.prefix_misses = stats.memtable_filter.prefix_misses;
    at_reset_.reads = stats.table_reads;
    at_reset_.cache_hits = stats.block_cache ? stats.block_cache->hits : 0;
    at_reset_.cache_misses = stats.block_cache ? stats.block_cache->misses : 0;
  }

 private:
  const BenchConfig config_;
  std::unique_ptr<db::DB> db_;
  db::ReadOptions read_options_;
  db::WriteOptions write_options_;
  // The DB's cumulative counters at the last ResetStats.
  struct {
    db::TableReaderStats reads;
    db::DbTickers tickers;
    uint64_t prefix_hits = 0, prefix_misses = 0;
    uint64_t cache_hits = 0, cache_misses = 0;
  } at_reset_;
};

}  // namespace

db::Options FilterlabDbOptions(const BenchConfig& config) {
  db::Options options;
  options.create_if_missing = !config.use_existing_db;
  options.write_buffer_size = static_cast<size_t>(config.write_buffer_mb * 1048576);
  options.memtable_filter_policy = config.memtable_filter;
  options.memtable_filter_bits_ratio = config.memtable_bloom_ratio;
  options.approx_algorithm =
      config.approx_algorithm == "old" ? engine::ApproxAlgorithm::kOld : engine::ApproxAlgorithm::kNew;
  // The flag's Choice admits only the four names, so parsing cannot fail.
  db::ParseWalRecoveryMode(config.wal_recovery_mode, &options.wal_recovery_mode);
  options.max_bytes_for_level_base = static_cast<uint64_t>(config.level1_mb * 1048576);
  options.target_file_size = static_cast<uint64_t>(config.target_file_mb * 1048576);
  options.disable_auto_compactions = config.disable_auto_compactions;
  options.block_size = static_cast<size_t>(config.block_size);
  options.use_hash_index = config.hash_index;
  options.hash_index_util_ratio = config.util_ratio;
  options.filter_policy = config.filter;
  options.prefix_extractor = config.prefix_extractor;
  options.whole_key_filtering = config.whole_key_filtering;
  options.memtable_whole_key_filtering = config.memtable_whole_key_filtering;
  options.range_filter_policy = config.range_filter;
  options.per_level_filter_policy = config.filter_per_level;
  options.level_size_multiplier = config.level_multiplier;
  options.num_levels = static_cast<int>(config.num_levels);
  if (!config.filter_policy.empty()) {
    db::Options::FilterAllocation a;
    (void)allocation::ParseAllocationPolicy(config.filter_policy, &a.policy);  // checked by ParseBenchConfig
    a.budget_bits_per_key = config.filter_budget_bpk;
    a.existing_share = config.filter_found_share;
    options.filter_allocation = a;
  }
  options.block_cache_bytes = static_cast<size_t>(config.cache_mb) << 20;
  options.use_direct_reads = config.use_direct_reads;
  // ParseBenchConfig admitted only names ParseCompressionType knows.
  db::ParseCompressionType(config.compression, &options.compression);
  return options;
}

Status OpenFilterlabEngine(const BenchConfig& config, const std::string& path, std::unique_ptr<Engine>* out) {
  std::unique_ptr<db::DB> database;
  Status s = db::DB::Open(FilterlabDbOptions(config), path, &database);
  if (s.IsInvalidArgument()) return Status::InvalidArgument("lsmbench: filterlab DB options: " + s.message());
  if (!s.ok()) return Status::IOError("lsmbench: cannot open the filterlab DB at " + path + ": " + s.ToString());
  *out = std::make_unique<FilterlabEngine>(config, std::move(database));
  return Status::OK();
}

}  // namespace filterlab::lsmbench
