// The AVX-512 query path of FastLocalBloom: the same answer as
// fastlocal::MayMatchLineScalar (fast_local_bloom_test.cc checks every probe
// count 1..30 on unaligned lines) in fewer instructions than the AVX2 path.
// Compiled when the compiler targets AVX-512F and FILTERLAB_FORCE_SCALAR is
// not set; RocksDB has no such path (its format does not depend on it).
//
// Why it is shorter. Probe i tests bit x_i >> 23 of the 512-bit line, x_i =
// h2 * phi^i: bit (x_i >> 23) & 31 of the line's u32 word x_i >> 28. A whole
// line is one zmm register, so one vpermd with index x_i >> 28 (vpermd reads
// the low 4 bits) fetches every lane's word: no second permute and no blend
// as with two 256-bit halves. The bit is tested by rotating the word right
// by x_i >> 23 (vprorvd rotates by the count mod 32, exactly the bit index,
// so no mask is needed) and testing bit 0 of every active lane at once
// (vptestnmd under a lane mask): 16 probes per round.
#pragma once

#include <cstdint>

#if defined(__AVX512F__) && !defined(FILTERLAB_FORCE_SCALAR)
#define FILTERLAB_FASTLOCAL_AVX512 1
#include <immintrin.h>

#include "common/avx512_warnings.h"
#endif

namespace filterlab::fastlocal {

#ifdef FILTERLAB_FASTLOCAL_AVX512
inline constexpr bool kHasAvx512Path = true;

FILTERLAB_AVX512_WARNINGS_OFF  // GCC's false positives on its intrinsics (common/avx512_warnings.h)

namespace avx512_detail {
// phi^0..phi^7 mod 2^32 (phi = 0x9e3779b9), and the steps to the next round.
inline constexpr uint32_t kPhiPow[8] = {0x00000001, 0x9e3779b9, 0xe35e67b1, 0x734297e9,
                                        0x35fbe861, 0xdeb7c719, 0x0448b211, 0x3459b749};
inline constexpr uint32_t kPhiPow8 = 0xab25f4c1;
inline constexpr uint32_t kPhiPow16 = kPhiPow8 * kPhiPow8;
constexpr uint32_t PhiPower(int i) {
  uint32_t x = 1;
  for (int j = 0; j < i; ++j) x *= 0x9e3779b9u;
  return x;
}
static_assert(PhiPower(8) == kPhiPow8 && PhiPower(7) == kPhiPow[7], "phi power table");

// phi^0..phi^15, lane j holding phi^j: one round of 16 probes.
inline __m512i PhiPowers0To15() {
  return _mm512_setr_epi32(static_cast<int>(PhiPower(0)), static_cast<int>(PhiPower(1)), static_cast<int>(PhiPower(2)),
                           static_cast<int>(PhiPower(3)), static_cast<int>(PhiPower(4)), static_cast<int>(PhiPower(5)),
                           static_cast<int>(PhiPower(6)), static_cast<int>(PhiPower(7)), static_cast<int>(PhiPower(8)),
                           static_cast<int>(PhiPower(9)), static_cast<int>(PhiPower(10)),
                           static_cast<int>(PhiPower(11)), static_cast<int>(PhiPower(12)),
                           static_cast<int>(PhiPower(13)), static_cast<int>(PhiPower(14)),
                           static_cast<int>(PhiPower(15)));
}

}  // namespace avx512_detail

// Up to 8 probes with one vpmuludq instead of a vpmulld. vpmulld (16 low
// halves of 32x32 products) is 2 uops with 10 cycles of latency on recent
// Intel cores; vpmuludq (8 full 64-bit products of the low dwords of each
// qword) is 1 uop with 5. Broadcasting h2 and putting phi^j in the low dword
// of qword j, qword j's product is h2 * phi^j as 64 bits, whose low dword,
// dword lane 2j, is exactly x_j = h2 * phi^j mod 2^32. The odd dword lanes
// hold the products' high halves: they are permuted and rotated like the
// others, but never tested. `even_lanes` = EvenLanesAvx512(num_probes).
inline __mmask16 EvenLanesAvx512(int num_probes) {  // 1 <= num_probes <= 8
  return static_cast<__mmask16>(0x5555u & ((1u << (2 * num_probes)) - 1));
}
inline bool MayMatchLineAvx512Upto8(uint32_t h2, __mmask16 even_lanes, const uint8_t* line) {
  using namespace avx512_detail;
  const __m512i phi_even =
      _mm512_setr_epi64(kPhiPow[0], kPhiPow[1], kPhiPow[2], kPhiPow[3], kPhiPow[4], kPhiPow[5], kPhiPow[6], kPhiPow[7]);
  const __m512i x = _mm512_mul_epu32(_mm512_set1_epi32(static_cast<int>(h2)), phi_even);
  const __m512i words = _mm512_loadu_si512(line);
  const __m512i word = _mm512_permutexvar_epi32(_mm512_srli_epi32(x, 28), words);
  const __m512i at_bit0 = _mm512_rorv_epi32(word, _mm512_srli_epi32(x, 23));
  return _mm512_mask_testn_epi32_mask(even_lanes, at_bit0, _mm512_set1_epi32(1)) == 0;
}

// Up to 16 probes in one round: lane j tests x_j; `lanes` = (1 << num_probes) - 1.
inline __mmask16 LanesAvx512(int num_probes) {  // 1 <= num_probes <= 16
  return static_cast<__mmask16>((2u << (num_probes - 1)) - 1);
}
inline bool MayMatchLineAvx512Upto16(uint32_t h2, __mmask16 lanes, const uint8_t* line) {
  using namespace avx512_detail;
  const __m512i phi_powers = PhiPowers0To15();
  const __m512i x = _mm512_mullo_epi32(_mm512_set1_epi32(static_cast<int>(h2)), phi_powers);
  const __m512i words = _mm512_loadu_si512(line);
  const __m512i word = _mm512_permutexvar_epi32(_mm512_srli_epi32(x, 28), words);
  const __m512i at_bit0 = _mm512_rorv_epi32(word, _mm512_srli_epi32(x, 23));
  return _mm512_mask_testn_epi32_mask(lanes, at_bit0, _mm512_set1_epi32(1)) == 0;
}

// Precondition: 1 <= num_probes; `line` points at 64 readable bytes (any alignment).
inline bool MayMatchLineAvx512(uint32_t h2, int num_probes, const uint8_t* line) {
  using namespace avx512_detail;
  if (num_probes <= 8) return MayMatchLineAvx512Upto8(h2, EvenLanesAvx512(num_probes), line);
  const __m512i phi_powers = PhiPowers0To15();
  const __m512i words = _mm512_loadu_si512(line);
  const __m512i one = _mm512_set1_epi32(1);
  uint32_t h = h2;
  // Unsigned (num_probes >= 1): a shift and a mask, not a signed division.
  const unsigned probes_minus_1 = static_cast<unsigned>(num_probes) - 1;
  unsigned full_rounds = probes_minus_1 / 16;  // rounds of 16 before the last
  const auto last_round_lanes = static_cast<__mmask16>((2u << (probes_minus_1 % 16)) - 1);
  while (true) {
    const __m512i x = _mm512_mullo_epi32(_mm512_set1_epi32(static_cast<int>(h)), phi_powers);
    const __m512i word = _mm512_permutexvar_epi32(_mm512_srli_epi32(x, 28), words);
    const __m512i at_bit0 = _mm512_rorv_epi32(word, _mm512_srli_epi32(x, 23));
    if (full_rounds == 0) return _mm512_mask_testn_epi32_mask(last_round_lanes, at_bit0, one) == 0;
    if (_mm512_testn_epi32_mask(at_bit0, one) != 0) return false;
    h *= kPhiPow16;
    --full_rounds;
  }
}

FILTERLAB_AVX512_WARNINGS_ON
#else
inline constexpr bool kHasAvx512Path = false;
#endif

}  // namespace filterlab::fastlocal
