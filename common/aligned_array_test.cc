#include "common/aligned_array.h"

#include <gtest/gtest.h>

#include <atomic>
#include <cstdint>

namespace filterlab {
namespace {

TEST(CacheAlignedArrayTest, StartsOnACacheLineAndIsZeroed) {
  for (size_t n : {1, 3, 8, 1000, 100003}) {
    CacheAlignedArray<uint64_t> words(n);
    EXPECT_EQ(reinterpret_cast<uintptr_t>(words.data()) % kCacheLineBytes, 0u) << n;
    ASSERT_EQ(words.size(), n);
    for (size_t i = 0; i < n; ++i) ASSERT_EQ(words[i], 0u) << i;
    CacheAlignedArray<std::atomic<uint64_t>> atomics(n);
    EXPECT_EQ(reinterpret_cast<uintptr_t>(atomics.data()) % kCacheLineBytes, 0u) << n;
    for (size_t i = 0; i < n; ++i) ASSERT_EQ(atomics[i].load(), 0u) << i;
  }
}

TEST(CacheAlignedArrayTest, EmptyAndMoved) {
  CacheAlignedArray<uint64_t> empty;
  EXPECT_EQ(empty.size(), 0u);
  EXPECT_EQ(empty.data(), nullptr);
  CacheAlignedArray<uint64_t> a(16);
  a[3] = 7;
  const uint64_t* p = a.data();
  CacheAlignedArray<uint64_t> b(std::move(a));
  EXPECT_EQ(b.data(), p);
  EXPECT_EQ(b[3], 7u);
  EXPECT_EQ(a.size(), 0u);  // NOLINT(bugprone-use-after-move): moved-from state is specified
  a = std::move(b);
  EXPECT_EQ(a.data(), p);
  EXPECT_EQ(b.data(), nullptr);  // NOLINT(bugprone-use-after-move)
}

}  // namespace
}  // namespace filterlab
