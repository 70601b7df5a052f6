// FastLocalBloom: RocksDB's format_version=5 Bloom filter, bit-exact
// (FastLocalBloomImpl, RocksDB's util/bloom_impl.h). Variant "fastlocal".
//
// Layout and why. The bit array is a run of 64-byte (512-bit) lines, one
// cache line each. A key's hash is split in two 32-bit halves: h1 picks the
// line (FastRange32(h1, lines): a multiply instead of a division), h2
// generates every probe inside it. So a query costs one cache miss whatever
// the probe count, and the probes cost a multiply each: x_0 = h2,
// x_{i+1} = x_i * phi32, probe i tests bit x_i >> 23 (the top 9 bits, 0..511).
// Multiplication only carries upwards, so the top bits of the products are
// the well-mixed ones; that is why the probe takes them and not the bottom.
//
// Hash width. hash=64 (RocksDB's, the default): h1 = low 32, h2 = high 32
// bits of XXPH3_64(key), i.e. 64 bits of key entropy. hash=32 (the 32-bit
// mode RocksDB's implementation supports but never persists): h1 = the 32-bit
// hash, h2 = h1 * phi32, so line and probes derive from the same 32 bits and a
// filter of n keys has an extra FP of ~n/2^32 from equal hashes. Serialized with
// filterlab's trailer (trailer.h) because RocksDB's has no field for it.
//
// FP model (ModelFpRate). n keys leave D = DistinctHashes(n, hash_bits)
// distinct hashes (D = n at 64 bits). The line a query hits holds a
// Poisson(512/b) number of them (b = m/D, m the bits after rounding up to
// whole lines), each setting k independent uniform bits of it (repeats
// allowed: the multiply sequence is not a permutation of bit positions), and
// a query whose hash equals a stored one (F = D/2^f) always matches, so
//   FP = F + (1 - F) * CacheLocalIdealFpRate(b, k, 512)
// (fpmodel::NarrowHashFpRate over fpmodel::CacheLocalIdealFpRate, the exact
// line mixture for ideal probes). The textbook mixture
// sum_j Pois(j; 512/b) (1-(1-1/512)^{kj})^k (CacheLocalPoissonFpRate) takes
// each query bit as set independently given the line's load, which is 0.4%,
// 0.9%, 2.2% and 4.1% low at 6, 10, 16 and 24 bits/key (k = 4, 6, 9, 12):
// exactly the excess measured over it. Measured / model (4 filters of 10^6
// keys, 4*10^7 queries, hash=64) at 6, 8, 10, 12, 16, 24 bits/key: 1.001,
// 0.999, 0.999, 1.002, 1.005, 1.016 (95% interval 0.974..1.059 at 24).
// RocksDB's own estimate, fpmodel::FastLocalEstimatedFpRate, is the two-point
// shortcut at b = m/n combined with FingerprintFpRate(n, f) as an independent
// event, which at 32 bits and 10^9 keys counts the 11% colliding keys twice
// (21.53% against 21.24% for NarrowHashFpRate with the textbook mixture,
// measured 21.121% +- 0.008% at 10 bits/key, 10^8 queries). The rest there
// is hash=32's own structure: a line receives only the ~220 consecutive h1
// values its FastRange32 interval holds, and their first probes h1 * phi32
// are spread like a golden-ratio sequence, so a stored and an outside hash of
// one line rarely share them (a simulation of just that gives 21.12%).
// At 10 bits/key, k = 6 and 64-bit hashes the model is 0.9663% (measured
// 0.9652% over 4*10^7 queries of four 10^6-key filters), against 0.84% for a
// non-local Bloom filter with the same k: the price of one cache miss per
// query. Kinds (experiment model_accuracy: 400 filters of 10^6 keys, 10^9
// queries at 6, 10, 16, 24 bits/key): hash=64 exact (measured / model
// 1.00009, 0.99991, 1.00009, 0.99506, every |z| <= 1.2); hash=32 an
// approximation, 1.00102 (z +8.0), 1.00081, 0.99736, 0.99752: its ~2^32/L
// consecutive h1 values of a line are one golden-ratio lattice, so the
// probes of a line's keys are not independent draws (stated error 0.3%).
//
// Sizing (BloomFilterPolicy with optimize_filters_for_memory off):
// len_bytes = roundup64(ceil(n * millibits_per_key / 8000)), k =
// ChooseNumProbes(millibits_per_key) unless the spec says otherwise.
//
// Native serialized form: data followed by ff 00 kk 00 00 (marker -1,
// sub-implementation 0, probes in bits 0..4 with block size 64 B in bits
// 5..7 as 0, two reserved zero bytes).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "common/slice.h"
#include "filters/fast_local_bloom_avx2.h"
#include "filters/fast_local_bloom_avx512.h"
#include "filters/filter.h"
#include "hashing/fastrange.h"
#include "hashing/remix.h"

namespace filterlab::fastlocal {

inline constexpr uint32_t kLineBytes = 64;
// Probe counts the trailer can carry (5 bits) and RocksDB's reader accepts.
inline constexpr int kMinProbes = 1;
inline constexpr int kMaxProbes = 30;
// RocksDB caps the data at 0xffffffc0 bytes so the length fits 32 bits
// (FastRange32 over up to 2^26 lines).
inline constexpr uint32_t kMaxDataBytes = 0xffffffc0;
inline constexpr size_t kTrailerBytes = 5;

// RocksDB's FastLocalBloomImpl::ChooseNumProbes: empirically best k for a
// 512-bit-local filter at that many thousandths of a bit per key (§1.6).
int ChooseNumProbes(int millibits_per_key);

// Bytes of bit data (a multiple of 64, without trailer) for n keys.
uint32_t DataBytesForKeys(uint64_t num_keys, int millibits_per_key);

// The two 32-bit halves a hash is used as.
struct SplitHash {
  uint32_t line_hash;   // h1: picks the line
  uint32_t probe_hash;  // h2: the probes inside it
};
inline SplitHash Split(uint64_t hash, HashWidth width) {
  const uint32_t h1 = Lower32(hash);
  return SplitHash{h1, width == HashWidth::k64 ? Upper32(hash) : h1 * kGoldenRatio32};
}

// Byte offset of the line for h1 in a filter of len_bytes (multiple of 64, > 0).
inline uint32_t LineOffset(uint32_t h1, uint32_t len_bytes) { return FastRange32(h1, len_bytes >> 6) << 6; }

// Two prefetches per line because a viewed (deserialized) filter need not be
// 64-byte aligned, so its "line" may straddle two hardware lines; callers
// that know their data is aligned use PrefetchAlignedLineForRead. Queries
// prefetch into L1 (locality 3): the line is read within the same batch.
inline void PrefetchLineForRead(const uint8_t* line) {
  __builtin_prefetch(line, 0, 3);
  __builtin_prefetch(line + 63, 0, 3);
}
inline void PrefetchAlignedLineForRead(const uint8_t* line) { __builtin_prefetch(line, 0, 3); }
inline void PrefetchLineForWrite(uint8_t* line) {
  __builtin_prefetch(line, 1, 1);
  __builtin_prefetch(line + 63, 1, 1);
}

inline void AddToLine(uint32_t h2, int num_probes, uint8_t* line) {
  uint32_t x = h2;
  for (int i = 0; i < num_probes; ++i) {
    const uint32_t bit = x >> 23;
    line[bit >> 3] |= static_cast<uint8_t>(1u << (bit & 7));
    x *= kGoldenRatio32;
  }
}

// The reference query: false at the first probed bit that is 0.
inline bool MayMatchLineScalar(uint32_t h2, int num_probes, const uint8_t* line) {
  uint32_t x = h2;
  for (int i = 0; i < num_probes; ++i) {
    const uint32_t bit = x >> 23;
    if (((line[bit >> 3] >> (bit & 7)) & 1) == 0) return false;
    x *= kGoldenRatio32;
  }
  return true;
}

// The query the filters use: AVX-512 or AVX2 when compiled in, else scalar.
inline bool MayMatchLine(uint32_t h2, int num_probes, const uint8_t* line) {
#if defined(FILTERLAB_FASTLOCAL_AVX512)
  return MayMatchLineAvx512(h2, num_probes, line);
#elif defined(FILTERLAB_FASTLOCAL_AVX2)
  return MayMatchLineAvx2(h2, num_probes, line);
#else
  return MayMatchLineScalar(h2, num_probes, line);
#endif
}

// The query with its per-filter constants worked out once, for callers that
// query one filter many times (the filter's FilterView): the kernel for the
// probe count and the AVX-512 lanes it tests, so a query spends no
// instructions on num_probes. kUpto8 / kUpto16 exist only with AVX-512.
// kScalar and kAvx2 are chosen only by the spec's kernel= (KernelChoice), so
// that one build can time the scalar loop or the AVX2 rounds beside its
// default kernel; kAvx2 exists only where AVX2 is compiled in.
enum class ProbeKernel : int { kGeneral = 0, kUpto8 = 1, kUpto16 = 2, kScalar = 3, kAvx2 = 4 };
struct ProbePlan {
  ProbeKernel kernel;
  uint16_t lanes;  // kUpto8: EvenLanesAvx512(k); kUpto16: LanesAvx512(k); else 0
};
inline ProbePlan PlanProbes(int num_probes) {
#if defined(FILTERLAB_FASTLOCAL_AVX512)
  if (num_probes <= 8) return ProbePlan{ProbeKernel::kUpto8, EvenLanesAvx512(num_probes)};
  if (num_probes <= 16) return ProbePlan{ProbeKernel::kUpto16, LanesAvx512(num_probes)};
#endif
  (void)num_probes;
  return ProbePlan{ProbeKernel::kGeneral, 0};
}
// Same answer as MayMatchLine(h2, num_probes, line) when
// plan = PlanProbes(num_probes) (kKernel = plan.kernel).
template <ProbeKernel kKernel>
inline bool MayMatchLinePlanned(uint32_t h2, int num_probes, uint16_t lanes, const uint8_t* line) {
  if constexpr (kKernel == ProbeKernel::kScalar) return MayMatchLineScalar(h2, num_probes, line);
#if defined(FILTERLAB_FASTLOCAL_AVX2)
  if constexpr (kKernel == ProbeKernel::kAvx2) return MayMatchLineAvx2(h2, num_probes, line);
#endif
#if defined(FILTERLAB_FASTLOCAL_AVX512)
  if constexpr (kKernel == ProbeKernel::kUpto8) return MayMatchLineAvx512Upto8(h2, lanes, line);
  if constexpr (kKernel == ProbeKernel::kUpto16) return MayMatchLineAvx512Upto16(h2, lanes, line);
#endif
  (void)lanes;
  return MayMatchLine(h2, num_probes, line);
}

// The spec's kernel= (default auto): which query kernel a filter's view
// runs. auto: the fastest compiled in (PlanProbes: AVX-512, else AVX2, else
// scalar); scalar: MayMatchLineScalar (an early exit at the first zero bit);
// avx2 / avx512: that kernel, an error where it is not compiled in. All give
// the same answers (fast_local_bloom_test.cc); only the time differs.
enum class KernelChoice : int { kAuto = 0, kScalar = 1, kAvx2 = 2, kAvx512 = 3 };
// The choices this build accepts, e.g. {"auto", "scalar", "avx2", "avx512"}.
std::vector<std::string> KernelChoices();
// The plan of `choice` for num_probes (kAuto and kAvx512: PlanProbes).
ProbePlan PlanProbes(int num_probes, KernelChoice choice);

// Adds n hashes into `data` (len_bytes > 0, a multiple of 64) through an
// 8-deep prefetch pipeline. Same bits as adding one by one in any order.
void AddAll(const uint64_t* hashes, size_t n, HashWidth width, uint32_t len_bytes, int num_probes, uint8_t* data);

// A filter over `data` owned by the caller (who keeps it alive), e.g. an
// opened serialized filter or a test vector's bit array. `data` may be empty
// (always false); otherwise its size is a multiple of 64, at most kMaxDataBytes.
std::unique_ptr<Filter> NewFastLocalBloomView(Slice data, int num_probes, HashWidth width);

}  // namespace filterlab::fastlocal
