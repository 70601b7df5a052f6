// The full-filter block (RocksDB's table/block_based/full_filter_block.h): one filter per table
// over every distinct user key (whole-key filtering; several versions of a
// key count once) and, with a prefix extractor, every distinct prefix of the
// keys in its domain (RocksDB's prefix Bloom: FullFilterBlockBuilder::
// AddWithPrefix), built by any registered filter variant. A prefix and a
// whole key with the same bytes are one entry, as they hash alike. The block's
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

class PrefixExtractor;

class FilterBlockBuilder {
 public:
  // Whole keys only (the engine's default).
  explicit FilterBlockBuilder(std::shared_ptr<const FilterPolicy> policy) : policy_(std::move(policy)) {}
  // Whole keys when `whole_key`, and the prefixes `prefix` extracts (null:
  // none); at least one of the two.
  FilterBlockBuilder(std::shared_ptr<const FilterPolicy> policy, std::shared_ptr<const PrefixExtractor> prefix,
                     bool whole_key)
      : policy_(std::move(policy)), prefix_(std::move(prefix)), whole_key_(whole_key) {}

  // User keys in sorted order; a key whose hash equals the previous key's
  // (another version of the same key) is counted once, as in
  // BuildFilterFromKeys, but hashes are kept instead of keys so memory is
  // 8 bytes per distinct key whatever the key length. Prefixes likewise
  // (sorted keys give each prefix one run); with both kinds the hashes are
  // made distinct at Finish.
  void AddKey(const Slice& user_key);
  size_t num_hashes() const { return hashes_.size(); }
  // Builds and serializes the filter into *contents.
  Status Finish(std::string* contents);

 private:
  std::shared_ptr<const FilterPolicy> policy_;
  std::shared_ptr<const PrefixExtractor> prefix_;
  bool whole_key_ = true;
  std::vector<uint64_t> hashes_;
  uint64_t last_whole_ = 0, last_prefix_ = 0;
  bool have_whole_ = false, have_prefix_ = false;
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
