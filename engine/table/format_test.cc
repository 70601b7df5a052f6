#include "engine/table/format.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "engine/util/coding.h"
#include "engine/util/crc32c.h"

namespace filterlab::engine {
namespace {

bool Contains(const Status& s, const std::string& what) { return s.message().find(what) != std::string::npos; }

TEST(BlockHandle, RoundTripsAndRejectsTruncation) {
  const uint64_t values[] = {0, 1, 127, 128, 300, uint64_t{1} << 35, std::numeric_limits<uint64_t>::max()};
  for (uint64_t off : values) {
    for (uint64_t size : values) {
      BlockHandle h{off, size};
      std::string enc;
      h.EncodeTo(&enc);
      EXPECT_LE(enc.size(), BlockHandle::kMaxEncodedLength);
      Slice in(enc);
      BlockHandle d;
      ASSERT_TRUE(d.DecodeFrom(&in));
      EXPECT_TRUE(in.empty());
      EXPECT_EQ(d.offset, off);
      EXPECT_EQ(d.size, size);
      for (size_t cut = 0; cut < enc.size(); ++cut) {
        Slice part(enc.data(), cut);
        EXPECT_FALSE(BlockHandle().DecodeFrom(&part)) << "decoded a handle from " << cut << " of " << enc.size();
      }
    }
  }
}

TEST(ChecksumType, ParsesNamesAndRejectsOthers) {
  ChecksumType t;
  ASSERT_TRUE(ParseChecksumType("crc32c", &t).ok());
  EXPECT_EQ(t, ChecksumType::kCRC32C);
  ASSERT_TRUE(ParseChecksumType("xxh3", &t).ok());
  EXPECT_EQ(t, ChecksumType::kXXH3);
  Status s = ParseChecksumType("md5", &t);
  EXPECT_TRUE(s.IsInvalidArgument());
  EXPECT_TRUE(Contains(s, "crc32c, xxh3")) << s.ToString();
}

TEST(BlockChecksum, CoversContentsAndCompressionByte) {
  const std::string data = "some block contents";
  for (ChecksumType t : {ChecksumType::kCRC32C, ChecksumType::kXXH3}) {
    const uint32_t base = ComputeBlockChecksum(t, data.data(), data.size(), 0);
    EXPECT_NE(base, ComputeBlockChecksum(t, data.data(), data.size(), 1)) << ChecksumTypeName(t);
    std::string other = data;
    other[3] ^= 1;
    EXPECT_NE(base, ComputeBlockChecksum(t, other.data(), other.size(), 0)) << ChecksumTypeName(t);
    const std::string trailer = MakeBlockTrailer(t, data);
    ASSERT_EQ(trailer.size(), kBlockTrailerSize);
    EXPECT_EQ(trailer[0], 0);
    EXPECT_EQ(DecodeFixed32(trailer.data() + 1), base);
  }
}

Footer SampleFooter(ChecksumType t) {
  Footer f;
  f.checksum_type = t;
  f.metaindex_handle = {123456789, 4321};
  f.index_handle = {std::numeric_limits<uint64_t>::max(), std::numeric_limits<uint64_t>::max()};
  return f;
}

TEST(Footer, RoundTripsBothChecksumTypes) {
  for (ChecksumType t : {ChecksumType::kCRC32C, ChecksumType::kXXH3}) {
    std::string enc;
    SampleFooter(t).EncodeTo(&enc);
    ASSERT_EQ(enc.size(), kFooterSize);
    Footer d;
    ASSERT_TRUE(d.DecodeFrom(enc, "f.sst").ok());
    EXPECT_EQ(d.checksum_type, t);
    EXPECT_EQ(d.metaindex_handle.offset, 123456789u);
    EXPECT_EQ(d.metaindex_handle.size, 4321u);
    EXPECT_EQ(d.index_handle.offset, std::numeric_limits<uint64_t>::max());
  }
}

TEST(Footer, EveryByteFlipIsCorruptionNamingTheFile) {
  std::string enc;
  SampleFooter(ChecksumType::kXXH3).EncodeTo(&enc);
  for (size_t i = 0; i < enc.size(); ++i) {
    for (int mask : {0x01, 0x80, 0xff}) {
      std::string bad = enc;
      bad[i] = static_cast<char>(bad[i] ^ mask);
      Footer d;
      Status s = d.DecodeFrom(bad, "f.sst");
      ASSERT_TRUE(s.IsCorruption()) << "byte " << i << " mask " << mask;
      EXPECT_TRUE(Contains(s, "footer of table f.sst")) << s.ToString();
      if (i >= kFooterSize - 8) {
        EXPECT_TRUE(Contains(s, "wrong magic")) << s.ToString();
      }
    }
  }
  Footer d;
  EXPECT_TRUE(d.DecodeFrom(Slice(enc.data(), enc.size() - 1), "f.sst").IsCorruption());
}

// A footer whose checksum is right but whose contents the reader must still
// reject: an unknown checksum type, another format version, non-zero padding.
std::string Reseal(std::string f) {
  EncodeFixed32(f.data() + 45, crc32c::Mask(crc32c::Value(f.data(), 45)));
  return f;
}

TEST(Footer, RejectsWellChecksummedButInvalidFields) {
  Footer small;
  small.metaindex_handle = {10, 20};
  small.index_handle = {30, 40};
  std::string enc;
  small.EncodeTo(&enc);
  Footer d;
  ASSERT_TRUE(d.DecodeFrom(Reseal(enc), "f.sst").ok());

  std::string bad_type = enc;
  bad_type[0] = 3;
  Status s = d.DecodeFrom(Reseal(bad_type), "f.sst");
  EXPECT_TRUE(s.IsCorruption() && Contains(s, "checksum type 3 is unknown")) << s.ToString();

  std::string bad_version = enc;
  EncodeFixed32(bad_version.data() + 41, 2);
  s = d.DecodeFrom(Reseal(bad_version), "f.sst");
  EXPECT_TRUE(s.IsCorruption() && Contains(s, "format version 2")) << s.ToString();

  std::string bad_padding = enc;
  bad_padding[40] = 1;
  s = d.DecodeFrom(Reseal(bad_padding), "f.sst");
  EXPECT_TRUE(s.IsCorruption() && Contains(s, "padding")) << s.ToString();

  // Varints that run through the whole handle area.
  std::string bad_varint = enc;
  for (size_t i = 1; i < 41; ++i) bad_varint[i] = static_cast<char>(0x80);
  s = d.DecodeFrom(Reseal(bad_varint), "f.sst");
  EXPECT_TRUE(s.IsCorruption() && Contains(s, "malformed")) << s.ToString();
}

std::string FileWithBlock(const std::string& contents, ChecksumType t, std::string* trailer_out = nullptr) {
  std::string file = "xx" + contents;  // the block starts at offset 2
  const std::string trailer = MakeBlockTrailer(t, contents);
  if (trailer_out) *trailer_out = trailer;
  return file + trailer + "tail";
}

TEST(ReadBlock, ReadsVerifiedContents) {
  for (ChecksumType t : {ChecksumType::kCRC32C, ChecksumType::kXXH3}) {
    const std::string contents = "hello, block";
    const std::string bytes = FileWithBlock(contents, t);
    auto file = NewStringFile(bytes, "t.sst");
    std::string out;
    ASSERT_TRUE(ReadBlock(*file, t, bytes.size(), BlockKind::kData, {2, contents.size()}, &out).ok());
    EXPECT_EQ(out, contents);
  }
}

TEST(ReadBlock, EveryByteFlipIsCorruptionNamingFileAndBlock) {
  for (ChecksumType t : {ChecksumType::kCRC32C, ChecksumType::kXXH3}) {
    const std::string contents = "0123456789abcdefghij";
    const std::string bytes = FileWithBlock(contents, t);
    for (size_t i = 2; i < 2 + contents.size() + kBlockTrailerSize; ++i) {
      std::string bad = bytes;
      bad[i] ^= 0x10;
      auto file = NewStringFile(bad, "t.sst");
      std::string out;
      Status s = ReadBlock(*file, t, bad.size(), BlockKind::kIndex, {2, contents.size()}, &out);
      ASSERT_TRUE(s.IsCorruption()) << "byte " << i;
      EXPECT_TRUE(Contains(s, "index block at offset 2 (size 20) of table t.sst")) << s.ToString();
    }
  }
}

// A block whose checksum matches but whose stored bytes are not what its
// compression type says: an unknown type, or bytes no decompressor accepts.
TEST(ReadBlock, RejectsBadCompressionEvenWithAMatchingChecksum) {
  const std::string contents = "abc";
  for (const auto& [type, message] : std::vector<std::pair<uint8_t, std::string>>{
           {3, "compression type 3 is unknown"}, {1, "lz4 block"}, {2, "zstd block"}}) {
    std::string bytes = "xx" + contents;
    bytes.push_back(static_cast<char>(type));
    PutFixed32(&bytes, ComputeBlockChecksum(ChecksumType::kCRC32C, contents.data(), contents.size(), type));
    auto file = NewStringFile(bytes, "t.sst");
    std::string out;
    Status s = ReadBlock(*file, ChecksumType::kCRC32C, bytes.size(), BlockKind::kData, {2, 3}, &out);
    EXPECT_TRUE(s.IsCorruption() && Contains(s, message) && Contains(s, "data block at offset 2")) << s.ToString();
  }
}

TEST(ReadBlock, RejectsImpossibleOffsetsAndLengths) {
  const std::string bytes = FileWithBlock("abcdef", ChecksumType::kCRC32C);
  auto file = NewStringFile(bytes, "t.sst");
  const uint64_t end = bytes.size() - 4;  // the "tail" plays the footer
  const uint64_t max = std::numeric_limits<uint64_t>::max();
  const BlockHandle bad[] = {{end, 0}, {end - 4, 0}, {2, 7}, {max, 1}, {2, max}, {max, max}, {max - 3, 8}};
  for (const BlockHandle& h : bad) {
    std::string out;
    Status s = ReadBlock(*file, ChecksumType::kCRC32C, end, BlockKind::kData, h, &out);
    ASSERT_TRUE(s.IsCorruption()) << h.offset << "+" << h.size << ": " << s.ToString();
    EXPECT_TRUE(Contains(s, "do not fit below byte " + std::to_string(end))) << s.ToString();
    EXPECT_TRUE(Contains(s, "data block at offset " + std::to_string(h.offset))) << s.ToString();
  }
  std::string out;
  EXPECT_TRUE(ReadBlock(*file, ChecksumType::kCRC32C, 3, BlockKind::kData, {0, 0}, &out).IsCorruption());
}

}  // namespace
}  // namespace filterlab::engine
