// XOR filters: what is specific to them (the generic checks of every
// registered example are in filters/filter_property_test.cc): the size
// against the paper's 1.23 n + 32, the seed retries small filters need,
// duplicates and the spec (the FP rate: peeled_filter_test.cc).
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "filters/filter.h"
#include "filters/filter_test_util.h"
#include "filters/registry.h"

namespace filterlab {
namespace {

using testing_util::ExpectInvalidSpec;
using testing_util::MustBuild;
using testing_util::MustPolicy;
using testing_util::TestHashes;

// floor(1.23 * 10^6) + 32 = 1,230,032 slots = 3 blocks of 410,011 (rounded
// up to 1,230,033): 9.84 bits/key at 8 bits, the paper's figure.
TEST(XorFilterTest, SizeAtAMillionKeysIsOnePointTwoThreeNPlus32) {
  const std::vector<uint64_t> hashes = TestHashes(1, 1'000'000);
  auto f8 = MustBuild(*MustPolicy("xor:fingerprint=8"), hashes);
  EXPECT_NE(f8->Describe().find("block_length=410011"), std::string::npos) << f8->Describe();
  EXPECT_EQ(f8->DataBytes(), 1'230'033u);
  EXPECT_NEAR(8.0 * static_cast<double>(f8->DataBytes()) / 1e6, 9.84, 0.001);
  auto f16 = MustBuild(*MustPolicy("xor:fingerprint=16"), hashes);
  EXPECT_EQ(f16->DataBytes(), 2 * 1'230'033u);
  EXPECT_DOUBLE_EQ(MustPolicy("xor:fingerprint=8")->bits_per_key(), 8 * 1.23);
}

// At 20 keys (floor(24.6) + 32 = 56 slots, 3 blocks of 19) the random
// 3-hypergraph of some of 300 inputs keeps a 2-core at seed 0, so they take a
// later seed; every filter, whatever its seed, holds all its keys. The seed
// is in the layout.
TEST(XorFilterTest, SmallFiltersRetryWithTheNextSeed) {
  auto p = MustPolicy("xor:fingerprint=8");
  int retried = 0;
  for (uint64_t input = 0; input < 300; ++input) {
    const std::vector<uint64_t> keys = TestHashes(1000 + input, 20);
    auto f = MustBuild(*p, keys);
    ASSERT_NE(f, nullptr);
    retried += f->Describe().find(",seed=0,") == std::string::npos;
    for (uint64_t h : keys) ASSERT_TRUE(f->MayContain(h)) << f->Describe();
  }
  EXPECT_GT(retried, 0) << "no input of 20 keys needed a second seed: the retry path is untested";
  EXPECT_LT(retried, 300);
}

TEST(XorFilterTest, DuplicateHashesCountOnce) {
  auto p = MustPolicy("xor:fingerprint=16");
  const std::vector<uint64_t> one = TestHashes(5, 1);
  auto repeated = MustBuild(*p, std::vector<uint64_t>(1000, one[0]));
  EXPECT_EQ(repeated->DataBytes(), MustBuild(*p, one)->DataBytes());
  EXPECT_TRUE(repeated->MayContain(one[0]));
}

TEST(XorFilterTest, SpecHasTheFingerprintOnly) {
  EXPECT_EQ(MustPolicy("xor")->spec(), "xor:fingerprint=8,hash=64");
  EXPECT_FALSE(MustPolicy("xor")->num_probes().has_value());
  ExpectInvalidSpec("xor:fingerprint=32", {"fingerprint", "8", "16"});
  ExpectInvalidSpec("xor:bpk=10", {"bpk"});
  ExpectInvalidSpec("xor:arity=4", {"arity"});
}

}  // namespace
}  // namespace filterlab
