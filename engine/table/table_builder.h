// TableBuilder: writes a sorted run of internal keys as a table file in the
// layout of format.h: data blocks cut at `block_size` (RocksDB's
// flush-by-size policy, LevelDB's and RocksDB's block_size), each optionally with the
// data-block hash index (data_block_hash_index.h); a full filter over the user keys by any
// registered filter spec (filter_block.h); an index block of shortest separators
// (§5.3, index_key.h); a properties block; a metaindex naming the filter and
// properties blocks; and the footer. Every block carries the 5-byte trailer
// with the table's checksum type.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "common/slice.h"
#include "common/status.h"
#include "engine/table/block_builder.h"
#include "engine/table/compression.h"
#include "engine/table/format.h"
#include "engine/table/table_properties.h"
#include "engine/util/file.h"

namespace filterlab {
class FilterPolicy;
class RangeFilterPolicy;
}  // namespace filterlab

namespace filterlab::engine {

class FilterBlockBuilder;
class PrefixExtractor;
class RangeFilterBlockBuilder;

struct TableOptions {
  // Target size of a data block's contents; blocks are cut at about this size.
  size_t block_size = 4096;
  // Percent a block may fall short of block_size rather than grow past it.
  int block_size_deviation = 10;
  int restart_interval = kDefaultRestartInterval;
  bool use_hash_index = false;
  double hash_util_ratio = kDefaultHashUtilRatio;
  // Policy of the full filter (e.g. of "fastlocal:bpk=10"); nullptr = no filter.
  // The table stores its canonical spec and the filter's bytes.
  std::shared_ptr<const FilterPolicy> filter_policy;
  // What the filter holds (filter_block.h): whole user keys, and the
  // prefixes of `prefix_extractor` (null: none); the table records both.
  // Without an extractor the filter must hold whole keys.
  bool whole_key_filtering = true;
  std::shared_ptr<const PrefixExtractor> prefix_extractor;
  // The range filter over the table's user keys (range_filter_block.h);
  // nullptr = none. Stored as its own block; the table records its spec.
  std::shared_ptr<const RangeFilterPolicy> range_filter_policy;
  ChecksumType checksum_type = ChecksumType::kCRC32C;
  // Compression of data blocks (compression.h; a block that would not
  // shrink by 1/8 is stored raw).
  CompressionType compression = CompressionType::kNone;

  // InvalidArgument naming the option, its value and the allowed range.
  Status Validate() const;
};

class TableBuilder {
 public:
  // Validates the options. `file` must outlive the builder.
  static Status Open(const TableOptions& options, WritableFile* file, std::unique_ptr<TableBuilder>* out);
  ~TableBuilder();

  // Internal keys in strictly increasing internal-key order; InvalidArgument
  // (and nothing written) for a key shorter than its trailer, with an unknown
  // value type, or out of order.
  Status Add(const Slice& internal_key, const Slice& value);
  // Writes the remaining blocks and the footer and closes the file.
  Status Finish();

  uint64_t FileSize() const { return offset_; }
  const TableProperties& properties() const { return props_; }

 private:
  TableBuilder(const TableOptions& options, WritableFile* file);
  bool ShouldCutBlock(const Slice& key, const Slice& value) const;
  Status FlushDataBlock();
  // Writes `contents` as the next block, stored raw, or compressed with
  // `compression` where that pays (compression.h).
  Status WriteBlock(const Slice& contents, BlockHandle* handle, CompressionType compression = CompressionType::kNone);

  const TableOptions options_;
  WritableFile* const file_;
  std::string compressed_;  // scratch of WriteBlock
  std::unique_ptr<FilterBlockBuilder> filter_builder_;
  std::unique_ptr<RangeFilterBlockBuilder> range_filter_builder_;
  BlockBuilder data_block_;
  BlockBuilder index_block_;
  TableProperties props_;
  uint64_t offset_ = 0;
  std::string last_key_;
  // The block just flushed waits for the next key to pick its separator.
  bool pending_index_entry_ = false;
  BlockHandle pending_handle_;
  Status status_;  // first error; the builder refuses further work after one
  bool finished_ = false;
};

}  // namespace filterlab::engine
