// `filterlab-tool check-spec [--json] [--examples] SPEC...`: asks the filter
// registry about each spec without building anything. With --json, one line
// per spec:
//   {"input", "canonical", "variant", "params": {key: value, ...},
//    "bits_per_key", "hash_bits", "probes" (null for variants without probes),
//    "keys" (the parameter keys the variant accepts), "fp_model" (what its FP model
//    promises: exact | approximation | empirical | lower_bound | upper_bound),
//    "fp_model_max_relative_error" (an approximation's stated error, else 0),
//    "kind" (point | range: which interface the variant implements,
//    filters/filter.h or filters/range/range_filter.h), "key_types" (range
//    filters: uint64 | bytes | uint64,bytes; null for point filters), "error"}
// where variant and params are the spec as written (parsed once, here, by
// FilterSpec), canonical and the numbers the policy's (null when the spec is
// invalid) and error the registry's reason (null when valid). This is the
// only reader of spec grammar the Python side uses: the runner and analysis
// take variant and params from here instead of splitting strings. Without
// --json, one readable line per spec. --examples adds every example spec of
// every registered point variant (the meaning of "all" in configs),
// --range-examples every range variant's.
#include "tools/check_spec.h"

#include <cmath>
#include <cstdio>
#include <cstring>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "common/json_out.h"
#include "common/parallel.h"
#include "filters/filter.h"
#include "filters/filter_spec.h"
#include "filters/registry.h"

namespace filterlab {

namespace {

void PrintCheckSpecUsage(FILE* f) {
  std::fprintf(f,
               "usage: filterlab-tool check-spec [--json] [--examples] SPEC...\n"
               "Validates filter specs with the registry (nothing is built). One line per spec; with\n"
               "--json a JSON object: input, canonical, variant and params (the spec as written),\n"
               "bits_per_key, hash_bits, probes, keys (the parameters the variant accepts),\n"
               "fp_model (exact, approximation, empirical, lower_bound or upper_bound),\n"
               "fp_model_max_relative_error (an approximation's stated largest error, else 0),\n"
               "kind (point or range), key_types (a range filter's: uint64, bytes or both;\n"
               "null for point filters)\n"
               "and error (the registry's reason, null if valid).\n"
               "--examples adds every example spec of every registered point variant,\n"
               "--range-examples every range variant's.\n"
               "Exit status 0 if every spec is valid, 1 otherwise, 2 on usage errors.\n");
}

// The registry's reason without the "filter spec '<input>': " it starts with
// (the record names the spec already).
std::string Reason(const std::string& input, const Status& s) {
  const std::string prefix = "filter spec '" + input + "': ";
  const std::string& m = s.message();
  return m.compare(0, prefix.size(), prefix) == 0 ? m.substr(prefix.size()) : m;
}

nlohmann::ordered_json SpecRecord(const std::string& input, std::string* error) {
  nlohmann::ordered_json r;
  r["input"] = input;
  r["canonical"] = nullptr;
  FilterSpec spec;
  Status s = FilterSpec::Parse(input, &spec);
  r["variant"] = s.ok() ? nlohmann::ordered_json(spec.variant()) : nlohmann::ordered_json(nullptr);
  nlohmann::ordered_json params = nlohmann::ordered_json::object();
  if (s.ok()) {
    for (const auto& [key, value] : spec.Params()) params[key] = value;
  }
  r["params"] = std::move(params);
  r["bits_per_key"] = nullptr;
  r["hash_bits"] = nullptr;
  r["probes"] = nullptr;
  r["keys"] = nullptr;
  r["fp_model"] = nullptr;
  const bool range = s.ok() && FindRangeFilterVariant(spec.variant()) != nullptr;
  r["kind"] = range ? "range" : "point";
  r["key_types"] = nullptr;
  r["fp_model_max_relative_error"] = nullptr;
  std::unique_ptr<FilterPolicy> policy;
  std::unique_ptr<RangeFilterPolicy> range_policy;
  std::vector<std::string> keys;
  if (s.ok() && range) {
    s = NewRangeFilterPolicy(input, &range_policy, &keys);
    if (s.ok()) {
      r["keys"] = keys;
      r["canonical"] = range_policy->spec();
      const double bpk = range_policy->bits_per_key();
      r["bits_per_key"] = std::isnan(bpk) ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(bpk);
      r["fp_model"] = FpModelKindName(RangeFpModelKindOf(*range_policy));
      r["fp_model_max_relative_error"] = 0.0;  // range models are exact, bounds or empirical
      r["key_types"] = RangeKeyTypesName(range_policy->key_types());
      r["error"] = nullptr;
      error->clear();
      return r;
    }
  } else if (s.ok()) {
    s = NewFilterPolicy(input, &policy, &keys);
  }
  if (s.ok()) {
    r["keys"] = keys;
    r["canonical"] = policy->spec();
    r["bits_per_key"] = policy->bits_per_key();
    r["hash_bits"] = static_cast<int>(policy->hash_width());
    r["probes"] = JsonOrNull(policy->num_probes());
    const FpModelClaim claim = FpModelClaimOf(*policy);
    r["fp_model"] = FpModelKindName(claim.kind);
    r["fp_model_max_relative_error"] = claim.max_relative_error;
    r["error"] = nullptr;
    error->clear();
  } else {
    *error = Reason(input, s);
    const std::string prefix = "range filter spec '" + input + "': ";
    if (s.message().compare(0, prefix.size(), prefix) == 0) *error = s.message().substr(prefix.size());
    r["error"] = *error;
  }
  return r;
}

}  // namespace

int RunCheckSpec(int argc, char** argv) {
  std::vector<std::string> specs;
  bool json = false;
  for (int i = 0; i < argc; ++i) {
    if (std::strcmp(argv[i], "--help") == 0 || std::strcmp(argv[i], "-h") == 0) {
      PrintCheckSpecUsage(stdout);
      return 0;
    }
    if (std::strcmp(argv[i], "--json") == 0) {
      json = true;
      continue;
    }
    if (std::strcmp(argv[i], "--examples") == 0) {
      for (const std::string& e : AllExampleSpecs()) specs.push_back(e);
      continue;
    }
    if (std::strcmp(argv[i], "--range-examples") == 0) {
      for (const std::string& e : AllRangeExampleSpecs()) specs.push_back(e);
      continue;
    }
    specs.emplace_back(argv[i]);
  }
  if (specs.empty()) {
    PrintCheckSpecUsage(stderr);
    return 2;
  }
  // Specs are resolved on every core: a worm variant without probes= finds
  // its model-optimal default by evaluating its exact FP model per probe
  // count (0.5 s for a block variant at 40 bits/key), and an experiment's
  // grid asks thousands (fp_vs_bits: 1800). Output keeps the input's order.
  std::vector<nlohmann::ordered_json> records(specs.size());
  std::vector<std::string> errors(specs.size());
  ParallelFor(specs.size(), static_cast<int>(std::thread::hardware_concurrency()),
              [&](uint64_t i, int) { records[i] = SpecRecord(specs[i], &errors[i]); });
  bool all_ok = true;
  for (size_t i = 0; i < specs.size(); ++i) {
    const std::string& input = specs[i];
    const std::string& error = errors[i];
    const nlohmann::ordered_json& r = records[i];
    all_ok = all_ok && error.empty();
    if (json) {
      std::printf("%s\n", r.dump().c_str());
    } else if (error.empty()) {
      std::printf("ok   %s = %s\n", input.c_str(), r["canonical"].get<std::string>().c_str());
    } else {
      std::printf("FAIL %s: %s\n", input.c_str(), error.c_str());
    }
  }
  return all_ok ? 0 : 1;
}

}  // namespace filterlab
