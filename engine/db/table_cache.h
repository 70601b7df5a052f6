// TableCache: open TableReaders keyed by file number, at most `capacity`
// of them (least recently used closed first). A reader handed out is a
// shared_ptr, so it stays usable after eviction until its last user drops
// it. Readers share the DB's block cache. Thread-safe (one mutex; opening a
// table happens outside it, so a slow open does not block other lookups —
// two threads may then open the same table and the first insert wins).
#pragma once

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
  TableCache(std::string dir, BlockCache* block_cache, size_t capacity)
      : dir_(std::move(dir)), block_cache_(block_cache), capacity_(capacity) {}

  // The reader of table `number`; opening it checks that the file has
  // `file_size` bytes (Corruption otherwise) and reads its meta blocks.
  Status Get(uint64_t number, uint64_t file_size, std::shared_ptr<const TableReader>* out);
  void Evict(uint64_t number);

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
  std::mutex mu_;
  std::list<Entry> lru_;  // front = most recent
  std::unordered_map<uint64_t, std::list<Entry>::iterator> map_;
};

}  // namespace filterlab::engine
