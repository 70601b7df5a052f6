#include "engine/table/filter_block.h"

#include <algorithm>

#include "engine/util/prefix_extractor.h"

namespace filterlab::engine {

void FilterBlockBuilder::AddKey(const Slice& user_key) {
  if (prefix_ == nullptr) {
    const uint64_t h = policy_->HashKey(user_key);
    if (hashes_.empty() || hashes_.back() != h) hashes_.push_back(h);
    return;
  }
  if (whole_key_) {
    const uint64_t h = policy_->HashKey(user_key);
    if (!have_whole_ || h != last_whole_) hashes_.push_back(h);
    last_whole_ = h;
    have_whole_ = true;
  }
  if (prefix_->InDomain(user_key)) {
    const uint64_t h = policy_->HashKey(prefix_->Transform(user_key));
    if (!have_prefix_ || h != last_prefix_) hashes_.push_back(h);
    last_prefix_ = h;
    have_prefix_ = true;
  }
}

Status FilterBlockBuilder::Finish(std::string* contents) {
  if (prefix_ != nullptr) {
    // Whole keys and prefixes interleave: a prefix equal to a key (capped
    // extractors, short keys) or to an earlier key's would repeat a hash,
    // which filters built by peeling (XOR, binary fuse) cannot take.
    std::sort(hashes_.begin(), hashes_.end());
    hashes_.erase(std::unique(hashes_.begin(), hashes_.end()), hashes_.end());
  }
  std::unique_ptr<Filter> filter;
  Status s = policy_->Build(hashes_.data(), hashes_.size(), &filter);
  if (!s.ok()) return s;
  contents->clear();
  filter->Serialize(contents);
  return Status::OK();
}

Status FilterBlockReader::Open(std::string contents, std::shared_ptr<const FilterPolicy> policy,
                               const std::string& block_name, std::unique_ptr<FilterBlockReader>* out) {
  std::unique_ptr<FilterBlockReader> reader(new FilterBlockReader());
  reader->contents_ = std::move(contents);
  reader->policy_ = std::move(policy);
  Status s = OpenFilter(Slice(reader->contents_), &reader->filter_);
  if (!s.ok()) return Status::Corruption(block_name + ": " + s.message());
  if (reader->filter_->hash_width() != reader->policy_->hash_width()) {
    return Status::Corruption(block_name + ": filter '" + reader->filter_->Describe() + "' takes " +
                              HashWidthText(reader->filter_->hash_width()) +
                              "-bit hashes but the table's filter spec '" + reader->policy_->spec() + "' makes " +
                              HashWidthText(reader->policy_->hash_width()) + "-bit ones");
  }
  *out = std::move(reader);
  return Status::OK();
}

void FilterBlockReader::KeysMayMatch(const Slice* keys, size_t n, bool* results) const {
  constexpr size_t kChunk = 64;  // hashes on the stack; the filter prefetches per call
  uint64_t hashes[kChunk];
  for (size_t start = 0; start < n; start += kChunk) {
    const size_t m = n - start < kChunk ? n - start : kChunk;
    for (size_t i = 0; i < m; ++i) hashes[i] = policy_->HashKey(keys[start + i]);
    filter_->MayContainBatch(hashes, m, results + start);
  }
}

}  // namespace filterlab::engine
