#include "hashing/legacy_hash.h"

#include <cstring>

namespace filterlab {

uint32_t LegacyHash32(const char* data, size_t n, uint32_t seed) {
  constexpr uint32_t m = 0xc6a4a793;
  constexpr int r = 24;
  // Only the low 32 bits of n * m take part (the length is multiplied in u64
  // and truncated, as the original does).
  uint32_t h = seed ^ static_cast<uint32_t>(uint64_t{n} * m);
  const char* p = data;
  const char* limit = data + n;
  while (limit - p >= 4) {
    uint32_t w;
    std::memcpy(&w, p, 4);  // little-endian hosts only (checked in CMake)
    p += 4;
    h += w;
    h *= m;
    h ^= (h >> 16);
  }
  // Tail bytes are sign-extended before shifting: the original promoted a
  // plain (signed) char. This is part of the persisted format.
  auto sx = [](char c) { return static_cast<uint32_t>(static_cast<int32_t>(static_cast<signed char>(c))); };
  switch (limit - p) {
    case 3: h += sx(p[2]) << 16; [[fallthrough]];
    case 2: h += sx(p[1]) << 8; [[fallthrough]];
    case 1:
      h += sx(p[0]);
      h *= m;
      h ^= (h >> r);
      break;
    default: break;
  }
  return h;
}

}  // namespace filterlab
