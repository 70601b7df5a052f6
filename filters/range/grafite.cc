// Grafite: the optimal range filter of Costa, Ferragina and Vinciguerra,
// "Grafite: Taming Adversarial Queries with Optimal Range Filters" (SIGMOD
// 2024). Variant "grafite:bpk=B" (or "grafite:eps=E,range=L").
//
// What it is. Keys are hashed into a reduced universe [0, r) by an
// order-preserving pairwise-independent hash and the distinct hashes are
// stored in Elias-Fano (elias_fano.h); a range query asks whether any hash
// lies in the image of [lo, hi]. The hash (paper, Section 3.1) splits the
// universe into blocks of r consecutive values and shifts each block
// cyclically by its own random offset:
//   h(x) = (q(x div r) + x mod r) mod r,   q(y) = ((a y + b) mod p) mod r,
// p = 2^61 - 1, a and b drawn from [0, p) (SplitMix64 from the spec's seed).
// Inside one block h is a cyclic rotation, so the image of a range inside a
// block is one cyclic interval of its length. A range crossing into the next
// block is answered as its two parts (the reference code hashes both ends
// as if they shared a block, which can miss a key of the second part).
//
// Bound (kind upper_bound; the paper's Theorem 3.3). Let Q be an empty range
// of l < r values. A key in Q's block (or blocks) hashes outside Q's image,
// because h is one-to-one there; a key in another block has an offset
// independent of Q's, uniform up to rounding, so it lands in the l image
// values with probability at most l * ceil(p/r) / p. By the union bound over
// the n keys, for any keys and any query (correlated or adversarial ones
// included):
//   FPR <= n l ceil(p / r) / p  ~=  l n / r.
// Sizing: bpk = B gives r = ceil(n 2^(B-2)), so FPR <= l / 2^(B-2); eps and
// range = L give r = ceil(n L / eps), FPR <= eps at l = L. Elias-Fano stores
// the n hashes in n (2 + log2(r/n)) bits at most (elias_fano.h), so the filter
// spends B bits per key plus the rank/select directory (0.25 when r/n is a
// power of two, as bpk = B gives; at most 0.44 otherwise): within 2.25 (2.44)
// bits per key of the lower bound n log2(L/eps) of Goswami et al.
// ("Approximate range emptiness in constant time and optimal space", SODA
// 2015). The
// measured FPR of uniform keys is 1 - (1 - l/r)^n ~= 1 - exp(-l / 2^(B-2)).
//
// Limit: r <= 2^60. The rounding term ceil(p/r)/p is 1/r (1 + O(r/p)): at
// most 1.5/r at r = 2^60, and ModelFpRate includes it.
#include <algorithm>
#include <climits>
#include <cmath>
#include <string>
#include <vector>

#include "filters/filter_spec.h"
#include "filters/range/elias_fano.h"
#include "filters/range/fixed_divisor.h"
#include "filters/range/radix_sort.h"
#include "filters/range/range_filter.h"
#include "filters/range/range_serialization.h"
#include "filters/registry.h"
#include "hashing/remix.h"

namespace filterlab::grafite {
namespace {

constexpr char kVariantName[] = "grafite";
constexpr uint64_t kPrime = (uint64_t{1} << 61) - 1;
constexpr uint64_t kMaxReducedUniverse = uint64_t{1} << 60;

// (a y + b) mod p for a, b < p, any y.
inline uint64_t MulAddModMersenne61(uint64_t a, uint64_t y, uint64_t b) {
  const unsigned __int128 t = static_cast<unsigned __int128>(a) * (y % kPrime) + b;
  uint64_t r = static_cast<uint64_t>(t & kPrime) + static_cast<uint64_t>(t >> 61);
  r = (r & kPrime) + (r >> 61);
  return r >= kPrime ? r - kPrime : r;
}

// The bound n l ceil(p/r)/p for n keys, reduced universe r, range length l.
double GrafiteBound(uint64_t n, uint64_t r, uint64_t l) {
  if (n == 0) return 0.0;
  if (l >= r) return 1.0;
  const double per_key = std::ceil(static_cast<double>(kPrime) / static_cast<double>(r)) / static_cast<double>(kPrime);
  return std::min(1.0, static_cast<double>(n) * static_cast<double>(l) * per_key);
}

struct GrafiteHash {
  uint64_t r = 1, a = 0, b = 0;
  FixedDivisor div;
  void Init() { div = FixedDivisor(r); }
  // Block offset q(block) in [0, r).
  uint64_t Offset(uint64_t block) const { return div.Mod(MulAddModMersenne61(a, block, b)); }
  uint64_t operator()(uint64_t x) const {
    uint64_t rem;
    const uint64_t block = div.DivMod(x, &rem);
    const uint64_t h = Offset(block) + rem;
    return h >= r ? h - r : h;
  }
};

GrafiteHash HashFromSeed(uint64_t r, uint64_t seed) {
  SplitMix64 rng(seed);
  GrafiteHash h;
  h.r = r;
  h.a = rng.Next() % kPrime;
  h.b = rng.Next() % kPrime;
  h.Init();
  return h;
}

class GrafiteFilter final : public RangeFilter {
 public:
  GrafiteFilter(uint64_t keys, GrafiteHash hash, ef::Stored set) : keys_(keys), hash_(hash), set_(std::move(set)) {}

  Status Validate() const { return set_.view().Validate(); }

  bool MayContainRange(uint64_t lo, uint64_t hi) const override {
    if (keys_ == 0) return false;
    const uint64_t r = hash_.r;
    if (hi - lo >= r - 1) return true;  // the image is all of [0, r)
    uint64_t rem;
    const uint64_t block = hash_.div.DivMod(lo, &rem);
    const uint64_t offset = hash_.Offset(block);
    if (rem + (hi - lo) < r) return Cyclic(Rotate(offset, rem), Rotate(offset, rem + (hi - lo)));
    // Crosses into block + 1: [lo, end of block] and [start of next, hi].
    const uint64_t next_offset = hash_.Offset(block + 1);
    return Cyclic(Rotate(offset, rem), Rotate(offset, r - 1)) ||
           Cyclic(next_offset, Rotate(next_offset, hi - (block + 1) * r));
  }
  bool MayContain(uint64_t key) const override {
    if (keys_ == 0) return false;
    const uint64_t h = hash_(key);
    return set_.view().AnyInRange(h, h);
  }

  // The bound counts every key, whatever the hashes collided into.
  double QueryModelFp(const uint64_t*, size_t, uint64_t lo, uint64_t hi) const override {
    const uint64_t len = hi - lo + 1;  // 0 only for the whole universe
    return GrafiteBound(keys_, hash_.r, len == 0 ? UINT64_MAX : len);
  }

  uint64_t num_keys() const override { return keys_; }
  size_t DataBytes() const override { return set_.data().size(); }
  void Serialize(std::string* out) const override { AppendRangeFilterBytes(set_.data(), Describe(), out); }
  std::string Describe() const override {
    return std::string(kVariantName) + ":keys=" + std::to_string(keys_) + ",r=" + std::to_string(hash_.r) +
           ",a=" + std::to_string(hash_.a) + ",b=" + std::to_string(hash_.b) +
           ",elements=" + std::to_string(set_.view().shape().n) + ",ef=" + std::to_string(set_.view().shape().format);
  }

 private:
  uint64_t Rotate(uint64_t offset, uint64_t rem) const {
    const uint64_t h = offset + rem;
    return h >= hash_.r ? h - hash_.r : h;
  }
  // Some hash in the cyclic interval from s to e.
  bool Cyclic(uint64_t s, uint64_t e) const {
    if (s <= e) return set_.view().AnyInRange(s, e);
    return set_.view().AnyInRange(s, hash_.r - 1) || set_.view().AnyInRange(0, e);
  }

  uint64_t keys_;
  GrafiteHash hash_;
  ef::Stored set_;
};

class GrafitePolicy final : public RangeFilterPolicy {
 public:
  // Exactly one sizing: bits per key (range optional, declared), or eps at range.
  GrafitePolicy(double bpk, double eps, uint64_t range, uint64_t seed, bool has_range)
      : bpk_(bpk), eps_(eps), range_(range), seed_(seed) {
    spec_ = std::string(kVariantName) + ":";
    if (!std::isnan(bpk)) {
      spec_ += "bpk=" + FormatNumber(bpk);
      if (has_range) spec_ += ",range=" + std::to_string(range);
    } else {
      spec_ += "eps=" + FormatNumber(eps) + ",range=" + std::to_string(range);
    }
    if (seed != kDefaultSeed) spec_ += ",seed=" + std::to_string(seed);
  }
  static constexpr uint64_t kDefaultSeed = 1;

  const std::string& spec() const override { return spec_; }
  std::string_view variant() const override { return kVariantName; }
  unsigned key_types() const override { return kRangeKeysUint64; }
  double bits_per_key() const override {
    return std::isnan(bpk_) ? 2 + std::log2(static_cast<double>(range_) / eps_) : bpk_;
  }

  // n / r for n keys, unrounded (r is its ceiling).
  double UniverseRatio() const { return std::isnan(bpk_) ? static_cast<double>(range_) / eps_ : std::exp2(bpk_ - 2); }
  Status ReducedUniverse(uint64_t n, uint64_t* r) const {
    const long double want = std::ceil(static_cast<long double>(n) * UniverseRatio());
    if (want > static_cast<long double>(kMaxReducedUniverse)) {
      return Status::InvalidArgument(spec_ + ": " + std::to_string(n) +
                                     " keys need a reduced universe r = " + FormatNumber(static_cast<double>(want)) +
                                     ", above the 2^60 this implementation allows; lower bpk (or raise eps)");
    }
    *r = std::max<uint64_t>(1, static_cast<uint64_t>(want));
    return Status::OK();
  }

  Status Build(const uint64_t* keys, size_t n, std::unique_ptr<RangeFilter>* out) const override {
    Status s = CheckSortedUnique(keys, n);
    if (!s.ok()) return s;
    uint64_t r = 0;
    s = ReducedUniverse(n, &r);
    if (!s.ok()) return s;
    const GrafiteHash hash = HashFromSeed(r, seed_);
    std::vector<uint64_t> hashes(n);
    for (size_t i = 0; i < n; ++i) hashes[i] = hash(keys[i]);
    RadixSortBelow(&hashes, r - 1);
    hashes.erase(std::unique(hashes.begin(), hashes.end()), hashes.end());
    *out = std::make_unique<GrafiteFilter>(n, hash, ef::BuildStored(hashes.data(), hashes.size(), r - 1));
    return Status::OK();
  }

  double ModelFpRate(uint64_t n, uint64_t range_len) const override {
    uint64_t r = 0;
    if (!ReducedUniverse(n, &r).ok()) return std::nan("");
    return GrafiteBound(n, r, range_len);
  }

  uint64_t BuildMemoryBytes(uint64_t n) const override {
    // The hashes and the radix sort's scratch, then the filter.
    return n * 16 + static_cast<uint64_t>(static_cast<double>(n) * (bits_per_key() + 0.5) / 8) + 64;
  }

 private:
  double bpk_;
  double eps_;
  uint64_t range_;
  uint64_t seed_;
  std::string spec_;
};

Status Create(FilterSpec& spec, std::unique_ptr<RangeFilterPolicy>* out) {
  const bool has_bpk = spec.Has("bpk"), has_eps = spec.Has("eps"), has_range = spec.Has("range");
  if (has_bpk && has_eps) {
    return Status::InvalidArgument(
        "grafite spec '" + spec.text() +
        "': give bpk (bits per key) or eps with range (FPR eps at range length L), not both");
  }
  if (has_eps && !has_range) {
    return Status::InvalidArgument("grafite spec '" + spec.text() +
                                   "': eps needs range=L (the FPR eps holds at length L)");
  }
  double bpk = std::nan(""), eps = std::nan("");
  long long range = 1, seed = 0;
  Status s;
  if (!has_eps) s = spec.GetDouble("bpk", 16.0, 3.0, 62.0, &bpk);
  if (s.ok() && has_eps) s = spec.GetDouble("eps", 0.01, 1e-15, 1.0, &eps);
  if (s.ok()) s = spec.GetInt("range", 1LL, 1LL, 1LL << 40, &range);
  if (s.ok()) s = spec.GetInt("seed", static_cast<long long>(GrafitePolicy::kDefaultSeed), 0LL, LLONG_MAX, &seed);
  if (s.ok()) s = spec.Finish({"bpk", "eps", "range", "seed"});
  if (!s.ok()) return s;
  *out =
      std::make_unique<GrafitePolicy>(bpk, eps, static_cast<uint64_t>(range), static_cast<uint64_t>(seed), has_range);
  return Status::OK();
}

// Layout "grafite:keys=N,r=R,a=A,b=B,elements=M,ef=3" (ef: elias_fano.h's kFormatVersion; format 2 is read too).
Status OpenLayout(FilterSpec& layout, Slice data, std::unique_ptr<RangeFilter>* out) {
  for (const char* key : {"keys", "r", "a", "b", "elements"}) {
    if (!layout.Has(key)) return Status::Corruption("grafite layout '" + layout.text() + "' lacks '" + key + "'");
  }
  long long keys = 0, r = 0, a = 0, b = 0, elements = 0, version = 0;
  const bool has_version = layout.Has("ef");
  Status s = layout.GetInt("keys", 0LL, 0LL, LLONG_MAX, &keys);
  if (s.ok()) s = layout.GetInt("r", 1LL, 1LL, static_cast<long long>(kMaxReducedUniverse), &r);
  if (s.ok()) s = layout.GetInt("a", 0LL, 0LL, static_cast<long long>(kPrime - 1), &a);
  if (s.ok()) s = layout.GetInt("b", 0LL, 0LL, static_cast<long long>(kPrime - 1), &b);
  if (s.ok()) s = layout.GetInt("elements", 0LL, 0LL, keys, &elements);
  if (s.ok()) s = layout.GetInt("ef", 0LL, 0LL, LLONG_MAX, &version);
  if (s.ok()) s = layout.Finish({"keys", "r", "a", "b", "elements", "ef"});
  if (!s.ok()) return Status::Corruption(s.message());
  s = ef::CheckFormatVersion(has_version, version, "grafite layout '" + layout.text() + "'");
  if (!s.ok()) return s;
  if ((keys == 0) != (elements == 0) || elements > r) {
    return Status::Corruption("grafite layout '" + layout.text() + "': " + std::to_string(elements) +
                              " distinct hashes cannot come from " + std::to_string(keys) + " keys in [0, " +
                              std::to_string(r) + ")");
  }
  ef::Shape shape;
  s = ef::ShapeForData(static_cast<uint64_t>(elements), static_cast<uint64_t>(r) - 1, static_cast<int>(version),
                       data.size(), "grafite layout '" + layout.text() + "' (Elias-Fano of its hashes)", &shape);
  if (!s.ok()) return s;
  GrafiteHash hash;
  hash.r = static_cast<uint64_t>(r);
  hash.a = static_cast<uint64_t>(a);
  hash.b = static_cast<uint64_t>(b);
  hash.Init();
  auto f = std::make_unique<GrafiteFilter>(static_cast<uint64_t>(keys), hash, ef::Stored(shape, data));
  s = f->Validate();
  if (!s.ok()) return Status::Corruption("grafite: " + s.message());
  *out = std::move(f);
  return Status::OK();
}

FILTERLAB_REGISTER_RANGE_FILTER(RangeFilterVariant{
    kVariantName,
    "Grafite (Costa, Ferragina, Vinciguerra, SIGMOD 2024): order-preserving pairwise-independent hash into "
    "r = nL/eps, Elias-Fano; FPR <= l/2^(B-2) for any keys and queries",
    "bpk=3..62 (bits per key: r = n 2^(bpk-2); default 16) or eps=1e-15..1 with range=1..2^40 (r = n range/eps); "
    "range with bpk declares the range length of interest; seed=0.. (hash parameters, default 1)",
    &Create,
    &OpenLayout,
    {"grafite:bpk=16", "grafite:eps=0.001,range=256"},
    kRangeKeysUint64,
    FpModelKind::kUpperBound,
    /*dynamic=*/false});

}  // namespace
}  // namespace filterlab::grafite
