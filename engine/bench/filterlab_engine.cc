// --engine=filterlab: our DB (engine/db) behind lsmbench's Engine interface.
// Every lsmbench option maps to one DB option (filters per level, memtable
// filter and ratio, hash index and util ratio, block size, block cache,
// write buffer, level and file sizes), so a run's JSON names exactly what
// was measured. Filter statistics come from the DB's properties
// (filterlab.filter-stats-level<N>, filterlab.memtable-filter-stats) and are
// zeroed before each benchmark.
#include <cstdlib>
#include <sstream>

#include "engine/bench/engine.h"
#include "engine/db/db.h"

namespace filterlab::lsmbench {
namespace {

namespace db = engine;

// "a=1 b=2 (note)" → {"a": 1, "b": 2}; tokens without '=' are dropped, values
// that are not integers stay strings.
JsonRecord ParseKeyValues(const std::string& text) {
  JsonRecord out = JsonRecord::object();
  std::istringstream in(text);
  std::string token;
  while (in >> token) {
    const size_t eq = token.find('=');
    if (eq == std::string::npos || eq == 0) continue;
    const std::string key = token.substr(0, eq), value = token.substr(eq + 1);
    char* end = nullptr;
    const unsigned long long v = std::strtoull(value.c_str(), &end, 10);
    if (!value.empty() && *end == '\0') {
      out[key] = v;
    } else {
      out[key] = value;
    }
  }
  return out;
}

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
    batch_.Clear();
    for (const auto& [key, value] : puts) batch_.Put(key, value);
    return db_->Write(write_options_, &batch_);
  }

  Status Get(const Slice& key, std::string* value, bool* found) override {
    Status s = db_->Get(read_options_, key, value);
    *found = s.ok();
    return s.IsNotFound() ? Status::OK() : s;
  }
  Status MultiGet(const std::vector<Slice>& keys, std::vector<std::string>* values, uint64_t* found) override {
    db_->MultiGet(read_options_, keys, values, &statuses_);
    *found = 0;
    for (const Status& s : statuses_) {
      if (s.ok()) {
        ++*found;
      } else if (!s.IsNotFound()) {
        return s;
      }
    }
    return Status::OK();
  }
  std::unique_ptr<EngineIterator> NewIterator() override { return db_->NewIterator(read_options_); }

  Status Flush() override { return db_->Flush(/*wait=*/true); }
  Status CompactAll() override { return db_->CompactRange(nullptr, nullptr); }
  Status WaitForCompaction() override { return db_->WaitForCompaction(); }

  Status ApproximateMemTableStats(const Slice& start, const Slice& limit, uint64_t* count,
                                  uint64_t* bytes) override {
    db_->GetApproximateMemTableStats(start, limit, count, bytes);
    return Status::OK();
  }
  uint64_t TableBytes() override {
    std::string v;
    return db_->GetProperty("filterlab.total-sst-bytes", &v) ? std::strtoull(v.c_str(), nullptr, 10) : 0;
  }
  std::string StatsText() override {
    std::string v;
    return db_->GetProperty("filterlab.stats", &v) ? v : std::string("(filterlab.stats unavailable)\n");
  }
  void DescribeOptions(JsonRecord* record) const override {
    (*record)["approx_algorithm"] = config_.approx_algorithm;
  }
  JsonRecord Levels() override {
    JsonRecord levels = JsonRecord::array();
    std::string files_text, bytes_text, filter_text;
    for (int level = 0; db_->GetProperty("filterlab.num-files-at-level" + std::to_string(level), &files_text) &&
                        db_->GetProperty("filterlab.bytes-at-level" + std::to_string(level), &bytes_text) &&
                        db_->GetProperty("filterlab.filter-stats-level" + std::to_string(level), &filter_text);
         ++level) {
      const unsigned long long files = std::strtoull(files_text.c_str(), nullptr, 10);
      const unsigned long long bytes = std::strtoull(bytes_text.c_str(), nullptr, 10);
      unsigned long long checked = 0, useful = 0, positive = 0, true_positive = 0;
      if (std::sscanf(filter_text.c_str(), "%llu %llu %llu %llu", &checked, &useful, &positive, &true_positive) !=
          4) {
        checked = useful = positive = true_positive = 0;
      }
      if (files == 0 && checked == 0) continue;
      JsonRecord entry = {{"level", level},
                          {"files", files},
                          {"bytes", bytes},
                          {"filter", FilterForLevel(level)},
                          {"filter_checked", checked},
                          {"filter_useful", useful},
                          {"filter_positive", positive},
                          {"filter_true_positive", true_positive}};
      // FP rate over the lookups of keys the level's tables do not hold.
      const unsigned long long absent = checked - true_positive;
      entry["fp_rate"] = absent > 0 ? JsonRecord(static_cast<double>(positive - true_positive) /
                                                 static_cast<double>(absent))
                                    : JsonRecord();
      levels.push_back(std::move(entry));
    }
    return levels;
  }
  JsonRecord FilterStats() override {
    JsonRecord out = JsonRecord::object();
    std::string v;
    if (!config_.memtable_filter.empty() && db_->GetProperty("filterlab.memtable-filter-stats", &v)) {
      out["memtable"] = ParseKeyValues(v);
    }
    if (db_->GetProperty("filterlab.block-cache-stats", &v)) out["block_cache"] = ParseKeyValues(v);
    if (config_.hash_index && db_->GetProperty("filterlab.hash-index-stats", &v)) {
      out["hash_index"] = ParseKeyValues(v);
    }
    return out;
  }
  void ResetStats() override { db_->ResetFilterStats(); }

 private:
  std::string FilterForLevel(int level) const {
    const std::string spec = level < static_cast<int>(config_.filter_per_level.size()) &&
                                     !config_.filter_per_level[level].empty()
                                 ? config_.filter_per_level[level]
                                 : config_.filter;
    return spec.empty() ? "none" : spec;
  }

  const BenchConfig config_;
  std::unique_ptr<db::DB> db_;
  db::ReadOptions read_options_;
  db::WriteOptions write_options_;
  db::WriteBatch batch_;
  std::vector<Status> statuses_;
};

}  // namespace

Status OpenFilterlabEngine(const BenchConfig& config, const std::string& path, std::unique_ptr<Engine>* out) {
  db::Options options;
  options.create_if_missing = !config.use_existing_db;
  options.write_buffer_size = static_cast<size_t>(config.write_buffer_mb) << 20;
  options.memtable_filter_spec = config.memtable_filter;
  options.memtable_filter_bits_ratio = config.memtable_bloom_ratio;
  options.approx_algorithm =
      config.approx_algorithm == "old" ? engine::ApproxAlgorithm::kOld : engine::ApproxAlgorithm::kNew;
  options.max_bytes_for_level_base = static_cast<uint64_t>(config.level1_mb) << 20;
  options.target_file_size = static_cast<uint64_t>(config.target_file_mb) << 20;
  options.disable_auto_compactions = config.disable_auto_compactions;
  options.block_size = static_cast<size_t>(config.block_size);
  options.use_hash_index = config.hash_index;
  options.hash_index_util_ratio = config.util_ratio;
  options.filter_spec = config.filter;
  options.per_level_filter_spec = config.filter_per_level;
  options.block_cache_bytes = static_cast<size_t>(config.cache_mb) << 20;
  std::unique_ptr<db::DB> database;
  Status s = db::DB::Open(options, path, &database);
  if (s.IsInvalidArgument()) return Status::InvalidArgument("lsmbench: filterlab DB options: " + s.message());
  if (!s.ok()) return Status::IOError("lsmbench: cannot open the filterlab DB at " + path + ": " + s.ToString());
  *out = std::make_unique<FilterlabEngine>(config, std::move(database));
  return Status::OK();
}

}  // namespace filterlab::lsmbench
