// The "block" wormhashing variants: two probes per 64-bit word. A key sets a
// two-bit mask in each of D = floor(k/2) words (odd k: a third bit in the last
// word; k = 1: one bit in one word), the words being a XOR i (i < D) inside an
// aligned group of W = roundup_pow2(D) words, so the key stays in one cache
// line (W <= 8, hence k <= 16) and a query is D word loads and compares
// instead of k bit tests (the "cache-local block" variants of Dillinger's
// wormhashing simulation, github.com/pdillinger/wormhashing). The price: about 1.12x the FP of a 512-bit line at 10
// bits/key, which ~3% more memory buys back (RocksDB PR #5762: 10.3 vs 10 bits/key; paper/published.toml).
// CACHE_BLOCK64 (one word per key) is the extreme of this trade.
//
// Default probes: the k minimising the variant's own FP model at the
// requested bits/key.
#include "filters/fp_model.h"
#include "filters/worm/worm_filter.h"
#include "filters/worm/worm_primitives.h"
#include "filters/worm/worm_variants.h"
#include "hashing/fastrange.h"

namespace filterlab::worm {
namespace {

uint64_t Bit(uint64_t position) { return uint64_t{1} << position; }

// FP model of the two-per-word layout: fpmodel::WordBitsPoissonFpRate(b, D,
// W, odd k, distinct pair), the Poisson mixture over word offsets for D
// touched words (the pattern a XOR i, with the correlated loads it gives) of
// a W-word group, two bits per word and a third in the last word for odd k,
// the pair independent and possibly equal (CACHE_MUL64_BLOCK) or always
// distinct (CACHE_WORM64_BLOCK, distinct_pair): exact for ideal hashing at
// every k (for even k and coinciding pairs it is TwoPerWordPoissonFpRate;
// measured 0.010881 against 0.010903 at 10 bits/key, k = 6). k = 1 is
// exactly one uniform bit in one uniform word: CacheLocalPoissonFpRate(b, 1,
// 64). (For `hashes` distinct hashes; WormModelFpRate adds the matches of
// equal ones.) Measured / model (4 filters of 10^6 keys, 4*10^7 queries) at
// 6, 10, 12, 16, 24 bits/key with k = 3, 5, 7, 11, 13: cache_mul64_block
// 1.000, 1.000, 1.000, 0.996, 0.988; cache_worm64_block 0.999, 0.999, 1.000,
// 1.008, 0.941 (95% interval 0.90..0.98: the worm-step bits fall a few
// percent short of ideal at 13 probes; within the exact kind's tolerance).
double TwoPerWordModel(const WormShape& s, double hashes, bool distinct_pair) {
  const double b = ShapeBitsPerKey(s, hashes);
  if (s.probes == 1) return fpmodel::CacheLocalPoissonFpRate(b, 1, 64);
  return fpmodel::WordBitsPoissonFpRate(b, s.words_touched, s.group_words, s.probes % 2 != 0, distinct_pair);
}

struct BlockSchemeBase : SchemeBase {
  static constexpr int kMaxProbes = 16;
  static constexpr const char* kProbesRule =
      "two probes per word in an aligned group of roundup_pow2(probes/2) <= 8 words, so probes 1..16";
  static uint64_t UnitBits(int probes) { return 64 * static_cast<uint64_t>(BlockGroupWords(probes)); }
  // hash=32 picks the first word with 32-bit arithmetic: fewer than 2^32 words.
  static uint64_t MaxBits(HashWidth w, int probes) {
    return w == HashWidth::k64 ? kMaxFilterBits : (uint64_t{UINT32_MAX} / BlockGroupWords(probes)) * UnitBits(probes);
  }
  static double Model(const WormShape& s, double keys) { return TwoPerWordModel(s, keys, /*distinct_pair=*/false); }
};

// Where a key lives: its first word and the hash stream its bits come from.
struct BlockLocation {
  uint64_t word;
  uint64_t stream;
};

// The probe loop of the two-per-word layouts: word a XOR i gets mask i.
// Scheme provides Locate(shape, hash) and WordMask(shape, i, &stream).
template <class Scheme>
struct TwoPerWordProbes : BlockSchemeBase {
  static void Add(uint64_t* words, const WormShape& s, uint64_t h) {
    BlockLocation loc = Scheme::Locate(s, h);
    for (int i = 0; i < s.words_touched; ++i) {
      words[loc.word ^ static_cast<uint64_t>(i)] |= Scheme::WordMask(s, i, &loc.stream);
    }
  }
  static bool Query(const uint64_t* words, const WormShape& s, uint64_t h) {
    BlockLocation loc = Scheme::Locate(s, h);
    for (int i = 0; i < s.words_touched; ++i) {
      const uint64_t mask = Scheme::WordMask(s, i, &loc.stream);
      if ((words[loc.word ^ static_cast<uint64_t>(i)] & mask) != mask) return false;
    }
    return true;
  }
  static void Prefetch(const uint64_t* words, const WormShape& s, uint64_t h) {
    PrefetchWord(words + Scheme::Locate(s, h).word);
  }
};

// CACHE_MUL64_BLOCK: first word a = fastrange64(h, words); the bit stream is
// h * golden64, whose low 12 bits give word i's two bits (stream & 63 and
// (stream >> 6) & 63) before the stream rotates right by 12. Five words use
// 60 bits; before the 6th..8th word the stream is remultiplied and its upper
// half brought down (rotr 32), because the low bits of a product depend only
// on the low bits of its input. The two bits may coincide (a lost probe).
// hash=32 is CACHE_MUL64_BLOCK_FROM32 (the "pairs of probes per 64-bit word,
// 32-bit hash" design of RocksDB's rewritten DynamicBloom): a =
// fastrange32(low32, words), stream = low32 * golden64.
// Size: whole groups; the word count needs no odd value (fastrange), so the
// original's odd word range (which could pick a word past the end) is not
// reproduced: intended design.
// FP model: TwoPerWordModel above, exact.
// Kinds (model_accuracy: 400 filters of 10^6 keys, 10^9 queries at 6, 10, 16,
// 24 bits/key): hash=64 exact; hash=32 (CACHE_MUL64_BLOCK_FROM32, the design
// of RocksDB's DynamicBloom) an approximation: measured / model 0.99781,
// 0.99496, 0.99436, 0.99656 (z -18.0 at 6 bits/key). Its word and its pair
// bits come from one 32-bit value, so a word offset's ~2^32/words values are
// a lattice in which the query's own pair pattern repeats less often than
// among independent draws (dynamic_bloom.h explains it for DynamicBloom).
struct CacheMul64BlockScheme : TwoPerWordProbes<CacheMul64BlockScheme> {
  static double ModelMaxRelativeError(int, HashWidth w) { return w == HashWidth::k32 ? 0.006 : 0; }
  static FpModelKind ModelKind(int probes, HashWidth w) { return ApproximationIf(ModelMaxRelativeError(probes, w)); }
  static void InitShape(WormShape* s) {
    s->words_touched = BlockWordsTouched(s->probes);
    s->group_words = BlockGroupWords(s->probes);
    s->range = s->bits / 64;
  }
  static BlockLocation Locate(const WormShape& s, uint64_t h) {
    if (s.width == HashWidth::k32) {
      const uint32_t low = Lower32(h);
      return {FastRange32(low, static_cast<uint32_t>(s.range)), uint64_t{low} * kGoldenRatio64};
    }
    return {FastRange64(h, s.range), h * kGoldenRatio64};
  }
  // The mask for word i; advances the stream.
  static uint64_t WordMask(const WormShape& s, int i, uint64_t* stream) {
    if (i > 0 && i % 5 == 0) *stream = RotateRight64(*stream * kGoldenRatio64, 32);
    if (s.probes == 1) return Bit(*stream & 63);
    uint64_t mask = Bit(*stream & 63) | Bit((*stream >> 6) & 63);
    if ((s.probes & 1) != 0 && i == s.words_touched - 1) mask |= Bit((*stream >> 12) & 63);
    *stream = RotateRight64(*stream, 12);
    return mask;
  }
};

// CACHE_WORM64_BLOCK: first word a = worm(range, h) with range the largest odd
// word count not above the real one (intended design; the original's
// words + 1 could pick a word past the end; a XOR i still reaches the last
// word). Per word: bit1 = top 6 bits of h (Worm64Bits), bit2 = worm(63, h)
// bumped by one if >= bit1, so the two bits always differ; odd k adds a third
// bit (top 6 bits again, which may coincide). Each worm(63) regenerates h, so
// the stream never runs out.
// hash=32 is CACHE_WORM64_BLOCK_FROM32: a = worm32(range, low32); the
// regenerated 32 bits times golden64 feed the per-word bits as above.
// FP model: TwoPerWordModel above with distinct pairs, exact.
// Kinds as for CACHE_MUL64_BLOCK: hash=64 exact; hash=32 an approximation,
// measured / model 0.99856 (z -11.8), 0.99898, 1.00209, 0.99739 at 6, 10,
// 16, 24 bits/key (model_accuracy, 10^9 queries over 400 filters).
struct CacheWorm64BlockScheme : TwoPerWordProbes<CacheWorm64BlockScheme> {
  static double ModelMaxRelativeError(int, HashWidth w) { return w == HashWidth::k32 ? 0.003 : 0; }
  static FpModelKind ModelKind(int probes, HashWidth w) { return ApproximationIf(ModelMaxRelativeError(probes, w)); }
  static double Model(const WormShape& s, double keys) { return TwoPerWordModel(s, keys, /*distinct_pair=*/true); }
  static void InitShape(WormShape* s) {
    s->words_touched = BlockWordsTouched(s->probes);
    s->group_words = BlockGroupWords(s->probes);
    s->range = LargestOddAtMost(s->bits / 64);
  }
  static BlockLocation Locate(const WormShape& s, uint64_t h) {
    if (s.width == HashWidth::k32) {
      uint32_t low = Lower32(h);
      const uint32_t word = Worm32(static_cast<uint32_t>(s.range), &low);
      return {word, uint64_t{low} * kGoldenRatio64};
    }
    const uint64_t word = Worm64(s.range, &h);
    return {word, h};
  }
  static uint64_t WordMask(const WormShape& s, int i, uint64_t* h) {
    const uint64_t bit1 = Worm64Bits(6, h);
    if (s.probes == 1) return Bit(bit1);
    uint64_t bit2 = Worm64(63, h);
    bit2 += bit2 >= bit1 ? 1 : 0;
    uint64_t mask = Bit(bit1) | Bit(bit2);
    if ((s.probes & 1) != 0 && i == s.words_touched - 1) mask |= Bit(Worm64Bits(6, h));
    return mask;
  }
};

// CACHE_BLOCK64: the whole key in ONE 64-bit word: word = worm(words, h), and
// k 6-bit fields of the regenerated hash form one mask, so a query is one
// load and one compare. The fastest scalar layout and the worst FP (about
// 0.019 at 10 bits/key, k = 6). Ten fields use 60 bits, hence k <= 10.
// Size: an odd number of words (the worm range is the word count itself).
// hash=32: the widened 32-bit hash (WidenFrom32), with the matches of equal
// 32-bit hashes (WormModelFpRate).
// FP model (exact): CacheLocalIdealFpRate(b, k, 64), the Poisson mixture
// over keys per word with k independent uniform 6-bit fields per key (repeats
// allowed), without Bloom's per-block approximation. That approximation
// (CacheLocalPoissonFpRate) replaces the word's set-bit count S by its mean,
// and the query's (S/64)^k is convex, so by Jensen it is low by the spread of
// S, which is large for a 64-bit block: 4.7% at 10 bits/key, k = 5, 10% at 24
// bits/key, k = 7, as measured. Measured / this model: 0.998, 1.000, 1.001,
// 1.001, 0.999, 0.994 at 6, 8, 10, 12, 16, 24 bits/key (4 filters of 10^6
// keys, 4*10^7 queries).
struct CacheBlock64Scheme : SchemeBase {
  static constexpr int kMaxProbes = 10;
  static constexpr const char* kProbesRule = "k 6-bit fields of one 64-bit hash, so probes 1..10";
  static constexpr bool kOddUnits = true;
  static uint64_t UnitBits(int) { return 64; }

  struct WordAndMask {
    uint64_t word;
    uint64_t mask;
  };
  static WordAndMask Locate(const WormShape& s, uint64_t h) {
    if (s.width == HashWidth::k32) h = WidenFrom32(h);
    const uint64_t word = Worm64(s.range, &h);
    uint64_t mask = 0;
    for (int i = 0; i < s.probes; ++i) mask |= Bit(Worm64Bits(6, &h));
    return {word, mask};
  }
  static void Add(uint64_t* words, const WormShape& s, uint64_t h) {
    const WordAndMask key = Locate(s, h);
    words[key.word] |= key.mask;
  }
  static bool Query(const uint64_t* words, const WormShape& s, uint64_t h) {
    const WordAndMask key = Locate(s, h);
    return (words[key.word] & key.mask) == key.mask;
  }
  static void Prefetch(const uint64_t* words, const WormShape& s, uint64_t h) {
    PrefetchWord(words + Locate(s, h).word);
  }
  static double Model(const WormShape& s, double hashes) {
    return fpmodel::CacheLocalIdealFpRate(ShapeBitsPerKey(s, hashes), s.probes, 64);
  }
};

}  // namespace

std::vector<WormSubVariant> BlockWormVariants() {
  const WormSubVariant mul64 =
      MakeSubVariant<CacheMul64BlockScheme>("cache_mul64_block",
                                            "two probes per 64-bit word, word by fastrange64, bits from h*golden64; "
                                            "exact two-per-word Poisson model");
  const WormSubVariant worm64 =
      MakeSubVariant<CacheWorm64BlockScheme>("cache_worm64_block",
                                             "two distinct probes per 64-bit word, word and bits by worm steps; "
                                             "exact two-per-word Poisson model (distinct pairs)");
  return {
      mul64,
      From32Twin(mul64, "cache_mul64_block_from32",
                 "cache_mul64_block on the low 32 bits (= hash=32; RocksDB DynamicBloom's design); "
                 "two-per-word Poisson model + 32-bit hash matches (an approximation: the 32-bit lattice)"),
      worm64,
      From32Twin(worm64, "cache_worm64_block_from32",
                 "cache_worm64_block on the low 32 bits (= hash=32); two-per-word Poisson model "
                 "(distinct pairs) + 32-bit hash matches (an approximation: the 32-bit lattice)"),
      MakeSubVariant<CacheBlock64Scheme>("cache_block64",
                                         "all k probes in one 64-bit word chosen by worm; "
                                         "exact Poisson mixture over 64-bit words"),
  };
}

}  // namespace filterlab::worm
