#include "engine/db/level_filters.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <optional>
#include <random>
#include <string>

#include "engine/db/db_test_util.h"
#include "engine/memtable/internal_key.h"

namespace filterlab::engine {
namespace {

using test::Key;
using test::ScratchDir;

// A tree of several levels from random writes (fixed seed), settled. Not
// scaled down under the sanitizers (common/test_scale.h): fewer keys give
// fewer levels, and these tests are about the levels' shape (20k keys take
// about a second there).
std::unique_ptr<DB> FillTree(const Options& o, const std::string& path, int n) {
  std::unique_ptr<DB> db;
  Status s = DB::Open(o, path, &db);
  EXPECT_TRUE(s.ok()) << s.ToString();
  if (!s.ok()) return nullptr;
  std::mt19937_64 rng(7);
  for (int i = 0; i < n; ++i) {
    EXPECT_TRUE(db->Put(WriteOptions(), Key(rng() % (4 * n)), test::Value(i, 0)).ok());
  }
  EXPECT_TRUE(db->Flush(true).ok());
  EXPECT_TRUE(db->WaitForCompaction().ok());
  return db;
}

// Small tables at T = 4, fastlocal sized by `policy` under a budget of 5 bits/key.
Options AllocatedTreeOptions(allocation::AllocationPolicy policy) {
  Options o = test::SmallOptions();
  o.level_size_multiplier = 4;
  o.filter_policy = test::Policy("fastlocal:bpk=10");
  o.filter_allocation = Options::FilterAllocation{policy, 5, 0};
  return o;
}

// Monkey in the engine: every table holds a filter the allocation sized
// (not the family's own 10 bits/key; the levels' sizes differ, so do their
// bits), and the memory the tables hold follows the budget. (As grown, the
// levels' tables were sized at many moments of the tree's growth, so which
// level has more is checked after RewriteFilters, each table then sized for
// the tree as it is; under load an interleaving left the grown levels within
// 0.34 bits/key of each other.) In a tree this small
// (20k keys, 4 levels at T = 4) the deepest level is young for the whole
// test and keeps tables sized for earlier shapes of the tree (level_filters.h,
// "while the tree grows"), so the total drifts from the budget either way,
// by how compactions interleave with the writes: measured 4.3..6.8 bits/key
// at a budget of 5 (4.3 under ASan's timing). The bounds are therefore half
// and one and a half times the budget: tight enough to fail if the budget
// were ignored (the family's own 10 bits/key, 10.3 with its rounding) or if
// levels were left without filters, loose enough for any interleaving.
// RewriteFiltersGivesEveryLevelTheAllocationOfItsShape below checks the
// budget within 2% once every table is sized for the tree as it is.
// After RewriteFilters the deepest level has fewer bits than the shallowest
// and than the most, but not always fewer than the level above it: the
// allocation weights each level by the lookups that reach it (LookupReach,
// for the key range of the level's first table) and each table rounds up to
// whole lines (the deepest holds the most, smallest tables), so two deep
// levels of 5k and 11k keys came out either way (3.97 against 5.18 measured
// bits/key in 3 of 10 runs, 5.21 against 4.66 in the others).
TEST(LevelFilters, MonkeyGivesDeeperLevelsFewerBitsAndFollowsTheBudget) {
  ScratchDir dir;
  const Options o = AllocatedTreeOptions(allocation::AllocationPolicy::kMonkey);
  auto db = FillTree(o, dir.db(), 20000);
  ASSERT_NE(db, nullptr);
  const DbStats stats = db->GetStats();
  uint64_t entries = 0, filter_bytes = 0;
  std::vector<double> level_bits;
  for (const LevelStats& l : stats.levels) {
    entries += l.entries;
    filter_bytes += l.filter_bytes;
    if (l.files == 0) continue;
    EXPECT_EQ(l.filter.rfind("fastlocal:bpk=", 0), 0u) << l.filter;
    EXPECT_EQ(l.filter.find("fastlocal:bpk=10,"), std::string::npos) << l.filter;
    level_bits.push_back(8.0 * static_cast<double>(l.filter_bytes) / static_cast<double>(l.entries));
  }
  ASSERT_GE(level_bits.size(), 3u) << "the test needs a tree of several levels";
  ASSERT_GT(entries, 0u);
  const double bits_per_key = 8.0 * static_cast<double>(filter_bytes) / static_cast<double>(entries);
  EXPECT_GT(bits_per_key, 0.5 * 5) << "filter bits / entries over all tables";
  EXPECT_LT(bits_per_key, 1.5 * 5) << "filter bits / entries over all tables";
  // The levels' bits as grown depend on how compactions interleaved with the
  // writes (a level may still hold tables sized when it was the deepest);
  // once every table is sized for the tree as it is, the deepest level, the
  // largest, has the fewest bits, and well below the most.
  uint64_t rewritten = 0;
  ASSERT_TRUE(db->RewriteFilters(&rewritten).ok());
  std::vector<double> settled;
  for (const LevelStats& l : db->GetStats().levels) {
    if (l.files != 0) settled.push_back(8.0 * static_cast<double>(l.filter_bytes) / static_cast<double>(l.entries));
  }
  ASSERT_GE(settled.size(), 3u);
  EXPECT_LT(settled.back() + 0.5, settled.front()) << "the deepest level has fewer bits than the shallowest";
  EXPECT_GT(*std::max_element(settled.begin(), settled.end()), settled.back() + 0.5);
}

// Statistics that tell the truth: a level without a filter still counts its
// lookups, and its wasted reads are every lookup of a key it lacks; a
// filtered level's wasted reads are its false positives, near the model.
TEST(LevelFilters, LevelsWithoutFiltersCountTheirLookups) {
  ScratchDir dir;
  Options o = test::SmallOptions();
  o.per_level_filter_policy = {test::Policy("fastlocal:bpk=6"), nullptr};  // L1 unfiltered, deeper: --filter
  o.filter_policy = test::Policy("fastlocal:bpk=6");
  auto db = FillTree(o, dir.db(), 20000);
  ASSERT_NE(db, nullptr);
  db->ResetFilterStats();
  std::string v;
  const int n = 4000;
  // Never written, spread over the key space (sorted levels have gaps between files).
  for (int i = 0; i < n; ++i) db->Get(ReadOptions(), Key(20 * i) + "x", &v);
  const DbStats stats = db->GetStats();
  const LevelStats& l1 = stats.levels[1];
  ASSERT_GT(l1.files, 0u);
  EXPECT_EQ(l1.filter, "none");
  EXPECT_EQ(l1.filter_counters().checked, 0u);
  // L1 covers part of the key space (its files move down one at a time): some lookups reach it.
  EXPECT_GT(l1.filter_counters().lookups, static_cast<uint64_t>(n / 10));
  EXPECT_EQ(l1.filter_counters().wasted_reads(), l1.filter_counters().lookups);
  EXPECT_EQ(l1.filter_bytes, 0u);
  EXPECT_EQ(l1.model_fp, 1.0);
  for (const LevelStats& l : stats.levels) {
    if (l.level < 2 || l.files == 0) continue;
    const FilterCounters& c = l.filter_counters();
    EXPECT_EQ(c.checked, c.lookups) << l.level;
    EXPECT_EQ(c.wasted_reads(), c.positive - c.true_positive) << l.level;
    EXPECT_GT(l.filter_bytes, 0u);
    // fastlocal at 6 bits/key: ~5.6% model; 5-sigma binomial bound on the lookups.
    const double trials = static_cast<double>(c.missing_lookups());
    const double sigma = std::sqrt(trials * l.model_fp * (1 - l.model_fp));
    EXPECT_NEAR(static_cast<double>(c.wasted_reads()), trials * l.model_fp, 5 * sigma + 1) << l.level;
    EXPECT_GT(l.model_fp, 0.03);
    EXPECT_LT(l.model_fp, 0.09);
  }
}

std::shared_ptr<FileMetaData> Table(uint64_t number, int lo, int hi, uint64_t entries) {
  auto f = std::make_shared<FileMetaData>();
  f->number = number;
  AppendInternalKey(&f->smallest, Key(lo), 1, kTypeValue);
  AppendInternalKey(&f->largest, Key(hi), 1, kTypeValue);
  f->num_entries = entries;
  return f;
}

// The weights are the shares of the stored keys inside each level's
// tables: level 2 (ten tables of 1000 keys over [0, 10000)) holds the key
// space, level 1 (one table of 500 over [0, 5000)) half of it. Boundary
// keys stand for their tables' entries, so here the shares are exact:
// level 1's range holds its own 500 keys and level 2's first five tables.
TEST(LevelFilters, LookupReachIsTheShareOfKeysInsideTheTables) {
  Version v(4);
  v.mutable_files(1).push_back(Table(1, 0, 4999, 500));
  for (int i = 0; i < 10; ++i) v.mutable_files(2).push_back(Table(10 + i, 1000 * i, 1000 * i + 999, 1000));
  std::vector<double> reach = LookupReach(v, OutputJob());
  ASSERT_EQ(reach.size(), 4u);
  EXPECT_EQ(reach[0], 0.0);
  EXPECT_DOUBLE_EQ(reach[1], 5500.0 / 10500.0);
  EXPECT_DOUBLE_EQ(reach[2], 1.0);
  EXPECT_EQ(reach[3], 0.0);
  // A flush of 2000 keys over the whole range adds a level-0 run all lookups reach.
  const std::string lo = Key(0), hi = Key(9999);
  OutputJob flush;
  flush.level = 0;
  flush.entries = 2000;
  flush.smallest = lo;
  flush.largest = hi;
  reach = LookupReach(v, flush);
  EXPECT_DOUBLE_EQ(reach[0], 1.0);
  EXPECT_DOUBLE_EQ(reach[1], 6500.0 / 12500.0);
  // Compacting level 1's table with level 2's first five: level 1 empties,
  // level 2 still covers everything.
  const FileList upper = v.files(1);
  const FileList lower(v.files(2).begin(), v.files(2).begin() + 5);
  OutputJob compaction;
  compaction.level = 2;
  compaction.entries = 5500;
  compaction.smallest = v.files(1)[0]->smallest_user_key();
  compaction.largest = v.files(2)[4]->largest_user_key();
  compaction.inputs = {&upper, &lower};
  reach = LookupReach(v, compaction);
  EXPECT_EQ(reach[1], 0.0);
  EXPECT_DOUBLE_EQ(reach[2], 1.0);
}

// DB::RewriteFilters brings every table to what the allocation gives its
// level in the tree as it is: one filter per level (and a second rewrite
// finds nothing to do), the memory at the budget, and nothing else changed.
// Memory: each table's filter rounds up to whole 64-byte lines and adds a
// 5-byte trailer, which the allocation counts (so uniform too is rewritten:
// its tables were sized for the counts of the tree as it grew). In this
// tree of small tables (~160 keys) one line per table is ~3 bits per key,
// and a level's tables, cut at one size, cross a line boundary together:
// the nearest reachable memory can be up to half a line per table from the
// budget, which the bound allows beside the 2% (lsmbench's test in
// tests/test_lsmbench.py holds 2% on realistic ~3000-key tables).
TEST(LevelFilters, RewriteFiltersGivesEveryLevelTheAllocationOfItsShape) {
  // One tree, grown under uniform, is copied and reopened under each policy:
  // its tables were sized as it grew, so each policy has them to rewrite.
  ScratchDir grown_dir(/*in_memory=*/true);
  {
    auto grown = FillTree(AllocatedTreeOptions(allocation::AllocationPolicy::kUniform), grown_dir.db(), 20000);
    ASSERT_NE(grown, nullptr);
  }
  for (const auto policy : {allocation::AllocationPolicy::kUniform, allocation::AllocationPolicy::kMonkey,
                            allocation::AllocationPolicy::kOptimal}) {
    SCOPED_TRACE(allocation::AllocationPolicyName(policy));
    ScratchDir dir(/*in_memory=*/true);
    std::filesystem::copy(grown_dir.db(), dir.db(), std::filesystem::copy_options::recursive);
    std::unique_ptr<DB> db;
    const Status opened = DB::Open(AllocatedTreeOptions(policy), dir.db(), &db);
    ASSERT_TRUE(opened.ok()) << opened.ToString();
    const auto before = test::ScanAll(db.get());
    uint64_t rewritten = 0;
    ASSERT_TRUE(db->RewriteFilters(&rewritten).ok());
    EXPECT_GT(rewritten, 0u);
    EXPECT_TRUE(test::ScanAll(db.get()) == before);
    uint64_t again = 1;
    ASSERT_TRUE(db->RewriteFilters(&again).ok());
    EXPECT_EQ(again, 0u) << "a second rewrite finds every table at its level's filter";
    const DbStats stats = db->GetStats();
    uint64_t entries = 0, filter_bytes = 0, tables = 0;
    int levels = 0;
    for (const LevelStats& l : stats.levels) {
      entries += l.entries;
      filter_bytes += l.filter_bytes;
      tables += l.files;
      if (l.files == 0) continue;
      ++levels;
      EXPECT_EQ(l.filter.find('|'), std::string::npos) << "one filter per level: " << l.filter;
    }
    EXPECT_GE(levels, 3);
    ASSERT_GT(entries, 0u);
    const double n = static_cast<double>(entries);
    const double bits_per_key = 8.0 * static_cast<double>(filter_bytes) / n;
    const double half_line = 256.0 * static_cast<double>(tables) / n;
    EXPECT_GE(bits_per_key, 5.0 * 0.98 - half_line) << "filter bits / entries over all tables";
    EXPECT_LE(bits_per_key, 5.0 * 1.02 + half_line) << "filter bits / entries over all tables, " << tables << " tables";
  }
}

// The optimiser in its own model, with the weights the engine gives it
// (a real tree's entries and reach, levels covering part of the key space):
// never worse than uniform (exactly: uniform's points lie on the menu), nor
// than monkey and no_last_level beyond 2%, at budgets 2..12 and for missing
// and existing keys. The optimiser chooses on the menu's chords (a 0.25..2-
// bit grid) where monkey takes any bpk on the real curve; over these trees'
// fractional weights it came out up to 1.4% worse than monkey (8 repeats;
// level_allocation_test.cc's ideal trees stay within 1%), so the bound is 2%. And after RewriteFilters under monkey,
// what the tree's tables expect (sum of reach x model FP) is at most what the allocation of their menu memory expects:
// the engine solves with a budget lowered by the tables' rounding (level_filters.h), so the menu memory its specs name
// is the entries-weighted mean of their bpk; the tables' model FP is taken at each table's keys, the allocation's at
// the level's, and the tables' filters differ from the menu only by rounding up to whole cache lines, which adds bits
// (1% is left for the models' evaluation).
TEST(LevelFilters, OptimalBeatsUniformWithTheEnginesWeights) {
  ScratchDir dir;
  const Options o = AllocatedTreeOptions(allocation::AllocationPolicy::kMonkey);
  auto db = FillTree(o, dir.db(), 20000);
  ASSERT_NE(db, nullptr);
  ASSERT_TRUE(db->RewriteFilters(nullptr).ok());
  const DbStats stats = db->GetStats();
  allocation::AllocationInput in;
  double tree_expects = 0, menu_bits = 0, entries = 0;
  int partial = 0;
  for (const LevelStats& l : stats.levels) {
    allocation::LevelInput level;
    level.keys = static_cast<double>(l.entries);
    level.runs = l.reach;
    ASSERT_TRUE(o.FilterFamilyForLevel(l.level, &level.family).ok());
    in.levels.push_back(level);
    tree_expects += l.reach * l.model_fp;
    if (l.level > 0 && l.files > 0 && l.reach < 0.95) ++partial;
    if (l.files > 0) {
      const size_t at = l.filter.find("bpk=");
      ASSERT_NE(at, std::string::npos) << l.filter;
      menu_bits += static_cast<double>(l.entries) * std::stod(l.filter.substr(at + 4));
      entries += static_cast<double>(l.entries);
    }
  }
  EXPECT_GE(partial, 1) << "the test wants a level covering part of the key space";
  in.policy = allocation::AllocationPolicy::kMonkey;
  in.budget_bits_per_key = menu_bits / entries;
  EXPECT_LT(in.budget_bits_per_key, 5.0) << "the tables' rounding is paid from the budget";
  allocation::Allocation monkey;
  ASSERT_TRUE(allocation::Allocate(in, &monkey).ok());
  EXPECT_LE(tree_expects, monkey.expected_reads * 1.01);
  for (const double budget : {2.0, 3.0, 5.0, 8.0, 12.0}) {
    for (const double share : {0.0, 0.5}) {
      SCOPED_TRACE("budget " + std::to_string(budget) + " share " + std::to_string(share));
      in.budget_bits_per_key = budget;
      in.existing_share = share;
      allocation::Allocation a[4];
      const allocation::AllocationPolicy policies[4] = {
          allocation::AllocationPolicy::kOptimal, allocation::AllocationPolicy::kUniform,
          allocation::AllocationPolicy::kMonkey, allocation::AllocationPolicy::kNoLastLevel};
      for (int i = 0; i < 4; ++i) {
        in.policy = policies[i];
        ASSERT_TRUE(allocation::Allocate(in, &a[i]).ok());
      }
      std::string tree;
      for (const auto& l : in.levels)
        tree += " (" + std::to_string(l.keys) + " keys, runs " + std::to_string(l.runs) + ")";
      EXPECT_LE(a[0].expected_reads, a[1].expected_reads * (1 + 1e-12)) << tree;
      EXPECT_LE(a[0].expected_reads, a[2].expected_reads * 1.02 + 1e-5) << tree;
      EXPECT_LE(a[0].expected_reads, a[3].expected_reads * 1.02 + 1e-5) << tree;
      EXPECT_LE(a[0].bits_per_key, budget * 1.02);
    }
  }
}

// A table's filter spends its menu memory plus its rounding: FastLocalBloom
// at 5 bits/key rounds n keys' 5n bits up to whole 512-bit lines and adds a
// 40-bit trailer. 1000 keys: 5000 bits -> 10 lines, overhead 120 + 40; 1030
// keys: 5150 -> 11 lines, overhead 482 + 40: tables of one size share one
// rounding, which a mean over a spread of counts would miss.
// A flush of one key into an empty tree. Under optimal the allocation
// evaluates its whole menu at the level's one key, up to fastlocal:bpk=48
// (one 512-bit line at 22 probes); under uniform at 46 bits/key it
// evaluates fastlocal:bpk=46 (21 probes) first; without an allocation the
// table's bookkeeping evaluates fastlocal:bpk=46 at its one key. There the
// model's closed form cancels beyond quad precision (fp_model_test.cc;
// level_allocation_test.cc has the allocation alone). Each flush succeeds,
// the key is found, and the level's model FP is a probability: without an
// allocation, that filter's (1.01e-16: the Poisson mixture's crowded
// lines dominate).
TEST(LevelFilters, AOneKeyFlushEvaluatesItsFiltersModels) {
  struct Case {
    std::optional<allocation::AllocationPolicy> policy;
    double budget;
  };
  for (const Case& c : {Case{allocation::AllocationPolicy::kOptimal, 5.0},
                        Case{allocation::AllocationPolicy::kUniform, 46.0}, Case{std::nullopt, 0}}) {
    ScratchDir dir;
    Options o = test::SmallOptions();
    o.filter_policy = test::Policy(c.policy ? "fastlocal:bpk=10" : "fastlocal:bpk=46");
    if (c.policy) o.filter_allocation = Options::FilterAllocation{*c.policy, c.budget, 0};
    const std::string what = c.policy ? allocation::AllocationPolicyName(*c.policy) : "fastlocal:bpk=46";
    std::unique_ptr<DB> db;
    ASSERT_TRUE(DB::Open(o, dir.db(), &db).ok()) << what;
    ASSERT_TRUE(db->Put(WriteOptions(), Key(1), test::Value(1, 0)).ok()) << what;
    ASSERT_TRUE(db->Flush(true).ok()) << what;
    std::string v;
    EXPECT_TRUE(db->Get(ReadOptions(), Key(1), &v).ok()) << what;
    const DbStats stats = db->GetStats();
    const LevelStats& l0 = stats.levels[0];
    ASSERT_EQ(l0.files, 1u) << what;
    EXPECT_TRUE(l0.model_fp >= 0 && l0.model_fp <= 1) << what << ": " << l0.filter << " " << l0.model_fp;
    if (!c.policy) {
      EXPECT_EQ(l0.filter.rfind("fastlocal:bpk=46,", 0), 0u) << l0.filter;
      EXPECT_GT(l0.model_fp, 0) << l0.filter;
      EXPECT_LT(l0.model_fp, 1e-12) << l0.filter;
    }
  }
}

TEST(LevelFilters, FilterOverheadIsTheTablesRounding) {
  const std::string spec = "fastlocal:bpk=5";
  EXPECT_DOUBLE_EQ(FilterOverheadBits(spec, 5, {1000}), 160.0);
  EXPECT_DOUBLE_EQ(FilterOverheadBits(spec, 5, {1030}), 522.0);
  EXPECT_DOUBLE_EQ(FilterOverheadBits(spec, 5, {1000, 1000, 1030}), 2 * 160.0 + 522.0);
  // More tables than samples: each sample stands for its share (20 x 1000, 20 x 1030).
  std::vector<double> many(20, 1000.0);
  many.insert(many.end(), 20, 1030.0);
  EXPECT_DOUBLE_EQ(FilterOverheadBits(spec, 5, many), 20 * 160.0 + 20 * 522.0);
  EXPECT_EQ(FilterOverheadBits("", 0, {1000}), 0.0);
  EXPECT_EQ(FilterOverheadBits(spec, 5, {}), 0.0);
}

TEST(LevelFilters, BadAllocationOptionsAreRefused) {
  Options o = test::SmallOptions();
  o.filter_allocation = Options::FilterAllocation{allocation::AllocationPolicy::kOptimal, 0, 0};
  Status s = o.Validate();
  EXPECT_TRUE(s.IsInvalidArgument());
  EXPECT_NE(s.message().find("budget_bits_per_key"), std::string::npos) << s.message();
  o.filter_allocation->budget_bits_per_key = 5;
  o.filter_policy = test::Policy("xor:fingerprint=8");
  o.filter_allocation->policy = allocation::AllocationPolicy::kMonkey;
  s = o.Validate();
  EXPECT_TRUE(s.IsInvalidArgument());
  EXPECT_NE(s.message().find("fixed size"), std::string::npos) << s.message();
  o.filter_allocation->policy = allocation::AllocationPolicy::kOptimal;
  EXPECT_TRUE(o.Validate().ok());
}

}  // namespace
}  // namespace filterlab::engine
