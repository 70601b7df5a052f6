// BlockCache: a sharded LRU cache of parsed table blocks (data, index and
// filter), keyed by (file id, block offset), with a byte budget: each entry
// is charged its block's size and the least recently used entries of a shard
// are dropped once the shard is over its share of the budget.
//
// Values are shared_ptrs, so a block handed out stays alive while a reader
// uses it even if the cache evicts it meanwhile (no explicit pin/release).
// Each shard has its own mutex; the key's hash picks the shard, so threads
// reading different blocks rarely contend. Hit and miss counters are
// exposed for the tools and benchmarks.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <list>
#include <memory>
#include <mutex>
#include <unordered_map>
#include <vector>

namespace filterlab::engine {

struct BlockCacheKey {
  uint64_t file_id = 0;  // from BlockCache::NewFileId, one per opened table
  uint64_t offset = 0;   // the block's offset in that file

  bool operator==(const BlockCacheKey& o) const { return file_id == o.file_id && offset == o.offset; }
};

class BlockCache {
 public:
  // `capacity_bytes` is split evenly over 2^num_shard_bits shards (0..10).
  explicit BlockCache(size_t capacity_bytes, int num_shard_bits = 4);
  BlockCache(const BlockCache&) = delete;
  BlockCache& operator=(const BlockCache&) = delete;

  // A fresh id for each table that shares this cache, so their offsets never collide.
  uint64_t NewFileId() { return next_file_id_.fetch_add(1, std::memory_order_relaxed); }

  // The cached value or null; counts a hit or a miss and, on a hit, makes
  // the entry most recently used. The caller knows the type a key's value
  // has (one block per offset, one kind per block).
  std::shared_ptr<const void> Lookup(const BlockCacheKey& key);
  // Inserts or replaces; then evicts LRU entries of the shard while it is
  // over budget (an entry larger than the shard's budget is not kept).
  void Insert(const BlockCacheKey& key, std::shared_ptr<const void> value, size_t charge);
  void Erase(const BlockCacheKey& key);

  template <typename T>
  std::shared_ptr<const T> LookupAs(const BlockCacheKey& key) {
    return std::static_pointer_cast<const T>(Lookup(key));
  }

  uint64_t hits() const { return hits_.load(std::memory_order_relaxed); }
  uint64_t misses() const { return misses_.load(std::memory_order_relaxed); }
  size_t capacity() const { return capacity_; }
  // Sum of the charges of the entries currently cached.
  size_t usage() const;
  size_t num_entries() const;

 private:
  struct KeyHash {
    size_t operator()(const BlockCacheKey& k) const;
  };
  struct Entry {
    BlockCacheKey key;
    std::shared_ptr<const void> value;
    size_t charge;
  };
  struct Shard {
    mutable std::mutex mu;
    std::list<Entry> lru;  // front = most recently used
    std::unordered_map<BlockCacheKey, std::list<Entry>::iterator, KeyHash> map;
    size_t usage = 0;
  };

  Shard& ShardFor(const BlockCacheKey& key);
  static void EvictOverBudget(Shard* shard, size_t budget);

  const size_t capacity_;
  const int num_shard_bits_;
  const size_t shard_capacity_;
  std::vector<Shard> shards_;
  std::atomic<uint64_t> next_file_id_{1};
  std::atomic<uint64_t> hits_{0};
  std::atomic<uint64_t> misses_{0};
};

}  // namespace filterlab::engine
