// TableReader: opens a table (table_builder.h, format.h) from its bytes
// alone — footer → metaindex → properties → index and filter — and answers
// point lookups, batched lookups and range scans.
//
// Get (RocksDB's BlockBasedTable::Get): filter first (a negative skips the
// table), then the index (first separator >= target), then the data block
// through its hash index (SeekForGet), moving on to the next block only when
// the key's versions may continue there.
// MultiGet (§3.3): the filter probes the whole batch at once (hash every key,
// then the filter's prefetching MayContainBatch), then the surviving keys,
// in sorted order, are grouped by data block: consecutive keys landing in the
// same block share one fetch of it, and the distinct blocks are looked up in
// the cache as one BlockCache::LookupBatch, so their cache misses overlap.
//
// The reader keeps the index and filter blocks it read at open for its
// lifetime (pinned); with a BlockCache they also sit in the cache as pinned
// entries (charged to its budget, never evicted, erased when the reader
// closes), so lookups reach them without a cache lookup. Data blocks go
// through the cache (keyed by this table's file id and the block offset);
// without a cache they are read from the file on every use. Every block read is
// checksum-verified; any inconsistency is a Corruption naming the file and
// the block (kind and offset). A TableReader is safe to use from several
// threads at once.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "common/slice.h"
#include "common/status.h"
#include "engine/table/block.h"
#include "engine/table/format.h"
#include "engine/table/table_properties.h"
#include "engine/util/file.h"

namespace filterlab {
class FilterPolicy;
}

namespace filterlab::engine {

class BlockCache;
class FilterBlockReader;
class PrefixExtractor;
class RangeFilterBlockReader;

struct TableReaderOptions {
  // Shared cache for data, index and filter blocks; null = no cache. It must
  // outlive the reader: the reader's index and filter are pinned in it, and
  // the reader's destructor erases them.
  BlockCache* block_cache = nullptr;
  // The prefix extractor reads use now (the DB's Options::prefix_extractor).
  // A table uses its filter's prefix entries only when it was written under
  // this same extractor (RocksDB's rule: a table written under another
  // extractor does not use its prefix entries; its whole keys still serve).
  std::shared_ptr<const PrefixExtractor> prefix_extractor;
};

// What a Seek may return, as the table filters see it: user keys from `lo`
// (inclusive), below `hi` when there is one, and, when prefix_extractor is
// set, only keys whose prefix under that extractor is `prefix`. Built by the
// DB iterator (db_iter.cc) from the read options; the views must outlive
// the seek.
struct SeekQuery {
  Slice lo;
  const Slice* hi = nullptr;
  const PrefixExtractor* prefix_extractor = nullptr;
  Slice prefix;
};

// The result of one point lookup for internal key `target` =
// (user_key, snapshot, kValueTypeForSeek).
struct LookupResult {
  Status status;  // IOError/Corruption for this key; OK otherwise
  // The newest entry of user_key with sequence <= snapshot exists; its
  // internal key (type and sequence) and value follow.
  bool found = false;
  std::string internal_key;
  std::string value;
  // What the table's full filter said about user_key (kNotChecked when the
  // table has no filter or the lookup failed first): the DB's per-level
  // filter statistics (checked, useful = negative, positive, true positive =
  // positive and found) come from this.
  enum class Filter : uint8_t { kNotChecked, kNegative, kPositive };
  Filter filter = Filter::kNotChecked;

  // Back to the state of a fresh LookupResult, keeping the strings'
  // capacity (a result reused across lookups allocates nothing once grown).
  void Reset() {
    status = Status::OK();
    found = false;
    internal_key.clear();
    value.clear();
    filter = Filter::kNotChecked;
  }
};

// Counters of the reader's work since it was opened (relaxed per-thread-slot
// counters inside, engine/util/thread_slot.h).
// A "fetch" obtains a block from the block cache or, on a miss (or without a
// cache), by a "read" from the file: with direct reads a read is a storage
// read. Read bytes are the blocks' stored sizes with their trailers.
struct TableReaderStats {
  uint64_t filter_checks = 0;       // keys probed in the filter
  uint64_t filter_negatives = 0;    // ... answered "absent" (index and data skipped)
  uint64_t data_block_fetches = 0;  // data blocks obtained (from the cache or the file)
  uint64_t data_block_reads = 0;    // ... of which read from the file
  uint64_t data_bytes_read = 0;
  // Index and filter blocks are pinned (read once, at open).
  uint64_t index_reads = 0, index_bytes_read = 0;
  uint64_t filter_reads = 0, filter_bytes_read = 0;
  // Data blocks fetched / read by point lookups that the filter let through
  // but whose key the table did not hold: what the filter's false positives
  // cost (lookups in tables without a filter are not counted).
  uint64_t fp_data_block_fetches = 0;
  uint64_t fp_data_block_reads = 0;
  uint64_t hash_lookups = 0;     // SeekForGet calls on blocks with a hash index
  uint64_t hash_collisions = 0;  // ... that fell back to binary search (bucket 254)

  // Adds every counter of `o` (totals over tables).
  void Add(const TableReaderStats& o);
};

class TableIterator;

class TableReader {
 public:
  static Status Open(const TableReaderOptions& options, std::unique_ptr<RandomAccessFile> file,
                     std::unique_ptr<TableReader>* out);
  ~TableReader();

  // Looks up `target`, an internal key (see LookupResult). Returns result->status.
  Status Get(const Slice& target, LookupResult* result) const;
  // results[i] = the answer of Get(targets[i]), computed as a batch.
  void MultiGet(const Slice* targets, size_t n, LookupResult* results) const;
  // A scan over all entries; the reader must outlive it.
  std::unique_ptr<TableIterator> NewIterator() const;
  // What this table's filters say about the keys `query` may return: the
  // prefix entries of the point filter (for a query with a prefix of this
  // table's extractor) and the range filter (for a query with an upper
  // end), the prefix first. Each answer is kNegative (no such key here: a
  // seek may skip the table without reading its index or data), kPositive
  // (maybe) or kNotChecked (no filter here can answer).
  struct SeekFilterAnswer {
    LookupResult::Filter prefix = LookupResult::Filter::kNotChecked;
    LookupResult::Filter range = LookupResult::Filter::kNotChecked;
    // kNegative if either said so, kPositive if one was asked, else kNotChecked.
    LookupResult::Filter combined() const {
      if (prefix == LookupResult::Filter::kNegative || range == LookupResult::Filter::kNegative) {
        return LookupResult::Filter::kNegative;
      }
      if (prefix == LookupResult::Filter::kPositive || range == LookupResult::Filter::kPositive) {
        return LookupResult::Filter::kPositive;
      }
      return LookupResult::Filter::kNotChecked;
    }
  };
  SeekFilterAnswer SeekMayMatch(const SeekQuery& query) const;

  const TableProperties& properties() const { return props_; }
  const Footer& footer() const { return footer_; }
  const std::string& file_name() const { return file_->name(); }
  uint64_t file_size() const { return file_->Size(); }
  bool has_filter() const { return !props_.filter_spec.empty(); }
  // The filter answers point lookups (whole keys, or prefixes of the current extractor).
  bool has_point_filter() const { return point_filter_ != nullptr; }
  TableReaderStats stats() const;

  // For the tools: every data block in order, with its handle.
  Status ForEachDataBlock(const std::function<Status(const BlockHandle&, const Block&)>& fn) const;
  // The filter's layout description ("" without a filter).
  std::string DescribeFilter() const;

 private:
  friend class TableIterator;
  struct Counters;

  TableReader(const TableReaderOptions& options, std::unique_ptr<RandomAccessFile> file);
  // Open's steps (ReadMeta runs the rest in order).
  Status ReadMeta();
  Status ReadFooter();
  Status ReadMetaindex(BlockHandle* props_handle, bool* have_filter, bool* have_range_filter);
  Status ReadProperties(const BlockHandle& props_handle, bool have_filter, bool have_range_filter);
  Status ReadRangeFilterBlock(std::shared_ptr<const RangeFilterBlockReader>* out) const;
  Status ReadIndexAndFilter(bool have_filter, bool have_range_filter);
  void ChooseFilterUse();
  // Probes point_filter_ for a user key; false = absent. *checked says
  // whether the filter could answer (a prefix filter cannot for a key
  // outside its extractor's domain).
  bool PointFilterMayMatch(const Slice& user_key, bool* checked) const;
  Status ReadFilterBlock(std::shared_ptr<const FilterBlockReader>* out) const;
  // *read (may be null) says whether the block came from the file.
  Status LoadDataBlock(const BlockHandle& handle, std::shared_ptr<const Block>* out, bool* read = nullptr) const;
  // LoadDataBlock's miss path: reads the block from the file and caches it.
  Status ReadDataBlock(const BlockHandle& handle, std::shared_ptr<const Block>* out) const;
  Status ReadAndOpenBlock(BlockKind kind, const BlockHandle& handle, std::shared_ptr<const Block>* out) const;
  Status DecodeIndexValue(const BlockIter& index, BlockHandle* handle) const;
  // Looks up `target` starting at the block the index iterator points to.
  // `shared` (may be null) offers a block already fetched for this batch and
  // receives the first block this lookup used.
  // *file_reads counts the data blocks it read from the file.
  Status LookupFromIndex(BlockIter* index, const Slice& target, std::shared_ptr<const Block>* shared,
                         uint64_t* shared_offset, LookupResult* result, uint64_t* fetches, uint64_t* file_reads) const;
  // MultiGet's steps, in order, on the calling thread's scratch arrays
  // (table_reader.cc): check the targets, probe the filter for the batch,
  // 1. search the index for every key, 2. fetch each distinct first data
  // block once, 3. look every key up from its block.
  struct MultiGetScratch;
  void MultiGetCheckTargets(const Slice* targets, size_t n, LookupResult* results, MultiGetScratch* scratch) const;
  void MultiGetFilter(const Slice* targets, LookupResult* results, MultiGetScratch* scratch) const;
  bool MultiGetSearchIndex(const Slice* targets, BlockIter* index, MultiGetScratch* scratch) const;
  void MultiGetFetchBlocks(const Slice* targets, BlockIter* index, MultiGetScratch* scratch) const;
  void MultiGetLookups(const Slice* targets, BlockIter* index, LookupResult* results, MultiGetScratch* scratch) const;
  // Counts what a lookup the filter passed cost when the table lacked its key.
  void CountFalsePositive(const LookupResult& result, uint64_t fetches, uint64_t file_reads) const;

  const TableReaderOptions options_;
  const std::unique_ptr<RandomAccessFile> file_;
  uint64_t file_id_ = 0;  // cache key prefix
  uint64_t blocks_end_ = 0;
  Footer footer_;
  TableProperties props_;
  BlockHandle filter_handle_;
  BlockHandle range_filter_handle_;  // size 0: no range filter
  std::shared_ptr<const FilterPolicy> filter_policy_;
  std::shared_ptr<const PrefixExtractor> table_prefix_;  // the extractor of the filter's prefixes, if any
  // Pinned (see above).
  std::shared_ptr<const Block> index_block_;
  std::shared_ptr<const FilterBlockReader> filter_;
  std::shared_ptr<const RangeFilterBlockReader> range_filter_;  // pinned like filter_; null without one
  // How lookups use filter_ (ChooseFilterUse): point_filter_ is filter_
  // when it answers point lookups (null otherwise), probed with the whole
  // key, or with its prefix under point_prefix_ when that is set (a filter
  // of prefixes only); prefix_filter_ is the extractor of the filter's
  // prefix entries when reads may use them (the current one), else null.
  const FilterBlockReader* point_filter_ = nullptr;
  const PrefixExtractor* point_prefix_ = nullptr;
  std::shared_ptr<const PrefixExtractor> prefix_filter_;
  std::unique_ptr<Counters> counters_;
};

// Iterates over a table's entries in internal-key order.
class TableIterator {
 public:
  explicit TableIterator(const TableReader* table);
  ~TableIterator();

  bool Valid() const;
  // First error met (the iterator is then invalid); OK at a clean end.
  Status status() const;
  Slice key() const;
  Slice value() const;

  void SeekToFirst();
  // First entry with internal key >= target.
  void Seek(const Slice& target);
  void Next();

 private:
  bool InitIndex();
  void LoadBlockAtIndex();
  void SkipExhaustedBlocks();

  const TableReader* table_;
  Status status_;
  // In place, not on the heap: a seek that loads a block allocates nothing.
  std::shared_ptr<const Block> index_block_;
  std::optional<BlockIter> index_iter_;
  std::shared_ptr<const Block> data_block_;
  std::optional<BlockIter> data_iter_;
};

}  // namespace filterlab::engine
