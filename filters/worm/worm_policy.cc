// Registry glue for the wormhashing family: the spec
// `worm:variant=NAME,bpk=B,probes=K,hash=32|64`, one alias per sub-variant
// (`cache_mul64_block:bpk=10.3,probes=6` means
// `worm:variant=cache_mul64_block,bpk=10.3,probes=6`; both go through
// CreateWormPolicy), the policy (sizing, key hashing, model) and the reader
// of serialized worm filters.
#include <algorithm>
#include <cmath>
#include <deque>
#include <limits>
#include <optional>

#include "filters/bits_per_key.h"
#include "filters/registry.h"
#include "filters/worm/worm_scheme.h"
#include "hashing/xxh3.h"

namespace filterlab::worm {
namespace {

// Every sub-variant's sizes come from the same rule: n keys at b bits/key
// want ceil(n * b) bits (b held as millibits, bits_per_key.h), rounded up to
// the variant's unit.
class WormPolicy final : public FilterPolicy {
 public:
  WormPolicy(const WormSubVariant* v, uint64_t millibits_per_key, int probes, HashWidth width)
      : v_(v), millibits_per_key_(millibits_per_key), probes_(probes), width_(width) {
    spec_ = "worm:variant=" + std::string(v->name) + ",bpk=" + FormatNumber(bits_per_key()) +
            ",probes=" + std::to_string(probes) + ",hash=" + HashWidthText(width);
  }

  const std::string& spec() const override { return spec_; }
  std::string_view variant() const override { return "worm"; }
  HashWidth hash_width() const override { return width_; }
  double bits_per_key() const override { return static_cast<double>(millibits_per_key_) / 1000.0; }
  std::optional<int> num_probes() const override { return probes_; }
  FpModelKind fp_model_kind() const { return v_->model_kind(probes_, width_); }
  double fp_model_max_relative_error() const { return v_->model_max_relative_error(probes_, width_); }

  // filterlab's own variants: XXH3_64 (libxxhash); hash=32 keeps its low 32 bits.
  uint64_t HashKey(Slice key) const override {
    const uint64_t h = XXH3_64(key.data(), key.size());
    return width_ == HashWidth::k32 ? Lower32(h) : h;
  }

  Status Build(const uint64_t* hashes, size_t n, std::unique_ptr<Filter>* out) const override {
    WormShape shape;
    Status s = SizeShape(*v_, width_, probes_, BitsForKeys(n, millibits_per_key_), &shape);
    if (!s.ok())
      return Status::InvalidArgument("filter spec '" + spec_ + "' with " + std::to_string(n) + " keys: " + s.message());
    *out = v_->build(v_, shape, hashes, n);
    return Status::OK();
  }

  // Zero keys: nothing was added, every answer is no.
  double ModelFpRate(size_t n) const override {
    if (n == 0) return 0.0;
    WormShape shape;
    if (!SizeShape(*v_, width_, probes_, BitsForKeys(n, millibits_per_key_), &shape).ok()) {
      return std::numeric_limits<double>::quiet_NaN();  // Build refuses this n too
    }
    return WormModelFpRate(*v_, shape, static_cast<double>(n));
  }

 private:
  static uint32_t Lower32(uint64_t h) { return static_cast<uint32_t>(h); }

  const WormSubVariant* v_;
  uint64_t millibits_per_key_;
  int probes_;
  HashWidth width_;
  std::string spec_;
};

// Default probes (documented per family beside the schemes):
// kStandard: round(b ln 2), the original harness's K = 0 rule;
// kModelOptimal: the smallest k whose model FP (at b bits/key, a million
// keys) is within 1% of the best k's: near the optimum the FP curve is flat
// (at 10 bits/key the 512-bit line model gives 0.009576 at k = 6 and 0.009571
// at k = 7), and a probe less is cheaper. For the line model this reproduces
// RocksDB's independently tuned FastLocalBloom table (6 probes at 10
// bits/key, 8 at 14, 9 at 16, 11 at 20; worm_test checks).
int DefaultProbes(const WormSubVariant& v, double bits_per_key, HashWidth width) {
  if (v.default_probes == DefaultProbes::kStandard) {
    const int k = static_cast<int>(std::lround(bits_per_key * std::log(2.0)));
    return std::clamp(k, v.min_probes, v.max_probes);
  }
  constexpr uint64_t kKeys = 1000000;
  constexpr double kFlatEnough = 1.01;
  constexpr double kPastTheOptimum = 2.0;
  const uint64_t wanted = BitsForKeys(kKeys, MillibitsPerKey(bits_per_key));
  std::vector<double> fp(static_cast<size_t>(v.max_probes + 1), 2.0);
  double best = 2.0;
  for (int k = v.min_probes; k <= v.max_probes; ++k) {
    WormShape shape;
    if (!SizeShape(v, width, k, wanted, &shape).ok()) continue;
    fp[static_cast<size_t>(k)] = WormModelFpRate(v, shape, static_cast<double>(kKeys));
    best = std::min(best, fp[static_cast<size_t>(k)]);
    // Past the optimum each further probe only fills the filter more (FP
    // against k falls, then rises): once it is twice the best, no larger k
    // can come back within 1%. Stops cache_dbl's exact model (2^k terms)
    // from being evaluated up to 30 probes for a default of 6.
    if (fp[static_cast<size_t>(k)] > kPastTheOptimum * best) break;
  }
  for (int k = v.min_probes; k <= v.max_probes; ++k) {
    if (fp[static_cast<size_t>(k)] <= best * kFlatEnough) return k;
  }
  return v.min_probes;
}

// Parses everything but the sub-variant name; `spec` is either the worm spec
// or an alias spec.
Status CreateWormPolicy(FilterSpec& spec, const WormSubVariant& v, std::unique_ptr<FilterPolicy>* out) {
  std::vector<HashWidth> widths;
  if (v.allows_hash32) widths.push_back(HashWidth::k32);
  if (v.allows_hash64) widths.push_back(HashWidth::k64);
  HashWidth width;
  Status s = widths.size() == 2 ? spec.GetHashWidth(v.default_width, {HashWidth::k32, HashWidth::k64}, &width)
                                : spec.GetHashWidth(v.default_width, {widths[0]}, &width);
  if (!s.ok()) {
    const bool from32 = std::string_view(v.name).ends_with("_from32");
    return Status::InvalidArgument(
        s.message() + "; worm variant " + v.name +
        (from32 ? " uses only the low 32 bits of the hash (it is its base variant with hash=32; use the base "
                  "name for hash=64)"
                : " is a 32-bit-hash design"));
  }
  double bpk = 0;
  s = spec.GetDouble("bpk", 10.0, 0.5, 100.0, &bpk);
  if (!s.ok()) return s;
  int probes = 0;
  // The default only when asked for: for a model-optimal variant it
  // evaluates the model for every probe count.
  const int default_probes = spec.Has("probes") ? v.min_probes : DefaultProbes(v, bpk, width);
  s = spec.GetInt("probes", default_probes, v.min_probes, v.max_probes, &probes);
  if (!s.ok()) return Status::InvalidArgument(s.message() + " for worm variant " + v.name + " (" + v.probes_rule + ")");
  // An alias names its sub-variant itself, so variant= is the worm spec's key only.
  s = spec.variant() == "worm" ? spec.Finish({"variant", "bpk", "probes", "hash"})
                               : spec.Finish({"bpk", "probes", "hash"});
  if (!s.ok()) return s;
  *out = std::make_unique<WormPolicy>(&v, MillibitsPerKey(bpk), probes, width);
  return Status::OK();
}

// The registration's fp_model_of: only ever asked about policies whose
// variant() is "worm", which are WormPolicy objects.
FpModelKind WormFpModelKind(const FilterPolicy& policy) {
  return static_cast<const WormPolicy&>(policy).fp_model_kind();
}
double WormFpModelError(const FilterPolicy& policy) {
  return static_cast<const WormPolicy&>(policy).fp_model_max_relative_error();
}

Status UnknownSubVariant(const FilterSpec& spec, const std::string& name) {
  return Status::InvalidArgument("filter spec '" + spec.text() + "': unknown worm variant '" + name +
                                 "'; known worm variants: " + KnownWormSubVariantNames());
}

// worm:variant=NAME,...
Status CreateWorm(FilterSpec& spec, std::unique_ptr<FilterPolicy>* out) {
  std::string name;
  if (!spec.GetRaw("variant", &name)) {
    return Status::InvalidArgument("filter spec '" + spec.text() +
                                   "': worm needs variant=NAME; known worm variants: " + KnownWormSubVariantNames());
  }
  const WormSubVariant* v = FindWormSubVariant(name);
  if (v == nullptr) return UnknownSubVariant(spec, name);
  return CreateWormPolicy(spec, *v, out);
}

// NAME:... for a sub-variant NAME: the registry only dispatches registered
// names here, so the lookup succeeds.
Status CreateAlias(FilterSpec& spec, std::unique_ptr<FilterPolicy>* out) {
  const WormSubVariant* v = FindWormSubVariant(spec.variant());
  if (v == nullptr) return UnknownSubVariant(spec, spec.variant());
  return CreateWormPolicy(spec, *v, out);
}

// Reader of "worm:variant=NAME,hash=W,probes=K,bits=M" layouts.
Status OpenWormLayout(FilterSpec& layout, Slice data, std::unique_ptr<Filter>* out) {
  for (const char* key : {"variant", "hash", "probes", "bits"}) {
    if (!layout.Has(key)) {
      return Status::Corruption("worm filter layout '" + layout.text() + "' lacks '" + key +
                                "' (expected variant, hash, probes, bits)");
    }
  }
  std::string name;
  layout.GetRaw("variant", &name);
  const WormSubVariant* v = FindWormSubVariant(name);
  if (v == nullptr) {
    return Status::Corruption("worm filter layout '" + layout.text() + "' names unknown worm variant '" + name +
                              "'; known: " + KnownWormSubVariantNames());
  }
  HashWidth width;
  Status s = layout.GetHashWidth(v->default_width, {HashWidth::k32, HashWidth::k64}, &width);
  if (s.ok() && !(width == HashWidth::k32 ? v->allows_hash32 : v->allows_hash64)) {
    s = Status::InvalidArgument("hash=" + HashWidthText(width) + " is not a width " + v->name + " supports");
  }
  int probes = 0;
  if (s.ok()) s = layout.GetInt("probes", 0, v->min_probes, v->max_probes, &probes);
  long long bits = 0;
  if (s.ok()) s = layout.GetInt("bits", 0LL, 1LL, std::numeric_limits<long long>::max(), &bits);
  if (s.ok()) s = layout.Finish({"variant", "hash", "probes", "bits"});
  if (!s.ok()) return Status::Corruption("worm filter layout: " + s.message());
  WormShape shape;
  s = ShapeFromLayout(*v, width, probes, static_cast<uint64_t>(bits), &shape);
  if (!s.ok()) return s;
  if (data.size() != shape.storage_words() * 8) {
    return Status::Corruption("worm filter data is " + std::to_string(data.size()) + " bytes; layout '" +
                              layout.text() + "' needs " + std::to_string(shape.storage_words() * 8));
  }
  *out = v->open(v, shape, data);
  return Status::OK();
}

std::vector<std::string> WormExamples() {
  std::vector<std::string> out;
  for (const WormSubVariant* v : AllWormSubVariants())
    out.push_back("worm:variant=" + std::string(v->name) + ",bpk=10");
  return out;
}

// Registers "worm" and one alias per sub-variant. The alias entries' texts
// must outlive the registry, hence the static deque.
const bool kRegistered = [] {
  internal::FilterRegistrar worm(FilterVariant{
      "worm", "the wormhashing Bloom family (foo.cc variants, flagged-broken ones repaired); variant= picks one",
      "variant=NAME (required) bpk=0.5..100 probes=per variant hash=32|64 per variant", &CreateWorm, &OpenWormLayout,
      nullptr, WormExamples(), FpModelKind::kExact, &WormFpModelKind, /*has_probes=*/true,
      /*fp_model_max_relative_error=*/0, &WormFpModelError});
  static std::deque<std::string> texts;
  for (const WormSubVariant* v : AllWormSubVariants()) {
    const std::string widths = v->allows_hash32 && v->allows_hash64 ? "32|64 (default 64)"
                               : v->allows_hash32                   ? "32"
                                                                    : "64";
    texts.push_back("alias of worm:variant=" + std::string(v->name) + "; " + v->summary);
    const char* summary = texts.back().c_str();
    texts.push_back("bpk=0.5..100 probes=" + std::to_string(v->min_probes) + ".." + std::to_string(v->max_probes) +
                    " hash=" + widths);
    const char* params = texts.back().c_str();
    // An alias's policies are worm policies (variant() "worm"), so the kind
    // comes from the worm registration; these fields only describe it.
    internal::FilterRegistrar alias(FilterVariant{v->name,
                                                  summary,
                                                  params,
                                                  &CreateAlias,
                                                  nullptr,
                                                  nullptr,
                                                  {},
                                                  FpModelKind::kExact,
                                                  &WormFpModelKind,
                                                  /*has_probes=*/true,
                                                  /*fp_model_max_relative_error=*/0,
                                                  &WormFpModelError});
  }
  return true;
}();

}  // namespace
}  // namespace filterlab::worm
