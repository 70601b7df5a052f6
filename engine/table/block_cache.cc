#include "engine/table/block_cache.h"

#include <algorithm>
#include <cstdint>
#include <utility>

#include "hashing/remix.h"

namespace filterlab::engine {

namespace {

// A shard starts this small (16 slots of 64 bytes) and doubles as it fills,
// so an oversized budget costs no memory until blocks arrive.
constexpr size_t kInitialSlots = 16;

// Grow before the insert that would take the load past 5/8. Linear probing
// inspects (1 + 1/(1-a))/2 slots on a hit and (1 + 1/(1-a)^2)/2 on a miss
// (Knuth); at a = 5/8 that is 1.8 and 4.1, and right after doubling 1.2 and
// 1.5. Higher loads save memory but lengthen the runs every probe walks.
bool OverLoad(size_t count, size_t slots) { return count * 8 > slots * 5; }

}  // namespace

uint64_t BlockCache::Hash(const BlockCacheKey& key) { return Mix64(key.file_id * kGoldenRatio64 ^ key.offset); }

int BlockCache::AutoShardBits(size_t capacity_bytes) {
  int bits = 0;
  while (bits < 4 && (capacity_bytes >> (bits + 1)) >= kMinAutoShardBytes) ++bits;
  return bits;
}

BlockCache::BlockCache(size_t capacity_bytes, int num_shard_bits)
    : capacity_(capacity_bytes),
      num_shard_bits_(num_shard_bits == kAutoShardBits ? AutoShardBits(capacity_bytes)
                                                       : std::clamp(num_shard_bits, 0, 10)),
      shard_shift_(63 - num_shard_bits_),
      shard_capacity_(capacity_bytes >> num_shard_bits_),
      shards_(size_t{1} << num_shard_bits_) {
  // The shard takes the hash's top bits, the slot its low ones: they stay
  // independent while a shard has fewer than 2^(64 - num_shard_bits) slots.
  for (Shard& s : shards_) {
    s.slots = std::make_unique<Slot[]>(kInitialSlots);
    s.mask = kInitialSlots - 1;
    PublishView(&s);
  }
}

size_t BlockCache::Find(const Shard& shard, const BlockCacheKey& key, uint64_t hash) {
  // Terminates: the load stays <= 5/8, so an empty slot always exists.
  for (size_t i = hash & shard.mask;; i = (i + 1) & shard.mask) {
    const Slot& slot = shard.slots[i];
    if (!slot.used || slot.key == key) return i;
  }
}

BlockCache::Slot* BlockCache::FindAndCount(Shard* shard, const BlockCacheKey& key, uint64_t hash) {
  Slot& slot = shard->slots[Find(*shard, key, hash)];
  if (!slot.used) {
    shard->misses.store(shard->misses.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
    return nullptr;
  }
  shard->hits.store(shard->hits.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
  // Written only when it changes: a slot hit again and again (by readers on
  // several cores) then stays a read-only line, shared by their caches.
  if (slot.clock != kMaxClock) slot.clock = kMaxClock;
  return &slot;
}

std::shared_ptr<const void> BlockCache::Lookup(const BlockCacheKey& key) {
  const uint64_t hash = Hash(key);
  Shard& shard = ShardFor(hash);
  std::lock_guard<SpinMutex> lock(shard.mu);
  const Slot* slot = FindAndCount(&shard, key, hash);
  if (slot == nullptr) return nullptr;
  if (slot->hint.first != nullptr) __builtin_prefetch(slot->hint.first);
  if (slot->hint.second != nullptr) __builtin_prefetch(slot->hint.second);
  return slot->value;
}

void BlockCache::LookupBatch(const BlockCacheKey* keys, size_t n, std::shared_ptr<const void>* out) {
  constexpr size_t kChunk = 32;
  uint64_t hashes[kChunk];
  for (size_t base = 0; base < n; base += kChunk) {
    const size_t m = std::min(kChunk, n - base);
    // 1. Home slots, prefetched without the lock.
    for (size_t i = 0; i < m; ++i) {
      hashes[i] = Hash(keys[base + i]);
      const Shard& shard = ShardFor(hashes[i]);
      const Slot* slots = shard.view_slots.load(std::memory_order_relaxed);
      __builtin_prefetch(&slots[hashes[i] & shard.view_mask.load(std::memory_order_relaxed)]);
    }
    // 2. The values' first lines and reference counts.
    for (size_t i = 0; i < m; ++i) {
      Shard& shard = ShardFor(hashes[i]);
      std::lock_guard<SpinMutex> lock(shard.mu);
      const Slot& slot = shard.slots[Find(shard, keys[base + i], hashes[i])];
      if (!slot.used) continue;
      const char* value = static_cast<const char*>(slot.value.get());
      __builtin_prefetch(value);
      __builtin_prefetch(reinterpret_cast<const void*>(reinterpret_cast<uintptr_t>(value) - 16));
      if (slot.hint.first != nullptr) __builtin_prefetch(slot.hint.first);
      if (slot.hint.second != nullptr) __builtin_prefetch(slot.hint.second);
    }
    // 3. The lookups.
    for (size_t i = 0; i < m; ++i) {
      Shard& shard = ShardFor(hashes[i]);
      std::lock_guard<SpinMutex> lock(shard.mu);
      const Slot* slot = FindAndCount(&shard, keys[base + i], hashes[i]);
      if (slot == nullptr) {
        out[base + i].reset();
      } else {
        out[base + i] = slot->value;
      }
    }
  }
}

void BlockCache::RemoveAt(Shard* shard, size_t i, Victims* victims) {
  Slot* slots = shard->slots.get();
  const size_t mask = shard->mask;
  shard->usage -= slots[i].charge;
  --shard->count;
  if (slots[i].pinned) --shard->pinned;
  victims->push_back(std::move(slots[i].value));
  // Backward-shift deletion: walk the run after the hole; an entry whose
  // home slot is not cyclically within (hole, its position] would be cut off
  // from its home by the hole, so it moves into the hole, which moves on.
  for (size_t j = (i + 1) & mask; slots[j].used; j = (j + 1) & mask) {
    const size_t home = Hash(slots[j].key) & mask;
    const bool reachable = i <= j ? (i < home && home <= j) : (i < home || home <= j);
    if (reachable) continue;
    slots[i] = std::move(slots[j]);
    i = j;
  }
  slots[i].used = false;
  slots[i].pinned = false;
  slots[i].value.reset();  // moved-from already; keep empty slots empty
  slots[i].hint = {};
}

void BlockCache::MakeRoom(Shard* shard, size_t charge, size_t budget, Victims* victims) {
  // Terminates: each step decrements a clock (bounded by kMaxClock per
  // entry), evicts an entry, or passes an empty or pinned slot (fewer than
  // one sweep of those in a row while an unpinned entry remains).
  while (shard->usage + charge > budget && shard->count > shard->pinned) {
    Slot& slot = shard->slots[shard->hand];
    if (slot.pinned) {
      shard->hand = (shard->hand + 1) & shard->mask;
      continue;
    }
    if (slot.used && slot.clock == 0) {
      // The hand stays: backward shift may have moved an entry into this slot.
      RemoveAt(shard, shard->hand, victims);
      continue;
    }
    if (slot.used) --slot.clock;
    shard->hand = (shard->hand + 1) & shard->mask;
  }
}

void BlockCache::Grow(Shard* shard) {
  const size_t old_slots = shard->mask + 1;
  std::unique_ptr<Slot[]> old = std::exchange(shard->slots, std::make_unique<Slot[]>(old_slots * 2));
  shard->mask = old_slots * 2 - 1;
  shard->hand = 0;  // positions mean nothing after a rehash; clocks carry over
  PublishView(shard);
  for (size_t i = 0; i < old_slots; ++i) {
    if (!old[i].used) continue;
    size_t j = Hash(old[i].key) & shard->mask;
    while (shard->slots[j].used) j = (j + 1) & shard->mask;
    shard->slots[j] = std::move(old[i]);
  }
}

void BlockCache::Insert(const BlockCacheKey& key, std::shared_ptr<const void> value, size_t charge, bool pinned,
                        BlockCacheHint hint) {
  const uint64_t hash = Hash(key);
  Shard& shard = ShardFor(hash);
  // Values leaving the cache are released after the lock: freeing a block
  // (and whatever it owns) need not hold up other readers of the shard.
  Victims victims;
  std::lock_guard<SpinMutex> lock(shard.mu);
  size_t i = Find(shard, key, hash);
  if (shard.slots[i].used) RemoveAt(&shard, i, &victims);
  if (charge > shard_capacity_) {
    victims.push_back(std::move(value));
    return;
  }
  MakeRoom(&shard, charge, shard_capacity_, &victims);
  if (!pinned && shard.usage + charge > shard_capacity_) {
    // Only pinned entries are left and they fill the budget.
    victims.push_back(std::move(value));
    return;
  }
  if (OverLoad(shard.count + 1, shard.mask + 1)) Grow(&shard);
  // Eviction and growth move slots: probe again.
  i = Find(shard, key, hash);
  Slot& slot = shard.slots[i];
  slot.key = key;
  slot.value = std::move(value);
  slot.hint = hint;
  slot.charge = charge;
  slot.clock = 1;
  slot.used = true;
  slot.pinned = pinned;
  ++shard.count;
  if (pinned) ++shard.pinned;
  shard.usage += charge;
}

void BlockCache::Erase(const BlockCacheKey& key) {
  const uint64_t hash = Hash(key);
  Shard& shard = ShardFor(hash);
  Victims victims;
  std::lock_guard<SpinMutex> lock(shard.mu);
  const size_t i = Find(shard, key, hash);
  if (shard.slots[i].used) RemoveAt(&shard, i, &victims);
}

uint64_t BlockCache::hits() const {
  uint64_t total = 0;
  for (const Shard& s : shards_) total += s.hits.load(std::memory_order_relaxed);
  return total;
}

uint64_t BlockCache::misses() const {
  uint64_t total = 0;
  for (const Shard& s : shards_) total += s.misses.load(std::memory_order_relaxed);
  return total;
}

size_t BlockCache::usage() const {
  size_t total = 0;
  for (const Shard& s : shards_) {
    std::lock_guard<SpinMutex> lock(s.mu);
    total += s.usage;
  }
  return total;
}

size_t BlockCache::num_entries() const {
  size_t total = 0;
  for (const Shard& s : shards_) {
    std::lock_guard<SpinMutex> lock(s.mu);
    total += s.count;
  }
  return total;
}

}  // namespace filterlab::engine
