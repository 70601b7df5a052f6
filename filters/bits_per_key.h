// Bits per key as an exact quantity. Specs take fractional bits/key (e.g.
// 10.3); like RocksDB we hold it as an integer number of millibits, so that
// sizing a filter for n keys is integer arithmetic: n * 10.3 computed in
// floating point can land just above an integer (10300.000000000002) and
// ceil() would then add a spurious bit.
#pragma once

#include <cmath>
#include <cstdint>

namespace filterlab {

// Nearest whole number of millibits (bpk already validated finite and > 0).
inline uint64_t MillibitsPerKey(double bits_per_key) {
  return static_cast<uint64_t>(std::llround(bits_per_key * 1000.0));
}

// ceil(keys * millibits / 1000), saturating at UINT64_MAX instead of wrapping.
inline uint64_t BitsForKeys(uint64_t keys, uint64_t millibits_per_key) {
  const unsigned __int128 bits = (static_cast<unsigned __int128>(keys) * millibits_per_key + 999) / 1000;
  return bits > UINT64_MAX ? UINT64_MAX : static_cast<uint64_t>(bits);
}

}  // namespace filterlab
