// REncoder's own parts (rencoder.cc): the self-adaptive insertion's stopping
// rule, the bits it spends, the refusals of impossible parameters and of
// other format versions, and the walk's rejections above the keys. The
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
  for (const char* spec : {"rencoder:bpk=12", "rencoder:bpk=16", "rencoder:bpk=24,hashes=2"}) {
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
}

// Keys in [0, 2^20), all 64 depths stored: a range under a top-level prefix
// no key has is rejected unless every one of the stored nodes on its path
// (40+ of them, each a false match with probability at most the fill^3
// <= 0.9^3) matches, i.e. with probability below 0.73^40 ~ 3e-6 per query.
TEST(REncoder, AllDepthsStoredRejectRangesFarFromTheKeys) {
  std::vector<uint64_t> keys;
  for (uint64_t k = 0; k < 2000; ++k) keys.push_back(k * 509);
  auto f = MustBuildRange(*MustRangePolicy("rencoder:bpk=64,levels=64"), keys);
  ASSERT_LT(Fill(*f), 0.9);
  SplitMix64 rng(0xFA2);
  int positives = 0;
  for (int i = 0; i < 2000; ++i) {
    const uint64_t lo = (uint64_t{1} << 40) + (rng.Next() >> 1);
    positives += f->MayContainRange(lo, lo + (rng.Next() & 1023));
  }
  EXPECT_EQ(positives, 0);
  EXPECT_TRUE(f->MayContainRange(0, UINT64_MAX));
  EXPECT_TRUE(f->MayContainRange(509 * 7, 509 * 7));
}

// A range covering more than 4096 nodes of the first stored depth is
// answered yes without a walk (rencoder.cc), while short empty ranges are
// walked and rejected (most of them: the fill is about 0.5, so a stored node
// falsely matches with probability about 1/8).
TEST(REncoder, LongRangesAboveTheStoredDepthsAreAnsweredYes) {
  const auto keys = ClusteredSortedKeys(0x10C, 20000);
  auto f = MustBuildRange(*MustRangePolicy("rencoder:bpk=16,levels=8"), keys);
  const uint64_t node = uint64_t{1} << 7;  // values per node at depth 57
  SplitMix64 rng(0x10D);
  int walked_negative = 0;
  for (int i = 0; i < 2000; ++i) {
    const uint64_t lo = rng.Next() >> 1;
    EXPECT_TRUE(f->MayContainRange(lo, lo + 4097 * node));
    const uint64_t hi = lo + node - 1;
    if (!HoldsKeyIn(keys, lo, hi)) walked_negative += !f->MayContainRange(lo, hi);
  }
  EXPECT_GT(walked_negative, 1000);
}

TEST(REncoder, RefusesImpossibleParameters) {
  for (const char* bad : {"rencoder:bpk=0", "rencoder:bpk=101", "rencoder:hashes=0", "rencoder:hashes=9",
                          "rencoder:levels=65", "rencoder:levels=-1", "rencoder:range=32", "rencoder:bpk=x"}) {
    std::unique_ptr<RangeFilterPolicy> p;
    const Status s = NewRangeFilterPolicy(bad, &p);
    EXPECT_TRUE(s.IsInvalidArgument()) << bad << ": " << s.ToString();
    const std::string name = std::string(bad).substr(std::strlen("rencoder:"), 4);
    EXPECT_NE(s.ToString().find(name.substr(0, name.find('='))), std::string::npos) << bad << ": " << s.ToString();
  }
  EXPECT_EQ(MustRangePolicy("rencoder:bpk=16")->spec(), "rencoder:bpk=16,hashes=3,levels=0");
}

// Layouts of another format version, or without one, are refused naming it.
TEST(REncoder, RefusesOtherFormatVersions) {
  const auto keys = UniformSortedKeys(0xF0F, 500);
  auto f = MustBuildRange(*MustRangePolicy("rencoder:bpk=16"), keys);
  const std::string bytes = f->Serialize();
  Slice data;
  std::string layout;
  ASSERT_TRUE(ParseRangeFilterBytes(Slice(bytes), &data, &layout).ok());
  ASSERT_NE(layout.find("format=1,"), std::string::npos) << layout;
  std::unique_ptr<RangeFilter> opened;
  ASSERT_TRUE(OpenRangeFilter(Slice(bytes), &opened).ok());
  for (const std::string& other : {std::string("format=2,"), std::string("")}) {
    std::string changed = layout;
    changed.replace(changed.find("format=1,"), 9, other);
    std::string rewrapped;
    AppendRangeFilterBytes(data, changed, &rewrapped);
    const Status s = OpenRangeFilter(Slice(rewrapped), &opened);
    EXPECT_TRUE(s.IsCorruption()) << changed << ": " << s.ToString();
    EXPECT_NE(s.ToString().find("format 1"), std::string::npos) << s.ToString();
  }
}

}  // namespace
}  // namespace filterlab
