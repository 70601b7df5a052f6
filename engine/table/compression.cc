#include "engine/table/compression.h"

#include <lz4.h>
#include <zstd.h>

#include "engine/util/coding.h"

namespace filterlab::engine {
namespace {

bool WorthIt(size_t raw, size_t stored) { return stored < raw - raw / 8; }

Status Bad(const std::string& where, const std::string& what) { return Status::Corruption(where + ": " + what); }

}  // namespace

const char* CompressionTypeName(CompressionType type) {
  switch (type) {
    case CompressionType::kNone: return "none";
    case CompressionType::kLZ4: return "lz4";
    case CompressionType::kZSTD: return "zstd";
  }
  return "unknown";
}

Status ParseCompressionType(std::string_view name, CompressionType* out) {
  for (CompressionType t : {CompressionType::kNone, CompressionType::kLZ4, CompressionType::kZSTD}) {
    if (name == CompressionTypeName(t)) {
      *out = t;
      return Status::OK();
    }
  }
  return Status::InvalidArgument("compression '" + std::string(name) + "' is unknown; allowed: none, lz4, zstd");
}

CompressionType CompressBlock(CompressionType type, const Slice& raw, std::string* stored) {
  stored->clear();
  if (type == CompressionType::kNone || raw.size() > kMaxUncompressedBlock) return CompressionType::kNone;
  if (type == CompressionType::kLZ4) {
    PutVarint32(stored, static_cast<uint32_t>(raw.size()));
    const size_t header = stored->size();
    const int bound = LZ4_compressBound(static_cast<int>(raw.size()));
    stored->resize(header + static_cast<size_t>(bound));
    const int n = LZ4_compress_default(raw.data(), stored->data() + header, static_cast<int>(raw.size()), bound);
    if (n <= 0) {
      stored->clear();
      return CompressionType::kNone;
    }
    stored->resize(header + static_cast<size_t>(n));
  } else {
    stored->resize(ZSTD_compressBound(raw.size()));
    const size_t n = ZSTD_compress(stored->data(), stored->size(), raw.data(), raw.size(), kZstdLevel);
    if (ZSTD_isError(n)) {
      stored->clear();
      return CompressionType::kNone;
    }
    stored->resize(n);
  }
  if (!WorthIt(raw.size(), stored->size())) {
    stored->clear();
    return CompressionType::kNone;
  }
  return type;
}

Status UncompressBlock(uint8_t type, const Slice& stored, const std::string& where, std::string* raw) {
  if (type == static_cast<uint8_t>(CompressionType::kLZ4)) {
    Slice in = stored;
    uint32_t size = 0;
    if (!GetVarint32(&in, &size)) return Bad(where, "lz4 block without its uncompressed size");
    if (size > kMaxUncompressedBlock) {
      return Bad(where, "lz4 block announces " + std::to_string(size) + " bytes, over the " +
                            std::to_string(kMaxUncompressedBlock) + "-byte limit");
    }
    raw->resize(size);
    const int n = LZ4_decompress_safe(in.data(), raw->data(), static_cast<int>(in.size()), static_cast<int>(size));
    if (n < 0 || static_cast<uint32_t>(n) != size) {
      return Bad(where, "lz4 block does not decompress to its announced " + std::to_string(size) + " bytes");
    }
    return Status::OK();
  }
  if (type == static_cast<uint8_t>(CompressionType::kZSTD)) {
    const unsigned long long size = ZSTD_getFrameContentSize(stored.data(), stored.size());
    if (size == ZSTD_CONTENTSIZE_ERROR || size == ZSTD_CONTENTSIZE_UNKNOWN) {
      return Bad(where, "zstd block has no valid frame header with its size");
    }
    if (size > kMaxUncompressedBlock) {
      return Bad(where, "zstd block announces " + std::to_string(size) + " bytes, over the " +
                            std::to_string(kMaxUncompressedBlock) + "-byte limit");
    }
    raw->resize(static_cast<size_t>(size));
    const size_t n = ZSTD_decompress(raw->data(), raw->size(), stored.data(), stored.size());
    if (ZSTD_isError(n) || n != size) {
      return Bad(where, std::string("zstd block does not decompress to its announced ") + std::to_string(size) +
                            " bytes" + (ZSTD_isError(n) ? std::string(" (") + ZSTD_getErrorName(n) + ")" : ""));
    }
    return Status::OK();
  }
  return Bad(where, "compression type " + std::to_string(type) + " is unknown (allowed: 0 = none, 1 = lz4, 2 = zstd)");
}

}  // namespace filterlab::engine
