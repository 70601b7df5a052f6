#include "filters/registry.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <mutex>
#include <stdexcept>
#include <string>
#include <unordered_map>

#include "filters/trailer.h"

namespace filterlab {
namespace {

std::map<std::string, FilterVariant>& Registry() {
  static auto* registry = new std::map<std::string, FilterVariant>();
  return *registry;
}

std::map<std::string, RangeFilterVariant>& RangeRegistry() {
  static auto* registry = new std::map<std::string, RangeFilterVariant>();
  return *registry;
}

template <typename Map>
std::string NamesOf(const Map& map) {
  std::string s;
  for (const auto& [name, v] : map) {
    if (!s.empty()) s += ", ";
    s += name;
  }
  return s;
}
std::string KnownVariantNames() { return NamesOf(Registry()); }

// Point and range variants share one name space: a spec names one filter.
void RefuseNameTakenByOtherKind(const std::string& name, bool taken, const char* other_kind) {
  if (!taken) return;
  std::fprintf(stderr, "filterlab: filter variant name '%s' registered twice (already a %s variant)\n", name.c_str(),
               other_kind);
  std::abort();
}

// A filter with no keys (RocksDB writes an empty slice, or total length <= 5):
// every query is a definite no.
class AlwaysFalseFilter final : public Filter {
 public:
  bool MayContain(uint64_t) const override { return false; }
  size_t DataBytes() const override { return 0; }
  void Serialize(std::string*) const override {}
  std::string Describe() const override { return "always_false"; }
  HashWidth hash_width() const override { return HashWidth::k64; }
};

// RocksDB's marker 0: a filter that matches everything (written for
// compatibility; carries no information).
class AlwaysTrueFilter final : public Filter {
 public:
  explicit AlwaysTrueFilter(Slice bytes) : bytes_(bytes) {}
  bool MayContain(uint64_t) const override { return true; }
  size_t DataBytes() const override { return bytes_.size() - 5; }
  void Serialize(std::string* out) const override { out->append(bytes_.data(), bytes_.size()); }
  std::string Describe() const override { return "always_true"; }
  HashWidth hash_width() const override { return HashWidth::k64; }

 private:
  Slice bytes_;
};

}  // namespace

namespace internal {
FilterRegistrar::FilterRegistrar(FilterVariant variant) {
  std::string name = variant.name;
  RefuseNameTakenByOtherKind(name, RangeRegistry().count(name) > 0, "range filter");
  Registry().emplace(std::move(name), std::move(variant));
}
FilterRegistrar::FilterRegistrar(RangeFilterVariant variant) {
  std::string name = variant.name;
  RefuseNameTakenByOtherKind(name, Registry().count(name) > 0, "point filter");
  RangeRegistry().emplace(std::move(name), std::move(variant));
}
}  // namespace internal

std::vector<const FilterVariant*> RegisteredFilterVariants() {
  std::vector<const FilterVariant*> out;
  for (const auto& [name, v] : Registry()) out.push_back(&v);
  return out;
}

const FilterVariant* FindFilterVariant(std::string_view name) {
  auto it = Registry().find(std::string(name));
  return it == Registry().end() ? nullptr : &it->second;
}

std::vector<std::string> AllExampleSpecs() {
  std::vector<std::string> out;
  for (const auto* v : RegisteredFilterVariants()) {
    for (const auto& e : v->examples_at_10_bpk) out.push_back(e);
  }
  return out;
}

FpModelKind FpModelKindOf(const FilterPolicy& policy) {
  const FilterVariant* v = FindFilterVariant(policy.variant());
  if (v == nullptr) return FpModelKind::kExact;
  return v->fp_model_of != nullptr ? v->fp_model_of(policy) : v->fp_model;
}

FpModelClaim FpModelClaimOf(const FilterPolicy& policy) {
  FpModelClaim claim;
  claim.kind = FpModelKindOf(policy);
  if (claim.kind != FpModelKind::kApproximation) return claim;
  const FilterVariant* v = FindFilterVariant(policy.variant());
  if (v != nullptr) {
    claim.max_relative_error =
        v->fp_model_error_of != nullptr ? v->fp_model_error_of(policy) : v->fp_model_max_relative_error;
  }
  return claim;
}

namespace {

// ModelFpRateAt's memo. Some models cost a millisecond (software quad precision, sums over
// patterns), and the level allocation asks every point of a family's menu at every level each time
// it solves (Options::Validate, RewriteFilters, each flush's NoteTableFilter), mostly at key counts
// it asked before. A registered variant's model is a function of its canonical spec and n, so the
// pair is the key; policies of unregistered variants (test doubles) are not memoized. Bounded:
// cleared when full.
class ModelMemo {
 public:
  static constexpr size_t kMaxEntries = size_t{1} << 16;

  bool Find(const std::string& key, double* fp) {
    std::lock_guard<std::mutex> lock(mu_);
    const auto it = values_.find(key);
    if (it == values_.end()) return false;
    *fp = it->second;
    return true;
  }
  void Put(const std::string& key, double fp) {
    std::lock_guard<std::mutex> lock(mu_);
    if (values_.size() >= kMaxEntries) values_.clear();
    values_.emplace(key, fp);
  }

 private:
  std::mutex mu_;
  std::unordered_map<std::string, double> values_;
};

ModelMemo& Memo() {
  static ModelMemo* memo = new ModelMemo;  // never destroyed: flush threads may outlive static teardown
  return *memo;
}

}  // namespace

Status ModelFpRateAt(const FilterPolicy& policy, size_t n, double* fp) {
  const bool memoized = FindFilterVariant(policy.variant()) != nullptr;
  const std::string key = memoized ? policy.spec() + "@" + std::to_string(n) : std::string();
  if (memoized && Memo().Find(key, fp)) return Status::OK();
  try {
    *fp = policy.ModelFpRate(n);
    if (memoized) Memo().Put(key, *fp);
    return Status::OK();
  } catch (const std::logic_error& e) {  // std::invalid_argument, std::domain_error (fp_model_internal.h)
    return Status::InvalidArgument(policy.spec() + ": no model FP rate at " + std::to_string(n) + " keys: " + e.what());
  } catch (const std::runtime_error& e) {  // std::range_error, std::overflow_error
    return Status::InvalidArgument(policy.spec() + ": no model FP rate at " + std::to_string(n) + " keys: " + e.what());
  }
}

Status NewFilterPolicy(std::string_view spec_text, std::unique_ptr<FilterPolicy>* out,
                       std::vector<std::string>* accepted_keys) {
  FilterSpec spec;
  Status s = FilterSpec::Parse(spec_text, &spec);
  if (!s.ok()) return s;
  const FilterVariant* v = FindFilterVariant(spec.variant());
  if (v == nullptr && FindRangeFilterVariant(spec.variant()) != nullptr) {
    return Status::InvalidArgument("filter spec '" + spec.text() + "': '" + spec.variant() +
                                   "' is a range filter, not a point filter; point filters: " + KnownVariantNames());
  }
  if (v == nullptr) {
    return Status::InvalidArgument("filter spec '" + spec.text() + "': unknown filter variant '" + spec.variant() +
                                   "'; known variants: " + KnownVariantNames());
  }
  s = v->create(spec, out);
  if (s.ok() && accepted_keys != nullptr) *accepted_keys = spec.accepted_keys();
  return s;
}

Status NewFilterPolicy(std::string_view spec_text, std::unique_ptr<FilterPolicy>* out) {
  return NewFilterPolicy(spec_text, out, nullptr);
}

std::vector<const RangeFilterVariant*> RegisteredRangeFilterVariants() {
  std::vector<const RangeFilterVariant*> out;
  for (const auto& [name, v] : RangeRegistry()) out.push_back(&v);
  return out;
}

const RangeFilterVariant* FindRangeFilterVariant(std::string_view name) {
  auto it = RangeRegistry().find(std::string(name));
  return it == RangeRegistry().end() ? nullptr : &it->second;
}

std::vector<std::string> AllRangeExampleSpecs() {
  std::vector<std::string> out;
  for (const auto* v : RegisteredRangeFilterVariants()) {
    for (const auto& e : v->examples) out.push_back(e);
  }
  return out;
}

FpModelKind RangeFpModelKindOf(const RangeFilterPolicy& policy) {
  const RangeFilterVariant* v = FindRangeFilterVariant(policy.variant());
  return v == nullptr ? FpModelKind::kExact : v->fp_model;
}

Status NewRangeFilterPolicy(std::string_view spec_text, std::unique_ptr<RangeFilterPolicy>* out,
                            std::vector<std::string>* accepted_keys) {
  FilterSpec spec;
  Status s = FilterSpec::Parse(spec_text, &spec);
  if (!s.ok()) return s;
  const RangeFilterVariant* v = FindRangeFilterVariant(spec.variant());
  if (v == nullptr && FindFilterVariant(spec.variant()) != nullptr) {
    return Status::InvalidArgument(
        "range filter spec '" + spec.text() + "': '" + spec.variant() +
        "' is a point filter, not a range filter; range filters: " + NamesOf(RangeRegistry()));
  }
  if (v == nullptr) {
    return Status::InvalidArgument("range filter spec '" + spec.text() + "': unknown range filter variant '" +
                                   spec.variant() + "'; known range filters: " + NamesOf(RangeRegistry()));
  }
  s = v->create(spec, out);
  if (s.ok() && accepted_keys != nullptr) *accepted_keys = spec.accepted_keys();
  return s;
}

Status NewRangeFilterPolicy(std::string_view spec_text, std::unique_ptr<RangeFilterPolicy>* out) {
  return NewRangeFilterPolicy(spec_text, out, nullptr);
}

Status OpenFilter(Slice bytes, std::unique_ptr<Filter>* out) {
  if (HasFilterlabTrailer(bytes)) {
    Slice data;
    std::string layout_text;
    Status s = ParseFilterlabTrailer(bytes, &data, &layout_text);
    if (!s.ok()) return s;
    FilterSpec layout;
    s = FilterSpec::Parse(layout_text, &layout);
    if (!s.ok()) return Status::Corruption("filterlab trailer layout is malformed: " + s.message());
    const FilterVariant* v = FindFilterVariant(layout.variant());
    if (v == nullptr || v->open_layout == nullptr) {
      return Status::Corruption("filterlab trailer names variant '" + layout.variant() +
                                "', which has no reader in this build; known variants: " + KnownVariantNames());
    }
    s = v->open_layout(layout, data, out);
    if (!s.ok() && !s.IsCorruption()) s = Status::Corruption(s.message());
    return s;
  }
  // RocksDB's dispatch (BuiltinFilterPolicy::GetBuiltinFilterBitsReader, table/block_based/filter_policy.cc).
  if (bytes.size() <= 5) {
    *out = std::make_unique<AlwaysFalseFilter>();
    return Status::OK();
  }
  const auto marker = static_cast<int8_t>(bytes[bytes.size() - 5]);
  if (marker == 0) {
    *out = std::make_unique<AlwaysTrueFilter>(bytes);
    return Status::OK();
  }
  for (const auto& [name, v] : Registry()) {
    if (v.open_native == nullptr) continue;
    Status s = v.open_native(bytes, out);
    if (!s.IsNotFound()) return s;
  }
  return Status::Corruption("unrecognised filter trailer: marker byte " + std::to_string(marker) + " at offset " +
                            std::to_string(bytes.size() - 5) +
                            " (known: -1 FastLocalBloom, 1..30 legacy Bloom probes, 0 always-true, "
                            "or a filterlab 'FLT1' trailer); the bytes may be truncated or corrupted");
}

}  // namespace filterlab
