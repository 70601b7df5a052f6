#include "engine/table/data_block_hash_index.h"

#include <cmath>

#include "engine/util/coding.h"
#include "hashing/legacy_hash.h"

namespace filterlab::engine {

uint32_t DataBlockHashIndexHash(const Slice& user_key) {
  return LegacyHash32(user_key.data(), user_key.size(), kHashIndexSeed);
}

DataBlockHashIndexBuilder::DataBlockHashIndexBuilder(double util_ratio) {
  if (!(util_ratio > 0.0) || !std::isfinite(util_ratio)) util_ratio = kDefaultHashUtilRatio;
  bucket_per_key_ = 1.0 / util_ratio;
}

void DataBlockHashIndexBuilder::Add(const Slice& user_key, size_t restart_index) {
  if (restart_index > kHashIndexMaxRestartIndex) valid_ = false;
  if (!valid_) return;
  entries_.emplace_back(DataBlockHashIndexHash(user_key), static_cast<uint8_t>(restart_index));
  // Repeated addition, not entries/util: RocksDB's bucket counts depend on
  // the accumulated rounding.
  estimated_buckets_ += bucket_per_key_;
  if (estimated_buckets_ >= 65536.0) valid_ = false;  // M must fit in u16
}

uint16_t DataBlockHashIndexBuilder::NumBuckets() const {
  uint16_t m = estimated_buckets_ < 65536.0 ? static_cast<uint16_t>(estimated_buckets_) : uint16_t{65535};
  if (m == 0) m = 1;
  return static_cast<uint16_t>(m | 1);
}

void DataBlockHashIndexBuilder::Finish(std::string* dst) const {
  const uint16_t m = NumBuckets();
  std::vector<uint8_t> buckets(m, kHashIndexNoEntry);
  for (const auto& [hash, restart_index] : entries_) {
    uint8_t& b = buckets[hash % m];
    if (b == kHashIndexNoEntry) {
      b = restart_index;
    } else if (b != restart_index) {
      b = kHashIndexCollision;  // never cleared again
    }
  }
  dst->append(reinterpret_cast<const char*>(buckets.data()), buckets.size());
  PutFixed16(dst, m);
}

void DataBlockHashIndexBuilder::Reset() {
  estimated_buckets_ = 0.0;
  valid_ = true;
  entries_.clear();
}

Status DataBlockHashIndex::Open(const Slice& block, const std::string& block_name) {
  if (block.size() < 4) {
    return Status::Corruption(block_name + ": block of " + std::to_string(block.size()) +
                              " bytes is too short for its footer");
  }
  const size_t before_footer = block.size() - 4;
  if (before_footer < 2 || before_footer >= kHashIndexMaxBlockSize) {
    return Status::Corruption(block_name +
                              ": footer says the block has a hash index, but a hash index "
                              "needs 2..65535 bytes before the footer and there are " +
                              std::to_string(before_footer));
  }
  const uint16_t m = DecodeFixed16(block.data() + before_footer - 2);
  if (m == 0 || size_t{m} + 2 > before_footer) {
    return Status::Corruption(block_name + ": hash index claims " + std::to_string(m) + " buckets, but only " +
                              std::to_string(before_footer - 2) +
                              " bytes precede its count (need 1..that many buckets)");
  }
  num_buckets_ = m;
  map_offset_ = before_footer - 2 - m;
  buckets_ = block.udata() + map_offset_;
  return Status::OK();
}

}  // namespace filterlab::engine
