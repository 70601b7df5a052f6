#include "engine/db/db_iter.h"

#include <string>

namespace filterlab::engine {
namespace {

class DBIter final : public Iterator {
 public:
  DBIter(std::unique_ptr<InternalIterator> internal, SequenceNumber snapshot, std::shared_ptr<const void> pinned)
      : pinned_(std::move(pinned)), it_(std::move(internal)), snapshot_(snapshot) {}

  bool Valid() const override { return valid_; }
  void SeekToFirst() override {
    status_ = Status::OK();
    it_->SeekToFirst();
    FindNextUserEntry(false);
  }
  void Seek(const Slice& target) override {
    status_ = Status::OK();
    std::string ikey;
    AppendInternalKey(&ikey, target, snapshot_, kValueTypeForSeek);
    it_->Seek(ikey);
    FindNextUserEntry(false);
  }
  void Next() override {
    skip_key_.assign(key().data(), key().size());
    it_->Next();
    FindNextUserEntry(true);
  }
  Slice key() const override { return ExtractUserKey(it_->key()); }
  Slice value() const override { return it_->value(); }
  Status status() const override {
    if (!status_.ok()) return status_;
    return it_->status();
  }

 private:
  // Moves to the first visible, undeleted user key at or after the internal
  // iterator's position; with `skipping`, entries of skip_key_ are passed over.
  void FindNextUserEntry(bool skipping) {
    valid_ = false;
    for (; it_->Valid(); it_->Next()) {
      ParsedInternalKey p;
      Status s = ParseInternalKey(it_->key(), &p);
      if (!s.ok()) {
        status_ = s;
        return;
      }
      if (p.sequence > snapshot_) continue;
      if (skipping && p.user_key == Slice(skip_key_)) continue;
      if (p.type == kTypeValue) {
        valid_ = true;
        return;
      }
      // A deletion (or any other non-value type): hide this key's older entries.
      skip_key_.assign(p.user_key.data(), p.user_key.size());
      skipping = true;
    }
  }

  std::shared_ptr<const void> pinned_;
  std::unique_ptr<InternalIterator> it_;
  const SequenceNumber snapshot_;
  bool valid_ = false;
  std::string skip_key_;
  Status status_;
};

}  // namespace

std::unique_ptr<Iterator> NewDBIterator(std::unique_ptr<InternalIterator> internal, SequenceNumber snapshot,
                                        std::shared_ptr<const void> pinned) {
  return std::make_unique<DBIter>(std::move(internal), snapshot, std::move(pinned));
}

}  // namespace filterlab::engine
