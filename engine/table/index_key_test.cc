#include "engine/table/index_key.h"

#include <gtest/gtest.h>

#include <string>

#include "engine/memtable/internal_key.h"
#include "hashing/remix.h"

namespace filterlab::engine {
namespace {

std::string Sep(const std::string& a, const std::string& b) { return ShortestSeparator(a, b); }

TEST(ShortestSeparator, SpecRules) {
  EXPECT_EQ(Sep("abc", "abe"), "abd");    // increment at the first difference
  EXPECT_EQ(Sep("abc", "abzz"), "abd");   // limit longer: incrementing is safe
  EXPECT_EQ(Sep("abcx", "abd"), "abcy");  // start[d]+1 == limit[d], limit ends at d
  EXPECT_EQ(Sep("abc", "abd"), "abc");    // ... and nothing after d to grow
  EXPECT_EQ(Sep("ab", "abc"), "ab");      // prefix: no shortening
  EXPECT_EQ(Sep(std::string("a\xff\xff", 3), "b"), std::string("a\xff\xff", 3));
  EXPECT_EQ(Sep(std::string("a\xff\x01z", 4), "b"), std::string("a\xff\x02", 3));
  EXPECT_EQ(Sep(std::string("\x00\x05", 2), std::string("\x01", 1)), std::string("\x00\x06", 2));
  EXPECT_EQ(Sep("helloworld", "hellz"), "hellp");
}

std::string RandomKey(SplitMix64& rng) {
  std::string k(1 + rng.Next() % 6, '\0');
  for (auto& c : k)
    c = "\x00\x01\xfe\xff"
        "ab"[rng.Next() % 6];
  return k;
}

TEST(ShortestSeparator, RandomPairsStayBetweenAndNoLonger) {
  SplitMix64 rng(7);
  for (int i = 0; i < 200000; ++i) {
    std::string a = RandomKey(rng), b = RandomKey(rng);
    if (Slice(a).compare(b) == 0) continue;
    if (Slice(a).compare(b) > 0) std::swap(a, b);
    const std::string s = Sep(a, b);
    ASSERT_LE(Slice(a).compare(s), 0);
    ASSERT_LT(Slice(s).compare(b), 0);
    ASSERT_LE(s.size(), a.size());
  }
}

TEST(IndexSeparator, LiesBetweenBlocksAndKeepsSharedUserKeysWhole) {
  SplitMix64 rng(11);
  for (int i = 0; i < 100000; ++i) {
    std::string ua = RandomKey(rng), ub = RandomKey(rng);
    if (Slice(ua).compare(ub) > 0) std::swap(ua, ub);
    std::string a, b;
    const uint64_t sa = rng.Next() % 100, sb = rng.Next() % 100;
    AppendInternalKey(&a, ua, sa, kTypeValue);
    AppendInternalKey(&b, ub, sb, kTypeValue);
    if (CompareInternalKeys(a, b) >= 0) continue;
    const std::string s = IndexSeparator(a, b);
    ASSERT_LE(CompareInternalKeys(a, s), 0);
    ASSERT_LT(CompareInternalKeys(s, b), 0);
    // The invariant SeekForGet relies on (as in RocksDB's SeekForGet).
    if (ua == ub) {
      ASSERT_EQ(s, a);
    } else {
      ASSERT_LT(ExtractUserKey(s).compare(ub), 0);
    }
  }
  std::string a, b;
  AppendInternalKey(&a, "apple", 5, kTypeValue);
  AppendInternalKey(&b, "banana", 9, kTypeValue);
  std::string expected;
  AppendInternalKey(&expected, "b", kMaxSequenceNumber, kValueTypeForSeek);
  EXPECT_EQ(IndexSeparator(a, b), expected);
}

}  // namespace
}  // namespace filterlab::engine
