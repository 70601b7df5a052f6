// A minimal reader of Thrift's compact protocol, enough for Parquet's footer
// and Bloom filter headers (tools/parquet_file.h). Written from the
// protocol's specification (Apache Thrift, doc/specs/thrift-compact-protocol.md):
//
//   field header  one byte: field-id delta (1..15) in the high nibble and the
//                 type in the low; delta 0: a zigzag varint field id follows;
//                 a zero byte ends a struct
//   types         1/2 bool true/false (in the header), 3 i8, 4 i16, 5 i32,
//                 6 i64 (zigzag varints), 7 double (8 bytes little-endian),
//                 8 binary (varint length + bytes), 9 list, 10 set
//                 (header: size in the high nibble, 15 = a varint size
//                 follows; element type in the low), 11 map (varint size,
//                 then one byte key type << 4 | value type if size > 0),
//                 12 struct
//
// Why our own: the only maintained C++ implementation is Apache Thrift's
// library with code generated from parquet.thrift, a second toolchain for
// reading five fields; Arrow's Parquet reader is not in Debian stable. The
// reader never trusts the bytes: every length is checked against what is
// left, nesting is capped, and each failure is a Corruption naming the
// offset.
#pragma once

#include <cstdint>
#include <string>

#include "common/slice.h"
#include "common/status.h"

namespace filterlab::thrift {

enum class Type : uint8_t {
  kStop = 0,
  kTrue = 1,
  kFalse = 2,
  kByte = 3,
  kI16 = 4,
  kI32 = 5,
  kI64 = 6,
  kDouble = 7,
  kBinary = 8,
  kList = 9,
  kSet = 10,
  kMap = 11,
  kStruct = 12,
};

class CompactReader {
 public:
  // `what` prefixes every error ("parquet footer of x.parquet").
  CompactReader(Slice bytes, std::string what) : data_(bytes), what_(std::move(what)) {}

  // Inside a struct: the next field's id and type; kStop at the struct's end.
  Status NextField(int16_t* id, Type* type);
  // Call around a nested struct's fields (field ids restart at 0 inside).
  Status BeginStruct();
  void EndStruct();

  Status ReadBool(Type type, bool* v);  // the value is in the field header's type
  Status ReadI32(int32_t* v);
  Status ReadI64(int64_t* v);
  Status ReadBinary(std::string* v);
  Status ReadDouble(double* v);
  // A list or set header: element type and count.
  Status ReadListHeader(Type* element, uint32_t* size);
  // Skips a value of `type` (and everything nested in it).
  Status Skip(Type type);

  // Bytes consumed so far.
  size_t position() const { return pos_; }

 private:
  Status Error(const std::string& why) const;
  Status ReadVarint(uint64_t* v);
  Status ReadByte(uint8_t* b);

  Slice data_;
  std::string what_;
  size_t pos_ = 0;
  int16_t last_field_ = 0;
  int16_t saved_fields_[64] = {};
  int depth_ = 0;
};

}  // namespace filterlab::thrift
