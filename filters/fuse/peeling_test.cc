// The shared peeling construction, on layouts made to fail: the seed retries
// end with a clear error, and duplicates are removed before a retry.
#include "filters/fuse/peeling.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "filters/filter_test_util.h"

namespace filterlab::fuse {
namespace {

using testing_util::TestHashes;

// Every key on the same three slots: one key peels, two never do.
struct ThreeSlotLayout {
  static constexpr int kArity = 3;
  size_t num_slots() const { return 3; }
  void Positions(uint64_t, uint32_t* pos) const { pos[0] = 0, pos[1] = 1, pos[2] = 2; }
};

TEST(PeelingTest, OneKeyOnThreeSlotsPeelsAtSeedZero) {
  Peeled<ThreeSlotLayout, uint8_t> out;
  const std::vector<uint64_t> one = TestHashes(1, 1);
  ASSERT_TRUE(BuildByPeeling<uint8_t>(
                  one.data(), 1, [](size_t, uint32_t) { return ThreeSlotLayout{}; }, 5, "test", &out)
                  .ok());
  EXPECT_EQ(out.seed, 0u);
  EXPECT_EQ(out.distinct_keys, 1u);
  const uint64_t h = SeededHash(one[0], 0);
  EXPECT_EQ(out.fingerprints[0] ^ out.fingerprints[1] ^ out.fingerprints[2], FingerprintOf<uint8_t>(h));
}

TEST(PeelingTest, GivesUpAfterTheLastSeedWithTheReason) {
  Peeled<ThreeSlotLayout, uint8_t> out;
  const std::vector<uint64_t> two = TestHashes(2, 2);
  int layouts_made = 0;
  const Status s = BuildByPeeling<uint8_t>(
      two.data(), 2, [&layouts_made](size_t, uint32_t) { return ++layouts_made, ThreeSlotLayout{}; }, 7, "spec 'x'",
      &out);
  ASSERT_TRUE(s.IsInvalidArgument()) << s.ToString();
  EXPECT_EQ(layouts_made, 7);  // one attempt per seed, no more
  for (const char* part : {"spec 'x'", "no seed of 7", "2 distinct hashes"}) {
    EXPECT_NE(s.message().find(part), std::string::npos) << s.ToString();
  }
}

// The same hash 1000 times: seed 0 fails (its slots hold 1000 keys), the
// retry removes the copies and sizes the layout for one key.
TEST(PeelingTest, DuplicatesAreRemovedBeforeTheRetry) {
  const std::vector<uint64_t> same(1000, 0x1234567887654321ULL);
  std::vector<size_t> sized_for;
  Peeled<ThreeSlotLayout, uint16_t> out;
  ASSERT_TRUE(BuildByPeeling<uint16_t>(
                  same.data(), same.size(),
                  [&sized_for](size_t keys, uint32_t) { return sized_for.push_back(keys), ThreeSlotLayout{}; }, 5,
                  "test", &out)
                  .ok());
  EXPECT_EQ(sized_for, (std::vector<size_t>{1000, 1}));
  EXPECT_EQ(out.seed, 1u);
  EXPECT_EQ(out.distinct_keys, 1u);
}

TEST(PeelingTest, NoKeysNeedNoPeel) {
  Peeled<ThreeSlotLayout, uint8_t> out;
  ASSERT_TRUE(BuildByPeeling<uint8_t>(
                  nullptr, 0, [](size_t, uint32_t) { return ThreeSlotLayout{}; }, 1, "test", &out)
                  .ok());
  EXPECT_EQ(out.distinct_keys, 0u);
  for (int i = 0; i < 3; ++i) EXPECT_EQ(out.fingerprints[i], 0);
}

}  // namespace
}  // namespace filterlab::fuse
