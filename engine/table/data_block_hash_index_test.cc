#include "engine/table/data_block_hash_index.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "engine/memtable/internal_key.h"
#include "engine/table/block.h"
#include "engine/table/block_builder.h"
#include "engine/util/coding.h"

namespace filterlab::engine {
namespace {

TEST(DataBlockHashIndex, HashIsHash32Seed397) {
  // Spec §1.3 values.
  EXPECT_EQ(DataBlockHashIndexHash(""), 397u);
  EXPECT_EQ(DataBlockHashIndexHash("a"), 1552184241u);
  EXPECT_EQ(DataBlockHashIndexHash("key0"), 1198975794u);
  EXPECT_EQ(DataBlockHashIndexHash("key1"), 3665196594u);
  EXPECT_EQ(DataBlockHashIndexHash("hello world"), 1668546585u);
}

uint16_t BucketsAfter(int n, double util) {
  DataBlockHashIndexBuilder b(util);
  for (int i = 0; i < n; ++i) b.Add(std::string("k").append(std::to_string(i)), 0);
  return b.NumBuckets();
}

TEST(DataBlockHashIndex, BucketCountsByRepeatedAddition) {
  // Spec §1.3 verified table for util 0.75, n = 1..19 (note n=6 → 7, not 9).
  const std::vector<int> expected = {1, 3, 5, 5, 7, 7, 9, 11, 13, 13, 15, 17, 17, 19, 19, 21, 23, 23, 25};
  for (int n = 1; n <= 19; ++n) EXPECT_EQ(BucketsAfter(n, 0.75), expected[n - 1]) << "n=" << n;
  for (int n = 1; n <= 300; ++n) {
    EXPECT_EQ(BucketsAfter(n, 1.0), n | 1) << "util 1.0 n=" << n;
    EXPECT_EQ(BucketsAfter(n, 0.5), (2 * n) | 1) << "util 0.5 n=" << n;
  }
  EXPECT_EQ(BucketsAfter(0, 0.75), 1);
  // Non-positive / NaN ratios fall back to 0.75.
  EXPECT_EQ(BucketsAfter(6, 0.0), 7);
  EXPECT_EQ(BucketsAfter(6, -1.0), 7);
  EXPECT_EQ(BucketsAfter(6, std::nan("")), 7);
}

TEST(DataBlockHashIndex, RestartIndexAbove253Invalidates) {
  DataBlockHashIndexBuilder b(1.0);
  b.Add("a", 253);
  EXPECT_TRUE(b.Valid());
  b.Add("b", 254);
  EXPECT_FALSE(b.Valid());
  b.Reset();
  EXPECT_TRUE(b.Valid());
}

// Builds a data block of internal keys (seq 1, value "v") and returns it.
std::string BuildBlock(const std::vector<std::string>& user_keys, int restart_interval, double util,
                       bool* hash_written = nullptr) {
  BlockBuilderOptions o;
  o.restart_interval = restart_interval;
  o.use_hash_index = true;
  o.hash_util_ratio = util;
  BlockBuilder builder(o);
  for (const auto& k : user_keys) {
    std::string ikey;
    AppendInternalKey(&ikey, k, 1, kTypeValue);
    builder.Add(ikey, "v");
  }
  const std::string block = builder.Finish().ToString();
  if (hash_written) *hash_written = builder.hash_index_written();
  return block;
}

// The last bytes of a hash-indexed block: M buckets, u16 M, u32 footer.
std::vector<int> TrailingBuckets(const std::string& block, uint16_t* m, uint32_t* footer) {
  *footer = DecodeFixed32(block.data() + block.size() - 4);
  *m = DecodeFixed16(block.data() + block.size() - 6);
  std::vector<int> buckets;
  for (size_t i = block.size() - 6 - *m; i < block.size() - 6; ++i) buckets.push_back(static_cast<uint8_t>(block[i]));
  return buckets;
}

TEST(DataBlockHashIndex, WorkedExampleFiveKeys) {
  // Spec §1.3: keys k1..k5, restart interval 2 (restart indexes 0,0,1,1,2),
  // util 0.75 → M=7. Hashes mod 7 → 2,0,0,4,1: bucket 0 gets k2 (interval 0)
  // and k3 (interval 1) → collision; bucket 2 ← k1 (0); bucket 4 ← k4 (1);
  // bucket 1 ← k5 (2).
  const std::vector<uint32_t> hashes = {635102855, 3397548392, 1865026765, 332505009, 3094950426};
  const std::vector<uint32_t> mod7 = {2, 0, 0, 4, 1};
  for (int i = 0; i < 5; ++i) {
    EXPECT_EQ(DataBlockHashIndexHash(std::string("k").append(std::to_string(i + 1))), hashes[i]);
    EXPECT_EQ(hashes[i] % 7, mod7[i]);
  }
  bool written = false;
  const std::string block = BuildBlock({"k1", "k2", "k3", "k4", "k5"}, 2, 0.75, &written);
  ASSERT_TRUE(written);
  uint16_t m = 0;
  uint32_t footer = 0;
  EXPECT_EQ(TrailingBuckets(block, &m, &footer), (std::vector<int>{254, 2, 0, 255, 1, 255, 255}));
  EXPECT_EQ(m, 7);
  EXPECT_EQ(block.substr(block.size() - 6, 2), std::string("\x07\x00", 2));
  EXPECT_EQ(footer, 3u | (1u << 31));  // 3 restarts + hash flag
}

TEST(DataBlockHashIndex, WorkedExampleFruitKeys) {
  const std::vector<std::string> keys = {"apple", "banana", "cherry", "date", "elder", "fig", "grape", "honeydew"};
  uint16_t m = 0;
  uint32_t footer = 0;
  EXPECT_EQ(TrailingBuckets(BuildBlock(keys, 3, 1.0), &m, &footer),
            (std::vector<int>{0, 255, 1, 1, 254, 0, 255, 255, 2}));
  EXPECT_EQ(m, 9);
  EXPECT_EQ(footer, 3u | (1u << 31));
  EXPECT_EQ(TrailingBuckets(BuildBlock(keys, 3, 0.5), &m, &footer),
            (std::vector<int>{255, 1, 0, 254, 254, 255, 255, 1, 255, 255, 255, 255, 255, 255, 255, 255, 1}));
  EXPECT_EQ(m, 17);
}

TEST(DataBlockHashIndex, VersionsSpanningTwoIntervalsMarkCollision) {
  // Three versions of "x" with restart interval 2: two in interval 0, one in
  // interval 1 → its bucket must be 254 even though no other key collides.
  BlockBuilderOptions o;
  o.restart_interval = 2;
  o.use_hash_index = true;
  o.hash_util_ratio = 0.1;  // many buckets, so no accidental collisions
  BlockBuilder builder(o);
  for (SequenceNumber seq : {30, 20, 10}) {
    std::string ikey;
    AppendInternalKey(&ikey, "x", seq, kTypeValue);
    builder.Add(ikey, "v");
  }
  const std::string block = builder.Finish().ToString();
  uint16_t m = 0;
  uint32_t footer = 0;
  const auto buckets = TrailingBuckets(block, &m, &footer);
  EXPECT_EQ(buckets[DataBlockHashIndexHash("x") % m], 254);
  int non_empty = 0;
  for (int b : buckets) non_empty += b != 255;
  EXPECT_EQ(non_empty, 1);
}

TEST(DataBlockHashIndex, NoIndexBeyond254RestartIntervals) {
  std::vector<std::string> keys;
  for (int i = 0; i < 255; ++i) {
    char buf[8];
    std::snprintf(buf, sizeof(buf), "k%04d", i);
    keys.push_back(buf);
  }
  bool written = true;
  BuildBlock(keys, 1, 0.75, &written);  // 255 restart intervals
  EXPECT_FALSE(written);
  keys.pop_back();
  BuildBlock(keys, 1, 0.75, &written);  // 254: still fine
  EXPECT_TRUE(written);
}

TEST(DataBlockHashIndex, NoIndexForBlocksOver64KiB) {
  BlockBuilderOptions o;
  o.use_hash_index = true;
  BlockBuilder builder(o);
  int i = 0;
  while (builder.CurrentSizeEstimate() < 70000) {
    std::string ikey;
    char buf[16];
    std::snprintf(buf, sizeof(buf), "key%06d", i++);
    AppendInternalKey(&ikey, buf, 1, kTypeValue);
    builder.Add(ikey, std::string(1000, 'v'));
  }
  const std::string block = builder.Finish().ToString();
  EXPECT_FALSE(builder.hash_index_written());
  EXPECT_EQ(DecodeFixed32(block.data() + block.size() - 4) & (1u << 31), 0u);
}

TEST(DataBlockHashIndex, ReaderRejectsBadTrailers) {
  const std::string good = BuildBlock({"k1", "k2", "k3"}, 2, 0.75);
  std::unique_ptr<Block> block;
  ASSERT_TRUE(Block::Open(good, "test block", KeyOrder::kInternal, &block).ok());
  ASSERT_TRUE(block->has_hash_index());

  std::string zero_buckets = good;
  zero_buckets[good.size() - 6] = 0;
  zero_buckets[good.size() - 5] = 0;
  Status s = Block::Open(zero_buckets, "test block", KeyOrder::kInternal, &block);
  EXPECT_TRUE(s.IsCorruption());
  EXPECT_NE(s.message().find("test block"), std::string::npos) << s.message();

  std::string too_many = good;
  too_many[good.size() - 5] = 0x7f;  // M >= 0x7f00: more buckets than the block has bytes
  EXPECT_TRUE(Block::Open(too_many, "test block", KeyOrder::kInternal, &block).IsCorruption());

  // A bucket naming a restart interval the block does not have.
  std::string bad_bucket = good;
  const uint16_t m = DecodeFixed16(good.data() + good.size() - 6);
  const size_t map = good.size() - 6 - m;
  for (size_t i = map; i < map + m; ++i) bad_bucket[i] = 100;
  ASSERT_TRUE(Block::Open(bad_bucket, "test block", KeyOrder::kInternal, &block).ok());
  BlockIter it(block.get());
  std::string target;
  AppendInternalKey(&target, "k1", kMaxSequenceNumber, kValueTypeForSeek);
  it.SeekForGet(target);
  EXPECT_FALSE(it.Valid());
  EXPECT_TRUE(it.status().IsCorruption());
  EXPECT_NE(it.status().message().find("restart interval 100"), std::string::npos) << it.status().message();
}

}  // namespace
}  // namespace filterlab::engine
