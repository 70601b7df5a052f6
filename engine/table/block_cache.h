// BlockCache: a sharded CLOCK cache of parsed table blocks (data, index and
// filter), keyed by (file id, block offset), with a byte budget: each entry
// is charged its block's size, and a shard drops entries it has not used
// lately once it would go over its share of the budget.
//
// Values are shared_ptrs, so a block handed out stays alive while a reader
// uses it even if the cache evicts it meanwhile (no explicit pin/release).
// Hit and miss counters are exposed for the tools and benchmarks.
//
// Why this layout. The previous cache was the textbook LRU (unordered_map
// into a std::list) and cost ~18% of a fully cached seekrandom profile:
// a hit walked bucket array -> map node -> list node (three dependent
// DRAM misses once ~95k blocks are cached) and then spliced the list node to
// the front, which writes the neighbours' prev/next pointers (two more lines
// touched, dirtied). Here each shard is one open-addressing table of
// 64-byte slots (linear probing, power-of-two size, load <= 5/8):
//
//   slot = { key (16 B), value shared_ptr (16 B), charge (8 B), clock (1 B) }
//
// and recency is CLOCK: a hit only raises the slot's small counter, in the
// line it has just read. What a hit costs: hash (two multiplies), the
// shard's lock (one locked exchange, then a plain release store; its line
// stays in cache), the slot's line (the one DRAM miss; at load a <= 5/8
// linear probing inspects (1 + 1/(1-a))/2 <= 1.8 slots on average, and the
// next slot is the adjacent line, which the hardware prefetcher pairs), and
// the shared_ptr copy (an atomic increment on the block's control block,
// which the reader touches next anyway). A miss costs the same lines and
// ends at an empty slot. The hit/miss counters are per shard and written
// under its lock as plain relaxed stores, not a global fetch_add on a line
// all threads share.
// Measured (throwaway loop of random hits over 95k cached blocks in 16
// shards, 1 thread, busy 2-core VM, 3 interleaved rounds, median CPU ns per
// hit): 320 for the list+map LRU, 103 for this table under std::mutex, 78
// with the spin lock below. In lsmbench's seekrandom profile the rest of a
// hit is two stalls: the slot's line and the shared_ptr's refcount increment
// (the block's control block, a miss the reader would take anyway).
//
// A slot also holds up to two prefetch hints (BlockCacheHint: for a data
// block, its restart array and first entry), issued as soon as the slot is
// read, so on a hit the block's first lines load while the reference count
// is incremented rather than after it.
//
// Eviction. Each slot's clock is 0..kMaxClock: an insert starts at 1, a hit
// sets kMaxClock. When a shard needs room the hand sweeps its slots: a
// nonzero clock is decremented, a zero clock is evicted. So an entry never
// hit since insertion survives about one sweep, a hit one up to three more:
// a cheap approximation of LRU that is also somewhat scan-resistant (a
// one-off scan's blocks go before the hot index and filter blocks). Room is
// made *before* the new entry goes in, so an insert never evicts itself; an
// entry larger than the shard's whole budget is not kept and evicts nothing
// (the caller still holds its value). Deletion shifts the following run of
// the probe sequence back (no tombstones), so probes always end at the first
// empty slot and the load never creeps up with churn.
//
// Costs paid for this: 64 bytes per slot at load 5/16..5/8 is 100-200 bytes
// per cached block (the list+map design spent ~150 counting allocator headers);
// growing a shard rehashes it under its lock (amortised O(1) per insert, and
// only while the cache fills); the victim order is approximate (which of
// two equally old entries goes first depends on where the hand is). Lookups
// still take a per-shard lock: a lock-free read (HyperClockCache's idea of a
// reference count in the slot's metadata word) would need our own
// refcounted handles instead of shared_ptr, which the callers rely on. The
// lock is a test-and-set spin lock, not std::mutex: it is held for a few
// dozen instructions on the read path, and its release is a plain store
// where pthread's unlock is a second locked instruction (a full fence, which
// stops the next lookup's loads from overlapping this one's); see the
// figures above. A waiter spins briefly and then yields, so a holder
// descheduled in the middle of a rehash costs others time slices, not a
// burnt core.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

namespace filterlab::engine {

// Addresses a reader of a cached value touches first (e.g. a block's restart
// array and first entry): a hit prefetches them from the slot it has just
// read, so their loads overlap the reference-count increment on the value's
// control block instead of following it. Prefetching never faults, so a
// stale address costs only a wasted load.
struct BlockCacheHint {
  const void* first = nullptr;
  const void* second = nullptr;
};

struct BlockCacheKey {
  uint64_t file_id = 0;  // from BlockCache::NewFileId, one per opened table
  uint64_t offset = 0;   // the block's offset in that file

  bool operator==(const BlockCacheKey& o) const { return file_id == o.file_id && offset == o.offset; }
};

class BlockCache {
 public:
  // Shards are at least this large when their number is chosen for the
  // capacity: a block larger than its shard's budget is never kept, and a
  // table's filter or index block is one block (about 0.7 MB for a 64 MiB
  // table at 10 bits/key), so a small cache split 16 ways would read it
  // from storage on every lookup.
  static constexpr size_t kMinAutoShardBytes = size_t{4} << 20;
  static constexpr int kAutoShardBits = -1;
  // `capacity_bytes` is split evenly over 2^num_shard_bits shards (0..10);
  // kAutoShardBits: as many as keep shards >= kMinAutoShardBytes, at most 16
  // (16 locks keep two threads' lookups from meeting on one).
  explicit BlockCache(size_t capacity_bytes, int num_shard_bits = kAutoShardBits);
  // The shard bits kAutoShardBits resolves to for `capacity_bytes`.
  static int AutoShardBits(size_t capacity_bytes);
  BlockCache(const BlockCache&) = delete;
  BlockCache& operator=(const BlockCache&) = delete;

  // A fresh id for each table that shares this cache, so their offsets never collide.
  uint64_t NewFileId() { return next_file_id_.fetch_add(1, std::memory_order_relaxed); }

  // The cached value or null; counts a hit or a miss and, on a hit, marks
  // the entry recently used. The caller knows the type a key's value has
  // (one block per offset, one kind per block).
  std::shared_ptr<const void> Lookup(const BlockCacheKey& key);
  // Inserts or replaces. First evicts (CLOCK) until the shard has room for
  // `charge`; an entry larger than the shard's budget is not kept (and a
  // previous entry under its key is dropped). A pinned entry (a table
  // reader's index and filter, which it holds and uses without lookups) is
  // charged like any other but never evicted: only Erase removes it. While
  // pinned entries fill a shard's budget the shard keeps nothing else (a
  // pinned insert is kept even then, over the budget).
  // out[i] = Lookup(keys[i]) for i < n, with the batch's cache misses
  // overlapped. A lone Lookup stalls twice: on its slot's line, then (a hit)
  // on the value's reference count, which the copy increments with a locked
  // instruction. Here three passes run over the batch: (1) hash every key
  // and prefetch its home slot, read through a lock-free view of the shard's
  // table (a stale view after a concurrent Grow only wastes a prefetch);
  // (2) under the shard's lock find each slot (its line has arrived or is on
  // its way) and prefetch the value's first line, its hints, and the line
  // before the value, where make_shared (Block::OpenShared) puts the
  // reference count in both standard libraries we build with (elsewhere a
  // wasted prefetch); (3) the lookups proper, whose lines are now cached.
  // Passes 2 and 3 each take the shard's lock per key (an uncontended lock
  // is a locked exchange on a cached line, ~20 cycles: small next to the
  // ~2 x 100 ns of misses a key's lookup stops waiting for). Counts hits and
  // misses as Lookup does, once per key.
  void LookupBatch(const BlockCacheKey* keys, size_t n, std::shared_ptr<const void>* out);
  void Insert(const BlockCacheKey& key, std::shared_ptr<const void> value, size_t charge, bool pinned = false,
              BlockCacheHint hint = {});
  void Erase(const BlockCacheKey& key);

  template <typename T>
  std::shared_ptr<const T> LookupAs(const BlockCacheKey& key) {
    return std::static_pointer_cast<const T>(Lookup(key));
  }

  uint64_t hits() const;
  uint64_t misses() const;
  size_t capacity() const { return capacity_; }
  int num_shard_bits() const { return num_shard_bits_; }
  // Sum of the charges of the entries currently cached.
  size_t usage() const;
  size_t num_entries() const;

 private:
  static constexpr uint8_t kMaxClock = 3;

  // Test-and-set lock (Lockable, so std::lock_guard works); see the header comment.
  class SpinMutex {
   public:
    void lock() {
      while (locked_.exchange(true, std::memory_order_acquire)) {
        // Wait on a plain load (no line ping-pong), pausing, then yielding.
        for (int spins = 0; locked_.load(std::memory_order_relaxed); ++spins) {
          if (spins < 64) {
            CpuRelax();
          } else {
            std::this_thread::yield();
          }
        }
      }
    }
    void unlock() { locked_.store(false, std::memory_order_release); }

   private:
    static void CpuRelax() {
#if defined(__x86_64__) || defined(__i386__)
      __builtin_ia32_pause();
#endif
    }
    std::atomic<bool> locked_{false};
  };

  // One cache line per slot, so a probe touches exactly one line.
  struct alignas(64) Slot {
    BlockCacheKey key;
    std::shared_ptr<const void> value;
    BlockCacheHint hint;  // prefetched on a hit
    size_t charge = 0;
    uint8_t clock = 0;  // CLOCK counter, meaningful while `used`
    bool used = false;
    bool pinned = false;  // never evicted (Insert)
  };
  static_assert(sizeof(Slot) == 64, "a probe must touch exactly one line");
  struct alignas(64) Shard {
    mutable SpinMutex mu;
    std::unique_ptr<Slot[]> slots;
    size_t mask = 0;    // slot count - 1 (a power of two minus one)
    size_t count = 0;   // used slots
    size_t pinned = 0;  // ... of which pinned
    size_t usage = 0;   // sum of their charges
    size_t hand = 0;    // CLOCK hand: the next slot to inspect
    // slots.get() and mask, for LookupBatch's lock-free prefetch; stored
    // (relaxed) under `mu` whenever the table is replaced.
    std::atomic<Slot*> view_slots{nullptr};
    std::atomic<size_t> view_mask{0};
    // Written only under `mu`, read lock-free by hits()/misses().
    std::atomic<uint64_t> hits{0};
    std::atomic<uint64_t> misses{0};
  };
  using Victims = std::vector<std::shared_ptr<const void>>;

  static uint64_t Hash(const BlockCacheKey& key);
  Shard& ShardFor(uint64_t hash) { return shards_[(hash >> 1) >> shard_shift_]; }
  // Index of `key`'s slot, or the empty slot where its probe ends.
  static size_t Find(const Shard& shard, const BlockCacheKey& key, uint64_t hash);
  // Requires shard->mu. The slot holding `key`, counted as a hit and marked
  // recently used, or nullptr counted as a miss: Lookup's and LookupBatch's one core.
  Slot* FindAndCount(Shard* shard, const BlockCacheKey& key, uint64_t hash);
  // Publishes the shard's current table to its lock-free view.
  static void PublishView(Shard* shard) {
    shard->view_slots.store(shard->slots.get(), std::memory_order_relaxed);
    shard->view_mask.store(shard->mask, std::memory_order_relaxed);
  }
  // Empties slot `i`, moving its value to `victims` (freed after the lock).
  static void RemoveAt(Shard* shard, size_t i, Victims* victims);
  // CLOCK sweep until `charge` more bytes fit in `budget` (or the shard is empty).
  static void MakeRoom(Shard* shard, size_t charge, size_t budget, Victims* victims);
  static void Grow(Shard* shard);

  const size_t capacity_;
  const int num_shard_bits_;
  const int shard_shift_;  // (hash >> 1) >> shard_shift_ = the hash's top num_shard_bits_ bits
  const size_t shard_capacity_;
  std::vector<Shard> shards_;
  std::atomic<uint64_t> next_file_id_{1};
};

}  // namespace filterlab::engine
