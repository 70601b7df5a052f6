// CRC32C (Castagnoli polynomial, reflected 0x82F63B78): the checksum on every
// persisted block. x86-64 computes it in hardware (SSE4.2 crc32 instruction,
// 8 bytes per step); elsewhere a portable slicing-by-8 table path does it.
// Both paths are always compiled so tests can check them against each other.
//
// Masking: a CRC stored inside data that is itself CRC'd (e.g. a block holding
// checksums) makes the CRC of the whole degenerate in well-known ways, so
// persisted checksums are masked: rotate right by 15 bits, add a constant.
#pragma once

#include <cstddef>
#include <cstdint>

namespace filterlab::engine::crc32c {

// CRC32C of data[0, n) continuing from the CRC `crc` of the preceding bytes
// (Extend(Value(a), b) == Value(a ‖ b)). Uses the hardware path if available.
uint32_t Extend(uint32_t crc, const char* data, size_t n);
inline uint32_t Value(const char* data, size_t n) { return Extend(0, data, n); }

// The two implementations, exposed for tests and benchmarks.
uint32_t ExtendPortable(uint32_t crc, const char* data, size_t n);
// Precondition: HardwareAvailable().
uint32_t ExtendHardware(uint32_t crc, const char* data, size_t n);
bool HardwareAvailable();

inline constexpr uint32_t kMaskDelta = 0xa282ead8u;

inline uint32_t Mask(uint32_t crc) { return ((crc >> 15) | (crc << 17)) + kMaskDelta; }
inline uint32_t Unmask(uint32_t masked) {
  const uint32_t rot = masked - kMaskDelta;
  return (rot >> 17) | (rot << 15);
}

}  // namespace filterlab::engine::crc32c
