// Per-block compression of table data blocks: none, LZ4 or ZSTD, the type
// stored in the block's trailer (format.h) so each block says how to read it.
//
// Stored forms:
//   none  the block contents as they are
//   lz4   varint32 uncompressed size ‖ LZ4 block (LZ4_compress_default)
//   zstd  one ZSTD frame (level kZstdLevel) whose header holds the size
// The trailer's checksum covers the stored (compressed) bytes and the type,
// so corruption is caught before any decompressor sees the bytes; the
// decompressors are still handed only bounded sizes (kMaxUncompressedBlock)
// and must produce exactly the size announced, so a corrupt block that
// passes an XXH3 checksum by chance is a Corruption, never an overrun.
//
// A block is stored compressed only when that saves at least 1/8 of it
// (RocksDB's rule too): decompressing costs time on every read, which a
// small saving does not repay. Only data blocks are compressed; index and
// filter blocks are probed on every lookup and stay raw.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "common/slice.h"
#include "common/status.h"

namespace filterlab::engine {

enum class CompressionType : uint8_t { kNone = 0, kLZ4 = 1, kZSTD = 2 };

// ZSTD level of written blocks: 1 is ZSTD's fastest, RocksDB's default too.
inline constexpr int kZstdLevel = 1;
// Largest block a reader decompresses (and a writer compresses; larger
// blocks are stored raw): bounds what a corrupt size field can allocate.
inline constexpr size_t kMaxUncompressedBlock = size_t{64} << 20;

// "none" / "lz4" / "zstd".
const char* CompressionTypeName(CompressionType type);
// Parses a name above; InvalidArgument naming the allowed values otherwise.
Status ParseCompressionType(std::string_view name, CompressionType* out);

// The stored form of `raw` under `type` into *stored. Returns the type the
// block is stored with: `type`, or kNone when compressing would not save
// 1/8 (or the block is over kMaxUncompressedBlock); *stored is then empty
// and the caller writes `raw` itself.
CompressionType CompressBlock(CompressionType type, const Slice& raw, std::string* stored);

// Undoes CompressBlock for a stored block of trailer type `type` (not
// kNone). Corruption, prefixed with `where`, for an unknown type or bytes
// that do not decompress to exactly the announced size.
Status UncompressBlock(uint8_t type, const Slice& stored, const std::string& where, std::string* raw);

}  // namespace filterlab::engine
