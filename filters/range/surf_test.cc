// SuRF beyond the generic range-filter properties: the LOUDS-Dense top
// levels change the encoding, never an answer (the same keys with the
// dense part off, at the default ratio and at ratio 1 answer every point and
// range query alike), the dense/sparse cut follows the rule in surf.cc's
// header comment, and layout version 1 (LOUDS-Sparse only) still opens.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "common/test_scale.h"
#include "filters/range/range_serialization.h"
#include "filters/range/range_test_util.h"

namespace filterlab {
namespace {

using range_testing::ClusteredSortedKeys;
using range_testing::MustBuildRange;
using range_testing::MustRangePolicy;
using range_testing::UniformSortedKeys;

// The value of `field` in a Describe() layout, -1 when absent.
long long LayoutField(const std::string& layout, const std::string& field) {
  const std::string key = field + "=";
  size_t at = layout.find(":" + key);
  if (at == std::string::npos) at = layout.find("," + key);
  if (at == std::string::npos) return -1;
  return std::stoll(layout.substr(at + 1 + key.size()));
}

std::string WithDense(const std::string& spec, const char* dense) { return spec + ",dense=" + dense; }

TEST(Surf, DenseLevelsChangeNoAnswerOnUint64Keys) {
  const size_t n = 60000;  // not scaled: below ~10^4 keys ratio 1 and 64 cut at the same level
  const size_t queries = SanitizerScaled(200000);
  for (const auto& keys : {UniformSortedKeys(0x5EED, n), ClusteredSortedKeys(0xC1u, n)}) {
    for (const std::string spec : {"surf:suffix=real,bits=8", "surf:suffix=hash,bits=4", "surf:suffix=none,bits=0"}) {
      auto sparse = MustBuildRange(*MustRangePolicy(WithDense(spec, "0")), keys);
      auto dflt = MustBuildRange(*MustRangePolicy(spec), keys);
      auto ratio1 = MustBuildRange(*MustRangePolicy(WithDense(spec, "1")), keys);
      ASSERT_EQ(LayoutField(sparse->Describe(), "dense_nodes"), 0) << sparse->Describe();
      // Ratio 1 puts more levels in the dense part than the default: both paths and the move between them are used.
      ASSERT_GT(LayoutField(ratio1->Describe(), "dense_nodes"), LayoutField(dflt->Describe(), "dense_nodes"))
          << ratio1->Describe() << " vs " << dflt->Describe();
      SplitMix64 rng(0xA11CE);
      for (size_t q = 0; q < queries; ++q) {
        uint64_t lo;
        switch (q % 3) {
          case 0:  // anywhere
            lo = rng.Next();
            break;
          case 1:  // just around a key, where the stored prefixes and suffixes decide
            lo = keys[rng.Next() % keys.size()] + (rng.Next() % 64) - 32;
            break;
          default:  // the key itself
            lo = keys[rng.Next() % keys.size()];
        }
        const uint64_t len = q % 5 == 0 ? 0 : (uint64_t{1} << (rng.Next() % 24)) - 1;
        const uint64_t hi = lo > UINT64_MAX - len ? UINT64_MAX : lo + len;
        const bool want = sparse->MayContainRange(lo, hi);
        ASSERT_EQ(dflt->MayContainRange(lo, hi), want) << spec << " [" << lo << ", " << hi << "]";
        ASSERT_EQ(ratio1->MayContainRange(lo, hi), want) << spec << " [" << lo << ", " << hi << "]";
        ASSERT_EQ(dflt->MayContain(lo), sparse->MayContain(lo)) << spec << " " << lo;
        ASSERT_EQ(ratio1->MayContain(lo), sparse->MayContain(lo)) << spec << " " << lo;
      }
    }
  }
}

// Byte strings over a 3-letter alphabet and lengths 0..10: many keys are
// prefixes of others (is-prefix-key bits in dense and sparse nodes).
TEST(Surf, DenseLevelsChangeNoAnswerOnByteStrings) {
  SplitMix64 rng(0xB17E5);
  auto random_string = [&] {
    std::string s(rng.Next() % 11, 'a');
    for (auto& c : s) c = static_cast<char>('a' + rng.Next() % 3);
    return s;
  };
  std::vector<std::string> strings;
  for (size_t i = 0; i < SanitizerScaled(20000); ++i) strings.push_back(random_string());
  std::sort(strings.begin(), strings.end());
  strings.erase(std::unique(strings.begin(), strings.end()), strings.end());
  std::vector<Slice> keys(strings.begin(), strings.end());
  for (const std::string spec : {"surf:suffix=real,bits=8", "surf:suffix=hash,bits=4"}) {
    std::unique_ptr<RangeFilter> sparse, ratio1;
    ASSERT_TRUE(MustRangePolicy(WithDense(spec, "0"))->BuildBytes(keys.data(), keys.size(), &sparse).ok());
    ASSERT_TRUE(MustRangePolicy(WithDense(spec, "1"))->BuildBytes(keys.data(), keys.size(), &ratio1).ok());
    ASSERT_GT(LayoutField(ratio1->Describe(), "dense_nodes"), 1) << ratio1->Describe();
    ASSERT_GT(LayoutField(ratio1->Describe(), "prefix_keys"), 0) << ratio1->Describe();
    for (size_t q = 0; q < SanitizerScaled(200000); ++q) {
      std::string lo = random_string(), hi = random_string();
      if (hi < lo) std::swap(lo, hi);
      ASSERT_EQ(ratio1->MayContainBytesRange(lo, hi), sparse->MayContainBytesRange(lo, hi))
          << spec << " [" << lo << ", " << hi << "]";
      ASSERT_EQ(ratio1->MayContainBytes(lo), sparse->MayContainBytes(lo)) << spec << " " << lo;
    }
  }
}

// The rule (surf.cc): level c joins the dense part while R * (dense bits of
// levels < c) < 10 * (edges of levels >= c), a dense node costing 577 bits.
// 200000 uniform keys: level 0 is the root (256 edges), level 1 has 256
// nodes, levels >= 2 hold about 2 * 10^5 edges. The root always joins (0 <
// anything); level 1 joins for R = 64 (64 * 577 < ~2 * 10^6); level 2 does
// not (64 * 577 * 257 = 9.5 * 10^6 > ~2 * 10^6): 257 dense nodes. For R = 1
// level 2 joins (577 * 257 < ~2 * 10^6) and level 3 does not (577 * (257 +
// ~53000) = 3.1 * 10^7 > 10 * the few edges below level 3).
TEST(Surf, DenseCutFollowsTheSizeRule) {
  const auto keys = UniformSortedKeys(0xC07, 200000);
  auto f64 = MustBuildRange(*MustRangePolicy("surf:suffix=real,bits=8"), keys);
  EXPECT_EQ(LayoutField(f64->Describe(), "dense_nodes"), 257) << f64->Describe();
  std::vector<uint64_t> level1;  // level 1's edges: the distinct 2-byte prefixes
  for (uint64_t k : keys) level1.push_back(k >> 48);
  level1.erase(std::unique(level1.begin(), level1.end()), level1.end());
  EXPECT_EQ(LayoutField(f64->Describe(), "dense_edges"), static_cast<long long>(256 + level1.size()))
      << f64->Describe();
  auto f1 = MustBuildRange(*MustRangePolicy("surf:suffix=real,bits=8,dense=1"), keys);
  // Level 2's nodes are the distinct 2-byte prefixes whose keys are stored deeper than 2 bytes.
  std::vector<uint64_t> level2;
  for (size_t i = 0; i < keys.size(); ++i) {
    const bool shares_two = (i > 0 && (keys[i - 1] >> 48) == (keys[i] >> 48)) ||
                            (i + 1 < keys.size() && (keys[i + 1] >> 48) == (keys[i] >> 48));
    if (shares_two) level2.push_back(keys[i] >> 48);
  }
  level2.erase(std::unique(level2.begin(), level2.end()), level2.end());
  EXPECT_EQ(LayoutField(f1->Describe(), "dense_nodes"), static_cast<long long>(257 + level2.size())) << f1->Describe();
  auto f0 = MustBuildRange(*MustRangePolicy("surf:suffix=real,bits=8,dense=0"), keys);
  EXPECT_EQ(LayoutField(f0->Describe(), "dense_nodes"), 0) << f0->Describe();
  EXPECT_LT(f64->DataBytes(), f0->DataBytes());  // the dense root levels are the smaller encoding here
}

TEST(Surf, LayoutVersionOneStillOpensAndUnknownVersionsAreRefused) {
  const auto keys = UniformSortedKeys(0x1, 5000);
  auto f = MustBuildRange(*MustRangePolicy("surf:suffix=real,bits=8,dense=0"), keys);
  std::string bytes;
  f->Serialize(&bytes);
  Slice data;
  std::string layout;
  ASSERT_TRUE(ParseRangeFilterBytes(bytes, &data, &layout).ok());
  const std::string v2_fields = ",version=2,dense_nodes=0,dense_edges=0,dense_child_edges=0";
  const size_t at = layout.find(v2_fields);
  ASSERT_NE(at, std::string::npos) << layout;

  std::string v1_layout = layout;
  v1_layout.erase(at, v2_fields.size());
  std::string v1;
  AppendRangeFilterBytes(data, v1_layout, &v1);
  std::unique_ptr<RangeFilter> g;
  Status s = OpenRangeFilter(v1, &g);
  ASSERT_TRUE(s.ok()) << s.ToString();
  SplitMix64 rng(0x2);
  for (int q = 0; q < 20000; ++q) {
    const uint64_t lo = q % 2 ? rng.Next() : keys[rng.Next() % keys.size()] - rng.Next() % 8;
    const uint64_t hi = lo + rng.Next() % 100000;
    if (hi < lo) continue;
    ASSERT_EQ(g->MayContainRange(lo, hi), f->MayContainRange(lo, hi)) << lo << " " << hi;
  }

  std::string v3_layout = layout;
  v3_layout.replace(layout.find("version=2"), 9, "version=3");
  std::string v3;
  AppendRangeFilterBytes(data, v3_layout, &v3);
  s = OpenRangeFilter(v3, &g);
  EXPECT_TRUE(s.IsCorruption()) << s.ToString();
  EXPECT_NE(s.ToString().find("versions 1 to 2"), std::string::npos) << s.ToString();
}

}  // namespace
}  // namespace filterlab
