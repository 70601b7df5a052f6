#include "engine/memtable/skiplist.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstring>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "common/test_scale.h"
#include "hashing/remix.h"

namespace filterlab::engine {
namespace {

// Keys are 8 stored bytes holding a native u64; searches take the u64.
struct U64Compare {
  using DecodedKey = uint64_t;
  uint64_t Decode(const char* stored) const {
    uint64_t v;
    std::memcpy(&v, stored, sizeof(v));
    return v;
  }
  int operator()(const char* stored, uint64_t b) const {
    const uint64_t a = Decode(stored);
    return a < b ? -1 : (a > b ? 1 : 0);
  }
};
using U64List = SkipList<U64Compare>;

void Insert(U64List* list, uint64_t key) {
  char* p = list->AllocateKey(sizeof(key));
  std::memcpy(p, &key, sizeof(key));
  list->Insert(p);
}
uint64_t KeyAt(const U64List::Iterator& it) { return U64Compare().Decode(it.key()); }

TEST(SkipList, Empty) {
  Arena arena;
  U64List list(U64Compare(), &arena);
  EXPECT_FALSE(list.Contains(10));
  U64List::Iterator it(&list);
  it.SeekToFirst();
  EXPECT_FALSE(it.Valid());
  it.Seek(100);
  EXPECT_FALSE(it.Valid());
  it.SeekToLast();
  EXPECT_FALSE(it.Valid());
  it.SeekForPrev(100);
  EXPECT_FALSE(it.Valid());
  EXPECT_EQ(list.ApproximateNumEntries(0, 1000), 0u);
  EXPECT_EQ(list.ApproximateNumEntriesOld(0, 1000), 0u);
  EXPECT_EQ(list.max_height(), 1);
}

TEST(SkipList, InsertLookupAndIterateMatchAStdSet) {
  constexpr uint64_t kRange = 5000;
  Arena arena;
  U64List list(U64Compare(), &arena);
  std::set<uint64_t> model;
  SplitMix64 rng(1);
  for (int i = 0; i < 2000; ++i) {
    const uint64_t key = rng.Next() % kRange;
    if (model.insert(key).second) Insert(&list, key);
  }
  for (uint64_t k = 0; k < kRange; ++k) EXPECT_EQ(list.Contains(k), model.count(k) == 1) << k;

  U64List::Iterator it(&list);
  it.SeekToFirst();
  for (uint64_t k : model) {
    ASSERT_TRUE(it.Valid());
    EXPECT_EQ(KeyAt(it), k);
    it.Next();
  }
  EXPECT_FALSE(it.Valid());

  it.SeekToLast();
  for (auto r = model.rbegin(); r != model.rend(); ++r) {
    ASSERT_TRUE(it.Valid());
    EXPECT_EQ(KeyAt(it), *r);
    it.Prev();
  }
  EXPECT_FALSE(it.Valid());

  for (uint64_t target = 0; target < kRange + 10; target += 7) {
    it.Seek(target);
    auto lower = model.lower_bound(target);
    if (lower == model.end()) {
      EXPECT_FALSE(it.Valid()) << target;
    } else {
      ASSERT_TRUE(it.Valid()) << target;
      EXPECT_EQ(KeyAt(it), *lower);
    }
    it.SeekForPrev(target);
    auto upper = model.upper_bound(target);
    if (upper == model.begin()) {
      EXPECT_FALSE(it.Valid()) << target;
    } else {
      ASSERT_TRUE(it.Valid()) << target;
      EXPECT_EQ(KeyAt(it), *std::prev(upper));
    }
  }
  EXPECT_GT(list.max_height(), 1);
  EXPECT_LE(list.max_height(), U64List::kMaxHeight);
}

TEST(SkipList, SeekBatchMatchesLowerBound) {
  // Batches of 1..100 targets (several lockstep chunks) in random order with
  // repeats, below, among, between and above the keys, and an empty list.
  constexpr uint64_t kRange = 1000000;
  Arena arena;
  U64List list(U64Compare(), &arena);
  std::set<uint64_t> model;
  SplitMix64 rng(33);
  std::vector<uint64_t> targets;
  std::vector<const char*> found;
  for (int round = 0; round < 400; ++round) {
    if (round > 0) {  // round 0 searches the empty list
      for (int i = 0; i < 200; ++i) {
        const uint64_t key = 1000 + rng.Next() % kRange;
        if (model.insert(key).second) Insert(&list, key);
      }
    }
    targets.resize(1 + rng.Next() % 100);
    for (size_t i = 0; i < targets.size(); ++i) {
      const uint64_t kind = rng.Next() % 4;
      uint64_t t = rng.Next() % (kRange + 3000);  // below, between or above the keys
      if (kind == 0 && i > 0) {
        t = targets[rng.Next() % i];  // a repeat
      } else if (kind == 1 && model.lower_bound(t) != model.end()) {
        t = *model.lower_bound(t);  // a present key
      }
      targets[i] = t;
    }
    found.assign(targets.size(), reinterpret_cast<const char*>(1));
    list.SeekBatch(targets.data(), targets.size(), found.data());
    for (size_t i = 0; i < targets.size(); ++i) {
      const auto lower = model.lower_bound(targets[i]);
      if (lower == model.end()) {
        ASSERT_EQ(found[i], nullptr) << "round " << round << " target " << targets[i];
      } else {
        ASSERT_NE(found[i], nullptr) << "round " << round << " target " << targets[i];
        ASSERT_EQ(U64Compare().Decode(found[i]), *lower) << "round " << round << " target " << targets[i];
      }
    }
  }
}

// Keys stored as a 2-byte length and the bytes, compared bytewise (shorter
// prefix first): lengths 0..3000 cover empty keys and keys above a quarter
// arena block, which get an arena block of their own.
struct StringCompare {
  using DecodedKey = std::string_view;
  std::string_view Decode(const char* stored) const {
    uint16_t len;
    std::memcpy(&len, stored, sizeof(len));
    return std::string_view(stored + sizeof(len), len);
  }
  int operator()(const char* stored, std::string_view b) const { return Decode(stored).compare(b); }
};

TEST(SkipList, VariableLengthKeysLiveInTheirNodes) {
  Arena arena;
  SkipList<StringCompare> list(StringCompare(), &arena);
  std::map<std::string, const char*> model;  // key -> the node memory AllocateKey gave it
  SplitMix64 rng(11);
  for (int i = 0; i < 3000; ++i) {
    const size_t len = i % 100 == 0 ? rng.Next() % 3001 : rng.Next() % 24;
    std::string key(len, '\0');
    for (auto& c : key) c = static_cast<char>('a' + rng.Next() % 3);
    if (model.count(key)) continue;
    char* p = list.AllocateKey(sizeof(uint16_t) + key.size());
    const auto len16 = static_cast<uint16_t>(key.size());
    std::memcpy(p, &len16, sizeof(len16));
    std::memcpy(p + sizeof(len16), key.data(), key.size());
    list.Insert(p);
    model.emplace(key, p);
  }
  ASSERT_TRUE(model.count(""));  // rng % 24 == 0 happens ~125 times among the draws
  // In order, each key read back from the very bytes the writer filled (the
  // list keeps no copy and no separate key allocation).
  SkipList<StringCompare>::Iterator it(&list);
  it.SeekToFirst();
  for (const auto& [key, p] : model) {
    ASSERT_TRUE(it.Valid());
    EXPECT_EQ(it.key(), p);
    EXPECT_EQ(StringCompare().Decode(it.key()), key);
    EXPECT_TRUE(list.Contains(key));
    it.Next();
  }
  EXPECT_FALSE(it.Valid());
  EXPECT_FALSE(list.Contains("d"));
  it.Seek("b");
  ASSERT_TRUE(it.Valid());
  EXPECT_EQ(StringCompare().Decode(it.key()), model.lower_bound("b")->first);
}

TEST(SkipList, HeightsFollowTheBranchingFactor) {
  // With 4^k-fold thinning, n = 200000 keys reach height ≥ 7 with
  // probability 1 − (1 − 4^−6)^n ≈ 1 and height 12 only with 4^−11·n ≈ 0.05.
  Arena arena;
  U64List list(U64Compare(), &arena);
  for (uint64_t i = 0; i < 200000; ++i) Insert(&list, i);
  EXPECT_GE(list.max_height(), 7);
  EXPECT_LE(list.max_height(), 12);
}

// One writer inserts a random permutation; readers concurrently check that
// every key published before their check is found, iteration stays sorted
// and yields only keys the writer inserted. Run under TSan to check the
// acquire/release protocol.
TEST(SkipList, ConcurrentReadersWithOneWriter) {
  constexpr size_t kKeys = 20000;
  constexpr int kReaders = 3;
  std::vector<uint64_t> keys(kKeys);
  SplitMix64 rng(7);
  for (auto& k : keys) k = rng.Next() | 1;  // odd: the readers probe even keys as misses
  std::sort(keys.begin(), keys.end());
  keys.erase(std::unique(keys.begin(), keys.end()), keys.end());
  std::vector<uint64_t> order = keys;
  for (size_t i = order.size(); i > 1; --i) std::swap(order[i - 1], order[rng.Next() % i]);

  Arena arena;
  U64List list(U64Compare(), &arena);
  std::atomic<size_t> published{0};
  std::atomic<bool> done{false};

  auto reader = [&](int id) {
    SplitMix64 r(100 + id);
    int rounds = 0;
    while (!done.load(std::memory_order_acquire) || rounds < 3) {
      ++rounds;
      const size_t n = published.load(std::memory_order_acquire);
      // Every published key must be visible.
      for (int probe = 0; probe < 200 && n > 0; ++probe) {
        const uint64_t k = order[r.Next() % n];
        ASSERT_TRUE(list.Contains(k)) << "published key missing";
        ASSERT_FALSE(list.Contains(k + 1)) << "never-inserted key found";
      }
      // A lockstep batch over a sample of published keys finds each one.
      std::vector<uint64_t> sample;
      for (int probe = 0; probe < 64 && n > 0; ++probe) sample.push_back(order[r.Next() % n]);
      std::vector<const char*> found(sample.size());
      list.SeekBatch(sample.data(), sample.size(), found.data());
      for (size_t i = 0; i < sample.size(); ++i) {
        ASSERT_NE(found[i], nullptr);
        ASSERT_EQ(U64Compare().Decode(found[i]), sample[i]) << "published key missing from a batch search";
      }
      // A scan is sorted, holds only inserted keys and at least n of them.
      U64List::Iterator it(&list);
      size_t seen = 0;
      uint64_t prev = 0;
      for (it.SeekToFirst(); it.Valid(); it.Next()) {
        if (seen > 0) {
          ASSERT_LT(prev, KeyAt(it));
        }
        ASSERT_TRUE(std::binary_search(keys.begin(), keys.end(), KeyAt(it)));
        prev = KeyAt(it);
        ++seen;
      }
      ASSERT_GE(seen, n);
      (void)list.ApproximateNumEntries(keys[keys.size() / 4], keys[keys.size() / 2]);
    }
  };

  std::vector<std::thread> readers;
  for (int i = 0; i < kReaders; ++i) readers.emplace_back(reader, i);
  for (size_t i = 0; i < order.size(); ++i) {
    Insert(&list, order[i]);
    published.store(i + 1, std::memory_order_release);
  }
  done.store(true, std::memory_order_release);
  for (auto& t : readers) t.join();

  U64List::Iterator it(&list);
  size_t total = 0;
  for (it.SeekToFirst(); it.Valid(); it.Next()) ++total;
  EXPECT_EQ(total, keys.size());
}

// --- ApproximateNumEntries guarantees on 10^6 random keys ------------------------------------

struct EstimateStats {
  double mean = 0, sd = 0;
  uint64_t min = 0, max = 0;
  size_t zeros = 0, exact = 0, samples = 0;
};

class ApproximateNumEntriesTest : public ::testing::Test {
 protected:
  // A quarter under sanitizers, where the two spread tests (which need the
  // full size for their bands) are skipped.
  static constexpr size_t kNumKeys = SanitizerScaled(1000000, 4);

  static void SetUpTestSuite() {
    arena_ = new Arena;
    list_ = new U64List(U64Compare(), arena_);
    sorted_ = new std::vector<uint64_t>;
    SplitMix64 rng(2024);
    for (size_t i = 0; i < kNumKeys; ++i) {
      sorted_->push_back(rng.Next());  // splitmix64 outputs are distinct (a bijection of the counter)
    }
    std::sort(sorted_->begin(), sorted_->end());
    // Node heights are drawn independently of the keys, so the list's shape
    // does not depend on insertion order; inserting in key order keeps every
    // search path in cache and builds the million-entry list ~10x faster than
    // random order (each test runs in its own process and rebuilds it).
    for (uint64_t k : *sorted_) Insert(list_, k);
  }
  static void TearDownTestSuite() {
    delete list_;
    delete arena_;
    delete sorted_;
  }

  // Ranges [sorted[i], sorted[i + width]) at random i: true count = width.
  static EstimateStats Measure(size_t width, size_t samples, bool old_algorithm, uint64_t seed) {
    SplitMix64 rng(seed);
    std::vector<double> values;
    EstimateStats s;
    s.min = ~uint64_t{0};
    for (size_t j = 0; j < samples; ++j) {
      const size_t i = rng.Next() % (kNumKeys - width);
      const uint64_t start = (*sorted_)[i], end = (*sorted_)[i + width];
      const uint64_t est =
          old_algorithm ? list_->ApproximateNumEntriesOld(start, end) : list_->ApproximateNumEntries(start, end);
      values.push_back(static_cast<double>(est));
      s.min = std::min(s.min, est);
      s.max = std::max(s.max, est);
      s.zeros += est == 0;
      s.exact += est == width;
    }
    s.samples = samples;
    for (double v : values) s.mean += v;
    s.mean /= static_cast<double>(samples);
    for (double v : values) s.sd += (v - s.mean) * (v - s.mean);
    s.sd = std::sqrt(s.sd / static_cast<double>(samples - 1));
    return s;
  }

  static Arena* arena_;
  static U64List* list_;
  static std::vector<uint64_t>* sorted_;
};
Arena* ApproximateNumEntriesTest::arena_ = nullptr;
U64List* ApproximateNumEntriesTest::list_ = nullptr;
std::vector<uint64_t>* ApproximateNumEntriesTest::sorted_ = nullptr;

TEST_F(ApproximateNumEntriesTest, ExactUpToNine) {
  // Deterministic guarantee: counting reaches level 0 unless some level k ≥ 1
  // holds ≥ 10 in-range nodes, impossible with fewer than 10 entries.
  for (size_t w = 0; w <= 9; ++w) {
    const EstimateStats s = Measure(w, 3000, false, 10 + w);
    EXPECT_EQ(s.exact, s.samples) << "width " << w << " min " << s.min << " max " << s.max;
  }
}

TEST_F(ApproximateNumEntriesTest, TenIsExactUnlessAllTenNodesAreTall) {
  // Non-exact only if all 10 nodes reach level 1: p = 4^-10 ≈ 9.5e-7 per
  // range, so among 10000 ranges expect 0.01 misses; we allow one, and the
  // miss must then be the smallest scaled answer, 40.
  SplitMix64 rng(99);
  int misses = 0;
  for (int j = 0; j < 10000; ++j) {
    const size_t i = rng.Next() % (kNumKeys - 10);
    const uint64_t est = list_->ApproximateNumEntries((*sorted_)[i], (*sorted_)[i + 10]);
    if (est != 10) {
      ++misses;
      EXPECT_EQ(est, 40u);
    }
  }
  EXPECT_LE(misses, 1);
}

TEST_F(ApproximateNumEntriesTest, ElevenToThirtyNineAreExactOrAtLeastForty) {
  for (size_t w : {11, 15, 20, 25, 30, 39}) {
    SplitMix64 rng(200 + w);
    for (int j = 0; j < 2000; ++j) {
      const size_t i = rng.Next() % (kNumKeys - w);
      const uint64_t est = list_->ApproximateNumEntries((*sorted_)[i], (*sorted_)[i + w]);
      ASSERT_TRUE(est == w || est >= 40) << "width " << w << " estimate " << est;
    }
  }
}

TEST_F(ApproximateNumEntriesTest, AtLeastFortyWhenTrueCountIsAtLeastForty) {
  // Deterministic: any scaled answer is c_k·4^k with c_k ≥ 10, k ≥ 1; an
  // unscaled one is the exact count.
  for (size_t w : {40, 41, 75, 200, 1000, 5000}) {
    const EstimateStats s = Measure(w, 2000, false, 300 + w);
    EXPECT_GE(s.min, 40u) << "width " << w;
  }
}

// Statistical checks. Model: a node is on level k with probability 4^-k
// independently, so the in-range count at level k is Binomial(w, 4^-k)
// thinned level by level; simulating the stopping rule on that model (20000
// trials) gives mean/sd 1068/194 at w=1000 and 31299/4259 at w=30000. The
// spec's simulation and the PR histogram agree at 1000 (1063/190, 1074/198)
// but report less spread at 30000 (3215 and 3601, i.e. 10-12%): with 1M keys
// there are only ~33 disjoint ranges of width 30000 (level 5 holds ~980
// nodes), so any single skip list gives a noisy sd there. Tolerances are
// ±3 standard errors around the model, counting only disjoint ranges as
// independent samples:
//   w=1000:  1000 disjoint ranges -> SE(sd) ≈ sd/sqrt(2·1000) ≈ 2.2%,
//            SE(mean) ≈ 194/sqrt(1000) ≈ 6.  Band: rel. sd 0.17..0.22 (a bit
//            wider than 3 SE), mean 1040..1100.
//   w=30000: 33 disjoint ranges -> SE(sd) ≈ 12% of sd, SE(mean) ≈ 740.
//            Band: rel. sd 0.09..0.20, mean 29000..33600.
// These still fail for the old algorithm, an off-by-one level (spread
// doubles or halves) or a missing scale step (estimate off by 4x).
// Checks one width against its band; records mean and sd in the test XML.
void ExpectSpreadWithin(const EstimateStats& s, double width, double rel_sd_lo, double rel_sd_hi, double mean_lo,
                        double mean_hi) {
  const double rel_sd = s.sd / width;
  ::testing::Test::RecordProperty("mean", std::to_string(s.mean));
  ::testing::Test::RecordProperty("sd", std::to_string(s.sd));
  EXPECT_GT(rel_sd, rel_sd_lo) << "mean " << s.mean << " sd " << s.sd;
  EXPECT_LT(rel_sd, rel_sd_hi) << "mean " << s.mean << " sd " << s.sd;
  EXPECT_GT(s.mean, mean_lo);
  EXPECT_LT(s.mean, mean_hi);
  EXPECT_EQ(s.zeros, 0u);
}

TEST_F(ApproximateNumEntriesTest, SpreadAbout20PercentAt1000) {
  if (kSanitizedBuild) GTEST_SKIP() << "statistical bands need 10^6 keys: they run in the Release suite";
  ExpectSpreadWithin(Measure(1000, 4000, false, 1000), 1000, 0.17, 0.22, 1040, 1100);
}

TEST_F(ApproximateNumEntriesTest, SpreadAbout10To15PercentAt30000) {
  if (kSanitizedBuild) GTEST_SKIP() << "statistical bands need 10^6 keys: they run in the Release suite";
  ExpectSpreadWithin(Measure(30000, 2000, false, 30000), 30000, 0.09, 0.20, 29000, 33600);
}

TEST_F(ApproximateNumEntriesTest, OldAlgorithmIsMuchNoisierForSmallRanges) {
  // §2.4: at true count 1000 the old estimate has sd ≫ the count and ~13%
  // zeros (negative differences clamped). We only assert the comparison the
  // option exists for: the new estimate's spread is far below the old one's.
  const EstimateStats old_s = Measure(1000, 4000, true, 1000);
  const EstimateStats new_s = Measure(1000, 4000, false, 1000);
  EXPECT_GT(old_s.sd, 5 * new_s.sd) << "old sd " << old_s.sd << " new sd " << new_s.sd;
  EXPECT_GT(old_s.zeros, old_s.samples / 50) << "old zeros " << old_s.zeros;
}

TEST_F(ApproximateNumEntriesTest, OldRankEstimateIsExactWhereNoTallNodesPrecede) {
  // The rank estimate sums steps scaled by 4^level; for the very first key
  // there are no steps at all, so its rank is exactly 0.
  EXPECT_EQ(list_->EstimateRank((*sorted_)[0]), 0u);
}

}  // namespace
}  // namespace filterlab::engine
