// The registry of filter variants. Each variant registers itself (one
// FILTERLAB_REGISTER_FILTER in its .cc) with a factory that turns a parsed
// spec into a FilterPolicy and, for reading, openers for its serialized forms.
// The engine, the simulator and the tools only ever see the registry.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "common/slice.h"
#include "common/status.h"
#include "common/unique_name.h"
#include "filters/filter.h"
#include "filters/filter_spec.h"
#include "filters/fp_model_kind.h"
#include "filters/range/range_filter.h"

namespace filterlab {

struct FilterVariant {
  // Name used in spec strings, e.g. "fastlocal".
  const char* name;
  // One line for `filterlab list-filters`.
  const char* summary;
  // Parameters and their allowed values, e.g. "bpk=0.5..100 probes=1..30 hash=64|32".
  const char* params;
  // Spec → policy. Validates every parameter (FilterSpec getters + Finish).
  Status (*create)(FilterSpec& spec, std::unique_ptr<FilterPolicy>* out);
  // Reader for a filter serialized with filterlab's trailer (trailer.h):
  // `layout` is the Describe() string stored in the trailer, `data` the filter
  // bits. Null if the variant only has a native format.
  Status (*open_layout)(FilterSpec& layout, Slice data, std::unique_ptr<Filter>* out);
  // Reader for a variant's own native serialized form (RocksDB's trailers):
  // returns NotFound when `bytes` are not in that form. Null if none.
  Status (*open_native)(Slice bytes, std::unique_ptr<Filter>* out);
  // Spec shown in examples and used by `filterlab run` at 10 bits/key; a
  // variant may register several (e.g. one per worm sub-variant).
  std::vector<std::string> examples_at_10_bpk;
  // The kind of model its ModelFpRate is (fp_model_kind.h; fp_tolerance.h
  // argues each variant's) for every spec of the variant, unless
  // fp_model_of is set.
  FpModelKind fp_model;
  // For a variant whose kind depends on the spec's parameters (worm: the
  // sub-variant, probes, hash width): the kind for one of its policies.
  // Null when fp_model holds for every spec.
  FpModelKind (*fp_model_of)(const FilterPolicy& policy);
  // Whether its policies have a probe count (FilterPolicy::num_probes() has
  // a value): true for the Bloom layouts; an XOR or Ribbon filter has none.
  bool has_probes;
  // Where the kind is FpModelKind::kApproximation: the largest relative
  // error |measured / model - 1| the variant's model shows (fp_model_kind.h,
  // FpModelClaim), for every spec unless fp_model_error_of is set.
  double fp_model_max_relative_error = 0;
  // For a variant whose approximation error depends on the spec (worm: per
  // sub-variant): that error for one of its policies. Null otherwise.
  double (*fp_model_error_of)(const FilterPolicy& policy) = nullptr;
};

// All registered variants, sorted by name.
std::vector<const FilterVariant*> RegisteredFilterVariants();
const FilterVariant* FindFilterVariant(std::string_view name);

// Every example spec of every variant at 10 bits/key, in registry order: the
// list the tools iterate over when asked for "every registered filter".
std::vector<std::string> AllExampleSpecs();

// NewFilterPolicy that also gives the parameter keys the variant accepts (as
// its parser declares them to FilterSpec::Finish), e.g. {"bpk", "probes",
// "hash"}; a fingerprint filter sized by its layout has no "bpk". The runner
// reads them (filterlab-tool check-spec --json) to know which of a sweep's
// spec parameters apply to a variant.
Status NewFilterPolicy(std::string_view spec, std::unique_ptr<FilterPolicy>* out,
                       std::vector<std::string>* accepted_keys);

// The kind of `policy`'s FP model, from its variant's registration. A policy
// whose variant is not registered (a test double) counts as exact.
FpModelKind FpModelKindOf(const FilterPolicy& policy);
// The kind with, for an approximation, its stated largest relative error.
FpModelClaim FpModelClaimOf(const FilterPolicy& policy);

// policy.ModelFpRate(n) as a Status. Where a variant's model has no value
// at n (the fpmodel functions throw std::domain_error or
// std::invalid_argument where their domain or their precision ends), an
// InvalidArgument naming the spec, n and the model's reason, instead of an
// exception that would end a caller without a handler (a flush thread).
Status ModelFpRateAt(const FilterPolicy& policy, size_t n, double* fp);

// Range filters (filters/range/range_filter.h) register in the same registry:
// one name space with the point variants (a name is one or the other; a
// point-filter call naming a range variant says so), the same spec syntax
// (FilterSpec) and trailer.
struct RangeFilterVariant {
  // Name used in spec strings, e.g. "grafite".
  const char* name;
  // One line for `filterlab list-filters`.
  const char* summary;
  // Parameters and their allowed values, e.g. "bpk=4..64 range=1..2^32".
  const char* params;
  // Spec -> policy. Validates every parameter (FilterSpec getters + Finish).
  Status (*create)(FilterSpec& spec, std::unique_ptr<RangeFilterPolicy>* out);
  // Reader: `layout` is the Describe() string stored in the trailer, `data`
  // the variant's bytes (checksum already verified). Must check the data
  // against the layout and return Corruption naming what is wrong.
  Status (*open_layout)(FilterSpec& layout, Slice data, std::unique_ptr<RangeFilter>* out);
  // Specs the property tests cover and `filterlab run` measures.
  std::vector<std::string> examples;
  // RangeKeyTypes bits: the key types it builds from natively.
  unsigned key_types;
  // What its ModelFpRate is: kExact (derived), kUpperBound (a proven bound,
  // Grafite's), kEmpirical (the paper gives no model; ModelFpRate is NaN).
  FpModelKind fp_model;
  // Whether it takes inserts and deletes after construction (RangeFilter::Insert, Delete).
  bool dynamic;
};

// All registered range variants, sorted by name.
std::vector<const RangeFilterVariant*> RegisteredRangeFilterVariants();
const RangeFilterVariant* FindRangeFilterVariant(std::string_view name);
// Every example spec of every range variant, in registry order.
std::vector<std::string> AllRangeExampleSpecs();
// NewRangeFilterPolicy that also gives the parameter keys the variant accepts.
Status NewRangeFilterPolicy(std::string_view spec, std::unique_ptr<RangeFilterPolicy>* out,
                            std::vector<std::string>* accepted_keys);
// The registration's model kind for a policy (kExact for an unregistered test double).
FpModelKind RangeFpModelKindOf(const RangeFilterPolicy& policy);

namespace internal {
struct FilterRegistrar {
  explicit FilterRegistrar(FilterVariant variant);
  explicit FilterRegistrar(RangeFilterVariant variant);
};
}  // namespace internal

// Usage at namespace scope in a variant's .cc:
//   FILTERLAB_REGISTER_FILTER(FilterVariant{"fastlocal", "...", "...", &Create, nullptr, &OpenNative, {...},
//                                           FpModelKind::kExact, nullptr, /*has_probes=*/true});
#define FILTERLAB_REGISTER_FILTER(...) \
  static ::filterlab::internal::FilterRegistrar FILTERLAB_UNIQUE_NAME(filterlab_filter_registrar_)(__VA_ARGS__)
// The same for a range variant:
//   FILTERLAB_REGISTER_RANGE_FILTER(RangeFilterVariant{"grafite", "...", "...", &Create, &OpenLayout, {...},
//                                                      kRangeKeysUint64, FpModelKind::kUpperBound, false});
#define FILTERLAB_REGISTER_RANGE_FILTER(...) FILTERLAB_REGISTER_FILTER(__VA_ARGS__)

}  // namespace filterlab
