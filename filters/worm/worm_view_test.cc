// The worm filters' FilterView (worm_filter.h): a view rebuilds the shape
// from width, probes and units, so it must answer as the filter for every
// sub-variant, width and probe count, at unit counts odd and even; and
// WormViewOps must refuse (leaving the default view) a shape it cannot carry.
// filter_property_test.cc checks the registered examples; this covers the
// probe ranges.
#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "filters/filter.h"
#include "filters/filter_test_util.h"
#include "filters/worm/worm_filter.h"
#include "filters/worm/worm_primitives.h"
#include "filters/worm/worm_scheme.h"

namespace filterlab::worm {
namespace {

using testing_util::MustBuild;
using testing_util::MustPolicy;
using testing_util::TestHashes;

TEST(WormViewTest, EveryVariantWidthAndProbeCountAnswersAsTheFilter) {
  int cases = 0;
  for (const WormSubVariant* v : AllWormSubVariants()) {
    for (HashWidth width : {HashWidth::k32, HashWidth::k64}) {
      if (!(width == HashWidth::k32 ? v->allows_hash32 : v->allows_hash64)) continue;
      for (int probes : {v->min_probes, (v->min_probes + v->max_probes) / 2 | 1, v->max_probes}) {
        if (probes > v->max_probes) continue;
        const std::string spec = std::string("worm:variant=") + v->name + ",bpk=10.1,probes=" + std::to_string(probes) +
                                 ",hash=" + HashWidthText(width);
        auto policy = MustPolicy(spec);  // once: cache_dbl's policy costs ~0.3 s (its model)
        ASSERT_NE(policy, nullptr) << spec;
        // 2001 and 2054 keys at 10.1 bits/key (20211 and 20746 bits): unit
        // counts of both parities for every unit size (1, 64, 128, 256, 512
        // bits), where the variant does not force them odd.
        for (size_t keys : {size_t{2001}, size_t{2054}}) {
          const auto added = TestHashes(0x7E1 + keys, keys, width);
          auto f = MustBuild(*policy, added);
          ASSERT_NE(f, nullptr) << spec;
          std::vector<uint64_t> queries = TestHashes(0x7E2 + keys, 4000);  // full 64 bits
          queries.insert(queries.end(), added.begin(), added.begin() + 500);
          testing_util::ExpectOwnViewAgrees(*f, queries, spec + " keys=" + std::to_string(keys));
          ++cases;
        }
      }
    }
  }
  EXPECT_GT(cases, 60);  // every sub-variant took part (about 22 of them, both widths where allowed)
}

// Opened from 64-byte aligned bytes, every sub-variant reads them in place
// (its view points into them); from less aligned ones it copies them into an
// aligned array (the SIMD scheme's aligned loads need 32 bytes, the
// cache-local blocks 64). Both answer as the built filter.
TEST(WormViewTest, EveryVariantOpensInPlaceWhenLineAlignedAndCopiesOtherwise) {
  int cases = 0;
  for (const WormSubVariant* v : AllWormSubVariants()) {
    for (HashWidth width : {HashWidth::k32, HashWidth::k64}) {
      if (!(width == HashWidth::k32 ? v->allows_hash32 : v->allows_hash64)) continue;
      const int probes = std::min(v->max_probes, std::max(v->min_probes, 6));
      const std::string spec = std::string("worm:variant=") + v->name + ",bpk=10,probes=" + std::to_string(probes) +
                               ",hash=" + HashWidthText(width);
      testing_util::ExpectOpensInPlaceWhenAligned(spec, 5000, kCacheLineBytes);
      ++cases;
    }
  }
  EXPECT_GT(cases, 20);
}

// A scheme whose shape is what SizeShape makes of it, to ask WormViewOps
// about shapes no registered variant builds.
struct ProbeOnlyScheme : SchemeBase {
  static uint64_t UnitBits(int) { return 64; }
  static void InitShape(WormShape* s) { s->range = LargestOddAtMost(s->bits); }
  static bool Query(const uint64_t*, const WormShape&, uint64_t) { return true; }
  static void Prefetch(const uint64_t*, const WormShape&, uint64_t) {}
};

WormShape ProbeOnlyShape(uint64_t units, int probes) {
  WormShape s;
  s.width = HashWidth::k64;
  s.probes = probes;
  s.unit_bits = ProbeOnlyScheme::UnitBits(probes);
  s.units = units;
  s.bits = units * s.unit_bits;
  ProbeOnlyScheme::InitShape(&s);
  return s;
}

TEST(WormViewTest, ShapesTheParamCannotCarryKeepTheDefaultView) {
  EXPECT_NE(WormViewOps<ProbeOnlyScheme>(ProbeOnlyShape(kViewUnitsMask, 30)), nullptr);  // the largest that fits
  EXPECT_EQ(WormViewOps<ProbeOnlyScheme>(ProbeOnlyShape(kViewUnitsMask + 1, 30)), nullptr);
  EXPECT_EQ(WormViewOps<ProbeOnlyScheme>(ProbeOnlyShape(5, 256)), nullptr);
  // A shape InitShape would not rebuild (a field set some other way).
  WormShape odd = ProbeOnlyShape(5, 6);
  odd.range -= 2;
  EXPECT_EQ(WormViewOps<ProbeOnlyScheme>(odd), nullptr);
  // The width is part of the ops: each width gets its own.
  WormShape narrow = ProbeOnlyShape(5, 6);
  narrow.width = HashWidth::k32;
  EXPECT_NE(WormViewOps<ProbeOnlyScheme>(narrow), nullptr);
  EXPECT_NE(WormViewOps<ProbeOnlyScheme>(narrow), WormViewOps<ProbeOnlyScheme>(ProbeOnlyShape(5, 6)));
}

}  // namespace
}  // namespace filterlab::worm
