#include "engine/db/table_cache.h"

#include "engine/db/db_files.h"
#include "engine/util/direct_file.h"

namespace filterlab::engine {

Status TableCache::Get(uint64_t number, uint64_t file_size, std::shared_ptr<const TableReader>* out) {
  {
    std::lock_guard<std::mutex> l(mu_);
    auto it = map_.find(number);
    if (it != map_.end()) {
      lru_.splice(lru_.begin(), lru_, it->second);
      *out = it->second->second;
      return Status::OK();
    }
  }
  const std::string name = TableFileName(dir_, number);
  std::unique_ptr<RandomAccessFile> file;
  Status s;
  if (use_direct_reads_) {
    bool direct = false;
    s = NewDirectRandomAccessFile(name, &file, &direct);
    if (s.ok() && !direct) buffered_fallbacks_.fetch_add(1, std::memory_order_relaxed);
  } else {
    s = NewPosixRandomAccessFile(name, &file);
  }
  if (!s.ok()) return Status::Corruption("table " + name + " listed in the manifest cannot be opened: " + s.message());
  if (file->Size() != file_size) {
    return Status::Corruption("table " + name + " has " + std::to_string(file->Size()) +
                              " bytes but the manifest records " + std::to_string(file_size));
  }
  TableReaderOptions topt;
  topt.block_cache = block_cache_;
  std::unique_ptr<TableReader> reader;
  s = TableReader::Open(topt, std::move(file), &reader);
  if (!s.ok()) return s;
  std::shared_ptr<const TableReader> shared(std::move(reader));
  std::lock_guard<std::mutex> l(mu_);
  auto it = map_.find(number);
  if (it != map_.end()) {  // another thread opened it meanwhile
    *out = it->second->second;
    return Status::OK();
  }
  lru_.emplace_front(number, shared);
  map_[number] = lru_.begin();
  while (lru_.size() > capacity_) {
    retired_.Add(lru_.back().second->stats());
    map_.erase(lru_.back().first);
    lru_.pop_back();
  }
  *out = std::move(shared);
  return Status::OK();
}

void TableCache::Evict(uint64_t number) {
  std::lock_guard<std::mutex> l(mu_);
  auto it = map_.find(number);
  if (it == map_.end()) return;
  retired_.Add(it->second->second->stats());
  lru_.erase(it->second);
  map_.erase(it);
}

}  // namespace filterlab::engine

namespace filterlab::engine {

TableReaderStats TableCache::TotalStats() {
  std::lock_guard<std::mutex> l(mu_);
  TableReaderStats total = retired_;
  for (const Entry& e : lru_) total.Add(e.second->stats());
  return total;
}

}  // namespace filterlab::engine
