// A reader of the filters of RocksDB's block-based SST files, our own code
// from RocksDB's format as its sources state it (table/format.{h,cc}: footer,
// block handles and trailers, checksums; table/block_based/block_builder.cc:
// block entries and restarts; table/meta_blocks.cc and table_properties.cc:
// metaindex and properties; table/block_based/full_filter_block.cc and
// partitioned_filter_block.cc: the filter blocks). No librocksdb needed.
//
// What it reads: the footer (format_version 0..6, checksum types none,
// crc32c, xxHash, xxHash64, XXH3; each block read is verified), the
// metaindex, the properties block, and the table's filter: one full filter
// block, or a partitioned filter (the top-level index of partitions, each
// partition a full filter). Each filter block is opened with
// filters/keyed_filter.h: RocksDB's formats (FastLocalBloom, Ribbon, legacy
// Bloom, always-false/true) by their trailer, filterlab adapter blocks by
// their spec. KeyMayMatch answers for a user key as RocksDB's Get consults
// the filter: the whole key when the table filters whole keys, else the
// key's prefix under the table's prefix extractor (rocksdb.FixedPrefix.N and
// rocksdb.CappedPrefix.N); in a partitioned filter, the partition of the
// first separator >= the key, the last partition past the end.
//
// Every way a file can be damaged or foreign (too short, bad magic, a handle
// past the end, a checksum mismatch, a malformed block, an unknown filter)
// is a Corruption or NotSupported naming what and where, never a crash.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "common/slice.h"
#include "common/status.h"
#include "filters/keyed_filter.h"

namespace filterlab::rocksdb_sst {

struct BlockHandle {
  uint64_t offset = 0;
  uint64_t size = 0;
};

// One filter block of the table: a full filter, or one partition.
struct FilterBlock {
  BlockHandle handle;
  std::string separator;  // partitions: the user key bounding it from above (full filter: empty)
  std::string bytes;      // the block's contents
  KeyedFilter filter;     // reads `bytes` in place
};

class SstFile {
 public:
  // Reads `path`'s footer, metaindex, properties and filter blocks.
  static Status Open(const std::string& path, std::unique_ptr<SstFile>* out);
  // The same from bytes already in memory. verify_checksums = false skips
  // the block checksums (the fuzz target, whose mutations would otherwise
  // stop at the first checksum and never reach the parsers behind it).
  static Status OpenBytes(std::string name, std::string contents, std::unique_ptr<SstFile>* out,
                          bool verify_checksums = true);

  uint32_t format_version() const { return format_version_; }
  int checksum_type() const { return checksum_type_; }
  // "none", "full" or "partitioned".
  const std::string& filter_kind() const { return filter_kind_; }
  // The name after "fullfilter." / "partitionedfilter." in the metaindex
  // (RocksDB's CompatibilityName of the writer's policy).
  const std::string& filter_policy_name() const { return filter_policy_name_; }
  const std::vector<FilterBlock>& filters() const { return filters_; }
  // Raw properties (integers are varint64-encoded; PropertyInt decodes them).
  const std::map<std::string, std::string>& properties() const { return properties_; }
  bool PropertyInt(const std::string& name, uint64_t* v) const;
  std::string PropertyString(const std::string& name) const;
  bool whole_key_filtering() const { return whole_key_filtering_; }
  const std::string& prefix_extractor() const { return prefix_extractor_; }

  // What the table's filter answers for `user_key`, as RocksDB's Get asks
  // it; true when the table has no filter or the key is outside the
  // prefix extractor's domain (RocksDB then does not consult the filter).
  bool KeyMayMatch(Slice user_key) const;
  // Whether RocksDB's Get would consult a filter for this key at all.
  bool FilterApplies(Slice user_key) const;
  // The filter block a key is looked up in (nullptr: no filter).
  const FilterBlock* FilterFor(Slice user_key) const;

 private:
  SstFile() = default;
  Status Load();
  // The metaindex, properties and filter blocks.
  Status LoadMeta(const BlockHandle& metaindex);
  Status ReadBlock(const BlockHandle& handle, const std::string& what, std::string* contents) const;
  Status ParseProperties(const std::string& block);
  Status LoadFilters(const BlockHandle& handle, bool partitioned);
  // The entries of a block (restart-point format); value_delta: index
  // blocks whose values are delta-encoded block handles.
  Status ParseBlock(const std::string& block, const std::string& what, bool value_delta,
                    std::vector<std::pair<std::string, std::string>>* entries) const;
  bool PrefixOf(Slice user_key, Slice* prefix) const;

  std::string name_;
  std::string file_;  // the whole file
  uint32_t format_version_ = 0;
  int checksum_type_ = 1;
  bool verify_checksums_ = true;
  uint32_t base_context_checksum_ = 0;
  std::string filter_kind_ = "none";
  std::string filter_policy_name_;
  std::map<std::string, std::string> properties_;
  bool whole_key_filtering_ = true;
  std::string prefix_extractor_;
  size_t prefix_length_ = 0;
  bool prefix_capped_ = false;
  bool index_key_is_user_key_ = false;
  bool index_value_delta_ = false;
  std::vector<FilterBlock> filters_;
};

// The FP rate a filter block's model gives for `entries` keys: legacy
// Bloom's line model (fpmodel::LegacyLineFpRate), FastLocalBloom's
// cache-local Poisson model at its lines and probes, Ribbon's
// interleaved-columns model (2^-columns mixed over its blocks), or, for an
// adapter block, its spec's ModelFpRate. *description names the model.
double BlockModelFpRate(const FilterBlock& block, uint64_t entries, std::string* description);

}  // namespace filterlab::rocksdb_sst
