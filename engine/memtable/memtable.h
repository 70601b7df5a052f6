// MemTable: the in-memory write buffer of the LSM tree. Entries (put, delete,
// merge) live in a skip list ordered by internal key (internal_key.h), their
// bytes in an arena; one writer adds, any number of readers look up
// concurrently without locks.
//
// Entry encoding (RocksDB's db/dbformat.h), the skip list's key:
//   varint32(internal_key_len) ‖ internal_key ‖ varint32(value_len) ‖ value
//
// Memtable Bloom (RocksDB's memtable_prefix_bloom_size_ratio): with bloom_size_ratio > 0 the memtable keeps a
// dynamic filter over whole user keys, sized from the write buffer budget as
// RocksDB does, total_bits = 8 · u32(write_buffer_size · ratio), ratio
// clamped to [0, 0.25] — independent of how many keys arrive. Every Add puts
// the user key's hash into it (AddConcurrently, so concurrent writers would
// also be safe); Get consults it before the skip list and skips the search
// on a negative. The filter comes from the registry: any dynamic variant's
// spec (policy.is_dynamic()) works; the default is RocksDB's DynamicBloom
// with 6 probes and its 32-bit hash. The registry sizes dynamic filters by
// keys, so the memtable asks for ceil(total_bits / bpk) keys; with bpk = 8
// (the default spec) that is exactly total_bits, since total_bits is a
// multiple of 8.
//
// Range statistics (RocksDB's GetApproximateMemTableStats, PR #13047): ApproximateStats(start, limit) estimates the
// number and bytes of entries with user keys in [start, limit), using the
// skip list's new estimate (or the old one, by option).
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>

#include "common/slice.h"
#include "common/status.h"
#include "engine/memtable/internal_key.h"
#include "engine/memtable/skiplist.h"
#include "engine/util/arena.h"
#include "engine/util/coding.h"
#include "engine/util/thread_slot.h"
#include "filters/filter.h"

namespace filterlab::engine {

enum class ApproxAlgorithm { kNew, kOld };

class PrefixExtractor;

// The internal key an encoded entry starts with. Entries were written by
// Add, so the varint is well formed; an internal key under 128 bytes (user
// keys under 120) has a one-byte length, decoded without a call.
inline Slice DecodeEntryKey(const char* entry) {
  const auto first = static_cast<uint8_t>(entry[0]);
  if (first < 0x80) return Slice(entry + 1, first);
  uint32_t len = 0;
  const char* q = GetVarint32Ptr(entry, entry + kMaxVarint32Bytes, &len);
  return Slice(q, len);
}

// A search key for the memtable's skip list: an internal key, plus the first
// 8 bytes of its user key as a big-endian number when it has at least 8.
struct MemTableSearchKey {
  MemTableSearchKey() = default;
  explicit MemTableSearchKey(const Slice& internal_key);
  Slice internal_key;
  uint64_t prefix = 0;
  bool has_prefix = false;
};

// The first 8 bytes at p as a big-endian number: numbers compare as the bytes do.
inline uint64_t LoadBigEndian64(const char* p) { return __builtin_bswap64(DecodeFixed64(p)); }

inline MemTableSearchKey::MemTableSearchKey(const Slice& ikey) : internal_key(ikey) {
  if (ikey.size() >= kInternalKeyTrailerBytes + 8) {
    prefix = LoadBigEndian64(ikey.data());
    has_prefix = true;
  }
}

// Orders encoded memtable entries, stored inline in the skip list's nodes,
// by their internal keys; a search compares each entry against a decoded
// MemTableSearchKey. When both user keys have 8+ bytes, unequal 8-byte
// prefixes decide the order with one integer compare (the engine's keys
// start with an 8-byte big-endian key number, so nearly every step of a
// search ends there); otherwise, the full internal-key comparison.
struct MemTableEntryComparator {
  using DecodedKey = MemTableSearchKey;
  MemTableSearchKey Decode(const char* entry) const { return MemTableSearchKey(DecodeEntryKey(entry)); }
  int operator()(const char* entry, const MemTableSearchKey& key) const {
    const Slice ikey = DecodeEntryKey(entry);
    if (key.has_prefix && ikey.size() >= kInternalKeyTrailerBytes + 8) {
      const uint64_t prefix = LoadBigEndian64(ikey.data());
      if (prefix != key.prefix) return prefix < key.prefix ? -1 : 1;
    }
    return CompareInternalKeys(ikey, key.internal_key);
  }
};
using MemTableList = SkipList<MemTableEntryComparator>;

// "dynamic:bpk=8,probes=6,hash=32" (RocksDB's DynamicBloom: 6 probes, its
// 32-bit hash), made once per process.
std::shared_ptr<const FilterPolicy> DefaultMemTableBloomPolicy();

struct MemTableOptions {
  // The memtable's byte budget (RocksDB write_buffer_size); sizes the Bloom.
  size_t write_buffer_size = size_t{64} << 20;
  // RocksDB memtable_prefix_bloom_size_ratio with whole-key filtering: 0
  // disables the memtable Bloom; values above 0.25 are clamped to 0.25.
  double bloom_size_ratio = 0.0;
  // The memtable filter's policy; must be a dynamic variant. nullptr also
  // disables the memtable Bloom. The default is RocksDB's DynamicBloom.
  std::shared_ptr<const FilterPolicy> bloom_policy = DefaultMemTableBloomPolicy();
  ApproxAlgorithm approx_algorithm = ApproxAlgorithm::kNew;
  // What the Bloom holds (RocksDB's memtable_whole_key_filtering and its
  // prefix extractor): whole user keys when whole_key_filtering, and the
  // prefixes of the keys in prefix_extractor's domain (null: none). Get
  // probes the whole key, or without whole keys the key's prefix (a key
  // outside the domain passes unprobed); seeks probe the prefix
  // (PrefixMayMatch).
  bool whole_key_filtering = true;
  std::shared_ptr<const PrefixExtractor> prefix_extractor;
  // Back the arena with 2 MiB transparent-huge-page chunks (Arena) when
  // write_buffer_size is at least kHugePageArenaMinBuffer: a lookup in a big,
  // full memtable then takes far fewer TLB misses. Smaller memtables use
  // plain 4 KiB blocks (a chunk would be most of their memory).
  bool huge_page_arena = true;
  static constexpr size_t kHugePageArenaMinBuffer = size_t{16} << 20;
};

class MemTable {
 public:
  // Validates the options: write_buffer_size > 0, a finite ratio >= 0, a
  // budget under 4 GiB of filter bytes, a dynamic filter spec.
  static Status Create(const MemTableOptions& options, std::unique_ptr<MemTable>* out);
  ~MemTable();
  MemTable(const MemTable&) = delete;
  MemTable& operator=(const MemTable&) = delete;

  // Writer only. Precondition: (user_key, seq) not already present, seq <= kMaxSequenceNumber.
  void Add(SequenceNumber seq, ValueType type, const Slice& user_key, const Slice& value);

  enum class GetResult {
    kNotFound,  // no version of the key at or below the snapshot here
    kFound,     // newest visible version is a value; *value holds it
    kDeleted,   // newest visible version is a deletion or single deletion
    kMerge,     // newest visible version is a merge operand; *value holds it
  };
  // Newest version of key.user_key() with sequence <= the lookup's snapshot.
  GetResult Get(const LookupKey& key, std::string* value) const;

  // A batch of lookups: results[i] = Get(*keys[i], values[i]) for i < n
  // (keys in any order, duplicates allowed; values[i] is written only for
  // kFound and kMerge, as by Get). The memtable filter answers the whole
  // batch first (every key hashed, then its MayContainBatch, which
  // prefetches all the batch's lines before probing), so its misses overlap
  // instead of costing one stall per key; the keys it passes are then
  // searched together with SkipList::SeekBatch (lockstep: the searches'
  // dependent node misses overlap too). What this saves over a loop of Get
  // is the stalls, not instructions: a lockstep step costs about what a
  // plain step does, but a batch of 32 keeps ~10 misses in flight where a
  // lone search keeps one or two.
  void MultiGet(const LookupKey* const* keys, size_t n, std::string* const* values, GetResult* results) const;

  struct RangeStats {
    uint64_t count = 0;
    uint64_t bytes = 0;
  };
  // Estimated entries (all versions) with user key in [start, limit), and
  // their bytes as count × average encoded entry size (as RocksDB's PR #13047 does).
  RangeStats ApproximateStats(const Slice& start, const Slice& limit) const;

  uint64_t num_entries() const { return num_entries_.load(std::memory_order_relaxed); }
  // Sum of encoded entry sizes.
  uint64_t data_size() const { return data_size_.load(std::memory_order_relaxed); }
  // Arena plus filter bytes: compare with write_buffer_size to decide when full.
  size_t ApproximateMemoryUsage() const;

  // The memtable filter, or null when disabled.
  const Filter* bloom() const { return bloom_.get(); }
  // Get calls answered by a Bloom negative / passed on to the skip list.
  uint64_t bloom_negatives() const { return bloom_counters_.Sum(0); }
  uint64_t bloom_positives() const { return bloom_counters_.Sum(1); }
  // Whether keys with prefix `prefix` (of options.prefix_extractor) may be
  // here: true without a Bloom or an extractor. Counted: prefix_hits (the
  // Bloom said maybe) and prefix_misses (it said absent: a seek skips this
  // memtable), RocksDB's bloom_memtable_hit_count / miss_count.
  bool PrefixMayMatch(const Slice& prefix) const;
  uint64_t prefix_hits() const { return bloom_counters_.Sum(2); }
  uint64_t prefix_misses() const { return bloom_counters_.Sum(3); }

  // Ordered iteration over entries (internal keys and values).
  class Iterator {
   public:
    explicit Iterator(const MemTable* mem) : it_(&mem->list_) {}
    bool Valid() const { return it_.Valid(); }
    void SeekToFirst() { it_.SeekToFirst(); }
    void SeekToLast() { it_.SeekToLast(); }
    // First entry >= internal_key.
    void Seek(const Slice& internal_key);
    void Next() { it_.Next(); }
    void Prev() { it_.Prev(); }
    Slice key() const;  // internal key
    Slice value() const;

   private:
    MemTableList::Iterator it_;
  };

 private:
  MemTable(const MemTableOptions& options, std::unique_ptr<Filter> bloom);
  // The answer for `key` given its skip-list search's result (the first
  // entry >= the lookup key, or null).
  static GetResult Resolve(const char* entry, const LookupKey& key, std::string* value);
  // What a point lookup of `user_key` probes the Bloom with (*probe); false
  // when it probes nothing (no Bloom, or a prefix Bloom and a key outside
  // the domain).
  bool PointProbe(const Slice& user_key, Slice* probe) const;

  const MemTableOptions options_;
  Arena arena_;
  MemTableList list_;
  std::unique_ptr<Filter> bloom_;  // with options_.bloom_policy, which hashes its keys
  std::atomic<uint64_t> num_entries_{0};
  std::atomic<uint64_t> data_size_{0};
  // [0] negatives, [1] positives, [2] prefix hits, [3] prefix misses; per thread slot, so concurrent readers
  // (and the writer's num_entries_ and data_size_) share no line.
  mutable StripedCounters<4> bloom_counters_;
};

// Filter bits for a write buffer and ratio as RocksDB's MemTable sizes its DynamicBloom (ratio clamped to
// [0, 0.25]); 0 means no memtable Bloom. InvalidArgument on a NaN or
// negative ratio or a byte count that does not fit in 32 bits.
Status MemTableBloomBits(size_t write_buffer_size, double ratio, uint64_t* total_bits);

}  // namespace filterlab::engine
