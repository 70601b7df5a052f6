// The SIMD split-block wormhashing variants (wormhashing's
// "cache-local SIMD" variants): 32-bit hash, one 256-bit block chosen by
// fastrange32, at most one bit per 32-bit lane (masks in worm_simd.h). The
// fastest layout of the family; its FP model is fpmodel::SplitBlockPoissonFpRate
// (derived in filters/fp_model_split_block.cc).
#include "filters/worm/worm_simd.h"

#include "filters/fp_model.h"
#include "filters/worm/worm_filter.h"
#include "filters/worm/worm_variants.h"
#include "hashing/fastrange.h"

namespace filterlab::worm {
namespace {

constexpr uint64_t kBlockBits = 256;
constexpr int kBlockWords = 4;

struct SimdSchemeBase : SchemeBase {
  static constexpr bool kHash64 = false;
  static constexpr HashWidth kDefaultWidth = HashWidth::k32;
  static uint64_t UnitBits(int) { return kBlockBits; }
  static uint64_t MaxBits(HashWidth, int) { return uint64_t{UINT32_MAX} * kBlockBits; }
  static uint64_t BlockWord(const WormShape& s, uint64_t h) {
    return uint64_t{FastRange32(Lower32(h), static_cast<uint32_t>(s.units))} * kBlockWords;
  }
  static void Prefetch(const uint64_t* words, const WormShape& s, uint64_t h) { PrefetchWord(words + BlockWord(s, h)); }
  // For distinct hashes; the block and every bit are functions of the 32
  // hash bits, so equal hashes match (WormModelFpRate adds that term).
  static double Model(const WormShape& s, double hashes) {
    return fpmodel::SplitBlockPoissonFpRate(ShapeBitsPerKey(s, hashes), s.probes);
  }
};

// CACHE_SIMD_FASTRANGE32: k of 8 lanes (k = 1..8), one bit each.
// Size: whole 256-bit blocks, any count below 2^32 (fastrange32).
// FP model: SplitBlockPoissonFpRate for the distinct 32-bit hashes + their
// matches. The k active lanes are a window of consecutive lanes rotated by
// x & 7, which the model's inclusion-exclusion over the query's lanes takes
// into account (overlapping windows correlate neighbouring lanes' loads;
// treating the lanes as independent was 0.9% to 1.4% off at k = 4 and 6).
// What it leaves out is the 32-bit lattice: block (fastrange32 of h) and
// lane bits (fields of h * golden32) come from one 32-bit value, so a
// block's ~2^32/blocks values are not independent draws. Kind: an
// approximation, measured / model 0.99778 (z -17.8), 0.99558, 0.98973,
// 0.98778 at 6, 10, 16, 24 bits/key (model_accuracy: 400 filters of 10^6
// keys, 10^9 queries per point): stated error 1.3%.
struct CacheSimdFastRange32Scheme : SimdSchemeBase {
  static double ModelMaxRelativeError(int, HashWidth) { return 0.013; }
  static FpModelKind ModelKind(int probes, HashWidth w) { return ApproximationIf(ModelMaxRelativeError(probes, w)); }
  static constexpr int kMaxProbes = 8;
  static constexpr const char* kProbesRule =
      "at most one bit in each of the 8 lanes of a 256-bit block, so probes 1..8";
  static void Add(uint64_t* words, const WormShape& s, uint64_t h) {
    uint64_t* block = words + BlockWord(s, h);
#ifdef FILTERLAB_WORM_AVX2
    simd::BlockAddAvx2(block, simd::FastRange32MaskAvx2(Lower32(h), s.probes));
#else
    simd::BlockAddScalar(block, simd::FastRange32MaskScalar(Lower32(h), s.probes));
#endif
  }
  static bool Query(const uint64_t* words, const WormShape& s, uint64_t h) {
    const uint64_t* block = words + BlockWord(s, h);
#ifdef FILTERLAB_WORM_AVX2
    return simd::BlockContainsAvx2(block, simd::FastRange32MaskAvx2(Lower32(h), s.probes));
#else
    return simd::BlockContainsScalar(block, simd::FastRange32MaskScalar(Lower32(h), s.probes));
#endif
  }
};

// CACHE_SIMD_FASTRANGE32_K8, as intended: the design is one bit in every lane,
// so it takes exactly probes=8 and rejects anything else. (The original
// accepted any K and silently set 8 bits, so its label lied; this is the
// intended design.)
// FP model: SplitBlockPoissonFpRate(b, 8) for the distinct 32-bit hashes +
// their matches, exact for ideal hashing.
// Kind: an approximation (model_accuracy, 400 filters of 10^6 keys, 10^9
// queries: measured / model 1.00132 (z +13.9), 1.00516, 1.00638, 1.00200 at
// 6, 10, 16, 24 bits/key): block and lane bits come from one 32-bit value,
// so a block's ~2^32/blocks values are a lattice, not independent draws.
struct CacheSimdK8Scheme : SimdSchemeBase {
  static double ModelMaxRelativeError(int, HashWidth) { return 0.007; }
  static FpModelKind ModelKind(int probes, HashWidth w) { return ApproximationIf(ModelMaxRelativeError(probes, w)); }
  static constexpr int kMinProbes = 8;
  static constexpr int kMaxProbes = 8;
  static constexpr const char* kProbesRule = "one bit in every one of the 8 lanes, so exactly 8 probes";
  static void Add(uint64_t* words, const WormShape& s, uint64_t h) {
    uint64_t* block = words + BlockWord(s, h);
#ifdef FILTERLAB_WORM_AVX2
    simd::BlockAddAvx2(block, simd::K8MaskAvx2(Lower32(h)));
#else
    simd::BlockAddScalar(block, simd::K8MaskScalar(Lower32(h)));
#endif
  }
  static bool Query(const uint64_t* words, const WormShape& s, uint64_t h) {
    const uint64_t* block = words + BlockWord(s, h);
#ifdef FILTERLAB_WORM_AVX2
    return simd::BlockContainsAvx2(block, simd::K8MaskAvx2(Lower32(h)));
#else
    return simd::BlockContainsScalar(block, simd::K8MaskScalar(Lower32(h)));
#endif
  }
};

}  // namespace

std::vector<WormSubVariant> SimdWormVariants() {
  return {
      MakeSubVariant<CacheSimdFastRange32Scheme>(
          "cache_simd_fastrange32",
          "256-bit split block by fastrange32, k of 8 lanes one bit each, AVX2; "
          "split-block window model + 32-bit hash matches (an approximation: the 32-bit lattice)"),
      MakeSubVariant<CacheSimdK8Scheme>(
          "cache_simd_k8",
          "256-bit split block, one bit in each of the 8 lanes "
          "(exactly 8 probes), AVX2; split-block model + 32-bit hash matches (an approximation)"),
  };
}

}  // namespace filterlab::worm
