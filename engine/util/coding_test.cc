#include "engine/util/coding.h"

#include <gtest/gtest.h>

#include <limits>
#include <vector>

namespace filterlab::engine {
namespace {

TEST(Coding, FixedIsLittleEndian) {
  std::string s;
  PutFixed32(&s, 0x04030201u);
  PutFixed64(&s, 0x0807060504030201ull);
  PutFixed16(&s, 0x0201);
  ASSERT_EQ(s.size(), 14u);
  EXPECT_EQ(s.substr(0, 4), std::string("\x01\x02\x03\x04", 4));
  EXPECT_EQ(s.substr(4, 8), std::string("\x01\x02\x03\x04\x05\x06\x07\x08", 8));
  EXPECT_EQ(s.substr(12, 2), std::string("\x01\x02", 2));
  EXPECT_EQ(DecodeFixed32(s.data()), 0x04030201u);
  EXPECT_EQ(DecodeFixed64(s.data() + 4), 0x0807060504030201ull);
  EXPECT_EQ(DecodeFixed16(s.data() + 12), 0x0201);
}

TEST(Coding, VarintKnownEncodings) {
  std::string s;
  PutVarint32(&s, 0);
  PutVarint32(&s, 127);
  PutVarint32(&s, 128);
  PutVarint32(&s, 300);
  EXPECT_EQ(s, std::string("\x00\x7f\x80\x01\xac\x02", 6));
  std::string big;
  PutVarint32(&big, std::numeric_limits<uint32_t>::max());
  EXPECT_EQ(big, std::string("\xff\xff\xff\xff\x0f", 5));
  std::string big64;
  PutVarint64(&big64, std::numeric_limits<uint64_t>::max());
  EXPECT_EQ(big64, std::string(9, '\xff') + std::string("\x01", 1));
}

TEST(Coding, VarintRoundTripAndLength) {
  std::vector<uint64_t> values;
  for (int bit = 0; bit < 64; ++bit) {
    const uint64_t p = uint64_t{1} << bit;
    values.push_back(p - 1);
    values.push_back(p);
    values.push_back(p + 1);
  }
  values.push_back(std::numeric_limits<uint64_t>::max());
  std::string s;
  for (uint64_t v : values) PutVarint64(&s, v);
  Slice in(s);
  for (uint64_t v : values) {
    const size_t before = in.size();
    uint64_t got = 0;
    ASSERT_TRUE(GetVarint64(&in, &got));
    EXPECT_EQ(got, v);
    EXPECT_EQ(before - in.size(), static_cast<size_t>(VarintLength(v)));
  }
  EXPECT_TRUE(in.empty());

  std::string s32;
  for (uint64_t v : values) {
    if (v <= std::numeric_limits<uint32_t>::max()) PutVarint32(&s32, static_cast<uint32_t>(v));
  }
  Slice in32(s32);
  for (uint64_t v : values) {
    if (v > std::numeric_limits<uint32_t>::max()) continue;
    uint32_t got = 0;
    ASSERT_TRUE(GetVarint32(&in32, &got));
    EXPECT_EQ(got, v);
  }
  EXPECT_TRUE(in32.empty());
}

TEST(Coding, VarintRejectsTruncatedInput) {
  std::string s;
  PutVarint32(&s, 1u << 30);  // 5 bytes
  for (size_t cut = 0; cut < s.size(); ++cut) {
    uint32_t v = 0;
    EXPECT_EQ(GetVarint32Ptr(s.data(), s.data() + cut, &v), nullptr) << "cut=" << cut;
  }
  std::string s64;
  PutVarint64(&s64, ~uint64_t{0});
  for (size_t cut = 0; cut < s64.size(); ++cut) {
    uint64_t v = 0;
    EXPECT_EQ(GetVarint64Ptr(s64.data(), s64.data() + cut, &v), nullptr) << "cut=" << cut;
  }
}

TEST(Coding, VarintRejectsOverlongAndOverflow) {
  uint32_t v32 = 0;
  // 2^32 encoded as a varint: five bytes whose last carries bit 32.
  const std::string over32("\x80\x80\x80\x80\x10", 5);
  EXPECT_EQ(GetVarint32Ptr(over32.data(), over32.data() + over32.size(), &v32), nullptr);
  // Six bytes with continuation bits: too long for 32 bits.
  const std::string long32("\x80\x80\x80\x80\x80\x00", 6);
  EXPECT_EQ(GetVarint32Ptr(long32.data(), long32.data() + long32.size(), &v32), nullptr);
  // 2^32 is fine as a varint64.
  uint64_t v64 = 0;
  ASSERT_NE(GetVarint64Ptr(over32.data(), over32.data() + over32.size(), &v64), nullptr);
  EXPECT_EQ(v64, uint64_t{1} << 32);
  // Tenth byte may only be 0 or 1.
  const std::string over64 = std::string(9, '\xff') + std::string("\x02", 1);
  EXPECT_EQ(GetVarint64Ptr(over64.data(), over64.data() + over64.size(), &v64), nullptr);
  const std::string long64 = std::string(10, '\x80') + std::string("\x00", 1);
  EXPECT_EQ(GetVarint64Ptr(long64.data(), long64.data() + long64.size(), &v64), nullptr);
}

TEST(Coding, FixedGettersRejectShortInput) {
  uint32_t v32 = 0;
  uint64_t v64 = 0;
  Slice three("abc");
  EXPECT_FALSE(GetFixed32(&three, &v32));
  EXPECT_EQ(three.size(), 3u);
  Slice seven("abcdefg");
  EXPECT_FALSE(GetFixed64(&seven, &v64));
  EXPECT_EQ(seven.size(), 7u);
}

TEST(Coding, LengthPrefixedSlices) {
  std::string s;
  PutLengthPrefixedSlice(&s, Slice(""));
  PutLengthPrefixedSlice(&s, Slice("foo"));
  const std::string binary("\x00\xff\x80", 3);
  PutLengthPrefixedSlice(&s, Slice(binary));
  const std::string long_value(300, 'x');
  PutLengthPrefixedSlice(&s, Slice(long_value));
  Slice in(s);
  Slice out;
  ASSERT_TRUE(GetLengthPrefixedSlice(&in, &out));
  EXPECT_EQ(out.ToString(), "");
  ASSERT_TRUE(GetLengthPrefixedSlice(&in, &out));
  EXPECT_EQ(out.ToString(), "foo");
  ASSERT_TRUE(GetLengthPrefixedSlice(&in, &out));
  EXPECT_EQ(out.ToString(), binary);
  ASSERT_TRUE(GetLengthPrefixedSlice(&in, &out));
  EXPECT_EQ(out.ToString(), long_value);
  EXPECT_TRUE(in.empty());
  EXPECT_FALSE(GetLengthPrefixedSlice(&in, &out));
}

TEST(Coding, LengthPrefixedRejectsLengthBeyondInputAndLeavesItUnchanged) {
  std::string s;
  PutVarint32(&s, 10);
  s += "short";
  Slice in(s);
  Slice out;
  EXPECT_FALSE(GetLengthPrefixedSlice(&in, &out));
  EXPECT_EQ(in.size(), s.size());
}

}  // namespace
}  // namespace filterlab::engine
