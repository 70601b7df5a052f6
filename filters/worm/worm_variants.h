// The wormhashing sub-variants, one list per family file (each list's
// layouts and FP models are explained beside their code):
//   worm_nonlocal.cc    probes anywhere in the filter (worm64, worm32, rocksdb_dynamic)
//   worm_cache_line.cc  one probe per access inside a 512-bit line (cache_worm64, ...)
//   worm_block.cc       two probes per 64-bit word inside a word group (cache_mul64_block, ...)
//   worm_simd.cc        256-bit split blocks with an AVX2 path (cache_simd_*)
#pragma once

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

}  // namespace filterlab::worm
