// The key generator of the end-to-end filter vectors (full_filter_e2e.json,
// ribbon_filter.json): splitmix64 seeded per case; key i has 8 + (i mod 25)
// bytes, ceil(len/8) generator outputs little-endian, truncated.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace filterlab {

std::vector<std::string> GenerateE2eKeys(uint64_t seed, size_t count);

// v as `digits` lower-case hex digits, zero-padded.
std::string HexDigits(uint64_t v, int digits);

}  // namespace filterlab
