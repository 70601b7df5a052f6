// `filterlab-sim model`: a policy's own analytic FP rate (FilterPolicy::
// ModelFpRate, through the registry) over lists of bits/key, probes and
// keys. One JSON line per (spec, bits/key, probes, keys).
#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "common/flags.h"
#include "common/number_list.h"
#include "filters/filter.h"
#include "filters/filter_spec.h"
#include "filters/fp_model.h"
#include "filters/registry.h"
#include "sim/commands.h"

namespace filterlab::sim {
namespace {

struct ModelArgs {
  std::vector<std::string> specs;
  std::string bpk_text, probes_text, keys_text, range_text;
};

// One policy of the sweep and the --filter text it came from: a point
// filter's, or a range filter's (filters/range/range_filter.h).
struct ModelPolicy {
  std::string filter_arg;
  std::unique_ptr<FilterPolicy> policy;
  std::unique_ptr<RangeFilterPolicy> range_policy;
};

void DeclareModelFlags(FlagSet& flags, ModelArgs* a) {
  flags.List("filter", "filter spec (repeatable; default: every registered example at 10 bits/key)", &a->specs);
  flags.String("bpk", "",
               "bits per key, overriding each spec's: a list 6,10,16 or a range 1:60:0.5 (0.5..100); "
               "empty = the spec's own",
               &a->bpk_text);
  flags.String("probes", "",
               "probes, overriding each spec's: a list or a range (1..30, as the variant "
               "allows); empty = the spec's own or its default",
               &a->probes_text);
  flags.String("keys", "1000000",
               "keys in the filter: a list or a range (1..1e13); the model depends on them "
               "through the distinct hashes and the filter's rounding",
               &a->keys_text);
  flags.String("range_log2", "0,5,10",
               "range filters: range lengths 2^i at which to give the model (a list or a range, 0..40)",
               &a->range_text);
  flags.Field("command", "string", "\"model\"");
  flags.Field("model", "string", "\"policy\": the variant's own ModelFpRate");
  flags.Field("filter", "string", "canonical spec, every parameter resolved");
  flags.Field("filter_arg", "string", "the --filter text the spec came from");
  flags.Field("variant", "string", "variant name");
  flags.Field("fp_model_kind", "string",
              "exact | approximation | empirical | lower_bound | upper_bound (the registration's)");
  flags.Field("fp_model_max_relative_error", "number",
              "an approximation's stated largest |measured / model - 1| (the registration's); 0 for other kinds");
  flags.Field("bits_per_key", "number", "requested bits per key");
  flags.Field("probes", "int?", "probes per key; null for a variant without probes (and for range filters)");
  flags.Field("keys", "int", "keys in the filter");
  flags.Field("kind", "string", "point | range (the interface the variant implements)");
  flags.Field("range_length", "int?", "range filters: the empty range's length the model is for; null for point");
  flags.Field("hash_bits", "int?", "hash width of the variant's keys; null for range filters");
  flags.Field("distinct_hashes", "number?", "D: the expected distinct hashes the keys leave at hash_bits (point)");
  flags.Field("fingerprint_fp", "number?", "D / 2^hash_bits: the chance a query's hash is a stored one (point)");
  flags.Field("layout_fp", "number?",
              "(model_fp - fingerprint_fp) / (1 - fingerprint_fp): the layout's own term "
              "(point)");
  flags.Field("model_fp", "number?",
              "ModelFpRate(keys), or a range filter's ModelFpRate(keys, range_length) for "
              "uncorrelated queries over uniform keys; null for a range filter without a "
              "model (kind empirical)");
  flags.Field("build_temporary_bytes_per_key", "number?",
              "FilterPolicy::BuildTemporaryBytes(keys) / keys: Build's working memory beyond the hashes and filter "
              "(point)");
}

// The --filter specs with each --bpk and --probes value applied, every one
// made into a policy (so --check validates them all).
Status ExpandSpecs(const ModelArgs& a, std::vector<ModelPolicy>* out) {
  std::vector<double> bpk_list, probes_list;
  Status s;
  if (!a.bpk_text.empty() && !(s = ParseNumberList("bpk", a.bpk_text, 0.5, 100, &bpk_list)).ok()) return s;
  if (!a.probes_text.empty() && !(s = ParseNumberList("probes", a.probes_text, 1, 30, &probes_list)).ok()) return s;
  for (double k : probes_list) {
    if (k != std::floor(k)) return Status::InvalidArgument("--probes=" + a.probes_text + ": probes must be integers");
  }
  if (bpk_list.empty()) bpk_list.push_back(NAN);  // NAN: the spec's own
  if (probes_list.empty()) probes_list.push_back(NAN);
  const std::vector<std::string> specs = a.specs.empty() ? AllExampleSpecs() : a.specs;
  for (const std::string& text : specs) {
    FilterSpec parsed;
    if (!(s = FilterSpec::Parse(text, &parsed)).ok()) return Status::InvalidArgument("--filter: " + s.message());
    if (FindRangeFilterVariant(parsed.variant()) != nullptr) {
      if (!probes_list.empty() && !std::isnan(probes_list[0])) {
        return Status::InvalidArgument("--probes: " + text + " is a range filter, which has no probe count");
      }
      for (double bpk : bpk_list) {
        const std::string spec = std::isnan(bpk) ? text : parsed.WithParam("bpk", FormatNumber(bpk));
        ModelPolicy p{text, nullptr, nullptr};
        if (!(s = NewRangeFilterPolicy(spec, &p.range_policy)).ok()) {
          return Status::InvalidArgument("--filter: " + s.message());
        }
        out->push_back(std::move(p));
      }
      continue;
    }
    // Without --filter every example is taken at each --bpk, except those of
    // a variant that has no bpk (XOR, binary fuse: the fingerprint width
    // sets bits/key), listed once at their own spec. A --filter spec given
    // with --bpk gets the registry's error instead.
    std::unique_ptr<FilterPolicy> probe;
    const bool own_spec_only = a.specs.empty() && !NewFilterPolicy(parsed.WithParam("bpk", "10"), &probe).ok();
    for (double bpk : own_spec_only ? std::vector<double>{NAN} : bpk_list) {
      FilterSpec at_bpk = parsed;
      if (!std::isnan(bpk) && !(s = FilterSpec::Parse(parsed.WithParam("bpk", FormatNumber(bpk)), &at_bpk)).ok()) {
        return Status::InvalidArgument("--filter: " + s.message());
      }
      for (double k : probes_list) {
        const std::string spec =
            std::isnan(k) ? at_bpk.text() : at_bpk.WithParam("probes", std::to_string(static_cast<int>(k)));
        ModelPolicy p{text, nullptr, nullptr};
        if (!(s = NewFilterPolicy(spec, &p.policy)).ok()) return Status::InvalidArgument("--filter: " + s.message());
        if (!std::isnan(k) && !p.policy->num_probes()) {
          return Status::InvalidArgument("--probes: " + text + " has no probe count (variant " +
                                         std::string(p.policy->variant()) + ")");
        }
        out->push_back(std::move(p));
      }
    }
  }
  return Status::OK();
}

Status ModelRecord(const ModelPolicy& p, double keys, JsonRecord* out) {
  const FilterPolicy& policy = *p.policy;
  const int hash_bits = static_cast<int>(policy.hash_width());
  double fp = 0;
  // InvalidArgument where the model's domain ends (e.g. too few keys per block).
  Status s = ModelFpRateAt(policy, static_cast<size_t>(keys), &fp);
  if (!s.ok()) return s;
  if (!std::isfinite(fp)) {
    return Status::InvalidArgument(policy.spec() + " at " + FormatNumber(keys) +
                                   " keys: no model (the variant cannot build a filter of that size)");
  }
  const double distinct = fpmodel::DistinctHashes(keys, hash_bits);
  const double fingerprint = std::ldexp(distinct, -hash_bits);
  JsonRecord& j = *out;
  j["command"] = "model";
  j["model"] = "policy";
  j["filter"] = policy.spec();
  j["filter_arg"] = p.filter_arg;
  j["variant"] = std::string(policy.variant());
  const FpModelClaim claim = FpModelClaimOf(policy);
  j["fp_model_kind"] = FpModelKindName(claim.kind);
  j["fp_model_max_relative_error"] = claim.max_relative_error;
  j["bits_per_key"] = policy.bits_per_key();
  j["probes"] = JsonOrNull(policy.num_probes());
  j["keys"] = static_cast<uint64_t>(keys);
  j["kind"] = "point";
  j["range_length"] = nullptr;
  j["hash_bits"] = hash_bits;
  j["distinct_hashes"] = distinct;
  j["fingerprint_fp"] = fingerprint;
  j["layout_fp"] = (fp - fingerprint) / (1 - fingerprint);
  j["model_fp"] = fp;
  j["build_temporary_bytes_per_key"] =
      static_cast<double>(policy.BuildTemporaryBytes(static_cast<size_t>(keys))) / keys;
  return Status::OK();
}

// A range filter's record: its ModelFpRate(keys, range_length).
JsonRecord RangeModelRecord(const ModelPolicy& p, double keys, uint64_t length) {
  const RangeFilterPolicy& policy = *p.range_policy;
  const double fp = policy.ModelFpRate(static_cast<uint64_t>(keys), length);
  const double bpk = policy.bits_per_key();
  JsonRecord j;
  j["command"] = "model";
  j["model"] = "policy";
  j["filter"] = policy.spec();
  j["filter_arg"] = p.filter_arg;
  j["variant"] = std::string(policy.variant());
  j["fp_model_kind"] = FpModelKindName(RangeFpModelKindOf(policy));
  j["bits_per_key"] = std::isnan(bpk) ? JsonRecord(nullptr) : JsonRecord(bpk);
  j["probes"] = nullptr;
  j["keys"] = static_cast<uint64_t>(keys);
  j["kind"] = "range";
  j["range_length"] = length;
  j["hash_bits"] = nullptr;
  j["distinct_hashes"] = nullptr;
  j["fingerprint_fp"] = nullptr;
  j["layout_fp"] = nullptr;
  j["model_fp"] = std::isfinite(fp) ? JsonRecord(fp) : JsonRecord(nullptr);
  j["build_temporary_bytes_per_key"] = nullptr;
  return j;
}

}  // namespace

Status ModelCommand(int argc, char** argv, const Emit& emit, std::string* help) {
  FlagSet flags("model",
                "A filter's analytic FP rate: its policy's ModelFpRate(keys) (the model stated beside each\n"
                "variant's code), for every --filter spec at each --bpk, --probes and --keys value. Every model\n"
                "is fingerprint_fp + (1 - fingerprint_fp) * layout_fp for the D distinct hashes n keys leave\n"
                "(fpmodel::NarrowHashFpRate); the record gives the three terms. One JSON line per configuration.");
  ModelArgs args;
  DeclareModelFlags(flags, &args);
  Status s = flags.Parse(argc, argv);
  if (!s.ok()) return s;
  if (flags.Answered(help)) return Status::OK();
  std::vector<double> keys_list;
  if (!(s = ParseNumberList("keys", args.keys_text, 1, 1e13, &keys_list)).ok()) return s;
  std::vector<ModelPolicy> policies;
  if (!(s = ExpandSpecs(args, &policies)).ok()) return s;
  std::vector<double> range_log2;
  if (!(s = ParseNumberList("range_log2", args.range_text, 0, 40, &range_log2)).ok()) return s;
  if (flags.check_only()) return Status::OK();
  for (const ModelPolicy& p : policies) {
    if (p.range_policy != nullptr) {
      for (double keys : keys_list) {
        for (double e : range_log2) emit(RangeModelRecord(p, keys, uint64_t{1} << static_cast<int>(e)));
      }
      continue;
    }
    for (double keys : keys_list) {
      JsonRecord j;
      if (!(s = ModelRecord(p, keys, &j)).ok()) return s;
      emit(j);
    }
  }
  return Status::OK();
}

}  // namespace filterlab::sim
