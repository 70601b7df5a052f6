#include "engine/db/internal_iterator.h"

#include "engine/db/table_cache.h"
#include "engine/memtable/memtable.h"

namespace filterlab::engine {
namespace {

class MemTableIter final : public InternalIterator {
 public:
  explicit MemTableIter(std::shared_ptr<const MemTable> mem) : mem_(std::move(mem)), it_(mem_.get()) {}
  bool Valid() const override { return !skipped_ && it_.Valid(); }
  void SeekToFirst() override {
    skipped_ = false;
    it_.SeekToFirst();
  }
  void Seek(const Slice& target) override {
    skipped_ = false;
    it_.Seek(target);
  }
  void SeekFiltered(const Slice& target, const SeekQuery& query) override {
    // The memtable's Bloom holds the prefixes of the DB's extractor, the
    // one every query's prefix comes from.
    skipped_ = query.prefix_extractor != nullptr && !mem_->PrefixMayMatch(query.prefix);
    if (!skipped_) it_.Seek(target);
  }
  void Next() override { it_.Next(); }
  Slice key() const override { return it_.key(); }
  Slice value() const override { return it_.value(); }
  Status status() const override { return Status::OK(); }

 private:
  std::shared_ptr<const MemTable> mem_;
  MemTable::Iterator it_;
  bool skipped_ = false;  // the last seek's prefix is not here
};

// Seeks `it` (over `table`) to `target` unless the table's filters rule the
// query out; counts the outcome at `level`. True if it seeked.
bool SeekTable(const TableReader& table, TableIterator* it, const Slice& target, const SeekQuery& query, int level,
               SeekRecorder* recorder) {
  const TableReader::SeekFilterAnswer answer = table.SeekMayMatch(query);
  if (answer.combined() == LookupResult::Filter::kNegative) {
    if (recorder != nullptr) recorder->RecordTableSeek(level, answer, false);
    return false;
  }
  it->Seek(target);
  if (recorder != nullptr) {
    const bool useful = it->Valid() && !PastQueryEnd(query, ExtractUserKey(it->key()));
    recorder->RecordTableSeek(level, answer, useful);
  }
  return true;
}

class TableIter final : public InternalIterator {
 public:
  TableIter(std::shared_ptr<const TableReader> table, int level, SeekRecorder* recorder)
      : table_(std::move(table)), it_(table_->NewIterator()), level_(level), recorder_(recorder) {}
  bool Valid() const override { return !skipped_ && it_->Valid(); }
  void SeekToFirst() override {
    skipped_ = false;
    it_->SeekToFirst();
  }
  void Seek(const Slice& target) override {
    skipped_ = false;
    it_->Seek(target);
  }
  void SeekFiltered(const Slice& target, const SeekQuery& query) override {
    skipped_ = !SeekTable(*table_, it_.get(), target, query, level_, recorder_);
  }
  void Next() override { it_->Next(); }
  Slice key() const override { return it_->key(); }
  Slice value() const override { return it_->value(); }
  Status status() const override { return it_->status(); }

 private:
  std::shared_ptr<const TableReader> table_;
  std::unique_ptr<TableIterator> it_;
  const int level_;
  SeekRecorder* const recorder_;
  bool skipped_ = false;
};

class LevelIter final : public InternalIterator {
 public:
  LevelIter(TableCache* cache, FileList files, int level, SeekRecorder* recorder)
      : cache_(cache), files_(std::move(files)), level_(level), recorder_(recorder) {}
  bool Valid() const override { return status_.ok() && file_it_ != nullptr && file_it_->Valid(); }
  void SeekToFirst() override {
    query_ = nullptr;
    OpenFile(0);
    if (file_it_) file_it_->SeekToFirst();
    SkipEmptyFiles();
  }
  void Seek(const Slice& target) override {
    query_ = nullptr;
    OpenFile(FindFile(target));
    if (file_it_) file_it_->Seek(target);
    SkipEmptyFiles();
  }
  void SeekFiltered(const Slice& target, const SeekQuery& query) override {
    query_ = &query;
    size_t index = FindFile(target);
    // Files the filters rule out are passed over; a file that starts at or
    // past the query's end holds nothing it admits.
    for (; index < files_.size(); ++index) {
      if (PastQueryEnd(query, files_[index]->smallest_user_key())) break;
      OpenFile(index);
      if (!status_.ok()) return;
      if (SeekTable(*table_, file_it_.get(), target, query, level_, recorder_)) {
        SkipEmptyFiles();
        return;
      }
    }
    CloseFile(index);
  }
  void Next() override {
    file_it_->Next();
    SkipEmptyFiles();
  }
  Slice key() const override { return file_it_->key(); }
  Slice value() const override { return file_it_->value(); }
  Status status() const override { return status_; }

 private:
  // First file whose largest key >= target.
  size_t FindFile(const Slice& target) const {
    size_t lo = 0, hi = files_.size();
    while (lo < hi) {
      const size_t mid = lo + (hi - lo) / 2;
      if (CompareInternalKeys(files_[mid]->largest, target) < 0) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    return lo;
  }
  void CloseFile(size_t index) {
    file_it_.reset();
    table_.reset();
    index_ = index;
  }
  void OpenFile(size_t index) {
    if (file_it_ != nullptr && index == index_ && status_.ok()) return;  // already open: reuse its iterator
    CloseFile(index);
    if (!status_.ok() || index >= files_.size()) return;
    status_ = cache_->Get(files_[index]->number, files_[index]->file_size, &table_);
    if (status_.ok()) file_it_ = table_->NewIterator();
  }
  void SkipEmptyFiles() {
    while (status_.ok() && file_it_ && !file_it_->Valid()) {
      status_ = file_it_->status();
      if (!status_.ok()) return;
      // After a filtered seek the query's end bounds what a scan still needs.
      if (query_ != nullptr && index_ + 1 < files_.size() &&
          PastQueryEnd(*query_, files_[index_ + 1]->smallest_user_key())) {
        CloseFile(files_.size());
        return;
      }
      OpenFile(index_ + 1);
      if (file_it_) file_it_->SeekToFirst();
    }
  }

  TableCache* const cache_;
  const FileList files_;
  const int level_;
  SeekRecorder* const recorder_;
  const SeekQuery* query_ = nullptr;  // of the last filtered seek; null after an unfiltered one
  size_t index_ = 0;
  std::shared_ptr<const TableReader> table_;
  std::unique_ptr<TableIterator> file_it_;
  Status status_;
};

class MergingIter final : public InternalIterator {
 public:
  explicit MergingIter(std::vector<std::unique_ptr<InternalIterator>> children) : children_(std::move(children)) {}
  bool Valid() const override { return current_ != nullptr; }
  void SeekToFirst() override {
    for (auto& c : children_) c->SeekToFirst();
    FindSmallest();
  }
  void Seek(const Slice& target) override {
    for (auto& c : children_) c->Seek(target);
    FindSmallest();
  }
  void SeekFiltered(const Slice& target, const SeekQuery& query) override {
    for (auto& c : children_) c->SeekFiltered(target, query);
    FindSmallest();
  }
  void Next() override {
    current_->Next();
    FindSmallest();
  }
  Slice key() const override { return current_->key(); }
  Slice value() const override { return current_->value(); }
  Status status() const override {
    for (const auto& c : children_) {
      Status s = c->status();
      if (!s.ok()) return s;
    }
    return Status::OK();
  }

 private:
  // An erroring child makes the whole merge invalid: skipping it would
  // silently hide its keys. Every child iterator here is invalid once it has
  // an error, so only an invalid child's status is asked: a valid one costs
  // one virtual call less per step (and no Status copy).
  void FindSmallest() {
    current_ = nullptr;
    for (auto& c : children_) {
      if (!c->Valid()) {
        if (!c->status().ok()) {
          current_ = nullptr;
          return;
        }
        continue;
      }
      if (current_ == nullptr || CompareInternalKeys(c->key(), current_->key()) < 0) current_ = c.get();
    }
  }

  std::vector<std::unique_ptr<InternalIterator>> children_;
  InternalIterator* current_ = nullptr;
};

}  // namespace

std::unique_ptr<InternalIterator> NewMemTableIterator(std::shared_ptr<const MemTable> mem) {
  return std::make_unique<MemTableIter>(std::move(mem));
}
std::unique_ptr<InternalIterator> NewTableIterator(std::shared_ptr<const TableReader> table, int level,
                                                   SeekRecorder* recorder) {
  return std::make_unique<TableIter>(std::move(table), level, recorder);
}
std::unique_ptr<InternalIterator> NewLevelIterator(TableCache* cache, FileList files, int level,
                                                   SeekRecorder* recorder) {
  return std::make_unique<LevelIter>(cache, std::move(files), level, recorder);
}
std::unique_ptr<InternalIterator> NewMergingIterator(std::vector<std::unique_ptr<InternalIterator>> children) {
  return std::make_unique<MergingIter>(std::move(children));
}

}  // namespace filterlab::engine
