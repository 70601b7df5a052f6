// CacheAlignedArray: a fixed-size, zero-initialised array whose first element
// starts on a 64-byte boundary. Filters keep their bit arrays in one, so a
// block that the layout puts inside one cache line really is inside one
// cache line (an unaligned 64-byte block would straddle two and cost two
// misses). Works for plain words and for std::atomic words alike.
//
// Arrays of 2 MiB and more start on a 2 MiB boundary and ask the kernel for
// transparent huge pages (madvise; in THP "madvise" mode nothing else gets
// them): a filter of 1.25 GB spans 305k 4 KiB pages, so without them nearly
// every random probe of a cold filter also misses the TLB. (Measured: no
// change in the build of a 10^8-key filter, which is bound by its misses,
// not the TLB, on the project's 2-core VM.)
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <new>
#include <type_traits>
#include <utility>

#ifdef __linux__
#include <sys/mman.h>
#endif

namespace filterlab {

inline constexpr size_t kCacheLineBytes = 64;
inline constexpr size_t kHugePageBytes = size_t{2} << 20;

// True if p lies on an `alignment`-byte boundary (a power of two). Readers
// that view serialized bytes in place ask it before reading them as words.
inline bool IsAlignedTo(const void* p, size_t alignment) {
  return (reinterpret_cast<uintptr_t>(p) & (alignment - 1)) == 0;
}

template <typename T>
class CacheAlignedArray {
  static_assert(std::is_trivially_destructible_v<T>, "elements are freed without running destructors");

 public:
  CacheAlignedArray() = default;
  explicit CacheAlignedArray(size_t n) : size_(n) {
    if (n == 0) return;
    data_ = static_cast<T*>(::operator new(n * sizeof(T), Alignment(n)));
#ifdef __linux__
    if (Alignment(n) == std::align_val_t{kHugePageBytes}) {
      madvise(data_, n * sizeof(T) / kHugePageBytes * kHugePageBytes, MADV_HUGEPAGE);  // a hint: failure is harmless
    }
#endif
    // Value-initialisation zeroes plain integers and (since C++20) std::atomic.
    std::uninitialized_value_construct_n(data_, n);
  }
  ~CacheAlignedArray() { Free(); }

  CacheAlignedArray(CacheAlignedArray&& o) noexcept
      : data_(std::exchange(o.data_, nullptr)), size_(std::exchange(o.size_, 0)) {}
  CacheAlignedArray& operator=(CacheAlignedArray&& o) noexcept {
    if (this != &o) {
      Free();
      data_ = std::exchange(o.data_, nullptr);
      size_ = std::exchange(o.size_, 0);
    }
    return *this;
  }
  CacheAlignedArray(const CacheAlignedArray&) = delete;
  CacheAlignedArray& operator=(const CacheAlignedArray&) = delete;

  T* data() { return data_; }
  const T* data() const { return data_; }
  size_t size() const { return size_; }
  T& operator[](size_t i) { return data_[i]; }
  const T& operator[](size_t i) const { return data_[i]; }

 private:
  static std::align_val_t Alignment(size_t n) {
    return std::align_val_t{n * sizeof(T) >= kHugePageBytes ? kHugePageBytes : kCacheLineBytes};
  }
  void Free() {
    if (data_ != nullptr) ::operator delete(data_, Alignment(size_));
    data_ = nullptr;
  }

  T* data_ = nullptr;
  size_t size_ = 0;
};

}  // namespace filterlab
