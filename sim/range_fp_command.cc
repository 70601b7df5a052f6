// `filterlab-sim rangefp`: the false-positive rate of range filters on empty
// ranges, per range length and per correlation, beside each filter's model
// or bound and the space lower bound. One JSON line per (filter, length,
// correlation).
//
// The lower bound (Goswami, Gronlund, Larsen, Pagh, "Approximate range
// emptiness in constant time and optimal space", SODA 2015): a structure
// answering empty ranges of length L with FP rate eps must spend at least
// n log2(L / eps) bits (up to lower-order terms). Each record gives it at
// the measured rate, so bits_over_lower_bound is the filter's excess space.
#include <bit>
#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "common/flags.h"
#include "common/stats.h"
#include "common/timer.h"
#include "filters/fp_model_kind.h"
#include "filters/fp_tolerance.h"
#include "filters/range/range_workload.h"
#include "filters/registry.h"
#include "sim/commands.h"
#include "sim/range_sim.h"

namespace filterlab::sim {
namespace {

void DeclareRangeFpFields(FlagSet& flags) {
  flags.Field("command", "string", "\"rangefp\"");
  flags.Field("filter", "string", "canonical range-filter spec");
  flags.Field("filter_arg", "string", "the --filter text");
  flags.Field("variant", "string", "variant name");
  flags.Field("layout", "string", "the built filter's Describe()");
  flags.Field("fp_model_kind", "string", "exact | upper_bound (a proven bound) | empirical (no model)");
  flags.Field("key_types", "string", "the variant's native key types");
  flags.Field("key_dist", "string", "the --key_dist");
  flags.Field("keys", "int", "distinct keys in the filter");
  flags.Field("seed", "int", "seed of keys and queries");
  flags.Field("range_length", "int", "values per query range");
  flags.Field("range_log2", "int", "log2 of range_length");
  flags.Field("correlation", "number?",
              "degree d of correlated queries (left = key + U[1, 2^round(30(1-d))]); null: "
              "uncorrelated (uniform left end)");
  flags.Field("queries", "int", "empty range queries (each checked empty against the keys)");
  flags.Field("positives", "int", "queries answered true");
  flags.Field("fp", "number", "positives / queries");
  flags.Field("ci_low", "number", "95% Wilson interval, low end");
  flags.Field("ci_high", "number", "95% Wilson interval, high end");
  flags.Field("ci_method", "string", "\"wilson95\"");
  flags.Field("model_fp", "number?",
              "mean over the queries of the filter's QueryModelFp (the model, or the bound for "
              "upper_bound); null without a model");
  flags.Field("model_allowed_low", "number?", "lowest fp the model allows at these queries (4 sigma; exact: +- 5%)");
  flags.Field("model_allowed_high", "number?", "highest fp the model allows at these queries");
  flags.Field("within_model", "bool?", "model_allowed_low <= fp <= model_allowed_high; null without a model");
  flags.Field("bits_per_key", "number", "8 * bytes / keys: what the filter spends");
  flags.Field("bytes", "int", "filter data bytes");
  flags.Field("lower_bound_bits_per_key", "number?",
              "log2(range_length / fp), the space lower bound at the measured "
              "rate (Goswami et al. 2015); null when fp = 0");
  flags.Field("bits_over_lower_bound", "number?", "bits_per_key - lower_bound_bits_per_key");
  flags.Field("grow_from", "int",
              "0: the filter was built from the keys; N: it started as a dynamic filter for N keys and took them "
              "by inserts (--grow_from)");
  flags.Field("build_ns_per_key", "number",
              "wall ns per key building the filter (keys in memory, sorted), or inserting them with --grow_from");
  flags.Field("query_ns", "number", "wall ns per query over this record's queries (one thread, generation excluded)");
}

struct FilterUnderTest {
  const RangePolicy* policy;
  std::unique_ptr<RangeFilter> filter;
  double build_seconds;
};

JsonRecord Record(const FilterUnderTest& f, const std::string& key_dist, const std::vector<uint64_t>& keys,
                  uint64_t seed, uint64_t grow_from, uint64_t length, double correlation, uint64_t queries,
                  uint64_t positives, double model_sum, double query_seconds) {
  const RangeFilterPolicy& policy = *f.policy->policy;
  const FpModelKind kind = RangeFpModelKindOf(policy);
  const double fp = static_cast<double>(positives) / static_cast<double>(queries);
  const Interval ci = WilsonInterval(positives, queries);
  JsonRecord j;
  j["command"] = "rangefp";
  j["filter"] = policy.spec();
  j["filter_arg"] = f.policy->filter_arg;
  j["variant"] = std::string(policy.variant());
  j["layout"] = f.filter->Describe();
  j["fp_model_kind"] = FpModelKindName(kind);
  j["key_types"] = RangeKeyTypesName(policy.key_types());
  j["key_dist"] = key_dist;
  j["keys"] = static_cast<uint64_t>(keys.size());
  j["seed"] = seed;
  j["range_length"] = length;
  j["range_log2"] = std::countr_zero(length);
  j["correlation"] = correlation < 0 ? JsonRecord(nullptr) : JsonRecord(correlation);
  j["queries"] = queries;
  j["positives"] = positives;
  j["fp"] = fp;
  j["ci_low"] = ci.low;
  j["ci_high"] = ci.high;
  j["ci_method"] = "wilson95";
  const double model = model_sum / static_cast<double>(queries);
  if (std::isfinite(model)) {
    const double sigma = BinomialSigma(model, queries);
    const double low = kind == FpModelKind::kUpperBound ? 0.0 : std::max(0.0, model - 4 * sigma - 0.05 * model);
    const double high = kind == FpModelKind::kUpperBound ? model + 4 * sigma : model + 4 * sigma + 0.05 * model;
    j["model_fp"] = model;
    j["model_allowed_low"] = low;
    j["model_allowed_high"] = high;
    j["within_model"] = fp >= low && fp <= high;
  } else {
    j["model_fp"] = nullptr;
    j["model_allowed_low"] = nullptr;
    j["model_allowed_high"] = nullptr;
    j["within_model"] = nullptr;
  }
  const double bpk = f.filter->BitsPerKey();
  j["bits_per_key"] = bpk;
  j["bytes"] = static_cast<uint64_t>(f.filter->DataBytes());
  if (positives > 0) {
    const double lower = std::log2(static_cast<double>(length) / fp);
    j["lower_bound_bits_per_key"] = lower;
    j["bits_over_lower_bound"] = bpk - lower;
  } else {
    j["lower_bound_bits_per_key"] = nullptr;
    j["bits_over_lower_bound"] = nullptr;
  }
  j["grow_from"] = grow_from;
  j["build_ns_per_key"] = keys.empty() ? 0.0 : 1e9 * f.build_seconds / static_cast<double>(keys.size());
  j["query_ns"] = 1e9 * query_seconds / static_cast<double>(queries);
  return j;
}

}  // namespace

Status RangeFpCommand(int argc, char** argv, const Emit& emit, std::string* help) {
  FlagSet flags("rangefp",
                "The false-positive rate of range filters on empty ranges: build each --filter once over --keys\n"
                "keys of --key_dist, then for every range length 2^i (--range_log2) and correlation\n"
                "(--correlations) put --queries empty ranges to it (each checked empty against the keys) and\n"
                "print one JSON line: positives, fp with a 95% Wilson interval, the filter's model or bound\n"
                "(model_fp, the mean of its per-query model) with the range it allows, bits per key and the\n"
                "space lower bound log2(L / fp). With --grow_from N a dynamic filter starts sized for N keys\n"
                "and takes the keys by inserts (expanding as it fills). Memory: 8 bytes per key, each filter's\n"
                "build, 16 bytes per query; runs that do not fit in MemAvailable are refused.");
  std::vector<std::string> specs;
  long long keys = 0, queries = 0, seed = 0, grow_from = 0;
  std::string key_dist, range_text, corr_text;
  flags.List("filter", "range-filter spec, e.g. grafite:bpk=16 (filterlab-tool list-filters); repeat for a sweep",
             &specs);
  flags.Int("keys", 1000000, 1, 4000000000LL, "distinct keys", &keys);
  flags.String("key_dist", "uniform",
               "uniform | normal | clustered | sosd:PATH | text:PATH (filters/range/range_workload.h)", &key_dist);
  flags.String("range_log2", "0,5,10", "range lengths as powers of two: a list 0,5,10 or a range 0:24:1 (0..40)",
               &range_text);
  flags.String("correlations", "none", "query correlations: none (uniform left end) and/or degrees d in [0, 1]",
               &corr_text);
  flags.Int("queries", 1000000, 1, 1000000000LL, "empty queries per (length, correlation)", &queries);
  flags.Int("seed", 0, 0, (1LL << 62), "seed of keys and queries", &seed);
  flags.Int("grow_from", 0, 0, 4000000000LL,
            "0: build each filter from the keys; N: start it as a dynamic filter for N keys and insert the keys "
            "one at a time in an order shuffled by --seed, so it expands as it fills (dynamic variants only, "
            "e.g. memento; N <= --keys)",
            &grow_from);
  DeclareRangeFpFields(flags);
  Status s = flags.Parse(argc, argv);
  if (!s.ok()) return s;
  if (flags.Answered(help)) return Status::OK();
  std::vector<RangePolicy> policies;
  std::vector<uint64_t> lengths;
  std::vector<double> correlations;
  if (!(s = MakeRangePolicies(specs, &policies)).ok()) return s;
  if (!(s = ParseRangeLengths(range_text, &lengths)).ok()) return s;
  if (!(s = ParseCorrelations(corr_text, &correlations)).ok()) return s;
  if (grow_from > keys) {
    return Status::InvalidArgument("--grow_from " + std::to_string(grow_from) + " is above --keys " +
                                   std::to_string(keys) + ": a filter grows from at most the keys it takes");
  }
  for (const RangePolicy& p : policies) {
    if (grow_from > 0 && !p.policy->is_dynamic()) {
      return Status::InvalidArgument("--grow_from needs dynamic range filters (inserts); " + p.policy->spec() +
                                     " is static (dynamic variants: filterlab-tool list-filters)");
    }
  }
  if (!(s = CheckRangeMemory(static_cast<uint64_t>(keys), policies, static_cast<uint64_t>(queries) * 16,
                             "rangefp --keys " + std::to_string(keys)))
           .ok()) {
    return s;
  }
  if (flags.check_only()) return Status::OK();

  std::vector<uint64_t> key_set;
  if (!(s = workload::MakeKeys(key_dist, static_cast<uint64_t>(keys), static_cast<uint64_t>(seed), &key_set)).ok()) {
    return Status::InvalidArgument("--key_dist: " + s.message());
  }
  std::vector<FilterUnderTest> filters;
  for (const RangePolicy& p : policies) {
    FilterUnderTest f{&p, nullptr, 0};
    s = grow_from > 0 ? GrowTimed(*p.policy, key_set, static_cast<uint64_t>(grow_from), static_cast<uint64_t>(seed),
                                  &f.filter, &f.build_seconds)
                      : BuildTimed(*p.policy, key_set, &f.filter, &f.build_seconds);
    if (!s.ok()) return s;
    filters.push_back(std::move(f));
  }
  std::vector<workload::RangeQuery> qs;
  for (uint64_t length : lengths) {
    for (double corr : correlations) {
      s = workload::EmptyRangeQueries(key_set, length, corr, static_cast<uint64_t>(queries),
                                      static_cast<uint64_t>(seed) + length, &qs);
      if (!s.ok()) return s;
      for (const FilterUnderTest& f : filters) {
        uint64_t positives = 0;
        const auto start = Clock::now();
        for (const auto& q : qs) positives += f.filter->MayContainRange(q.lo, q.hi);
        const double seconds = SecondsSince(start);
        double model_sum = 0;
        for (const auto& q : qs) model_sum += f.filter->QueryModelFp(key_set.data(), key_set.size(), q.lo, q.hi);
        emit(Record(f, key_dist, key_set, static_cast<uint64_t>(seed), static_cast<uint64_t>(grow_from), length, corr,
                    qs.size(), positives, model_sum, seconds));
      }
    }
  }
  return Status::OK();
}

}  // namespace filterlab::sim
