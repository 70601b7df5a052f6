// What every wormhashing sub-variant is made of: the shape of one built filter
// (WormShape) and the descriptor the registry glue works from
// (WormSubVariant). A sub-variant's probe code is a "scheme": a struct of
// static functions (Add, Query, Prefetch, InitShape, Model) that
// MakeSubVariant<Scheme> turns into a descriptor, so sizing, parsing,
// serializing and batching are written once (worm_policy.cc, worm_filter.h).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "common/slice.h"
#include "common/status.h"
#include "filters/filter.h"
#include "filters/fp_model_kind.h"

namespace filterlab::worm {

// Everything the probe code of one built filter needs, derived from the three
// numbers its layout string records (hash width, probes, bits).
struct WormShape {
  HashWidth width = HashWidth::k64;
  int probes = 0;
  uint64_t bits = 0;       // size of the bit array the variant indexes
  uint64_t unit_bits = 1;  // 1 (non-local), 64 (one word), 512 (line), 256 (SIMD block), 64*group
  uint64_t units = 0;      // bits / unit_bits
  uint64_t range = 0;      // range of the first index (odd where a worm step needs it); set by InitShape
  int words_touched = 0;   // block variants: words a key touches
  int group_words = 0;     // block variants: words in the aligned group

  uint64_t storage_words() const { return (bits + 63) / 64; }
};

enum class DefaultProbes {
  kStandard,      // round(bpk * ln 2), as the original harness's K=0 (non-local variants)
  kModelOptimal,  // the k in range minimising the variant's own FP model at that bpk (cache-local)
};

struct WormSubVariant {
  const char* name;
  const char* summary;  // one line: layout and FP model
  bool allows_hash32;
  bool allows_hash64;
  HashWidth default_width;
  int min_probes;
  int max_probes;
  const char* probes_rule;  // why the probe range is what it is (for error messages)
  DefaultProbes default_probes;
  // What kind of model `model` is at these parameters (fp_tolerance.h), the
  // worm registration's FpModelKind for a policy of this sub-variant.
  FpModelKind (*model_kind)(int probes, HashWidth width);
  // Where model_kind says kApproximation: the largest relative error
  // |measured / model - 1| measured for it (FpModelClaim); 0 otherwise.
  double (*model_max_relative_error)(int probes, HashWidth width);
  bool odd_units;  // the unit count must be odd (a worm step over the units)
  // Largest bit count the variant's arithmetic can address (e.g. 32-bit
  // fastrange or mod for hash=32), a multiple of the unit.
  uint64_t (*max_bits)(HashWidth width, int probes);
  uint64_t (*unit_bits)(int probes);
  void (*init_shape)(WormShape* shape);
  std::unique_ptr<Filter> (*build)(const WormSubVariant* v, const WormShape& shape, const uint64_t* hashes, size_t n);
  std::unique_ptr<Filter> (*open)(const WormSubVariant* v, const WormShape& shape, Slice data);
  // The layout's FP model for `distinct_hashes` distinct, uniform hashes in
  // this shape, without the matches of equal hashes (WormModelFpRate adds
  // those for the keys' hash width).
  double (*model)(const WormShape& shape, double distinct_hashes);
};

// Descriptor of a scheme (see the schemes in worm_*.cc for the members used).
template <class Scheme>
WormSubVariant MakeSubVariant(const char* name, const char* summary);

// The FROM32 twin of a variant that exists in both widths: the same
// descriptor restricted to hash=32. Convention (one for all variants):
// "xxx_from32" is exactly "xxx" with hash=32 (each scheme's 32-bit path is the
// original's FROM32 design); a FROM32 name with hash=64 is an error.
WormSubVariant From32Twin(const WormSubVariant& base, const char* name, const char* summary);

// Sizing for a build: the smallest shape holding at least `wanted_bits`
// (whole units, at least one, odd unit count where required).
// InvalidArgument when the variant's arithmetic cannot address that many.
Status SizeShape(const WormSubVariant& v, HashWidth width, int probes, uint64_t wanted_bits, WormShape* out);
// The shape a serialized layout claims; Corruption unless it is one that
// SizeShape could have produced.
Status ShapeFromLayout(const WormSubVariant& v, HashWidth width, int probes, uint64_t bits, WormShape* out);

// "worm:variant=NAME,hash=W,probes=K,bits=M": the layout string in trailers.
std::string DescribeWorm(const WormSubVariant& v, const WormShape& shape);

// Bits per key a shape gives `keys` keys (for the Poisson models).
inline double ShapeBitsPerKey(const WormShape& s, double keys) { return static_cast<double>(s.bits) / keys; }
// The complete FP model of `keys` keys in shape s: v.model for the distinct
// hashes they leave at s.width bits, with the matches of equal hashes
// (fpmodel::NarrowHashFpRate; at 64 bits that term is ~n/2^64).
double WormModelFpRate(const WormSubVariant& v, const WormShape& s, double keys);

// Every sub-variant, in registry order; lookup by name.
const std::vector<const WormSubVariant*>& AllWormSubVariants();
const WormSubVariant* FindWormSubVariant(std::string_view name);
std::string KnownWormSubVariantNames();

}  // namespace filterlab::worm
