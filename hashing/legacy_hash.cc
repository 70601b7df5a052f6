// LegacyHash32Batch (legacy_hash.h): the legacy hash of many keys at once.
#include "hashing/legacy_hash.h"

#include <cstdint>

#if defined(__AVX512F__) && defined(__AVX512BW__) && defined(__AVX512VL__) && !defined(FILTERLAB_FORCE_SCALAR)
#define FILTERLAB_LEGACY_HASH_AVX512 1
#include "common/avx512_warnings.h"
#endif
#if defined(__AVX2__) && !defined(FILTERLAB_FORCE_SCALAR)
#define FILTERLAB_LEGACY_HASH_AVX2 1
#endif
#if defined(FILTERLAB_LEGACY_HASH_AVX512) || defined(FILTERLAB_LEGACY_HASH_AVX2)
#include <immintrin.h>
#endif

namespace filterlab {

namespace {
// Keys longer than this go to the scalar loop (their length times the
// multiplier is taken mod 2^32 there; the lanes hold 32-bit lengths).
[[maybe_unused]] constexpr size_t kMaxLaneKeyBytes = size_t{1} << 30;
}  // namespace

#ifdef FILTERLAB_LEGACY_HASH_AVX512
namespace {

FILTERLAB_AVX512_WARNINGS_OFF  // GCC's false positives on its intrinsics (common/avx512_warnings.h)

// Hashes keys[0..15] into out[0..15], lane i = key i. The keys' bytes come
// in 32-byte chunks: one masked byte load per key (the mask stops at the
// key's end, so nothing outside a key is read, and bytes past its end load
// as zero), then an 8x8 dword transpose of each half of 16 rows, giving one
// register per word position with key i's word in lane i. Each word position
// g is then one round for every lane at once: lanes with a whole word at g
// do h = (h + w) * m, h ^= h >> 16; lanes whose 1..3 tail bytes sit at g add
// their sign-extended sum (the zero-padded tail word t minus 2^(8j+8) for
// each byte j with its top bit set: t - ((t & 0x808080) << 1)), multiply and
// shift by 24; other lanes are masked off. Word positions below the
// shortest key's whole-word count are full in every lane, so they skip the
// masks: add, multiply, shift-xor (4 instructions instead of ~12); keys of
// near-equal length (filter_bench's: 24..28 bytes, equal over runs of 32)
// then take the masked round only for the last word or two. Returns false
// (nothing written) when a key is too long for the lanes.
bool Hash16(const Slice* keys, uint32_t seed, uint64_t* out) {
  alignas(64) uint32_t lens[16];
  size_t max_len = 0, min_len = kMaxLaneKeyBytes;
  for (int i = 0; i < 16; ++i) {
    const size_t len = keys[i].size();
    if (len >= kMaxLaneKeyBytes) return false;
    lens[i] = static_cast<uint32_t>(len);
    max_len = len > max_len ? len : max_len;
    min_len = len < min_len ? len : min_len;
  }
  const __m512i m = _mm512_set1_epi32(static_cast<int>(kLegacyHashMul));
  const __m512i len = _mm512_load_si512(lens);
  __m512i h = _mm512_xor_si512(_mm512_set1_epi32(static_cast<int>(seed)), _mm512_mullo_epi32(len, m));
  const __m512i full_words = _mm512_srli_epi32(len, 2);
  const __mmask16 has_tail = _mm512_test_epi32_mask(len, _mm512_set1_epi32(3));
  const __m512i sign_bits = _mm512_set1_epi32(0x808080);
  const __m512i shift_full = _mm512_set1_epi32(16), shift_tail = _mm512_set1_epi32(24);
  // Transpose steps: word j of keys 0..15 from u_j and u_{j+4} (below).
  const __m512i low_lanes = _mm512_setr_epi64(0, 1, 8, 9, 4, 5, 12, 13);
  const __m512i high_lanes = _mm512_setr_epi64(2, 3, 10, 11, 6, 7, 14, 15);
  const size_t max_words = (max_len + 3) / 4;
  const size_t words_in_every_lane = min_len / 4;
  for (size_t chunk = 0; chunk * 32 < max_len; ++chunk) {
    const size_t start = chunk * 32;
    // Row i: key i's 8 words in dwords 0..7, key i + 8's in 8..15.
    __m512i r[8];
    for (int i = 0; i < 8; ++i) {
      __m256i half[2];
      for (int k = 0; k < 2; ++k) {
        const Slice& key = keys[i + 8 * k];
        const size_t left = key.size() > start ? key.size() - start : 0;
        const __mmask32 mask = left >= 32 ? ~__mmask32{0} : static_cast<__mmask32>((uint32_t{1} << left) - 1);
        half[k] = _mm256_maskz_loadu_epi8(mask, left > 0 ? key.data() + start : key.data());
      }
      r[i] = _mm512_inserti64x4(_mm512_castsi256_si512(half[0]), half[1], 1);
    }
    // Per 256-bit half, the 8x8 transpose of AVX2 (unpack dwords, unpack
    // qwords); u_j then holds word j of rows 0-3 in its 128-bit lane 0 and
    // word j + 4 in lane 1 (keys 8-11: lanes 2, 3), u_{j+4} the same of rows
    // 4-7, and one two-source qword permute puts keys 0..15 in order.
    __m512i t[8], u[8], w[8];
    for (int i = 0; i < 4; ++i) {
      t[2 * i] = _mm512_unpacklo_epi32(r[2 * i], r[2 * i + 1]);
      t[2 * i + 1] = _mm512_unpackhi_epi32(r[2 * i], r[2 * i + 1]);
    }
    for (int q = 0; q < 2; ++q) {
      const int b = 4 * q;
      u[b + 0] = _mm512_unpacklo_epi64(t[b + 0], t[b + 2]);
      u[b + 1] = _mm512_unpackhi_epi64(t[b + 0], t[b + 2]);
      u[b + 2] = _mm512_unpacklo_epi64(t[b + 1], t[b + 3]);
      u[b + 3] = _mm512_unpackhi_epi64(t[b + 1], t[b + 3]);
    }
    for (int j = 0; j < 4; ++j) {
      w[j] = _mm512_permutex2var_epi64(u[j], low_lanes, u[j + 4]);
      w[j + 4] = _mm512_permutex2var_epi64(u[j], high_lanes, u[j + 4]);
    }
    size_t j = 0;
    for (; j < 8 && 8 * chunk + j < words_in_every_lane; ++j) {
      h = _mm512_mullo_epi32(_mm512_add_epi32(h, w[j]), m);
      h = _mm512_xor_si512(h, _mm512_srli_epi32(h, 16));
    }
    for (; j < 8 && 8 * chunk + j < max_words; ++j) {
      const __m512i g = _mm512_set1_epi32(static_cast<int>(8 * chunk + j));
      const __mmask16 full = _mm512_cmpgt_epu32_mask(full_words, g);
      const __mmask16 tail = has_tail & _mm512_cmpeq_epi32_mask(full_words, g);
      const __mmask16 active = full | tail;
      const __m512i word =
          _mm512_mask_sub_epi32(w[j], tail, w[j], _mm512_slli_epi32(_mm512_and_si512(w[j], sign_bits), 1));
      h = _mm512_mask_add_epi32(h, active, h, word);
      h = _mm512_mask_mullo_epi32(h, active, h, m);
      const __m512i shift = _mm512_mask_blend_epi32(tail, shift_full, shift_tail);
      h = _mm512_mask_xor_epi32(h, active, h, _mm512_srlv_epi32(h, shift));
    }
  }
  _mm512_storeu_si512(out, _mm512_cvtepu32_epi64(_mm512_castsi512_si256(h)));
  _mm512_storeu_si512(out + 8, _mm512_cvtepu32_epi64(_mm512_extracti64x4_epi64(h, 1)));
  return true;
}

FILTERLAB_AVX512_WARNINGS_ON

}  // namespace
#endif

#ifdef FILTERLAB_LEGACY_HASH_AVX2
// LoadRow's loads past a key's end (within its page) are what the
// sanitizers report, so their builds take the masked loads only; the page
// edge cases are hash_test.cc's (keys ending where an unreadable page starts).
#if defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer) || __has_feature(memory_sanitizer)
#define FILTERLAB_LEGACY_HASH_NO_PAGE_LOADS 1
#endif
#endif
#if !defined(__SANITIZE_ADDRESS__) && !defined(__SANITIZE_THREAD__) && !defined(FILTERLAB_SANITIZED) && \
    !defined(FILTERLAB_LEGACY_HASH_NO_PAGE_LOADS)
#define FILTERLAB_LEGACY_HASH_PAGE_LOADS 1
#endif
namespace {

#ifdef FILTERLAB_LEGACY_HASH_PAGE_LOADS
constexpr uintptr_t kPageBytes = 4096;
// 32 bytes of 0xff, then 32 of zero: the 32 bytes at kLowBytes + 32 - n keep
// the low n bytes of a vector.
alignas(64) constexpr uint8_t kLowBytes[64] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
                                               0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
                                               0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff};
#endif

// Bytes start.. of a key, up to 32 of them, zero past its end (row i of
// HashGroups' transpose). AVX2 has no byte-masked load: where a 32-byte load
// from the first byte cannot leave its 4 KiB page (so cannot fault) the
// bytes past the key are masked off after it; else the whole dwords come by
// a dword-masked load (masked-off dwords are neither read nor able to
// fault) and the 1..3 tail bytes one by one, in the dword after them.
inline __m256i LoadRow(const Slice& key, size_t start) {
  const size_t left = key.size() > start ? key.size() - start : 0;
  if (left >= 32) return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(key.data() + start));
  const char* at = left > 0 ? key.data() + start : key.data();
#ifdef FILTERLAB_LEGACY_HASH_PAGE_LOADS
  if (left > 0 && (reinterpret_cast<uintptr_t>(at) & (kPageBytes - 1)) <= kPageBytes - 32) {
    return _mm256_and_si256(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(at)),
                            _mm256_loadu_si256(reinterpret_cast<const __m256i*>(kLowBytes + 32 - left)));
  }
#endif
  const __m256i lane = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
  const int whole = static_cast<int>(left / 4);
  __m256i row =
      _mm256_maskload_epi32(reinterpret_cast<const int*>(at), _mm256_cmpgt_epi32(_mm256_set1_epi32(whole), lane));
  if (left % 4 != 0) {
    const auto* tail = reinterpret_cast<const uint8_t*>(at) + 4 * whole;
    uint32_t t = tail[0];
    if (left % 4 > 1) t |= uint32_t{tail[1]} << 8;
    if (left % 4 > 2) t |= uint32_t{tail[2]} << 16;
    const __m256i in_lane = _mm256_cmpeq_epi32(lane, _mm256_set1_epi32(whole));
    row = _mm256_or_si256(row, _mm256_and_si256(in_lane, _mm256_set1_epi32(static_cast<int>(t))));
  }
  return row;
}

// The 8x8 dword transpose of rows r (key i's words in row i) into w (word j
// of keys 0..7 in w_j): t pairs the dwords of rows 2k, 2k+1; u_j (j < 4)
// holds word j of rows 0-3 in its low half and word j + 4 in its high half,
// u_{j+4} the same of rows 4-7; w_j takes the low halves of u_j and u_{j+4},
// w_{j+4} the high ones.
inline void Transpose8x8(const __m256i* r, __m256i* w) {
  __m256i t[8], u[8];
  for (int i = 0; i < 4; ++i) {
    t[2 * i] = _mm256_unpacklo_epi32(r[2 * i], r[2 * i + 1]);
    t[2 * i + 1] = _mm256_unpackhi_epi32(r[2 * i], r[2 * i + 1]);
  }
  for (int q = 0; q < 2; ++q) {
    const int b = 4 * q;
    u[b + 0] = _mm256_unpacklo_epi64(t[b + 0], t[b + 2]);
    u[b + 1] = _mm256_unpackhi_epi64(t[b + 0], t[b + 2]);
    u[b + 2] = _mm256_unpacklo_epi64(t[b + 1], t[b + 3]);
    u[b + 3] = _mm256_unpackhi_epi64(t[b + 1], t[b + 3]);
  }
  for (int j = 0; j < 4; ++j) {
    w[j] = _mm256_permute2x128_si256(u[j], u[j + 4], 0x20);
    w[j + 4] = _mm256_permute2x128_si256(u[j], u[j + 4], 0x31);
  }
}

// Hash16's method on AVX2's 8 lanes (cores without AVX-512), for keys[0..8
// kGroups), key 8g + i in lane i of group g. A key is a chain of one round
// per word, and one group's rounds are a single dependent chain (~6 cycles a
// word); kGroups > 1 runs that many independent chains side by side.
// Returns false (nothing written) when a key is too long for the lanes.
template <int kGroups>
bool HashGroups(const Slice* keys, uint32_t seed, uint64_t* out) {
  constexpr int kKeys = 8 * kGroups;
  size_t max_len = 0, min_len = kMaxLaneKeyBytes;
  for (int i = 0; i < kKeys; ++i) {
    const size_t len = keys[i].size();
    if (len >= kMaxLaneKeyBytes) return false;
    max_len = len > max_len ? len : max_len;
    min_len = len < min_len ? len : min_len;
  }
  const __m256i m = _mm256_set1_epi32(static_cast<int>(kLegacyHashMul));
  const __m256i sign_bits = _mm256_set1_epi32(0x808080);
  const __m256i shift_full = _mm256_set1_epi32(16), shift_tail = _mm256_set1_epi32(24);
  __m256i h[kGroups], full_words[kGroups], has_tail[kGroups];
  for (int g = 0; g < kGroups; ++g) {
    // The lengths go to their lanes from registers: stored as eight dwords
    // and read back as one vector, they would wait for the stores to retire
    // (a load wider than the stores it reads is not forwarded).
    auto lane_len = [&](int i) { return static_cast<int>(keys[8 * g + i].size()); };
    const __m256i len = _mm256_setr_epi32(lane_len(0), lane_len(1), lane_len(2), lane_len(3), lane_len(4), lane_len(5),
                                          lane_len(6), lane_len(7));
    h[g] = _mm256_xor_si256(_mm256_set1_epi32(static_cast<int>(seed)), _mm256_mullo_epi32(len, m));
    full_words[g] = _mm256_srli_epi32(len, 2);
    has_tail[g] = _mm256_xor_si256(
        _mm256_cmpeq_epi32(_mm256_and_si256(len, _mm256_set1_epi32(3)), _mm256_setzero_si256()), _mm256_set1_epi32(-1));
  }
  const size_t max_words = (max_len + 3) / 4;
  const size_t words_in_every_lane = min_len / 4;
  for (size_t chunk = 0; chunk * 32 < max_len; ++chunk) {
    __m256i w[kGroups][8];
    for (int g = 0; g < kGroups; ++g) {
      __m256i r[8];
      for (int i = 0; i < 8; ++i) r[i] = LoadRow(keys[8 * g + i], chunk * 32);
      Transpose8x8(r, w[g]);
    }
    size_t j = 0;
    for (; j < 8 && 8 * chunk + j < words_in_every_lane; ++j) {
      for (int g = 0; g < kGroups; ++g) {
        h[g] = _mm256_mullo_epi32(_mm256_add_epi32(h[g], w[g][j]), m);
        h[g] = _mm256_xor_si256(h[g], _mm256_srli_epi32(h[g], 16));
      }
    }
    for (; j < 8 && 8 * chunk + j < max_words; ++j) {
      const __m256i word_index = _mm256_set1_epi32(static_cast<int>(8 * chunk + j));
      for (int g = 0; g < kGroups; ++g) {
        const __m256i full = _mm256_cmpgt_epi32(full_words[g], word_index);  // signed: lengths < 2^30
        const __m256i tail = _mm256_and_si256(has_tail[g], _mm256_cmpeq_epi32(full_words[g], word_index));
        const __m256i active = _mm256_or_si256(full, tail);
        const __m256i v = w[g][j];
        const __m256i signed_tail = _mm256_sub_epi32(v, _mm256_slli_epi32(_mm256_and_si256(v, sign_bits), 1));
        const __m256i word = _mm256_blendv_epi8(v, signed_tail, tail);
        __m256i next = _mm256_mullo_epi32(_mm256_add_epi32(h[g], word), m);
        next = _mm256_xor_si256(next, _mm256_srlv_epi32(next, _mm256_blendv_epi8(shift_full, shift_tail, tail)));
        h[g] = _mm256_blendv_epi8(h[g], next, active);
      }
    }
  }
  for (int g = 0; g < kGroups; ++g) {
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + 8 * g), _mm256_cvtepu32_epi64(_mm256_castsi256_si128(h[g])));
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + 8 * g + 4),
                        _mm256_cvtepu32_epi64(_mm256_extracti128_si256(h[g], 1)));
  }
  return true;
}

}  // namespace
#endif

bool LegacyHashKernelAvailable(LegacyHashKernel kernel) {
  switch (kernel) {
    case LegacyHashKernel::kScalar: return true;
#ifdef FILTERLAB_LEGACY_HASH_AVX2
    case LegacyHashKernel::kAvx2: return true;
#endif
#ifdef FILTERLAB_LEGACY_HASH_AVX512
    case LegacyHashKernel::kAvx512: return true;
#endif
    default: return false;
  }
}

void LegacyHash32BatchWith(LegacyHashKernel kernel, const Slice* keys, size_t n, uint32_t seed, uint64_t* out) {
  size_t i = 0;
  switch (kernel) {
#ifdef FILTERLAB_LEGACY_HASH_AVX512
    case LegacyHashKernel::kAvx512:
      for (; i + 16 <= n; i += 16) {
        if (!Hash16(keys + i, seed, out + i)) break;
      }
      break;
#endif
#ifdef FILTERLAB_LEGACY_HASH_AVX2
    case LegacyHashKernel::kAvx2:
      for (; i + 32 <= n; i += 32) {
        if (!HashGroups<4>(keys + i, seed, out + i)) break;
      }
      for (; i + 8 <= n; i += 8) {
        if (!HashGroups<1>(keys + i, seed, out + i)) break;
      }
      break;
#endif
    default: break;  // kScalar, or a kernel this build lacks: the scalar loop answers alike
  }
  for (; i < n; ++i) out[i] = LegacyHash32(keys[i].data(), keys[i].size(), seed);
}

void LegacyHash32Batch(const Slice* keys, size_t n, uint32_t seed, uint64_t* out) {
#if defined(FILTERLAB_LEGACY_HASH_AVX512)
  LegacyHash32BatchWith(LegacyHashKernel::kAvx512, keys, n, seed, out);
#elif defined(FILTERLAB_LEGACY_HASH_AVX2)
  LegacyHash32BatchWith(LegacyHashKernel::kAvx2, keys, n, seed, out);
#else
  LegacyHash32BatchWith(LegacyHashKernel::kScalar, keys, n, seed, out);
#endif
}

}  // namespace filterlab
