#include "engine/db/db_iter.h"

#include <string>

#include "engine/util/prefix_extractor.h"

namespace filterlab::engine {

void SeekRangeFor(const ReadOptions& options, const PrefixExtractor* extractor, const Slice& target, SeekRange* out) {
  const Slice* upper = options.iterate_upper_bound;
  out->bounded = upper != nullptr;
  if (upper != nullptr) out->end.assign(upper->data(), upper->size());
  out->prefix_extractor = nullptr;
  if (extractor == nullptr || options.total_order_seek || !extractor->InDomain(target)) return;
  const Slice p = extractor->Transform(target);
  // The keys with prefix p: those starting with p when p has the full
  // length (all keys from p on when p has no successor), else (a capped key
  // shorter than the length) p alone.
  std::string p_end;
  bool p_bounded = true;
  if (extractor->FullLength(target)) {
    p_bounded = PrefixSuccessor(p, &p_end);
  } else {
    p_end.assign(p.data(), p.size());
    p_end.push_back('\0');
  }
  bool use_prefix = false;
  if (options.prefix_same_as_start && !options.auto_prefix_mode) {
    // Confined to p's keys: the range ends at the nearer of the two ends.
    use_prefix = true;
    if (p_bounded && (!out->bounded || Slice(p_end).compare(Slice(out->end)) < 0)) {
      out->end = std::move(p_end);
      out->bounded = true;
    }
  } else if (out->bounded) {
    // An upper bound, in any mode: p may be probed when [target, bound)
    // holds only keys with prefix p, i.e. the bound is at or below p's end.
    // A key shorter than the prefix length cannot slip in: every key of the
    // range starts with p (RocksDB's same-length-successor shortcut admits
    // bounds like "b\x00" for p = "a\xff", with "b" in between).
    use_prefix = !p_bounded || Slice(out->end).compare(Slice(p_end)) <= 0;
  }
  if (use_prefix) {
    out->prefix.assign(p.data(), p.size());
    out->prefix_extractor = extractor;
  }
}

namespace {

class DBIter final : public Iterator {
 public:
  DBIter(std::unique_ptr<InternalIterator> internal, SequenceNumber snapshot, std::shared_ptr<const void> pinned,
         const ReadOptions& options, std::shared_ptr<const PrefixExtractor> extractor)
      : pinned_(std::move(pinned)),
        it_(std::move(internal)),
        snapshot_(snapshot),
        options_(options),
        extractor_(std::move(extractor)) {}

  bool Valid() const override { return valid_; }
  void SeekToFirst() override {
    status_ = Status::OK();
    end_ = nullptr;
    if (options_.iterate_upper_bound != nullptr) {
      range_.end.assign(options_.iterate_upper_bound->data(), options_.iterate_upper_bound->size());
      end_slice_ = Slice(range_.end);
      end_ = &end_slice_;
    }
    it_->SeekToFirst();
    FindNextUserEntry(false);
  }
  void Seek(const Slice& target) override {
    status_ = Status::OK();
    seek_key_.clear();
    AppendInternalKey(&seek_key_, target, snapshot_, kValueTypeForSeek);
    end_ = nullptr;
    {
      target_.assign(target.data(), target.size());
      SeekRangeFor(options_, extractor_.get(), Slice(target_), &range_);
      query_ = SeekQuery();
      query_.lo = Slice(target_);
      if (range_.bounded) {
        end_slice_ = Slice(range_.end);
        query_.hi = &end_slice_;
        end_ = &end_slice_;
      }
      query_.prefix_extractor = range_.prefix_extractor;
      query_.prefix = Slice(range_.prefix);
      it_->SeekFiltered(seek_key_, query_);
    }
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
  // iterator's position, below the seek's end; with `skipping`, entries of
  // skip_key_ are passed over.
  void FindNextUserEntry(bool skipping) {
    valid_ = false;
    for (; it_->Valid(); it_->Next()) {
      ParsedInternalKey p;
      Status s = ParseInternalKey(it_->key(), &p);
      if (!s.ok()) {
        status_ = s;
        return;
      }
      if (end_ != nullptr && p.user_key.compare(*end_) >= 0) return;
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
  const ReadOptions options_;
  const std::shared_ptr<const PrefixExtractor> extractor_;
  bool valid_ = false;
  std::string skip_key_;
  std::string seek_key_;  // the last seek's internal key
  // The last seek's range: target_, range_ (end_ points at end_slice_, a
  // view of range_.end; null = unbounded) and the query built from them.
  std::string target_;
  SeekRange range_;
  Slice end_slice_;
  const Slice* end_ = nullptr;
  SeekQuery query_;
  Status status_;
};

}  // namespace

std::unique_ptr<Iterator> NewDBIterator(std::unique_ptr<InternalIterator> internal, SequenceNumber snapshot,
                                        std::shared_ptr<const void> pinned, const ReadOptions& options,
                                        std::shared_ptr<const PrefixExtractor> extractor) {
  return std::make_unique<DBIter>(std::move(internal), snapshot, std::move(pinned), options, std::move(extractor));
}

}  // namespace filterlab::engine
