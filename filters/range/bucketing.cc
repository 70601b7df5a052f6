// Bucketing: the heuristic baseline of Costa, Ferragina and Vinciguerra,
// "Grafite" (SIGMOD 2024), Section 4. Variant "bucketing:bpk=B".
//
// What it is. The key universe [0, u) (u = the largest key + 1) is cut into
// buckets of s = ceil(u / (n 2^(B-2))) consecutive values; the distinct
// bucket ids key / s are stored in Elias-Fano (elias_fano.h), which spends
// about B bits per key for n ids up to n 2^(B-2). A range [lo, hi] may hold a
// key when some stored id lies in [lo / s, hi / s].
//
// FP (kind empirical: the paper gives no model, only the argument). A range
// is a false positive exactly when it shares a bucket with a key. For keys
// and queries placed independently that is rare: with u/s ~ n 2^(B-2) buckets
// and n keys, about (l/s + 1) n s / u ~ (l/s + 1) 2^-(B-2). But a query whose
// left end lies a little after a key (a correlated query, left = key +
// U[1, 2^k] with 2^k << s) lands in that key's bucket and is always answered
// true: this is what the baseline is there to show.
#include <algorithm>
#include <climits>
#include <cmath>
#include <string>
#include <vector>

#include "filters/filter_spec.h"
#include "filters/range/elias_fano.h"
#include "filters/range/fixed_divisor.h"
#include "filters/range/range_filter.h"
#include "filters/range/range_serialization.h"
#include "filters/registry.h"

namespace filterlab::bucketing {
namespace {

constexpr char kVariantName[] = "bucketing";

class BucketingFilter final : public RangeFilter {
 public:
  BucketingFilter(uint64_t keys, uint64_t bucket, ef::Stored set)
      : keys_(keys), bucket_(bucket), set_(std::move(set)) {}

  Status Validate() const { return set_.view().Validate(); }

  bool MayContainRange(uint64_t lo, uint64_t hi) const override {
    return set_.view().AnyInRange(bucket_.Div(lo), bucket_.Div(hi));
  }
  uint64_t num_keys() const override { return keys_; }
  size_t DataBytes() const override { return set_.data().size(); }
  void Serialize(std::string* out) const override { AppendRangeFilterBytes(set_.data(), Describe(), out); }
  std::string Describe() const override {
    return std::string(kVariantName) + ":keys=" + std::to_string(keys_) +
           ",bucket=" + std::to_string(bucket_.divisor()) + ",elements=" + std::to_string(set_.view().shape().n) +
           ",max=" + std::to_string(set_.view().shape().max) + ",ef=" + std::to_string(set_.view().shape().format);
  }

 private:
  uint64_t keys_;
  FixedDivisor bucket_;  // key -> bucket id
  ef::Stored set_;
};

class BucketingPolicy final : public RangeFilterPolicy {
 public:
  explicit BucketingPolicy(double bpk) : bpk_(bpk), spec_(std::string(kVariantName) + ":bpk=" + FormatNumber(bpk)) {}

  const std::string& spec() const override { return spec_; }
  std::string_view variant() const override { return kVariantName; }
  unsigned key_types() const override { return kRangeKeysUint64; }
  double bits_per_key() const override { return bpk_; }

  // s = ceil(u / (n 2^(B-2))), at least 1 (Grafite's bucket constructor from bpk).
  uint64_t BucketSize(uint64_t n, uint64_t max_key) const {
    const long double u = static_cast<long double>(max_key) + 1;
    const long double s = std::ceil(u / (static_cast<long double>(n) * std::exp2(static_cast<long double>(bpk_) - 2)));
    // Ids stay below 2^62 so a layout states them as a signed 64-bit number
    // (this only binds at absurd bpk, above a lossless encoding).
    const uint64_t floor_for_ids = (max_key >> 62) + 1;
    if (!(s >= 1)) return floor_for_ids;
    if (s >= static_cast<long double>(UINT64_MAX)) return UINT64_MAX;
    return std::max(static_cast<uint64_t>(s), floor_for_ids);
  }

  Status Build(const uint64_t* keys, size_t n, std::unique_ptr<RangeFilter>* out) const override {
    Status s = CheckSortedUnique(keys, n);
    if (!s.ok()) return s;
    const uint64_t bucket = n == 0 ? 1 : BucketSize(n, keys[n - 1]);
    const FixedDivisor div(bucket);
    std::vector<uint64_t> ids;
    ids.reserve(n);
    for (size_t i = 0; i < n; ++i) {
      const uint64_t id = div.Div(keys[i]);
      if (ids.empty() || ids.back() != id) ids.push_back(id);
    }
    *out = std::make_unique<BucketingFilter>(n, bucket,
                                             ef::BuildStored(ids.data(), ids.size(), ids.empty() ? 0 : ids.back()));
    return Status::OK();
  }

  double ModelFpRate(uint64_t, uint64_t) const override { return std::nan(""); }

  uint64_t BuildMemoryBytes(uint64_t n) const override {
    return n * 8 + static_cast<uint64_t>(static_cast<double>(n) * (bpk_ + 0.5) / 8) + 64;
  }

 private:
  double bpk_;
  std::string spec_;
};

Status Create(FilterSpec& spec, std::unique_ptr<RangeFilterPolicy>* out) {
  double bpk = 0;
  Status s = spec.GetDouble("bpk", 16.0, 2.0, 62.0, &bpk);
  if (s.ok()) s = spec.Finish({"bpk"});
  if (!s.ok()) return s;
  *out = std::make_unique<BucketingPolicy>(bpk);
  return Status::OK();
}

// Layout "bucketing:keys=N,bucket=S,elements=M,max=ID,ef=3" (ef: elias_fano.h's kFormatVersion; format 2 is read too).
Status OpenLayout(FilterSpec& layout, Slice data, std::unique_ptr<RangeFilter>* out) {
  for (const char* key : {"keys", "bucket", "elements", "max"}) {
    if (!layout.Has(key)) return Status::Corruption("bucketing layout '" + layout.text() + "' lacks '" + key + "'");
  }
  long long keys = 0, bucket = 0, elements = 0, max = 0, version = 0;
  const bool has_version = layout.Has("ef");
  Status s = layout.GetInt("keys", 0LL, 0LL, LLONG_MAX, &keys);
  if (s.ok()) s = layout.GetInt("bucket", 1LL, 1LL, LLONG_MAX, &bucket);
  if (s.ok()) s = layout.GetInt("elements", 0LL, 0LL, keys, &elements);
  if (s.ok()) s = layout.GetInt("max", 0LL, 0LL, LLONG_MAX, &max);
  if (s.ok()) s = layout.GetInt("ef", 0LL, 0LL, LLONG_MAX, &version);
  if (s.ok()) s = layout.Finish({"keys", "bucket", "elements", "max", "ef"});
  if (!s.ok()) return Status::Corruption(s.message());
  s = ef::CheckFormatVersion(has_version, version, "bucketing layout '" + layout.text() + "'");
  if (!s.ok()) return s;
  if ((keys == 0) != (elements == 0) ||
      (elements > 0 && static_cast<unsigned long long>(elements - 1) > static_cast<unsigned long long>(max))) {
    return Status::Corruption("bucketing layout '" + layout.text() + "': " + std::to_string(elements) +
                              " distinct bucket ids do not fit " + std::to_string(keys) + " keys and ids up to " +
                              std::to_string(max));
  }
  ef::Shape shape;
  s = ef::ShapeForData(static_cast<uint64_t>(elements), static_cast<uint64_t>(max), static_cast<int>(version),
                       data.size(), "bucketing layout '" + layout.text() + "'", &shape);
  if (!s.ok()) return s;
  auto f = std::make_unique<BucketingFilter>(static_cast<uint64_t>(keys), static_cast<uint64_t>(bucket),
                                             ef::Stored(shape, data));
  s = f->Validate();
  if (!s.ok()) return Status::Corruption("bucketing: " + s.message());
  *out = std::move(f);
  return Status::OK();
}

FILTERLAB_REGISTER_RANGE_FILTER(RangeFilterVariant{
    kVariantName,
    "Grafite's heuristic baseline: Elias-Fano over the distinct ids of buckets of u/(n 2^(B-2)) values; fails on "
    "correlated queries",
    "bpk=2..62 (bits per key, default 16)",
    &Create,
    &OpenLayout,
    {"bucketing:bpk=16"},
    kRangeKeysUint64,
    FpModelKind::kEmpirical,
    /*dynamic=*/false});

}  // namespace
}  // namespace filterlab::bucketing
