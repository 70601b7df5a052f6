// Ribbon back-substitution into the interleaved layout (ribbon_solution.h).
#include "filters/ribbon/ribbon_solution.h"

#include <cmath>
#include <cstring>
#include <vector>

#include "hashing/remix.h"

namespace filterlab::ribbon {

InterleavedLayout InterleavedLayout::For(uint32_t num_blocks, size_t data_bytes) {
  InterleavedLayout l;
  l.num_blocks = num_blocks;
  l.num_segments = static_cast<uint32_t>(data_bytes / sizeof(CoeffRow));
  if (num_blocks == 0) return l;
  l.upper_num_columns = (l.num_segments + num_blocks - 1) / num_blocks;
  l.upper_start_block = l.upper_num_columns * num_blocks - l.num_segments;
  if (l.upper_num_columns > kMaxResultBits) {
    l.upper_num_columns = kMaxResultBits;
    l.upper_start_block = 0;
    l.num_segments = num_blocks * kMaxResultBits;
  }
  return l;
}

double InterleavedLayout::FpRate() const {
  const double lower_portion = static_cast<double>(upper_start_block) * kCoeffBits / num_starts();
  return lower_portion * std::ldexp(1.0, -static_cast<int>(upper_num_columns) + 1) +
         (1.0 - lower_portion) * std::ldexp(1.0, -static_cast<int>(upper_num_columns));
}

namespace {

// Slot i's right-hand side: its result row, or for a free slot (no row)
// in homogeneous Ribbon pseudo-random bits of the slot (ribbon_solution.h).
inline ResultRow RightHandSide(const Banding& banding, uint32_t i, bool random_free_slots) {
  const uint64_t* w = banding.coeff_words();
  return random_free_slots && (w[2 * size_t{i}] | w[2 * size_t{i} + 1]) == 0
             ? static_cast<ResultRow>(Mix64(uint64_t{i} + kGoldenRatio64))
             : banding.result_rows()[i];
}

inline void StoreSegment(uint8_t* data, uint32_t segment, uint64_t low, uint64_t high) {
  std::memcpy(data + size_t{segment} * 16, &low, 8);
  std::memcpy(data + size_t{segment} * 16 + 8, &high, 8);
}

}  // namespace

void BackSubstituteScalar(const Banding& banding, const InterleavedLayout& layout, uint8_t* data,
                          bool random_free_slots) {
  uint32_t num_columns = layout.upper_num_columns;
  if (num_columns == 0) return;
  // state[j]: column j's solution bits of the 128 slots below the current
  // one, newest in bit 0; a slot's bit is its row's result bit XOR the
  // parity of its row with those (the row's bit 0 is its pivot).
  std::vector<CoeffRow> state(num_columns, 0);
  uint32_t segment = layout.num_segments;
  for (uint32_t block = layout.num_blocks; block > 0;) {
    --block;
    if (block + 1 == layout.upper_start_block) --num_columns;
    for (uint32_t i = (block + 1) * kCoeffBits; i > block * kCoeffBits;) {
      --i;
      const CoeffRow cr = banding.coeff_row(i);
      // With cr = 0 the slot's bit is rr itself.
      const ResultRow rr = RightHandSide(banding, i, random_free_slots);
      for (uint32_t j = 0; j < num_columns; ++j) {
        CoeffRow s = state[j] << 1;
        s |= static_cast<CoeffRow>(Parity128(s & cr) ^ static_cast<int>((rr >> j) & 1));
        state[j] = s;
      }
    }
    segment -= num_columns;
    for (uint32_t j = 0; j < num_columns; ++j) {
      StoreSegment(data, segment + j, static_cast<uint64_t>(state[j]), static_cast<uint64_t>(state[j] >> 64));
    }
  }
}

#ifdef FILTERLAB_RIBBON_AVX512
FILTERLAB_AVX512_WARNINGS_OFF  // GCC's false positives on its intrinsics (common/avx512_warnings.h)
namespace {

// kGroups registers of eight columns each: lo[g] lane k holds the low 64
// bits of column 8g + k's state, hi[g] the high 64. Per slot, for all
// columns at once: the parity of (state & (cr >> 1)), which equals the
// scalar twin's parity of ((state << 1) & cr), is one AND, one ternary
// AND-XOR folding the halves, one VPOPCNTQ; its low bit XOR the column's
// result bit is the slot's solution bit, which enters at bit 0 as the
// state shifts up by one (VPSHLDQ carries bit 63 of lo into hi).
template <int kGroups>
void BackSubstituteGroups(const Banding& banding, const InterleavedLayout& layout, uint8_t* data,
                          bool random_free_slots) {
  const uint64_t* words = banding.coeff_words();
  __m512i lo[kGroups], hi[kGroups], shifts[kGroups];
  for (int g = 0; g < kGroups; ++g) {
    lo[g] = _mm512_setzero_si512();
    hi[g] = _mm512_setzero_si512();
    shifts[g] = _mm512_add_epi64(_mm512_set_epi64(7, 6, 5, 4, 3, 2, 1, 0), _mm512_set1_epi64(8 * g));
  }
  const __m512i one = _mm512_set1_epi64(1);
  alignas(64) uint64_t out_lo[8 * kGroups], out_hi[8 * kGroups];
  uint32_t num_columns = layout.upper_num_columns;
  uint32_t segment = layout.num_segments;
  for (uint32_t block = layout.num_blocks; block > 0;) {
    --block;
    if (block + 1 == layout.upper_start_block) --num_columns;
    for (uint32_t i = (block + 1) * kCoeffBits; i > block * kCoeffBits;) {
      --i;
      const uint64_t c_lo = words[2 * size_t{i}], c_hi = words[2 * size_t{i} + 1];
      const __m512i a = _mm512_set1_epi64(static_cast<long long>((c_lo >> 1) | (c_hi << 63)));
      const __m512i b = _mm512_set1_epi64(static_cast<long long>(c_hi >> 1));
      const __m512i rr = _mm512_set1_epi64(RightHandSide(banding, i, random_free_slots));
      for (int g = 0; g < kGroups; ++g) {
        const __m512i t = _mm512_ternarylogic_epi64(hi[g], b, _mm512_and_si512(lo[g], a), 0x6a);  // (hi & b) ^ (lo & a)
        const __m512i rr_bits = _mm512_srlv_epi64(rr, shifts[g]);
        const __m512i bit = _mm512_ternarylogic_epi64(_mm512_popcnt_epi64(t), rr_bits, one, 0x28);  // (p ^ r) & 1
        hi[g] = _mm512_shldi_epi64(hi[g], lo[g], 1);
        lo[g] = _mm512_or_si512(_mm512_slli_epi64(lo[g], 1), bit);
      }
    }
    segment -= num_columns;
    for (int g = 0; g < kGroups; ++g) {
      _mm512_store_si512(out_lo + 8 * g, lo[g]);
      _mm512_store_si512(out_hi + 8 * g, hi[g]);
    }
    for (uint32_t j = 0; j < num_columns; ++j) StoreSegment(data, segment + j, out_lo[j], out_hi[j]);
  }
}

}  // namespace
FILTERLAB_AVX512_WARNINGS_ON

void BackSubstituteAvx512(const Banding& banding, const InterleavedLayout& layout, uint8_t* data,
                          bool random_free_slots) {
  switch ((layout.upper_num_columns + 7) / 8) {
    case 0: return;
    case 1: return BackSubstituteGroups<1>(banding, layout, data, random_free_slots);
    case 2: return BackSubstituteGroups<2>(banding, layout, data, random_free_slots);
    case 3: return BackSubstituteGroups<3>(banding, layout, data, random_free_slots);
    default: return BackSubstituteGroups<4>(banding, layout, data, random_free_slots);
  }
}
#endif

void BackSubstitute(const Banding& banding, const InterleavedLayout& layout, uint8_t* data, bool random_free_slots) {
#ifdef FILTERLAB_RIBBON_AVX512
  BackSubstituteAvx512(banding, layout, data, random_free_slots);
#else
  BackSubstituteScalar(banding, layout, data, random_free_slots);
#endif
}

}  // namespace filterlab::ribbon
