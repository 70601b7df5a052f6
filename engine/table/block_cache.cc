#include "engine/table/block_cache.h"

#include <algorithm>

#include "hashing/remix.h"

namespace filterlab::engine {

size_t BlockCache::KeyHash::operator()(const BlockCacheKey& k) const {
  return static_cast<size_t>(Mix64(k.file_id * kGoldenRatio64 ^ k.offset));
}

BlockCache::BlockCache(size_t capacity_bytes, int num_shard_bits)
    : capacity_(capacity_bytes),
      num_shard_bits_(std::clamp(num_shard_bits, 0, 10)),
      shard_capacity_(capacity_bytes >> num_shard_bits_),
      shards_(size_t{1} << num_shard_bits_) {}

BlockCache::Shard& BlockCache::ShardFor(const BlockCacheKey& key) {
  if (num_shard_bits_ == 0) return shards_[0];
  // Top bits: the map inside the shard uses the low ones.
  return shards_[KeyHash()(key) >> (64 - num_shard_bits_)];
}

std::shared_ptr<const void> BlockCache::Lookup(const BlockCacheKey& key) {
  Shard& shard = ShardFor(key);
  std::lock_guard<std::mutex> lock(shard.mu);
  auto it = shard.map.find(key);
  if (it == shard.map.end()) {
    misses_.fetch_add(1, std::memory_order_relaxed);
    return nullptr;
  }
  hits_.fetch_add(1, std::memory_order_relaxed);
  shard.lru.splice(shard.lru.begin(), shard.lru, it->second);
  return it->second->value;
}

void BlockCache::EvictOverBudget(Shard* shard, size_t budget) {
  while (shard->usage > budget && !shard->lru.empty()) {
    const Entry& victim = shard->lru.back();
    shard->usage -= victim.charge;
    shard->map.erase(victim.key);
    shard->lru.pop_back();
  }
}

void BlockCache::Insert(const BlockCacheKey& key, std::shared_ptr<const void> value, size_t charge) {
  Shard& shard = ShardFor(key);
  std::shared_ptr<const void> replaced;  // released after the lock
  std::lock_guard<std::mutex> lock(shard.mu);
  auto it = shard.map.find(key);
  if (it != shard.map.end()) {
    shard.usage -= it->second->charge;
    replaced = std::move(it->second->value);
    shard.lru.erase(it->second);
    shard.map.erase(it);
  }
  shard.lru.push_front(Entry{key, std::move(value), charge});
  shard.map.emplace(key, shard.lru.begin());
  shard.usage += charge;
  EvictOverBudget(&shard, shard_capacity_);
}

void BlockCache::Erase(const BlockCacheKey& key) {
  Shard& shard = ShardFor(key);
  std::lock_guard<std::mutex> lock(shard.mu);
  auto it = shard.map.find(key);
  if (it == shard.map.end()) return;
  shard.usage -= it->second->charge;
  shard.lru.erase(it->second);
  shard.map.erase(it);
}

size_t BlockCache::usage() const {
  size_t total = 0;
  for (const Shard& s : shards_) {
    std::lock_guard<std::mutex> lock(s.mu);
    total += s.usage;
  }
  return total;
}

size_t BlockCache::num_entries() const {
  size_t total = 0;
  for (const Shard& s : shards_) {
    std::lock_guard<std::mutex> lock(s.mu);
    total += s.map.size();
  }
  return total;
}

}  // namespace filterlab::engine
