// RocksDB's two pre-2020 Bloom filters, bit-exact, both fed a 32-bit hash
// (BloomHash32) (RocksDB's LegacyLocalityBloomImpl, util/bloom_impl.h). Variants "legacy"
// (legacy_bloom.cc) and "legacy_block" (legacy_block_bloom.cc).
//
// Both use double hashing from one 32-bit h: delta = rotr32(h, 17), probe i
// at h + i*delta, and k = ChooseNumProbes(whole bits/key) = floor(0.69 b)
// clamped to 1..30 (0.69 ~ ln 2, the non-local optimum, rounded down).
//
// legacy (format_version 2..4 full filter, LegacyLocalityBloomImpl): an odd
// number of 64-byte lines; line = h mod lines (odd so that the modulus mixes
// in more than the low bits), probe i sets bit (h + i*delta) & 511 of the
// line. One cache miss per query, but flawed: the in-line positions are the
// low 9 bits of an arithmetic progression, so when delta mod 512 has 2-adic
// valuation j only 512/2^j distinct bits are reachable (with probability 1/512
// all probes hit one bit), and the line choice and the probes come from the
// same 32 bits. RocksDB's own estimate for it
// (fpmodel::LegacyLocalityEstimatedFpRate) is the two-point line model plus an
// empirical penalty 0.1/(0.75 b + 22) for the probe deltas, a fitted average
// that sits 1-11% above the measured rate (1.314% vs 1.166% at 10 bits/key).
// ModelFpRate instead derives the layout: fpmodel::LegacyLineFpRate sums
// exactly over the 2^18 in-line patterns (start, step) and the query's step
// class (its 2-adic valuation decides how many distinct bits it has), for a
// Poisson line load, corrected for the lattice the members h = r + jL of a
// line form: no stored key repeats the query's own pattern more often than
// that lattice allows (fp_model_pattern_cover.cc). It is evaluated for the D
// = DistinctHashes(n, 32) distinct hashes and combined with their matches by
// fpmodel::NarrowHashFpRate: F + (1 - F) * layout, F = D / 2^32. An
// approximation up to 20 probes (stated error 0.4%: measured / model
// 1.00019, 1.00399, 0.99947, 0.99997 at 6, 10, 16, 24 bits/key over 400
// filters of 10^6 keys, 10^9 queries per point; the lattice's patterns near
// the query's are taken at the average density), above 20 an upper bound
// (only the query's first 20 bits are asked). Earlier, 4 filters of 10^6
// keys, 4*10^7 queries: 0.999, 1.010, 1.002, 0.999, 0.993, 0.997 at 6, 8,
// 10, 12, 16, 24 bits/key (RocksDB's estimate, 10^8 queries: 0.958 at 6, 0.890 at 10,
// 0.922 at 16, 0.989 at 24). Measured ~1.17% at 10 bits/key (vs ~0.96% for
// FastLocalBloom), flooring near 0.2% however many bits are spent: the
// 1/512 of queries with step 0 probe one bit, and even steps fewer bits.
// Serialized as data + [probes][LE32 lines] (5 bytes). The reader adapts to
// lines of any power-of-two size (filters built where the cache line is 128
// or 256 bytes); filterlab itself always builds 64-byte lines (x86-64's).
//
// ExtraRotates (PlainTable's locality Bloom, §2.2): line = rotr32(h, 11) mod
// lines and h is rotated right by 9 before each delta step, so successive
// probes use different hash bits. Only the probe functions exist here (the
// vectors check them); PlainTable's filter is not a separate variant.
//
// legacy_block (the block-based filter removed in RocksDB 7.0,
// LegacyNoLocalityBloomImpl): one bit array of max(64, n*b) bits rounded up to
// whole bytes, probe i at (h + i*delta) mod 2^32 mod total_bits: k cache
// misses per query. Its probes are far from independent. Writing
// h = A*2^17 + B (A < 2^15, B < 2^17), delta = A + B*2^15, so probe i is
// A*(2^17 + i) + B*(1 + i*2^15) mod 2^32, and for i = 2 that is exactly
// s*65537 mod 2^32 with s = 2A + B: probe #2 of every key lands on one of
// fewer than 2^17.6 bits, with a trapezoidal weight over s. FP model
// (ModelFpRate, NoLocalityFpRate): probes other than #2 uniform, probe #2
// with that exact distribution, bits set independently,
//   FP = fill_uniform^(k-1) * fill_at_probe2   (k >= 3; standard Bloom below)
// for the distinct 32-bit hashes, plus their matches (NarrowHashFpRate, as
// for legacy). It is still optimistic once
// total_bits exceeds ~2^18, where the reachable probe-#2 bits are a small
// part of the array and the other probes are also correlated (lattice
// structure of A, B): measured at 10 bits/key (2*10^6 queries), model vs
// measured 0.872% vs 0.904% (10^4 keys), 1.113% vs 1.448% (10^5), 1.093% vs
// 1.290% (10^6), 1.188% vs 1.244% (10^7); the ideal standard-Bloom rate
// would be 0.85%. RocksDB used it only for per-2 KiB-block filters of a few
// dozen keys, where the flaw hardly shows.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>

#include "common/slice.h"
#include "filters/filter.h"
#include "hashing/remix.h"

namespace filterlab::legacy {

inline constexpr int kMaxProbes = 30;
// The line size filterlab builds (RocksDB's CACHE_LINE_SIZE on x86-64).
inline constexpr int kLog2LineBytes = 6;
// RocksDB caps a legacy full filter at this many bits (then rounds to odd lines).
inline constexpr uint64_t kMaxTotalBits = 0xffff0000;
// The largest line a reader accepts: 2^29 bytes keeps 8 * line_bytes - 1 within 32 bits.
inline constexpr int kMaxLog2LineBytes = 29;
inline constexpr size_t kTrailerBytes = 5;

// LegacyNoLocalityBloomImpl::ChooseNumProbes: floor(b * 0.69) in 1..30. The
// product is taken in double on purpose, as RocksDB does (100 * 0.69 < 69).
inline int ChooseNumProbes(int whole_bits_per_key) {
  const int k = static_cast<int>(whole_bits_per_key * 0.69);
  return k < 1 ? 1 : (k > kMaxProbes ? kMaxProbes : k);
}

// Number of 64-byte lines for n keys at b whole bits/key: ceil(n*b / 512),
// capped, made odd. n >= 1.
inline uint32_t NumLinesForKeys(uint64_t num_keys, int whole_bits_per_key) {
  const uint64_t b = static_cast<uint64_t>(whole_bits_per_key);
  const uint64_t total_bits = num_keys > kMaxTotalBits / b ? kMaxTotalBits : num_keys * b;
  const uint64_t line_bits = uint64_t{8} << kLog2LineBytes;
  uint64_t lines = (total_bits + line_bits - 1) / line_bits;
  if (lines % 2 == 0) ++lines;
  return static_cast<uint32_t>(lines);
}

// Byte offset of h's line. ExtraRotates = PlainTable form.
template <bool kExtraRotates>
inline size_t LineOffset(uint32_t h, uint32_t num_lines, int log2_line_bytes) {
  const uint32_t line = (kExtraRotates ? RotateRight32(h, 11) : h) % num_lines;
  return static_cast<size_t>(line) << log2_line_bytes;
}

inline void PrefetchLine(const uint8_t* line, int log2_line_bytes) {
  __builtin_prefetch(line, 0, 3);
  __builtin_prefetch(line + ((size_t{1} << log2_line_bytes) - 1), 0, 3);
}

// Calls bit_fn(bit) for each probe's bit offset inside h's line, in probe
// order, until it returns false; returns whether every call returned true.
// The one copy of the in-line probe sequence (adds, queries, and the atomic
// accesses of "dynamic_old", the old DynamicBloom).
template <bool kExtraRotates, class BitFn>
inline bool ForEachLineProbe(uint32_t h, int num_probes, int log2_line_bytes, BitFn&& bit_fn) {
  const uint32_t bit_mask = static_cast<uint32_t>((uint64_t{8} << log2_line_bytes) - 1);
  const uint32_t delta = RotateRight32(h, 17);
  for (int i = 0; i < num_probes; ++i) {
    if (!bit_fn(h & bit_mask)) return false;
    if (kExtraRotates) h = RotateRight32(h, log2_line_bytes + 3);
    h += delta;
  }
  return true;
}

template <bool kExtraRotates>
inline void AddToLine(uint32_t h, int num_probes, int log2_line_bytes, uint8_t* line) {
  ForEachLineProbe<kExtraRotates>(h, num_probes, log2_line_bytes, [line](uint32_t bit) {
    line[bit >> 3] |= static_cast<uint8_t>(1u << (bit & 7));
    return true;
  });
}

template <bool kExtraRotates>
inline bool MayMatchLine(uint32_t h, int num_probes, int log2_line_bytes, const uint8_t* line) {
  return ForEachLineProbe<kExtraRotates>(h, num_probes, log2_line_bytes,
                                         [line](uint32_t bit) { return ((line[bit >> 3] >> (bit & 7)) & 1) != 0; });
}

// The non-local form (legacy_block, and the old DynamicBloom without
// locality): bit_fn(bit) for each probe's bit of the whole array, as above.
// total_bits >= 1.
template <class BitFn>
inline bool ForEachNoLocalityProbe(uint32_t h, uint32_t total_bits, int num_probes, BitFn&& bit_fn) {
  const uint32_t delta = RotateRight32(h, 17);
  for (int i = 0; i < num_probes; ++i) {
    if (!bit_fn(h % total_bits)) return false;
    h += delta;
  }
  return true;
}

inline void NoLocalityAdd(uint32_t h, uint32_t total_bits, int num_probes, uint8_t* data) {
  ForEachNoLocalityProbe(h, total_bits, num_probes, [data](uint32_t bit) {
    data[bit >> 3] |= static_cast<uint8_t>(1u << (bit & 7));
    return true;
  });
}

inline bool NoLocalityMayMatch(uint32_t h, uint32_t total_bits, int num_probes, const uint8_t* data) {
  return ForEachNoLocalityProbe(h, total_bits, num_probes,
                                [data](uint32_t bit) { return ((data[bit >> 3] >> (bit & 7)) & 1) != 0; });
}

// Adds the low 32 bits of each hash to a legacy full filter of num_lines
// 64-byte lines (data zeroed, num_lines * 64 bytes).
void AddAll(const uint64_t* hashes, size_t n, uint32_t num_lines, int num_probes, uint8_t* data);

// A legacy full filter over `data` (num_lines lines of 2^log2_line_bytes bytes)
// owned by the caller, who keeps it alive.
std::unique_ptr<Filter> NewLegacyBloomView(Slice data, uint32_t num_lines, int num_probes, int log2_line_bytes);

// The bit count legacy_block uses for n keys: max(64, n*b) rounded up to whole
// bytes. Fails (returns 0) when that exceeds the format's 32-bit bit count.
uint32_t BlockFilterBitsForKeys(uint64_t num_keys, int whole_bits_per_key);

// The legacy_block FP model (see the top of this file) for `keys` keys in
// total_bits bits, without the matches of equal 32-bit hashes.
double NoLocalityFpRate(double keys, uint32_t total_bits, int num_probes);

// Adds the low 32 bits of each hash to a legacy_block bit array of total_bits
// (a multiple of 8; data zeroed, total_bits / 8 bytes).
void NoLocalityAddAll(const uint64_t* hashes, size_t n, uint32_t total_bits, int num_probes, uint8_t* data);

// A legacy_block filter over `data` (total_bits / 8 bytes) owned by the caller.
std::unique_ptr<Filter> NewLegacyBlockBloomView(Slice data, uint32_t total_bits, int num_probes);

}  // namespace filterlab::legacy
