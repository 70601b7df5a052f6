// Block compression: round trips, the 1/8 rule, bad names, and damaged
// stored bytes, which must give Corruption or the exact announced size,
// never a crash or an overrun (ASan/UBSan check the latter).
#include "engine/table/compression.h"

#include <gtest/gtest.h>

#include <string>

#include "engine/util/coding.h"
#include "hashing/remix.h"

namespace filterlab::engine {
namespace {

std::string Compressible(size_t n) {
  std::string s(n, '\0');
  for (size_t i = 0; i < n; ++i) s[i] = "key0000value-"[(i * 7 / 5) % 13];
  return s;
}

std::string RandomBytes(size_t n, uint64_t seed) {
  SplitMix64 rng(seed);
  std::string s(n, '\0');
  for (auto& c : s) c = static_cast<char>(rng.Next());
  return s;
}

TEST(Compression, RoundTripsAndSavesOnCompressibleBlocks) {
  const std::string raw = Compressible(4096);
  for (CompressionType t : {CompressionType::kLZ4, CompressionType::kZSTD}) {
    SCOPED_TRACE(CompressionTypeName(t));
    std::string stored;
    ASSERT_EQ(CompressBlock(t, raw, &stored), t);
    EXPECT_LT(stored.size(), raw.size() / 4);
    std::string back;
    Status s = UncompressBlock(static_cast<uint8_t>(t), stored, "block", &back);
    ASSERT_TRUE(s.ok()) << s.ToString();
    EXPECT_EQ(back, raw);
  }
}

TEST(Compression, KeepsBlocksRawWhenTheSavingIsUnderAnEighth) {
  const std::string random = RandomBytes(4096, 3);
  for (CompressionType t : {CompressionType::kNone, CompressionType::kLZ4, CompressionType::kZSTD}) {
    std::string stored = "left over";
    EXPECT_EQ(CompressBlock(t, random, &stored), CompressionType::kNone) << CompressionTypeName(t);
    EXPECT_TRUE(stored.empty());
  }
  std::string stored;
  EXPECT_EQ(CompressBlock(CompressionType::kLZ4, "", &stored), CompressionType::kNone);
}

TEST(Compression, NamesParseAndBadNamesSayWhatIsAllowed) {
  CompressionType t = CompressionType::kNone;
  for (const char* name : {"none", "lz4", "zstd"}) {
    ASSERT_TRUE(ParseCompressionType(name, &t).ok());
    EXPECT_STREQ(CompressionTypeName(t), name);
  }
  Status s = ParseCompressionType("snappy", &t);
  EXPECT_TRUE(s.IsInvalidArgument());
  EXPECT_NE(s.message().find("'snappy'"), std::string::npos) << s.ToString();
  EXPECT_NE(s.message().find("none, lz4, zstd"), std::string::npos) << s.ToString();
}

// Every single-byte change and every truncation of a stored block: the
// result is Corruption naming the block, or OK with exactly the announced
// size (LZ4 has no checksum of its own; the trailer's checksum is what
// catches such blocks in a table). Oversized announcements are refused
// before anything is allocated.
TEST(Compression, DamagedStoredBytesAreCorruptionOrExactSize) {
  const std::string raw = Compressible(2000) + RandomBytes(300, 4);
  for (CompressionType t : {CompressionType::kLZ4, CompressionType::kZSTD}) {
    SCOPED_TRACE(CompressionTypeName(t));
    std::string stored;
    ASSERT_EQ(CompressBlock(t, raw, &stored), t);
    size_t corruptions = 0, cases = 0;
    auto check = [&](const std::string& damaged) {
      std::string out;
      const Status s = UncompressBlock(static_cast<uint8_t>(t), damaged, "data block at offset 7", &out);
      ++cases;
      if (s.ok()) {
        EXPECT_LE(out.size(), kMaxUncompressedBlock);
      } else {
        ++corruptions;
        EXPECT_TRUE(s.IsCorruption()) << s.ToString();
        EXPECT_NE(s.message().find("data block at offset 7"), std::string::npos) << s.ToString();
      }
    };
    for (size_t i = 0; i < stored.size(); ++i) {
      for (uint8_t flip : {uint8_t{0x01}, uint8_t{0x80}, uint8_t{0xff}}) {
        std::string damaged = stored;
        damaged[i] = static_cast<char>(damaged[i] ^ flip);
        check(damaged);
      }
    }
    for (size_t n = 0; n < stored.size(); ++n) check(stored.substr(0, n));
    // Truncation always loses bytes the decoder needs.
    EXPECT_GE(corruptions, stored.size()) << cases << " cases";
  }
  std::string huge;
  PutVarint32(&huge, 0xffffffffu);
  std::string out;
  const Status s = UncompressBlock(static_cast<uint8_t>(CompressionType::kLZ4), huge, "b", &out);
  EXPECT_TRUE(s.IsCorruption() && s.message().find("over the") != std::string::npos) << s.ToString();
}

}  // namespace
}  // namespace filterlab::engine
