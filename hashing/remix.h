// Turning one hash into the bits a filter needs.
//
// A filter that is fed a 32-bit hash but wants 64 bits (or several
// independent-looking values) must expand it; the expansion cannot add
// entropy, so two keys with equal 32-bit hashes stay indistinguishable and a
// filter of n keys gains an extra FP rate of about n/2^32 (the fingerprint
// term of the FP models). These helpers are the one place such mixing lives.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

namespace filterlab {

inline constexpr uint32_t kGoldenRatio32 = 0x9e3779b9;
inline constexpr uint64_t kGoldenRatio64 = 0x9e3779b97f4a7c13;

inline uint32_t Lower32(uint64_t h) { return static_cast<uint32_t>(h); }
inline uint32_t Upper32(uint64_t h) { return static_cast<uint32_t>(h >> 32); }

inline uint32_t RotateRight32(uint32_t x, int r) { return (x >> r) | (x << ((32 - r) & 31)); }
inline uint64_t RotateRight64(uint64_t x, int r) { return (x >> r) | (x << ((64 - r) & 63)); }
inline uint64_t RotateLeft64(uint64_t x, int r) { return (x << r) | (x >> ((64 - r) & 63)); }

// The splitmix64 / Stafford "mix13" finalizer: a bijection on 64 bits with full
// avalanche. Used where a filter needs a fresh, independent-looking 64-bit
// value from a hash (e.g. expanding a 32-bit hash, or the i-th probe of the
// standard Bloom filter).
inline uint64_t Mix64(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

// splitmix64 generator: the reference vectors' and the simulator's source of
// synthetic hashes (testdata/README.md).
class SplitMix64 {
 public:
  explicit SplitMix64(uint64_t seed) : state_(seed) {}
  uint64_t Next() {
    state_ += 0x9e3779b97f4a7c15ULL;
    return Mix64(state_);
  }
  // Fills n bytes with successive outputs written little-endian, the last
  // one truncated: the key bytes of the hash and end-to-end vectors.
  void FillBytes(char* out, size_t n) {
    for (size_t i = 0; i < n; i += 8) {
      const uint64_t v = Next();
      std::memcpy(out + i, &v, n - i < 8 ? n - i : 8);  // little-endian host (checked in CMake)
    }
  }

 private:
  uint64_t state_;
};

}  // namespace filterlab
