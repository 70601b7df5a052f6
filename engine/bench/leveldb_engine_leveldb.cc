// --engine=leveldb: LevelDB (Debian's libleveldb 1.23) behind lsmbench's
// Engine interface, so LevelDB, RocksDB and our engine run one workload in
// one process sequence. LevelDB has fewer knobs; the mapping is
//   table filter   NewBloomFilterPolicy(B): LevelDB's Bloom, the math of our
//                  "legacy_block:bpk=B" (RocksDB's block-based Bloom came from
//                  it), built per 2 KiB of data as LevelDB does; B whole bits
//   blocks         block_size, LRU block cache of --cache_mb (LevelDB keeps
//                  index and filter blocks of open tables outside the cache)
//   LSM shape      write_buffer_size, max_file_size (--target_file_mb);
//                  LevelDB's level sizes are fixed (10 MiB x 10^L)
//   compression    none (LevelDB offers only Snappy besides)
// MultiGet is a loop of Get (LevelDB has no batched lookup). What LevelDB
// lacks is refused by CheckEngineLimits (bench_config.cc) before anything
// runs. Compiled only when CMake finds leveldb's package config (the file
// name's _leveldb suffix keeps it out of the default sources).
#include <leveldb/cache.h>
#include <leveldb/db.h>
#include <leveldb/filter_policy.h>
#include <leveldb/iterator.h>
#include <leveldb/options.h>
#include <leveldb/write_batch.h>

#include "engine/bench/engine.h"
#include "filters/filter.h"

namespace filterlab::lsmbench {
namespace {

leveldb::Slice ToLevel(const Slice& s) { return leveldb::Slice(s.data(), s.size()); }
Slice FromLevel(const leveldb::Slice& s) { return Slice(s.data(), s.size()); }

Status FromLevel(const leveldb::Status& s) {
  if (s.ok()) return Status::OK();
  const std::string msg = "leveldb: " + s.ToString();
  if (s.IsInvalidArgument()) return Status::InvalidArgument(msg);
  if (s.IsNotSupportedError()) return Status::NotSupported(msg);
  if (s.IsCorruption()) return Status::Corruption(msg);
  return Status::IOError(msg);
}

class LevelDbIterator : public EngineIterator {
 public:
  explicit LevelDbIterator(leveldb::Iterator* it) : it_(it) {}
  void SeekToFirst() override { it_->SeekToFirst(); }
  void Seek(const Slice& target) override { it_->Seek(ToLevel(target)); }
  void Next() override { it_->Next(); }
  bool Valid() const override { return it_->Valid(); }
  Slice key() const override { return FromLevel(it_->key()); }
  Slice value() const override { return FromLevel(it_->value()); }
  Status status() const override { return FromLevel(it_->status()); }

 private:
  std::unique_ptr<leveldb::Iterator> it_;
};

// Owns what leveldb::Options points at, which must outlive the DB.
struct LevelDbResources {
  std::unique_ptr<const leveldb::FilterPolicy> filter;
  std::unique_ptr<leveldb::Cache> cache;
};

class LevelDbEngine : public Engine {
 public:
  LevelDbEngine(const BenchConfig& config, std::unique_ptr<LevelDbResources> resources, std::unique_ptr<leveldb::DB> db,
                std::string options_text)
      : config_(config), resources_(std::move(resources)), db_(std::move(db)), options_text_(std::move(options_text)) {
    write_options_.sync = config.sync;
  }
  ~LevelDbEngine() override { db_.reset(); }  // before the cache and filter it uses

  Status Put(const Slice& key, const Slice& value) override {
    return FromLevel(db_->Put(write_options_, ToLevel(key), ToLevel(value)));
  }
  Status Delete(const Slice& key) override { return FromLevel(db_->Delete(write_options_, ToLevel(key))); }
  Status WriteBatch(const std::vector<std::pair<Slice, Slice>>& puts) override {
    thread_local leveldb::WriteBatch batch;  // scratch per calling thread
    batch.Clear();
    for (const auto& [key, value] : puts) batch.Put(ToLevel(key), ToLevel(value));
    return FromLevel(db_->Write(write_options_, &batch));
  }
  Status Get(const Slice& key, std::string* value, bool* found) override {
    leveldb::Status s = db_->Get(read_options_, ToLevel(key), value);
    *found = s.ok();
    return s.IsNotFound() ? Status::OK() : FromLevel(s);
  }
  Status MultiGet(const std::vector<Slice>& keys, std::vector<std::string>* values, uint64_t* found) override {
    values->resize(keys.size());
    *found = 0;
    for (size_t i = 0; i < keys.size(); ++i) {
      bool hit = false;
      Status s = Get(keys[i], &(*values)[i], &hit);
      if (!s.ok()) return s;
      if (hit) {
        ++*found;
      } else {
        (*values)[i].clear();
      }
    }
    return Status::OK();
  }
  // LevelDB has no iterate_upper_bound and no prefixes: the wrapper applies
  // the bound and prefix_same_as_start (same keys, no table skipped).
  std::unique_ptr<EngineIterator> NewIterator(const IteratorOptions& options) override {
    return WithEmulatedBounds(std::make_unique<LevelDbIterator>(db_->NewIterator(read_options_)), options,
                              config_.prefix_extractor);
  }

  // LevelDB's CompactRange writes the memtable out first; over a range past
  // every key (lsmbench's keys are digits) it compacts nothing else.
  Status Flush() override {
    const leveldb::Slice past("\xff\xff\xff\xff");
    db_->CompactRange(&past, &past);
    return Status::OK();
  }
  Status CompactAll() override {
    db_->CompactRange(nullptr, nullptr);
    return Status::OK();
  }
  Status WaitForCompaction() override {
    return Status::NotSupported(
        "--engine=leveldb cannot wait for compactions (LevelDB reports no pending work); "
        "use compact instead");
  }
  Status ApproximateMemTableStats(const Slice&, const Slice&, uint64_t*, uint64_t*) override {
    return Status::NotSupported("--engine=leveldb has no memtable range estimate");
  }
  uint64_t TableBytes() override {
    const leveldb::Range all("", "\xff\xff\xff\xff\xff\xff\xff\xff");
    uint64_t size = 0;
    db_->GetApproximateSizes(&all, 1, &size);
    return size;
  }
  std::string StatsText() override {
    std::string text;
    db_->GetProperty("leveldb.stats", &text);
    return text;
  }
  void DescribeOptions(JsonRecord* record) const override {
    (*record)["engine_version"] =
        "leveldb " + std::to_string(leveldb::kMajorVersion) + "." + std::to_string(leveldb::kMinorVersion);
    (*record)["engine_note"] =
        "Debian libleveldb; MultiGet is a loop of Get; filter = LevelDB's Bloom per 2 KiB "
        "of data; sst_bytes is GetApproximateSizes over all keys; no prefix extractor, prefix Bloom or "
        "iterate_upper_bound: upper bounds and prefix_same_as_start are applied by lsmbench's iterator, so "
        "bounded seeks return the same keys and skip no table";
    (*record)["leveldb_options"] = options_text_;
    (*record)["direct_reads"] = false;
  }
  JsonRecord Levels() override { return JsonRecord(); }
  JsonRecord FilterStats() override { return JsonRecord(); }
  void ResetStats() override {}

 private:
  const BenchConfig config_;
  std::unique_ptr<LevelDbResources> resources_;
  std::unique_ptr<leveldb::DB> db_;
  const std::string options_text_;
  leveldb::ReadOptions read_options_;
  leveldb::WriteOptions write_options_;
};

}  // namespace

Status OpenLevelDbEngine(const BenchConfig& config, const std::string& path, std::unique_ptr<Engine>* out) {
  auto resources = std::make_unique<LevelDbResources>();
  leveldb::Options options;
  options.create_if_missing = !config.use_existing_db;
  options.write_buffer_size = static_cast<size_t>(config.write_buffer_mb) << 20;
  options.max_file_size = static_cast<size_t>(config.target_file_mb) << 20;
  options.block_size = static_cast<size_t>(config.block_size);
  options.compression = leveldb::kNoCompression;
  std::string filter_text = "none";
  double bits = 0;
  Status s = LevelDbFilterBitsFor(config.filter.get(), &bits);  // as ParseBenchConfig checked it
  if (!s.ok()) return s;
  if (bits > 0) {
    resources->filter.reset(leveldb::NewBloomFilterPolicy(static_cast<int>(bits)));
    options.filter_policy = resources->filter.get();
    filter_text = "NewBloomFilterPolicy(" + std::to_string(static_cast<int>(bits)) + ")";
  }
  if (config.cache_mb > 0) {
    resources->cache.reset(leveldb::NewLRUCache(static_cast<size_t>(config.cache_mb) << 20));
    options.block_cache = resources->cache.get();
  }
  leveldb::DB* raw = nullptr;
  leveldb::Status ls = leveldb::DB::Open(options, path, &raw);
  if (!ls.ok()) return Status::IOError("lsmbench: cannot open LevelDB at " + path + ": " + ls.ToString());
  std::unique_ptr<leveldb::DB> db(raw);
  const std::string text =
      "filter=" + filter_text + "; block_size=" + std::to_string(config.block_size) + "; block_cache=LRU " +
      std::to_string(config.cache_mb) +
      " MiB (data blocks only); compression=none; write_buffer_size=" + std::to_string(config.write_buffer_mb) +
      " MiB; max_file_size=" + std::to_string(config.target_file_mb) + " MiB; level sizes fixed by LevelDB";
  *out = std::make_unique<LevelDbEngine>(config, std::move(resources), std::move(db), text);
  return Status::OK();
}

}  // namespace filterlab::lsmbench
