// OneBit: what is specific to the single-probe filter (the generic checks of
// every registered example are in filter_property_test.cc): exact sizing, a
// policy without probes, the model against the closed form, the measured FP
// rate against the model, and the layout the reader needs.
#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <string>

#include "filters/filter.h"
#include "filters/filter_test_util.h"
#include "filters/registry.h"

namespace filterlab {
namespace {

using testing_util::ExpectCorruption;
using testing_util::MustBuild;
using testing_util::MustPolicy;
using testing_util::TestHashes;

TEST(OneBitFilterTest, SizeIsCeilKeysTimesBitsPerKey) {
  auto p = MustPolicy("onebit:bpk=10.3");
  EXPECT_EQ(p->spec(), "onebit:bpk=10.3,hash=64");
  auto f = MustBuild(*p, TestHashes(1, 1000));
  EXPECT_EQ(f->Describe(), "onebit:hash=64,bits=10300");
  EXPECT_EQ(f->DataBytes(), 161u * 8);  // ceil(10300 / 64) words
}

TEST(OneBitFilterTest, HasNoProbes) {
  auto p = MustPolicy("onebit:bpk=10");
  EXPECT_FALSE(p->num_probes().has_value());
  EXPECT_FALSE(FindFilterVariant("onebit")->has_probes);
  std::unique_ptr<FilterPolicy> bad;
  const Status s = NewFilterPolicy("onebit:bpk=10,probes=2", &bad);
  ASSERT_TRUE(s.IsInvalidArgument());
  EXPECT_NE(s.message().find("probes"), std::string::npos) << s.ToString();
}

// With 64-bit hashes (no equal-hash term at this n) the model is
// 1 - (1 - 1/m)^n, which for large m is 1 - e^(-n/m) = 1 - e^(-1/bpk).
TEST(OneBitFilterTest, ModelIsTheSingleProbeFormula) {
  auto p = MustPolicy("onebit:bpk=10");
  const size_t n = 1'000'000;
  EXPECT_NEAR(p->ModelFpRate(n), -std::expm1(-0.1), 1e-6);
  EXPECT_EQ(p->ModelFpRate(0), 0.0);
  // At hash=32 the equal-hash matches add about n / 2^32.
  auto p32 = MustPolicy("onebit:bpk=10,hash=32");
  EXPECT_GT(p32->ModelFpRate(n), p->ModelFpRate(n));
  EXPECT_LT(p32->ModelFpRate(n), p->ModelFpRate(n) + 2.0 * n / 4294967296.0);
}

// 10^5 keys, 10^6 fresh queries (seed fixed): the count is Binomial(Q, p)
// with p ~ 0.095, sigma ~ 2.9e-4; 4 sigma bounds a false alarm at ~1/16000.
TEST(OneBitFilterTest, MeasuredFpRateMatchesTheModel) {
  auto p = MustPolicy("onebit:bpk=10");
  const size_t n = 100'000, q = 1'000'000;
  auto f = MustBuild(*p, TestHashes(11, n));
  size_t positives = 0;
  for (uint64_t h : TestHashes(12, q)) positives += f->MayContain(h);
  const double model = p->ModelFpRate(n);
  const double sigma = std::sqrt(model * (1 - model) / q);
  EXPECT_NEAR(static_cast<double>(positives) / q, model, 4 * sigma);
}

TEST(OneBitFilterTest, ReaderRejectsALayoutWithoutItsSize) {
  auto f = MustBuild(*MustPolicy("onebit:bpk=10"), TestHashes(3, 100));
  std::string bytes = f->Serialize();
  const std::string layout = f->Describe();
  const size_t at = bytes.find(layout);
  ASSERT_NE(at, std::string::npos);
  // Same length, so only the layout's words change: "bits" -> "bytz".
  bytes[at + layout.find("bits") + 2] = 'z';
  bytes[at + layout.find("bits") + 3] = 'z';
  ExpectCorruption(bytes, {"onebit", "bits"});
}

}  // namespace
}  // namespace filterlab
