// SelectInWord: the position of the r-th set bit of a 64-bit word, the
// in-word step of every select over a bit vector here (Elias-Fano's zeros in
// elias_fano.cc, SuRF's LOUDS and has-child bits in surf.cc, Memento's
// runends in memento_table.cc).
//
// With BMI2, PDEP deposits the single bit 1 << r at the position of x's r-th
// set bit (Pandey, Bender, Johnson, "A Fast x86 Implementation of Select",
// arXiv:1706.00990): one instruction, 3 cycles on the CPUs that run
// it natively (Intel since Haswell, AMD since Zen 3). Without BMI2 the r lowest
// set bits are cleared one at a time (O(r)).
#pragma once

#include <bit>
#include <cstdint>

#if defined(__BMI2__)
#include <immintrin.h>
#endif

namespace filterlab {

// Position (0..63) of the r-th (0-based) set bit of x; precondition:
// std::popcount(x) > r.
inline int SelectInWord(uint64_t x, uint64_t r) {
#if defined(__BMI2__) && !defined(FILTERLAB_FORCE_SCALAR)
  return std::countr_zero(_pdep_u64(uint64_t{1} << r, x));
#else
  for (; r > 0; --r) x &= x - 1;
  return std::countr_zero(x);
#endif
}

}  // namespace filterlab
