#include "engine/table/format.h"

#include <cstdio>

#include "engine/table/compression.h"
#include "engine/util/coding.h"
#include "engine/util/crc32c.h"
#include "hashing/xxh3.h"

namespace filterlab::engine {
namespace {

constexpr size_t kFooterHandlesEnd = 41;        // checksum type byte + 40 bytes of handles/padding
constexpr size_t kFooterChecksummedBytes = 45;  // ... + format version

std::string Hex(uint64_t v, int digits) {
  char buf[24];
  std::snprintf(buf, sizeof(buf), "0x%0*llx", digits, static_cast<unsigned long long>(v));
  return buf;
}

}  // namespace

const char* ChecksumTypeName(ChecksumType type) {
  switch (type) {
    case ChecksumType::kCRC32C: return "crc32c";
    case ChecksumType::kXXH3: return "xxh3";
  }
  return "unknown";
}

Status ParseChecksumType(std::string_view name, ChecksumType* out) {
  if (name == "crc32c") {
    *out = ChecksumType::kCRC32C;
  } else if (name == "xxh3") {
    *out = ChecksumType::kXXH3;
  } else {
    return Status::InvalidArgument("checksum type '" + std::string(name) + "' is unknown (allowed: crc32c, xxh3)");
  }
  return Status::OK();
}

void BlockHandle::EncodeTo(std::string* dst) const {
  PutVarint64(dst, offset);
  PutVarint64(dst, size);
}

bool BlockHandle::DecodeFrom(Slice* input) { return GetVarint64(input, &offset) && GetVarint64(input, &size); }

const char* BlockKindName(BlockKind kind) {
  switch (kind) {
    case BlockKind::kData: return "data";
    case BlockKind::kFilter: return "filter";
    case BlockKind::kIndex: return "index";
    case BlockKind::kProperties: return "properties";
    case BlockKind::kMetaindex: return "metaindex";
    case BlockKind::kRangeFilter: return "range filter";
  }
  return "unknown";
}

std::string DescribeBlock(BlockKind kind, const BlockHandle& handle, const std::string& file_name) {
  return std::string(BlockKindName(kind)) + " block at offset " + std::to_string(handle.offset) + " (size " +
         std::to_string(handle.size) + ") of table " + file_name;
}

uint32_t ComputeBlockChecksum(ChecksumType type, const char* data, size_t n, uint8_t compression_type) {
  switch (type) {
    case ChecksumType::kCRC32C: {
      const char type_byte = static_cast<char>(compression_type);
      return crc32c::Mask(crc32c::Extend(crc32c::Value(data, n), &type_byte, 1));
    }
    case ChecksumType::kXXH3: return static_cast<uint32_t>(XXH3_64(data, n, compression_type));
  }
  return 0;
}

std::string MakeBlockTrailer(ChecksumType type, const Slice& stored, uint8_t compression) {
  std::string trailer(1, static_cast<char>(compression));
  PutFixed32(&trailer, ComputeBlockChecksum(type, stored.data(), stored.size(), compression));
  return trailer;
}

void Footer::EncodeTo(std::string* dst) const {
  const size_t start = dst->size();
  dst->push_back(static_cast<char>(checksum_type));
  metaindex_handle.EncodeTo(dst);
  index_handle.EncodeTo(dst);
  dst->resize(start + kFooterHandlesEnd, '\0');
  PutFixed32(dst, kTableFormatVersion);
  PutFixed32(dst, crc32c::Mask(crc32c::Value(dst->data() + start, kFooterChecksummedBytes)));
  PutFixed64(dst, kTableMagicNumber);
}

Status Footer::DecodeFrom(const Slice& footer_bytes, const std::string& file_name) {
  const std::string where = "footer of table " + file_name;
  if (footer_bytes.size() != kFooterSize) {
    return Status::Corruption(where + ": " + std::to_string(footer_bytes.size()) + " bytes, expected " +
                              std::to_string(kFooterSize));
  }
  const char* p = footer_bytes.data();
  const uint64_t magic = DecodeFixed64(p + kFooterSize - 8);
  if (magic != kTableMagicNumber) {
    return Status::Corruption(where + ": wrong magic number " + Hex(magic, 16) + " (expected " +
                              Hex(kTableMagicNumber, 16) + "): not a filterlab table, or truncated");
  }
  const uint32_t stored = DecodeFixed32(p + kFooterChecksummedBytes);
  const uint32_t actual = crc32c::Mask(crc32c::Value(p, kFooterChecksummedBytes));
  if (stored != actual) {
    return Status::Corruption(where + ": footer checksum mismatch (stored " + Hex(stored, 8) + ", computed " +
                              Hex(actual, 8) + ")");
  }
  const uint32_t version = DecodeFixed32(p + kFooterHandlesEnd);
  if (version != kTableFormatVersion) {
    return Status::Corruption(where + ": format version " + std::to_string(version) +
                              " is not supported (allowed: " + std::to_string(kTableFormatVersion) + ")");
  }
  const auto type = static_cast<uint8_t>(p[0]);
  if (type != static_cast<uint8_t>(ChecksumType::kCRC32C) && type != static_cast<uint8_t>(ChecksumType::kXXH3)) {
    return Status::Corruption(where + ": checksum type " + std::to_string(type) +
                              " is unknown (allowed: 1 = crc32c, 2 = xxh3)");
  }
  checksum_type = static_cast<ChecksumType>(type);
  Slice handles(p + 1, kFooterHandlesEnd - 1);
  if (!metaindex_handle.DecodeFrom(&handles) || !index_handle.DecodeFrom(&handles)) {
    return Status::Corruption(where + ": metaindex/index block handles are malformed varints");
  }
  for (size_t i = 0; i < handles.size(); ++i) {
    if (handles[i] != 0) return Status::Corruption(where + ": padding after the block handles is not zero");
  }
  return Status::OK();
}

Status ReadBlock(const RandomAccessFile& file, ChecksumType checksum_type, uint64_t blocks_end, BlockKind kind,
                 const BlockHandle& handle, std::string* contents) {
  // Overflow-safe: offset + size + trailer <= blocks_end.
  if (blocks_end < kBlockTrailerSize || handle.offset > blocks_end - kBlockTrailerSize ||
      handle.size > blocks_end - kBlockTrailerSize - handle.offset) {
    return Status::Corruption(DescribeBlock(kind, handle, file.name()) + ": block and its " +
                              std::to_string(kBlockTrailerSize) + "-byte trailer do not fit below byte " +
                              std::to_string(blocks_end) + " where the footer starts");
  }
  std::string scratch;
  Slice raw;
  const size_t n = static_cast<size_t>(handle.size);
  Status s = file.Read(handle.offset, n + kBlockTrailerSize, &scratch, &raw);
  if (!s.ok()) return Status::IOError(DescribeBlock(kind, handle, file.name()) + ": " + s.message());
  const auto compression = static_cast<uint8_t>(raw[n]);
  const uint32_t stored = DecodeFixed32(raw.data() + n + 1);
  const uint32_t actual = ComputeBlockChecksum(checksum_type, raw.data(), n, compression);
  if (stored != actual) {
    return Status::Corruption(DescribeBlock(kind, handle, file.name()) + ": " + ChecksumTypeName(checksum_type) +
                              " checksum mismatch (stored " + Hex(stored, 8) + ", computed " + Hex(actual, 8) + ")");
  }
  if (compression != kNoCompression) {
    return UncompressBlock(compression, Slice(raw.data(), n), DescribeBlock(kind, handle, file.name()), contents);
  }
  contents->assign(raw.data(), n);
  return Status::OK();
}

}  // namespace filterlab::engine
