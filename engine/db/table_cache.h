// TableCache: open TableReaders keyed by file number, at most `capacity`
// of them (least recently used closed first). A reader handed out is a
// shared_ptr, so it stays usable after eviction until its last user drops
// it. Readers share the DB's block cache. Thread-safe (one mutex; opening a
// table happens outside it, so a slow open does not block other lookups —
// two threads may then open the same table and the first insert wins).
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

namespace filterlab::engine {

class BlockCache;

class TableCache {
 public:
  // With use_direct_reads tables are read with O_DIRECT (direct_file.h),
  // or buffered where the filesystem refuses it (counted in
  // buffered_fallbacks()).
  TableCache(std::string dir, BlockCache* block_cache, size_t capacity, bool use_direct_reads = false)
      : dir_(std::move(dir)), block_cache_(block_cache), capacity_(capacity), use_direct_reads_(use_direct_reads) {}

  // The reader of table `number`; opening it checks that the file has
  // `file_size` bytes (Corruption otherwise) and reads its meta blocks.
  Status Get(uint64_t number, uint64_t file_size, std::shared_ptr<const TableReader>* out);
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
  const std::string dir_;
  BlockCache* const block_cache_;
  const size_t capacity_;
  const bool use_direct_reads_;
  std::atomic<uint64_t> buffered_fallbacks_{0};
  std::mutex mu_;
  TableReaderStats retired_;  // of readers evicted so far
  std::list<Entry> lru_;  // front = most recent
  std::unordered_map<uint64_t, std::list<Entry>::iterator> map_;
};

}  // namespace filterlab::engine
