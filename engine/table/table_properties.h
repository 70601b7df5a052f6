// TableProperties: what a table says about itself, stored in its properties
// block as name → value entries (a bytewise-ordered block, restart interval
// 1): counters as varint64, the util ratio as its IEEE-754 bits (fixed64, so
// it round-trips exactly), the filter spec and prefix extractor as text.
// The properties a format-1 table of an older build lacks (whole-key
// filtering, prefix extractor) read as their defaults. The reader needs
// filter_spec (to rebuild the filter's key hash); the rest is for the tools
// and for checking the footer and metaindex against each other.
#pragma once

#include <cstdint>
#include <string>

#include "common/status.h"

namespace filterlab::engine {

class Block;

struct TableProperties {
  uint64_t num_entries = 0;     // internal keys
  uint64_t raw_key_size = 0;    // sum of internal key sizes
  uint64_t raw_value_size = 0;  // sum of value sizes
  uint64_t num_data_blocks = 0;
  uint64_t num_hash_index_blocks = 0;  // data blocks written with a hash index
  uint64_t data_size = 0;              // data blocks with their trailers
  uint64_t index_size = 0;             // index block contents
  uint64_t filter_size = 0;            // filter block contents (0 without a filter)
  uint64_t num_filter_keys = 0;        // distinct user-key hashes added to the filter
  uint64_t block_size = 0;             // options used to build the table
  uint64_t restart_interval = 0;
  bool hash_index = false;
  double hash_util_ratio = 0;
  std::string filter_spec;  // canonical spec; empty = no filter
  // What the filter holds (RocksDB's whole_key_filtering and the table's
  // prefix extractor, include/rocksdb/table.h): whole user keys, and the
  // prefixes of the keys in the extractor's domain (prefix_extractor.h);
  // "" = no prefixes. Tables written before these existed hold whole keys.
  bool whole_key_filtering = true;
  std::string prefix_extractor;
  // The range filter (range_filter_block.h): canonical spec ("" = none), its
  // block's bytes and the distinct keys it holds. Optional like the two above.
  std::string range_filter_spec;
  uint64_t range_filter_size = 0;
  uint64_t num_range_filter_keys = 0;

  // The properties block's contents.
  std::string Encode() const;
  // Reads every property from an opened properties block; Corruption naming
  // the block and the property when one is missing, malformed or unknown.
  Status Decode(const Block& block);
  // "name: value" lines for sst-dump.
  std::string ToString() const;
};

}  // namespace filterlab::engine
