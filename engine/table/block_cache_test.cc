#include "engine/table/block_cache.h"

#include <gtest/gtest.h>

#include <atomic>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "hashing/remix.h"

namespace filterlab::engine {
namespace {

std::shared_ptr<const std::string> Value(const std::string& s) { return std::make_shared<const std::string>(s); }

TEST(BlockCache, CountsHitsAndMisses) {
  BlockCache cache(1000, 0);
  EXPECT_EQ(cache.LookupAs<std::string>({1, 0}), nullptr);
  cache.Insert({1, 0}, Value("a"), 10);
  auto v = cache.LookupAs<std::string>({1, 0});
  ASSERT_NE(v, nullptr);
  EXPECT_EQ(*v, "a");
  EXPECT_EQ(cache.LookupAs<std::string>({2, 0}), nullptr);  // other file, same offset
  EXPECT_EQ(cache.hits(), 1u);
  EXPECT_EQ(cache.misses(), 2u);
  EXPECT_EQ(cache.usage(), 10u);
  EXPECT_EQ(cache.num_entries(), 1u);
  EXPECT_NE(cache.NewFileId(), cache.NewFileId());
}

TEST(BlockCache, EvictsLeastRecentlyUsedWithinTheByteBudget) {
  BlockCache cache(100, 0);
  cache.Insert({1, 0}, Value("a"), 40);
  cache.Insert({1, 1}, Value("b"), 40);
  ASSERT_NE(cache.Lookup({1, 0}), nullptr);  // a is now more recent than b
  cache.Insert({1, 2}, Value("c"), 40);      // 120 > 100: b goes
  EXPECT_EQ(cache.Lookup({1, 1}), nullptr);
  EXPECT_NE(cache.Lookup({1, 0}), nullptr);
  EXPECT_NE(cache.Lookup({1, 2}), nullptr);
  EXPECT_EQ(cache.usage(), 80u);

  // Replacing an entry re-charges it.
  cache.Insert({1, 0}, Value("A"), 10);
  EXPECT_EQ(cache.usage(), 50u);
  EXPECT_EQ(*cache.LookupAs<std::string>({1, 0}), "A");

  // An entry larger than the budget is not kept, but its value lives on in
  // the caller's hands.
  auto big = Value("big");
  cache.Insert({1, 3}, big, 1000);
  EXPECT_EQ(cache.Lookup({1, 3}), nullptr);
  EXPECT_EQ(*big, "big");
  EXPECT_LE(cache.usage(), 100u);

  cache.Erase({1, 2});
  EXPECT_EQ(cache.Lookup({1, 2}), nullptr);
  EXPECT_EQ(cache.usage(), 0u);  // the oversize insert evicted everything else
}

TEST(BlockCache, EvictedValuesStayAliveWhileHeld) {
  BlockCache cache(10, 0);
  cache.Insert({1, 0}, Value("held"), 10);
  auto held = cache.LookupAs<std::string>({1, 0});
  cache.Insert({1, 1}, Value("other"), 10);
  EXPECT_EQ(cache.Lookup({1, 0}), nullptr);
  EXPECT_EQ(*held, "held");
}

TEST(BlockCache, ShardsSplitTheBudget) {
  BlockCache cache(16 * 100, 4);  // 16 shards of 100 bytes
  for (uint64_t i = 0; i < 10000; ++i) cache.Insert({7, i}, Value("x"), 10);
  // Every shard is at most full, and with 10000 keys hashed over 16 shards
  // every shard received far more than 10 entries, so all are exactly full.
  EXPECT_EQ(cache.usage(), 1600u);
  EXPECT_EQ(cache.num_entries(), 160u);
}

// Threads insert, look up and erase overlapping keys; values must always be
// the ones stored under their key, and the budget must hold at the end. Run
// under TSan (build-engine-tsan) to check the locking.
TEST(BlockCache, ConcurrentUseIsConsistent) {
  BlockCache cache(64 * 1024, 3);
  constexpr int kThreads = 4;
  constexpr int kOps = 20000;
  std::atomic<int> wrong{0};
  std::atomic<uint64_t> lookups{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      SplitMix64 rng(100 + t);
      for (int i = 0; i < kOps; ++i) {
        const uint64_t offset = rng.Next() % 2000;
        const BlockCacheKey key{1 + offset % 3, offset};
        const uint64_t op = rng.Next() % 10;
        if (op < 6) {
          lookups.fetch_add(1);
          auto v = cache.LookupAs<std::string>(key);
          if (v && *v != std::to_string(offset)) wrong.fetch_add(1);
        } else if (op < 9) {
          cache.Insert(key, Value(std::to_string(offset)), 50 + offset % 200);
        } else {
          cache.Erase(key);
        }
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(wrong.load(), 0);
  EXPECT_LE(cache.usage(), cache.capacity());
  EXPECT_GT(cache.hits(), 0u);
  EXPECT_GT(cache.misses(), 0u);
  EXPECT_EQ(cache.hits() + cache.misses(), lookups.load()) << "every lookup counts exactly once";
}

}  // namespace
}  // namespace filterlab::engine
