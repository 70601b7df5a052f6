#include "engine/table/table_reader.h"

#include <algorithm>
#include <numeric>
#include <vector>

#include "engine/memtable/internal_key.h"
#include "engine/table/block_cache.h"
#include "engine/table/filter_block.h"
#include "filters/filter.h"

namespace filterlab::engine {

struct TableReader::Counters {
  std::atomic<uint64_t> filter_checks{0};
  std::atomic<uint64_t> filter_negatives{0};
  std::atomic<uint64_t> data_block_fetches{0};
  std::atomic<uint64_t> data_block_reads{0};
  std::atomic<uint64_t> data_bytes_read{0};
  std::atomic<uint64_t> index_reads{0}, index_bytes_read{0};
  std::atomic<uint64_t> filter_reads{0}, filter_bytes_read{0};
  std::atomic<uint64_t> fp_data_block_fetches{0}, fp_data_block_reads{0};
  std::atomic<uint64_t> hash_lookups{0};
  std::atomic<uint64_t> hash_collisions{0};
};

namespace {

void Bump(std::atomic<uint64_t>& c, uint64_t n = 1) { c.fetch_add(n, std::memory_order_relaxed); }
uint64_t Load(const std::atomic<uint64_t>& c) { return c.load(std::memory_order_relaxed); }

}  // namespace

TableReader::TableReader(const TableReaderOptions& options, std::unique_ptr<RandomAccessFile> file)
    : options_(options), file_(std::move(file)), counters_(std::make_unique<Counters>()) {}

TableReader::~TableReader() = default;

TableReaderStats TableReader::stats() const {
  TableReaderStats s;
  s.filter_checks = Load(counters_->filter_checks);
  s.filter_negatives = Load(counters_->filter_negatives);
  s.data_block_fetches = Load(counters_->data_block_fetches);
  s.data_block_reads = Load(counters_->data_block_reads);
  s.data_bytes_read = Load(counters_->data_bytes_read);
  s.index_reads = Load(counters_->index_reads);
  s.index_bytes_read = Load(counters_->index_bytes_read);
  s.filter_reads = Load(counters_->filter_reads);
  s.filter_bytes_read = Load(counters_->filter_bytes_read);
  s.fp_data_block_fetches = Load(counters_->fp_data_block_fetches);
  s.fp_data_block_reads = Load(counters_->fp_data_block_reads);
  s.hash_lookups = Load(counters_->hash_lookups);
  s.hash_collisions = Load(counters_->hash_collisions);
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
    Bump(counters_->index_reads);
    Bump(counters_->index_bytes_read, handle.size + kBlockTrailerSize);
  } else if (kind == BlockKind::kData) {
    Bump(counters_->data_block_reads);
    Bump(counters_->data_bytes_read, handle.size + kBlockTrailerSize);
  }
  std::unique_ptr<Block> block;
  const KeyOrder order = (kind == BlockKind::kData || kind == BlockKind::kIndex) ? KeyOrder::kInternal
                                                                                  : KeyOrder::kBytewise;
  s = Block::Open(std::move(contents), DescribeBlock(kind, handle, file_->name()), order, &block);
  if (!s.ok()) return s;
  *out = std::move(block);
  return Status::OK();
}

// Opening reads the table from its end: footer, metaindex, properties (which
// must agree with the footer and metaindex), then the index and filter, so
// a damaged table fails here rather than on some later lookup.
Status TableReader::ReadMeta() {
  Status s = ReadFooter();
  if (!s.ok()) return s;
  BlockHandle props_handle;
  bool have_filter = false;
  s = ReadMetaindex(&props_handle, &have_filter);
  if (!s.ok()) return s;
  s = ReadProperties(props_handle, have_filter);
  if (!s.ok()) return s;
  return ReadIndexAndFilter(have_filter);
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
Status TableReader::ReadMetaindex(BlockHandle* props_handle, bool* have_filter) {
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
    } else {
      return Status::Corruption(metaindex->name() + ": unknown meta block '" + it.key().ToString() +
                                "' (allowed: " + kFilterBlockName + ", " + kPropertiesBlockName + ")");
    }
  }
  if (!it.status().ok()) return it.status();
  if (!have_props) return Status::Corruption(metaindex->name() + ": no properties block is named");
  return Status::OK();
}

// Decodes the properties, checks them against the footer and metaindex, and
// makes the filter policy from the spec the table was written with (the key
// hash its filter was built over).
Status TableReader::ReadProperties(const BlockHandle& props_handle, bool have_filter) {
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
  if (have_filter != !props_.filter_spec.empty()) {
    return Status::Corruption(props_name + ": filter spec '" + props_.filter_spec + "' but the metaindex " +
                              (have_filter ? "names" : "does not name") + " a filter block");
  }
  if (!have_filter) return Status::OK();
  if (props_.filter_size != filter_handle_.size) {
    return Status::Corruption(props_name + ": filter size " + std::to_string(props_.filter_size) +
                              " differs from the filter block handle's size " + std::to_string(filter_handle_.size));
  }
  std::unique_ptr<FilterPolicy> policy;
  s = NewFilterPolicy(props_.filter_spec, &policy);
  if (!s.ok()) {
    return Status::Corruption(props_name + ": filter spec '" + props_.filter_spec +
                              "' cannot be used: " + s.message());
  }
  filter_policy_ = std::move(policy);
  return Status::OK();
}

// Reads (and so verifies) the index and filter now; keeps them, or hands them to the cache.
Status TableReader::ReadIndexAndFilter(bool have_filter) {
  std::shared_ptr<const Block> index;
  Status s = ReadAndOpenBlock(BlockKind::kIndex, footer_.index_handle, &index);
  if (!s.ok()) return s;
  std::shared_ptr<const FilterBlockReader> filter;
  if (have_filter) {
    s = ReadFilterBlock(&filter);
    if (!s.ok()) return s;
  }
  if (options_.block_cache != nullptr) {
    options_.block_cache->Insert({file_id_, footer_.index_handle.offset}, index, index->size());
    if (filter) options_.block_cache->Insert({file_id_, filter_handle_.offset}, filter, filter->size());
  } else {
    index_block_ = std::move(index);
    filter_ = std::move(filter);
  }
  return Status::OK();
}

Status TableReader::ReadFilterBlock(std::shared_ptr<const FilterBlockReader>* out) const {
  std::string contents;
  Status s = ReadBlock(*file_, footer_.checksum_type, blocks_end_, BlockKind::kFilter, filter_handle_, &contents);
  if (!s.ok()) return s;
  Bump(counters_->filter_reads);
  Bump(counters_->filter_bytes_read, filter_handle_.size + kBlockTrailerSize);
  std::unique_ptr<FilterBlockReader> f;
  s = FilterBlockReader::Open(std::move(contents), filter_policy_,
                              DescribeBlock(BlockKind::kFilter, filter_handle_, file_->name()), &f);
  if (!s.ok()) return s;
  *out = std::move(f);
  return Status::OK();
}

Status TableReader::LoadIndex(std::shared_ptr<const Block>* out) const {
  if (options_.block_cache == nullptr) {
    *out = index_block_;
    return Status::OK();
  }
  const BlockCacheKey key{file_id_, footer_.index_handle.offset};
  if ((*out = options_.block_cache->LookupAs<Block>(key))) return Status::OK();
  Status s = ReadAndOpenBlock(BlockKind::kIndex, footer_.index_handle, out);
  if (s.ok()) options_.block_cache->Insert(key, *out, (*out)->size());
  return s;
}

Status TableReader::LoadFilter(std::shared_ptr<const FilterBlockReader>* out) const {
  if (!has_filter()) return Status::OK();
  if (options_.block_cache == nullptr) {
    *out = filter_;
    return Status::OK();
  }
  const BlockCacheKey key{file_id_, filter_handle_.offset};
  if ((*out = options_.block_cache->LookupAs<FilterBlockReader>(key))) return Status::OK();
  Status s = ReadFilterBlock(out);
  if (s.ok()) options_.block_cache->Insert(key, *out, (*out)->size());
  return s;
}

Status TableReader::LoadDataBlock(const BlockHandle& handle, std::shared_ptr<const Block>* out, bool* read) const {
  Bump(counters_->data_block_fetches);
  if (read != nullptr) *read = false;
  const BlockCacheKey key{file_id_, handle.offset};
  if (options_.block_cache != nullptr && (*out = options_.block_cache->LookupAs<Block>(key))) {
    return Status::OK();
  }
  if (read != nullptr) *read = true;
  Status s = ReadAndOpenBlock(BlockKind::kData, handle, out);
  if (s.ok() && options_.block_cache != nullptr) options_.block_cache->Insert(key, *out, (*out)->size());
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
      Bump(counters_->hash_lookups);
      if (it.last_hash_outcome() == BlockIter::HashOutcome::kCollision) Bump(counters_->hash_collisions);
    }
    if (!it.status().ok()) return it.status();
    if (!may_exist) return Status::OK();
    if (it.Valid()) {
      if (ExtractUserKey(it.key()) == user_key) {
        result->found = true;
        result->internal_key = it.key().ToString();
        result->value = it.value().ToString();
      }
      return Status::OK();
    }
    // Past the block's end: the key's versions may continue in the next block.
  }
  return index->status();
}

Status TableReader::Get(const Slice& target, LookupResult* result) const {
  *result = LookupResult();
  if (target.size() < kInternalKeyTrailerBytes) {
    return result->status = Status::InvalidArgument("Get target of " + std::to_string(target.size()) +
                                                    " bytes is not an internal key (at least 8 bytes)");
  }
  std::shared_ptr<const FilterBlockReader> filter;
  Status s = LoadFilter(&filter);
  if (!s.ok()) return result->status = s;
  if (filter) {
    Bump(counters_->filter_checks);
    if (!filter->KeyMayMatch(ExtractUserKey(target))) {
      Bump(counters_->filter_negatives);
      result->filter = LookupResult::Filter::kNegative;
      return result->status;
    }
  }
  std::shared_ptr<const Block> index;
  s = LoadIndex(&index);
  if (!s.ok()) return result->status = s;
  BlockIter index_iter(index.get());
  index_iter.Seek(target);
  uint64_t fetches = 0, file_reads = 0;
  s = LookupFromIndex(&index_iter, target, nullptr, nullptr, result, &fetches, &file_reads);
  if (!s.ok()) {
    *result = LookupResult();
    result->status = s;
  } else if (filter) {
    result->filter = LookupResult::Filter::kPositive;
    CountFalsePositive(*result, fetches, file_reads);
  }
  return result->status;
}

void TableReader::CountFalsePositive(const LookupResult& result, uint64_t fetches, uint64_t file_reads) const {
  if (result.filter != LookupResult::Filter::kPositive || result.found) return;
  Bump(counters_->fp_data_block_fetches, fetches);
  Bump(counters_->fp_data_block_reads, file_reads);
}

void TableReader::MultiGet(const Slice* targets, size_t n, LookupResult* results) const {
  // Scratch of the calling thread, reused across calls (no allocation once grown).
  thread_local std::vector<size_t> pending;
  thread_local std::vector<Slice> user_keys;
  thread_local std::unique_ptr<bool[]> may;  // the filter's answers (vector<bool> has no data())
  thread_local size_t may_capacity = 0;
  pending.clear();
  for (size_t i = 0; i < n; ++i) {
    results[i] = LookupResult();
    if (targets[i].size() < kInternalKeyTrailerBytes) {
      results[i].status = Status::InvalidArgument("MultiGet target " + std::to_string(i) + " of " +
                                                  std::to_string(targets[i].size()) +
                                                  " bytes is not an internal key (at least 8 bytes)");
    } else {
      pending.push_back(i);
    }
  }
  auto fail_pending = [&](const Status& s) {
    for (size_t i : pending) results[i].status = s;
  };
  std::shared_ptr<const FilterBlockReader> filter;
  Status s = LoadFilter(&filter);
  if (!s.ok()) return fail_pending(s);
  if (filter && !pending.empty()) {
    user_keys.resize(pending.size());
    for (size_t j = 0; j < pending.size(); ++j) user_keys[j] = ExtractUserKey(targets[pending[j]]);
    if (may_capacity < pending.size()) {
      may_capacity = pending.size();
      may.reset(new bool[may_capacity]);
    }
    filter->KeysMayMatch(user_keys.data(), user_keys.size(), may.get());
    Bump(counters_->filter_checks, pending.size());
    size_t kept = 0;
    for (size_t j = 0; j < pending.size(); ++j) {
      results[pending[j]].filter = may[j] ? LookupResult::Filter::kPositive : LookupResult::Filter::kNegative;
      if (may[j]) pending[kept++] = pending[j];
    }
    Bump(counters_->filter_negatives, pending.size() - kept);
    pending.resize(kept);
  }
  if (pending.empty()) return;
  // Sorted keys visit the blocks in order, so keys sharing a block are adjacent.
  std::stable_sort(pending.begin(), pending.end(),
                   [&](size_t a, size_t b) { return CompareInternalKeys(targets[a], targets[b]) < 0; });
  std::shared_ptr<const Block> index;
  s = LoadIndex(&index);
  if (!s.ok()) return fail_pending(s);
  BlockIter index_iter(index.get());
  std::shared_ptr<const Block> shared;
  uint64_t shared_offset = 0;
  for (size_t i : pending) {
    index_iter.Seek(targets[i]);
    uint64_t fetches = 0, file_reads = 0;
    s = LookupFromIndex(&index_iter, targets[i], &shared, &shared_offset, &results[i], &fetches, &file_reads);
    if (!s.ok()) {
      results[i] = LookupResult();
      results[i].status = s;
    } else {
      CountFalsePositive(results[i], fetches, file_reads);
    }
  }
}

std::unique_ptr<TableIterator> TableReader::NewIterator() const { return std::make_unique<TableIterator>(this); }

Status TableReader::ForEachDataBlock(const std::function<Status(const BlockHandle&, const Block&)>& fn) const {
  std::shared_ptr<const Block> index;
  Status s = LoadIndex(&index);
  if (!s.ok()) return s;
  BlockIter it(index.get());
  for (it.SeekToFirst(); it.Valid(); it.Next()) {
    BlockHandle handle;
    s = DecodeIndexValue(it, &handle);
    if (!s.ok()) return s;
    std::shared_ptr<const Block> block;
    s = LoadDataBlock(handle, &block);
    if (!s.ok()) return s;
    s = fn(handle, *block);
    if (!s.ok()) return s;
  }
  return it.status();
}

std::string TableReader::DescribeFilter() const {
  std::shared_ptr<const FilterBlockReader> filter;
  if (!LoadFilter(&filter).ok() || !filter) return "";
  return filter->filter().Describe();
}

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
    status_ = table_->LoadIndex(&index_block_);
    if (!status_.ok()) return false;
    index_iter_ = std::make_unique<BlockIter>(index_block_.get());
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
  if (status_.ok()) data_iter_ = std::make_unique<BlockIter>(data_block_.get());
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
