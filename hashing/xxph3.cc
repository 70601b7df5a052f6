// XXPH3_64: the XXH3 *preview* hash (xxHash v0.7.2) as RocksDB uses it for
// filter keys (GetSliceHash64), written from RocksDB's
// util/xxph3.h. FastLocalBloom (format_version 5) persists bits chosen by this hash, so
// it must stay bit-exact: final XXH3 (libxxhash 0.8) differs for every length
// (another avalanche multiplier for len >= 17; for len > 240 also the lane a
// data word is added to and the last-stripe bookkeeping; other layouts for
// len <= 16), and RocksDB changed the empty input to depend on the seed.
//
// Structure by length (each path reads the input with unaligned
// little-endian loads; the host is little-endian, checked in CMake):
//   0        fold of (seed + secret word) with a prime
//   1..3     the bytes packed into one word, keyed, multiplied, avalanched
//   4..8     first and last 4 bytes as one 64-bit word, keyed, rrmxmx-like mix
//   9..16    first and last 8 bytes, keyed, folded (128-bit multiply)
//   17..128  up to 8 keyed 16-byte folds from both ends towards the middle
//   129..240 8 folds of the first 128 bytes, an avalanche, then the rest
//   > 240    8 accumulator lanes over 64-byte stripes, scrambled every 1 KiB
// The seed is added to / subtracted from the secret words a path reads; for
// long inputs it instead derives a whole 192-byte secret.
#include <cstring>

#include "hashing/xxh3.h"

namespace filterlab {
namespace {

constexpr uint32_t kPrime32_1 = 0x9E3779B1U;
constexpr uint32_t kPrime32_2 = 0x85EBCA77U;
constexpr uint32_t kPrime32_3 = 0xC2B2AE3DU;
constexpr uint64_t kPrime64_1 = 0x9E3779B185EBCA87ULL;
constexpr uint64_t kPrime64_2 = 0xC2B2AE3D27D4EB4FULL;
constexpr uint64_t kPrime64_3 = 0x165667B19E3779F9ULL;
constexpr uint64_t kPrime64_4 = 0x85EBCA77C2B2AE63ULL;
constexpr uint64_t kPrime64_5 = 0x27D4EB2F165667C5ULL;

// The standard 192-byte XXH3 secret (the same public constant in v0.7.2 and
// 0.8.x; only its use differs).
constexpr size_t kSecretSize = 192;
alignas(64) constexpr uint8_t kSecret[kSecretSize] = {
    0xb8, 0xfe, 0x6c, 0x39, 0x23, 0xa4, 0x4b, 0xbe, 0x7c, 0x01, 0x81, 0x2c, 0xf7, 0x21, 0xad, 0x1c, 0xde, 0xd4,
    0x6d, 0xe9, 0x83, 0x90, 0x97, 0xdb, 0x72, 0x40, 0xa4, 0xa4, 0xb7, 0xb3, 0x67, 0x1f, 0xcb, 0x79, 0xe6, 0x4e,
    0xcc, 0xc0, 0xe5, 0x78, 0x82, 0x5a, 0xd0, 0x7d, 0xcc, 0xff, 0x72, 0x21, 0xb8, 0x08, 0x46, 0x74, 0xf7, 0x43,
    0x24, 0x8e, 0xe0, 0x35, 0x90, 0xe6, 0x81, 0x3a, 0x26, 0x4c, 0x3c, 0x28, 0x52, 0xbb, 0x91, 0xc3, 0x00, 0xcb,
    0x88, 0xd0, 0x65, 0x8b, 0x1b, 0x53, 0x2e, 0xa3, 0x71, 0x64, 0x48, 0x97, 0xa2, 0x0d, 0xf9, 0x4e, 0x38, 0x19,
    0xef, 0x46, 0xa9, 0xde, 0xac, 0xd8, 0xa8, 0xfa, 0x76, 0x3f, 0xe3, 0x9c, 0x34, 0x3f, 0xf9, 0xdc, 0xbb, 0xc7,
    0xc7, 0x0b, 0x4f, 0x1d, 0x8a, 0x51, 0xe0, 0x4b, 0xcd, 0xb4, 0x59, 0x31, 0xc8, 0x9f, 0x7e, 0xc9, 0xd9, 0x78,
    0x73, 0x64, 0xea, 0xc5, 0xac, 0x83, 0x34, 0xd3, 0xeb, 0xc3, 0xc5, 0x81, 0xa0, 0xff, 0xfa, 0x13, 0x63, 0xeb,
    0x17, 0x0d, 0xdd, 0x51, 0xb7, 0xf0, 0xda, 0x49, 0xd3, 0x16, 0x55, 0x26, 0x29, 0xd4, 0x68, 0x9e, 0x2b, 0x16,
    0xbe, 0x58, 0x7d, 0x47, 0xa1, 0xfc, 0x8f, 0xf8, 0xb8, 0xd1, 0x7a, 0xd0, 0x31, 0xce, 0x45, 0xcb, 0x3a, 0x8f,
    0x95, 0x16, 0x04, 0x28, 0xaf, 0xd7, 0xfb, 0xca, 0xbb, 0x4b, 0x40, 0x7e,
};

// Long-input schedule: 8 lanes of 8 bytes per 64-byte stripe; the secret
// window slides 8 bytes per stripe, so a 192-byte secret gives 16 stripes
// (1 KiB) per block before the accumulators are scrambled.
constexpr size_t kLanes = 8;
constexpr size_t kStripeBytes = 64;
constexpr size_t kSecretStep = 8;
constexpr size_t kStripesPerBlock = (kSecretSize - kStripeBytes) / kSecretStep;  // 16
constexpr size_t kBlockBytes = kStripeBytes * kStripesPerBlock;                  // 1024
constexpr size_t kScrambleSecretOffset = kSecretSize - kStripeBytes;             // 128
constexpr size_t kLastStripeSecretOffset = kSecretSize - kStripeBytes - 7;       // 121
constexpr size_t kMergeSecretOffset = 11;
// Mid-size inputs: offsets of the secret for chunks 8.. and for the last 16
// bytes (136 is the smallest secret the design allows; 136 - 17 = 119).
constexpr size_t kMidChunkSecretOffset = 3;
constexpr size_t kMidLastSecretOffset = 119;

inline uint64_t Load64(const void* p) {
  uint64_t v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

inline uint32_t Load32(const void* p) {
  uint32_t v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

inline void Store64(void* p, uint64_t v) { std::memcpy(p, &v, sizeof v); }

// Low half XOR high half of the full 128-bit product.
inline uint64_t Fold64(uint64_t a, uint64_t b) {
  const unsigned __int128 product = static_cast<unsigned __int128>(a) * b;
  return static_cast<uint64_t>(product) ^ static_cast<uint64_t>(product >> 64);
}

inline uint64_t Avalanche(uint64_t h) {
  h ^= h >> 37;
  h *= kPrime64_3;
  return h ^ (h >> 32);
}

// 16 input bytes keyed by 16 secret bytes (the seed added to the first secret
// word and subtracted from the second), folded to 64 bits.
inline uint64_t Mix16(const uint8_t* in, const uint8_t* secret, uint64_t seed) {
  return Fold64(Load64(in) ^ (Load64(secret) + seed), Load64(in + 8) ^ (Load64(secret + 8) - seed));
}

inline uint64_t HashEmpty(uint64_t seed) {
  // RocksDB's change: 0.7.2 returned 0 for every seed.
  return Fold64(seed + Load64(kSecret), kPrime64_2);
}

inline uint64_t Hash1To3(const uint8_t* in, size_t len, uint64_t seed) {
  const uint32_t packed = uint32_t{in[0]} | (uint32_t{in[len >> 1]} << 8) | (uint32_t{in[len - 1]} << 16) |
                          (static_cast<uint32_t>(len) << 24);
  const uint64_t keyed = uint64_t{packed} ^ (uint64_t{Load32(kSecret)} + seed);
  return Avalanche(keyed * kPrime64_1);
}

inline uint64_t Hash4To8(const uint8_t* in, size_t len, uint64_t seed) {
  const uint64_t both_ends = uint64_t{Load32(in)} | (uint64_t{Load32(in + len - 4)} << 32);
  const uint64_t keyed = both_ends ^ (Load64(kSecret) + seed);
  const uint64_t mixed = len + (keyed ^ (keyed >> 51)) * kPrime32_1;
  return Avalanche((mixed ^ (mixed >> 47)) * kPrime64_2);
}

inline uint64_t Hash9To16(const uint8_t* in, size_t len, uint64_t seed) {
  const uint64_t lo = Load64(in) ^ (Load64(kSecret) + seed);
  const uint64_t hi = Load64(in + len - 8) ^ (Load64(kSecret + 8) - seed);
  return Avalanche(len + lo + hi + Fold64(lo, hi));
}

// Pairs of 16-byte chunks, one from each end, each pair with the next 32
// secret bytes; longer inputs add the inner pairs.
inline uint64_t Hash17To128(const uint8_t* in, size_t len, uint64_t seed) {
  uint64_t acc = len * kPrime64_1;
  if (len > 32) {
    if (len > 64) {
      if (len > 96) {
        acc += Mix16(in + 48, kSecret + 96, seed);
        acc += Mix16(in + len - 64, kSecret + 112, seed);
      }
      acc += Mix16(in + 32, kSecret + 64, seed);
      acc += Mix16(in + len - 48, kSecret + 80, seed);
    }
    acc += Mix16(in + 16, kSecret + 32, seed);
    acc += Mix16(in + len - 32, kSecret + 48, seed);
  }
  acc += Mix16(in, kSecret, seed);
  acc += Mix16(in + len - 16, kSecret + 16, seed);
  return Avalanche(acc);
}

uint64_t Hash129To240(const uint8_t* in, size_t len, uint64_t seed) {
  uint64_t acc = len * kPrime64_1;
  for (size_t i = 0; i < 8; ++i) acc += Mix16(in + 16 * i, kSecret + 16 * i, seed);
  acc = Avalanche(acc);
  const size_t chunks = len / 16;
  for (size_t i = 8; i < chunks; ++i) acc += Mix16(in + 16 * i, kSecret + 16 * (i - 8) + kMidChunkSecretOffset, seed);
  // When len is a multiple of 16 these are the bytes of the last chunk again,
  // keyed differently; RocksDB's format depends on mixing them twice.
  acc += Mix16(in + len - 16, kSecret + kMidLastSecretOffset, seed);
  return Avalanche(acc);
}

// One 64-byte stripe: each lane adds its own data word plus the 32x32-bit
// product of the halves of the keyed word. (Final XXH3 adds the data word to
// the neighbouring lane instead.)
inline void Accumulate(uint64_t* __restrict acc, const uint8_t* __restrict in, const uint8_t* __restrict secret) {
  for (size_t j = 0; j < kLanes; ++j) {
    const uint64_t data = Load64(in + 8 * j);
    const uint64_t keyed = data ^ Load64(secret + 8 * j);
    acc[j] += data + uint64_t{static_cast<uint32_t>(keyed)} * (keyed >> 32);
  }
}

inline void Scramble(uint64_t* __restrict acc, const uint8_t* __restrict secret) {
  for (size_t j = 0; j < kLanes; ++j) {
    acc[j] = (acc[j] ^ (acc[j] >> 47) ^ Load64(secret + 8 * j)) * kPrime32_1;
  }
}

uint64_t HashLong(const uint8_t* in, size_t len, const uint8_t* secret) {
  alignas(64) uint64_t acc[kLanes] = {kPrime32_3, kPrime64_1, kPrime64_2, kPrime64_3,
                                      kPrime64_4, kPrime32_2, kPrime64_5, kPrime32_1};
  const size_t blocks = len / kBlockBytes;
  for (size_t b = 0; b < blocks; ++b) {
    const uint8_t* block = in + b * kBlockBytes;
    for (size_t s = 0; s < kStripesPerBlock; ++s) Accumulate(acc, block + s * kStripeBytes, secret + s * kSecretStep);
    Scramble(acc, secret + kScrambleSecretOffset);
  }
  const uint8_t* tail = in + blocks * kBlockBytes;
  const size_t tail_stripes = (len - blocks * kBlockBytes) / kStripeBytes;
  for (size_t s = 0; s < tail_stripes; ++s) Accumulate(acc, tail + s * kStripeBytes, secret + s * kSecretStep);
  // Partial final stripe: hash the last 64 bytes (overlapping the previous
  // stripe). Skipped when the input ends on a stripe boundary (final XXH3
  // always does it).
  if (len % kStripeBytes != 0) Accumulate(acc, in + len - kStripeBytes, secret + kLastStripeSecretOffset);

  uint64_t h = len * kPrime64_1;
  for (size_t i = 0; i < kLanes / 2; ++i) {
    const uint8_t* s = secret + kMergeSecretOffset + 16 * i;
    h += Fold64(acc[2 * i] ^ Load64(s), acc[2 * i + 1] ^ Load64(s + 8));
  }
  return Avalanche(h);
}

// The seed's only influence on long inputs: every 16-byte slice of the secret
// gets +seed on its first word and -seed on its second.
uint64_t HashLongSeeded(const uint8_t* in, size_t len, uint64_t seed) {
  alignas(64) uint8_t secret[kSecretSize];
  for (size_t i = 0; i < kSecretSize; i += 16) {
    Store64(secret + i, Load64(kSecret + i) + seed);
    Store64(secret + i + 8, Load64(kSecret + i + 8) - seed);
  }
  return HashLong(in, len, secret);
}

inline uint64_t HashAnyLength(const uint8_t* in, size_t len, uint64_t seed) {
  if (len <= 16) {
    if (len > 8) return Hash9To16(in, len, seed);
    if (len >= 4) return Hash4To8(in, len, seed);
    if (len > 0) return Hash1To3(in, len, seed);
    return HashEmpty(seed);
  }
  if (len <= 128) return Hash17To128(in, len, seed);
  if (len <= 240) return Hash129To240(in, len, seed);
  return seed == 0 ? HashLong(in, len, kSecret) : HashLongSeeded(in, len, seed);
}

}  // namespace

uint64_t XXPH3_64(const char* data, size_t n) { return HashAnyLength(reinterpret_cast<const uint8_t*>(data), n, 0); }

uint64_t XXPH3_64(const char* data, size_t n, uint64_t seed) {
  return HashAnyLength(reinterpret_cast<const uint8_t*>(data), n, seed);
}

}  // namespace filterlab
