// LinesPerQuery against layouts whose lines per query are known: one line
// (FastLocalBloom, the legacy full filter), k distinct lines of k random
// probes (standard Bloom: k - k(k-1)/2 / lines on average, less a collision
// now and then), XOR's three blocks, binary fuse's three or four segments,
// Ribbon's run of interleaved segments. Bounds are the layout's expectation
// with room for the few lines two of a query's reads share.
#include "sim/lines_read.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "common/test_scale.h"
#include "filters/filter_test_util.h"

namespace filterlab::sim {
namespace {

double Lines(const std::string& spec, size_t keys) {
  const auto policy = testing_util::MustPolicy(spec);
  const std::vector<uint64_t> hashes = testing_util::TestHashes(3, keys, policy->hash_width());
  const auto filter = testing_util::MustBuild(*policy, hashes);
  const std::vector<uint64_t> asked(hashes.begin(), hashes.begin() + SanitizerScaled(200, 4));
  double lines = 0;
  const Status s = LinesPerQuery(*policy, filter->Serialize(), asked, &lines);
  EXPECT_TRUE(s.ok()) << spec << ": " << s.ToString();
  return lines;
}

TEST(LinesPerQuery, MatchesEachLayout) {
  EXPECT_NEAR(Lines("fastlocal:bpk=10", 10000), 1.0, 0.005);
  EXPECT_NEAR(Lines("legacy:bpk=10", 10000), 1.0, 0.005);
  EXPECT_NEAR(Lines("sbbf:bpk=10", 10000), 1.0, 0.005);
  // 7 probes over 196 lines: 7 - 21/196 = 6.89 distinct lines on average.
  EXPECT_NEAR(Lines("standard:bpk=10", 10000), 6.89, 0.25);
  EXPECT_NEAR(Lines("xor:fingerprint=8", 10000), 3.0, 0.02);
  // Segments of 512 one-byte slots: the arity slots lie in distinct lines.
  EXPECT_NEAR(Lines("binary_fuse:arity=3,fingerprint=8", 10000), 3.0, 0.02);
  EXPECT_NEAR(Lines("binary_fuse:arity=4,fingerprint=8", 10000), 4.0, 0.02);
  // 6 or 7 columns of 16 bytes in two adjacent blocks: 192-224 bytes from a
  // 16-byte boundary, 3 to 5 lines.
  const double ribbon = Lines("ribbon:bpk=10", 10000);
  EXPECT_GE(ribbon, 3.5);
  EXPECT_LE(ribbon, 4.5);
}

TEST(LinesPerQuery, NeedsAddedKeys) {
  const auto policy = testing_util::MustPolicy("fastlocal:bpk=10");
  const auto filter = testing_util::MustBuild(*policy, testing_util::TestHashes(3, 100));
  double lines = 0;
  EXPECT_TRUE(LinesPerQuery(*policy, filter->Serialize(), {}, &lines).IsInvalidArgument());
  // A hash never added (answered "no") is not a query whose lines can be counted.
  const Status s = LinesPerQuery(*policy, filter->Serialize(), testing_util::TestHashes(99, 1000), &lines);
  EXPECT_TRUE(s.IsCorruption()) << s.ToString();
}

}  // namespace
}  // namespace filterlab::sim
