// --engine=rocksdb: RocksDB (librocksdb, Debian's 7.8.3 here) behind lsmbench's
// Engine interface, configured to match the filterlab engine option for
// option, so the two can sit side by side in one run:
//   table filter    BlockBasedTableOptions format_version=5 with
//                   NewBloomFilterPolicy(B) = FastLocalBloom (our
//                   "fastlocal:bpk=B") or NewRibbonFilterPolicy(B, -1) =
//                   Standard128Ribbon (our "ribbon:bpk=B"), whole-key
//                   filtering (RocksDbTableFilterFor, bench_config.h)
//   hash index      data_block_index_type kDataBlockBinaryAndHash and
//                   data_block_hash_table_util_ratio (--hash_index, --util_ratio)
//   memtable Bloom  memtable_prefix_bloom_size_ratio + memtable_whole_key_filtering
//                   (DynamicBloom, 6 probes; --memtable_filter, --memtable_bloom_ratio)
//   blocks          block_size, LRU block cache of --cache_mb holding data,
//                   index and filter blocks (cache_index_and_filter_blocks, as
//                   our engine caches all three; index and filter pinned,
//                   metadata_cache_options kAll, as our readers pin theirs)
//   LSM shape       write_buffer_size, target_file_size_base,
//                   max_bytes_for_level_base, disable_auto_compactions
// Compiled only when CMake finds pkg-config 'rocksdb' (the file name's
// _rocksdb suffix keeps it out of the engine library).
//
// Caveats every record states: Debian builds librocksdb with assertions on
// (measured here beside a release build of the same version: a release build is ~1.3x faster on cached
// reads and ~2.3x on fills), and 7.8.3 predates PR #13047, so
// GetApproximateMemTableStats uses the old estimate.
#include <rocksdb/cache.h>
#include <rocksdb/db.h>
#include <rocksdb/filter_policy.h>
#include <rocksdb/iterator.h>
#include <rocksdb/metadata.h>
#include <rocksdb/options.h>
#include <rocksdb/perf_context.h>
#include <rocksdb/perf_level.h>
#include <rocksdb/slice_transform.h>
#include <rocksdb/statistics.h>
#include <rocksdb/table.h>
#include <rocksdb/version.h>
#include <rocksdb/write_batch.h>

#include <chrono>
#include <map>
#include <thread>

#include "engine/bench/engine.h"
#include "engine/table/block_cache.h"
#include "filters/filter.h"
#include "filters/filter_spec.h"

namespace filterlab::lsmbench {
namespace {

constexpr const char* kAssertionsNote =
    "Debian librocksdb is built with assertions enabled: slower than a release build (about 1.3x on cached reads, "
    "2.3x on fills, measured on this project's machines)";

rocksdb::Slice ToRocks(const Slice& s) { return rocksdb::Slice(s.data(), s.size()); }
Slice FromRocks(const rocksdb::Slice& s) { return Slice(s.data(), s.size()); }

Status FromRocks(const rocksdb::Status& s) {
  if (s.ok()) return Status::OK();
  const std::string msg = "rocksdb: " + s.ToString();
  if (s.IsInvalidArgument()) return Status::InvalidArgument(msg);
  if (s.IsNotSupported()) return Status::NotSupported(msg);
  if (s.IsCorruption()) return Status::Corruption(msg);
  if (s.IsBusy()) return Status::Busy(msg);
  return Status::IOError(msg);
}

std::string RocksDbVersion() {
  return std::to_string(ROCKSDB_MAJOR) + "." + std::to_string(ROCKSDB_MINOR) + "." + std::to_string(ROCKSDB_PATCH);
}

class RocksDbIterator : public EngineIterator {
 public:
  // `bound` is what the iterator's ReadOptions::iterate_upper_bound points
  // at (null: none); each seek copies the caller's `source` bound into it.
  RocksDbIterator(rocksdb::Iterator* it, std::unique_ptr<rocksdb::Slice> bound, const Slice* source)
      : it_(it), bound_(std::move(bound)), source_(source) {}
  void SeekToFirst() override {
    if (bound_) *bound_ = ToRocks(*source_);
    it_->SeekToFirst();
  }
  void Seek(const Slice& target) override {
    if (bound_) *bound_ = ToRocks(*source_);
    it_->Seek(ToRocks(target));
  }
  void Next() override { it_->Next(); }
  bool Valid() const override { return it_->Valid(); }
  Slice key() const override { return FromRocks(it_->key()); }
  Slice value() const override { return FromRocks(it_->value()); }
  Status status() const override { return FromRocks(it_->status()); }

 private:
  std::unique_ptr<rocksdb::Iterator> it_;
  std::unique_ptr<rocksdb::Slice> bound_;
  const Slice* source_;
};

class RocksDbEngine : public Engine {
 public:
  RocksDbEngine(const BenchConfig& config, std::unique_ptr<rocksdb::DB> db, std::shared_ptr<rocksdb::Statistics> stats,
                std::shared_ptr<rocksdb::Cache> block_cache, std::string options_text)
      : config_(config),
        db_(std::move(db)),
        statistics_(std::move(stats)),
        block_cache_(std::move(block_cache)),
        options_text_(std::move(options_text)) {
    write_options_.sync = config.sync;
    if (config.statistics) {
      // Per-level filter counters live in the calling thread's perf context.
      rocksdb::SetPerfLevel(rocksdb::PerfLevel::kEnableCount);
      rocksdb::get_perf_context()->EnablePerLevelPerfContext();
      rocksdb::get_perf_context()->Reset();
    }
  }
  ~RocksDbEngine() override {
    if (config_.statistics) rocksdb::SetPerfLevel(rocksdb::PerfLevel::kDisable);
    if (db_) db_->Close();
  }

  Status Put(const Slice& key, const Slice& value) override {
    return FromRocks(db_->Put(write_options_, ToRocks(key), ToRocks(value)));
  }
  Status Delete(const Slice& key) override { return FromRocks(db_->Delete(write_options_, ToRocks(key))); }
  Status WriteBatch(const std::vector<std::pair<Slice, Slice>>& puts) override {
    thread_local rocksdb::WriteBatch batch;  // scratch per calling thread (--threads writers)
    batch.Clear();
    for (const auto& [key, value] : puts) {
      rocksdb::Status s = batch.Put(ToRocks(key), ToRocks(value));
      if (!s.ok()) return FromRocks(s);
    }
    return FromRocks(db_->Write(write_options_, &batch));
  }

  Status Get(const Slice& key, std::string* value, bool* found) override {
    rocksdb::Status s = db_->Get(read_options_, ToRocks(key), value);
    *found = s.ok();
    return s.IsNotFound() ? Status::OK() : FromRocks(s);
  }
  Status MultiGet(const std::vector<Slice>& keys, std::vector<std::string>* values, uint64_t* found) override {
    // The batched API (array of keys, PinnableSlice values, per-key status),
    // db_bench's --multiread_batched=true path. Scratch per calling thread
    // (--threads readers), reused across calls.
    thread_local std::vector<rocksdb::Slice> rkeys;
    thread_local std::vector<rocksdb::PinnableSlice> pinned;
    thread_local std::vector<rocksdb::Status> statuses;
    const size_t n = keys.size();
    rkeys.resize(n);
    pinned.resize(n);
    statuses.resize(n);
    for (size_t i = 0; i < n; ++i) rkeys[i] = ToRocks(keys[i]);
    db_->MultiGet(read_options_, db_->DefaultColumnFamily(), n, rkeys.data(), pinned.data(), statuses.data(),
                  /*sorted_input=*/false);
    values->resize(n);
    *found = 0;
    Status result;
    for (size_t i = 0; i < n; ++i) {
      if (statuses[i].ok()) {
        (*values)[i].assign(pinned[i].data(), pinned[i].size());
        ++*found;
      } else if (statuses[i].IsNotFound()) {
        (*values)[i].clear();
      } else if (result.ok()) {
        result = FromRocks(statuses[i]);
      }
      pinned[i].Reset();  // unpin every block now: pins must not outlive the DB
    }
    return result;
  }
  std::unique_ptr<EngineIterator> NewIterator(const IteratorOptions& options) override {
    rocksdb::ReadOptions ro = read_options_;
    ro.prefix_same_as_start = options.prefix_same_as_start;
    ro.total_order_seek = options.total_order_seek;
    ro.auto_prefix_mode = options.auto_prefix_mode;
    std::unique_ptr<rocksdb::Slice> bound;
    if (options.upper_bound != nullptr) {
      bound = std::make_unique<rocksdb::Slice>(ToRocks(*options.upper_bound));
      ro.iterate_upper_bound = bound.get();
    }
    rocksdb::Iterator* it = db_->NewIterator(ro);
    return std::make_unique<RocksDbIterator>(it, std::move(bound), options.upper_bound);
  }

  Status Flush() override {
    rocksdb::FlushOptions options;
    options.wait = true;
    return FromRocks(db_->Flush(options));
  }
  Status CompactAll() override {
    rocksdb::CompactRangeOptions options;
    options.bottommost_level_compaction = rocksdb::BottommostLevelCompaction::kForceOptimized;
    return FromRocks(db_->CompactRange(options, nullptr, nullptr));
  }
  Status WaitForCompaction() override {
    // 7.8.3 has no DB::WaitForCompact: poll the pending/running properties.
    static const char* const kBusy[] = {"rocksdb.mem-table-flush-pending", "rocksdb.compaction-pending",
                                        "rocksdb.num-running-flushes", "rocksdb.num-running-compactions"};
    while (true) {
      bool idle = true;
      for (const char* property : kBusy) {
        uint64_t v = 0;
        if (!db_->GetIntProperty(property, &v)) {
          return Status::IOError(std::string("rocksdb: property ") + property + " is unavailable");
        }
        if (v != 0) idle = false;
      }
      if (idle) return Status::OK();
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
  }

  Status ApproximateMemTableStats(const Slice& start, const Slice& limit, uint64_t* count, uint64_t* bytes) override {
    const rocksdb::Range range(ToRocks(start), ToRocks(limit));
    db_->GetApproximateMemTableStats(range, count, bytes);
    return Status::OK();
  }
  uint64_t TableBytes() override {
    uint64_t bytes = 0;
    db_->GetIntProperty("rocksdb.total-sst-files-size", &bytes);
    return bytes;
  }
  std::string StatsText() override {
    std::string text;
    db_->GetProperty("rocksdb.stats", &text);
    if (statistics_) text += statistics_->ToString();
    return text;
  }
  void DescribeOptions(JsonRecord* record) const override {
    (*record)["engine_version"] = "rocksdb " + RocksDbVersion();
    (*record)["engine_note"] = kAssertionsNote;
    (*record)["rocksdb_options"] = options_text_;
    (*record)["direct_reads"] = config_.use_direct_reads;
  }
  void ResetStats() override {
    if (!config_.statistics) return;
    statistics_->Reset();
    // Reset() zeroes the per-level counters too (ClearPerLevelPerfContext
    // would also switch them off).
    rocksdb::get_perf_context()->Reset();
  }
  JsonRecord Levels() override {
    rocksdb::ColumnFamilyMetaData meta;
    db_->GetColumnFamilyMetaData(&meta);
    const std::map<uint32_t, rocksdb::PerfContextByLevel>* per_level =
        PerfContextCounts() ? rocksdb::get_perf_context()->level_to_perf_context : nullptr;
    JsonRecord levels = JsonRecord::array();
    for (const rocksdb::LevelMetaData& level : meta.levels) {
      const rocksdb::PerfContextByLevel* counters = nullptr;
      if (per_level != nullptr) {
        const auto it = per_level->find(static_cast<uint32_t>(level.level));
        // A level the thread never consulted here (or only in a database
        // since reopened) has all-zero counters: report it as not counted.
        if (it != per_level->end() && it->second.bloom_filter_useful + it->second.bloom_filter_full_positive > 0) {
          counters = &it->second;
        }
      }
      if (level.files.empty() && counters == nullptr) continue;
      JsonRecord entry = {{"level", level.level}, {"files", level.files.size()}, {"bytes", level.size}};
      if (counters != nullptr) {
        const rocksdb::PerfContextByLevel& c = *counters;
        // RocksDB counts a Get that its filter let through as positive, one
        // it stopped as useful; "checked" is their sum.
        engine::FilterCounters counted;
        counted.checked = c.bloom_filter_useful + c.bloom_filter_full_positive;
        counted.useful = c.bloom_filter_useful;
        counted.positive = c.bloom_filter_full_positive;
        counted.true_positive = c.bloom_filter_full_true_positive;
        AddFilterCounters(counted, &entry);
      }
      levels.push_back(std::move(entry));
    }
    return levels;
  }
  JsonRecord IoStats() override {
    if (!config_.statistics) return JsonRecord();
    auto ticker = [this](rocksdb::Tickers t) { return statistics_->getTickerCount(t); };
    // A block-cache miss of a kind is one read of that kind's block from the
    // file (RocksDB reads through the cache when it has one).
    JsonRecord io;
    io["block_reads"] = {{"data", ticker(rocksdb::BLOCK_CACHE_DATA_MISS)},
                         {"index", ticker(rocksdb::BLOCK_CACHE_INDEX_MISS)},
                         {"filter", ticker(rocksdb::BLOCK_CACHE_FILTER_MISS)}};
    io["bytes_read"] = {{"data", ticker(rocksdb::BLOCK_CACHE_DATA_BYTES_INSERT)},
                        {"index", ticker(rocksdb::BLOCK_CACHE_INDEX_BYTES_INSERT)},
                        {"filter", ticker(rocksdb::BLOCK_CACHE_FILTER_BYTES_INSERT)}};
    io["block_cache"] = {{"hits", ticker(rocksdb::BLOCK_CACHE_HIT)}, {"misses", ticker(rocksdb::BLOCK_CACHE_MISS)}};
    io["fp_data_block_reads"] = JsonRecord();
    io["fp_data_block_fetches"] = JsonRecord();
    return io;
  }
  // RocksDB 7.8.3 predates the seek tickers of PR #11460 (8.3): its prefix
  // filter's seek counts are BLOOM_FILTER_PREFIX_CHECKED and _USEFUL, which
  // give the total's filtered and filter_match; the rest is null.
  JsonRecord SeekStats() override {
    if (!config_.statistics) return JsonRecord();
    const uint64_t checked = statistics_->getTickerCount(rocksdb::BLOOM_FILTER_PREFIX_CHECKED);
    const uint64_t useful = statistics_->getTickerCount(rocksdb::BLOOM_FILTER_PREFIX_USEFUL);
    JsonRecord total = {{"filtered", useful},
                        {"filter_match", checked - useful},
                        {"data", JsonRecord()},
                        {"data_useful_no_filter", JsonRecord()},
                        {"data_useful_filter_match", JsonRecord()},
                        {"fp_rate", JsonRecord()}};
    JsonRecord out = {{"total", std::move(total)}, {"last_level", JsonRecord()}, {"non_last_level", JsonRecord()}};
    if (PerfContextCounts() && config_.memtable_filter != nullptr && config_.prefix_extractor != nullptr) {
      // Its memtable Bloom counters count Get probes and seeks' prefix probes alike.
      const rocksdb::PerfContext* perf = rocksdb::get_perf_context();
      out["memtable_prefix_bloom"] = {{"hits", perf->bloom_memtable_hit_count},
                                      {"misses", perf->bloom_memtable_miss_count}};
    }
    return out;
  }
  JsonRecord FilterStats() override {
    if (!config_.statistics) return JsonRecord();
    JsonRecord out;
    out["total"] = {
        {"useful", statistics_->getTickerCount(rocksdb::BLOOM_FILTER_USEFUL)},
        {"positive", statistics_->getTickerCount(rocksdb::BLOOM_FILTER_FULL_POSITIVE)},
        {"true_positive", statistics_->getTickerCount(rocksdb::BLOOM_FILTER_FULL_TRUE_POSITIVE)},
    };
    if (PerfContextCounts()) {
      const rocksdb::PerfContext* perf = rocksdb::get_perf_context();
      out["memtable"] = {{"negatives", perf->bloom_memtable_miss_count}, {"positives", perf->bloom_memtable_hit_count}};
    }
    out["block_cache"] = {{"hits", statistics_->getTickerCount(rocksdb::BLOCK_CACHE_HIT)},
                          {"misses", statistics_->getTickerCount(rocksdb::BLOCK_CACHE_MISS)}};
    if (block_cache_) {
      out["block_cache"]["usage"] = block_cache_->GetUsage();
      out["block_cache"]["capacity"] = block_cache_->GetCapacity();
    }
    return out;
  }

 private:
  // The per-level filter and memtable counters live in the perf context of
  // the thread that did the lookups: the driver thread's holds them only
  // when the benchmarks run on it (--threads=1); with more threads only the
  // global Statistics tickers are reported.
  bool PerfContextCounts() const { return config_.statistics && config_.threads == 1; }

  const BenchConfig config_;
  std::unique_ptr<rocksdb::DB> db_;
  std::shared_ptr<rocksdb::Statistics> statistics_;
  std::shared_ptr<rocksdb::Cache> block_cache_;  // null without a cache
  const std::string options_text_;
  rocksdb::ReadOptions read_options_;
  rocksdb::WriteOptions write_options_;
};

}  // namespace

Status OpenRocksDbEngine(const BenchConfig& config, const std::string& path, std::unique_ptr<Engine>* out) {
  rocksdb::BlockBasedTableOptions table;
  table.format_version = 5;
  std::string filter_text = "none";
  RocksDbTableFilter choice;
  Status checked = RocksDbTableFilterFor(config.filter.get(), &choice);  // as ParseBenchConfig checked it
  if (!checked.ok()) return checked;
  if (choice.kind == RocksDbTableFilter::kBloom) {
    table.filter_policy.reset(rocksdb::NewBloomFilterPolicy(choice.bits_per_key, /*use_block_based_builder=*/false));
    filter_text = "NewBloomFilterPolicy(" + FormatNumber(choice.bits_per_key) + ") FastLocalBloom";
  } else if (choice.kind == RocksDbTableFilter::kRibbon) {
    // bloom_before_level = -1: Ribbon for every table, flushes included, as
    // our engine's ribbon:bpk=B; RocksDB's default 0 gives flushed (L0)
    // tables FastLocalBloom and only compaction outputs Ribbon.
    table.filter_policy.reset(rocksdb::NewRibbonFilterPolicy(choice.bits_per_key, /*bloom_before_level=*/-1));
    filter_text = "NewRibbonFilterPolicy(" + FormatNumber(choice.bits_per_key) + ") Standard128Ribbon";
  }
  if (choice.kind != RocksDbTableFilter::kNone) table.whole_key_filtering = config.whole_key_filtering;
  table.data_block_index_type = config.hash_index ? rocksdb::BlockBasedTableOptions::kDataBlockBinaryAndHash
                                                  : rocksdb::BlockBasedTableOptions::kDataBlockBinarySearch;
  table.data_block_hash_table_util_ratio = config.util_ratio;
  table.block_size = static_cast<size_t>(config.block_size);
  if (config.cache_mb > 0) {
    // Small caches get our cache's shard count (shards >= 4 MiB): RocksDB's
    // default of 512 KiB shards holds no 64 MiB table's ~0.7 MB filter
    // block, so a cold run would read every filter from storage. Large
    // caches keep RocksDB's default (db_bench's 64 shards).
    const size_t bytes = static_cast<size_t>(config.cache_mb) << 20;
    const int shard_bits = config.cache_mb < 64 ? engine::BlockCache::AutoShardBits(bytes) : -1;
    table.block_cache = rocksdb::NewLRUCache(bytes, shard_bits);
    table.cache_index_and_filter_blocks = true;
    // Pinned, as our table readers pin theirs (table_reader.h): charged to
    // the cache, never evicted, used without a cache lookup.
    table.metadata_cache_options.unpartitioned_pinning = rocksdb::PinningTier::kAll;
  } else {
    table.no_block_cache = true;
  }

  rocksdb::Options options;
  options.create_if_missing = !config.use_existing_db;
  options.table_factory.reset(rocksdb::NewBlockBasedTableFactory(table));
  options.compression = config.compression == "lz4"    ? rocksdb::kLZ4Compression
                        : config.compression == "zstd" ? rocksdb::kZSTD
                                                       : rocksdb::kNoCompression;
  options.bottommost_compression = options.compression;
  options.write_buffer_size = static_cast<size_t>(config.write_buffer_mb * 1048576);
  options.target_file_size_base = static_cast<uint64_t>(config.target_file_mb * 1048576);
  options.max_bytes_for_level_base = static_cast<uint64_t>(config.level1_mb * 1048576);
  options.disable_auto_compactions = config.disable_auto_compactions;
  options.use_direct_reads = config.use_direct_reads;
  if (config.memtable_filter != nullptr) {
    options.memtable_prefix_bloom_size_ratio = config.memtable_bloom_ratio;
    options.memtable_whole_key_filtering = config.memtable_whole_key_filtering;
  }
  std::string prefix_text = "none";
  if (const engine::PrefixExtractor* p = config.prefix_extractor.get()) {
    options.prefix_extractor.reset(p->kind() == engine::PrefixExtractor::Kind::kFixed
                                       ? rocksdb::NewFixedPrefixTransform(p->length())
                                       : rocksdb::NewCappedPrefixTransform(p->length()));
    prefix_text = options.prefix_extractor->Name();
  }
  std::shared_ptr<rocksdb::Statistics> statistics;
  if (config.statistics) {
    statistics = rocksdb::CreateDBStatistics();
    options.statistics = statistics;
  }

  rocksdb::DB* raw = nullptr;
  rocksdb::Status rs = rocksdb::DB::Open(options, path, &raw);
  if (!rs.ok()) return Status::IOError("lsmbench: cannot open RocksDB at " + path + ": " + rs.ToString());
  std::unique_ptr<rocksdb::DB> db(raw);

  std::string options_text =
      "format_version=5; filter=" + filter_text +
      "; data_block_index_type=" + (config.hash_index ? "BinaryAndHash" : "BinarySearch") +
      " util_ratio=" + std::to_string(config.util_ratio) + "; block_size=" + std::to_string(config.block_size) +
      "; block_cache=LRU " + std::to_string(config.cache_mb) +
      (config.cache_mb < 64
           ? " MiB in " +
                 std::to_string(1 << engine::BlockCache::AutoShardBits(static_cast<size_t>(config.cache_mb) << 20)) +
                 " shards (as ours)"
           : std::string(" MiB")) +
      " (index and filter blocks cached, pinned); compression=" + config.compression +
      "; write_buffer_size=" + FormatNumber(config.write_buffer_mb) + " MiB; memtable_prefix_bloom_size_ratio=" +
      (config.memtable_filter == nullptr ? "0" : std::to_string(config.memtable_bloom_ratio)) +
      " memtable_whole_key_filtering=" +
      (config.memtable_filter == nullptr     ? "false"
       : config.memtable_whole_key_filtering ? "true"
                                             : "false") +
      "; prefix_extractor=" + prefix_text + "; whole_key_filtering=" + (config.whole_key_filtering ? "true" : "false") +
      "; use_direct_reads=" + (config.use_direct_reads ? "true" : "false") +
      "; approximate memtable stats: old algorithm (7.8.3 predates PR #13047)";
  *out = std::make_unique<RocksDbEngine>(config, std::move(db), std::move(statistics), table.block_cache,
                                         std::move(options_text));
  return Status::OK();
}

}  // namespace filterlab::lsmbench
