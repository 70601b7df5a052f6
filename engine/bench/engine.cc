#include "engine/bench/engine.h"

#include <cstdio>

#include "engine/util/direct_file.h"

namespace filterlab::lsmbench {
namespace {

Status RocksDbMissing() {
  return Status::NotSupported(
      "lsmbench: --engine=rocksdb is not available: this lsmbench was built without RocksDB (CMake found no "
      "pkg-config 'rocksdb'; install librocksdb-dev and reconfigure, or FILTERLAB_WITH_ROCKSDB was OFF)");
}

Status LevelDbMissing() {
  return Status::NotSupported(
      "lsmbench: --engine=leveldb is not available: this lsmbench was built without LevelDB (CMake found no "
      "leveldb package config; install libleveldb-dev and reconfigure, or FILTERLAB_WITH_LEVELDB was OFF)");
}

class EmulatedBoundsIterator final : public EngineIterator {
 public:
  EmulatedBoundsIterator(std::unique_ptr<EngineIterator> it, const IteratorOptions& options,
                         std::shared_ptr<const engine::PrefixExtractor> extractor)
      : it_(std::move(it)), options_(options), extractor_(std::move(extractor)) {}
  bool Valid() const override {
    if (!it_->Valid()) return false;
    const Slice k = it_->key();
    if (options_.upper_bound != nullptr && k.compare(bound_) >= 0) return false;
    return !has_prefix_ || (extractor_->InDomain(k) && extractor_->Transform(k) == Slice(prefix_));
  }
  void SeekToFirst() override {
    Start(nullptr);
    it_->SeekToFirst();
  }
  void Seek(const Slice& target) override {
    Start(&target);
    it_->Seek(target);
  }
  void Next() override { it_->Next(); }
  Slice key() const override { return it_->key(); }
  Slice value() const override { return it_->value(); }
  Status status() const override { return it_->status(); }

 private:
  // The bound and prefix of this seek (the caller may change *upper_bound between seeks).
  void Start(const Slice* target) {
    if (options_.upper_bound != nullptr) bound_.assign(options_.upper_bound->data(), options_.upper_bound->size());
    has_prefix_ = target != nullptr && extractor_ != nullptr && options_.prefix_same_as_start &&
                  !options_.total_order_seek && !options_.auto_prefix_mode && extractor_->InDomain(*target);
    if (has_prefix_) prefix_ = extractor_->Transform(*target).ToString();
  }

  std::unique_ptr<EngineIterator> it_;
  const IteratorOptions options_;
  const std::shared_ptr<const engine::PrefixExtractor> extractor_;
  std::string bound_, prefix_;
  bool has_prefix_ = false;
};

}  // namespace

std::unique_ptr<EngineIterator> WithEmulatedBounds(std::unique_ptr<EngineIterator> it, const IteratorOptions& options,
                                                   std::shared_ptr<const engine::PrefixExtractor> extractor) {
  if (options.upper_bound == nullptr && !options.prefix_same_as_start) return it;
  return std::make_unique<EmulatedBoundsIterator>(std::move(it), options, std::move(extractor));
}

bool HaveLevelDb() {
#ifdef FILTERLAB_HAVE_LEVELDB
  return true;
#else
  return false;
#endif
}

bool HaveRocksDb() {
#ifdef FILTERLAB_HAVE_ROCKSDB
  return true;
#else
  return false;
#endif
}

JsonRecord SeekStatsRecord(const engine::LevelTickers& t) {
  using engine::LevelTicker;
  const uint64_t filtered = t[LevelTicker::kSeekFiltered], match = t[LevelTicker::kSeekFilterMatch];
  const uint64_t useful_match = t[LevelTicker::kSeekDataUsefulFilterMatch];
  const uint64_t empty = filtered + match - useful_match;
  JsonRecord out = {{"filtered", filtered},
                    {"filter_match", match},
                    {"data", t[LevelTicker::kSeekData]},
                    {"data_useful_no_filter", t[LevelTicker::kSeekDataUsefulNoFilter]},
                    {"data_useful_filter_match", useful_match}};
  out["fp_rate"] = empty == 0 ? JsonRecord() : JsonRecord(static_cast<double>(match - useful_match) / empty);
  return out;
}

void AddFilterCounters(const engine::FilterCounters& counters, JsonRecord* level) {
  JsonRecord& entry = *level;
  entry["filter_checked"] = counters.checked;
  entry["filter_useful"] = counters.useful;
  entry["filter_positive"] = counters.positive;
  entry["filter_true_positive"] = counters.true_positive;
  const std::optional<double> fp_rate = counters.FpRate();
  entry["fp_rate"] = fp_rate ? JsonRecord(*fp_rate) : JsonRecord();
}

Status CheckEngineConfig(const BenchConfig& config) {
  if (config.engine == "rocksdb" && !HaveRocksDb()) return RocksDbMissing();
  if (config.engine == "leveldb" && !HaveLevelDb()) return LevelDbMissing();
  if (config.engine == "filterlab") {
    Status s = FilterlabDbOptions(config).Validate();
    if (!s.ok()) return Status::InvalidArgument("lsmbench: filterlab DB options: " + s.message());
  }
  return Status::OK();
}

Status OpenEngine(const BenchConfig& requested, const std::string& path, std::unique_ptr<Engine>* out) {
  BenchConfig config = requested;
  std::string why;
  if (config.use_direct_reads && !engine::DirectIoSupported(path, &why)) {
    std::fprintf(stderr,
                 "lsmbench: --use_direct_reads: %s; tables are read buffered instead, so block-cache misses are "
                 "page-cache copies, not storage reads (put --db on a disk filesystem for cold reads)\n",
                 why.c_str());
    config.use_direct_reads = false;
  }
  if (config.engine == "filterlab") return OpenFilterlabEngine(config, path, out);
  if (config.engine == "memtable") return OpenMemTableEngine(config, out);
  if (config.engine == "rocksdb") {
#ifdef FILTERLAB_HAVE_ROCKSDB
    return OpenRocksDbEngine(config, path, out);
#else
    (void)path;
    return RocksDbMissing();
#endif
  }
  if (config.engine == "leveldb") {
#ifdef FILTERLAB_HAVE_LEVELDB
    return OpenLevelDbEngine(config, path, out);
#else
    return LevelDbMissing();
#endif
  }
  return Status::InvalidArgument("lsmbench: unknown engine '" + config.engine +
                                 "'; allowed: filterlab, memtable, rocksdb, leveldb");
}

}  // namespace filterlab::lsmbench
