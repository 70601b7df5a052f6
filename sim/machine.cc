#include "sim/machine.h"

#include <sys/mman.h>

#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>
#include <thread>

namespace filterlab::sim {

int NumCores() {
  const unsigned n = std::thread::hardware_concurrency();
  return n == 0 ? 1 : static_cast<int>(n);
}

uint64_t AvailableMemoryBytes() {
  std::ifstream in("/proc/meminfo");
  std::string key;
  uint64_t kb = 0;
  std::string unit;
  while (in >> key >> kb) {
    std::getline(in, unit);
    if (key == "MemAvailable:") return kb * 1024;
  }
  return 0;
}

Status CheckMemory(uint64_t needed, const std::string& what) {
  const uint64_t avail = AvailableMemoryBytes();
  if (avail != 0 && needed > avail) {
    char buf[256];
    std::snprintf(buf, sizeof buf, "%s needs about %.2f GiB but only %.2f GiB is available (MemAvailable)",
                  what.c_str(), needed / 1073741824.0, avail / 1073741824.0);
    return Status::InvalidArgument(std::string(buf) + "; use fewer keys or filters, or fewer threads");
  }
  return Status::OK();
}

static uint64_t ParseCacheSize(const std::string& text) {
  uint64_t v = 0;
  size_t i = 0;
  while (i < text.size() && text[i] >= '0' && text[i] <= '9') v = v * 10 + (text[i++] - '0');
  if (i < text.size() && (text[i] == 'K' || text[i] == 'k')) v <<= 10;
  if (i < text.size() && (text[i] == 'M' || text[i] == 'm')) v <<= 20;
  return v;
}

uint64_t LastLevelCacheBytes() {
  uint64_t best = 0;
  int best_level = 0;
  for (int idx = 0; idx < 16; ++idx) {
    const std::string dir = "/sys/devices/system/cpu/cpu0/cache/index" + std::to_string(idx) + "/";
    std::ifstream level_in(dir + "level"), size_in(dir + "size"), type_in(dir + "type");
    if (!level_in || !size_in) continue;
    int level = 0;
    std::string size_text, type;
    level_in >> level;
    size_in >> size_text;
    type_in >> type;
    if (type == "Instruction") continue;
    const uint64_t bytes = ParseCacheSize(size_text);
    if (level > best_level || (level == best_level && bytes > best)) {
      best_level = level;
      best = bytes;
    }
  }
  return best;
}

std::string TransparentHugePageMode() {
  std::ifstream in("/sys/kernel/mm/transparent_hugepage/enabled");
  std::string line;
  if (!std::getline(in, line)) return "unknown";
  const size_t open = line.find('['), close = line.find(']');
  if (open == std::string::npos || close == std::string::npos) return "unknown";
  return line.substr(open + 1, close - open - 1);
}

// AnonHugePages of the smaps entries that lie inside [begin, end).
static size_t HugeBytesIn(uintptr_t begin, uintptr_t end) {
  std::ifstream in("/proc/self/smaps");
  std::string line;
  bool inside = false;
  size_t total = 0;
  while (std::getline(in, line)) {
    unsigned long lo = 0, hi = 0;
    if (std::sscanf(line.c_str(), "%lx-%lx ", &lo, &hi) == 2 && line.find(':') > line.find(' ')) {
      inside = lo >= begin && hi <= end;
      continue;
    }
    if (inside && line.rfind("AnonHugePages:", 0) == 0) {
      size_t kb = 0;
      std::sscanf(line.c_str() + 14, "%zu", &kb);
      total += kb * 1024;
    }
  }
  return total;
}

Status PageArena::Allocate(size_t bytes, bool want_huge, std::unique_ptr<PageArena>* out) {
  const size_t size = (bytes + kHugePageBytes - 1) / kHugePageBytes * kHugePageBytes;
  if (size == 0) return Status::InvalidArgument("PageArena: zero bytes requested");
  // Over-map by one huge page and trim to a 2 MiB boundary.
  const size_t padded = size + kHugePageBytes;
  void* raw = mmap(nullptr, padded, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (raw == MAP_FAILED) {
    return Status::IOError("mmap of " + std::to_string(padded) + " bytes failed: " + std::strerror(errno));
  }
  const uintptr_t start = reinterpret_cast<uintptr_t>(raw);
  const uintptr_t aligned = (start + kHugePageBytes - 1) / kHugePageBytes * kHugePageBytes;
  if (aligned > start) munmap(raw, aligned - start);
  const uintptr_t tail = start + padded - (aligned + size);
  if (tail > 0) munmap(reinterpret_cast<void*>(aligned + size), tail);
  char* data = reinterpret_cast<char*>(aligned);
  if (want_huge) madvise(data, size, MADV_HUGEPAGE);  // failure just means 4 KiB pages
  std::memset(data, 0, size);                         // fault every page in now, not while timing
  out->reset(new PageArena(data, size));
  (*out)->huge_bytes_ = HugeBytesIn(aligned, aligned + size);
  return Status::OK();
}

PageArena::~PageArena() { munmap(data_, size_); }

}  // namespace filterlab::sim
