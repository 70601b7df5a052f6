#include "engine/util/coding.h"

namespace filterlab::engine {

void PutFixed16(std::string* dst, uint16_t v) {
  char buf[sizeof(v)];
  std::memcpy(buf, &v, sizeof(v));
  dst->append(buf, sizeof(buf));
}

void PutFixed32(std::string* dst, uint32_t v) {
  char buf[sizeof(v)];
  EncodeFixed32(buf, v);
  dst->append(buf, sizeof(buf));
}

void PutFixed64(std::string* dst, uint64_t v) {
  char buf[sizeof(v)];
  EncodeFixed64(buf, v);
  dst->append(buf, sizeof(buf));
}

char* EncodeVarint64(char* dst, uint64_t v) {
  auto* p = reinterpret_cast<unsigned char*>(dst);
  while (v >= 0x80) {
    *p++ = static_cast<unsigned char>(v | 0x80);
    v >>= 7;
  }
  *p++ = static_cast<unsigned char>(v);
  return reinterpret_cast<char*>(p);
}

char* EncodeVarint32(char* dst, uint32_t v) { return EncodeVarint64(dst, v); }

void PutVarint32(std::string* dst, uint32_t v) {
  char buf[kMaxVarint32Bytes];
  char* end = EncodeVarint32(buf, v);
  dst->append(buf, end - buf);
}

void PutVarint64(std::string* dst, uint64_t v) {
  char buf[kMaxVarint64Bytes];
  char* end = EncodeVarint64(buf, v);
  dst->append(buf, end - buf);
}

int VarintLength(uint64_t v) {
  int len = 1;
  while (v >= 0x80) {
    v >>= 7;
    ++len;
  }
  return len;
}

namespace {

// Shared decoder: at most max_bytes bytes; the last allowed byte may only
// carry the bits that still fit in `bits` (so 2^32 as a varint32 is rejected
// instead of silently wrapping).
const char* ParseVarint(const char* p, const char* limit, int bits, uint64_t* v) {
  const int max_bytes = (bits + 6) / 7;
  uint64_t result = 0;
  for (int i = 0; i < max_bytes; ++i) {
    if (p >= limit) return nullptr;
    const uint64_t byte = static_cast<unsigned char>(*p++);
    const int shift = 7 * i;
    if (i == max_bytes - 1) {
      // Final byte: no continuation and no bits above the type's width.
      const int room = bits - shift;
      if (byte >= (uint64_t{1} << room)) return nullptr;
      result |= byte << shift;
      *v = result;
      return p;
    }
    result |= (byte & 0x7f) << shift;
    if ((byte & 0x80) == 0) {
      *v = result;
      return p;
    }
  }
  return nullptr;  // unreachable: the loop returns on its last byte
}

}  // namespace

const char* GetVarint32PtrLong(const char* p, const char* limit, uint32_t* v) {
  uint64_t wide = 0;
  const char* q = ParseVarint(p, limit, 32, &wide);
  if (q != nullptr) *v = static_cast<uint32_t>(wide);
  return q;
}

const char* GetVarint64Ptr(const char* p, const char* limit, uint64_t* v) { return ParseVarint(p, limit, 64, v); }

bool GetVarint32(Slice* input, uint32_t* v) {
  const char* p = input->data();
  const char* q = GetVarint32Ptr(p, p + input->size(), v);
  if (q == nullptr) return false;
  input->remove_prefix(static_cast<size_t>(q - p));
  return true;
}

bool GetVarint64(Slice* input, uint64_t* v) {
  const char* p = input->data();
  const char* q = GetVarint64Ptr(p, p + input->size(), v);
  if (q == nullptr) return false;
  input->remove_prefix(static_cast<size_t>(q - p));
  return true;
}

bool GetFixed32(Slice* input, uint32_t* v) {
  if (input->size() < sizeof(*v)) return false;
  *v = DecodeFixed32(input->data());
  input->remove_prefix(sizeof(*v));
  return true;
}

bool GetFixed64(Slice* input, uint64_t* v) {
  if (input->size() < sizeof(*v)) return false;
  *v = DecodeFixed64(input->data());
  input->remove_prefix(sizeof(*v));
  return true;
}

void PutLengthPrefixedSlice(std::string* dst, const Slice& value) {
  PutVarint32(dst, static_cast<uint32_t>(value.size()));
  dst->append(value.data(), value.size());
}

bool GetLengthPrefixedSlice(Slice* input, Slice* result) {
  uint32_t len = 0;
  Slice rest = *input;
  if (!GetVarint32(&rest, &len) || rest.size() < len) return false;
  *result = Slice(rest.data(), len);
  rest.remove_prefix(len);
  *input = rest;
  return true;
}

}  // namespace filterlab::engine
