// fastrange: map a uniformly distributed hash onto [0, range) with one
// multiply-high instead of a division (Lemire, "A fast alternative to the
// modulo reduction"). The result is uniform up to a relative bias of
// range/2^bits, and depends on the *top* bits of the hash, which is why the
// filters that use it take their in-line probe bits from elsewhere.
#pragma once

#include <cstdint>

namespace filterlab {

// (range * hash) >> 32. Symmetric in its arguments (plain multiplication).
inline uint32_t FastRange32(uint32_t hash, uint32_t range) {
  return static_cast<uint32_t>((uint64_t{range} * uint64_t{hash}) >> 32);
}

// Upper 64 bits of the 128-bit product range * hash.
inline uint64_t FastRange64(uint64_t hash, uint64_t range) {
  return static_cast<uint64_t>((static_cast<unsigned __int128>(range) * hash) >> 64);
}

}  // namespace filterlab
