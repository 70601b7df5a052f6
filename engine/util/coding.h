// Byte encodings of the engine's persisted formats: little-endian fixed-width
// integers, base-128 varints (7 data bits per byte, high bit = "more bytes
// follow", least significant group first) and length-prefixed byte strings.
//
// Decoders never read past the bytes they are given: they report failure
// (false / nullptr) on truncated or over-long input, and the caller turns that
// into a Corruption status naming the block it was parsing.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>

#include "common/slice.h"

namespace filterlab::engine {

// Longest encodings: ceil(32/7) and ceil(64/7) bytes.
inline constexpr int kMaxVarint32Bytes = 5;
inline constexpr int kMaxVarint64Bytes = 10;

// Fixed-width little-endian (the host is little-endian; CMake checks it, so a
// memcpy is the encoding).
inline void EncodeFixed32(char* dst, uint32_t v) { std::memcpy(dst, &v, sizeof(v)); }
inline void EncodeFixed64(char* dst, uint64_t v) { std::memcpy(dst, &v, sizeof(v)); }
inline uint32_t DecodeFixed32(const char* p) {
  uint32_t v;
  std::memcpy(&v, p, sizeof(v));
  return v;
}
inline uint64_t DecodeFixed64(const char* p) {
  uint64_t v;
  std::memcpy(&v, p, sizeof(v));
  return v;
}
inline uint16_t DecodeFixed16(const char* p) {
  uint16_t v;
  std::memcpy(&v, p, sizeof(v));
  return v;
}

void PutFixed16(std::string* dst, uint16_t v);
void PutFixed32(std::string* dst, uint32_t v);
void PutFixed64(std::string* dst, uint64_t v);

// Writes the varint into dst (which must have room for the maximum length)
// and returns the byte after it.
char* EncodeVarint32(char* dst, uint32_t v);
char* EncodeVarint64(char* dst, uint64_t v);
void PutVarint32(std::string* dst, uint32_t v);
void PutVarint64(std::string* dst, uint64_t v);
// Number of bytes the varint encoding of v takes (1..10).
int VarintLength(uint64_t v);

// Parse a varint from [p, limit). Return the byte after it, or nullptr when
// the input ends inside the varint or the encoding is longer than the type
// allows (more than 5 / 10 bytes, or bits beyond 32 / 64).
// GetVarint32Ptr is inline for its one-byte case (values below 128: the
// lengths in a block entry's header of small keys and values, three per
// entry a lookup scans), which takes neither a call nor a loop.
const char* GetVarint32PtrLong(const char* p, const char* limit, uint32_t* v);
inline const char* GetVarint32Ptr(const char* p, const char* limit, uint32_t* v) {
  if (p < limit) {
    const uint32_t byte = static_cast<unsigned char>(*p);
    if (byte < 128) {
      *v = byte;
      return p + 1;
    }
  }
  return GetVarint32PtrLong(p, limit, v);
}
const char* GetVarint64Ptr(const char* p, const char* limit, uint64_t* v);

// Slice-consuming forms: on success remove the parsed bytes from *input.
bool GetVarint32(Slice* input, uint32_t* v);
bool GetVarint64(Slice* input, uint64_t* v);
bool GetFixed32(Slice* input, uint32_t* v);
bool GetFixed64(Slice* input, uint64_t* v);

// varint32 length followed by the bytes.
void PutLengthPrefixedSlice(std::string* dst, const Slice& value);
// On success *result points into the input's bytes.
bool GetLengthPrefixedSlice(Slice* input, Slice* result);

}  // namespace filterlab::engine
