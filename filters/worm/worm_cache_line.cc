// The cache-local wormhashing variants with one probe per access: every probe
// of a key lands in one 512-bit (64-byte) line, so a query costs one cache
// miss however many probes it makes (wormhashing's "cache-local, one probe per
// access" variants, github.com/pdillinger/wormhashing). The price is FP: lines hold a
// Poisson-distributed number of keys, and crowded lines answer yes more
// often, about 1.15x the standard rate at 10 bits/key and 6 probes.
//
// Default probes: the k minimising the variant's own FP model at the
// requested bits/key (6 at 10 bits/key for the exact line model, as
// RocksDB's FastLocalBloom table), not round(bpk ln 2), which overshoots for
// line-local filters.
#include "filters/fp_model.h"
#include "filters/legacy_bloom.h"
#include "filters/worm/worm_filter.h"
#include "filters/worm/worm_primitives.h"
#include "filters/worm/worm_variants.h"
#include "hashing/fastrange.h"

namespace filterlab::worm {
namespace {

constexpr uint64_t kLineBits = 512;
constexpr int kLineWords = 8;

// The exact 512-bit line model for one uniform, independent probe per access
// (repeats allowed; for `hashes` distinct hashes): fpmodel::CacheLocalIdealFpRate.
// (CacheLocalPoissonFpRate, Bloom's per-line approximation, is 0.9% low at
// k = 6 and 4% low at k = 12, which these variants' measurements show.)
double LineModel(const WormShape& s, double hashes) {
  return fpmodel::CacheLocalIdealFpRate(ShapeBitsPerKey(s, hashes), s.probes, kLineBits);
}

struct LineSchemeBase : SchemeBase {
  static constexpr int kMaxProbes = 30;
  static constexpr const char* kProbesRule = "probes inside one 512-bit line: 1..30";
  static uint64_t UnitBits(int) { return kLineBits; }
  static uint64_t Start(const WormShape& s, uint64_t h) { return s.width == HashWidth::k32 ? WidenFrom32(h) : h; }
};

// CACHE_WORM64: the first bit is worm(range, h) over the whole filter (which
// picks the line); every further bit is the previous one XOR (1 + worm(511, h)),
// which stays in the line (XOR with a value below 512 changes only the low 9
// bits) and never repeats the immediately previous bit.
// Size: whole lines; range = bits - 1, the largest odd value not above the
// real size (intended design; the original's bits + 1 could pick a bit one
// past the end). The last bit can then not be the *first* probe, a 2^-9 / L
// non-uniformity, far below measurement.
// Cost: one miss, k multiplies. The closest foo.cc variant to RocksDB's
// FastLocalBloom in FP terms.
// FP model (exact): CacheLocalWalkFpRate(b, k, 512), the Poisson mixture over
// keys per line whose probes walk the line: bit_i = bit_{i-1} XOR (1 +
// worm(511)), a step to a uniform *other* bit, never back onto the previous
// one (the independent-probe line model, CacheLocalIdealFpRate, was 0.3% to
// 0.8% high for that; the walk's derivation is in fp_model_cache_local.cc).
// hash=32 is CACHE_WORM64_FROM32 (widened 32-bit hash): the same model for
// the distinct 32-bit hashes, plus their matches (WormModelFpRate).
struct CacheWorm64Scheme : LineSchemeBase {
  static void InitShape(WormShape* s) { s->range = LargestOddAtMost(s->bits); }

  static void Add(uint64_t* words, const WormShape& s, uint64_t h) {
    h = Start(s, h);
    uint64_t b = Worm64(s.range, &h);
    SetBit(words, b);
    for (int i = 1; i < s.probes; ++i) {
      b ^= 1 + Worm64(kLineBits - 1, &h);
      SetBit(words, b);
    }
  }
  static bool Query(const uint64_t* words, const WormShape& s, uint64_t h) {
    h = Start(s, h);
    uint64_t b = Worm64(s.range, &h);
    if (!TestBit(words, b)) return false;
    for (int i = 1; i < s.probes; ++i) {
      b ^= 1 + Worm64(kLineBits - 1, &h);
      if (!TestBit(words, b)) return false;
    }
    return true;
  }
  static void Prefetch(const uint64_t* words, const WormShape& s, uint64_t h) {
    h = Start(s, h);
    PrefetchWord(words + (Worm64(s.range, &h) >> 6));
  }
  static double Model(const WormShape& s, double keys) {
    return fpmodel::CacheLocalWalkFpRate(ShapeBitsPerKey(s, keys), s.probes, kLineBits);
  }
};

// CACHE_WORM64_ALT, repaired: pick the line with worm(L, h) over the *line*
// count, then take each probe's 9-bit offset from the top of the regenerated
// hash (Worm64Bits). The original computed the line over the bit range and
// scaled it by 8 words, reading far past the end (it segfaults at HEAD); this
// is the intended design. Seven 9-bit offsets use 63 bits; before the 8th,
// 15th, ... probe the hash is remultiplied by the 64-bit golden ratio.
// Size: an odd number of lines (the worm range is the line count itself).
// FP model (exact): CacheLocalIdealFpRate(b, k, 512): one line per key,
// independent uniform 9-bit offsets (repeats allowed, as the model assumes).
// Its one omission is the spread of a line's set-bit count given its keys
// (the model uses the mean inside a convex k-th power), which puts real
// rates ~1% above it for 512-bit lines (measured +1.0% mean over four seeds
// at 10 bits/key, k = 6); the exact-model test bound allows 1% + 4 sigma.
struct CacheWorm64AltScheme : LineSchemeBase {
  static constexpr bool kOddUnits = true;

  // Word index of the key's line.
  static uint64_t LineWord(const WormShape& s, uint64_t* h) { return Worm64(s.range, h) * kLineWords; }
  static uint64_t NextOffset(int i, uint64_t* h) {
    if (i > 0 && i % 7 == 0) *h *= kGoldenRatio64;
    return Worm64Bits(9, h);
  }
  static void Add(uint64_t* words, const WormShape& s, uint64_t h) {
    h = Start(s, h);
    uint64_t* line = words + LineWord(s, &h);
    for (int i = 0; i < s.probes; ++i) SetBit(line, NextOffset(i, &h));
  }
  static bool Query(const uint64_t* words, const WormShape& s, uint64_t h) {
    h = Start(s, h);
    const uint64_t* line = words + LineWord(s, &h);
    for (int i = 0; i < s.probes; ++i) {
      if (!TestBit(line, NextOffset(i, &h))) return false;
    }
    return true;
  }
  static void Prefetch(const uint64_t* words, const WormShape& s, uint64_t h) {
    h = Start(s, h);
    PrefetchWord(words + LineWord(s, &h));
  }
  static double Model(const WormShape& s, double keys) { return LineModel(s, keys); }
};

// CACHE_DBL: line = fastrange64(h, L); inside the line plain double hashing
// mod 512: start = h & 511, odd step = ((h >> 9) & 511) | 1, probe i at
// start + i*step mod 512. An odd step is a unit mod 512, so a key's k probes
// are distinct. (The original took the step from h >> 8, sharing bit 8 with
// the start; here the fields are disjoint.)
// Size: whole lines, any count (fastrange needs no odd range).
// FP model (exact for k <= kCacheDbl32MaxProbes; worm_cache_dbl_model.cc
// derives it). Double-hashing probes are not independent: there are only
// 512 * 256 (start, step) patterns, and a stored key with the query's step
// and a start t steps away shares k - t of its bits, so the independent-probe
// line model is far low (measured/model 1.14 at 10 bits/key, 16 at 24). The
// model is inclusion-exclusion over the subsets T of the query's k bits that
// the stored keys' overlaps S with them stay inside:
//   64-bit: keys independent with uniform patterns, Poisson(lambda) per line:
//     FP = sum_T (-1)^{k-|T|} exp(-lambda P(S not in T)), one subset-sum
//     transform over the 131072 patterns (all queries are equivalent up to
//     x -> u x + c); 2^k terms, exact up to the Poisson load (k <= 20).
//   32-bit: h = x*phi, so a line holds a fixed golden-ratio quasi-lattice of
//     ~2^32/lines values whose patterns repeat in fixed offsets (e.g. at 10^7
//     keys, 24 bits/key a query has 0..4 line-mates with its exact pattern,
//     against 0.07 expected for random patterns). Each value is stored with
//     p = D/2^32, FP(q) = sum_T (-1)^{k-|T|} (1-p)^{c(T)} over the line's
//     actual values, c(T) = values other than q with S not in T; averaged
//     over the values of 16 fixed lines (a sample mean, standard error ~1-5%
//     of the rate at the shapes of sim/README.md's table); k <= 16 (a
//     subset transform per query value).
//   Outside those ranges the 64-bit form is used: for k > 20 it asks only
//   the query's first 20 probes to be set, an upper bound (k > 20 never
//   minimises it, so default probes stay <= 20); at hash=32 with fewer than
//   65536 lines (filters under 4 MiB: > 2^16 values per line, where one
//   query's sum visits them all) or k > 16 it is the 64-bit form for the D
//   distinct hashes, which misses the lattice excess (measured 10^6 keys,
//   24 b/k, k = 11: 0.00167 against 0.00100; sim/README.md), not exact there.
//   Default probes (the model at 10^6 keys) therefore come from the 64-bit
//   form at both widths.
// hash=32 adds the matches of equal hashes (WormModelFpRate).
struct CacheDblScheme : LineSchemeBase {
  // Above 20 probes the model asks only the first 20 to be set: an upper
  // bound. hash=32 is exact only from 65536 lines, which the parameters
  // cannot say, and below that the 64-bit form misses the lattice excess:
  // a lower bound at every size (exact is inside its range from 65536 on).
  static FpModelKind ModelKind(int probes, HashWidth width) {
    if (probes > kCacheDblMaxExactProbes) return FpModelKind::kUpperBound;
    return width == HashWidth::k32 ? FpModelKind::kLowerBound : FpModelKind::kExact;
  }

  static uint64_t LineStart(const WormShape& s, uint64_t h) { return FastRange64(h, s.units) * kLineBits; }
  static void Add(uint64_t* words, const WormShape& s, uint64_t h) {
    h = Start(s, h);
    const uint64_t line = LineStart(s, h);
    const uint64_t step = ((h >> 9) & 511) | 1;
    uint64_t b = h;
    for (int i = 0; i < s.probes; ++i, b += step) SetBit(words, line + (b & 511));
  }
  static bool Query(const uint64_t* words, const WormShape& s, uint64_t h) {
    h = Start(s, h);
    const uint64_t line = LineStart(s, h);
    const uint64_t step = ((h >> 9) & 511) | 1;
    uint64_t b = h;
    for (int i = 0; i < s.probes; ++i, b += step) {
      if (!TestBit(words, line + (b & 511))) return false;
    }
    return true;
  }
  static void Prefetch(const uint64_t* words, const WormShape& s, uint64_t h) {
    PrefetchWord(words + LineStart(s, Start(s, h)) / 64);
  }
  static double Model(const WormShape& s, double hashes) {
    if (s.width == HashWidth::k32 && s.probes <= kCacheDbl32MaxProbes && s.units >= kCacheDbl32MinLines) {
      return CacheDblFpRate32Cached(s.units, hashes, s.probes);
    }
    return CacheDblFpRate64(hashes / static_cast<double>(s.units), s.probes);
  }
};

// The two RocksDB-derived line schemes are RocksDB's LegacyLocalityBloomImpl
// (LegacyLocalityBloomImpl in RocksDB's util/bloom_impl.h); the probe arithmetic is the one in
// filters/legacy_bloom.h (shared with the "legacy" variant, so one copy), on
// 64-byte lines. worm_test checks both against RocksDB's own vectors.
template <bool kExtraRotates>
struct RocksDbLineScheme : LineSchemeBase {
  static constexpr bool kHash64 = false;
  static constexpr HashWidth kDefaultWidth = HashWidth::k32;
  static uint64_t MaxBits(HashWidth, int) { return uint64_t{UINT32_MAX} * kLineBits; }

  static size_t LineByte(const WormShape& s, uint64_t hash) {
    return legacy::LineOffset<kExtraRotates>(Lower32(hash), static_cast<uint32_t>(s.units), legacy::kLog2LineBytes);
  }
  // Bytes of the little-endian word array (char access may alias any object).
  static uint8_t* Bytes(uint64_t* words) { return reinterpret_cast<uint8_t*>(words); }
  static const uint8_t* Bytes(const uint64_t* words) { return reinterpret_cast<const uint8_t*>(words); }

  static void Add(uint64_t* words, const WormShape& s, uint64_t hash) {
    legacy::AddToLine<kExtraRotates>(Lower32(hash), s.probes, legacy::kLog2LineBytes, Bytes(words) + LineByte(s, hash));
  }
  static bool Query(const uint64_t* words, const WormShape& s, uint64_t hash) {
    return legacy::MayMatchLine<kExtraRotates>(Lower32(hash), s.probes, legacy::kLog2LineBytes,
                                               Bytes(words) + LineByte(s, hash));
  }
  static void Prefetch(const uint64_t* words, const WormShape& s, uint64_t hash) {
    PrefetchWord(words + LineByte(s, hash) / 8);
  }
};

// CACHE_ROCKSDB_DYNAMIC: RocksDB's old DynamicBloom with locality (32-bit h;
// the same probes as PlainTable's locality Bloom, "ExtraRotates").
// line = rotr(h, 11) mod L; delta = rotr(h, 17) of the original h; probe i
// sets line*512 + (h mod 512), then h = rotr(h, 9) + delta. The rotation
// brings fresh bits into the low 9 that the probe uses.
// Size: whole lines, L < 2^32 (mod needs no odd count).
// Cost: one division for the line, shifts/adds per probe.
// FP model (an approximation): CacheLocalIdealFpRate(b, k, 512) for the
// distinct 32-bit hashes, plus their matches. The in-line probes are a
// rotate-and-add sequence of one 32-bit value, not independent draws, and no
// model of them is derived; measured / model 1.00142 (z +11.2), 0.99862,
// 1.00058, 1.00138 at 6, 10, 16, 24 bits/key (model_accuracy: 400 filters of
// 10^6 keys, 10^9 queries per point), so the stated error is 0.2%.
struct CacheRocksDbDynamicScheme : RocksDbLineScheme<true> {
  static double ModelMaxRelativeError(int, HashWidth) { return 0.002; }
  static FpModelKind ModelKind(int probes, HashWidth w) { return ApproximationIf(ModelMaxRelativeError(probes, w)); }
  static double Model(const WormShape& s, double keys) { return LineModel(s, keys); }
};

// CACHE_ROCKSDB_FULL, self-consistent: RocksDB's legacy full-filter locality
// scheme (RocksDB's LegacyNoLocalityBloomImpl, util/bloom_impl.h): line = h mod L, delta = rotr(h, 17),
// probe i sets line*512 + (h mod 512), then h += delta, with no rotation.
// The original added with an odd line count and queried with the plain one,
// so it was not a filter (only its negative FP meant anything); here add and
// query use the same L, and L is odd as RocksDB's legacy builder makes it
// (an odd modulus lets more hash bits decide the line). This is the intended
// design.
// FP model (exact up to 20 probes): fpmodel::LegacyLineFpRate(L, D, k), the
// same derivation as the "legacy" variant's (legacy_bloom.h): exact over the
// in-line arithmetic-progression patterns and the query's step class, with
// the 32-bit lattice's correction, for the D distinct 32-bit hashes, plus
// their matches (WormModelFpRate). Above 20 probes only the query's first 20
// bits are asked: an upper bound. (RocksDB's own estimate, the two-point
// line model plus an empirical penalty 0.1/(0.75b + 22), is 11% high at 10
// bits/key: 0.01315 against 0.01163 measured for 10^6 keys.)
// Default probes: round(b ln 2), the original harness's rule (RocksDB's legacy
// filter takes floor(0.69 b)), not the model-optimal search: the exact model
// costs 0.02..0.5 s per probe count, and its optimum is flat (the 2-adic floor).
struct CacheRocksDbFullScheme : RocksDbLineScheme<false> {
  static constexpr bool kOddUnits = true;
  static constexpr DefaultProbes kDefaultProbes = DefaultProbes::kStandard;
  // Legacy's kinds (legacy_bloom.cc): an approximation up to 20 probes,
  // measured / model 1.00019, 1.00399 (z +13.7), 0.99839, 1.00101 at 6, 10,
  // 16, 24 bits/key (model_accuracy), an upper bound above.
  static double ModelMaxRelativeError(int probes, HashWidth) {
    return probes > fpmodel::kLegacyLineMaxExactProbes ? 0 : 0.004;
  }
  static FpModelKind ModelKind(int probes, HashWidth) {
    return probes > fpmodel::kLegacyLineMaxExactProbes ? FpModelKind::kUpperBound : FpModelKind::kApproximation;
  }
  static double Model(const WormShape& s, double hashes) {
    return fpmodel::LegacyLineFpRate(static_cast<double>(s.units), hashes, s.probes);
  }
};

}  // namespace

std::vector<WormSubVariant> CacheLineWormVariants() {
  const WormSubVariant cache_worm64 =
      MakeSubVariant<CacheWorm64Scheme>("cache_worm64",
                                        "512-bit line, first bit by worm over all bits, then XOR (1+worm(511)); "
                                        "exact line model");
  return {
      cache_worm64,
      From32Twin(cache_worm64, "cache_worm64_from32",
                 "cache_worm64 on the low 32 bits of the hash (= cache_worm64 with hash=32); "
                 "exact line model + 32-bit hash matches"),
      MakeSubVariant<CacheWorm64AltScheme>("cache_worm64_alt",
                                           "512-bit line by worm over an odd line count, 9-bit offsets "
                                           "(repaired CACHE_WORM64_ALT); exact line model"),
      MakeSubVariant<CacheDblScheme>("cache_dbl",
                                     "512-bit line by fastrange64, double hashing mod 512 inside; "
                                     "exact pattern-overlap model (k <= 20; hash=32 from 65536 lines)"),
      MakeSubVariant<CacheRocksDbDynamicScheme>(
          "cache_rocksdb_dynamic",
          "RocksDB's old DynamicBloom with locality (32-bit, line = rotr(h,11) mod L); "
          "ideal line model + 32-bit hash matches (approximate)"),
      MakeSubVariant<CacheRocksDbFullScheme>(
          "cache_rocksdb_full",
          "RocksDB's legacy full-filter locality scheme, add and query on one odd line "
          "count; exact in-line pattern model (k <= 20)"),
  };
}

}  // namespace filterlab::worm
