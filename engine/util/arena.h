// Arena: bump allocation for the memtable, whose nodes all die together when
// the memtable is dropped. Blocks of 4 KiB are carved up front to back;
// allocations larger than a quarter block get a block of their own so a big
// key does not waste the rest of the current block.
//
// Not thread-safe for allocation (the memtable has one writer), but
// MemoryUsage() may be read from any thread (a relaxed atomic): the memtable
// uses it to decide when it is full.
#pragma once

#include <atomic>
#include <cstddef>
#include <memory>
#include <vector>

namespace filterlab::engine {

class Arena {
 public:
  static constexpr size_t kBlockSize = 4096;
  // Alignment of AllocateAligned: enough for pointers, u64 and atomics.
  static constexpr size_t kAlign = alignof(std::max_align_t) > 8 ? alignof(std::max_align_t) : 8;

  // 2 MiB: the x86-64 transparent huge page.
  static constexpr size_t kHugeChunkBytes = size_t{2} << 20;

  Arena() = default;
  // With huge_page_chunks, the 4 KiB blocks are carved from 2 MiB-aligned
  // chunks that the kernel is asked (madvise MADV_HUGEPAGE) to back with
  // transparent huge pages: a big memtable's random reads then miss the TLB
  // far less. Accounting is unchanged (MemoryUsage counts 4 KiB blocks as
  // they are carved), though up to one chunk more may be resident. Meant for
  // large arenas (tens of MiB); where the kernel refuses, the chunks are
  // plain memory.
  explicit Arena(bool huge_page_chunks) : huge_page_chunks_(huge_page_chunks) {}
  Arena(const Arena&) = delete;
  Arena& operator=(const Arena&) = delete;

  // Precondition: bytes > 0. The memory is uninitialised.
  char* Allocate(size_t bytes);
  // As Allocate, aligned to kAlign.
  char* AllocateAligned(size_t bytes);

  // Bytes obtained from the system (blocks plus bookkeeping), not bytes handed out.
  size_t MemoryUsage() const { return memory_usage_.load(std::memory_order_relaxed); }

 private:
  char* AllocateFallback(size_t bytes);
  char* AllocateNewBlock(size_t block_bytes);

  char* NewChunkBlock();
  struct FreeDeleter {
    void operator()(char* p) const;
  };

  const bool huge_page_chunks_ = false;
  char* chunk_ptr_ = nullptr;  // next 4 KiB block of the current chunk
  size_t chunk_bytes_remaining_ = 0;
  std::vector<std::unique_ptr<char, FreeDeleter>> chunks_;
  char* alloc_ptr_ = nullptr;
  size_t alloc_bytes_remaining_ = 0;
  std::vector<std::unique_ptr<char[]>> blocks_;
  std::atomic<size_t> memory_usage_{0};
};

}  // namespace filterlab::engine
