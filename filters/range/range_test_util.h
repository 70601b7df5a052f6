// Helpers for range-filter tests (GoogleTest): policies and builds that must
// succeed, small key sets and ranges from a fixed-seed generator. The
// generic checks over every registered range filter live in
// range_filter_property_test.cc; a variant's own test adds what is specific.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "filters/range/range_filter.h"
#include "hashing/remix.h"

namespace filterlab::range_testing {

inline std::unique_ptr<RangeFilterPolicy> MustRangePolicy(const std::string& spec) {
  std::unique_ptr<RangeFilterPolicy> p;
  Status s = NewRangeFilterPolicy(spec, &p);
  EXPECT_TRUE(s.ok()) << spec << ": " << s.ToString();
  return p;
}

inline std::unique_ptr<RangeFilter> MustBuildRange(const RangeFilterPolicy& p, const std::vector<uint64_t>& keys) {
  std::unique_ptr<RangeFilter> f;
  Status s = p.Build(keys.data(), keys.size(), &f);
  EXPECT_TRUE(s.ok()) << p.spec() << ": " << s.ToString();
  return f;
}

// n distinct uniform 64-bit keys, sorted.
inline std::vector<uint64_t> UniformSortedKeys(uint64_t seed, size_t n) {
  SplitMix64 gen(seed);
  std::vector<uint64_t> keys(n);
  for (auto& k : keys) k = gen.Next();
  std::sort(keys.begin(), keys.end());
  keys.erase(std::unique(keys.begin(), keys.end()), keys.end());
  return keys;
}

// n distinct keys in clusters: runs of consecutive-ish values (gaps 1..16)
// starting at uniform points, so filters see both dense and sparse regions.
inline std::vector<uint64_t> ClusteredSortedKeys(uint64_t seed, size_t n) {
  SplitMix64 gen(seed);
  std::vector<uint64_t> keys;
  keys.reserve(n);
  while (keys.size() < n) {
    uint64_t k = gen.Next();
    const size_t run = 1 + gen.Next() % 64;
    for (size_t i = 0; i < run && keys.size() < n; ++i) {
      keys.push_back(k);
      const uint64_t step = 1 + gen.Next() % 16;
      if (k > UINT64_MAX - step) break;
      k += step;
    }
  }
  std::sort(keys.begin(), keys.end());
  keys.erase(std::unique(keys.begin(), keys.end()), keys.end());
  return keys;
}

// Whether sorted `keys` hold a key in [lo, hi].
inline bool HoldsKeyIn(const std::vector<uint64_t>& keys, uint64_t lo, uint64_t hi) {
  auto it = std::lower_bound(keys.begin(), keys.end(), lo);
  return it != keys.end() && *it <= hi;
}

// Calls visit(lo, hi) for `count` ranges [lo, lo + len - 1] (len >= 1) whose
// lo is uniform from `rng` and which hold none of sorted `keys`: the empty
// ranges an FP measurement asks about. Draws that hold a key or pass 2^64 - 1
// are skipped, not counted.
template <class Visit>
inline void ForEachEmptyRange(const std::vector<uint64_t>& keys, uint64_t len, uint64_t count, SplitMix64& rng,
                              Visit&& visit) {
  for (uint64_t asked = 0; asked < count;) {
    const uint64_t lo = rng.Next();
    if (lo > UINT64_MAX - (len - 1) || HoldsKeyIn(keys, lo, lo + len - 1)) continue;
    visit(lo, lo + len - 1);
    ++asked;
  }
}

// A filter's measured FP over such empty ranges beside the mean of its own
// model for them (RangeFilter::QueryModelFp: the rate, or the bound, of each
// query for this filter and these keys).
struct EmptyRangeFp {
  uint64_t queries = 0;
  double measured = 0;
  double model = 0;
};
inline EmptyRangeFp MeasureEmptyRangeFp(const RangeFilter& f, const std::vector<uint64_t>& keys, uint64_t len,
                                        uint64_t count, SplitMix64& rng) {
  uint64_t positives = 0;
  double model = 0;
  ForEachEmptyRange(keys, len, count, rng, [&](uint64_t lo, uint64_t hi) {
    positives += f.MayContainRange(lo, hi);
    model += f.QueryModelFp(keys.data(), keys.size(), lo, hi);
  });
  const double q = static_cast<double>(count);
  return {count, static_cast<double>(positives) / q, model / q};
}

}  // namespace filterlab::range_testing
