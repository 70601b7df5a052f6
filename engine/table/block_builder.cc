#include "engine/table/block_builder.h"

#include <algorithm>
#include <cassert>

#include "engine/memtable/internal_key.h"
#include "engine/util/coding.h"

namespace filterlab::engine {

BlockBuilder::BlockBuilder(const BlockBuilderOptions& options)
    : options_(options), hash_builder_(options.hash_util_ratio) {
  assert(options_.restart_interval >= 1);
  if (options_.restart_interval < 1) options_.restart_interval = 1;
  restarts_.push_back(0);  // entry 0 is always a restart point
}

void BlockBuilder::Reset() {
  buffer_.clear();
  restarts_.assign(1, 0);
  counter_ = 0;
  num_entries_ = 0;
  finished_ = false;
  hash_index_written_ = false;
  last_key_.clear();
  // Unlike RocksDB (which keeps an invalidated hash builder invalid for the
  // rest of the file), every block starts with a fresh hash index.
  hash_builder_.Reset();
}

void BlockBuilder::Add(const Slice& key, const Slice& value) {
  assert(!finished_);
  size_t shared = 0;
  if (counter_ >= options_.restart_interval) {
    restarts_.push_back(static_cast<uint32_t>(buffer_.size()));
    counter_ = 0;
  } else {
    const size_t max_shared = std::min(last_key_.size(), key.size());
    while (shared < max_shared && last_key_[shared] == key[shared]) ++shared;
  }
  const size_t non_shared = key.size() - shared;
  PutVarint32(&buffer_, static_cast<uint32_t>(shared));
  PutVarint32(&buffer_, static_cast<uint32_t>(non_shared));
  PutVarint32(&buffer_, static_cast<uint32_t>(value.size()));
  buffer_.append(key.data() + shared, non_shared);
  buffer_.append(value.data(), value.size());
  last_key_.resize(shared);
  last_key_.append(key.data() + shared, non_shared);
  ++counter_;
  ++num_entries_;

  if (options_.use_hash_index) {
    if (key.size() >= kInternalKeyTrailerBytes) {
      hash_builder_.Add(ExtractUserKey(key), restarts_.size() - 1);
    } else {
      assert(false && "hash index needs internal keys");
      hash_builder_.Add(key, kHashIndexMaxRestartIndex + 1);  // invalidates the index
    }
  }
}

bool BlockBuilder::HashIndexWouldBeWritten(size_t base_size) const {
  return options_.use_hash_index && hash_builder_.Valid() &&
         base_size + hash_builder_.EstimateSize() <= kHashIndexMaxBlockSize;
}

size_t BlockBuilder::CurrentSizeEstimate() const {
  if (finished_) return buffer_.size();
  const size_t base = buffer_.size() + 4 * restarts_.size() + 4;
  return HashIndexWouldBeWritten(base) ? base + hash_builder_.EstimateSize() : base;
}

size_t BlockBuilder::EstimateSizeAfterKV(const Slice& key, const Slice& value) const {
  size_t estimate =
      CurrentSizeEstimate() + key.size() + value.size() + VarintLength(key.size()) + 1 + VarintLength(value.size());
  if (counter_ >= options_.restart_interval) estimate += 4;
  if (options_.use_hash_index) estimate += 2;  // at most 1/util (<= 2 at util >= 0.5) more buckets
  return estimate;
}

Slice BlockBuilder::Finish() {
  assert(!finished_);
  assert(restarts_.size() <= kBlockMaxRestarts);
  for (uint32_t r : restarts_) PutFixed32(&buffer_, r);
  uint32_t footer = static_cast<uint32_t>(restarts_.size());
  // The check uses the final size before the index: restarts + footer included.
  if (HashIndexWouldBeWritten(buffer_.size() + 4)) {
    hash_builder_.Finish(&buffer_);
    footer |= kBlockFooterHashFlag;
    hash_index_written_ = true;
  }
  PutFixed32(&buffer_, footer);
  finished_ = true;
  return Slice(buffer_);
}

}  // namespace filterlab::engine
