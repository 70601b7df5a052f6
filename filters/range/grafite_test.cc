// Grafite beyond the generic range-filter properties: ranges crossing the
// hash's block boundaries (where the reference code hashes both ends as one
// block), and its FP against the bound and against the rate uniform keys
// give, over range lengths 2^0..2^12 (the paper's lemma test, scaled down).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "common/test_scale.h"
#include "filters/fp_tolerance.h"
#include "filters/range/elias_fano.h"
#include "filters/range/range_serialization.h"
#include "filters/range/range_test_util.h"
#include "filters/range/range_workload.h"

namespace filterlab {
namespace {

using range_testing::MustBuildRange;
using range_testing::MustRangePolicy;

// bpk=3 gives r = 2n: with keys dense in [0, 2^20), blocks are a few
// thousand values and most ranges of hundreds of values cross one.
TEST(Grafite, RangesCrossingABlockBoundaryFindTheirKeys) {
  auto policy = MustRangePolicy("grafite:bpk=3");
  SplitMix64 rng(0xB10C);
  std::vector<uint64_t> keys;
  for (int i = 0; i < 1000; ++i) keys.push_back(rng.Next() % (1 << 20));
  std::sort(keys.begin(), keys.end());
  keys.erase(std::unique(keys.begin(), keys.end()), keys.end());
  auto f = MustBuildRange(*policy, keys);
  const uint64_t r = 2 * keys.size();
  for (uint64_t k : keys) {
    for (uint64_t before : {uint64_t{0}, uint64_t{1}, uint64_t{7}, r / 3, r - 2}) {
      for (uint64_t after : {uint64_t{0}, uint64_t{1}, uint64_t{5}, r / 2}) {
        const uint64_t lo = k >= before ? k - before : 0;
        ASSERT_TRUE(f->MayContainRange(lo, k + after)) << "[" << lo << ", " << k + after << "] holds " << k;
      }
    }
    // The block boundary just after and just before k.
    const uint64_t block_end = (k / r + 1) * r - 1;
    ASSERT_TRUE(f->MayContainRange(k, block_end + 3));
    if (k >= r && k % r != 0) {
      ASSERT_TRUE(f->MayContainRange((k / r) * r - 2, k));
    }
  }
}

// 10^5 uniform keys at 16 bits/key (r = n 2^14): measured FP against the
// bound l n / r (plus 4 sigma) and against 1 - (1 - l/r)^n, the rate for keys
// whose blocks are all distinct from the query's (uniform 64-bit keys in
// blocks of r ~ 2^30.6 values: n / (2^64 / r) ~ 10^-4 of keys share one),
// within 4 sigma + 5%.
TEST(Grafite, FpFollowsTheLemmaOverRangeLengths) {
  auto policy = MustRangePolicy("grafite:bpk=16");
  std::vector<uint64_t> keys;
  ASSERT_TRUE(workload::MakeKeys("uniform", 100000, 21, &keys).ok());
  auto f = MustBuildRange(*policy, keys);
  const double r = std::ceil(static_cast<double>(keys.size()) * std::exp2(14));
  const uint64_t queries = SanitizerScaled(200000, 10);
  for (int log2_l : {0, 4, 8, 12}) {
    const uint64_t l = uint64_t{1} << log2_l;
    std::vector<workload::RangeQuery> qs;
    ASSERT_TRUE(workload::EmptyRangeQueries(keys, l, -1, queries, 22 + log2_l, &qs).ok());
    uint64_t positives = 0;
    for (const auto& q : qs) positives += f->MayContainRange(q.lo, q.hi);
    const double p_hat = static_cast<double>(positives) / static_cast<double>(queries);
    const double bound = f->QueryModelFp(keys.data(), keys.size(), qs[0].lo, qs[0].hi);
    EXPECT_NEAR(bound, static_cast<double>(l) * static_cast<double>(keys.size()) / r, 1e-9 * bound) << l;
    EXPECT_LE(p_hat, bound + 4 * BinomialSigma(bound, queries)) << "l = " << l;
    const double expected = 1 - std::pow(1 - static_cast<double>(l) / r, static_cast<double>(keys.size()));
    EXPECT_NEAR(p_hat, expected, 4 * BinomialSigma(expected, queries) + 0.05 * expected) << "l = " << l;
  }
}

// Correlated queries (left = key + U[1, 64]) have the same rate: the bound
// holds for any query, and nearby values are rotated within one block.
TEST(Grafite, CorrelatedQueriesMeetTheSameBound) {
  auto policy = MustRangePolicy("grafite:bpk=12");
  std::vector<uint64_t> keys;
  ASSERT_TRUE(workload::MakeKeys("uniform", 100000, 31, &keys).ok());
  auto f = MustBuildRange(*policy, keys);
  const uint64_t queries = SanitizerScaled(200000, 10);
  std::vector<workload::RangeQuery> qs;
  ASSERT_TRUE(workload::EmptyRangeQueries(keys, 32, 0.8, queries, 32, &qs).ok());
  uint64_t positives = 0;
  for (const auto& q : qs) positives += f->MayContainRange(q.lo, q.hi);
  const double p_hat = static_cast<double>(positives) / static_cast<double>(queries);
  const double bound = 32.0 / std::exp2(10);
  EXPECT_LE(p_hat, bound + 4 * BinomialSigma(bound, queries));
  // And not trivially low: uniform keys give 1 - exp(-32/2^10) ~ 0.0308 here too.
  const double expected = 1 - std::exp(-32.0 / std::exp2(10));
  EXPECT_NEAR(p_hat, expected, 4 * BinomialSigma(expected, queries) + 0.05 * expected);
}

// Keys packed into a small part of the universe (10^6 keys spaced 4 apart
// from 0, 10^5 under sanitizers) all lie in hash block 0 (r = n 2^14 values),
// where the hash is a rotation: one-to-one, so a range inside [0, r) holds a
// hash exactly when it holds a key, and the filter must answer as the sorted
// keys do. Their hashes fill a few Elias-Fano buckets with thousands of
// elements each (the case the rank/select directory keeps O(log); its speed:
// `filterlab-sim rangespeed --key_dist dense`, see filters/range/README.md).
TEST(Grafite, DenseKeysAnswerAsTheSortedKeys) {
  auto policy = MustRangePolicy("grafite:bpk=16");
  const size_t n = SanitizerScaled(1000000, 10);
  std::vector<uint64_t> keys(n);
  for (size_t i = 0; i < n; ++i) keys[i] = 4 * i;
  auto f = MustBuildRange(*policy, keys);
  // A wrong hash block (not all keys in block 0) would make the oracle wrong.
  const uint64_t r = static_cast<uint64_t>(std::ceil(static_cast<double>(n) * std::exp2(14)));
  ASSERT_LT(keys.back(), r);
  SplitMix64 rng(0xDE45E);
  const int queries = static_cast<int>(SanitizerScaled(200000, 10));
  int positives = 0;
  for (int i = 0; i < queries; ++i) {
    // Left ends over the keys and a little past them; half the ranges of 1
    // to 4 values (empty between keys), half up to 2^20.
    const uint64_t lo = rng.Next() % (4 * n + 4096);
    const uint64_t len = i % 2 == 0 ? rng.Next() % 4 : rng.Next() >> (44 + rng.Next() % 20);
    const uint64_t hi = std::min(r - 1, lo + len);
    const auto it = std::lower_bound(keys.begin(), keys.end(), lo);
    const bool oracle = it != keys.end() && *it <= hi;
    ASSERT_EQ(f->MayContainRange(lo, hi), oracle) << "[" << lo << ", " << hi << "]";
    positives += oracle;
  }
  // Both answers occur often.
  EXPECT_GT(positives, queries / 10);
  EXPECT_LT(positives, queries - queries / 10);
  for (size_t i = 0; i < n; i += 97) ASSERT_FALSE(f->MayContain(keys[i] + 1 + i % 3)) << keys[i];
}

// A filter's serialized bytes split into data and layout; the layout must end
// with this build's ",ef=" field, and stem is the layout without it.
struct EfLayout {
  std::string bytes;
  Slice data;
  std::string layout, stem;
};
void SplitAtEfField(const RangeFilter& f, EfLayout* out) {
  f.Serialize(&out->bytes);
  ASSERT_TRUE(ParseRangeFilterBytes(Slice(out->bytes), &out->data, &out->layout).ok());
  const std::string field = ",ef=" + std::to_string(ef::kFormatVersion);
  ASSERT_EQ(out->layout.substr(out->layout.size() - field.size()), field) << out->layout;
  out->stem = out->layout.substr(0, out->layout.size() - field.size());
}

// The layout states the Elias-Fano format (ef=3, elias_fano.h); bytes of
// format 1 (no 'ef' field) or of an unknown version are refused with the
// reason, even behind a valid checksum, for Grafite and bucketing alike.
TEST(Grafite, LayoutsOfAnotherEliasFanoFormatAreRefused) {
  for (const char* spec : {"grafite:bpk=12", "bucketing:bpk=12"}) {
    auto f = MustBuildRange(*MustRangePolicy(spec), range_testing::UniformSortedKeys(3, 1000));
    EfLayout split;
    ASSERT_NO_FATAL_FAILURE(SplitAtEfField(*f, &split));
    const Slice data = split.data;
    const std::string& stem = split.stem;
    for (const std::string& other : {stem, stem + ",ef=1", stem + ",ef=" + std::to_string(ef::kFormatVersion + 1)}) {
      std::string rewritten;
      AppendRangeFilterBytes(data, other, &rewritten);
      std::unique_ptr<RangeFilter> g;
      const Status s = OpenRangeFilter(Slice(rewritten), &g);
      EXPECT_TRUE(s.IsCorruption()) << other << ": " << s.ToString();
      EXPECT_NE(s.message().find("Elias-Fano format"), std::string::npos) << s.ToString();
    }
  }
}

// The value of a layout field ("elements=", "r=", ...), as a number.
uint64_t LayoutField(const std::string& layout, const std::string& key) {
  const size_t at = layout.find("," + key + "=");
  EXPECT_NE(at, std::string::npos) << key << " in " << layout;
  return at == std::string::npos ? 0 : std::stoull(layout.substr(at + key.size() + 2));
}

// Filters saved in Elias-Fano format 2 (before the zero inventory) still
// open and answer as the filter they were: the set of a filter built now is
// rewritten in format 2 (the same elements), opened, queried against the
// built filter on correlated and uncorrelated ranges, and serialized back to
// the same bytes.
TEST(Grafite, FiltersOfEliasFanoFormat2StillOpenAndAnswerTheSame) {
  const auto keys = range_testing::UniformSortedKeys(21, 20000);
  for (const char* spec : {"grafite:bpk=12", "bucketing:bpk=12", "grafite:eps=0.001,range=256"}) {
    SCOPED_TRACE(spec);
    auto built = MustBuildRange(*MustRangePolicy(spec), keys);
    EfLayout split;
    ASSERT_NO_FATAL_FAILURE(SplitAtEfField(*built, &split));
    const Slice data = split.data;
    const std::string& layout = split.layout;
    const bool grafite = layout.rfind("grafite:", 0) == 0;
    const uint64_t elements = LayoutField(layout, "elements");
    const uint64_t max = grafite ? LayoutField(layout, "r") - 1 : LayoutField(layout, "max");
    ef::Shape shape;
    ASSERT_TRUE(ef::ShapeForData(elements, max, ef::kFormatVersion, data.size(), "test", &shape).ok());
    std::vector<uint64_t> values;
    ef::View(shape, data.udata()).AppendElements(&values);
    ASSERT_EQ(values.size(), elements);
    std::vector<uint64_t> old_words;
    ef::Build(values.data(), values.size(), max, &old_words, 2);
    const std::string old_layout = split.stem + ",ef=2";
    std::string old_bytes;
    AppendRangeFilterBytes(Slice(reinterpret_cast<const char*>(old_words.data()), old_words.size() * 8), old_layout,
                           &old_bytes);
    std::unique_ptr<RangeFilter> old;
    ASSERT_TRUE(OpenRangeFilter(Slice(old_bytes), &old).ok());
    EXPECT_EQ(old->Describe(), old_layout);
    std::string again;
    old->Serialize(&again);
    EXPECT_EQ(again, old_bytes);
    for (double correlation : {-1.0, 0.8}) {
      std::vector<workload::RangeQuery> ranges;
      ASSERT_TRUE(workload::EmptyRangeQueries(keys, 1024, correlation, 20000, 5, &ranges).ok());
      for (const auto& q : ranges) {
        ASSERT_EQ(old->MayContainRange(q.lo, q.hi), built->MayContainRange(q.lo, q.hi)) << q.lo << " " << q.hi;
      }
    }
    for (size_t i = 0; i < keys.size(); i += 7) ASSERT_TRUE(old->MayContainRange(keys[i], keys[i] + 3));
  }
}

TEST(Grafite, SpecsSizeByBitsPerKeyOrByEpsAtARange) {
  EXPECT_EQ(MustRangePolicy("grafite:bpk=20")->spec(), "grafite:bpk=20");
  EXPECT_EQ(MustRangePolicy("grafite:eps=0.001,range=256")->spec(), "grafite:eps=0.001,range=256");
  std::unique_ptr<RangeFilterPolicy> p;
  EXPECT_TRUE(NewRangeFilterPolicy("grafite:bpk=20,eps=0.01", &p).IsInvalidArgument());
  EXPECT_TRUE(NewRangeFilterPolicy("grafite:eps=0.01", &p).IsInvalidArgument());
  // The lemma test's filter: eps = 0.001 at L = 2^8 is log2(2^8 / 0.001) = 17.97 bits over 2 of Elias-Fano.
  auto lemma = MustRangePolicy("grafite:eps=0.001,range=256");
  EXPECT_NEAR(lemma->bits_per_key(), 2 + std::log2(256 / 0.001), 1e-9);
  EXPECT_NEAR(lemma->ModelFpRate(1000000, 256), 0.001, 1e-6);
  // r above 2^60 is refused with the reason.
  std::vector<uint64_t> keys;
  ASSERT_TRUE(workload::MakeKeys("uniform", 1000, 1, &keys).ok());
  std::unique_ptr<RangeFilter> f;
  Status s = MustRangePolicy("grafite:bpk=62")->Build(keys.data(), keys.size(), &f);
  EXPECT_TRUE(s.IsInvalidArgument());
  EXPECT_NE(s.message().find("2^60"), std::string::npos) << s.ToString();
}

}  // namespace
}  // namespace filterlab
