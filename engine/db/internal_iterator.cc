#include "engine/db/internal_iterator.h"

#include "engine/db/table_cache.h"
#include "engine/memtable/memtable.h"
#include "engine/table/table_reader.h"

namespace filterlab::engine {
namespace {

class MemTableIter final : public InternalIterator {
 public:
  explicit MemTableIter(std::shared_ptr<const MemTable> mem) : mem_(std::move(mem)), it_(mem_.get()) {}
  bool Valid() const override { return it_.Valid(); }
  void SeekToFirst() override { it_.SeekToFirst(); }
  void Seek(const Slice& target) override { it_.Seek(target); }
  void Next() override { it_.Next(); }
  Slice key() const override { return it_.key(); }
  Slice value() const override { return it_.value(); }
  Status status() const override { return Status::OK(); }

 private:
  std::shared_ptr<const MemTable> mem_;
  MemTable::Iterator it_;
};

class TableIter final : public InternalIterator {
 public:
  explicit TableIter(std::shared_ptr<const TableReader> table) : table_(std::move(table)), it_(table_->NewIterator()) {}
  bool Valid() const override { return it_->Valid(); }
  void SeekToFirst() override { it_->SeekToFirst(); }
  void Seek(const Slice& target) override { it_->Seek(target); }
  void Next() override { it_->Next(); }
  Slice key() const override { return it_->key(); }
  Slice value() const override { return it_->value(); }
  Status status() const override { return it_->status(); }

 private:
  std::shared_ptr<const TableReader> table_;
  std::unique_ptr<TableIterator> it_;
};

class LevelIter final : public InternalIterator {
 public:
  LevelIter(TableCache* cache, FileList files) : cache_(cache), files_(std::move(files)) {}
  bool Valid() const override { return status_.ok() && file_it_ && file_it_->Valid(); }
  void SeekToFirst() override {
    OpenFile(0);
    if (file_it_) file_it_->SeekToFirst();
    SkipEmptyFiles();
  }
  void Seek(const Slice& target) override {
    // First file whose largest key >= target.
    size_t lo = 0, hi = files_.size();
    while (lo < hi) {
      const size_t mid = lo + (hi - lo) / 2;
      if (CompareInternalKeys(files_[mid]->largest, target) < 0) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    OpenFile(lo);
    if (file_it_) file_it_->Seek(target);
    SkipEmptyFiles();
  }
  void Next() override {
    file_it_->Next();
    SkipEmptyFiles();
  }
  Slice key() const override { return file_it_->key(); }
  Slice value() const override { return file_it_->value(); }
  Status status() const override { return status_; }

 private:
  void OpenFile(size_t index) {
    file_it_.reset();
    index_ = index;
    if (!status_.ok() || index >= files_.size()) return;
    std::shared_ptr<const TableReader> table;
    status_ = cache_->Get(files_[index]->number, files_[index]->file_size, &table);
    if (status_.ok()) file_it_ = NewTableIterator(std::move(table));
  }
  void SkipEmptyFiles() {
    while (status_.ok() && file_it_ && !file_it_->Valid()) {
      status_ = file_it_->status();
      if (!status_.ok()) return;
      OpenFile(index_ + 1);
      if (file_it_) file_it_->SeekToFirst();
    }
  }

  TableCache* const cache_;
  const FileList files_;
  size_t index_ = 0;
  std::unique_ptr<InternalIterator> file_it_;
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
  // silently hide its keys.
  void FindSmallest() {
    current_ = nullptr;
    for (auto& c : children_) {
      if (!c->status().ok()) {
        current_ = nullptr;
        return;
      }
      if (c->Valid() && (current_ == nullptr || CompareInternalKeys(c->key(), current_->key()) < 0)) {
        current_ = c.get();
      }
    }
  }

  std::vector<std::unique_ptr<InternalIterator>> children_;
  InternalIterator* current_ = nullptr;
};

}  // namespace

std::unique_ptr<InternalIterator> NewMemTableIterator(std::shared_ptr<const MemTable> mem) {
  return std::make_unique<MemTableIter>(std::move(mem));
}
std::unique_ptr<InternalIterator> NewTableIterator(std::shared_ptr<const TableReader> table) {
  return std::make_unique<TableIter>(std::move(table));
}
std::unique_ptr<InternalIterator> NewLevelIterator(TableCache* cache, FileList files) {
  return std::make_unique<LevelIter>(cache, std::move(files));
}
std::unique_ptr<InternalIterator> NewMergingIterator(std::vector<std::unique_ptr<InternalIterator>> children) {
  return std::make_unique<MergingIter>(std::move(children));
}

}  // namespace filterlab::engine
