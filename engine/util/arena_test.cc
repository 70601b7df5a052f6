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

TEST(Arena, AllocationsKeepTheirContentsAndUsageBoundsThem) {
  Arena arena;
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

TEST(Arena, LargeAllocationGetsItsOwnBlock) {
  Arena arena;
  char* small = arena.Allocate(10);
  const size_t after_small = arena.MemoryUsage();
  char* big = arena.Allocate(100000);
  EXPECT_GE(arena.MemoryUsage(), after_small + 100000);
  // The current block stays in use: the next small allocation follows the first.
  char* small2 = arena.Allocate(10);
  EXPECT_EQ(small2, small + 10);
  (void)big;
}

}  // namespace
}  // namespace filterlab::engine
