// What the simulator needs to know about the machine it runs on, read at run
// time: cores, available memory (to refuse runs that cannot fit), the
// last-level cache size (to size speed working sets), and the transparent
// huge page mode. Plus PageArena, a large 2 MiB-aligned anonymous mapping
// that asks for 2 MiB pages with madvise(MADV_HUGEPAGE) (the only way to get
// them when THP is in `madvise` mode) and reports whether it got them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "common/aligned_array.h"  // kHugePageBytes
#include "common/status.h"

namespace filterlab::sim {

// std::thread::hardware_concurrency(), at least 1.
int NumCores();

// MemAvailable from /proc/meminfo in bytes; 0 if unreadable.
uint64_t AvailableMemoryBytes();

// Fails with a message naming `what` (e.g. "--keys 1000000000") if `needed`
// bytes exceed MemAvailable, saying both numbers.
Status CheckMemory(uint64_t needed, const std::string& what);

// Size of the largest (last-level) CPU cache from sysfs, in bytes; 0 if unknown.
uint64_t LastLevelCacheBytes();

// "always", "madvise" or "never" from /sys/kernel/mm/transparent_hugepage/enabled
// ("unknown" if absent).
std::string TransparentHugePageMode();

class PageArena {
 public:
  // Maps `bytes` (rounded up to 2 MiB) at a 2 MiB-aligned address, zeroed and
  // touched. With want_huge, asks for 2 MiB pages first.
  static Status Allocate(size_t bytes, bool want_huge, std::unique_ptr<PageArena>* out);
  ~PageArena();
  PageArena(const PageArena&) = delete;
  PageArena& operator=(const PageArena&) = delete;

  char* data() const { return data_; }
  size_t size() const { return size_; }
  // Bytes of this mapping the kernel backs with huge pages (from
  // /proc/self/smaps AnonHugePages), measured after touching.
  size_t huge_page_bytes() const { return huge_bytes_; }
  // True when at least 90% of the mapping is on 2 MiB pages.
  bool huge_pages() const { return huge_bytes_ * 10 >= size_ * 9; }

 private:
  PageArena(char* data, size_t size) : data_(data), size_(size) {}
  char* data_;
  size_t size_;
  size_t huge_bytes_ = 0;
};

}  // namespace filterlab::sim
