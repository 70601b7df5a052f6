// The wormhashing sub-variants, one list per family file (each list's
// layouts and FP models are explained beside their code):
//   worm_nonlocal.cc    probes anywhere in the filter (worm64, worm32, rocksdb_dynamic)
//   worm_cache_line.cc  one probe per access inside a 512-bit line (cache_worm64, ...)
//   worm_block.cc       two probes per 64-bit word inside a word group (cache_mul64_block, ...)
//   worm_simd.cc        256-bit split blocks with an AVX2 path (cache_simd_*)
#pragma once

#include <cstdint>
#include <vector>

#include "filters/worm/worm_scheme.h"

namespace filterlab::worm {

std::vector<WormSubVariant> NonLocalWormVariants();
std::vector<WormSubVariant> CacheLineWormVariants();
std::vector<WormSubVariant> BlockWormVariants();
std::vector<WormSubVariant> SimdWormVariants();

// worm32's layout FP rate given the query's 32-bit hash is not stored: m
// bits (the odd worm range), `hashes` distinct stored 32-bit hashes, k
// probes; the orbit coverage model explained above Worm32Scheme in
// worm_nonlocal.cc. m >= 1, 0 <= hashes < 2^32, 1 <= probes <= 30.
double Worm32OrbitFpRate(double bits, double hashes, int probes);

// cache_dbl's exact model (worm_cache_dbl_model.cc explains it). The
// inclusion-exclusion has 2^k terms: exact for probes <= 20.
inline constexpr int kCacheDblMaxExactProbes = 20;
// The 32-bit form visits every value of a sampled query's line: used from
// this many lines on (at most 2^16 values per line).
inline constexpr uint64_t kCacheDbl32MinLines = 65536;
// The 32-bit form runs a 2^k subset transform per sampled query value.
inline constexpr int kCacheDbl32MaxProbes = 16;

// 64-bit hash: the FP rate with Poisson(keys_per_line) keys of independent
// uniform patterns in the query's line (probes > 20: the upper bound that
// the query's first 20 probes are set).
double CacheDblFpRate64(double keys_per_line, int probes);

// 32-bit hash widened by WidenFrom32, `lines` lines, `hashes` distinct
// stored 32-bit hashes: the layout FP rate for a query hash that is not
// stored: a sample mean over the query values of `sample_lines` fixed lines
// (about pair_budget / sample_lines member visits each), with its standard
// error from the spread of the line means.
struct CacheDbl32Estimate {
  double fp = 0;
  double standard_error = 0;
  int queries = 0;
};
CacheDbl32Estimate CacheDblFpRate32(uint64_t lines, double hashes, int probes, int sample_lines, double pair_budget);
// What the scheme's Model uses: 16 lines, a budget of 3*10^7 member visits
// (~0.05-0.15 s), remembered per (lines, hashes, probes) for the process, as
// one filter's model is asked for repeatedly.
double CacheDblFpRate32Cached(uint64_t lines, double hashes, int probes);

// The 32-bit values x whose widened hash x*phi (mod 2^64) falls in one line
// of fastrange64 over `lines` lines, walked by their return times (exposed
// for the tests).
class LineWalk {
 public:
  LineWalk(uint64_t lines, uint64_t line);
  // The gap to the next (forward) or previous member from member x; 0 if x
  // is not a member.
  uint64_t Return(uint64_t x, bool forward) const;
  // Every member in [0, 2^32), ascending; x0 must be a member.
  std::vector<uint32_t> Members(uint32_t x0) const;
  uint64_t up() const { return up_; }
  uint64_t down() const { return down_; }

 private:
  uint64_t low_ = 0, width_ = 0;
  uint64_t up_ = 0, up_move_ = 0, down_ = 0, down_move_ = 0;
};

}  // namespace filterlab::worm
