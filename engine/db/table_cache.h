// TableCache: open TableReaders keyed by file number, at most `capacity`
// of them (least recently used closed first). Readers share the DB's block
// cache. Thread-safe (one mutex; opening a table happens outside it, so a
// slow open does not block other lookups — two threads may then open the
// same table and the first insert wins).
//
// Two ways to get a reader. Get hands out a shared_ptr, usable after
// eviction until its last user drops it (iterators, compaction). GetInGuard,
// for point lookups inside a guard of the DB's ReadGate (read_gate.h), hands
// out a raw pointer found through a lock-free hint table (one atomic pointer
// per file number modulo kHintSlots, written under the mutex): a lookup then
// writes nothing shared — no mutex, no LRU splice, no reference count, each
// of which was a cache line two concurrent readers passed back and forth.
// Recency is kept by the slow path only (a table found through its hint is
// not moved to the LRU front; with the default capacity of 1000 open tables
// the order rarely matters). An evicted reader is unhinted and parked; it is
// closed by ReclaimRetired after the gate's grace period, so a guard that
// found it before the eviction can finish with it.
#pragma once

#include <atomic>
#include <cstdint>
#include <list>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>

#include "common/status.h"
#include "engine/table/table_reader.h"
#include "engine/util/read_gate.h"

namespace filterlab::engine {

class BlockCache;

class TableCache {
 public:
  // With use_direct_reads tables are read with O_DIRECT (direct_file.h),
  // or buffered where the filesystem refuses it (counted in
  // buffered_fallbacks()).
  // `gate` (may be null: then GetInGuard is unavailable and evicted readers
  // close as soon as their last shared_ptr goes) guards GetInGuard's users.
  TableCache(std::string dir, BlockCache* block_cache, size_t capacity, bool use_direct_reads = false,
             ReadGate* gate = nullptr);
  ~TableCache();
  // The prefix extractor the readers it opens are told reads use
  // (TableReaderOptions::prefix_extractor); set before the first Get.
  void set_prefix_extractor(std::shared_ptr<const PrefixExtractor> extractor) {
    prefix_extractor_ = std::move(extractor);
  }

  // The reader of table `number`; opening it checks that the file has
  // `file_size` bytes (Corruption otherwise) and reads its meta blocks.
  Status Get(uint64_t number, uint64_t file_size, std::shared_ptr<const TableReader>* out);
  // The same inside a guard of `gate` (the constructor's): *out stays valid
  // until the guard closes. Requires a gate.
  Status GetInGuard(uint64_t number, uint64_t file_size, const TableReader** out);
  // Closes the readers evicted so far once no guard can use them (waits for
  // the guards open now). Call outside any guard; cheap when none are parked.
  void ReclaimRetired() {
    if (has_parked_.load(std::memory_order_relaxed)) ReclaimParked();
  }
  // Evicts the reader of `number` (its table file is being deleted) and reclaims.
  void Evict(uint64_t number);

  // The read counters of every table opened here: those open now plus those
  // closed since (what a reader still in use counts after its eviction is
  // not included).
  TableReaderStats TotalStats();
  // Tables opened for buffered reads although direct reads were asked for.
  uint64_t buffered_fallbacks() const { return buffered_fallbacks_.load(std::memory_order_relaxed); }

  // Calls fn for each reader currently open (for statistics).
  template <typename Fn>
  void ForEachOpen(Fn fn) {
    std::lock_guard<std::mutex> l(mu_);
    for (const auto& [number, it] : map_) fn(number, *it->second);
  }

 private:
  using Entry = std::pair<uint64_t, std::shared_ptr<const TableReader>>;
  static constexpr size_t kHintSlots = 4096;
  std::atomic<const Entry*>& HintFor(uint64_t number) { return hints_[number & (kHintSlots - 1)]; }
  // Requires mu_: removes `it` from the cache (unhinted, then parked when
  // there is a gate, else freed).
  void RemoveLocked(std::list<Entry>::iterator it);
  void ReclaimParked();
  const std::string dir_;
  BlockCache* const block_cache_;
  std::shared_ptr<const PrefixExtractor> prefix_extractor_;
  const size_t capacity_;
  const bool use_direct_reads_;
  ReadGate* const gate_;
  std::unique_ptr<std::atomic<const Entry*>[]> hints_;  // written under mu_
  std::atomic<bool> has_parked_{false};
  std::atomic<uint64_t> buffered_fallbacks_{0};
  std::mutex mu_;
  TableReaderStats retired_;  // of readers evicted so far
  std::list<Entry> lru_;      // front = most recent
  std::unordered_map<uint64_t, std::list<Entry>::iterator> map_;
  std::list<Entry> parked_;  // evicted, closed by ReclaimParked
};

}  // namespace filterlab::engine
