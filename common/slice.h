// Slice: a non-owning view of bytes (pointer + length), as in LevelDB. Keys,
// values, blocks and serialized filters are passed around as Slices; the owner
// of the bytes must outlive every Slice that points into them.
#pragma once

#include <bit>
#include <cassert>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

namespace filterlab {

class Slice {
 public:
  Slice() = default;
  Slice(const char* data, size_t size) : data_(data), size_(size) {}
  Slice(const uint8_t* data, size_t size) : data_(reinterpret_cast<const char*>(data)), size_(size) {}
  Slice(const std::string& s) : data_(s.data()), size_(s.size()) {}  // NOLINT: implicit by design
  Slice(std::string_view s) : data_(s.data()), size_(s.size()) {}    // NOLINT
  Slice(const char* s) : data_(s), size_(std::strlen(s)) {}          // NOLINT

  const char* data() const { return data_; }
  const uint8_t* udata() const { return reinterpret_cast<const uint8_t*>(data_); }
  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }

  char operator[](size_t i) const {
    assert(i < size_);
    return data_[i];
  }
  void remove_prefix(size_t n) {
    assert(n <= size_);
    data_ += n;
    size_ -= n;
  }
  void remove_suffix(size_t n) {
    assert(n <= size_);
    size_ -= n;
  }
  std::string ToString() const { return std::string(data_, size_); }
  std::string_view view() const { return std::string_view(data_, size_); }

  // Three-way bytewise comparison (memcmp order, shorter first on a tie).
  // Keys of a sorted set usually differ within their first 8 bytes
  // (db_bench's keys, a big-endian number then padding, always do), so those
  // are compared first as one big-endian word: the comparison then costs a
  // few instructions inline instead of a call into libc's memcmp, whose
  // dispatch and length handling dominated the linear scans of a block
  // search (~12% of a cached point lookup's profile).
  int compare(const Slice& b) const {
    const size_t min_len = size_ < b.size_ ? size_ : b.size_;
    int r;
    if (min_len >= 8) {
      const uint64_t x = LoadBigEndianWord(data_), y = LoadBigEndianWord(b.data_);
      if (x != y) return x < y ? -1 : 1;
      r = std::memcmp(data_ + 8, b.data_ + 8, min_len - 8);
    } else {
      r = min_len == 0 ? 0 : std::memcmp(data_, b.data_, min_len);
    }
    if (r == 0) r = size_ < b.size_ ? -1 : (size_ > b.size_ ? 1 : 0);
    return r;
  }
  bool starts_with(const Slice& x) const {
    return size_ >= x.size_ && (x.size_ == 0 || std::memcmp(data_, x.data_, x.size_) == 0);
  }

 private:
  // The 8 bytes at p as a number whose order is their memcmp order.
  static uint64_t LoadBigEndianWord(const char* p) {
    uint64_t v;
    std::memcpy(&v, p, sizeof(v));
    if constexpr (std::endian::native == std::endian::little) v = __builtin_bswap64(v);
    return v;
  }
  const char* data_ = "";
  size_t size_ = 0;
};

inline bool operator==(const Slice& a, const Slice& b) {
  return a.size() == b.size() && (a.size() == 0 || std::memcmp(a.data(), b.data(), a.size()) == 0);
}
inline bool operator!=(const Slice& a, const Slice& b) { return !(a == b); }

}  // namespace filterlab
