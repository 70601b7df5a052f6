#include "hashing/xxh3.h"

#include <xxhash.h>

namespace filterlab {

uint64_t XXH3_64(const char* data, size_t n) { return XXH3_64bits(data, n); }

uint64_t XXH3_64(const char* data, size_t n, uint64_t seed) { return XXH3_64bits_withSeed(data, n, seed); }

uint64_t XXH64(const char* data, size_t n, uint64_t seed) { return ::XXH64(data, n, seed); }

}  // namespace filterlab
