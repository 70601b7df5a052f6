#include "engine/table/block_cache.h"

#include <gtest/gtest.h>

#include <atomic>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "common/test_scale.h"
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
  EXPECT_EQ(cache.LookupAs<std::string>({0, 1}), nullptr);  // file and offset swapped
  EXPECT_EQ(cache.hits(), 1u);
  EXPECT_EQ(cache.misses(), 3u);
  EXPECT_EQ(cache.usage(), 10u);
  EXPECT_EQ(cache.num_entries(), 1u);
  EXPECT_NE(cache.NewFileId(), cache.NewFileId());
}

TEST(BlockCache, EvictsEntriesNotHitLatelyWithinTheByteBudget) {
  BlockCache cache(100, 0);
  cache.Insert({1, 0}, Value("a"), 40);
  cache.Insert({1, 1}, Value("b"), 40);
  ASSERT_NE(cache.Lookup({1, 0}), nullptr);  // a was hit, b was not
  cache.Insert({1, 2}, Value("c"), 40);      // 120 > 100: b goes, wherever the hand starts
  EXPECT_EQ(cache.Lookup({1, 1}), nullptr);
  EXPECT_NE(cache.Lookup({1, 0}), nullptr);
  EXPECT_NE(cache.Lookup({1, 2}), nullptr);  // an insert never evicts itself
  EXPECT_EQ(cache.usage(), 80u);
  EXPECT_EQ(cache.num_entries(), 2u);
}

TEST(BlockCache, PinnedEntriesAreChargedButNeverEvicted) {
  BlockCache cache(100, 0);
  cache.Insert({1, 0}, Value("pinned"), 60, /*pinned=*/true);
  // Unpinned entries come and go around it; the pinned one is never hit
  // (its reader uses it directly), yet it stays, charged.
  for (uint64_t i = 1; i <= 20; ++i) {
    cache.Insert({2, i}, Value("x"), 30);
    EXPECT_LE(cache.usage(), 100u);
  }
  EXPECT_NE(cache.Lookup({1, 0}), nullptr);
  EXPECT_EQ(cache.usage(), 90u);  // the pinned 60 and the latest 30
  // Pinned entries filling the budget leave no room for others, and the
  // sweep that finds nothing to evict ends.
  cache.Insert({1, 1}, Value("pinned too"), 40, /*pinned=*/true);
  EXPECT_EQ(cache.usage(), 100u);
  cache.Insert({2, 99}, Value("y"), 30);
  EXPECT_EQ(cache.Lookup({2, 99}), nullptr);
  EXPECT_NE(cache.Lookup({1, 0}), nullptr);
  EXPECT_NE(cache.Lookup({1, 1}), nullptr);
  EXPECT_EQ(cache.usage(), 100u);
  // Erase is the only way out.
  cache.Erase({1, 0});
  cache.Erase({1, 1});
  EXPECT_EQ(cache.Lookup({1, 0}), nullptr);
  cache.Insert({2, 100}, Value("z"), 90);
  EXPECT_NE(cache.Lookup({2, 100}), nullptr);
  EXPECT_LE(cache.usage(), 100u);
}

TEST(BlockCache, ChargesAreAccountedOnInsertReplaceAndErase) {
  BlockCache cache(100, 0);
  cache.Insert({1, 0}, Value("a"), 40);
  cache.Insert({1, 1}, Value("b"), 30);
  EXPECT_EQ(cache.usage(), 70u);

  // Replacing an entry re-charges it and serves the new value.
  cache.Insert({1, 0}, Value("A"), 10);
  EXPECT_EQ(cache.usage(), 40u);
  EXPECT_EQ(cache.num_entries(), 2u);
  EXPECT_EQ(*cache.LookupAs<std::string>({1, 0}), "A");

  // A replacement that needs room evicts others, never itself.
  cache.Insert({1, 0}, Value("AA"), 90);
  EXPECT_EQ(*cache.LookupAs<std::string>({1, 0}), "AA");
  EXPECT_EQ(cache.Lookup({1, 1}), nullptr);
  EXPECT_EQ(cache.usage(), 90u);

  // An entry larger than the budget is not kept and evicts nothing; its
  // value lives on in the caller's hands. An exact fit is kept.
  auto big = Value("big");
  cache.Insert({1, 3}, big, 101);
  EXPECT_EQ(cache.Lookup({1, 3}), nullptr);
  EXPECT_EQ(*big, "big");
  EXPECT_EQ(cache.usage(), 90u);
  // ...and an oversize replacement drops the old entry under its key.
  cache.Insert({1, 0}, Value("huge"), 1000);
  EXPECT_EQ(cache.Lookup({1, 0}), nullptr);
  EXPECT_EQ(cache.usage(), 0u);
  cache.Insert({1, 4}, Value("fits"), 100);
  EXPECT_EQ(cache.usage(), 100u);

  cache.Erase({1, 4});
  cache.Erase({1, 4});  // erasing a missing key is a no-op
  EXPECT_EQ(cache.Lookup({1, 4}), nullptr);
  EXPECT_EQ(cache.usage(), 0u);
  EXPECT_EQ(cache.num_entries(), 0u);

  // Zero charges are allowed and count as entries.
  cache.Insert({2, 0}, Value("free"), 0);
  EXPECT_EQ(cache.usage(), 0u);
  EXPECT_EQ(cache.num_entries(), 1u);
}

TEST(BlockCache, EvictedAndErasedValuesStayAliveWhileHeld) {
  std::shared_ptr<const std::string> evicted, erased, outlived;
  {
    BlockCache cache(10, 0);
    cache.Insert({1, 0}, Value("held"), 10);
    evicted = cache.LookupAs<std::string>({1, 0});
    cache.Insert({1, 1}, Value("other"), 10);
    EXPECT_EQ(cache.Lookup({1, 0}), nullptr);
    erased = cache.LookupAs<std::string>({1, 1});
    cache.Erase({1, 1});
    EXPECT_EQ(cache.Lookup({1, 1}), nullptr);
    cache.Insert({1, 2}, Value("cache dies first"), 5);
    outlived = cache.LookupAs<std::string>({1, 2});
  }
  EXPECT_EQ(*evicted, "held");
  EXPECT_EQ(*erased, "other");
  EXPECT_EQ(*outlived, "cache dies first");
  EXPECT_EQ(evicted.use_count(), 1);  // the cache kept no reference behind
  EXPECT_EQ(erased.use_count(), 1);
  EXPECT_EQ(outlived.use_count(), 1);
}

TEST(BlockCache, ShardsSplitTheBudget) {
  BlockCache cache(16 * 100, 4);  // 16 shards of 100 bytes
  for (uint64_t i = 0; i < 10000; ++i) cache.Insert({7, i}, Value("x"), 10);
  // Every shard is at most full, and with 10000 keys hashed over 16 shards
  // every shard received far more than 10 entries, so all are exactly full.
  EXPECT_EQ(cache.usage(), 1600u);
  EXPECT_EQ(cache.num_entries(), 160u);
}

// Many entries force the shard's table to double many times (it starts at
// 16 slots), and erasing every other one exercises backward-shift deletion
// across long probe runs: every survivor must stay findable.
TEST(BlockCache, GrowsAndErasesWithoutLosingEntries) {
  BlockCache cache(size_t{1} << 30, 0);
  const uint64_t n = SanitizerScaled(20000);
  for (uint64_t i = 0; i < n; ++i) cache.Insert({i % 7, i}, Value(std::to_string(i)), 1);
  EXPECT_EQ(cache.num_entries(), n);
  for (uint64_t i = 0; i < n; i += 2) cache.Erase({i % 7, i});
  for (uint64_t i = 0; i < n; ++i) {
    auto v = cache.LookupAs<std::string>({i % 7, i});
    if (i % 2 == 0) {
      ASSERT_EQ(v, nullptr) << i;
    } else {
      ASSERT_NE(v, nullptr) << i;
      ASSERT_EQ(*v, std::to_string(i));
    }
  }
  EXPECT_EQ(cache.usage(), n / 2);
}

// Recency matters: entries hit regularly outlive a long stream of blocks
// inserted once (a FIFO or random policy would have dropped them after
// about one capacity's worth of inserts).
TEST(BlockCache, RegularlyHitEntriesSurviveAStreamOfOneOffInserts) {
  constexpr uint64_t kCapacity = 100, kHot = 30, kStream = 2000;
  BlockCache cache(kCapacity, 0);
  for (uint64_t i = 0; i < kHot; ++i) cache.Insert({1, i}, Value("hot"), 1);
  for (uint64_t i = 0; i < kStream; ++i) {
    cache.Insert({2, i}, Value("cold"), 1);
    if (i % 20 == 0) {
      for (uint64_t h = 0; h < kHot; ++h) ASSERT_NE(cache.Lookup({1, h}), nullptr) << "hot " << h << " at " << i;
    }
  }
  EXPECT_EQ(cache.usage(), kCapacity);
}

// Random inserts (with random charges), replacements, erases and lookups
// against a reference map of what was last stored under each key. The
// cache may have evicted any entry, but: a found value is the last one
// stored (never a stale or erased one), a just-inserted entry is present,
// nothing is evicted while everything fits, and usage() / num_entries()
// equal the sums over the entries actually present.
void RunModelTest(int num_shard_bits, uint64_t seed) {
  constexpr size_t kCapacity = 4096;
  BlockCache cache(kCapacity, num_shard_bits);
  const size_t shard_budget = kCapacity >> num_shard_bits;
  struct Stored {
    std::string value;
    size_t charge;
  };
  std::map<uint64_t, Stored> model;  // offset -> last stored; erased keys removed
  SplitMix64 rng(seed);
  const int kOps = static_cast<int>(SanitizerScaled(30000));
  uint64_t lookups = 0;
  for (int op = 0; op < kOps; ++op) {
    // A key space a few times the capacity (mean charge ~ shard_budget/16).
    const uint64_t offset = rng.Next() % 400;
    const BlockCacheKey key{offset % 3, offset};
    const uint64_t kind = rng.Next() % 10;
    if (kind < 3) {
      ++lookups;
      auto v = cache.LookupAs<std::string>(key);
      auto it = model.find(offset);
      if (it == model.end()) {
        ASSERT_EQ(v, nullptr) << "op " << op << ": found key " << offset << " never stored or erased";
      } else if (v != nullptr) {
        ASSERT_EQ(*v, it->second.value) << "op " << op << ": stale value";
      }
    } else if (kind < 4) {
      // A batch of 1..70 keys (two chunks of LookupBatch's 32 and a part),
      // with repeats: each answer is what Lookup would give, counted once.
      std::vector<BlockCacheKey> keys(1 + rng.Next() % 70);
      for (auto& k : keys) {
        const uint64_t off = rng.Next() % 8 == 0 ? offset : rng.Next() % 400;
        k = {off % 3, off};
      }
      std::vector<std::shared_ptr<const void>> out(keys.size(), Value("stale"));
      cache.LookupBatch(keys.data(), keys.size(), out.data());
      lookups += keys.size();
      for (size_t i = 0; i < keys.size(); ++i) {
        auto it = model.find(keys[i].offset);
        if (it == model.end()) {
          ASSERT_EQ(out[i], nullptr) << "op " << op << ": batch found key " << keys[i].offset << " not stored";
        } else if (out[i] != nullptr) {
          ASSERT_EQ(*std::static_pointer_cast<const std::string>(out[i]), it->second.value) << "op " << op;
        }
        // Nothing evicts between the batch and this Lookup: they agree.
        ASSERT_EQ(out[i], cache.Lookup(keys[i])) << "op " << op << ": batch and Lookup disagree";
        ++lookups;
      }
    } else if (kind < 8) {
      // Mostly small charges; now and then one over the shard's budget.
      const size_t charge =
          rng.Next() % 100 == 0 ? shard_budget + 1 + rng.Next() % 10 : rng.Next() % (shard_budget / 8 + 1);
      const std::string value = std::to_string(offset) + "/" + std::to_string(op);
      const size_t entries_before = cache.num_entries();
      const size_t usage_before = cache.usage();
      const bool had_key = cache.Lookup(key) != nullptr;
      ++lookups;
      // Half the inserts carry prefetch hints: the value's bytes, and an
      // address that is never mapped (a prefetch must not fault). Hints
      // change nothing the model can see, through growth, eviction and erase.
      auto stored = Value(value);
      BlockCacheHint hint;
      if (rng.Next() % 2 == 0) hint = {stored->data(), reinterpret_cast<const void*>(uintptr_t{64})};
      cache.Insert(key, std::move(stored), charge, /*pinned=*/false, hint);
      if (charge > shard_budget) {
        model.erase(offset);
        ASSERT_EQ(cache.Lookup(key), nullptr) << "op " << op << ": oversize entry kept";
      } else {
        model[offset] = Stored{value, charge};
        auto v = cache.LookupAs<std::string>(key);
        ASSERT_NE(v, nullptr) << "op " << op << ": just-inserted entry missing";
        ASSERT_EQ(*v, value);
        if (num_shard_bits == 0 && usage_before + charge <= kCapacity) {
          ASSERT_EQ(cache.num_entries(), entries_before + (had_key ? 0 : 1)) << "op " << op << ": evicted with room";
        }
      }
      ++lookups;
    } else {
      cache.Erase(key);
      model.erase(offset);
      ASSERT_EQ(cache.Lookup(key), nullptr);
      ++lookups;
    }
    ASSERT_LE(cache.usage(), kCapacity);
    if (op % 500 == 0 || op == kOps - 1) {
      size_t present_charge = 0, present = 0;
      for (const auto& [off, stored] : model) {
        auto v = cache.LookupAs<std::string>({off % 3, off});
        ++lookups;
        if (v == nullptr) continue;
        ASSERT_EQ(*v, stored.value);
        present_charge += stored.charge;
        ++present;
      }
      ASSERT_EQ(cache.usage(), present_charge) << "op " << op;
      ASSERT_EQ(cache.num_entries(), present) << "op " << op;
    }
  }
  EXPECT_EQ(cache.hits() + cache.misses(), lookups);
  EXPECT_GT(cache.hits(), 0u);
}

TEST(BlockCache, RandomOpsMatchAReferenceOneShard) { RunModelTest(0, 11); }
TEST(BlockCache, RandomOpsMatchAReferenceFourShards) { RunModelTest(2, 12); }

// Threads insert, look up and erase overlapping keys; values must always be
// the ones stored under their key, and the budget must hold at the end. Run
// under TSan (build-engine-tsan) to check the locking.
TEST(BlockCache, ConcurrentUseIsConsistent) {
  BlockCache cache(64 * 1024, 3);
  constexpr int kThreads = 4;
  const int kOps = static_cast<int>(SanitizerScaled(20000, 4));
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
        if (op < 5) {
          lookups.fetch_add(1);
          auto v = cache.LookupAs<std::string>(key);
          if (v && *v != std::to_string(offset)) wrong.fetch_add(1);
        } else if (op < 6) {
          // A batch, while other threads insert (growing shards) and erase.
          BlockCacheKey keys[8];
          std::shared_ptr<const void> out[8];
          for (auto& k : keys) {
            const uint64_t off = rng.Next() % 2000;
            k = {1 + off % 3, off};
          }
          cache.LookupBatch(keys, 8, out);
          lookups.fetch_add(8);
          for (int k = 0; k < 8; ++k) {
            if (out[k] && *std::static_pointer_cast<const std::string>(out[k]) != std::to_string(keys[k].offset)) {
              wrong.fetch_add(1);
            }
          }
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

// Readers keep the values they found for a while and check them later,
// while a writer churns the (small) cache so those values are evicted: held
// values must stay intact (ASan/TSan would see a use after free or a race)
// and the cache's own accounting must add up afterwards. The writer keeps
// going until the readers have checked enough batches, so the readers
// overlap the churn however the threads get scheduled.
TEST(BlockCache, ConcurrentReadersHoldValuesAcrossEviction) {
  BlockCache cache(32 * 64, 1);  // 2 shards of 16 entries of charge 64
  const int kMinInserts = static_cast<int>(SanitizerScaled(20000, 4));
  constexpr int kReaders = 2, kBatchesEach = 20, kBatch = 64;
  std::atomic<bool> stop{false};
  std::atomic<int> wrong{0};
  std::atomic<int> batches_checked{0};
  std::vector<std::thread> threads;
  threads.emplace_back([&] {
    SplitMix64 rng(7);
    for (int i = 0; i < kMinInserts || batches_checked.load() < kReaders * kBatchesEach; ++i) {
      const uint64_t off = rng.Next() % 256;
      cache.Insert({1, off}, Value(std::to_string(off)), 64);
    }
    stop.store(true);
  });
  for (int t = 0; t < kReaders; ++t) {
    threads.emplace_back([&, t] {
      SplitMix64 rng(20 + t);
      std::vector<std::pair<uint64_t, std::shared_ptr<const std::string>>> held;
      int my_batches = 0;
      while (!stop.load()) {
        const uint64_t off = rng.Next() % 256;
        if (auto v = cache.LookupAs<std::string>({1, off})) held.emplace_back(off, std::move(v));
        if (held.size() == kBatch) {
          for (const auto& [o, v] : held) {
            if (*v != std::to_string(o)) wrong.fetch_add(1);
          }
          held.clear();
          if (++my_batches <= kBatchesEach) batches_checked.fetch_add(1);
        }
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(wrong.load(), 0);
  EXPECT_EQ(batches_checked.load(), kReaders * kBatchesEach);
  EXPECT_LE(cache.usage(), cache.capacity());
  EXPECT_EQ(cache.usage(), cache.num_entries() * 64);
}

// The automatic shard count keeps shards of at least 4 MiB, so a small
// cache still holds a table's filter block (one block of ~0.7 MB for a
// 64 MiB table at 10 bits/key) instead of refusing it as larger than a
// sixteenth of the cache.
TEST(BlockCache, AutomaticShardsKeepLargeBlocksInSmallCaches) {
  EXPECT_EQ(BlockCache(size_t{1} << 20).num_shard_bits(), 0);
  EXPECT_EQ(BlockCache(size_t{8} << 20).num_shard_bits(), 1);
  EXPECT_EQ(BlockCache(size_t{64} << 20).num_shard_bits(), 4);
  EXPECT_EQ(BlockCache(size_t{1} << 30).num_shard_bits(), 4);
  EXPECT_EQ(BlockCache(size_t{8} << 20, 4).num_shard_bits(), 4);  // explicit bits stay
  BlockCache cache(size_t{8} << 20);
  const size_t filter_bytes = 700 * 1024;
  cache.Insert({1, 0}, std::make_shared<const std::string>(filter_bytes, 'f'), filter_bytes);
  EXPECT_NE(cache.Lookup({1, 0}), nullptr);
  EXPECT_EQ(cache.usage(), filter_bytes);
}

}  // namespace
}  // namespace filterlab::engine
