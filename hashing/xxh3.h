// Key hashes with 64 bits of output.
//
// XXH3_64 is the final XXH3 from the xxHash library (libxxhash): the modern,
// fast 64-bit hash, used where no persisted format dictates otherwise.
//
// XXH64 is xxHash's classic 64-bit hash (libxxhash). Parquet's split-block
// Bloom filters hash a value's bytes with it at seed 0, so bit-exact filters
// need it.
//
// XXPH3_64 is the XXH3 *preview* (xxHash v0.7.2) with RocksDB's change for the
// empty input. RocksDB's FastLocalBloom (format_version 5) hashes keys with it,
// so bit-exact filters need it; it differs from final XXH3 for every length
// (RocksDB's util/xxph3.h, the XXH3 preview it froze). Implemented in xxph3.cc.
#pragma once

#include <cstddef>
#include <cstdint>

namespace filterlab {

uint64_t XXH3_64(const char* data, size_t n);
uint64_t XXH3_64(const char* data, size_t n, uint64_t seed);

uint64_t XXH64(const char* data, size_t n, uint64_t seed);

uint64_t XXPH3_64(const char* data, size_t n);
uint64_t XXPH3_64(const char* data, size_t n, uint64_t seed);

}  // namespace filterlab
