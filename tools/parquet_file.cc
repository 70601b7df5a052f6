// Parquet footers and Bloom filters (parquet_file.h).
#include "tools/parquet_file.h"

#include <cstring>
#include <fstream>
#include <iterator>

#include "tools/thrift_compact.h"

namespace filterlab::parquet {
namespace {

using thrift::CompactReader;
using thrift::Type;

constexpr char kMagic[4] = {'P', 'A', 'R', '1'};
// Parquet writers cap a filter at 128 MiB (BloomFilter.md's maximum bitset).
constexpr int32_t kMaxBloomBytes = 128 << 20;

#define FILTERLAB_RETURN_IF_ERROR(expr) \
  do {                                  \
    Status _s = (expr);                 \
    if (!_s.ok()) return _s;            \
  } while (0)

// Reads fields of the struct the reader is in, calling on(id, type) for each;
// `on` returns NotFound for fields it does not read, which are skipped.
template <typename OnField>
Status ReadStruct(CompactReader& r, OnField on) {
  FILTERLAB_RETURN_IF_ERROR(r.BeginStruct());
  while (true) {
    int16_t id = 0;
    Type type;
    Status s = r.NextField(&id, &type);
    if (!s.ok() || type == Type::kStop) {
      r.EndStruct();
      return s;
    }
    s = on(id, type);
    if (s.IsNotFound()) s = r.Skip(type);
    if (!s.ok()) {
      r.EndStruct();
      return s;
    }
  }
}

Status ExpectType(CompactReader& r, Type got, Type want, const char* field) {
  if (got == want) return Status::OK();
  return Status::Corruption(std::string("parquet field ") + field + " has Thrift type " +
                            std::to_string(static_cast<int>(got)) + ", expected " +
                            std::to_string(static_cast<int>(want)) + " (at byte " + std::to_string(r.position()) + ")");
}

// A list of structs, each read by on_element.
template <typename OnElement>
Status ReadStructList(CompactReader& r, Type type, const char* field, OnElement on_element) {
  FILTERLAB_RETURN_IF_ERROR(ExpectType(r, type, Type::kList, field));
  Type element;
  uint32_t n = 0;
  FILTERLAB_RETURN_IF_ERROR(r.ReadListHeader(&element, &n));
  if (n > 0) FILTERLAB_RETURN_IF_ERROR(ExpectType(r, element, Type::kStruct, field));
  for (uint32_t i = 0; i < n; ++i) FILTERLAB_RETURN_IF_ERROR(on_element(i));
  return Status::OK();
}

Status ReadColumnMetaData(CompactReader& r, ColumnBloom* c) {
  return ReadStruct(r, [&](int16_t id, Type type) -> Status {
    switch (id) {
      case 1:
        FILTERLAB_RETURN_IF_ERROR(ExpectType(r, type, Type::kI32, "ColumnMetaData.type"));
        return r.ReadI32(&c->type);
      case 3: {
        FILTERLAB_RETURN_IF_ERROR(ExpectType(r, type, Type::kList, "ColumnMetaData.path_in_schema"));
        Type element;
        uint32_t n = 0;
        FILTERLAB_RETURN_IF_ERROR(r.ReadListHeader(&element, &n));
        if (n > 0) FILTERLAB_RETURN_IF_ERROR(ExpectType(r, element, Type::kBinary, "path_in_schema"));
        for (uint32_t i = 0; i < n; ++i) {
          std::string part;
          FILTERLAB_RETURN_IF_ERROR(r.ReadBinary(&part));
          c->path += (i > 0 ? "." : "") + part;
        }
        return Status::OK();
      }
      case 5:
        FILTERLAB_RETURN_IF_ERROR(ExpectType(r, type, Type::kI64, "ColumnMetaData.num_values"));
        return r.ReadI64(&c->num_values);
      case 14:
        FILTERLAB_RETURN_IF_ERROR(ExpectType(r, type, Type::kI64, "ColumnMetaData.bloom_filter_offset"));
        c->has_filter = true;
        return r.ReadI64(&c->offset);
      case 15: {
        FILTERLAB_RETURN_IF_ERROR(ExpectType(r, type, Type::kI32, "ColumnMetaData.bloom_filter_length"));
        int32_t len = 0;
        FILTERLAB_RETURN_IF_ERROR(r.ReadI32(&len));
        c->length = len;
        return Status::OK();
      }
      default: return Status::NotFound("");
    }
  });
}

// BloomFilterHeader at `offset`: numBytes, then the bitset right after the header.
Status ReadBloom(const std::string& name, const std::string& file, ColumnBloom* c) {
  const std::string where = name + ": row group " + std::to_string(c->row_group) + " column '" + c->path + "'";
  if (c->offset < 4 || static_cast<uint64_t>(c->offset) >= file.size()) {
    return Status::Corruption(where + ": bloom_filter_offset " + std::to_string(c->offset) + " is outside the " +
                              std::to_string(file.size()) + "-byte file");
  }
  CompactReader r(Slice(file.data() + c->offset, file.size() - static_cast<size_t>(c->offset)),
                  where + " BloomFilterHeader");
  int32_t num_bytes = -1;
  bool block = false, xxhash = false, uncompressed = false;
  // The three unions hold one empty struct each; which field is set names the choice.
  auto union_choice = [&](bool* chosen, const char* what) {
    return ReadStruct(r, [&](int16_t id, Type type) -> Status {
      if (id == 1 && type == Type::kStruct) {
        *chosen = true;
        return r.Skip(type);
      }
      return Status::Corruption(where + ": BloomFilterHeader." + what + " is option " + std::to_string(id) +
                                ", which the Parquet format does not define");
    });
  };
  FILTERLAB_RETURN_IF_ERROR(ReadStruct(r, [&](int16_t id, Type type) -> Status {
    switch (id) {
      case 1:
        FILTERLAB_RETURN_IF_ERROR(ExpectType(r, type, Type::kI32, "BloomFilterHeader.numBytes"));
        return r.ReadI32(&num_bytes);
      case 2:
        FILTERLAB_RETURN_IF_ERROR(ExpectType(r, type, Type::kStruct, "BloomFilterHeader.algorithm"));
        return union_choice(&block, "algorithm");
      case 3:
        FILTERLAB_RETURN_IF_ERROR(ExpectType(r, type, Type::kStruct, "BloomFilterHeader.hash"));
        return union_choice(&xxhash, "hash");
      case 4:
        FILTERLAB_RETURN_IF_ERROR(ExpectType(r, type, Type::kStruct, "BloomFilterHeader.compression"));
        return union_choice(&uncompressed, "compression");
      default: return Status::NotFound("");
    }
  }));
  if (!block || !xxhash || !uncompressed) {
    return Status::Corruption(where +
                              ": BloomFilterHeader lacks algorithm BLOCK, hash XXHASH or compression "
                              "UNCOMPRESSED (the only ones the Parquet format defines)");
  }
  if (num_bytes <= 0 || num_bytes % 32 != 0 || num_bytes > kMaxBloomBytes) {
    return Status::Corruption(where + ": numBytes " + std::to_string(num_bytes) +
                              " is not a positive multiple of 32 up to 128 MiB");
  }
  const uint64_t start = static_cast<uint64_t>(c->offset) + r.position();
  if (start + static_cast<uint64_t>(num_bytes) > file.size()) {
    return Status::Corruption(where + ": the " + std::to_string(num_bytes) + "-byte bitset at " +
                              std::to_string(start) + " runs past the end of the file");
  }
  if (c->length >= 0 && static_cast<uint64_t>(c->length) != r.position() + static_cast<uint64_t>(num_bytes)) {
    return Status::Corruption(where + ": bloom_filter_length " + std::to_string(c->length) + " but header (" +
                              std::to_string(r.position()) + " bytes) + bitset (" + std::to_string(num_bytes) +
                              ") differ");
  }
  c->bitset.assign(file.data() + start, static_cast<size_t>(num_bytes));
  return Status::OK();
}

}  // namespace

const char* PhysicalTypeName(int32_t type) {
  switch (type) {
    case kBoolean: return "BOOLEAN";
    case kInt32: return "INT32";
    case kInt64: return "INT64";
    case kInt96: return "INT96";
    case kFloat: return "FLOAT";
    case kDouble: return "DOUBLE";
    case kByteArray: return "BYTE_ARRAY";
    case kFixedLenByteArray: return "FIXED_LEN_BYTE_ARRAY";
    default: return "unknown";
  }
}

Status ParseParquetBlooms(const std::string& name, const std::string& file, ParquetBlooms* out) {
  *out = ParquetBlooms{};
  if (file.size() < 12 || std::memcmp(file.data(), kMagic, 4) != 0 ||
      std::memcmp(file.data() + file.size() - 4, kMagic, 4) != 0) {
    return Status::Corruption(name + ": not a Parquet file (it must start and end with 'PAR1'; " +
                              std::to_string(file.size()) + " bytes)");
  }
  uint32_t footer_len = 0;
  std::memcpy(&footer_len, file.data() + file.size() - 8, 4);
  if (footer_len > file.size() - 12) {
    return Status::Corruption(name + ": footer length " + std::to_string(footer_len) + " exceeds the file");
  }
  CompactReader r(Slice(file.data() + file.size() - 8 - footer_len, footer_len), name + " footer");
  FILTERLAB_RETURN_IF_ERROR(ReadStruct(r, [&](int16_t id, Type type) -> Status {
    switch (id) {
      case 3:
        FILTERLAB_RETURN_IF_ERROR(ExpectType(r, type, Type::kI64, "FileMetaData.num_rows"));
        return r.ReadI64(&out->num_rows);
      case 4:
        return ReadStructList(r, type, "FileMetaData.row_groups", [&](uint32_t rg) {
          out->num_row_groups = static_cast<int>(rg) + 1;
          return ReadStruct(r, [&](int16_t rid, Type rtype) -> Status {
            if (rid != 1) return Status::NotFound("");
            return ReadStructList(r, rtype, "RowGroup.columns", [&](uint32_t col) {
              ColumnBloom c;
              c.row_group = static_cast<int>(rg);
              c.column = static_cast<int>(col);
              Status s = ReadStruct(r, [&](int16_t cid, Type ctype) -> Status {
                if (cid != 3) return Status::NotFound("");
                FILTERLAB_RETURN_IF_ERROR(ExpectType(r, ctype, Type::kStruct, "ColumnChunk.meta_data"));
                return ReadColumnMetaData(r, &c);
              });
              if (s.ok()) out->columns.push_back(std::move(c));
              return s;
            });
          });
        });
      case 6:
        FILTERLAB_RETURN_IF_ERROR(ExpectType(r, type, Type::kBinary, "FileMetaData.created_by"));
        return r.ReadBinary(&out->created_by);
      default: return Status::NotFound("");
    }
  }));
  for (ColumnBloom& c : out->columns) {
    if (c.has_filter) FILTERLAB_RETURN_IF_ERROR(ReadBloom(name, file, &c));
  }
  return Status::OK();
}

Status ReadParquetBlooms(const std::string& path, ParquetBlooms* out) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Status::IOError(path + ": cannot open");
  const std::string file((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  return ParseParquetBlooms(path, file, out);
}

}  // namespace filterlab::parquet
