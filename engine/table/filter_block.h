// The full-filter block (RocksDB's table/block_based/full_filter_block.h): one filter per table
// over every distinct user key (whole-key filtering; several versions of a
// key count once), built by any registered filter variant. The block's
// contents are exactly the filter's serialized bytes (filter.h), which carry
// their own layout, so the reader rebuilds the query side with OpenFilter
// from the block alone; the table's properties name the spec, whose policy
// supplies the key hash the filter was built over.
//
// Cost and FP rate are the variant's (its ModelFpRate); a negative answer
// lets a point lookup skip the table's index and data blocks entirely.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "common/slice.h"
#include "common/status.h"
#include "filters/filter.h"

namespace filterlab::engine {

class FilterBlockBuilder {
 public:
  explicit FilterBlockBuilder(std::shared_ptr<const FilterPolicy> policy) : policy_(std::move(policy)) {}

  // User keys in sorted order; a key whose hash equals the previous key's
  // (another version of the same key) is counted once, as in
  // BuildFilterFromKeys, but hashes are kept instead of keys so memory is
  // 8 bytes per distinct key whatever the key length.
  void AddKey(const Slice& user_key);
  size_t num_hashes() const { return hashes_.size(); }
  // Builds and serializes the filter into *contents.
  Status Finish(std::string* contents);

 private:
  std::shared_ptr<const FilterPolicy> policy_;
  std::vector<uint64_t> hashes_;
};

class FilterBlockReader {
 public:
  // Opens a filter block. `policy` is the one named in the table's
  // properties; its hash width must match the filter's. `block_name` prefixes
  // errors. Corruption if the bytes do not open as a filter.
  static Status Open(std::string contents, std::shared_ptr<const FilterPolicy> policy, const std::string& block_name,
                     std::unique_ptr<FilterBlockReader>* out);

  bool KeyMayMatch(const Slice& user_key) const { return filter_->MayContain(policy_->HashKey(user_key)); }
  // results[i] = KeyMayMatch(keys[i]); hashes the whole batch, then probes it
  // with the filter's prefetching MayContainBatch.
  void KeysMayMatch(const Slice* keys, size_t n, bool* results) const;

  const Filter& filter() const { return *filter_; }
  size_t size() const { return contents_.size(); }

 private:
  FilterBlockReader() = default;
  std::string contents_;  // the filter may point into these bytes
  std::shared_ptr<const FilterPolicy> policy_;
  std::unique_ptr<Filter> filter_;
};

}  // namespace filterlab::engine
