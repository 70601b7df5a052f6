#include "engine/table/table_reader.h"

#include <algorithm>
#include <numeric>
#include <vector>

#include "engine/memtable/internal_key.h"
#include "engine/table/block_cache.h"
#include "engine/table/filter_block.h"
#include "engine/table/range_filter_block.h"
#include "engine/util/prefix_extractor.h"
#include "engine/util/thread_slot.h"
#include "filters/filter.h"

namespace filterlab::engine {

// Per thread slot (thread_slot.h): readers of one table in several threads
// write no counter line in common.
enum TableCounter : size_t {
  kFilterChecks,
  kFilterNegatives,
  kDataBlockFetches,
  kDataBlockReads,
  kDataBytesRead,
  kIndexReads,
  kIndexBytesRead,
  kFilterReads,
  kFilterBytesRead,
  kFpDataBlockFetches,
  kFpDataBlockReads,
  kHashLookups,
  kHashCollisions,
  kNumTableCounters
};
struct TableReader::Counters : StripedCounters<kNumTableCounters> {};

TableReader::TableReader(const TableReaderOptions& options, std::unique_ptr<RandomAccessFile> file)
    : options_(options), file_(std::move(file)), counters_(std::make_unique<Counters>()) {}

TableReader::~TableReader() {
  // The pinned index and filter leave the cache with their reader.
  if (options_.block_cache != nullptr) {
    if (index_block_) options_.block_cache->Erase({file_id_, footer_.index_handle.offset});
    if (filter_) options_.block_cache->Erase({file_id_, filter_handle_.offset});
    if (range_filter_) options_.block_cache->Erase({file_id_, range_filter_handle_.offset});
  }
}

TableReaderStats TableReader::stats() const {
  TableReaderStats s;
  s.filter_checks = counters_->Sum(kFilterChecks);
  s.filter_negatives = counters_->Sum(kFilterNegatives);
  s.data_block_fetches = counters_->Sum(kDataBlockFetches);
  s.data_block_reads = counters_->Sum(kDataBlockReads);
  s.data_bytes_read = counters_->Sum(kDataBytesRead);
  s.index_reads = counters_->Sum(kIndexReads);
  s.index_bytes_read = counters_->Sum(kIndexBytesRead);
  s.filter_reads = counters_->Sum(kFilterReads);
  s.filter_bytes_read = counters_->Sum(kFilterBytesRead);
  s.fp_data_block_fetches = counters_->Sum(kFpDataBlockFetches);
  s.fp_data_block_reads = counters_->Sum(kFpDataBlockReads);
  s.hash_lookups = counters_->Sum(kHashLookups);
  s.hash_collisions = counters_->Sum(kHashCollisions);
  return s;
}

void TableReaderStats::Add(const TableReaderStats& o) {
  filter_checks += o.filter_checks;
  filter_negatives += o.filter_negatives;
  data_block_fetches += o.data_block_fetches;
  data_block_reads += o.data_block_reads;
  data_bytes_read += o.data_bytes_read;
  index_reads += o.index_reads;
  index_bytes_read += o.index_bytes_read;
  filter_reads += o.filter_reads;
  filter_bytes_read += o.filter_bytes_read;
  fp_data_block_fetches += o.fp_data_block_fetches;
  fp_data_block_reads += o.fp_data_block_reads;
  hash_lookups += o.hash_lookups;
  hash_collisions += o.hash_collisions;
}

Status TableReader::Open(const TableReaderOptions& options, std::unique_ptr<RandomAccessFile> file,
                         std::unique_ptr<TableReader>* out) {
  std::unique_ptr<TableReader> reader(new TableReader(options, std::move(file)));
  Status s = reader->ReadMeta();
  if (!s.ok()) return s;
  *out = std::move(reader);
  return Status::OK();
}

Status TableReader::ReadAndOpenBlock(BlockKind kind, const BlockHandle& handle,
                                     std::shared_ptr<const Block>* out) const {
  std::string contents;
  Status s = ReadBlock(*file_, footer_.checksum_type, blocks_end_, kind, handle, &contents);
  if (!s.ok()) return s;
  if (kind == BlockKind::kIndex) {
    counters_->Add(kIndexReads);
    counters_->Add(kIndexBytesRead, handle.size + kBlockTrailerSize);
  } else if (kind == BlockKind::kData) {
    counters_->Add(kDataBlockReads);
    counters_->Add(kDataBytesRead, handle.size + kBlockTrailerSize);
  }
  const KeyOrder order =
      (kind == BlockKind::kData || kind == BlockKind::kIndex) ? KeyOrder::kInternal : KeyOrder::kBytewise;
  // The index is searched by every lookup for the reader's lifetime: worth its search aid (block.h).
  auto prepare = kind == BlockKind::kIndex ? +[](Block* b) { return b->BuildSearchPrefixes(); } : nullptr;
  return Block::OpenShared(std::move(contents), DescribeBlock(kind, handle, file_->name()), order, prepare, out);
}

// Opening reads the table from its end: footer, metaindex, properties (which
// must agree with the footer and metaindex), then the index and filter, so
// a damaged table fails here rather than on some later lookup.
Status TableReader::ReadMeta() {
  Status s = ReadFooter();
  if (!s.ok()) return s;
  BlockHandle props_handle;
  bool have_filter = false, have_range_filter = false;
  s = ReadMetaindex(&props_handle, &have_filter, &have_range_filter);
  if (!s.ok()) return s;
  s = ReadProperties(props_handle, have_filter, have_range_filter);
  if (!s.ok()) return s;
  return ReadIndexAndFilter(have_filter, have_range_filter);
}

Status TableReader::ReadFooter() {
  const std::string& name = file_->name();
  const uint64_t size = file_->Size();
  if (size < kFooterSize) {
    return Status::Corruption("table " + name + ": file of " + std::to_string(size) + " bytes is shorter than the " +
                              std::to_string(kFooterSize) + "-byte footer (truncated, or not a table)");
  }
  std::string scratch;
  Slice footer_bytes;
  Status s = file_->Read(size - kFooterSize, kFooterSize, &scratch, &footer_bytes);
  if (!s.ok()) return s;
  s = footer_.DecodeFrom(footer_bytes, name);
  if (!s.ok()) return s;
  blocks_end_ = size - kFooterSize;
  if (options_.block_cache != nullptr) file_id_ = options_.block_cache->NewFileId();
  return Status::OK();
}

// The metaindex names the properties block (always) and the filter block (when there is a filter).
Status TableReader::ReadMetaindex(BlockHandle* props_handle, bool* have_filter, bool* have_range_filter) {
  std::shared_ptr<const Block> metaindex;
  Status s = ReadAndOpenBlock(BlockKind::kMetaindex, footer_.metaindex_handle, &metaindex);
  if (!s.ok()) return s;
  bool have_props = false;
  BlockIter it(metaindex.get());
  for (it.SeekToFirst(); it.Valid(); it.Next()) {
    BlockHandle h;
    Slice v = it.value();
    if (!h.DecodeFrom(&v) || !v.empty()) {
      return Status::Corruption(metaindex->name() + ": entry '" + it.key().ToString() +
                                "' does not hold exactly one block handle");
    }
    if (it.key() == Slice(kPropertiesBlockName)) {
      *props_handle = h;
      have_props = true;
    } else if (it.key() == Slice(kFilterBlockName)) {
      filter_handle_ = h;
      *have_filter = true;
    } else if (it.key() == Slice(kRangeFilterBlockName)) {
      range_filter_handle_ = h;
      *have_range_filter = true;
    } else {
      return Status::Corruption(metaindex->name() + ": unknown meta block '" + it.key().ToString() + "' (allowed: " +
                                kFilterBlockName + ", " + kPropertiesBlockName + ", " + kRangeFilterBlockName + ")");
    }
  }
  if (!it.status().ok()) return it.status();
  if (!have_props) return Status::Corruption(metaindex->name() + ": no properties block is named");
  return Status::OK();
}

// Decodes the properties, checks them against the footer and metaindex, and
// makes the filter policy from the spec the table was written with (the key
// hash its filter was built over).
Status TableReader::ReadProperties(const BlockHandle& props_handle, bool have_filter, bool have_range_filter) {
  std::shared_ptr<const Block> props_block;
  Status s = ReadAndOpenBlock(BlockKind::kProperties, props_handle, &props_block);
  if (!s.ok()) return s;
  s = props_.Decode(*props_block);
  if (!s.ok()) return s;
  const std::string& props_name = props_block->name();
  if (props_.index_size != footer_.index_handle.size) {
    return Status::Corruption(props_name + ": index size " + std::to_string(props_.index_size) +
                              " differs from the footer's index handle size " +
                              std::to_string(footer_.index_handle.size));
  }
  if (have_range_filter != !props_.range_filter_spec.empty()) {
    return Status::Corruption(props_name + ": range filter spec '" + props_.range_filter_spec + "' but the metaindex " +
                              (have_range_filter ? "names" : "does not name") + " a range filter block");
  }
  if (have_range_filter && props_.range_filter_size != range_filter_handle_.size) {
    return Status::Corruption(props_name + ": range filter size " + std::to_string(props_.range_filter_size) +
                              " differs from the range filter block handle's size " +
                              std::to_string(range_filter_handle_.size));
  }
  if (have_filter != !props_.filter_spec.empty()) {
    return Status::Corruption(props_name + ": filter spec '" + props_.filter_spec + "' but the metaindex " +
                              (have_filter ? "names" : "does not name") + " a filter block");
  }
  if (!have_filter) return Status::OK();
  if (!props_.prefix_extractor.empty()) {
    std::shared_ptr<const PrefixExtractor> extractor;
    s = PrefixExtractorFromSpec(props_.prefix_extractor, &extractor);
    if (!s.ok() || extractor == nullptr || extractor->Name() != props_.prefix_extractor) {
      return Status::Corruption(props_name + ": filter prefix extractor '" + props_.prefix_extractor +
                                "' is not a canonical fixed:N or capped:N");
    }
    table_prefix_ = std::move(extractor);
  } else if (!props_.whole_key_filtering) {
    return Status::Corruption(props_name + ": the filter holds neither whole keys nor prefixes");
  }
  if (props_.filter_size != filter_handle_.size) {
    return Status::Corruption(props_name + ": filter size " + std::to_string(props_.filter_size) +
                              " differs from the filter block handle's size " + std::to_string(filter_handle_.size));
  }
  std::unique_ptr<FilterPolicy> policy;
  s = NewFilterPolicy(props_.filter_spec, &policy);
  if (!s.ok()) {
    return Status::Corruption(props_name + ": filter spec '" + props_.filter_spec + "' cannot be used: " + s.message());
  }
  filter_policy_ = std::move(policy);
  return Status::OK();
}

// Reads (and so verifies) the index and filter now; keeps them, or hands them to the cache.
Status TableReader::ReadIndexAndFilter(bool have_filter, bool have_range_filter) {
  std::shared_ptr<const Block> index;
  Status s = ReadAndOpenBlock(BlockKind::kIndex, footer_.index_handle, &index);
  if (!s.ok()) return s;
  std::shared_ptr<const FilterBlockReader> filter;
  if (have_filter) {
    s = ReadFilterBlock(&filter);
    if (!s.ok()) return s;
  }
  std::shared_ptr<const RangeFilterBlockReader> range_filter;
  if (have_range_filter) {
    s = ReadRangeFilterBlock(&range_filter);
    if (!s.ok()) return s;
  }
  // Pinned: lookups use them without a cache lookup (no shard lock, no
  // reference count: the lines every concurrent lookup of this table would
  // write), and the cache holds them as pinned entries, charged to its
  // budget and never evicted, until the reader closes.
  if (options_.block_cache != nullptr) {
    options_.block_cache->Insert({file_id_, footer_.index_handle.offset}, index, index->memory_usage(),
                                 /*pinned=*/true);
    if (filter)
      options_.block_cache->Insert({file_id_, filter_handle_.offset}, filter, filter->size(), /*pinned=*/true);
    if (range_filter) {
      options_.block_cache->Insert({file_id_, range_filter_handle_.offset}, range_filter, range_filter->size(),
                                   /*pinned=*/true);
    }
  }
  index_block_ = std::move(index);
  filter_ = std::move(filter);
  range_filter_ = std::move(range_filter);
  ChooseFilterUse();
  return Status::OK();
}

void TableReader::ChooseFilterUse() {
  if (!filter_) return;
  const bool same_extractor = table_prefix_ != nullptr && options_.prefix_extractor != nullptr &&
                              options_.prefix_extractor->Name() == table_prefix_->Name();
  if (same_extractor) prefix_filter_ = table_prefix_;
  if (props_.whole_key_filtering) {
    point_filter_ = filter_.get();
  } else if (same_extractor) {
    // RocksDB's FullFilterKeyMayMatch without whole keys: a Get probes the key's prefix.
    point_filter_ = filter_.get();
    point_prefix_ = table_prefix_.get();
  }
}

// Inline (Get is its only caller): a missing key's Get is little more than
// this probe, and the call was 3% of readmissing's profile.
inline bool TableReader::PointFilterMayMatch(const Slice& user_key, bool* checked) const {
  if (point_prefix_ == nullptr) {
    *checked = true;
    return point_filter_->KeyMayMatch(user_key);
  }
  *checked = point_prefix_->InDomain(user_key);
  return !*checked || point_filter_->KeyMayMatch(point_prefix_->Transform(user_key));
}

TableReader::SeekFilterAnswer TableReader::SeekMayMatch(const SeekQuery& query) const {
  SeekFilterAnswer answer;
  if (prefix_filter_ != nullptr && query.prefix_extractor != nullptr &&
      query.prefix_extractor->Name() == prefix_filter_->Name()) {
    answer.prefix =
        filter_->KeyMayMatch(query.prefix) ? LookupResult::Filter::kPositive : LookupResult::Filter::kNegative;
    if (answer.prefix == LookupResult::Filter::kNegative) return answer;
  }
  // The range filter answers inclusive ranges [lo, hi], a seek's end is
  // exclusive: an end E = X ‖ 0x00 admits exactly the keys <= X (X ‖ 0x00 is
  // X's immediate successor), so [lo, X] is asked; any other E is asked as
  // [lo, E], a superset of the seek's keys, so never a false negative.
  if (range_filter_ != nullptr && query.hi != nullptr && query.hi->compare(query.lo) > 0) {
    Slice hi = *query.hi;
    if (hi.size() > 0 && hi[hi.size() - 1] == '\0') hi = Slice(hi.data(), hi.size() - 1);
    if (hi.compare(query.lo) >= 0) {
      answer.range = range_filter_->RangeMayMatch(query.lo, hi) ? LookupResult::Filter::kPositive
                                                                : LookupResult::Filter::kNegative;
    }
  }
  return answer;
}

Status TableReader::ReadFilterBlock(std::shared_ptr<const FilterBlockReader>* out) const {
  std::string contents;
  Status s = ReadBlock(*file_, footer_.checksum_type, blocks_end_, BlockKind::kFilter, filter_handle_, &contents);
  if (!s.ok()) return s;
  counters_->Add(kFilterReads);
  counters_->Add(kFilterBytesRead, filter_handle_.size + kBlockTrailerSize);
  std::unique_ptr<FilterBlockReader> f;
  s = FilterBlockReader::Open(std::move(contents), filter_policy_,
                              DescribeBlock(BlockKind::kFilter, filter_handle_, file_->name()), &f);
  if (!s.ok()) return s;
  *out = std::move(f);
  return Status::OK();
}

Status TableReader::ReadRangeFilterBlock(std::shared_ptr<const RangeFilterBlockReader>* out) const {
  std::string contents;
  Status s =
      ReadBlock(*file_, footer_.checksum_type, blocks_end_, BlockKind::kRangeFilter, range_filter_handle_, &contents);
  if (!s.ok()) return s;
  counters_->Add(kFilterReads);
  counters_->Add(kFilterBytesRead, range_filter_handle_.size + kBlockTrailerSize);
  std::unique_ptr<RangeFilterBlockReader> f;
  s = RangeFilterBlockReader::Open(std::move(contents),
                                   DescribeBlock(BlockKind::kRangeFilter, range_filter_handle_, file_->name()), &f);
  if (!s.ok()) return s;
  *out = std::move(f);
  return Status::OK();
}

Status TableReader::LoadDataBlock(const BlockHandle& handle, std::shared_ptr<const Block>* out, bool* read) const {
  counters_->Add(kDataBlockFetches);
  if (read != nullptr) *read = false;
  const BlockCacheKey key{file_id_, handle.offset};
  if (options_.block_cache != nullptr && (*out = options_.block_cache->LookupAs<Block>(key))) {
    return Status::OK();
  }
  if (read != nullptr) *read = true;
  return ReadDataBlock(handle, out);
}

Status TableReader::ReadDataBlock(const BlockHandle& handle, std::shared_ptr<const Block>* out) const {
  Status s = ReadAndOpenBlock(BlockKind::kData, handle, out);
  if (s.ok() && options_.block_cache != nullptr) {
    options_.block_cache->Insert({file_id_, handle.offset}, *out, (*out)->size(), /*pinned=*/false,
                                 BlockCacheHint{(*out)->restart_array(), (*out)->entries()});
  }
  return s;
}

Status TableReader::DecodeIndexValue(const BlockIter& index, BlockHandle* handle) const {
  Slice v = index.value();
  if (!handle->DecodeFrom(&v) || !v.empty()) {
    return Status::Corruption(DescribeBlock(BlockKind::kIndex, footer_.index_handle, file_->name()) +
                              ": entry does not hold exactly one block handle");
  }
  // Data blocks lie before the meta blocks, which the builder writes after them.
  if (handle->offset >= footer_.index_handle.offset) {
    return Status::Corruption(DescribeBlock(BlockKind::kIndex, footer_.index_handle, file_->name()) +
                              ": entry points at offset " + std::to_string(handle->offset) +
                              ", not below the index block where data blocks end");
  }
  return Status::OK();
}

Status TableReader::LookupFromIndex(BlockIter* index, const Slice& target, std::shared_ptr<const Block>* shared,
                                    uint64_t* shared_offset, LookupResult* result, uint64_t* fetches,
                                    uint64_t* file_reads) const {
  const Slice user_key = ExtractUserKey(target);
  bool first = true;
  for (; index->Valid(); index->Next(), first = false) {
    BlockHandle handle;
    Status s = DecodeIndexValue(*index, &handle);
    if (!s.ok()) return s;
    std::shared_ptr<const Block> block;
    ++*fetches;
    if (first && shared != nullptr && *shared && *shared_offset == handle.offset) {
      block = *shared;
    } else {
      bool read = false;
      s = LoadDataBlock(handle, &block, &read);
      if (!s.ok()) return s;
      *file_reads += read ? 1 : 0;
      if (first && shared != nullptr) {
        *shared = block;
        *shared_offset = handle.offset;
      }
    }
    BlockIter it(block.get());
    const bool may_exist = it.SeekForGet(target);
    if (block->has_hash_index()) {
      counters_->Add(kHashLookups);
      if (it.last_hash_outcome() == BlockIter::HashOutcome::kCollision) counters_->Add(kHashCollisions);
    }
    if (!it.status().ok()) return it.status();
    if (!may_exist) return Status::OK();
    if (it.Valid()) {
      if (ExtractUserKey(it.key()) == user_key) {
        result->found = true;
        result->internal_key.assign(it.key().data(), it.key().size());
        result->value.assign(it.value().data(), it.value().size());
      }
      return Status::OK();
    }
    // Past the block's end: the key's versions may continue in the next block.
  }
  return index->status();
}

Status TableReader::Get(const Slice& target, LookupResult* result) const {
  result->Reset();
  if (target.size() < kInternalKeyTrailerBytes) {
    return result->status = Status::InvalidArgument("Get target of " + std::to_string(target.size()) +
                                                    " bytes is not an internal key (at least 8 bytes)");
  }
  bool filter_checked = false;
  if (point_filter_ != nullptr) {
    const bool may = PointFilterMayMatch(ExtractUserKey(target), &filter_checked);
    if (filter_checked) counters_->Add(kFilterChecks);
    if (!may) {
      counters_->Add(kFilterNegatives);
      result->filter = LookupResult::Filter::kNegative;
      return result->status;
    }
  }
  BlockIter index_iter(index_block_.get());
  index_iter.Seek(target);
  uint64_t fetches = 0, file_reads = 0;
  Status s = LookupFromIndex(&index_iter, target, nullptr, nullptr, result, &fetches, &file_reads);
  if (!s.ok()) {
    result->Reset();
    result->status = s;
  } else if (filter_checked) {
    result->filter = LookupResult::Filter::kPositive;
    CountFalsePositive(*result, fetches, file_reads);
  }
  return result->status;
}

void TableReader::CountFalsePositive(const LookupResult& result, uint64_t fetches, uint64_t file_reads) const {
  if (result.filter != LookupResult::Filter::kPositive || result.found) return;
  counters_->Add(kFpDataBlockFetches, fetches);
  counters_->Add(kFpDataBlockReads, file_reads);
}

// TableReader::MultiGet's per-batch arrays: one set per thread, reused
// across calls, so a batch allocates nothing once they have grown. Arrays
// indexed by j run over the sorted pending keys.
struct TableReader::MultiGetScratch {
  std::vector<size_t> pending;  // indexes i of the targets still to look up
  std::vector<Slice> user_keys;
  std::unique_ptr<bool[]> may;  // the filter's answers (vector<bool> has no data())
  size_t may_capacity = 0;
  std::vector<Slice> seek_targets;
  std::vector<uint32_t> restarts;  // each key's index restart point (FindRestarts)
  std::vector<std::shared_ptr<const Block>> blocks;
  std::vector<uint64_t> offsets;
  std::vector<uint8_t> block_read;  // 1: this key's fetch read the block from the file
  std::vector<BlockHandle> handles;
  std::vector<size_t> owners;  // keys j that fetch a block (the first key of each distinct one)
  std::vector<BlockCacheKey> cache_keys;
  std::vector<std::shared_ptr<const void>> cached;
};

// kNoBlock: step 3 reports the index's status, the key's absence or the handle's error.
constexpr uint64_t kNoBlock = ~uint64_t{0};

void TableReader::MultiGet(const Slice* targets, size_t n, LookupResult* results) const {
  thread_local MultiGetScratch scratch;
  MultiGetCheckTargets(targets, n, results, &scratch);
  if (point_filter_ != nullptr) MultiGetFilter(targets, results, &scratch);
  if (scratch.pending.empty()) return;
  // Sorted keys visit the blocks in order, so keys sharing a block are adjacent.
  std::stable_sort(scratch.pending.begin(), scratch.pending.end(),
                   [&](size_t a, size_t b) { return CompareInternalKeys(targets[a], targets[b]) < 0; });
  BlockIter index_iter(index_block_.get());
  if (!MultiGetSearchIndex(targets, &index_iter, &scratch)) {
    for (size_t i : scratch.pending) results[i].status = index_iter.status();
    return;
  }
  MultiGetFetchBlocks(targets, &index_iter, &scratch);
  MultiGetLookups(targets, &index_iter, results, &scratch);
}

// Resets every result; targets too short to be internal keys get their
// error, the others become scratch->pending.
void TableReader::MultiGetCheckTargets(const Slice* targets, size_t n, LookupResult* results,
                                       MultiGetScratch* scratch) const {
  scratch->pending.clear();
  for (size_t i = 0; i < n; ++i) {
    results[i].Reset();
    if (targets[i].size() < kInternalKeyTrailerBytes) {
      results[i].status =
          Status::InvalidArgument("MultiGet target " + std::to_string(i) + " of " + std::to_string(targets[i].size()) +
                                  " bytes is not an internal key (at least 8 bytes)");
    } else {
      scratch->pending.push_back(i);
    }
  }
}

// The filter probes every pending key at once (hash all, then the filter's
// prefetching batch query); the keys it rules out leave `pending`.
void TableReader::MultiGetFilter(const Slice* targets, LookupResult* results, MultiGetScratch* scratch) const {
  std::vector<size_t>& pending = scratch->pending;
  if (pending.empty()) return;
  scratch->user_keys.resize(pending.size());
  for (size_t j = 0; j < pending.size(); ++j) scratch->user_keys[j] = ExtractUserKey(targets[pending[j]]);
  if (scratch->may_capacity < pending.size()) {
    scratch->may_capacity = pending.size();
    scratch->may.reset(new bool[scratch->may_capacity]);
  }
  bool* may = scratch->may.get();
  if (point_prefix_ == nullptr) {
    point_filter_->KeysMayMatch(scratch->user_keys.data(), pending.size(), may);
    counters_->Add(kFilterChecks, pending.size());
    size_t kept = 0;
    for (size_t j = 0; j < pending.size(); ++j) {
      results[pending[j]].filter = may[j] ? LookupResult::Filter::kPositive : LookupResult::Filter::kNegative;
      if (may[j]) pending[kept++] = pending[j];
    }
    counters_->Add(kFilterNegatives, pending.size() - kept);
    pending.resize(kept);
    return;
  }
  // A filter of prefixes answers the keys in its extractor's domain; the
  // others pass unchecked.
  size_t checked = 0;
  for (size_t j = 0; j < pending.size(); ++j) {
    may[j] = true;
    if (point_prefix_->InDomain(scratch->user_keys[j])) {
      may[j] = point_filter_->KeyMayMatch(point_prefix_->Transform(scratch->user_keys[j]));
      results[pending[j]].filter = may[j] ? LookupResult::Filter::kPositive : LookupResult::Filter::kNegative;
      ++checked;
    }
  }
  counters_->Add(kFilterChecks, checked);
  size_t kept = 0;
  for (size_t j = 0; j < pending.size(); ++j) {
    if (may[j]) pending[kept++] = pending[j];
  }
  counters_->Add(kFilterNegatives, pending.size() - kept);
  pending.resize(kept);
}

// 1. The index: every pending key's binary search at once (FindRestarts
// overlaps their cache misses). False: the index block is damaged
// (index->status() says how).
bool TableReader::MultiGetSearchIndex(const Slice* targets, BlockIter* index, MultiGetScratch* scratch) const {
  const size_t m = scratch->pending.size();
  scratch->seek_targets.resize(m);
  scratch->restarts.resize(m);
  for (size_t j = 0; j < m; ++j) scratch->seek_targets[j] = targets[scratch->pending[j]];
  return index->FindRestarts(scratch->seek_targets.data(), m, scratch->restarts.data());
}

// 2. Each key's first data block, all fetched (and their first lines
// prefetched) before any is searched; keys in one block share its fetch.
// First every key's block handle, then the distinct blocks' cache lookups
// as one BlockCache::LookupBatch (their slot and reference-count misses
// overlap), then the blocks the cache lacked, read from the file.
void TableReader::MultiGetFetchBlocks(const Slice* targets, BlockIter* index, MultiGetScratch* scratch) const {
  const size_t m = scratch->pending.size();
  MultiGetScratch& s = *scratch;
  s.blocks.resize(m);
  s.offsets.resize(m);
  s.handles.resize(m);
  s.block_read.assign(m, 0);
  s.owners.clear();
  s.cache_keys.clear();
  for (size_t j = 0; j < m; ++j) {
    s.blocks[j].reset();
    s.offsets[j] = kNoBlock;
    index->SeekFromRestart(s.restarts[j], targets[s.pending[j]]);
    if (!index->Valid() || !DecodeIndexValue(*index, &s.handles[j]).ok()) continue;
    s.offsets[j] = s.handles[j].offset;
    if (j > 0 && s.offsets[j - 1] == s.offsets[j]) continue;  // shares key j-1's block
    s.owners.push_back(j);
    s.cache_keys.push_back({file_id_, s.offsets[j]});
  }
  BlockCache* const cache = options_.block_cache;
  if (cache != nullptr) {
    s.cached.resize(s.cache_keys.size());
    cache->LookupBatch(s.cache_keys.data(), s.cache_keys.size(), s.cached.data());
  }
  for (size_t o = 0; o < s.owners.size(); ++o) {
    const size_t j = s.owners[o];
    counters_->Add(kDataBlockFetches);
    if (cache != nullptr && s.cached[o]) {
      s.blocks[j] = std::static_pointer_cast<const Block>(std::move(s.cached[o]));
    } else {
      if (!ReadDataBlock(s.handles[j], &s.blocks[j]).ok()) {
        s.blocks[j].reset();  // step 3 fetches it again and reports the error
        continue;
      }
      s.block_read[j] = 1;
    }
    s.blocks[j]->Prefetch();
  }
  // Keys sharing an owner's block take their reference to it.
  for (size_t j = 1; j < m; ++j) {
    if (!s.blocks[j] && s.offsets[j] != kNoBlock && s.offsets[j] == s.offsets[j - 1]) s.blocks[j] = s.blocks[j - 1];
  }
}

// 3. The lookups, each starting in its fetched block; then the batch's
// block references are dropped (now, not at this thread's next batch).
void TableReader::MultiGetLookups(const Slice* targets, BlockIter* index, LookupResult* results,
                                  MultiGetScratch* scratch) const {
  MultiGetScratch& s = *scratch;
  const size_t m = s.pending.size();
  for (size_t j = 0; j < m; ++j) {
    const size_t i = s.pending[j];
    index->SeekFromRestart(s.restarts[j], targets[i]);
    uint64_t fetches = 0, file_reads = 0;
    uint64_t offset = s.offsets[j];
    Status st = LookupFromIndex(index, targets[i], &s.blocks[j], &offset, &results[i], &fetches, &file_reads);
    file_reads += s.block_read[j];
    if (!st.ok()) {
      results[i].Reset();
      results[i].status = st;
    } else {
      CountFalsePositive(results[i], fetches, file_reads);
    }
  }
  for (size_t j = 0; j < m; ++j) s.blocks[j].reset();
}

std::unique_ptr<TableIterator> TableReader::NewIterator() const { return std::make_unique<TableIterator>(this); }

Status TableReader::ForEachDataBlock(const std::function<Status(const BlockHandle&, const Block&)>& fn) const {
  BlockIter it(index_block_.get());
  for (it.SeekToFirst(); it.Valid(); it.Next()) {
    BlockHandle handle;
    Status s = DecodeIndexValue(it, &handle);
    if (!s.ok()) return s;
    std::shared_ptr<const Block> block;
    s = LoadDataBlock(handle, &block);
    if (!s.ok()) return s;
    s = fn(handle, *block);
    if (!s.ok()) return s;
  }
  return it.status();
}

std::string TableReader::DescribeFilter() const { return filter_ ? filter_->filter().Describe() : ""; }

// ---------------------------------------------------------------------------------------------

TableIterator::TableIterator(const TableReader* table) : table_(table) {}
TableIterator::~TableIterator() = default;

bool TableIterator::Valid() const { return status_.ok() && data_iter_ && data_iter_->Valid(); }

Status TableIterator::status() const { return status_; }

Slice TableIterator::key() const { return data_iter_->key(); }
Slice TableIterator::value() const { return data_iter_->value(); }

bool TableIterator::InitIndex() {
  if (!status_.ok()) return false;
  if (!index_iter_) {
    index_block_ = table_->index_block_;
    index_iter_.emplace(index_block_.get());
  }
  data_iter_.reset();
  data_block_.reset();
  return true;
}

// Opens the data block the index iterator points at (none if it is invalid).
void TableIterator::LoadBlockAtIndex() {
  data_iter_.reset();
  data_block_.reset();
  if (!index_iter_->Valid()) {
    if (!index_iter_->status().ok()) status_ = index_iter_->status();
    return;
  }
  BlockHandle handle;
  status_ = table_->DecodeIndexValue(*index_iter_, &handle);
  if (status_.ok()) status_ = table_->LoadDataBlock(handle, &data_block_);
  if (status_.ok()) data_iter_.emplace(data_block_.get());
}

// Moves past blocks the data iterator has run off the end of.
void TableIterator::SkipExhaustedBlocks() {
  while (status_.ok() && data_iter_ && !data_iter_->Valid()) {
    if (!data_iter_->status().ok()) {
      status_ = data_iter_->status();
      return;
    }
    index_iter_->Next();
    LoadBlockAtIndex();
    if (data_iter_) data_iter_->SeekToFirst();
  }
}

void TableIterator::SeekToFirst() {
  if (!InitIndex()) return;
  index_iter_->SeekToFirst();
  LoadBlockAtIndex();
  if (data_iter_) data_iter_->SeekToFirst();
  SkipExhaustedBlocks();
}

void TableIterator::Seek(const Slice& target) {
  if (!InitIndex()) return;
  if (target.size() < kInternalKeyTrailerBytes) {
    status_ = Status::InvalidArgument("Seek target of " + std::to_string(target.size()) +
                                      " bytes is not an internal key (at least 8 bytes)");
    return;
  }
  index_iter_->Seek(target);
  LoadBlockAtIndex();
  if (data_iter_) data_iter_->Seek(target);
  SkipExhaustedBlocks();
}

void TableIterator::Next() {
  if (!Valid()) return;
  data_iter_->Next();
  SkipExhaustedBlocks();
}

}  // namespace filterlab::engine
