// The range-filter block: one range filter per table (any registered range
// variant, filters/range/range_filter.h) over the table's distinct user keys,
// stored as its own block named "filterlab.range_filter" in the metaindex,
// beside the point filter. Its contents are exactly the range filter's
// serialized bytes (data, checksum and layout trailer), so the reader
// rebuilds the query side with OpenRangeFilter from the block alone; the
// table's properties name the spec.
//
// Keys. Byte-string variants (prefix_bloom) take the user keys themselves;
// integer variants (grafite, bucketing, rosetta) take OrderPreservingUint64
// of each key (its first 8 bytes, big-endian, zero-padded), so the builder
// keeps 8 bytes per distinct key for them instead of the key. A query over
// user keys [lo, hi] asks MayContainBytesRange(lo, hi), which maps both ends
// the same way: a key inside the range maps inside the mapped range, so there
// is no false negative (the mapping only coarsens keys beyond 8 bytes).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "common/slice.h"
#include "common/status.h"
#include "filters/range/range_filter.h"

namespace filterlab::engine {

class RangeFilterBlockBuilder {
 public:
  explicit RangeFilterBlockBuilder(std::shared_ptr<const RangeFilterPolicy> policy);
  // User keys in sorted order; repeats (other versions of a key, or keys
  // with the same first 8 bytes for an integer variant) count once.
  void AddKey(const Slice& user_key);
  // Distinct keys the filter will hold.
  size_t num_keys() const { return integer_ ? ints_.size() : offsets_.size(); }
  // Builds and serializes the filter into *contents.
  Status Finish(std::string* contents);

 private:
  std::shared_ptr<const RangeFilterPolicy> policy_;
  bool integer_;  // the variant builds from uint64 keys only
  std::vector<uint64_t> ints_;
  std::string bytes_;            // byte-string keys, concatenated
  std::vector<size_t> offsets_;  // start of each key in bytes_ (its end: the next start)
};

class RangeFilterBlockReader {
 public:
  // Opens a range-filter block; `block_name` prefixes errors. Corruption if
  // the bytes do not open as a range filter.
  static Status Open(std::string contents, const std::string& block_name, std::unique_ptr<RangeFilterBlockReader>* out);

  // May the table hold a user key in [lo, hi] (lo <= hi)?
  bool RangeMayMatch(const Slice& lo, const Slice& hi) const { return filter_->MayContainBytesRange(lo, hi); }

  const RangeFilter& filter() const { return *filter_; }
  size_t size() const { return contents_.size(); }

 private:
  RangeFilterBlockReader() = default;
  std::string contents_;  // the filter may read these bytes in place
  std::unique_ptr<RangeFilter> filter_;
};

}  // namespace filterlab::engine
