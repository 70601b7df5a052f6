#include "engine/table/range_filter_block.h"

namespace filterlab::engine {

RangeFilterBlockBuilder::RangeFilterBlockBuilder(std::shared_ptr<const RangeFilterPolicy> policy)
    : policy_(std::move(policy)), integer_((policy_->key_types() & kRangeKeysBytes) == 0) {}

void RangeFilterBlockBuilder::AddKey(const Slice& user_key) {
  if (integer_) {
    const uint64_t v = OrderPreservingUint64(user_key);
    if (ints_.empty() || ints_.back() != v) ints_.push_back(v);
    return;
  }
  if (!offsets_.empty() && Slice(bytes_.data() + offsets_.back(), bytes_.size() - offsets_.back()) == user_key) return;
  offsets_.push_back(bytes_.size());
  bytes_.append(user_key.data(), user_key.size());
}

Status RangeFilterBlockBuilder::Finish(std::string* contents) {
  std::unique_ptr<RangeFilter> filter;
  Status s;
  if (integer_) {
    s = policy_->Build(ints_.data(), ints_.size(), &filter);
  } else {
    std::vector<Slice> keys;
    keys.reserve(offsets_.size());
    for (size_t i = 0; i < offsets_.size(); ++i) {
      const size_t end = i + 1 < offsets_.size() ? offsets_[i + 1] : bytes_.size();
      keys.emplace_back(bytes_.data() + offsets_[i], end - offsets_[i]);
    }
    s = policy_->BuildBytes(keys.data(), keys.size(), &filter);
  }
  if (!s.ok()) return s;
  contents->clear();
  filter->Serialize(contents);
  return Status::OK();
}

Status RangeFilterBlockReader::Open(std::string contents, const std::string& block_name,
                                    std::unique_ptr<RangeFilterBlockReader>* out) {
  std::unique_ptr<RangeFilterBlockReader> reader(new RangeFilterBlockReader());
  reader->contents_ = std::move(contents);
  Status s = OpenRangeFilter(Slice(reader->contents_), &reader->filter_);
  if (!s.ok()) return Status::Corruption(block_name + ": " + s.message());
  *out = std::move(reader);
  return Status::OK();
}

}  // namespace filterlab::engine
