#include "engine/util/arena.h"

#include <sys/mman.h>

#include <cassert>
#include <cstdint>
#include <cstdlib>
#include <new>

namespace filterlab::engine {

static_assert((Arena::kAlign & (Arena::kAlign - 1)) == 0, "alignment must be a power of two");

char* Arena::Allocate(size_t bytes) {
  assert(bytes > 0);
  if (bytes <= alloc_bytes_remaining_) {
    char* result = alloc_ptr_;
    alloc_ptr_ += bytes;
    alloc_bytes_remaining_ -= bytes;
    return result;
  }
  return AllocateFallback(bytes);
}

char* Arena::AllocateAligned(size_t bytes) {
  assert(bytes > 0);
  const size_t misalign = reinterpret_cast<uintptr_t>(alloc_ptr_) & (kAlign - 1);
  const size_t slop = misalign == 0 ? 0 : kAlign - misalign;
  const size_t needed = bytes + slop;
  char* result;
  if (needed <= alloc_bytes_remaining_) {
    result = alloc_ptr_ + slop;
    alloc_ptr_ += needed;
    alloc_bytes_remaining_ -= needed;
  } else {
    // Fresh blocks come from new[] and are max_align_t-aligned already.
    result = AllocateFallback(bytes);
  }
  assert((reinterpret_cast<uintptr_t>(result) & (kAlign - 1)) == 0);
  return result;
}

char* Arena::AllocateFallback(size_t bytes) {
  if (bytes > kBlockSize / 4) return AllocateNewBlock(bytes);
  // The rest of the current block is abandoned (at most a quarter block).
  alloc_ptr_ = AllocateNewBlock(kBlockSize);
  alloc_bytes_remaining_ = kBlockSize;
  char* result = alloc_ptr_;
  alloc_ptr_ += bytes;
  alloc_bytes_remaining_ -= bytes;
  return result;
}

char* Arena::AllocateNewBlock(size_t block_bytes) {
  // Same accounting either way: the block plus one owner's worth of bookkeeping.
  memory_usage_.fetch_add(block_bytes + sizeof(std::unique_ptr<char[]>), std::memory_order_relaxed);
  if (huge_page_chunks_ && block_bytes == kBlockSize) return NewChunkBlock();
  blocks_.push_back(std::make_unique_for_overwrite<char[]>(block_bytes));
  return blocks_.back().get();
}

char* Arena::NewChunkBlock() {
  static_assert(kHugeChunkBytes % kBlockSize == 0, "chunks must hold whole blocks");
  if (chunk_bytes_remaining_ < kBlockSize) {
    char* chunk = static_cast<char*>(std::aligned_alloc(kHugeChunkBytes, kHugeChunkBytes));
    if (chunk == nullptr) throw std::bad_alloc();
#ifdef MADV_HUGEPAGE
    // Advice only: without THP support the chunk stays in 4 KiB pages.
    (void)madvise(chunk, kHugeChunkBytes, MADV_HUGEPAGE);
#endif
    chunks_.emplace_back(chunk);
    chunk_ptr_ = chunk;
    chunk_bytes_remaining_ = kHugeChunkBytes;
  }
  char* block = chunk_ptr_;
  chunk_ptr_ += kBlockSize;
  chunk_bytes_remaining_ -= kBlockSize;
  return block;
}

void Arena::FreeDeleter::operator()(char* p) const { std::free(p); }

}  // namespace filterlab::engine
