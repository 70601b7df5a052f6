// The end-to-end vectors' key generator (e2e_keys.h).
#include "filters/vectors/e2e_keys.h"

#include <cstdio>

#include "hashing/remix.h"

namespace filterlab {

std::vector<std::string> GenerateE2eKeys(uint64_t seed, size_t count) {
  SplitMix64 gen(seed);
  std::vector<std::string> keys(count);
  for (size_t i = 0; i < count; ++i) {
    const size_t len = 8 + i % 25;
    std::string& k = keys[i];
    while (k.size() < len) {
      const uint64_t v = gen.Next();
      for (int b = 0; b < 8 && k.size() < len; ++b) k += static_cast<char>(v >> (8 * b));
    }
  }
  return keys;
}

std::string HexDigits(uint64_t v, int digits) {
  char buf[17];
  std::snprintf(buf, sizeof buf, "%0*llx", digits, static_cast<unsigned long long>(v));
  return buf;
}

}  // namespace filterlab
