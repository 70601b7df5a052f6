// x / d and x % d for a divisor fixed at construction, without the hardware
// divide (tens of cycles, on the query's critical path): Grafite divides by
// its reduced universe r (grafite.cc), bucketing by its bucket size
// (bucketing.cc), twice per query and once per key built.
#pragma once

#include <cstdint>

namespace filterlab {

// Why it is exact: M = floor((2^64 - 1) / d) >= 2^64 / d - 1, so
// x M / 2^64 > x / d - 1 for x < 2^64, and q = floor(x M / 2^64) is
// floor(x / d) or one less: one comparison of the remainder corrects it.
class FixedDivisor {
 public:
  FixedDivisor() = default;
  explicit FixedDivisor(uint64_t d) : d_(d), m_(UINT64_MAX / d) {}
  uint64_t divisor() const { return d_; }
  // Sets *rem = x % d and returns x / d.
  uint64_t DivMod(uint64_t x, uint64_t* rem) const {
    uint64_t q = static_cast<uint64_t>((static_cast<unsigned __int128>(x) * m_) >> 64);
    uint64_t r = x - q * d_;
    if (r >= d_) ++q, r -= d_;
    *rem = r;
    return q;
  }
  // x / d.
  uint64_t Div(uint64_t x) const {
    uint64_t rem;
    return DivMod(x, &rem);
  }
  // x % d.
  uint64_t Mod(uint64_t x) const {
    uint64_t rem;
    DivMod(x, &rem);
    return rem;
  }

 private:
  uint64_t d_ = 1;
  uint64_t m_ = UINT64_MAX;
};

}  // namespace filterlab
