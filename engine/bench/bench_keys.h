// Keys and values as db_bench makes them. Key number k becomes the 8-byte
// big-endian k followed by '0' bytes up to key_size (GenerateKeyFromInt with
// no prefixes), so byte order equals numeric order and fillseq writes in key
// order. readmissing asks for key_size + 1 bytes (db_bench increments its key
// size for that benchmark): the key of k plus one more '0', absent from the
// database yet sorting right after key k, so only filters (and the data-block
// hash index) can rule it out cheaply. Values are slices of a fixed buffer of
// seeded random bytes (the tables are uncompressed, so their content does
// not matter, only their size).
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "common/slice.h"
#include "hashing/fastrange.h"
#include "hashing/remix.h"

namespace filterlab::lsmbench {

// Writes key number k as `key_size` bytes at out[0..key_size). key_size >= 8.
inline void FormatKey(uint64_t k, size_t key_size, char* out) {
  for (int i = 0; i < 8; ++i) out[i] = static_cast<char>(k >> (56 - 8 * i));
  for (size_t i = 8; i < key_size; ++i) out[i] = '0';
}

// How key number k (0..num-1) becomes bytes, db_bench's GenerateKeyFromInt
// in full: with `prefixes` > 0 (--keys_per_prefix: num / keys_per_prefix
// prefixes) the key starts with k mod prefixes as min(prefix_size, 8)
// big-endian bytes, '0'-padded to prefix_size; then the key's 8-byte
// big-endian value; then '0' up to key_size. The value is k itself, or
// with a key source values[k] (ascending, so key order is still k's order).
struct KeyFormat {
  size_t key_size = 16;
  size_t prefix_size = 0;
  uint64_t prefixes = 0;
  const uint64_t* values = nullptr;

  // The 8-byte big-endian value v where key k's value goes, without a prefix.
  void FormatValue(uint64_t v, char* out) const { FormatKey(v, key_size, out); }
  void Format(uint64_t k, char* out) const {
    const uint64_t v = values != nullptr ? values[k] : k;
    if (prefixes == 0) {
      FormatKey(v, key_size, out);
      return;
    }
    const uint64_t p = k % prefixes;
    const size_t bytes = prefix_size < 8 ? prefix_size : 8;
    for (size_t i = 0; i < bytes; ++i) out[i] = static_cast<char>(p >> (8 * (bytes - 1 - i)));
    for (size_t i = bytes; i < prefix_size; ++i) out[i] = '0';
    FormatKey(v, key_size - prefix_size, out + prefix_size);
  }
  // The same format for keys one byte longer (readmissing's absent keys).
  KeyFormat Longer() const {
    KeyFormat f = *this;
    ++f.key_size;
    return f;
  }
};

inline std::string KeyString(uint64_t k, size_t key_size) {
  std::string s(key_size, '\0');
  FormatKey(k, key_size, s.data());
  return s;
}

// One reusable key buffer.
class KeyBuffer {
 public:
  explicit KeyBuffer(size_t key_size) : buf_(key_size, '\0') { format_.key_size = key_size; }
  explicit KeyBuffer(const KeyFormat& format) : format_(format), buf_(format.key_size, '\0') {}
  Slice Make(uint64_t k) {
    format_.Format(k, buf_.data());
    return Slice(buf_);
  }
  // The key whose value is v (no prefix): the bounds of value ranges.
  Slice MakeValue(uint64_t v) {
    format_.FormatValue(v, buf_.data());
    return Slice(buf_);
  }

 private:
  KeyFormat format_;
  std::string buf_;
};

// Uniform random key numbers from a seeded SplitMix64 stream.
class KeyRandom {
 public:
  explicit KeyRandom(uint64_t seed) : rng_(seed) {}
  uint64_t Next() { return rng_.Next(); }
  // Uniform in [0, n); n > 0.
  uint64_t Uniform(uint64_t n) { return FastRange64(rng_.Next(), n); }

 private:
  SplitMix64 rng_;
};

// Values cut from one buffer of random bytes. With compression_ratio r < 1
// the buffer is made of 100-byte pieces, each r x 100 random bytes repeated
// to fill the piece, so a general-purpose compressor shrinks values to about
// r of their size (db_bench's --compression_ratio, same piece size); r = 1
// gives incompressible values.
class ValueSource {
 public:
  ValueSource(uint64_t seed, size_t value_size, double compression_ratio = 1.0) : value_size_(value_size) {
    // Enough bytes that consecutive values start at different offsets.
    data_.resize(std::max<size_t>(value_size * 4, size_t{1} << 20));
    SplitMix64 rng(seed ^ 0x76616c7565ULL);
    rng.FillBytes(data_.data(), data_.size());
    if (compression_ratio < 1.0) {
      constexpr size_t kPiece = 100;
      const size_t fresh = std::max<size_t>(1, static_cast<size_t>(compression_ratio * kPiece));
      for (size_t piece = 0; piece < data_.size(); piece += kPiece) {
        const size_t end = std::min(data_.size(), piece + kPiece);
        for (size_t i = piece + fresh; i < end; ++i) data_[i] = data_[i - fresh];
      }
    }
  }
  Slice Next() {
    if (pos_ + value_size_ > data_.size()) pos_ = 0;
    const Slice s(data_.data() + pos_, value_size_);
    pos_ += value_size_ + 1;
    return s;
  }

 private:
  size_t value_size_;
  std::string data_;
  size_t pos_ = 0;
};

}  // namespace filterlab::lsmbench
