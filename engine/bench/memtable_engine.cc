// --engine=memtable: one bare MemTable (engine/memtable) behind the Engine
// interface, with no WAL, no flush and no tables: what the memtable
// benchmarks measure (filluniquerandom into a memtable, then
// approximatememtablestats on its skip list) without the DB's write path
// around it, and a baseline for point lookups that never leave memory.
// Writes take sequence numbers from a counter of their own; reads see the
// newest version (snapshot kMaxSequenceNumber). The memtable grows past
// --write_buffer_mb if asked to (that size only sizes its Bloom).
#include <mutex>

#include "engine/bench/engine.h"
#include "engine/memtable/internal_key.h"
#include "engine/memtable/memtable.h"

namespace filterlab::lsmbench {
namespace {

using engine::LookupKey;
using engine::MemTable;
using engine::ParsedInternalKey;

// Walks the memtable's internal keys, showing each user key once with its
// newest version and hiding keys whose newest version is a deletion.
class MemTableIterator : public EngineIterator {
 public:
  explicit MemTableIterator(const MemTable* mem) : it_(mem) {}

  void SeekToFirst() override {
    it_.SeekToFirst();
    SkipHidden();
  }
  void Seek(const Slice& target) override {
    seek_key_.clear();
    engine::AppendInternalKey(&seek_key_, target, engine::kMaxSequenceNumber, engine::kValueTypeForSeek);
    it_.Seek(seek_key_);
    SkipHidden();
  }
  void Next() override {
    // Step past the remaining (older) versions of the current user key
    // (user_key_ points into the memtable's arena, so it stays valid).
    const Slice current = user_key_;
    it_.Next();
    while (it_.Valid() && engine::ExtractUserKey(it_.key()) == current) it_.Next();
    SkipHidden();
  }
  bool Valid() const override { return it_.Valid(); }
  Slice key() const override { return user_key_; }
  Slice value() const override { return it_.value(); }
  Status status() const override { return Status::OK(); }

 private:
  // At the newest version of some user key: skip user keys whose newest
  // version is a deletion.
  void SkipHidden() {
    while (it_.Valid()) {
      ParsedInternalKey parsed;
      if (!engine::ParseInternalKey(it_.key(), &parsed).ok() ||
          (parsed.type != engine::kTypeDeletion && parsed.type != engine::kTypeSingleDeletion)) {
        user_key_ = engine::ExtractUserKey(it_.key());
        return;
      }
      const Slice deleted = parsed.user_key;
      while (it_.Valid() && engine::ExtractUserKey(it_.key()) == deleted) it_.Next();
    }
  }

  MemTable::Iterator it_;
  std::string seek_key_;
  Slice user_key_;
};

class MemTableEngine : public Engine {
 public:
  // With several benchmark threads the writers take turns (the skip list
  // takes one writer at a time, readers need no lock); with one thread the
  // lock is skipped so the single-thread figures measure the memtable alone.
  MemTableEngine(std::unique_ptr<MemTable> mem, bool lock_writes,
                 std::shared_ptr<const engine::PrefixExtractor> prefix_extractor)
      : mem_(std::move(mem)), lock_writes_(lock_writes), prefix_extractor_(std::move(prefix_extractor)) {}

  Status Put(const Slice& key, const Slice& value) override {
    WriterLock l(this);
    mem_->Add(++last_sequence_, engine::kTypeValue, key, value);
    return Status::OK();
  }
  Status Delete(const Slice& key) override {
    WriterLock l(this);
    mem_->Add(++last_sequence_, engine::kTypeDeletion, key, Slice());
    return Status::OK();
  }
  Status WriteBatch(const std::vector<std::pair<Slice, Slice>>& puts) override {
    WriterLock l(this);
    for (const auto& [key, value] : puts) mem_->Add(++last_sequence_, engine::kTypeValue, key, value);
    return Status::OK();
  }

  Status Get(const Slice& key, std::string* value, bool* found) override {
    const LookupKey lookup(key, engine::kMaxSequenceNumber);
    *found = mem_->Get(lookup, value) == MemTable::GetResult::kFound;
    return Status::OK();
  }
  Status MultiGet(const std::vector<Slice>& keys, std::vector<std::string>* values, uint64_t* found) override {
    values->resize(keys.size());
    *found = 0;
    for (size_t i = 0; i < keys.size(); ++i) {
      bool hit = false;
      Get(keys[i], &(*values)[i], &hit);
      if (hit) {
        ++*found;
      } else {
        (*values)[i].clear();
      }
    }
    return Status::OK();
  }
  std::unique_ptr<EngineIterator> NewIterator(const IteratorOptions& options) override {
    return WithEmulatedBounds(std::make_unique<MemTableIterator>(mem_.get()), options, prefix_extractor_);
  }

  Status Flush() override { return NotSupported("flush"); }
  Status CompactAll() override { return NotSupported("compact"); }
  Status WaitForCompaction() override { return Status::OK(); }  // nothing ever runs in the background

  Status ApproximateMemTableStats(const Slice& start, const Slice& limit, uint64_t* count, uint64_t* bytes) override {
    const MemTable::RangeStats stats = mem_->ApproximateStats(start, limit);
    *count = stats.count;
    *bytes = stats.bytes;
    return Status::OK();
  }
  uint64_t TableBytes() override { return 0; }

  std::string StatsText() override {
    std::string s = "memtable: " + std::to_string(mem_->num_entries()) + " entries, " +
                    std::to_string(mem_->data_size()) + " data bytes, " +
                    std::to_string(mem_->ApproximateMemoryUsage()) + " bytes of memory\n";
    if (mem_->bloom() != nullptr) {
      s += "memtable filter: " + mem_->bloom()->Describe() + ", " + std::to_string(mem_->bloom_negatives()) +
           " lookups ruled out, " + std::to_string(mem_->bloom_positives()) + " passed to the skip list\n";
    }
    return s;
  }
  void DescribeOptions(JsonRecord* record) const override {
    (*record)["engine_note"] = "one bare MemTable: no WAL, no flush, no tables";
    (*record)["memtable_entries"] = mem_->num_entries();
  }
  JsonRecord Levels() override { return JsonRecord(); }
  JsonRecord FilterStats() override {
    if (mem_->bloom() == nullptr) return JsonRecord();
    return JsonRecord{{"memtable",
                       {{"negatives", mem_->bloom_negatives() - negatives_at_reset_},
                        {"positives", mem_->bloom_positives() - positives_at_reset_}}}};
  }
  void ResetStats() override {
    negatives_at_reset_ = mem_->bloom_negatives();
    positives_at_reset_ = mem_->bloom_positives();
  }

 private:
  class WriterLock {
   public:
    explicit WriterLock(MemTableEngine* e) : mu_(e->lock_writes_ ? &e->write_mu_ : nullptr) {
      if (mu_ != nullptr) mu_->lock();
    }
    ~WriterLock() {
      if (mu_ != nullptr) mu_->unlock();
    }

   private:
    std::mutex* mu_;
  };

  static Status NotSupported(const char* what) {
    return Status::NotSupported(std::string("--engine=memtable has no ") + what +
                                " (one memtable, no tables); use --engine=filterlab");
  }

  std::unique_ptr<MemTable> mem_;
  const bool lock_writes_;
  const std::shared_ptr<const engine::PrefixExtractor> prefix_extractor_;
  std::mutex write_mu_;
  engine::SequenceNumber last_sequence_ = 0;
  uint64_t negatives_at_reset_ = 0;
  uint64_t positives_at_reset_ = 0;
};

}  // namespace

Status OpenMemTableEngine(const BenchConfig& config, std::unique_ptr<Engine>* out) {
  engine::MemTableOptions options;
  options.write_buffer_size = static_cast<size_t>(config.write_buffer_mb * 1048576);
  options.bloom_policy = config.memtable_filter;
  if (config.memtable_filter != nullptr) options.bloom_size_ratio = config.memtable_bloom_ratio;
  options.approx_algorithm =
      config.approx_algorithm == "old" ? engine::ApproxAlgorithm::kOld : engine::ApproxAlgorithm::kNew;
  options.prefix_extractor = config.prefix_extractor;
  options.whole_key_filtering = config.memtable_whole_key_filtering;
  std::unique_ptr<MemTable> mem;
  Status s = MemTable::Create(options, &mem);
  if (!s.ok()) return Status::InvalidArgument("lsmbench: memtable options: " + s.message());
  // readwhilewriting's writer runs beside readers only, so one writer lock
  // matters for threaded fills alone.
  *out = std::make_unique<MemTableEngine>(std::move(mem), config.threads > 1, config.prefix_extractor);
  return Status::OK();
}

}  // namespace filterlab::lsmbench
