// Generic properties every registered range filter must have, run on every
// example spec of every range variant (RegisteredRangeFilterVariants):
//   - no false negative on any non-empty range: >= 10^6 random ranges per
//     spec over uniform and clustered keys, lengths 1 to 2^40, and over
//     byte-string keys through BuildBytes;
//   - the edge cases: lo == hi, ranges touching exactly one key, ranges at 0
//     and at 2^64-1, zero-, one- and two-key sets, the empty gaps between
//     adjacent keys, hi < lo refused;
//   - FP of empty ranges within a binomial bound of the model (exact kind) or
//     below the bound (upper-bound kind); empirical kinds state no model
//     (ModelFpRate is NaN) and are not held to one;
//   - serialize -> OpenRangeFilter answers exactly as the built filter, read
//     in place from unaligned bytes;
//   - every damaged byte and every truncation gives Corruption, and a layout
//     re-wrapped with a valid checksum but impossible values never crashes;
//   - canonical specs, refused bad specs and unsorted keys;
//   - dynamic variants: inserts in random order and interleaved deletes
//     (against a std::multiset of the keys) lose no key still present;
//     static ones refuse both.
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstring>
#include <limits>
#include <set>
#include <string>
#include <vector>

#include "common/test_scale.h"
#include "filters/filter_spec.h"
#include "filters/fp_tolerance.h"
#include "filters/range/range_filter.h"
#include "filters/range/range_serialization.h"
#include "filters/range/range_test_util.h"
#include "filters/registry.h"
#include "filters/trailer.h"
#include "hashing/remix.h"

namespace filterlab {
namespace {

using range_testing::ClusteredSortedKeys;
using range_testing::HoldsKeyIn;
using range_testing::MustBuildRange;
using range_testing::MustRangePolicy;
using range_testing::UniformSortedKeys;

std::vector<std::string> RangeSpecs() { return AllRangeExampleSpecs(); }

std::string SpecTestName(const testing::TestParamInfo<std::string>& info) {
  std::string name;
  for (char c : info.param) name += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
  return name;
}

class RangeFilterProperty : public testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    policy_ = MustRangePolicy(GetParam());
    ASSERT_NE(policy_, nullptr);
  }
  std::unique_ptr<RangeFilter> Build(const std::vector<uint64_t>& keys) { return MustBuildRange(*policy_, keys); }
  std::unique_ptr<RangeFilterPolicy> policy_;
};

// A non-empty range around a random stored key: [k - a, k + b], a and b
// uniform below 2^j for a random j in 0..40 (saturated at 0 and 2^64-1).
struct NonEmptyRange {
  uint64_t lo, hi;
};
NonEmptyRange RandomRangeAroundKey(const std::vector<uint64_t>& keys, SplitMix64& rng) {
  const uint64_t k = keys[rng.Next() % keys.size()];
  const int j = static_cast<int>(rng.Next() % 41);
  const uint64_t mask = j == 0 ? 0 : (uint64_t{1} << j) - 1;
  const uint64_t a = rng.Next() & mask, b = rng.Next() & mask;
  return {k >= a ? k - a : 0, k <= UINT64_MAX - b ? k + b : UINT64_MAX};
}

TEST_P(RangeFilterProperty, NoFalseNegativeOverAMillionRandomRanges) {
  const size_t kRanges = SanitizerScaled(1'000'000, 20);
  uint64_t checked = 0;
  for (bool clustered : {false, true}) {
    const auto keys = clustered ? ClusteredSortedKeys(0xC1, 20000) : UniformSortedKeys(0xA1, 20000);
    auto f = Build(keys);
    ASSERT_NE(f, nullptr);
    EXPECT_EQ(f->num_keys(), keys.size());
    SplitMix64 rng(clustered ? 0x5EED2 : 0x5EED1);
    for (size_t i = 0; i < kRanges / 2; ++i) {
      const NonEmptyRange r = RandomRangeAroundKey(keys, rng);
      ASSERT_TRUE(f->MayContainRange(r.lo, r.hi)) << GetParam() << (clustered ? " clustered" : " uniform")
                                                  << ": false negative on [" << r.lo << ", " << r.hi << "]";
      ++checked;
    }
    for (size_t i = 0; i < keys.size(); ++i) {
      ASSERT_TRUE(f->MayContain(keys[i])) << GetParam() << ": point false negative for key #" << i;
    }
  }
  EXPECT_GE(checked, kRanges);
}

// Random byte strings of 1..24 bytes over a small alphabet (so prefixes are
// shared), sorted bytewise; ranges around stored keys.
TEST_P(RangeFilterProperty, NoFalseNegativeOnByteStringKeys) {
  SplitMix64 rng(0xB7E5);
  std::vector<std::string> strings;
  for (int i = 0; i < 5000; ++i) {
    std::string s(1 + rng.Next() % 24, '\0');
    for (auto& c : s)
      c = static_cast<char>(
          "\x00\x01"
          "abz\xfe\xff"[rng.Next() % 7]);
    strings.push_back(s);
  }
  std::sort(strings.begin(), strings.end());
  strings.erase(std::unique(strings.begin(), strings.end()), strings.end());
  std::vector<Slice> keys(strings.begin(), strings.end());
  std::unique_ptr<RangeFilter> f;
  ASSERT_TRUE(policy_->BuildBytes(keys.data(), keys.size(), &f).ok());
  const size_t kRanges = SanitizerScaled(200'000, 20);
  for (size_t i = 0; i < kRanges; ++i) {
    const size_t a = rng.Next() % strings.size();
    const size_t b = std::min(strings.size() - 1, a + rng.Next() % 4);
    // lo: a stored key or a string just below it (truncated); hi: a stored key or it extended.
    std::string lo = strings[a], hi = strings[b];
    if (rng.Next() % 2 && lo.size() > 1) lo.resize(lo.size() - 1);
    if (rng.Next() % 2) hi.push_back('\xff');
    ASSERT_TRUE(f->MayContainBytesRange(lo, hi)) << GetParam() << ": byte-string false negative, keys #" << a;
  }
  for (const auto& k : keys) ASSERT_TRUE(f->MayContainBytes(k)) << GetParam();
  // Unsorted or repeated byte strings are refused.
  std::vector<Slice> unsorted = {Slice("b"), Slice("a")};
  EXPECT_TRUE(policy_->BuildBytes(unsorted.data(), unsorted.size(), &f).IsInvalidArgument());
}

TEST_P(RangeFilterProperty, EdgeCases) {
  constexpr uint64_t kMax = UINT64_MAX;
  // Zero keys: builds and answers (false would be exact; prefix Bloom's rule
  // answers true where it cannot decide, so no answer is required).
  {
    auto f = Build({});
    ASSERT_NE(f, nullptr);
    EXPECT_EQ(f->num_keys(), 0u);
    (void)f->MayContainRange(0, kMax);
    (void)f->MayContain(12345);
  }
  // One key, including at both ends of the universe.
  for (uint64_t k : {uint64_t{0}, uint64_t{1}, uint64_t{1} << 63, kMax - 1, kMax}) {
    auto f = Build({k});
    ASSERT_NE(f, nullptr);
    EXPECT_TRUE(f->MayContain(k)) << GetParam() << " key " << k;
    EXPECT_TRUE(f->MayContainRange(k, k)) << GetParam() << " key " << k;
    EXPECT_TRUE(f->MayContainRange(0, kMax)) << GetParam() << " key " << k;
    EXPECT_TRUE(f->MayContainRange(0, k)) << GetParam() << " key " << k;
    EXPECT_TRUE(f->MayContainRange(k, kMax)) << GetParam() << " key " << k;
    if (k > 0) {
      EXPECT_TRUE(f->MayContainRange(k - 1, k)) << GetParam() << " key " << k;
    }
    if (k < kMax) {
      EXPECT_TRUE(f->MayContainRange(k, k + 1)) << GetParam() << " key " << k;
    }
  }
  // Two keys: adjacent, and far apart; the gap between them (empty) queried.
  for (auto [a, b] : {std::pair<uint64_t, uint64_t>{0, 1}, {kMax - 1, kMax}, {0, kMax}, {1000, 1003}, {5, 1u << 20}}) {
    auto f = Build({a, b});
    ASSERT_NE(f, nullptr);
    for (uint64_t k : {a, b}) {
      EXPECT_TRUE(f->MayContainRange(k, k)) << GetParam() << " {" << a << ", " << b << "} at " << k;
    }
    EXPECT_TRUE(f->MayContainRange(a, b));
    if (b - a >= 2) {
      bool gap = false;
      ASSERT_TRUE(f->CheckedMayContainRange(a + 1, b - 1, &gap).ok());  // empty: any answer, no crash
      EXPECT_TRUE(f->MayContainRange(a, b - 1)) << GetParam() << " range touching only " << a;
      EXPECT_TRUE(f->MayContainRange(a + 1, b)) << GetParam() << " range touching only " << b;
    }
  }
  // Ranges touching exactly one key of many; the gaps between adjacent keys.
  const auto keys = ClusteredSortedKeys(0xED6E, 3000);
  auto f = Build(keys);
  ASSERT_NE(f, nullptr);
  for (size_t i = 0; i + 1 < keys.size(); ++i) {
    const uint64_t left = i == 0 ? 0 : keys[i - 1] + 1;
    const uint64_t right = keys[i + 1] - 1;
    ASSERT_TRUE(f->MayContainRange(left, keys[i])) << GetParam() << " key #" << i;
    ASSERT_TRUE(f->MayContainRange(keys[i], right)) << GetParam() << " key #" << i;
    ASSERT_TRUE(f->MayContainRange(left, right)) << GetParam() << " key #" << i;
    if (keys[i + 1] - keys[i] >= 2) {
      bool gap = false;
      ASSERT_TRUE(f->CheckedMayContainRange(keys[i] + 1, keys[i + 1] - 1, &gap).ok());
    }
  }
  // hi < lo refused with a message naming both ends.
  bool unused = false;
  Status s = f->CheckedMayContainRange(10, 9, &unused);
  EXPECT_TRUE(s.IsInvalidArgument()) << s.ToString();
  EXPECT_NE(s.message().find("hi < lo"), std::string::npos) << s.ToString();
  EXPECT_TRUE(f->CheckedMayContainBytesRange("b", "a", &unused).IsInvalidArgument());
  // Unsorted and repeated keys refused by Build.
  std::unique_ptr<RangeFilter> g;
  const std::vector<uint64_t> unsorted = {5, 3}, repeated = {3, 3};
  EXPECT_TRUE(policy_->Build(unsorted.data(), unsorted.size(), &g).IsInvalidArgument());
  EXPECT_TRUE(policy_->Build(repeated.data(), repeated.size(), &g).IsInvalidArgument());
}

// Empty ranges of 2^5 values with a uniform left end (uncorrelated), checked
// empty against the keys. The expected count is the sum of the model's
// per-query probabilities (QueryModelFp); with Q queries its binomial sigma
// is at most sqrt(Q p (1-p)) at the mean p. Exact: |p_hat - p| <= 4 sigma +
// 5% p (fp_tolerance.h's rule for exact models); upper bound: p_hat <= p + 4
// sigma; empirical: ModelFpRate must be NaN (the registration says no model).
TEST_P(RangeFilterProperty, EmptyRangeFpAgainstModelOrBound) {
  const auto keys = UniformSortedKeys(0xF0, 100000);
  auto f = Build(keys);
  ASSERT_NE(f, nullptr);
  const FpModelKind kind = RangeFpModelKindOf(*policy_);
  if (kind == FpModelKind::kEmpirical) {
    EXPECT_TRUE(std::isnan(policy_->ModelFpRate(keys.size(), 32))) << GetParam() << " states no model";
    EXPECT_TRUE(std::isnan(f->QueryModelFp(keys.data(), keys.size(), 1, 32))) << GetParam() << " states no model";
    return;
  }
  EXPECT_TRUE(std::isfinite(policy_->ModelFpRate(keys.size(), 32))) << GetParam();
  const uint64_t kQueries = SanitizerScaled(200'000, 20);
  SplitMix64 rng(0xF1);
  uint64_t positives = 0, asked = 0;
  double expected = 0;
  while (asked < kQueries) {
    const uint64_t lo = rng.Next();
    if (lo > UINT64_MAX - 31) continue;
    const uint64_t hi = lo + 31;
    if (HoldsKeyIn(keys, lo, hi)) continue;
    positives += f->MayContainRange(lo, hi);
    expected += f->QueryModelFp(keys.data(), keys.size(), lo, hi);
    ++asked;
  }
  const double p_hat = static_cast<double>(positives) / static_cast<double>(asked);
  const double p = expected / static_cast<double>(asked);
  ASSERT_TRUE(std::isfinite(p) && p >= 0 && p <= 1) << GetParam() << ": model " << p;
  const double sigma = BinomialSigma(p, asked);
  if (kind == FpModelKind::kUpperBound) {
    EXPECT_LE(p_hat, p + 4 * sigma) << GetParam() << ": measured " << p_hat << " above the bound " << p;
  } else {
    EXPECT_NEAR(p_hat, p, 4 * sigma + 0.05 * p) << GetParam() << ": measured vs model";
  }
}

// An owned copy of bytes at an odd address, so readers cannot assume alignment.
class UnalignedCopy {
 public:
  explicit UnalignedCopy(const std::string& bytes) : buffer_(bytes.size() + 1, '\0') {
    std::memcpy(buffer_.data() + 1, bytes.data(), bytes.size());
  }
  Slice slice() const { return Slice(buffer_.data() + 1, buffer_.size() - 1); }

 private:
  std::string buffer_;
};

TEST_P(RangeFilterProperty, SerializeOpenRoundTrip) {
  const auto keys = ClusteredSortedKeys(0x5E, 20000);
  auto f = Build(keys);
  ASSERT_NE(f, nullptr);
  const std::string bytes = f->Serialize();
  UnalignedCopy copy(bytes);
  std::unique_ptr<RangeFilter> g;
  Status s = OpenRangeFilter(copy.slice(), &g);
  ASSERT_TRUE(s.ok()) << GetParam() << ": " << s.ToString();
  EXPECT_EQ(g->Describe(), f->Describe());
  EXPECT_EQ(g->DataBytes(), f->DataBytes());
  EXPECT_EQ(g->num_keys(), f->num_keys());
  EXPECT_FALSE(g->SupportsInsert());
  EXPECT_FALSE(g->SupportsDelete());
  EXPECT_TRUE(g->Insert(keys[0]).IsNotSupported());
  EXPECT_TRUE(g->Delete(keys[0]).IsNotSupported());
  EXPECT_EQ(g->Serialize(), bytes);
  SplitMix64 rng(0x5F);
  for (size_t i = 0; i < SanitizerScaled(100000); ++i) {
    uint64_t lo, hi;
    if (i % 2) {
      const NonEmptyRange r = RandomRangeAroundKey(keys, rng);
      lo = r.lo, hi = r.hi;
    } else {
      lo = rng.Next();
      hi = lo + std::min<uint64_t>(UINT64_MAX - lo, rng.Next() >> (rng.Next() % 64));
    }
    ASSERT_EQ(g->MayContainRange(lo, hi), f->MayContainRange(lo, hi)) << GetParam() << " [" << lo << ", " << hi << "]";
    ASSERT_EQ(g->MayContain(lo), f->MayContain(lo)) << GetParam() << " " << lo;
  }
  // The canonical spec parses to the same policy.
  std::unique_ptr<RangeFilterPolicy> again;
  ASSERT_TRUE(NewRangeFilterPolicy(policy_->spec(), &again).ok()) << policy_->spec();
  EXPECT_EQ(again->spec(), policy_->spec());
}

TEST_P(RangeFilterProperty, DamagedBytesAreDetected) {
  const auto keys = UniformSortedKeys(0xDA, 300);
  auto f = Build(keys);
  ASSERT_NE(f, nullptr);
  const std::string bytes = f->Serialize();
  // Every byte, flipped one bit and all bits.
  for (size_t i = 0; i < bytes.size(); ++i) {
    for (int mask : {0x01, 0x80, 0xff}) {
      std::string damaged = bytes;
      damaged[i] = static_cast<char>(damaged[i] ^ mask);
      UnalignedCopy copy(damaged);
      std::unique_ptr<RangeFilter> g;
      Status s = OpenRangeFilter(copy.slice(), &g);
      ASSERT_TRUE(s.IsCorruption()) << GetParam() << ": byte " << i << " ^ " << mask << " of " << bytes.size()
                                    << " opened: " << s.ToString();
      ASSERT_FALSE(s.message().empty());
    }
  }
  // Every truncation.
  for (size_t len = 0; len < bytes.size(); ++len) {
    UnalignedCopy copy(bytes.substr(0, len));
    std::unique_ptr<RangeFilter> g;
    Status s = OpenRangeFilter(copy.slice(), &g);
    ASSERT_TRUE(s.IsCorruption()) << GetParam() << ": truncated to " << len << ": " << s.ToString();
  }
}

// A layout re-wrapped with a valid checksum: the reader must still check
// every number against the data before it indexes by it.
TEST_P(RangeFilterProperty, LayoutIsCheckedAgainstDataBehindAValidChecksum) {
  const auto keys = UniformSortedKeys(0x1A, 1000);
  auto f = Build(keys);
  ASSERT_NE(f, nullptr);
  const std::string bytes = f->Serialize();
  Slice data;
  std::string layout;
  ASSERT_TRUE(ParseRangeFilterBytes(bytes, &data, &layout).ok());
  const std::string data_text = data.ToString();
  auto open = [&](const std::string& d, const std::string& l, const std::string& what) {
    std::string rewrapped;
    AppendRangeFilterBytes(d, l, &rewrapped);
    UnalignedCopy copy(rewrapped);
    std::unique_ptr<RangeFilter> g;
    Status s = OpenRangeFilter(copy.slice(), &g);
    if (s.ok()) {
      // Whatever it opened must answer without crashing.
      SplitMix64 rng(7);
      for (int i = 0; i < 2000; ++i) {
        const uint64_t lo = rng.Next();
        (void)g->MayContainRange(lo, lo + std::min<uint64_t>(UINT64_MAX - lo, rng.Next() >> (rng.Next() % 64)));
      }
    } else {
      EXPECT_TRUE(s.IsCorruption()) << GetParam() << ": " << what << ": " << s.ToString();
    }
    return s;
  };
  EXPECT_TRUE(open(data_text, layout, "unchanged").ok());
  if (data_text.size() >= 8) {
    EXPECT_FALSE(open(data_text.substr(0, data_text.size() - 8), layout, "8 bytes short").ok()) << GetParam();
  }
  EXPECT_FALSE(open(data_text + std::string(64, '\0'), layout, "64 bytes long").ok()) << GetParam();
  EXPECT_FALSE(open(data_text, layout + ",nosuchparameter=1", "unknown parameter").ok()) << GetParam();
  FilterSpec parsed;
  ASSERT_TRUE(FilterSpec::Parse(layout, &parsed).ok());
  EXPECT_FALSE(open(data_text, "nosuchvariant" + layout.substr(parsed.variant().size()), "unknown variant").ok());
  for (const char* extreme : {"0", "1", "63", "4294967296", "18446744073709551615", "-1", "1e308"}) {
    for (size_t i = 0; i < layout.size();) {
      if (layout[i] >= '0' && layout[i] <= '9' && i > 0 && layout[i - 1] == '=') {
        size_t j = i;
        while (j < layout.size() && layout[j] != ',') ++j;
        open(data_text, layout.substr(0, i) + extreme + layout.substr(j), "layout number -> " + std::string(extreme));
        i = j;
      } else {
        ++i;
      }
    }
  }
}

TEST_P(RangeFilterProperty, RejectsBadSpecsAndStatesItsKind) {
  FilterSpec parsed;
  ASSERT_TRUE(FilterSpec::Parse(GetParam(), &parsed).ok());
  std::unique_ptr<RangeFilterPolicy> p;
  Status s = NewRangeFilterPolicy(parsed.WithParam("nosuchparameter", "1"), &p);
  EXPECT_TRUE(s.IsInvalidArgument()) << s.ToString();
  EXPECT_NE(s.message().find("nosuchparameter"), std::string::npos) << s.ToString();
  for (const auto& [key, value] : parsed.Params()) {
    for (const char* bad : {"-5", "1e300", "abc"}) {
      Status b = NewRangeFilterPolicy(parsed.WithParam(key, bad), &p);
      if (!b.ok()) {
        EXPECT_NE(b.message().find(key), std::string::npos) << b.ToString();
      }
    }
  }
  // A range spec is not a point filter, and the message says so.
  std::unique_ptr<FilterPolicy> point;
  Status ps = NewFilterPolicy(GetParam(), &point);
  EXPECT_TRUE(ps.IsInvalidArgument());
  EXPECT_NE(ps.message().find("range filter"), std::string::npos) << ps.ToString();
  const RangeFilterVariant* v = FindRangeFilterVariant(policy_->variant());
  ASSERT_NE(v, nullptr);
  EXPECT_EQ(policy_->key_types(), v->key_types);
  EXPECT_EQ(policy_->is_dynamic(), v->dynamic);
  EXPECT_GT(policy_->BuildMemoryBytes(1'000'000), 0u);
}

// Dynamic variants: keys inserted one at a time in random order (with
// growth past the expected count) are never lost.
TEST_P(RangeFilterProperty, DynamicInsertsLoseNothing) {
  if (!policy_->is_dynamic()) GTEST_SKIP() << "static variant";
  std::unique_ptr<RangeFilter> f;
  ASSERT_TRUE(policy_->NewDynamic(1000, &f).ok());
  ASSERT_TRUE(f->SupportsInsert());
  auto keys = ClusteredSortedKeys(0xD1, 8000);
  std::vector<uint64_t> order = keys;
  SplitMix64 rng(0xD2);
  for (size_t i = order.size(); i > 1; --i) std::swap(order[i - 1], order[rng.Next() % i]);
  for (size_t i = 0; i < order.size(); ++i) {
    ASSERT_TRUE(f->Insert(order[i]).ok()) << GetParam() << " insert #" << i;
  }
  EXPECT_EQ(f->num_keys(), keys.size());
  for (int i = 0; i < 200000; ++i) {
    const NonEmptyRange r = RandomRangeAroundKey(keys, rng);
    ASSERT_TRUE(f->MayContainRange(r.lo, r.hi)) << GetParam() << " [" << r.lo << ", " << r.hi << "]";
  }
}

// Dynamic variants: inserts and deletes interleaved at random (keys inserted
// again, deletes of keys inserted twice) against a std::multiset: after
// every step of a check, every key the model still holds is answered true
// (point and ranges around it), num_keys() is the model's size, and a
// serialized copy answers as the filter. Static variants refuse both.
TEST_P(RangeFilterProperty, DynamicDeletesKeepEveryKeyStillPresent) {
  if (!policy_->is_dynamic()) {
    auto f = Build(UniformSortedKeys(0xD5, 100));
    EXPECT_FALSE(f->SupportsInsert());
    EXPECT_FALSE(f->SupportsDelete());
    EXPECT_TRUE(f->Delete(5).IsNotSupported());
    return;
  }
  std::unique_ptr<RangeFilter> f;
  ASSERT_TRUE(policy_->NewDynamic(500, &f).ok());
  ASSERT_TRUE(f->SupportsDelete());
  const auto pool = ClusteredSortedKeys(0xD6, 6000);  // clustered: partitions with many keys
  std::multiset<uint64_t> model;
  std::vector<uint64_t> present;  // the model as a vector, for uniform picks
  SplitMix64 rng(0xD7);
  const int kSteps = static_cast<int>(SanitizerScaled(30000, 5));
  for (int step = 0; step < kSteps; ++step) {
    const uint64_t dice = rng.Next() % 10;
    if (dice < 6 || present.empty()) {  // insert: mostly new keys, sometimes one already there
      const uint64_t k =
          dice == 0 && !present.empty() ? present[rng.Next() % present.size()] : pool[rng.Next() % pool.size()];
      ASSERT_TRUE(f->Insert(k).ok()) << GetParam() << " step " << step;
      model.insert(k);
      present.push_back(k);
    } else {  // delete one copy of a key the model holds
      const size_t i = rng.Next() % present.size();
      const uint64_t k = present[i];
      Status s = f->Delete(k);
      ASSERT_TRUE(s.ok()) << GetParam() << " step " << step << ": " << s.ToString();
      model.erase(model.find(k));
      present[i] = present.back();
      present.pop_back();
    }
    if (step % 1000 == 999 || step + 1 == kSteps) {
      ASSERT_EQ(f->num_keys(), model.size()) << GetParam();
      for (uint64_t k : model) {
        ASSERT_TRUE(f->MayContain(k)) << GetParam() << " lost " << k << " at step " << step;
        const uint64_t lo = k - std::min<uint64_t>(k, rng.Next() % 100);
        ASSERT_TRUE(f->MayContainRange(lo, k + std::min<uint64_t>(UINT64_MAX - k, rng.Next() % 100)));
      }
    }
  }
  std::unique_ptr<RangeFilter> g;
  const std::string bytes = f->Serialize();
  ASSERT_TRUE(OpenRangeFilter(bytes, &g).ok());
  for (int i = 0; i < 20000; ++i) {
    const uint64_t lo = pool[rng.Next() % pool.size()] - 50;
    ASSERT_EQ(g->MayContainRange(lo, lo + 100), f->MayContainRange(lo, lo + 100));
  }
  // Deleting every key left empties the filter.
  for (uint64_t k : present) ASSERT_TRUE(f->Delete(k).ok());
  EXPECT_EQ(f->num_keys(), 0u);
  EXPECT_FALSE(f->MayContainRange(0, UINT64_MAX));
  for (uint64_t k : pool) ASSERT_FALSE(f->MayContain(k)) << GetParam();
}

GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(RangeFilterProperty);
INSTANTIATE_TEST_SUITE_P(Registered, RangeFilterProperty, testing::ValuesIn(RangeSpecs()), SpecTestName);

TEST(RangeFilterRegistry, VariantsAreRegisteredWithUsableExamples) {
  const auto variants = RegisteredRangeFilterVariants();
  ASSERT_FALSE(variants.empty()) << "no range filter registered: the property tests test nothing";
  for (const RangeFilterVariant* v : variants) {
    SCOPED_TRACE(v->name);
    EXPECT_EQ(FindFilterVariant(v->name), nullptr) << "a name is a point or a range filter, not both";
    EXPECT_NE(v->create, nullptr);
    EXPECT_NE(v->open_layout, nullptr);
    EXPECT_FALSE(v->examples.empty());
    EXPECT_NE(v->key_types & (kRangeKeysUint64 | kRangeKeysBytes), 0u);
    for (const auto& e : v->examples) {
      auto p = MustRangePolicy(e);
      ASSERT_NE(p, nullptr);
      EXPECT_EQ(p->variant(), v->name);
    }
  }
}

TEST(RangeFilterRegistry, UnknownAndPointNamesAreRefusedWithTheKnownOnes) {
  std::unique_ptr<RangeFilterPolicy> p;
  Status s = NewRangeFilterPolicy("nosuchrange:bpk=10", &p);
  ASSERT_TRUE(s.IsInvalidArgument());
  for (const auto* v : RegisteredRangeFilterVariants()) EXPECT_NE(s.message().find(v->name), std::string::npos);
  s = NewRangeFilterPolicy("fastlocal:bpk=10", &p);
  ASSERT_TRUE(s.IsInvalidArgument());
  EXPECT_NE(s.message().find("point filter"), std::string::npos) << s.ToString();
}

TEST(RangeFilterKeys, OrderPreservingUint64NeverDecreases) {
  EXPECT_EQ(OrderPreservingUint64(EncodeBigEndian64(0x0123456789abcdefULL)), 0x0123456789abcdefULL);
  EXPECT_EQ(OrderPreservingUint64(""), 0u);
  EXPECT_EQ(OrderPreservingUint64("\x01"), uint64_t{1} << 56);
  SplitMix64 rng(0x0B);
  std::vector<std::string> s;
  for (int i = 0; i < 20000; ++i) {
    std::string k(rng.Next() % 12, '\0');
    for (auto& c : k) c = static_cast<char>(rng.Next() % 3);
    s.push_back(k);
  }
  std::sort(s.begin(), s.end());
  for (size_t i = 1; i < s.size(); ++i) {
    ASSERT_LE(OrderPreservingUint64(s[i - 1]), OrderPreservingUint64(s[i])) << i;
  }
}

TEST(RangeFilterSerialization, ChecksumCoversDataAndLayout) {
  std::string out;
  AppendRangeFilterBytes("abcdefgh", "x:y=1", &out);
  Slice data;
  std::string layout;
  ASSERT_TRUE(ParseRangeFilterBytes(out, &data, &layout).ok());
  EXPECT_EQ(data.ToString(), "abcdefgh");
  EXPECT_EQ(layout, "x:y=1");
  std::string changed_layout;
  AppendWithFilterlabTrailer(Slice(out.data(), 16), "x:y=2", &changed_layout);  // same data + checksum, other layout
  Status s = ParseRangeFilterBytes(changed_layout, &data, &layout);
  EXPECT_TRUE(s.IsCorruption()) << s.ToString();
  EXPECT_NE(s.message().find("checksum"), std::string::npos);
}

}  // namespace
}  // namespace filterlab
