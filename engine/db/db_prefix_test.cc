// Prefix extractors, whole-key filtering, the memtable prefix Bloom and the
// iterator read options (iterate_upper_bound, prefix_same_as_start,
// total_order_seek, auto_prefix_mode) through the DB, with the seek
// tickers that say which tables a seek skipped.
#include <gtest/gtest.h>

#include "engine/db/db_test_util.h"
#include "engine/util/prefix_extractor.h"

namespace filterlab::engine {
namespace {

std::shared_ptr<const PrefixExtractor> Extractor(const std::string& spec) {
  std::shared_ptr<const PrefixExtractor> p;
  EXPECT_TRUE(PrefixExtractorFromSpec(spec, &p).ok()) << spec;
  return p;
}

Options PrefixOptions(const std::string& extractor) {
  Options o = test::SmallOptions();
  o.disable_auto_compactions = true;
  o.prefix_extractor = Extractor(extractor);
  return o;
}

// A level ticker summed over every level.
uint64_t Tick(DB* db, LevelTicker t) {
  uint64_t sum = 0;
  for (const LevelStats& l : db->GetStats().levels) sum += l.tickers[t];
  return sum;
}
// Table seeks that asked a filter (filtered or passed).
uint64_t FilterAsked(DB* db) { return Tick(db, LevelTicker::kSeekFiltered) + Tick(db, LevelTicker::kSeekFilterMatch); }

std::vector<std::string> KeysFrom(DB* db, const ReadOptions& ro, const std::string& target, size_t max = 1000) {
  std::vector<std::string> keys;
  auto it = db->NewIterator(ro);
  for (it->Seek(target); it->Valid() && keys.size() < max; it->Next()) keys.push_back(it->key().ToString());
  EXPECT_TRUE(it->status().ok()) << it->status().ToString();
  return keys;
}

TEST(DBPrefixTest, PrefixSameAsStartSkipsTablesWithoutThePrefixAndStopsAtItsEnd) {
  test::ScratchDir dir;
  std::unique_ptr<DB> db;
  ASSERT_TRUE(DB::Open(PrefixOptions("fixed:4"), dir.db(), &db).ok());
  for (const char* p : {"aaaa", "bbbb"}) {
    for (int i = 0; i < 9; ++i) ASSERT_TRUE(db->Put(WriteOptions(), p + std::to_string(i), "v").ok());
    ASSERT_TRUE(db->Flush(true).ok());  // one level-0 table per prefix
  }
  ReadOptions ro;
  ro.prefix_same_as_start = true;
  db->ResetFilterStats();
  const std::vector<std::string> a = KeysFrom(db.get(), ro, "aaaa");
  ASSERT_EQ(a.size(), 9u);
  EXPECT_EQ(a.front(), "aaaa0");
  EXPECT_EQ(a.back(), "aaaa8");  // not bbbb0: the prefix ends the iteration
  // Both tables' filters were asked; aaaa's table passed and held keys.
  EXPECT_EQ(FilterAsked(db.get()), 2u);
  EXPECT_EQ(Tick(db.get(), LevelTicker::kSeekDataUsefulFilterMatch), 1u);
  // Prefixes no table holds: each seek asks both filters, and a 10 bits/key
  // filter (about 1% FP) passes few of the 2 x 50 probes; 10 passes would
  // be more than 9 sigma above that rate.
  db->ResetFilterStats();
  for (int i = 0; i < 50; ++i) {
    EXPECT_TRUE(KeysFrom(db.get(), ro, "zz" + std::to_string(10 + i)).empty());
  }
  EXPECT_EQ(FilterAsked(db.get()), 100u);
  EXPECT_GE(Tick(db.get(), LevelTicker::kSeekFiltered), 90u);
  // total_order_seek: no prefix filtering, no prefix end.
  ReadOptions total;
  total.total_order_seek = true;
  total.prefix_same_as_start = true;
  db->ResetFilterStats();
  EXPECT_EQ(KeysFrom(db.get(), total, "aaaa").size(), 18u);
  EXPECT_EQ(FilterAsked(db.get()), 0u);
}

TEST(DBPrefixTest, GetProbesThePrefixWhenTheFilterHoldsNoWholeKeys) {
  test::ScratchDir dir;
  Options o = PrefixOptions("fixed:4");
  o.whole_key_filtering = false;
  std::unique_ptr<DB> db;
  ASSERT_TRUE(DB::Open(o, dir.db(), &db).ok());
  for (int i = 0; i < 100; ++i) ASSERT_TRUE(db->Put(WriteOptions(), "pp" + std::to_string(10 + i) + "xyz", "v").ok());
  ASSERT_TRUE(db->Put(WriteOptions(), "ab", "short").ok());  // outside fixed:4's domain
  ASSERT_TRUE(db->Flush(true).ok());
  db->ResetFilterStats();
  std::string v;
  EXPECT_TRUE(db->Get(ReadOptions(), "pp10xyz", &v).ok());
  EXPECT_TRUE(db->Get(ReadOptions(), "pp10nope", &v).IsNotFound());  // same prefix: the filter passes it
  EXPECT_TRUE(db->Get(ReadOptions(), "ab", &v).ok());
  EXPECT_EQ(v, "short");
  const FilterCounters c = db->GetStats().levels[0].filter_counters();
  EXPECT_EQ(c.checked, 2u);  // "ab" is outside the domain: not checked
  EXPECT_EQ(c.positive, 2u);
  // Absent prefixes inside the table's key range: the filter answers from the prefix alone.
  db->ResetFilterStats();
  for (int i = 0; i < 100; ++i)
    EXPECT_TRUE(db->Get(ReadOptions(), "pa" + std::to_string(10 + i) + "xyz", &v).IsNotFound());
  EXPECT_GE(db->GetStats().levels[0].filter_counters().useful, 90u);  // ~1% FP; 10 passes > 9 sigma
}

// RocksDB's DBTest2::AutoPrefixMode1 "BUG" section, which RocksDB documents
// as a wrong result of its auto_prefix_mode: here the short key "b" is found.
TEST(DBPrefixTest, AutoPrefixModeNeverSkipsKeysShorterThanThePrefix) {
  for (const char* spec : {"fixed:2", "capped:2"}) {
    SCOPED_TRACE(spec);
    test::ScratchDir dir;
    std::unique_ptr<DB> db;
    ASSERT_TRUE(DB::Open(PrefixOptions(spec), dir.db(), &db).ok());
    const std::string a_end_stuff("a\xffXYZ", 5), b_begin_stuff("b\0XYZ", 5);
    for (const std::string& k : {std::string("a"), std::string("b"), b_begin_stuff.substr(0, 3), std::string("c")}) {
      ASSERT_TRUE(db->Put(WriteOptions(), k, "large").ok());
    }
    ASSERT_TRUE(db->Flush(true).ok());
    ReadOptions ro;
    ro.auto_prefix_mode = true;
    // The valid optimization: [a\xff, a\xffXY) holds only keys with prefix
    // a\xff, so the filter answers (no key has it).
    Slice ub(a_end_stuff.data(), 4);
    ro.iterate_upper_bound = &ub;
    db->ResetFilterStats();
    EXPECT_TRUE(KeysFrom(db.get(), ro, a_end_stuff.substr(0, 2)).empty());
    EXPECT_EQ(FilterAsked(db.get()), 1u);
    // The bug's case: the bound b\0 is the same-length successor of a\xff,
    // but "b" lies between them. No prefix may be used, and "b" is returned.
    ub = Slice(b_begin_stuff.data(), 2);
    db->ResetFilterStats();
    const std::vector<std::string> got = KeysFrom(db.get(), ro, a_end_stuff.substr(0, 2));
    ASSERT_EQ(got.size(), 1u);
    EXPECT_EQ(got[0], "b");
    EXPECT_EQ(FilterAsked(db.get()), 0u);
    // Total order agrees.
    ReadOptions total;
    total.total_order_seek = true;
    total.iterate_upper_bound = &ub;
    EXPECT_EQ(KeysFrom(db.get(), total, a_end_stuff.substr(0, 2)), got);
  }
}

TEST(DBPrefixTest, TablesOfAnotherExtractorDoNotUseTheirPrefixEntries) {
  test::ScratchDir dir;
  Options o = PrefixOptions("fixed:2");
  o.whole_key_filtering = false;
  {
    std::unique_ptr<DB> db;
    ASSERT_TRUE(DB::Open(o, dir.db(), &db).ok());
    // Two overlapping tables, so that a compaction merges them (one table
    // alone would move down without being rewritten, keeping its prefixes).
    for (int part = 0; part < 2; ++part) {
      for (int i = part; i < 50; i += 2) ASSERT_TRUE(db->Put(WriteOptions(), "k" + std::to_string(100 + i), "v").ok());
      ASSERT_TRUE(db->Flush(true).ok());
    }
  }
  o.prefix_extractor = Extractor("fixed:3");
  o.create_if_missing = false;
  std::unique_ptr<DB> db;
  ASSERT_TRUE(DB::Open(o, dir.db(), &db).ok());
  db->ResetFilterStats();
  std::string v;
  EXPECT_TRUE(db->Get(ReadOptions(), "k120", &v).ok());
  EXPECT_TRUE(db->Get(ReadOptions(), "zz999", &v).IsNotFound());
  // The tables' filters hold fixed:2 prefixes only: no point filter now.
  EXPECT_EQ(db->GetStats().levels[0].filter_counters().checked, 0u);
  EXPECT_GT(db->GetStats().levels[0].filter_counters().lookups, 0u);
  ReadOptions ro;
  ro.prefix_same_as_start = true;
  const std::vector<std::string> keys = KeysFrom(db.get(), ro, "k12");
  ASSERT_EQ(keys.size(), 10u);
  EXPECT_EQ(keys.front(), "k120");
  EXPECT_EQ(keys.back(), "k129");
  EXPECT_TRUE(KeysFrom(db.get(), ro, "zz9").empty());
  EXPECT_EQ(FilterAsked(db.get()), 0u);
  // Merged and rewritten under fixed:3, the table's prefixes serve again.
  ASSERT_TRUE(db->CompactRange(nullptr, nullptr).ok());
  db->ResetFilterStats();
  EXPECT_EQ(KeysFrom(db.get(), ro, "k12").size(), 10u);
  EXPECT_EQ(FilterAsked(db.get()), 1u);
}

TEST(DBPrefixTest, MemTablePrefixBloomSkipsTheMemTableAndServesGets) {
  test::ScratchDir dir;
  Options o = PrefixOptions("fixed:4");
  o.memtable_filter_policy = test::Policy("dynamic:bpk=8,probes=6,hash=32");
  o.memtable_filter_bits_ratio = 0.1;
  o.memtable_whole_key_filtering = false;
  o.write_buffer_size = 1 << 20;
  std::unique_ptr<DB> db;
  ASSERT_TRUE(DB::Open(o, dir.db(), &db).ok());
  for (int i = 0; i < 200; ++i)
    ASSERT_TRUE(db->Put(WriteOptions(), "mm" + std::to_string(10 + i % 90) + std::to_string(i), "v").ok());
  ReadOptions ro;
  ro.prefix_same_as_start = true;
  for (int i = 0; i < 100; ++i) EXPECT_TRUE(KeysFrom(db.get(), ro, "zz" + std::to_string(10 + i % 90)).empty());
  const MemTableFilterStats m = db->GetStats().memtable_filter;
  EXPECT_EQ(m.prefix_hits + m.prefix_misses, 100u);
  EXPECT_GE(m.prefix_misses, 90u);                       // a 16 KiB Bloom of ~90 prefixes: FP far below 10%
  EXPECT_EQ(KeysFrom(db.get(), ro, "mm10").size(), 3u);  // i = 0, 90, 180
  std::string v;
  EXPECT_TRUE(db->Get(ReadOptions(), "mm100", &v).ok());
  EXPECT_TRUE(db->Get(ReadOptions(), "mm10x", &v).IsNotFound());
}

TEST(DBPrefixTest, UpperBoundEndsTheScanWithoutOpeningLaterFiles) {
  test::ScratchDir dir;
  Options o = test::SmallOptions();
  o.disable_auto_compactions = true;
  std::unique_ptr<DB> db;
  ASSERT_TRUE(DB::Open(o, dir.db(), &db).ok());
  for (int i = 0; i < 3000; ++i) ASSERT_TRUE(db->Put(WriteOptions(), test::Key(i), test::Value(i, 1)).ok());
  ASSERT_TRUE(db->CompactRange(nullptr, nullptr).ok());
  int deepest = 0;
  for (const LevelStats& l : db->GetStats().levels) {
    if (l.files > 0) deepest = l.level;
  }
  ASSERT_GT(db->GetStats().levels[deepest].files, 3u);
  ReadOptions ro;
  const std::string bound = test::Key(1505);
  Slice ub(bound);
  ro.iterate_upper_bound = &ub;
  db->ResetFilterStats();
  const std::vector<std::string> keys = KeysFrom(db.get(), ro, test::Key(1500));
  ASSERT_EQ(keys.size(), 5u);
  EXPECT_EQ(keys.back(), test::Key(1504));
  // One table seek, no filter asked, and it found keys in range.
  EXPECT_EQ(Tick(db.get(), LevelTicker::kSeekData), 1u);
  EXPECT_EQ(Tick(db.get(), LevelTicker::kSeekDataUsefulNoFilter), 1u);
  // A bound below the target: nothing.
  const std::string low = test::Key(10);
  ub = Slice(low);
  EXPECT_TRUE(KeysFrom(db.get(), ro, test::Key(20)).empty());
}

// A 16 bits/key range filter in every table: a bounded seek into a gap
// between stored keys skips the tables (no index, no data read); a seek
// whose range holds a key finds it.
TEST(DBPrefixTest, RangeFilterSkipsTablesWhoseKeysMissTheBoundedRange) {
  for (const char* spec : {"grafite:bpk=16", "rosetta:bpk=16,range=64"}) {
    SCOPED_TRACE(spec);
    test::ScratchDir dir;
    Options o = test::SmallOptions();
    o.disable_auto_compactions = true;
    ASSERT_TRUE(RangeFilterPolicyFromSpec(spec, &o.range_filter_policy).ok());
    std::unique_ptr<DB> db;
    ASSERT_TRUE(DB::Open(o, dir.db(), &db).ok());
    // Keys: 8-byte big-endian multiples of 1000, in overlapping level-0 tables.
    auto key = [](uint64_t v) {
      std::string k(8, '\0');
      for (int i = 0; i < 8; ++i) k[i] = static_cast<char>(v >> (56 - 8 * i));
      return k;
    };
    for (int part = 0; part < 2; ++part) {
      for (uint64_t i = part; i < 2000; i += 2) ASSERT_TRUE(db->Put(WriteOptions(), key(i * 1000), "v").ok());
      ASSERT_TRUE(db->Flush(true).ok());
    }
    EXPECT_EQ(db->GetStats().levels[0].range_filter, RangeFilterLabel(o.range_filter_policy.get()));
    EXPECT_GT(db->GetStats().levels[0].range_filter_bytes, 0u);
    ReadOptions ro;
    std::string end;
    Slice ub;
    ro.iterate_upper_bound = &ub;
    db->ResetFilterStats();
    // 200 empty ranges [1000 i + 100, 1000 i + 163]: each seek asks every
    // level-0 table's range filter. Grafite's bound at 16 bits/key is
    // l / 2^(16-2) = 0.004 per table (Rosetta sized for 64 is below it);
    // 5% of the table seeks passing would be more than 10 sigma above it.
    const uint64_t tables = db->GetStats().levels[0].files;
    ASSERT_GE(tables, 2u);
    for (uint64_t i = 0; i < 200; ++i) {
      end = key(i * 1000 + 163) + std::string(1, '\0');
      ub = Slice(end);
      EXPECT_TRUE(KeysFrom(db.get(), ro, key(i * 1000 + 100)).empty());
    }
    EXPECT_EQ(Tick(db.get(), LevelTicker::kSeekRangeFiltered) + Tick(db.get(), LevelTicker::kSeekRangeFilterMatch),
              200 * tables);
    EXPECT_GE(Tick(db.get(), LevelTicker::kSeekRangeFiltered), 190 * tables);
    // Ranges holding a key: found, never filtered out.
    db->ResetFilterStats();
    for (uint64_t i = 0; i < 100; ++i) {
      end = key(i * 1000 + 5) + std::string(1, '\0');
      ub = Slice(end);
      const std::vector<std::string> got = KeysFrom(db.get(), ro, key(i * 1000 - (i > 0 ? 7 : 0)));
      ASSERT_EQ(got.size(), 1u);
      EXPECT_EQ(got[0], key(i * 1000));
    }
    EXPECT_GE(Tick(db.get(), LevelTicker::kSeekDataUsefulFilterMatch), 100u);
  }
}

TEST(DBPrefixTest, WholeKeyFilteringOffWithoutAnExtractorIsRefused) {
  test::ScratchDir dir;
  Options o = test::SmallOptions();
  o.whole_key_filtering = false;
  std::unique_ptr<DB> db;
  Status s = DB::Open(o, dir.db(), &db);
  EXPECT_TRUE(s.IsInvalidArgument());
  EXPECT_NE(s.message().find("whole_key_filtering"), std::string::npos) << s.ToString();
}

}  // namespace
}  // namespace filterlab::engine
