// The table file's framing (the idea of RocksDB's table/format.h Footer; our own layout):
//
//   [data block 0][trailer] ... [data block N−1][trailer]
//   [filter block][trailer]       (only when the table has a filter)
//   [index block][trailer]
//   [properties block][trailer]
//   [metaindex block][trailer]
//   [footer, 57 bytes]
//
// Block trailer (5 bytes): compression type (1 byte: 0 = none, 1 = lz4,
// 2 = zstd; compression.h) ‖ checksum u32 LE over the block's stored bytes
// (compressed, when it is) and the type byte.
// The checksum type is chosen per table and stated in the footer:
//   CRC32C: masked (crc32c.h) CRC32C of contents ‖ type byte;
//   XXH3:   low 32 bits of XXH3_64(contents, seed = type byte).
// CRC32C catches every error burst of up to 32 bits, so every single-byte
// flip inside a block or its trailer is detected; XXH3 misses any given
// corruption with probability about 2^-32.
//
// Footer (57 bytes):
//   [checksum type u8][metaindex handle][index handle][zero padding to byte 41]
//   [format version u32 = 1][footer checksum u32][magic u64]
// A handle is varint64 offset ‖ varint64 size (size without the trailer);
// two handles take at most 40 bytes. The footer checksum is the masked
// CRC32C of bytes [0, 45) — always CRC32C, so a flipped checksum-type byte
// is caught before it is trusted — which leaves no byte of a table that a
// reader uses unchecked: LevelDB's unchecked footer lets a flipped handle
// byte point at garbage that then fails only by luck.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "common/slice.h"
#include "common/status.h"
#include "engine/util/file.h"

namespace filterlab::engine {

enum class ChecksumType : uint8_t { kCRC32C = 1, kXXH3 = 2 };
// "crc32c" / "xxh3".
const char* ChecksumTypeName(ChecksumType type);
// Parses "crc32c" or "xxh3"; InvalidArgument naming the allowed values otherwise.
Status ParseChecksumType(std::string_view name, ChecksumType* out);

inline constexpr uint8_t kNoCompression = 0;
inline constexpr size_t kBlockTrailerSize = 5;
inline constexpr size_t kFooterSize = 57;
inline constexpr uint32_t kTableFormatVersion = 1;
// The bytes "FLABSST1" read as a little-endian u64.
inline constexpr uint64_t kTableMagicNumber = 0x3154535342414c46ull;

// Names in the metaindex block (name → handle of that meta block).
inline constexpr char kFilterBlockName[] = "filterlab.filter";
inline constexpr char kPropertiesBlockName[] = "filterlab.properties";
inline constexpr char kRangeFilterBlockName[] = "filterlab.range_filter";

struct BlockHandle {
  static constexpr size_t kMaxEncodedLength = 20;  // two varint64s
  uint64_t offset = 0;
  uint64_t size = 0;  // contents only, without the 5-byte trailer

  void EncodeTo(std::string* dst) const;
  // Consumes a handle from *input; false on truncated or over-long varints.
  bool DecodeFrom(Slice* input);
};

// What a block is, for error messages and statistics.
enum class BlockKind { kData, kFilter, kIndex, kProperties, kMetaindex, kRangeFilter };
const char* BlockKindName(BlockKind kind);
// "data block at offset 4096 (size 4021) of table FILE" — the prefix of every
// error about that block.
std::string DescribeBlock(BlockKind kind, const BlockHandle& handle, const std::string& file_name);

uint32_t ComputeBlockChecksum(ChecksumType type, const char* data, size_t n, uint8_t compression_type);
// The 5-byte trailer for a block stored as `stored` with `compression`
// (compression.h's type; 0 = the raw contents).
std::string MakeBlockTrailer(ChecksumType type, const Slice& stored, uint8_t compression = kNoCompression);

struct Footer {
  ChecksumType checksum_type = ChecksumType::kCRC32C;
  BlockHandle metaindex_handle;
  BlockHandle index_handle;

  // Appends exactly kFooterSize bytes.
  void EncodeTo(std::string* dst) const;
  // Parses the last kFooterSize bytes of a table. Corruption, naming the
  // file and what is wrong, on a wrong magic, footer checksum mismatch,
  // unknown format version or checksum type, bad handle or non-zero padding.
  Status DecodeFrom(const Slice& footer_bytes, const std::string& file_name);
};

// Reads the block `handle` names from `file`, whose blocks end at
// `blocks_end` (the file size minus the footer), verifies its trailer and
// puts the contents, decompressed when the trailer says so, into *contents.
// Corruption (naming the file, the block kind and offset) when the handle
// points outside [0, blocks_end), the checksum does not match, the
// compression type is unknown or the block does not decompress.
Status ReadBlock(const RandomAccessFile& file, ChecksumType checksum_type, uint64_t blocks_end, BlockKind kind,
                 const BlockHandle& handle, std::string* contents);

}  // namespace filterlab::engine
