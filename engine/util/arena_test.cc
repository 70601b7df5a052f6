#include "engine/util/arena.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <utility>
#include <vector>

#include "engine/util/random.h"

namespace filterlab::engine {
namespace {

TEST(Arena, EmptyUsesNoMemory) {
  Arena arena;
  EXPECT_EQ(arena.MemoryUsage(), 0u);
}

class ArenaTest : public ::testing::TestWithParam<bool> {};  // param: huge-page chunks

TEST_P(ArenaTest, AllocationsKeepTheirContentsAndUsageBoundsThem) {
  Arena arena(GetParam());
  Random rnd(301);
  std::vector<std::pair<size_t, char*>> allocated;
  size_t total = 0;
  for (int i = 0; i < 20000; ++i) {
    size_t size;
    if (i % 997 == 0) {
      size = 6000 + rnd.Uniform(3000);  // larger than a block: own block
    } else if (i % 10 == 0) {
      size = 1 + rnd.Uniform(1500);  // over a quarter block sometimes
    } else {
      size = 1 + rnd.Uniform(40);
    }
    char* p = (i % 3 == 0) ? arena.AllocateAligned(size) : arena.Allocate(size);
    if (i % 3 == 0) {
      EXPECT_EQ(reinterpret_cast<uintptr_t>(p) % Arena::kAlign, 0u) << i;
    }
    std::memset(p, static_cast<int>(i % 256), size);
    allocated.emplace_back(size, p);
    total += size;
    EXPECT_GE(arena.MemoryUsage(), total);
  }
  // Waste is bounded: each abandoned tail is at most a quarter block and
  // alignment slop is < kAlign per aligned allocation.
  EXPECT_LE(arena.MemoryUsage(), total * 3 / 2 + 8 * Arena::kBlockSize);
  for (size_t i = 0; i < allocated.size(); ++i) {
    const auto [size, p] = allocated[i];
    for (size_t b = 0; b < size; ++b) {
      ASSERT_EQ(static_cast<unsigned char>(p[b]), i % 256) << "allocation " << i << " byte " << b;
    }
  }
}

TEST_P(ArenaTest, LargeAllocationGetsItsOwnBlock) {
  Arena arena(GetParam());
  char* small = arena.Allocate(10);
  const size_t after_small = arena.MemoryUsage();
  char* big = arena.Allocate(100000);
  EXPECT_GE(arena.MemoryUsage(), after_small + 100000);
  // The current block stays in use: the next small allocation follows the first.
  char* small2 = arena.Allocate(10);
  EXPECT_EQ(small2, small + 10);
  (void)big;
}

TEST(Arena, HugePageChunksCarveAlignedChunksWithTheSameAccounting) {
  // The same allocations in both arenas: identical MemoryUsage after each,
  // and the chunked arena's first block starts a 2 MiB-aligned chunk, its
  // later blocks follow within it (1000 x 100 bytes span ~25 blocks).
  Arena plain, chunked(true);
  char* first = chunked.Allocate(100);
  (void)plain.Allocate(100);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(first) % Arena::kHugeChunkBytes, 0u);
  for (int i = 1; i < 1000; ++i) {
    char* p = chunked.Allocate(100);
    (void)plain.Allocate(100);
    ASSERT_EQ(chunked.MemoryUsage(), plain.MemoryUsage()) << i;
    ASSERT_GE(p, first);
    ASSERT_LT(p + 100, first + Arena::kHugeChunkBytes) << i;
  }
  // Past one chunk (512 blocks), a second chunk starts.
  for (int i = 0; i < 600 * 40; ++i) {
    (void)chunked.Allocate(100);
    (void)plain.Allocate(100);
  }
  EXPECT_EQ(chunked.MemoryUsage(), plain.MemoryUsage());
  EXPECT_GT(chunked.MemoryUsage(), Arena::kHugeChunkBytes);
}

INSTANTIATE_TEST_SUITE_P(PlainAndHugePageChunks, ArenaTest, ::testing::Bool());

}  // namespace
}  // namespace filterlab::engine
