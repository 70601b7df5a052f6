// Exact a mod d for a 32-bit a and a divisor d below 2^16 with two
// multiplies instead of a division (Lemire, Kaser & Kurz, "Faster Remainder
// by Direct Computation: Applications to Compilers and Software Libraries",
// Software: Practice and Experience 2019, Theorem 1): for a < 2^N and
// 1 <= d < 2^L, with F >= N + L and c = ceil(2^F / d),
//   a mod d = floor(((c * a) mod 2^F) * d / 2^F).
// Here N = 32 and L = the bit length of d, so F = 32 + L <= 48: c has at most
// 34 bits (2^33 when d is a power of two), (c * a) mod 2^F is the low F bits
// of the wrapped 64-bit product, and its product with d stays below 2^(32 +
// 2L) <= 2^64. Unlike fastrange (fastrange.h) this is the true remainder, so
// formats defined by `h % d` (RocksDB's legacy Bloom line choice) keep their
// bits. A 32-bit DIV costs this project's AMD EPYC about four times the two
// multiplies in throughput.
#pragma once

#include <cstdint>

namespace filterlab {

struct FastMod32 {
  static constexpr uint32_t kMaxDivisor = (1u << 16) - 1;
  static constexpr int kMultiplierBits = 34;

  // F = 32 + bit length of d. Precondition: 1 <= d <= kMaxDivisor.
  static int Shift(uint32_t d) { return 64 - __builtin_clz(d); }
  // c = ceil(2^F / d), computed once per divisor.
  static uint64_t Multiplier(uint32_t d) {
    const int f = Shift(d);
    return ((uint64_t{1} << f) + d - 1) / d;
  }
  // a mod d, given c = Multiplier(d).
  static uint32_t Mod(uint32_t a, uint32_t d, uint64_t c) {
    const int f = Shift(d);
    const uint64_t low = (c * a) & ((uint64_t{1} << f) - 1);
    return static_cast<uint32_t>((low * d) >> f);
  }
};

// The same theorem with F = 64 (N + L <= 64 for every 32-bit divisor): c =
// ceil(2^64 / d) wrapped to 64 bits (0 for d = 1, which gives a mod 1 = 0),
// a mod d = high 64 bits of ((c * a) mod 2^64) * d. No mask or shift, so two
// multiplies (an imul and a 64x64->128 mul) for any d, but c takes all 64
// bits: for a loop over one divisor (legacy_block's build), where the
// multiplier sits in a register; a view's 64-bit param cannot hold it beside
// the divisor.
struct FastMod32Any {
  // Precondition: d >= 1.
  static uint64_t Multiplier(uint32_t d) { return ~uint64_t{0} / d + 1; }
  static uint32_t Mod(uint32_t a, uint32_t d, uint64_t c) {
    return static_cast<uint32_t>((static_cast<unsigned __int128>(c * a) * d) >> 64);
  }
};

}  // namespace filterlab
