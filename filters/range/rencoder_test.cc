// REncoder's own parts (rencoder.cc): the self-adaptive insertion's stopping
// rule, the bits it spends, where rows=partitioned and align=word put a
// word's bits, the refusals of impossible parameters and of other format
// versions, format 1 still opening, and the walk's rejections above the keys. The
// generic range properties (no false negatives over 10^6 ranges, edge
// cases, serialization, damaged bytes) run on its example specs in
// range_filter_property_test.cc. FP has no model (kind empirical: see
// rencoder.cc), so none is asserted here; filterlab-sim rangefp measures it.
#include <gtest/gtest.h>

#include <bit>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "filters/filter_spec.h"
#include "filters/range/range_filter.h"
#include "filters/range/range_serialization.h"
#include "filters/range/range_test_util.h"
#include "hashing/remix.h"

namespace filterlab {
namespace {

using range_testing::ClusteredSortedKeys;
using range_testing::HoldsKeyIn;
using range_testing::MustBuildRange;
using range_testing::MustRangePolicy;
using range_testing::UniformSortedKeys;

long long LayoutInt(const RangeFilter& f, const char* name) {
  FilterSpec layout;
  EXPECT_TRUE(FilterSpec::Parse(f.Describe(), &layout).ok()) << f.Describe();
  long long v = -1;
  EXPECT_TRUE(layout.GetInt(name, -1LL, -1LL, 1LL << 62, &v).ok()) << f.Describe();
  return v;
}

// Share of 1 bits in the filter's array (the serialized bytes begin with it).
double Fill(const RangeFilter& f) {
  const std::string bytes = f.Serialize();
  uint64_t ones = 0;
  for (size_t i = 0; i < f.DataBytes(); ++i) ones += std::popcount(static_cast<unsigned char>(bytes[i]));
  return static_cast<double>(ones) / (8.0 * static_cast<double>(f.DataBytes()));
}

// levels=0 stops at the first depth count whose fill reaches 0.435: one
// depth fewer stays below it, and storing that many depths directly gives
// the same bits (inserting depth by depth or group by group ORs the same
// words at the same positions).
TEST(REncoder, SelfAdaptiveInsertionStopsAtTheFillThreshold) {
  const auto keys = UniformSortedKeys(0x5E1F, 50000);
  for (const char* spec :
       {"rencoder:bpk=12", "rencoder:bpk=16", "rencoder:bpk=24,hashes=2", "rencoder:bpk=16,rows=partitioned,align=word",
        "rencoder:bpk=16,rows=partitioned", "rencoder:bpk=16,align=word"}) {
    auto adaptive = MustBuildRange(*MustRangePolicy(spec), keys);
    ASSERT_NE(adaptive, nullptr);
    const long long stored = LayoutInt(*adaptive, "levels");
    ASSERT_GE(stored, 1) << spec;
    ASSERT_LE(stored, 64) << spec;
    EXPECT_GE(Fill(*adaptive), 0.435) << spec;
    const std::string base = std::string(spec) + ",levels=";
    auto same = MustBuildRange(*MustRangePolicy(base + std::to_string(stored)), keys);
    EXPECT_EQ(same->Serialize(), adaptive->Serialize()) << spec;
    if (stored > 1) {
      auto fewer = MustBuildRange(*MustRangePolicy(base + std::to_string(stored - 1)), keys);
      EXPECT_LT(Fill(*fewer), 0.435) << spec;
    }
  }
}

// Bits per key as spent: B n rounded up to whole 64-bit words, at least 128.
TEST(REncoder, SpendsTheBitsItReports) {
  const auto keys = UniformSortedKeys(0xB175, 1001);
  auto f = MustBuildRange(*MustRangePolicy("rencoder:bpk=13.5"), keys);
  const uint64_t bits = (static_cast<uint64_t>(13.5 * 1001) + 63) / 64 * 64;
  EXPECT_EQ(f->DataBytes(), bits / 8);
  EXPECT_DOUBLE_EQ(f->BitsPerKey(), static_cast<double>(bits) / 1001);
  EXPECT_EQ(LayoutInt(*f, "bits"), static_cast<long long>(bits));
  const std::vector<uint64_t> one = {42};
  auto tiny = MustBuildRange(*MustRangePolicy("rencoder:bpk=16"), one);
  EXPECT_EQ(tiny->DataBytes(), 16u);  // the 128-bit minimum
  EXPECT_TRUE(tiny->MayContain(42));
  // Partitioned, each of the K rows holds at least one 64-bit window.
  auto rows = MustBuildRange(*MustRangePolicy("rencoder:bpk=16,hashes=5,rows=partitioned"), one);
  EXPECT_EQ(rows->DataBytes(), 5u * 64 / 8);
  EXPECT_TRUE(rows->MayContain(42));
}

// The positions of the 1 bits of a filter's array.
std::vector<uint64_t> OneBits(const RangeFilter& f) {
  const std::string bytes = f.Serialize();
  std::vector<uint64_t> ones;
  for (uint64_t b = 0; b < 8 * f.DataBytes(); ++b) {
    if ((static_cast<unsigned char>(bytes[b / 8]) >> (b % 8)) & 1) ones.push_back(b);
  }
  return ones;
}

// 16 keys under one 60-bit prefix, the 4 bottom depths stored: one group
// word (locator: that prefix) with all 30 node bits set, placed by K = 3
// probes in 1600 bits. With rows=partitioned the probes' rows are bits
// [512 i, 512 (i + 1)) (1600 / 3 rounded down to 64) and row i holds
// exactly probe i's 30 bits; with align=word they lie in one aligned 32-bit
// word. Over 200 prefixes, windows at any bit must straddle a 32-bit boundary
// sometimes (30 bits in a 64-bit read), and shared probes must sometimes
// put two probes' bits in one row's span, or leave one empty.
TEST(REncoder, RowsAndAlignPlaceEachProbeAsDeclared) {
  SplitMix64 rng(0x0A11);
  int straddles = 0, shared_mixes = 0;
  for (int k = 0; k < 200; ++k) {
    const uint64_t prefix = rng.Next() & ~uint64_t{15};
    std::vector<uint64_t> keys;
    for (uint64_t low = 0; low < 16; ++low) keys.push_back(prefix | low);
    for (const bool partitioned : {false, true}) {
      for (const bool word : {false, true}) {
        std::string spec = "rencoder:bpk=100,levels=4";
        if (partitioned) spec += ",rows=partitioned";
        if (word) spec += ",align=word";
        auto f = MustBuildRange(*MustRangePolicy(spec), keys);
        ASSERT_EQ(8 * f->DataBytes(), 1600u) << spec;
        ASSERT_TRUE(f->MayContainRange(prefix, prefix + 15)) << spec;
        std::vector<std::vector<uint64_t>> by_row(4);  // the fourth: bits 1536..1599, past the rows
        for (uint64_t b : OneBits(*f)) by_row[b / 512].push_back(b);
        if (!partitioned) {
          for (int r = 0; r < 3; ++r) shared_mixes += by_row[r].size() != 30;
          continue;
        }
        ASSERT_TRUE(by_row[3].empty()) << spec;
        for (int r = 0; r < 3; ++r) {
          ASSERT_EQ(by_row[r].size(), 30u) << spec << " row " << r;
          const bool one_word = by_row[r].front() / 32 == by_row[r].back() / 32;
          if (word) {
            EXPECT_TRUE(one_word) << spec << " prefix " << prefix << " row " << r;
          }
          straddles += !word && !one_word;
        }
      }
    }
  }
  EXPECT_GT(straddles, 0);
  EXPECT_GT(shared_mixes, 0);
}

TEST(REncoder, RefusesImpossibleParameters) {
  for (const char* bad :
       {"rencoder:bpk=0", "rencoder:bpk=101", "rencoder:hashes=0", "rencoder:hashes=9", "rencoder:levels=65",
        "rencoder:levels=-1", "rencoder:range=32", "rencoder:bpk=x", "rencoder:rows=2", "rencoder:align=byte"}) {
    std::unique_ptr<RangeFilterPolicy> p;
    const Status s = NewRangeFilterPolicy(bad, &p);
    EXPECT_TRUE(s.IsInvalidArgument()) << bad << ": " << s.ToString();
    const std::string name = std::string(bad).substr(std::strlen("rencoder:"), 4);
    EXPECT_NE(s.ToString().find(name.substr(0, name.find('='))), std::string::npos) << bad << ": " << s.ToString();
  }
  EXPECT_EQ(MustRangePolicy("rencoder:bpk=16")->spec(), "rencoder:bpk=16,hashes=3,levels=0");
  EXPECT_EQ(MustRangePolicy("rencoder:align=word,rows=partitioned")->spec(),
            "rencoder:bpk=16,hashes=3,levels=0,rows=partitioned,align=word");
}

// Layouts of another format version, or without one, are refused naming
// the versions read. Format 1 (before rows= and align=) still opens, as
// rows=shared,align=bit, and answers as the format 2 filter of the same
// bits; a format 1 layout naming rows or align is refused.
TEST(REncoder, ReadsFormatsOneAndTwoOnly) {
  const auto keys = UniformSortedKeys(0xF0F, 500);
  auto f = MustBuildRange(*MustRangePolicy("rencoder:bpk=16"), keys);
  const std::string bytes = f->Serialize();
  Slice data;
  std::string layout;
  ASSERT_TRUE(ParseRangeFilterBytes(Slice(bytes), &data, &layout).ok());
  const std::string tail = ",rows=shared,align=bit";
  ASSERT_NE(layout.find("format=2,"), std::string::npos) << layout;
  ASSERT_EQ(layout.substr(layout.size() - tail.size()), tail) << layout;
  auto rewrap = [&](const std::string& changed) {
    std::string out;
    AppendRangeFilterBytes(data, changed, &out);
    return out;
  };
  std::unique_ptr<RangeFilter> opened;
  for (const std::string& other : {std::string("format=3,"), std::string("format=0,"), std::string("")}) {
    std::string changed = layout;
    changed.replace(changed.find("format=2,"), 9, other);
    const Status s = OpenRangeFilter(Slice(rewrap(changed)), &opened);
    EXPECT_TRUE(s.IsCorruption()) << changed << ": " << s.ToString();
    EXPECT_NE(s.ToString().find("formats 1 and 2"), std::string::npos) << s.ToString();
  }
  std::string v1 = layout;
  v1.replace(v1.find("format=2,"), 9, "format=1,");
  const Status with_tail = OpenRangeFilter(Slice(rewrap(v1)), &opened);  // format 1 has no rows or align
  EXPECT_TRUE(with_tail.IsCorruption()) << v1 << ": " << with_tail.ToString();
  v1.resize(v1.size() - tail.size());
  const std::string v1_bytes = rewrap(v1);  // the opened filter reads its data in place
  ASSERT_TRUE(OpenRangeFilter(Slice(v1_bytes), &opened).ok()) << v1;
  SplitMix64 rng(0xF10);
  for (int i = 0; i < 20000; ++i) {
    const uint64_t lo = rng.Next(), hi = lo + (rng.Next() & 0xFFFF);
    ASSERT_EQ(opened->MayContainRange(lo, hi), f->MayContainRange(lo, hi)) << lo;
  }
  for (const std::string& extra : {std::string(",rows=shared"), std::string(",align=bit")}) {
    std::unique_ptr<RangeFilter> refused;
    const Status s = OpenRangeFilter(Slice(rewrap(v1 + extra)), &refused);
    EXPECT_TRUE(s.IsCorruption()) << v1 + extra << ": " << s.ToString();
  }
}

}  // namespace
}  // namespace filterlab
