// BlockBuilder: writes one block (data, index or meta) in the format of spec
// LevelDB's table/block_builder.cc, as RocksDB's block_builder.cc keeps it:
//   [entry]... [restart offsets, u32 LE each] [hash index, optional] [footer u32]
// entry = varint32 shared ‖ varint32 non_shared ‖ varint32 value_len ‖
//         key bytes after the shared prefix ‖ value
// Keys are prefix-compressed against the previous key, except every
// `restart_interval`-th entry (a restart point), which stores its whole key so
// a reader can binary-search the restart array. Larger intervals save bytes
// (sorted keys share prefixes) at the cost of a longer linear scan per seek.
// Footer: bit 31 = hash index present, low 28 bits = number of restarts;
// bits 28–30 are reserved (a reader treats them as corruption).
//
// With use_hash_index (data blocks only: keys must be internal keys) every
// entry is also fed to a DataBlockHashIndexBuilder under its user key, and
// the index is appended if the block has at most 254 restart intervals and
// its size estimate (index included) is at most 64 KiB.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "common/slice.h"
#include "engine/table/data_block_hash_index.h"

namespace filterlab::engine {

inline constexpr uint32_t kBlockFooterHashFlag = uint32_t{1} << 31;
inline constexpr uint32_t kBlockFooterReservedBits = uint32_t{7} << 28;
inline constexpr uint32_t kBlockMaxRestarts = (uint32_t{1} << 28) - 1;
inline constexpr int kDefaultRestartInterval = 16;

struct BlockBuilderOptions {
  int restart_interval = kDefaultRestartInterval;  // >= 1
  bool use_hash_index = false;
  double hash_util_ratio = kDefaultHashUtilRatio;
};

class BlockBuilder {
 public:
  explicit BlockBuilder(const BlockBuilderOptions& options = {});

  // Precondition: key > every key added since the last Reset (in the order
  // the block's reader uses); with use_hash_index, key is an internal key.
  void Add(const Slice& key, const Slice& value);
  // Appends restarts, hash index and footer; the Slice stays valid until Reset.
  Slice Finish();
  void Reset();

  // Size of the block if finished now (with the hash index if it would be written).
  size_t CurrentSizeEstimate() const;
  // Estimate after adding this entry (assumes no prefix sharing: an upper bound).
  size_t EstimateSizeAfterKV(const Slice& key, const Slice& value) const;
  bool empty() const { return num_entries_ == 0; }
  size_t num_entries() const { return num_entries_; }
  size_t num_restarts() const { return restarts_.size(); }
  // After Finish: whether the hash index was appended.
  bool hash_index_written() const { return hash_index_written_; }

 private:
  bool HashIndexWouldBeWritten(size_t base_size) const;

  BlockBuilderOptions options_;
  std::string buffer_;
  std::vector<uint32_t> restarts_;
  int counter_ = 0;  // entries since the last restart
  size_t num_entries_ = 0;
  bool finished_ = false;
  bool hash_index_written_ = false;
  std::string last_key_;
  DataBlockHashIndexBuilder hash_builder_;
};

}  // namespace filterlab::engine
