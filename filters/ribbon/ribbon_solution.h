// The interleaved solution layout of Standard128Ribbon and its queries.
//
// Back-substitution solves the banded system from the last slot upwards,
// giving each slot r solution bits (one per result "column"). They are
// stored block by block (128 slots each): block b holds c_b 128-bit
// segments, segment j bit i = column j's solution bit of slot 128b + i,
// little-endian. Blocks before upper_start_block have upper_num_columns - 1
// columns, the rest upper_num_columns, which is how a fractional number of
// result bits per key (a FP between two powers of two) is laid out. Both
// numbers follow from the block count and the data length alone:
//   segments = bytes / 16, upper_num_columns = ceil(segments / blocks),
//   upper_start_block = upper_num_columns * blocks - segments.
//
// A query rehashes with the filter's seed, takes its start slot's block
// and, unless the start is block-aligned, the next one, and checks for
// each column that the parity of (solution bits & coefficient row) equals
// the key's result bit: c_b column reads, all within <= 2 * c_b * 16
// contiguous bytes (QueryAt: branch-free; eight columns per AVX-512 or AVX2
// step where available, otherwise one POPCNT per column; the scalar and
// AVX2 kernels are compiled per column count and read one masked segment
// more in a lower block: below).
#pragma once

#include <cstddef>
#include <cstdint>

#include "filters/ribbon/ribbon_banding.h"
#include "filters/ribbon/ribbon_hasher.h"

#if defined(__AVX512F__) && defined(__AVX512VPOPCNTDQ__) && defined(__AVX512VBMI2__) && !defined(FILTERLAB_FORCE_SCALAR)
#define FILTERLAB_RIBBON_AVX512 1
#include <immintrin.h>

#include "common/avx512_warnings.h"
#endif
// The AVX2 query kernel is compiled wherever the compiler targets AVX2, so
// that its test runs on AVX-512 machines too; queries use it only where
// there is no AVX-512 kernel (SolutionBits).
#if defined(__AVX2__) && !defined(FILTERLAB_FORCE_SCALAR)
#define FILTERLAB_RIBBON_AVX2 1
#include <immintrin.h>
#endif

namespace filterlab::ribbon {

struct InterleavedLayout {
  uint32_t num_blocks = 0;
  uint32_t num_segments = 0;
  uint32_t upper_num_columns = 0;
  uint32_t upper_start_block = 0;

  // The layout for num_blocks >= 2 blocks over data_bytes bytes (whole
  // segments; a remainder is ignored). More than 32 columns' worth of data
  // is capped at 32 columns, as RocksDB's reader does.
  static InterleavedLayout For(uint32_t num_blocks, size_t data_bytes);

  uint32_t num_starts() const { return num_blocks * kCoeffBits - kCoeffBits + 1; }
  size_t data_bytes() const { return size_t{num_segments} * sizeof(CoeffRow); }

  // The FP rate of a key not added: a query starting in a lower block
  // checks upper_num_columns - 1 result bits, the others upper_num_columns,
  // each passing with chance 1/2.
  double FpRate() const;
};

// Writes the solution of `banding` (solved with banding.num_slots() =
// 128 * layout.num_blocks) into data (layout.data_bytes() bytes). A slot no
// key pivots on is a free variable: 0 in Standard128Ribbon (RocksDB's
// choice, part of its bytes); with random_free_slots, pseudo-random bits of
// (slot, column), which homogeneous Ribbon needs: its equations are all
// "= 0", so zero free variables would give the all-zero solution, which
// every key passes.
void BackSubstitute(const Banding& banding, const InterleavedLayout& layout, uint8_t* data,
                    bool random_free_slots = false);

// BackSubstitute's two kernels, which write the same bytes (ribbon_test.cc
// compares them over 1..32 columns): the scalar one (per slot and column a
// 128-bit shift, AND and POPCNT) and, where the compiler targets AVX-512
// with VPOPCNTDQ and VBMI2 and FILTERLAB_FORCE_SCALAR is not set, eight
// columns per register pair (ribbon_solution.cc), which BackSubstitute
// then uses.
void BackSubstituteScalar(const Banding& banding, const InterleavedLayout& layout, uint8_t* data,
                          bool random_free_slots = false);
#ifdef FILTERLAB_RIBBON_AVX512
void BackSubstituteAvx512(const Banding& banding, const InterleavedLayout& layout, uint8_t* data,
                          bool random_free_slots = false);
#endif

inline CoeffRow LoadSegment(const uint8_t* data, uint32_t segment) {
  uint64_t low, high;
  __builtin_memcpy(&low, data + size_t{segment} * 16, 8);
  __builtin_memcpy(&high, data + size_t{segment} * 16 + 8, 8);
  return (static_cast<CoeffRow>(high) << 64) | low;
}

// Where a query for rehashed hash h reads: its first segment and column count.
struct QueryPlace {
  uint32_t segment;
  uint32_t num_columns;
  uint32_t start_bit;
};
inline QueryPlace PlaceOf(uint64_t h, const InterleavedLayout& layout) {
  const uint32_t start = StartOf(h, layout.num_starts());
  const uint32_t block = start / kCoeffBits;
  const bool lower = block < layout.upper_start_block;
  return QueryPlace{block * layout.upper_num_columns - (lower ? block : layout.upper_start_block),
                    layout.upper_num_columns - (lower ? 1u : 0u), start % kCoeffBits};
}

// Queries are compiled per column count C, the filter's upper_num_columns
// (every Ribbon filter has 0..32; the policy keeps one query function per
// count and picks it when the filter is opened), so that the column loop
// and the prefetches have a trip count fixed per filter. A count read from
// the query's block would end the loop at a random trip wherever lower
// blocks are common (24 of 113 blocks of a 10k-key filter at 10 bits/key)
// and mispredict, as would a prefetch loop over the span's lines from its
// offset. On a Zen 3 EPYC without AVX-512 (sim speed ribbon:bpk=10, 200 MB
// of ~10k-key filters, both kernels in one process, 9 interleaved rounds),
// the per-filter count takes 0.79x the hot query time of the per-block one
// and 0.84x its pipelined floor multiple per line read (1.34 against 1.55).
//
// A query at p reads C segments in its start block and, unless the start is
// block-aligned, C in the next block (left + 16 p.num_columns): one more than
// it has columns when its block is a lower one (p.num_columns = C - 1), so
// the span is 16 (p.num_columns + C) bytes. Those extra bits are masked off
// (ColumnMask) and never change an answer, and the reads stay inside the
// data: a lower block is never the last one (upper_start_block <
// num_blocks, since upper_num_columns * num_blocks - num_segments <
// num_blocks), so a segment follows it, and so does one after a lower next
// block.

// Asks the cache for every line a query at p reads, so that its 2-5 lines
// (at ~7 columns) arrive together rather than one miss after another: a line
// every 64 bytes up to 32 C - 16 (the shorter span), then the span's last
// byte. A block-aligned start reads only its first block: the prefetches
// past it cost a line request and cannot fault.
template <uint32_t C>
inline void PrefetchPlace(const QueryPlace& p, const uint8_t* data) {
  if constexpr (C > 0) {
    const uint8_t* first = data + size_t{p.segment} * 16;
    constexpr uint32_t kSteps = (32 * C - 16 + 63) / 64;
    for (uint32_t j = 0; j < kSteps; ++j) __builtin_prefetch(first + 64 * j, 0, 3);
    __builtin_prefetch(first + 16 * (p.num_columns + C) - 1, 0, 3);
  }
}

inline uint64_t Load64(const uint8_t* at) {
  uint64_t v;
  __builtin_memcpy(&v, at, 8);
  return v;
}

// The query's computed result bits (bit i = column i; bits from
// p.num_columns up are not the query's, see above): column i's bit is the
// parity of (solution bits & coefficient row) over the 128 slots from the
// start: the start block's segment i masked by the row shifted up by
// start_bit, XOR the next block's segment i masked by the row's top
// start_bit bits shifted down. No data-dependent branch: every column is
// computed and the mismatches are compared once, since an early exit would
// mispredict on about half of the keys not added (their first differing
// column is random). Both 128-bit halves fold into one 64-bit word, one
// POPCNT per column. (An AVX-512 VPOPCNTQ kernel of four columns per step
// was ~8% slower hot on this project's EPYC: 13.3-14.3 against 12.2-13.1
// CPU ns per query, sim speed single mode at bpk=10, 5 runs each.)
// Where the compiler targets AVX-512 or AVX2, queries use SolutionBitsAvx512
// or SolutionBitsAvx2<C> below instead (SolutionBits); this is their scalar
// twin.
template <uint32_t C>
[[gnu::always_inline]] inline uint64_t SolutionBitsScalar(CoeffRow cr, const QueryPlace& p, const uint8_t* data) {
  const uint8_t* left = data + size_t{p.segment} * 16;
  uint64_t got = 0;
  if (p.start_bit == 0) {
    const uint64_t c0 = static_cast<uint64_t>(cr), c1 = static_cast<uint64_t>(cr >> 64);
    for (uint32_t i = 0; i < C; ++i) {
      const uint64_t y = (Load64(left + 16 * i) & c0) ^ (Load64(left + 16 * i + 8) & c1);
      got |= static_cast<uint64_t>(__builtin_parityll(y)) << i;
    }
    return got;
  }
  const CoeffRow cl = cr << p.start_bit;
  const CoeffRow cn = cr >> (kCoeffBits - p.start_bit);
  const uint64_t l0 = static_cast<uint64_t>(cl), l1 = static_cast<uint64_t>(cl >> 64);
  const uint64_t n0 = static_cast<uint64_t>(cn), n1 = static_cast<uint64_t>(cn >> 64);
  const uint8_t* next = left + size_t{p.num_columns} * 16;
  for (uint32_t i = 0; i < C; ++i) {
    const uint64_t y = (Load64(left + 16 * i) & l0) ^ (Load64(left + 16 * i + 8) & l1) ^ (Load64(next + 16 * i) & n0) ^
                       (Load64(next + 16 * i + 8) & n1);
    got |= static_cast<uint64_t>(__builtin_parityll(y)) << i;
  }
  return got;
}

#ifdef FILTERLAB_RIBBON_AVX2
// SolutionBitsScalar<C>'s bits with AVX2, eight columns per step. A 32-byte
// load holds two columns' segments, one per 128-bit lane, so one AND with
// the start block's row in both lanes masks both, and one AND with the next
// block's row and one XOR add the next block. Column i's bit is then the
// parity of the four dwords of its lane: two rounds of unpack-and-XOR
// gather eight columns' XORs into one register (dword k of lane j = column
// 2k + j), five shift-XOR folds leave each parity in bit 0 of its dword, a
// permute puts them in column order and MOVMSKPS takes them out. The
// compiled query of a 7-column filter (Release, g++ on a Zen 3 host) has 61
// vector instructions, about 20 of them building and shifting the rows,
// where the scalar twin spends ~13 scalar ones per column. The loads are
// independent and issue at once, so the one-at-a-time query needs no
// prefetch (kQueryLoadsIssueTogether). An odd C's last column is a 16-byte
// load, so a block-aligned query of the last block reads nothing past its
// C segments.
//
// Measured on a Zen 3 EPYC (sim speed ribbon:bpk=10, 200 MB of ~10k-key
// filters, mixed queries, 6 rounds, this kernel and the scalar one in the
// same process each round through a scratch spec toggle, not kept): hot
// query 12.9 ns against 23.8 (median of the rounds' ratios 0.66), with a
// prefetch before it 14.3 (0.69); pipelined (depth auto) 0.93x; random
// one at a time level within the host's noise (0.99x).
template <uint32_t C>
[[gnu::always_inline]] inline __m256i LoadColumnPair(const uint8_t* block, uint32_t pair) {
  const uint8_t* at = block + 32 * size_t{pair};
  if (2 * pair + 1 < C) return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(at));
  return _mm256_zextsi128_si256(_mm_loadu_si128(reinterpret_cast<const __m128i*>(at)));
}
// The row cr in both 128-bit lanes (low half first), shifted up by
// start_bit (the start block's mask, cr << start_bit) or down by
// 128 - start_bit (the next block's, cr >> (128 - start_bit), zero when
// start_bit is 0). AVX2's per-lane shifts give 0 for a count of 64 or
// more, negative counts included, so each 128-bit shift is three 64-bit
// ones ORed, whatever the count, with no branch on it (a compiled
// unsigned __int128 shift tests the count's bit 6, sometimes with a jump,
// which mispredicts on half the queries).
struct ShiftedRows {
  __m256i start, next;
};
[[gnu::always_inline]] inline ShiftedRows ShiftRow(CoeffRow cr, uint32_t start_bit) {
  const __m256i row = _mm256_broadcastsi128_si256(_mm_set_epi64x(
      static_cast<long long>(static_cast<uint64_t>(cr >> 64)), static_cast<long long>(static_cast<uint64_t>(cr))));
  const __m256i low_in_high = _mm256_bslli_epi128(row, 8);  // (0, low) per lane
  const __m256i high_in_low = _mm256_bsrli_epi128(row, 8);  // (high, 0) per lane
  const __m256i s = _mm256_set1_epi64x(start_bit);
  const __m256i t = _mm256_sub_epi64(_mm256_set1_epi64x(kCoeffBits), s);
  const __m256i w = _mm256_set1_epi64x(64);
  const __m256i up = _mm256_or_si256(
      _mm256_or_si256(_mm256_sllv_epi64(row, s), _mm256_srlv_epi64(low_in_high, _mm256_sub_epi64(w, s))),
      _mm256_sllv_epi64(low_in_high, _mm256_sub_epi64(s, w)));
  const __m256i down = _mm256_or_si256(
      _mm256_or_si256(_mm256_srlv_epi64(row, t), _mm256_sllv_epi64(high_in_low, _mm256_sub_epi64(w, t))),
      _mm256_srlv_epi64(high_in_low, _mm256_sub_epi64(t, w)));
  return {up, down};
}
// Columns 2 pair and 2 pair + 1 masked by the query's rows and XORed across
// the two blocks (zero for columns from C up).
template <uint32_t C>
[[gnu::always_inline]] inline __m256i MaskedPair(const uint8_t* left, const uint8_t* next, __m256i vl, __m256i vn,
                                                 uint32_t pair) {
  if (2 * pair >= C) return _mm256_setzero_si256();
  return _mm256_xor_si256(_mm256_and_si256(LoadColumnPair<C>(left, pair), vl),
                          _mm256_and_si256(LoadColumnPair<C>(next, pair), vn));
}
// Bit i of the result: the parity of the four dwords of column 8g + i's lane
// in pairs[4g + i / 2] (lane i % 2).
[[gnu::always_inline]] inline uint32_t ParityOfEightColumns(__m256i y0, __m256i y1, __m256i y2, __m256i y3) {
  const __m256i a = _mm256_xor_si256(_mm256_unpacklo_epi32(y0, y1), _mm256_unpackhi_epi32(y0, y1));
  const __m256i b = _mm256_xor_si256(_mm256_unpacklo_epi32(y2, y3), _mm256_unpackhi_epi32(y2, y3));
  __m256i x = _mm256_xor_si256(_mm256_unpacklo_epi64(a, b), _mm256_unpackhi_epi64(a, b));
  x = _mm256_xor_si256(x, _mm256_srli_epi32(x, 16));
  x = _mm256_xor_si256(x, _mm256_srli_epi32(x, 8));
  x = _mm256_xor_si256(x, _mm256_srli_epi32(x, 4));
  x = _mm256_xor_si256(x, _mm256_srli_epi32(x, 2));
  x = _mm256_xor_si256(x, _mm256_srli_epi32(x, 1));
  x = _mm256_permutevar8x32_epi32(x, _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7));
  return static_cast<uint32_t>(_mm256_movemask_ps(_mm256_castsi256_ps(_mm256_slli_epi32(x, 31))));
}
template <uint32_t C>
[[gnu::always_inline]] inline uint64_t SolutionBitsAvx2(CoeffRow cr, const QueryPlace& p, const uint8_t* data) {
  if constexpr (C == 0) {
    return 0;
  } else {
    const uint8_t* left = data + size_t{p.segment} * 16;
    // A block-aligned start reads only its own block: the next block's row
    // is zero, and its loads go to the start block again (always in the
    // data), which keeps the kernel free of a branch.
    const bool aligned = p.start_bit == 0;
    const uint8_t* next = aligned ? left : left + size_t{p.num_columns} * 16;
    const ShiftedRows rows = ShiftRow(cr, p.start_bit);
    const __m256i vl = rows.start, vn = rows.next;
    uint64_t got = 0;
    for (uint32_t g = 0; 8 * g < C; ++g) {
      got |= uint64_t{ParityOfEightColumns(
                 MaskedPair<C>(left, next, vl, vn, 4 * g), MaskedPair<C>(left, next, vl, vn, 4 * g + 1),
                 MaskedPair<C>(left, next, vl, vn, 4 * g + 2), MaskedPair<C>(left, next, vl, vn, 4 * g + 3))}
             << (8 * g);
    }
    return got;
  }
}
#endif

#ifdef FILTERLAB_RIBBON_AVX512
FILTERLAB_AVX512_WARNINGS_OFF  // GCC's false positives on its intrinsics (common/avx512_warnings.h)
// SolutionBitsScalar's bits, eight columns per step: each block's segments
// of the eight columns are two masked 64-byte loads (lanes past the c
// columns, and the whole next block when start_bit is 0, masked off, so
// nothing beyond the query's bytes is read); one AND and one ternary
// AND-XOR combine them with the row broadcast to every 128-bit lane; a
// byte shift and XOR fold each column's two 64-bit halves; one permute
// gathers the eight folded words, one VPOPCNTQ and a test of bit 0 give
// the eight bits: 23 vector and mask instructions in the compiled query
// (with the row's broadcasts) for up to eight columns, against ~13 a
// column for the scalar twin; its loads all issue at once, so a cold
// query's lines are requested together without prefetches. On this
// project's Sapphire Rapids machine it is faster both hot and cold
// (filters/ribbon/ribbon_policy.cc gives the figures); an earlier
// four-column kernel was slower hot on AMD's EPYC, where 512-bit operations
// take two passes.
inline uint64_t SolutionBitsAvx512(CoeffRow cr, const QueryPlace& p, const uint8_t* data) {
  const uint8_t* left = data + size_t{p.segment} * 16;
  const uint32_t c = p.num_columns;
  const uint8_t* next = left + size_t{c} * 16;
  const CoeffRow cl = cr << p.start_bit;
  const CoeffRow cn = p.start_bit == 0 ? 0 : cr >> (kCoeffBits - p.start_bit);
  const __m512i vl = _mm512_broadcast_i64x2(
      _mm_set_epi64x(static_cast<long long>(cl >> 64), static_cast<long long>(static_cast<uint64_t>(cl))));
  const __m512i vn = _mm512_broadcast_i64x2(
      _mm_set_epi64x(static_cast<long long>(cn >> 64), static_cast<long long>(static_cast<uint64_t>(cn))));
  const __m512i even = _mm512_set_epi64(14, 12, 10, 8, 6, 4, 2, 0);
  const __m512i one = _mm512_set1_epi64(1);
  const uint32_t next_mask = p.start_bit == 0 ? 0 : 0xffff;
  uint64_t got = 0;
  for (uint32_t g = 0; 8 * g < c; ++g) {
    const uint32_t qwords = 2 * (c - 8 * g < 8 ? c - 8 * g : 8);
    const uint32_t m = (1u << qwords) - 1, mn = m & next_mask;
    const uint8_t* l = left + 128 * size_t{g};
    const uint8_t* n = next + 128 * size_t{g};
    const __m512i x0 =
        _mm512_ternarylogic_epi64(_mm512_maskz_loadu_epi64(static_cast<__mmask8>(m), l), vl,
                                  _mm512_and_si512(_mm512_maskz_loadu_epi64(static_cast<__mmask8>(mn), n), vn), 0x6a);
    const __m512i x1 = _mm512_ternarylogic_epi64(
        _mm512_maskz_loadu_epi64(static_cast<__mmask8>(m >> 8), l + 64), vl,
        _mm512_and_si512(_mm512_maskz_loadu_epi64(static_cast<__mmask8>(mn >> 8), n + 64), vn), 0x6a);
    const __m512i f0 = _mm512_xor_si512(x0, _mm512_bsrli_epi128(x0, 8));
    const __m512i f1 = _mm512_xor_si512(x1, _mm512_bsrli_epi128(x1, 8));
    const __m512i folded = _mm512_permutex2var_epi64(f0, even, f1);
    got |= uint64_t{_mm512_test_epi64_mask(_mm512_popcnt_epi64(folded), one)} << (8 * g);
  }
  return got;
}
FILTERLAB_AVX512_WARNINGS_ON
#endif

// The query kernel of a filter with C columns: SolutionBitsAvx512 where the
// compiler targets AVX-512 (it reads p.num_columns per block with masked
// loads, whatever C), SolutionBitsAvx2<C> where it targets AVX2,
// SolutionBitsScalar<C> otherwise.
template <uint32_t C>
[[gnu::always_inline]] inline uint64_t SolutionBits(CoeffRow cr, const QueryPlace& p, const uint8_t* data) {
#ifdef FILTERLAB_RIBBON_AVX512
  return SolutionBitsAvx512(cr, p, data);
#elif defined(FILTERLAB_RIBBON_AVX2)
  return SolutionBitsAvx2<C>(cr, p, data);
#else
  return SolutionBitsScalar<C>(cr, p, data);
#endif
}

// Whether the query kernel's loads are vector loads that issue together
// (AVX-512, AVX2), so that a cold query's lines are requested at once
// without a prefetch before it; the scalar kernel's 64-bit loads are many
// and the compiler interleaves them with the computation, so it prefetches.
#if defined(FILTERLAB_RIBBON_AVX512) || defined(FILTERLAB_RIBBON_AVX2)
inline constexpr bool kQueryLoadsIssueTogether = true;
#else
inline constexpr bool kQueryLoadsIssueTogether = false;
#endif

inline uint64_t ColumnMask(const QueryPlace& p) { return (uint64_t{1} << p.num_columns) - 1; }  // <= 32 columns

// Standard Ribbon: the computed bits must equal the key's result bits.
template <uint32_t C>
[[gnu::always_inline]] inline bool QueryAt(uint64_t h, const QueryPlace& p, const uint8_t* data) {
  return ((SolutionBits<C>(CoeffRowOf(h), p, data) ^ ResultRowOf(h)) & ColumnMask(p)) == 0;
}

// Homogeneous Ribbon: every key's equations have right-hand side 0.
template <uint32_t C>
[[gnu::always_inline]] inline bool HomogeneousQueryAt(uint64_t h, const QueryPlace& p, const uint8_t* data) {
  return (SolutionBits<C>(CoeffRowOf(h), p, data) & ColumnMask(p)) == 0;
}

}  // namespace filterlab::ribbon
