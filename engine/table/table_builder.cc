#include "engine/table/table_builder.h"

#include <cmath>

#include "engine/memtable/internal_key.h"
#include "engine/table/filter_block.h"
#include "engine/table/index_key.h"
#include "engine/table/range_filter_block.h"
#include "engine/util/prefix_extractor.h"
#include "filters/filter.h"
#include "filters/filter_spec.h"

namespace filterlab::engine {
namespace {

BlockBuilderOptions DataBlockOptions(const TableOptions& o) {
  BlockBuilderOptions b;
  b.restart_interval = o.restart_interval;
  b.use_hash_index = o.use_hash_index;
  b.hash_util_ratio = o.hash_util_ratio;
  return b;
}

BlockBuilderOptions IndexBlockOptions() {
  BlockBuilderOptions b;
  b.restart_interval = 1;  // every separator whole: binary search lands exactly
  return b;
}

}  // namespace

Status TableOptions::Validate() const {
  if (block_size < 1 || block_size > (size_t{1} << 30)) {
    return Status::InvalidArgument("table option block_size=" + std::to_string(block_size) +
                                   " is out of range (allowed: 1..2^30 bytes)");
  }
  if (block_size_deviation < 0 || block_size_deviation > 100) {
    return Status::InvalidArgument("table option block_size_deviation=" + std::to_string(block_size_deviation) +
                                   " is out of range (allowed: 0..100 percent)");
  }
  if (restart_interval < 1 || restart_interval > 1 << 20) {
    return Status::InvalidArgument("table option restart_interval=" + std::to_string(restart_interval) +
                                   " is out of range (allowed: 1..2^20)");
  }
  if (!(hash_util_ratio > 0) || !std::isfinite(hash_util_ratio) || hash_util_ratio > 100) {
    return Status::InvalidArgument("table option hash_util_ratio=" + FormatNumber(hash_util_ratio) +
                                   " is out of range (allowed: finite, > 0 and <= 100)");
  }
  if (!whole_key_filtering && prefix_extractor == nullptr) {
    return Status::InvalidArgument(
        "table option whole_key_filtering=false needs a prefix_extractor (the filter would hold nothing)");
  }
  if (checksum_type != ChecksumType::kCRC32C && checksum_type != ChecksumType::kXXH3) {
    return Status::InvalidArgument("table option checksum_type=" + std::to_string(static_cast<int>(checksum_type)) +
                                   " is unknown (allowed: crc32c, xxh3)");
  }
  return Status::OK();
}

TableBuilder::TableBuilder(const TableOptions& options, WritableFile* file)
    : options_(options), file_(file), data_block_(DataBlockOptions(options)), index_block_(IndexBlockOptions()) {
  props_.block_size = options.block_size;
  props_.restart_interval = static_cast<uint64_t>(options.restart_interval);
  props_.hash_index = options.use_hash_index;
  props_.hash_util_ratio = options.hash_util_ratio;
}

TableBuilder::~TableBuilder() = default;

Status TableBuilder::Open(const TableOptions& options, WritableFile* file, std::unique_ptr<TableBuilder>* out) {
  Status s = options.Validate();
  if (!s.ok()) return s;
  std::unique_ptr<TableBuilder> builder(new TableBuilder(options, file));
  if (options.filter_policy != nullptr) {
    builder->filter_builder_ = options.prefix_extractor == nullptr
                                   ? std::make_unique<FilterBlockBuilder>(options.filter_policy)
                                   : std::make_unique<FilterBlockBuilder>(
                                         options.filter_policy, options.prefix_extractor, options.whole_key_filtering);
  }
  if (options.range_filter_policy != nullptr) {
    builder->range_filter_builder_ = std::make_unique<RangeFilterBlockBuilder>(options.range_filter_policy);
  }
  *out = std::move(builder);
  return Status::OK();
}

bool TableBuilder::ShouldCutBlock(const Slice& key, const Slice& value) const {
  if (data_block_.empty()) return false;
  const size_t current = data_block_.CurrentSizeEstimate();
  if (current >= options_.block_size) return true;
  // Cut early if this entry would overflow the block and the block is
  // already within `deviation` percent of full (RocksDB's FlushBlockBySizePolicy).
  const size_t threshold = (options_.block_size * static_cast<size_t>(100 - options_.block_size_deviation) + 99) / 100;
  return data_block_.EstimateSizeAfterKV(key, value) > options_.block_size && current > threshold;
}

Status TableBuilder::Add(const Slice& internal_key, const Slice& value) {
  if (!status_.ok()) return status_;
  if (finished_) return Status::InvalidArgument("TableBuilder::Add after Finish");
  ParsedInternalKey parsed;
  Status s = ParseInternalKey(internal_key, &parsed);
  if (!s.ok()) return Status::InvalidArgument("TableBuilder::Add: " + s.message());
  if (props_.num_entries > 0 && CompareInternalKeys(last_key_, internal_key) >= 0) {
    return Status::InvalidArgument("TableBuilder::Add: key " + std::to_string(props_.num_entries) +
                                   " is not greater than the previous key in internal-key order");
  }
  if (ShouldCutBlock(internal_key, value)) {
    status_ = FlushDataBlock();
    if (!status_.ok()) return status_;
  }
  if (pending_index_entry_) {
    std::string handle;
    pending_handle_.EncodeTo(&handle);
    index_block_.Add(IndexSeparator(last_key_, internal_key), handle);
    pending_index_entry_ = false;
  }
  if (filter_builder_) filter_builder_->AddKey(parsed.user_key);
  if (range_filter_builder_) range_filter_builder_->AddKey(parsed.user_key);
  data_block_.Add(internal_key, value);
  last_key_.assign(internal_key.data(), internal_key.size());
  ++props_.num_entries;
  props_.raw_key_size += internal_key.size();
  props_.raw_value_size += value.size();
  return Status::OK();
}

Status TableBuilder::WriteBlock(const Slice& contents, BlockHandle* handle, CompressionType compression) {
  const CompressionType stored_as = CompressBlock(compression, contents, &compressed_);
  const Slice stored = stored_as == CompressionType::kNone ? contents : Slice(compressed_);
  handle->offset = offset_;
  handle->size = stored.size();
  Status s = file_->Append(stored);
  if (s.ok()) s = file_->Append(MakeBlockTrailer(options_.checksum_type, stored, static_cast<uint8_t>(stored_as)));
  if (s.ok()) offset_ += stored.size() + kBlockTrailerSize;
  return s;
}

Status TableBuilder::FlushDataBlock() {
  if (data_block_.empty()) return Status::OK();
  const Slice contents = data_block_.Finish();
  Status s = WriteBlock(contents, &pending_handle_, options_.compression);
  if (!s.ok()) return s;
  ++props_.num_data_blocks;
  if (data_block_.hash_index_written()) ++props_.num_hash_index_blocks;
  props_.data_size += pending_handle_.size + kBlockTrailerSize;
  pending_index_entry_ = true;
  data_block_.Reset();
  return Status::OK();
}

Status TableBuilder::Finish() {
  if (!status_.ok()) return status_;
  if (finished_) return Status::InvalidArgument("TableBuilder::Finish called twice");
  finished_ = true;
  Status s = FlushDataBlock();
  if (!s.ok()) return status_ = s;
  if (pending_index_entry_) {
    // The last block's separator is its last key: nothing follows to compare with.
    std::string handle;
    pending_handle_.EncodeTo(&handle);
    index_block_.Add(last_key_, handle);
    pending_index_entry_ = false;
  }

  BlockBuilderOptions meta_options;
  meta_options.restart_interval = 1;
  BlockBuilder metaindex(meta_options);
  std::string handle_bytes;

  // A table without keys gets no filter: lookups end at its empty index.
  if (filter_builder_ && props_.num_entries > 0) {
    std::string filter;
    s = filter_builder_->Finish(&filter);
    if (!s.ok()) return status_ = Status::InvalidArgument("building the table's filter: " + s.message());
    BlockHandle filter_handle;
    s = WriteBlock(filter, &filter_handle);
    if (!s.ok()) return status_ = s;
    filter_handle.EncodeTo(&handle_bytes);
    metaindex.Add(kFilterBlockName, handle_bytes);
    props_.filter_size = filter.size();
    props_.num_filter_keys = filter_builder_->num_hashes();
    props_.filter_spec = options_.filter_policy->spec();
    props_.whole_key_filtering = options_.whole_key_filtering;
    props_.prefix_extractor = options_.prefix_extractor ? options_.prefix_extractor->Name() : "";
  }

  // Named after the properties: the metaindex keeps its names in order.
  BlockHandle range_handle;
  if (range_filter_builder_ && props_.num_entries > 0) {
    std::string range_filter;
    s = range_filter_builder_->Finish(&range_filter);
    if (!s.ok()) return status_ = Status::InvalidArgument("building the table's range filter: " + s.message());
    s = WriteBlock(range_filter, &range_handle);
    if (!s.ok()) return status_ = s;
    props_.range_filter_spec = options_.range_filter_policy->spec();
    props_.range_filter_size = range_filter.size();
    props_.num_range_filter_keys = range_filter_builder_->num_keys();
  }

  Footer footer;
  footer.checksum_type = options_.checksum_type;
  const Slice index = index_block_.Finish();
  props_.index_size = index.size();
  s = WriteBlock(index, &footer.index_handle);
  if (!s.ok()) return status_ = s;

  BlockHandle props_handle;
  s = WriteBlock(props_.Encode(), &props_handle);
  if (!s.ok()) return status_ = s;
  handle_bytes.clear();
  props_handle.EncodeTo(&handle_bytes);
  metaindex.Add(kPropertiesBlockName, handle_bytes);
  if (!props_.range_filter_spec.empty()) {
    handle_bytes.clear();
    range_handle.EncodeTo(&handle_bytes);
    metaindex.Add(kRangeFilterBlockName, handle_bytes);
  }

  s = WriteBlock(metaindex.Finish(), &footer.metaindex_handle);
  if (!s.ok()) return status_ = s;
  std::string footer_bytes;
  footer.EncodeTo(&footer_bytes);
  s = file_->Append(footer_bytes);
  if (s.ok()) offset_ += footer_bytes.size();
  if (s.ok()) s = file_->Close();
  return status_ = s;
}

}  // namespace filterlab::engine
