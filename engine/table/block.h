// Block: the reader side of block_builder.h's format, and BlockIter, its
// iterator. Opening a block validates everything that later reads index by
// (footer bits, restart array bounds and order, hash index trailer), so the
// iterator only has to bounds-check the entries it decodes; any bad byte
// becomes a Corruption status naming the block, never a crash.
//
// Seek (range seeks, and point lookups without a hash index or on a
// collision) binary-searches the restart array for the last restart key <
// target (stopping early on equality), then scans forward to the first key
// >= target, having asked for the interval's first 1 KiB of lines at once. SeekForGet (RocksDB's
// DataBlockIter::SeekForGet) is the point-lookup path for data blocks with a hash index: it scans only the restart
// interval the index names.
//
// Blocks with many restarts (a table's index block: one restart per entry,
// ~13k entries in a 52 MB table) can carry a search aid built once at open
// (BuildSearchPrefixes): each restart key's first 8 bytes after the prefix
// every restart key shares (of the user key, for internal keys), big-endian,
// in one contiguous array. Seek then narrows the binary search to the
// restarts whose 8-byte prefix equals the target's by comparing integers in
// that array (8 per cache line, its upper levels staying in cache across
// lookups) and decodes and compares whole keys only within that range
// (usually one restart). Without it every probe of the binary search reads
// a restart offset and then decodes a key from another line of the block.
// The aid lives only in memory: the stored format is unchanged.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "common/slice.h"
#include "common/status.h"
#include "engine/table/data_block_hash_index.h"

namespace filterlab::engine {

// How keys in a block are ordered: data blocks hold internal keys
// (internal_key.h); other blocks may hold plain bytewise keys.
enum class KeyOrder { kBytewise, kInternal };

class Block {
 public:
  // Takes ownership of the bytes. `name` (e.g. "data block at offset 4096 of
  // table 000012.sst") prefixes every error about this block.
  static Status Open(std::string contents, std::string name, KeyOrder order, std::unique_ptr<Block>* out);
  // Open for a shared block (the block cache's): the block and its shared_ptr
  // control block share one allocation, so a cache hit's reference-count
  // increment and the reader's first look at the block touch one line, not
  // two. `prepare` (may be null) runs on the block before it becomes const
  // (e.g. BuildSearchPrefixes); its error is returned.
  static Status OpenShared(std::string contents, std::string name, KeyOrder order, Status (*prepare)(Block*),
                           std::shared_ptr<const Block>* out);

  const std::string& name() const { return name_; }
  KeyOrder order() const { return order_; }
  size_t size() const { return contents_.size(); }
  // The raw block bytes (for tools that inspect the layout).
  Slice contents() const { return Slice(contents_); }
  uint32_t num_restarts() const { return num_restarts_; }
  bool has_hash_index() const { return hash_index_.num_buckets() != 0; }
  const DataBlockHashIndex& hash_index() const { return hash_index_; }
  // Bytes of the entries region (before the restart array).
  size_t entries_size() const { return restarts_offset_; }
  uint32_t RestartOffset(uint32_t i) const;
  // Builds the search aid (see the top of this file); an empty block gets
  // none. Corruption if a restart key does not decode; the block is then
  // unchanged.
  Status BuildSearchPrefixes();
  bool has_search_prefixes() const { return !restart_prefixes_.empty(); }
  // Bytes of memory the block holds: its contents and the search aid.
  size_t memory_usage() const { return contents_.size() + restart_prefixes_.size() * sizeof(uint64_t); }
  // The lines a seek reads first: the restart array (binary search) and
  // the first entry (restart 0's key); block cache hits prefetch them.
  const char* restart_array() const { return contents_.data() + restarts_offset_; }
  const char* entries() const { return contents_.data(); }
  // Asks the CPU to start loading every line of the block, so a batch of
  // lookups can fetch its blocks before searching any and their cache
  // misses overlap. (A point lookup reads the restart array, a few restart
  // keys and then scans up to a restart interval of entries: much of a
  // 4 KiB block, and in an order the hardware prefetcher only partly
  // follows.)
  void Prefetch() const {
    const char* p = contents_.data();
    for (size_t off = 0; off < contents_.size(); off += 64) __builtin_prefetch(p + off);
  }

 private:
  friend class BlockIter;
  struct SharedAlloc;  // makes the private constructor reachable from make_shared
  Block(std::string contents, std::string name, KeyOrder order)
      : contents_(std::move(contents)), order_(order), name_(std::move(name)) {}
  Status Parse();
  // The restarts a seek for `target` must still search with whole keys:
  // every restart before *left has a key < target, every one after *right
  // a key > target (*left <= *right). Without the aid: [0, num_restarts-1].
  void SearchRange(const Slice& target, uint32_t* left, uint32_t* right) const;

  // What every seek reads comes first (next to the control block of OpenShared).
  std::string contents_;
  size_t restarts_offset_ = 0;  // start of the restart array = end of entries
  uint32_t num_restarts_ = 0;
  KeyOrder order_;
  // The search aid: restart_prefixes_[i] = the 8 bytes of restart key i's
  // (user) key after its first common_prefix_.size() bytes, zero-padded,
  // big-endian; common_prefix_ = those first bytes, shared by every restart
  // key. Empty without the aid.
  std::vector<uint64_t> restart_prefixes_;
  DataBlockHashIndex hash_index_;
  std::string name_;
  std::string common_prefix_;
};

class BlockIter {
 public:
  // What the last SeekForGet did with the hash index (for statistics such as
  // the fallback ratio of RocksDB's 2018 hash-index blog post).
  enum class HashOutcome { kNoIndex, kCollision, kNoEntry, kInterval };

  // The block must outlive the iterator.
  explicit BlockIter(const Block* block) : block_(block) {}
  // The current key may point into the iterator itself.
  BlockIter(const BlockIter&) = delete;
  BlockIter& operator=(const BlockIter&) = delete;

  bool Valid() const { return valid_; }
  // Corruption found while reading; once set the iterator stays invalid.
  const Status& status() const { return status_; }
  Slice key() const { return Slice(key_data_, key_size_); }
  Slice value() const { return value_; }

  void SeekToFirst();
  void Next();
  // First entry with key >= target (binary search over restarts).
  void Seek(const Slice& target);
  // Seek's binary search for a batch: out[i] = the restart point where
  // Seek(targets[i]) would start its scan. The searches run in lockstep:
  // each round prefetches every unfinished search's next restart key before
  // comparing any, so their cache misses overlap instead of queueing (a
  // lone binary search over a large index block is a chain of dependent
  // misses). False (status set) if a restart key is corrupt.
  bool FindRestarts(const Slice* targets, size_t n, uint32_t* out);
  // Seek's scan: the first entry >= target from restart point `restart`
  // (from FindRestarts for this target).
  void SeekFromRestart(uint32_t restart, const Slice& target);
  // Point lookup for an internal-key target (RocksDB's SeekForGet). Returns false when
  // the key is certainly not in this block nor in any later block; true
  // otherwise, positioned at the first entry >= target (or invalid at the
  // end of the block: the caller goes on to the next block).
  bool SeekForGet(const Slice& target);
  HashOutcome last_hash_outcome() const { return last_hash_outcome_; }

 private:
  friend class Block;  // BuildSearchPrefixes decodes restart keys
  int Compare(const Slice& a, const Slice& b) const;
  void SeekToRestartPoint(uint32_t index);
  // Prefetches the first lines (up to 1 KiB) of restart interval `index`,
  // which a scan from its restart point reads in order: their misses then
  // overlap rather than follow one another as each entry is decoded.
  void PrefetchInterval(uint32_t index) const;
  bool ParseNextEntry();
  // The current key becomes the previous key's first `shared` bytes ‖ p[0, non_shared).
  void AssembleKey(size_t shared, const char* p, size_t non_shared);
  bool DecodeRestartKey(uint32_t index, Slice* key);
  void SetCorruption(const std::string& what);

  const Block* block_;
  bool valid_ = false;
  Status status_;
  // The current key: in the block itself when the entry stores it whole
  // (every restart entry: no copy), else assembled in key_inline_ (or
  // key_heap_ when longer), so a lookup neither allocates nor copies keys
  // it only compares at restart points.
  const char* key_data_ = nullptr;
  size_t key_size_ = 0;
  char key_inline_[64];
  std::string key_heap_;
  Slice value_;
  size_t current_ = 0;      // offset of the current entry
  size_t next_offset_ = 0;  // offset after the current entry
  HashOutcome last_hash_outcome_ = HashOutcome::kNoIndex;
};

}  // namespace filterlab::engine
