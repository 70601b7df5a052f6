#include "engine/bench/bench_keys.h"

#include <gtest/gtest.h>

namespace filterlab::lsmbench {
namespace {

TEST(BenchKeysTest, BigEndianNumberThenZeroPadding) {
  // db_bench's GenerateKeyFromInt: 8 bytes big-endian, then '0' up to key_size.
  EXPECT_EQ(KeyString(0x0102030405060708ULL, 16), std::string("\x01\x02\x03\x04\x05\x06\x07\x08", 8) + "00000000");
  EXPECT_EQ(KeyString(1, 8), std::string("\0\0\0\0\0\0\0\x01", 8));
  EXPECT_EQ(KeyString(258, 10), std::string("\0\0\0\0\0\0\x01\x02", 8) + "00");
}

TEST(BenchKeysTest, ByteOrderIsNumericOrder) {
  for (uint64_t k : {0ULL, 1ULL, 255ULL, 256ULL, 65535ULL, 1ULL << 40}) {
    EXPECT_LT(KeyString(k, 16), KeyString(k + 1, 16)) << k;
  }
}

TEST(BenchKeysTest, MissingKeySortsBetweenNeighbours) {
  // readmissing's key (one more '0') is absent yet lies between keys k and k+1.
  const std::string missing = KeyString(42, 17);
  EXPECT_GT(missing, KeyString(42, 16));
  EXPECT_LT(missing, KeyString(43, 16));
}

TEST(BenchKeysTest, KeyBufferReusesItsStorage) {
  KeyBuffer keys(16);
  EXPECT_EQ(keys.Make(7).ToString(), KeyString(7, 16));
  EXPECT_EQ(keys.Make(9).ToString(), KeyString(9, 16));
}

TEST(BenchKeysTest, UniformStaysInRangeAndIsSeeded) {
  KeyRandom a(5), b(5), c(6);
  bool differs = false;
  for (int i = 0; i < 1000; ++i) {
    const uint64_t x = a.Uniform(10);
    EXPECT_LT(x, 10u);
    EXPECT_EQ(x, b.Uniform(10));
    differs |= x != c.Uniform(10);
  }
  EXPECT_TRUE(differs);
}

// At ratio 0.5 each 100-byte piece is 50 random bytes said twice: the
// second half of a piece equals its first.
TEST(BenchKeysTest, CompressibleValuesRepeatTheirFreshBytes) {
  ValueSource values(3, 100, 0.5);
  const std::string v = values.Next().ToString();  // the first value is the buffer's first piece
  ASSERT_EQ(v.size(), 100u);
  EXPECT_EQ(v.substr(0, 50), v.substr(50, 50));
  ValueSource random(3, 100);
  const std::string r = random.Next().ToString();
  EXPECT_NE(r.substr(0, 50), r.substr(50, 50));
}

TEST(BenchKeysTest, ValuesHaveTheRequestedSize) {
  ValueSource values(1, 100);
  const Slice first = values.Next();
  const Slice second = values.Next();
  EXPECT_EQ(first.size(), 100u);
  EXPECT_EQ(second.size(), 100u);
  EXPECT_NE(first.ToString(), second.ToString());
  ValueSource empty(1, 0);
  EXPECT_EQ(empty.Next().size(), 0u);
}

}  // namespace
}  // namespace filterlab::lsmbench
