#include "engine/db/table_cache.h"

#include <iterator>

#include "engine/db/db_files.h"
#include "engine/util/direct_file.h"

namespace filterlab::engine {

TableCache::TableCache(std::string dir, BlockCache* block_cache, size_t capacity, bool use_direct_reads, ReadGate* gate)
    : dir_(std::move(dir)),
      block_cache_(block_cache),
      capacity_(capacity),
      use_direct_reads_(use_direct_reads),
      gate_(gate),
      hints_(std::make_unique<std::atomic<const Entry*>[]>(kHintSlots)) {}

TableCache::~TableCache() = default;

Status TableCache::GetInGuard(uint64_t number, uint64_t file_size, const TableReader** out) {
  const Entry* hint = HintFor(number).load(std::memory_order_acquire);
  if (hint != nullptr && hint->first == number) {
    *out = hint->second.get();
    return Status::OK();
  }
  std::shared_ptr<const TableReader> reader;
  Status s = Get(number, file_size, &reader);
  if (!s.ok()) return s;
  std::lock_guard<std::mutex> l(mu_);
  auto it = map_.find(number);
  if (it != map_.end() && it->second->second == reader) {
    HintFor(number).store(&*it->second, std::memory_order_release);
  } else {
    // Evicted already (a small cache under other threads' opens): park our
    // reference, so the reader outlives this guard.
    parked_.emplace_back(number, reader);
    has_parked_.store(true, std::memory_order_relaxed);
  }
  *out = reader.get();
  return Status::OK();
}

void TableCache::RemoveLocked(std::list<Entry>::iterator it) {
  retired_.Add(it->second->stats());
  std::atomic<const Entry*>& hint = HintFor(it->first);
  if (hint.load(std::memory_order_relaxed) == &*it) hint.store(nullptr, std::memory_order_release);
  map_.erase(it->first);
  if (gate_ == nullptr) {
    lru_.erase(it);
    return;
  }
  parked_.splice(parked_.end(), lru_, it);
  has_parked_.store(true, std::memory_order_relaxed);
}

void TableCache::ReclaimParked() {
  std::list<Entry> done;
  {
    std::lock_guard<std::mutex> l(mu_);
    done.swap(parked_);
    has_parked_.store(false, std::memory_order_relaxed);
  }
  if (done.empty()) return;
  // The entries are unhinted: guards opened from now on cannot find them.
  if (gate_ != nullptr) gate_->Synchronize();
}

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
  topt.prefix_extractor = prefix_extractor_;
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
  while (lru_.size() > capacity_) RemoveLocked(std::prev(lru_.end()));
  *out = std::move(shared);
  return Status::OK();
}

void TableCache::Evict(uint64_t number) {
  {
    std::lock_guard<std::mutex> l(mu_);
    auto it = map_.find(number);
    if (it == map_.end()) return;
    RemoveLocked(it->second);
  }
  ReclaimRetired();
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
