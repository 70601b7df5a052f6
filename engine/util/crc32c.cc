#include "engine/util/crc32c.h"

#include <array>
#include <cstring>

#if defined(__x86_64__) || defined(_M_X64)
#include <nmmintrin.h>
#define FILTERLAB_CRC32C_X86 1
#endif

namespace filterlab::engine::crc32c {
namespace {

constexpr uint32_t kPoly = 0x82F63B78u;  // Castagnoli, bit-reversed

// kTables[0] is the classic byte-at-a-time table; kTables[k][b] is the CRC
// contribution of byte b followed by k zero bytes, which lets the portable
// path fold 8 input bytes per step with 8 independent lookups.
constexpr std::array<std::array<uint32_t, 256>, 8> MakeTables() {
  std::array<std::array<uint32_t, 256>, 8> t{};
  for (uint32_t b = 0; b < 256; ++b) {
    uint32_t c = b;
    for (int i = 0; i < 8; ++i) c = (c & 1) ? (c >> 1) ^ kPoly : c >> 1;
    t[0][b] = c;
  }
  for (int k = 1; k < 8; ++k) {
    for (uint32_t b = 0; b < 256; ++b) t[k][b] = (t[k - 1][b] >> 8) ^ t[0][t[k - 1][b] & 0xff];
  }
  return t;
}
constexpr auto kTables = MakeTables();

}  // namespace

uint32_t ExtendPortable(uint32_t crc, const char* data, size_t n) {
  const auto* p = reinterpret_cast<const unsigned char*>(data);
  uint32_t c = ~crc;
  while (n >= 8) {
    uint64_t w;
    std::memcpy(&w, p, 8);  // little-endian host
    const uint32_t lo = static_cast<uint32_t>(w) ^ c;
    const uint32_t hi = static_cast<uint32_t>(w >> 32);
    c = kTables[7][lo & 0xff] ^ kTables[6][(lo >> 8) & 0xff] ^ kTables[5][(lo >> 16) & 0xff] ^ kTables[4][lo >> 24] ^
        kTables[3][hi & 0xff] ^ kTables[2][(hi >> 8) & 0xff] ^ kTables[1][(hi >> 16) & 0xff] ^ kTables[0][hi >> 24];
    p += 8;
    n -= 8;
  }
  while (n-- > 0) c = (c >> 8) ^ kTables[0][(c ^ *p++) & 0xff];
  return ~c;
}

#ifdef FILTERLAB_CRC32C_X86
__attribute__((target("sse4.2"))) uint32_t ExtendHardware(uint32_t crc, const char* data, size_t n) {
  const char* p = data;
  uint64_t c = ~crc;
  while (n >= 8) {
    uint64_t w;
    std::memcpy(&w, p, 8);
    c = _mm_crc32_u64(c, w);
    p += 8;
    n -= 8;
  }
  auto c32 = static_cast<uint32_t>(c);
  while (n-- > 0) c32 = _mm_crc32_u8(c32, static_cast<unsigned char>(*p++));
  return ~c32;
}

bool HardwareAvailable() {
  static const bool available = __builtin_cpu_supports("sse4.2");
  return available;
}
#else
uint32_t ExtendHardware(uint32_t crc, const char* data, size_t n) { return ExtendPortable(crc, data, n); }
bool HardwareAvailable() { return false; }
#endif

uint32_t Extend(uint32_t crc, const char* data, size_t n) {
  return HardwareAvailable() ? ExtendHardware(crc, data, n) : ExtendPortable(crc, data, n);
}

}  // namespace filterlab::engine::crc32c
