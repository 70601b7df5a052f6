// Thrift compact protocol reader (thrift_compact.h).
#include "tools/thrift_compact.h"

#include <cstring>

namespace filterlab::thrift {
namespace {

constexpr int kMaxDepth = 64;  // nested structs and containers

int64_t ZigZag(uint64_t v) { return static_cast<int64_t>(v >> 1) ^ -static_cast<int64_t>(v & 1); }

}  // namespace

Status CompactReader::Error(const std::string& why) const {
  return Status::Corruption(what_ + ": Thrift compact data at byte " + std::to_string(pos_) + ": " + why);
}

Status CompactReader::ReadByte(uint8_t* b) {
  if (pos_ >= data_.size()) return Error("ends early");
  *b = static_cast<uint8_t>(data_[pos_++]);
  return Status::OK();
}

Status CompactReader::ReadVarint(uint64_t* v) {
  *v = 0;
  for (int shift = 0; shift < 64; shift += 7) {
    uint8_t b = 0;
    Status s = ReadByte(&b);
    if (!s.ok()) return s;
    *v |= uint64_t{b & 0x7fu} << shift;
    if ((b & 0x80) == 0) return Status::OK();
  }
  return Error("varint longer than 10 bytes");
}

Status CompactReader::BeginStruct() {
  if (depth_ >= kMaxDepth) return Error("structs nested deeper than " + std::to_string(kMaxDepth));
  saved_fields_[depth_++] = last_field_;
  last_field_ = 0;
  return Status::OK();
}

void CompactReader::EndStruct() {
  if (depth_ > 0) last_field_ = saved_fields_[--depth_];
}

Status CompactReader::NextField(int16_t* id, Type* type) {
  uint8_t header = 0;
  Status s = ReadByte(&header);
  if (!s.ok()) return s;
  *type = static_cast<Type>(header & 0x0f);
  if (*type == Type::kStop) {
    *id = 0;
    return header == 0 ? Status::OK() : Error("stop byte with a field-id delta");
  }
  if (header & 0x0f) {
    if ((header & 0x0f) > static_cast<uint8_t>(Type::kStruct)) {
      return Error("unknown field type " + std::to_string(header & 0x0f));
    }
  }
  const int delta = header >> 4;
  if (delta != 0) {
    *id = static_cast<int16_t>(last_field_ + delta);
  } else {
    uint64_t v = 0;
    s = ReadVarint(&v);
    if (!s.ok()) return s;
    *id = static_cast<int16_t>(ZigZag(v));
  }
  last_field_ = *id;
  return Status::OK();
}

Status CompactReader::ReadBool(Type type, bool* v) {
  if (type != Type::kTrue && type != Type::kFalse) return Error("expected a bool field");
  *v = type == Type::kTrue;
  return Status::OK();
}

Status CompactReader::ReadI32(int32_t* v) {
  uint64_t raw = 0;
  Status s = ReadVarint(&raw);
  if (!s.ok()) return s;
  const int64_t x = ZigZag(raw);
  if (x < INT32_MIN || x > INT32_MAX) return Error("i32 value out of range");
  *v = static_cast<int32_t>(x);
  return Status::OK();
}

Status CompactReader::ReadI64(int64_t* v) {
  uint64_t raw = 0;
  Status s = ReadVarint(&raw);
  if (s.ok()) *v = ZigZag(raw);
  return s;
}

Status CompactReader::ReadBinary(std::string* v) {
  uint64_t len = 0;
  Status s = ReadVarint(&len);
  if (!s.ok()) return s;
  if (len > data_.size() - pos_) {
    return Error("binary of " + std::to_string(len) + " bytes, " + std::to_string(data_.size() - pos_) + " left");
  }
  v->assign(data_.data() + pos_, len);
  pos_ += len;
  return Status::OK();
}

Status CompactReader::ReadDouble(double* v) {
  if (data_.size() - pos_ < 8) return Error("double ends early");
  std::memcpy(v, data_.data() + pos_, 8);  // little-endian host (checked in CMake)
  pos_ += 8;
  return Status::OK();
}

Status CompactReader::ReadListHeader(Type* element, uint32_t* size) {
  uint8_t header = 0;
  Status s = ReadByte(&header);
  if (!s.ok()) return s;
  *element = static_cast<Type>(header & 0x0f);
  uint64_t n = header >> 4;
  if (n == 15) {
    s = ReadVarint(&n);
    if (!s.ok()) return s;
  }
  // Each element takes at least one byte: a larger count is a lie.
  if (n > data_.size() - pos_) {
    return Error("list of " + std::to_string(n) + " elements, " + std::to_string(data_.size() - pos_) + " bytes left");
  }
  *size = static_cast<uint32_t>(n);
  return Status::OK();
}

Status CompactReader::Skip(Type type) {
  if (depth_ >= kMaxDepth) return Error("values nested deeper than " + std::to_string(kMaxDepth));
  uint64_t v = 0;
  uint8_t b = 0;
  std::string bin;
  switch (type) {
    case Type::kTrue:
    case Type::kFalse: return Status::OK();  // in the header (or one byte in a list; see below)
    case Type::kByte: return ReadByte(&b);
    case Type::kI16:
    case Type::kI32:
    case Type::kI64: return ReadVarint(&v);
    case Type::kDouble:
      if (data_.size() - pos_ < 8) return Error("double ends early");
      pos_ += 8;
      return Status::OK();
    case Type::kBinary: return ReadBinary(&bin);
    case Type::kList:
    case Type::kSet: {
      Type element;
      uint32_t n = 0;
      Status s = ReadListHeader(&element, &n);
      ++depth_;
      for (uint32_t i = 0; s.ok() && i < n; ++i) {
        // Bools in containers take one byte each.
        s = (element == Type::kTrue || element == Type::kFalse) ? ReadByte(&b) : Skip(element);
      }
      --depth_;
      return s;
    }
    case Type::kMap: {
      Status s = ReadVarint(&v);
      if (!s.ok() || v == 0) return s;
      if (v > data_.size() - pos_) return Error("map of " + std::to_string(v) + " entries exceeds the bytes left");
      s = ReadByte(&b);
      const Type key = static_cast<Type>(b >> 4), value = static_cast<Type>(b & 0x0f);
      ++depth_;
      for (uint64_t i = 0; s.ok() && i < v; ++i) {
        s = (key == Type::kTrue || key == Type::kFalse) ? ReadByte(&b) : Skip(key);
        if (s.ok()) s = (value == Type::kTrue || value == Type::kFalse) ? ReadByte(&b) : Skip(value);
      }
      --depth_;
      return s;
    }
    case Type::kStruct: {
      Status s = BeginStruct();
      while (s.ok()) {
        int16_t id = 0;
        Type t;
        s = NextField(&id, &t);
        if (!s.ok() || t == Type::kStop) break;
        s = Skip(t);
      }
      EndStruct();
      return s;
    }
    case Type::kStop: break;
  }
  return Error("cannot skip a value of unknown type " + std::to_string(static_cast<int>(type)));
}

}  // namespace filterlab::thrift
