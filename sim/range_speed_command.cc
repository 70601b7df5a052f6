// `filterlab-sim rangespeed`: build and query times of range filters.
//   build   ns per key building one filter of --keys keys (sorted keys in
//           memory, as every range filter's Build takes them), and the
//           build's memory beyond the filter as the policy states it;
//   hot     ns per query on that one filter, for empty ranges (uncorrelated
//           or --correlation) and for non-empty ones, per range length;
//   random  ns per query to a random filter of a working set of
//           --working_set_mb of filters of --filter_keys keys each (as
//           RocksDB's filter_bench spreads queries over many filters), each
//           query checked empty (or non-empty) against its own filter's keys.
// Rounds are interleaved over the filters (every filter measured in round 1,
// then every filter in round 2, ...) and each record gives the median and
// the spread of its rounds. Queries are generated before timing; their order
// is --query_order (random, or sorted by left end as Grafite's harness gives
// them, which favours order-preserving filters' caches).
#include <algorithm>
#include <bit>
#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "common/flags.h"
#include "common/stats.h"
#include "common/timer.h"
#include "filters/range/range_workload.h"
#include "filters/registry.h"
#include "hashing/remix.h"
#include "sim/commands.h"
#include "sim/range_sim.h"

namespace filterlab::sim {
namespace {

void DeclareRangeSpeedFields(FlagSet& flags) {
  flags.Field("command", "string", "\"rangespeed\"");
  flags.Field("mode", "string", "build | hot | random");
  flags.Field("filter", "string", "canonical range-filter spec");
  flags.Field("filter_arg", "string", "the --filter text");
  flags.Field("variant", "string", "variant name");
  flags.Field("key_dist", "string", "the --key_dist");
  flags.Field("keys", "int", "keys per filter");
  flags.Field("filters", "int", "filters queried (1 for build and hot)");
  flags.Field("seed", "int", "seed of keys and queries");
  flags.Field("range_length", "int?", "values per query range; null for build");
  flags.Field("range_log2", "int?", "log2 of range_length; null for build");
  flags.Field("correlation", "number?", "degree of correlated empty queries; null: uncorrelated (or build, non-empty)");
  flags.Field("query_kind", "string?", "empty | nonempty; null for build");
  flags.Field("query_order", "string?", "random | sorted (by left end); null for build");
  flags.Field("queries", "int?", "queries per round; null for build");
  flags.Field("rounds", "int", "interleaved rounds");
  flags.Field("ns", "number", "median over rounds: ns per key (build) or per query");
  flags.Field("ns_min", "number", "fastest round");
  flags.Field("ns_max", "number", "slowest round");
  flags.Field("positive_fraction", "number?",
              "queries answered true (empty: the FP rate; non-empty: 1); null for build");
  flags.Field("bits_per_key", "number", "what the filter spends (mean over the working set for random)");
  flags.Field("build_extra_bytes_per_key", "number?",
              "the policy's BuildMemoryBytes(keys)/keys minus the filter's bytes/key: Build's temporary memory as the "
              "variant states it (not measured); null except for build");
  flags.Field("working_set_bytes", "int", "filter bytes queried");
}

struct Timing {
  std::vector<double> ns;
  uint64_t positives = 0;
  uint64_t queries = 0;
};

// One query set of the hot or random mode.
struct QuerySet {
  uint64_t length;
  double correlation;
  bool empty;
  std::vector<uint32_t> filter;  // random mode: the filter each query goes to
  std::vector<workload::RangeQuery> ranges;
};

void Order(const std::string& order, QuerySet* q) {
  if (order != "sorted") return;
  std::vector<size_t> idx(q->ranges.size());
  for (size_t i = 0; i < idx.size(); ++i) idx[i] = i;
  std::sort(idx.begin(), idx.end(), [&](size_t a, size_t b) { return q->ranges[a].lo < q->ranges[b].lo; });
  QuerySet sorted = *q;
  for (size_t i = 0; i < idx.size(); ++i) {
    sorted.ranges[i] = q->ranges[idx[i]];
    if (!q->filter.empty()) sorted.filter[i] = q->filter[idx[i]];
  }
  *q = std::move(sorted);
}

JsonRecord Base(const RangePolicy& p, const char* mode, const std::string& key_dist, uint64_t keys, uint64_t filters,
                uint64_t seed, int rounds, const Timing& t) {
  JsonRecord j;
  j["command"] = "rangespeed";
  j["mode"] = mode;
  j["filter"] = p.policy->spec();
  j["filter_arg"] = p.filter_arg;
  j["variant"] = std::string(p.policy->variant());
  j["key_dist"] = key_dist;
  j["keys"] = keys;
  j["filters"] = filters;
  j["seed"] = seed;
  j["range_length"] = nullptr;
  j["range_log2"] = nullptr;
  j["correlation"] = nullptr;
  j["query_kind"] = nullptr;
  j["query_order"] = nullptr;
  j["queries"] = nullptr;
  j["rounds"] = rounds;
  j["ns"] = Median(t.ns);
  j["ns_min"] = *std::min_element(t.ns.begin(), t.ns.end());
  j["ns_max"] = *std::max_element(t.ns.begin(), t.ns.end());
  j["positive_fraction"] = nullptr;
  j["build_extra_bytes_per_key"] = nullptr;
  return j;
}

void QueryFields(const QuerySet& q, const std::string& order, const Timing& t, JsonRecord* j) {
  (*j)["range_length"] = q.length;
  (*j)["range_log2"] = std::countr_zero(q.length);
  (*j)["correlation"] = q.correlation < 0 ? JsonRecord(nullptr) : JsonRecord(q.correlation);
  (*j)["query_kind"] = q.empty ? "empty" : "nonempty";
  (*j)["query_order"] = order;
  (*j)["queries"] = static_cast<uint64_t>(q.ranges.size());
  (*j)["positive_fraction"] = static_cast<double>(t.positives) / static_cast<double>(t.queries);
}

}  // namespace

Status RangeSpeedCommand(int argc, char** argv, const Emit& emit, std::string* help) {
  FlagSet flags("rangespeed",
                "Build and query times of range filters (modes build, hot, random; see sim/README.md): medians\n"
                "of --rounds interleaved rounds, one JSON line per (filter, mode, length, query kind).");
  std::vector<std::string> specs;
  std::vector<std::string> modes;
  long long keys = 0, filter_keys = 0, queries = 0, seed = 0, rounds = 0, working_set_mb = 0;
  double correlation = -1;
  std::string key_dist, range_text, order, corr_text;
  flags.List("filter", "range-filter spec; repeat for a sweep", &specs);
  flags.ChoiceList("modes", "build,hot,random", {"build", "hot", "random"}, "what to time", &modes);
  flags.Int("keys", 10000000, 1, 4000000000LL, "keys of the build and hot filter", &keys);
  flags.String("key_dist", "uniform", "uniform | normal | clustered | sosd:PATH | text:PATH", &key_dist);
  flags.String("range_log2", "5,10", "range lengths as powers of two (0..40)", &range_text);
  flags.String("correlation", "none", "empty queries: none (uncorrelated) or a degree d in [0, 1]", &corr_text);
  flags.Choice("query_order", "random", {"random", "sorted"}, "order of the timed queries", &order);
  flags.Int("queries", 1000000, 1, 1000000000LL, "queries per round and query set", &queries);
  flags.Int("rounds", 3, 1, 100, "interleaved rounds", &rounds);
  flags.Int("working_set_mb", 256, 1, 1 << 20, "random mode: MiB of filters queried", &working_set_mb);
  flags.Int("filter_keys", 10000, 1, 100000000LL, "random mode: keys per filter", &filter_keys);
  flags.Int("seed", 0, 0, (1LL << 62), "seed of keys and queries", &seed);
  DeclareRangeSpeedFields(flags);
  Status s = flags.Parse(argc, argv);
  if (!s.ok()) return s;
  if (flags.Answered(help)) return Status::OK();
  std::vector<RangePolicy> policies;
  std::vector<uint64_t> lengths;
  std::vector<double> corr;
  if (!(s = MakeRangePolicies(specs, &policies)).ok()) return s;
  if (!(s = ParseRangeLengths(range_text, &lengths)).ok()) return s;
  if (!(s = ParseCorrelations(corr_text, &corr)).ok()) return s;
  if (corr.size() != 1) return Status::InvalidArgument("--correlation: give one value (none or a degree)");
  correlation = corr[0];
  const bool want_build = std::find(modes.begin(), modes.end(), "build") != modes.end();
  const bool want_hot = std::find(modes.begin(), modes.end(), "hot") != modes.end();
  const bool want_random = std::find(modes.begin(), modes.end(), "random") != modes.end();
  const uint64_t working_set = static_cast<uint64_t>(working_set_mb) << 20;
  uint64_t extra = static_cast<uint64_t>(queries) * 24 * 2;
  // Random mode: the filters and each filter's keys (8 bytes a key, about
  // 64 / bits-per-key times the filters' bytes: 9x covers 8 bits/key and up).
  if (want_random) extra += working_set * 9;
  if (!(s = CheckRangeMemory((want_build || want_hot) ? static_cast<uint64_t>(keys) : 0, policies, extra,
                             "rangespeed --keys " + std::to_string(keys)))
           .ok()) {
    return s;
  }
  if (flags.check_only()) return Status::OK();
  const auto useed = static_cast<uint64_t>(seed);

  // Build and hot: one filter per policy over the same keys.
  if (want_build || want_hot) {
    std::vector<uint64_t> key_set;
    if (!(s = workload::MakeKeys(key_dist, static_cast<uint64_t>(keys), useed, &key_set)).ok()) {
      return Status::InvalidArgument("--key_dist: " + s.message());
    }
    std::vector<std::unique_ptr<RangeFilter>> built(policies.size());
    std::vector<Timing> build_t(policies.size());
    for (long long r = 0; r < (want_build ? rounds : 1); ++r) {
      for (size_t i = 0; i < policies.size(); ++i) {
        double seconds = 0;
        built[i].reset();
        if (!(s = BuildTimed(*policies[i].policy, key_set, &built[i], &seconds)).ok()) return s;
        build_t[i].ns.push_back(1e9 * seconds / static_cast<double>(key_set.size()));
      }
    }
    if (want_build) {
      for (size_t i = 0; i < policies.size(); ++i) {
        JsonRecord j =
            Base(policies[i], "build", key_dist, key_set.size(), 1, useed, static_cast<int>(rounds), build_t[i]);
        j["bits_per_key"] = built[i]->BitsPerKey();
        j["build_extra_bytes_per_key"] =
            static_cast<double>(policies[i].policy->BuildMemoryBytes(key_set.size())) / key_set.size() -
            static_cast<double>(built[i]->DataBytes()) / key_set.size();
        j["working_set_bytes"] = static_cast<uint64_t>(built[i]->DataBytes());
        emit(j);
      }
    }
    if (want_hot) {
      for (uint64_t length : lengths) {
        for (bool empty : {true, false}) {
          QuerySet q{length, empty ? correlation : -1, empty, {}, {}};
          s = empty ? workload::EmptyRangeQueries(key_set, length, correlation, queries, useed + length, &q.ranges)
                    : workload::NonEmptyRangeQueries(key_set, length, queries, useed + length, &q.ranges);
          if (!s.ok()) return s;
          Order(order, &q);
          std::vector<Timing> t(policies.size());
          for (long long r = 0; r < rounds; ++r) {
            for (size_t i = 0; i < policies.size(); ++i) {
              const RangeFilter& f = *built[i];
              uint64_t positives = 0;
              const auto start = Clock::now();
              for (const auto& range : q.ranges) positives += f.MayContainRange(range.lo, range.hi);
              t[i].ns.push_back(1e9 * SecondsSince(start) / static_cast<double>(q.ranges.size()));
              t[i].positives += positives;
              t[i].queries += q.ranges.size();
            }
          }
          for (size_t i = 0; i < policies.size(); ++i) {
            JsonRecord j = Base(policies[i], "hot", key_dist, key_set.size(), 1, useed, static_cast<int>(rounds), t[i]);
            QueryFields(q, order, t[i], &j);
            j["bits_per_key"] = built[i]->BitsPerKey();
            j["working_set_bytes"] = static_cast<uint64_t>(built[i]->DataBytes());
            emit(j);
          }
        }
      }
    }
  }

  // Random: per policy a working set of filters, each with its own keys,
  // built until their bytes reach --working_set_mb.
  if (want_random) {
    std::vector<std::vector<std::unique_ptr<RangeFilter>>> sets(policies.size());
    std::vector<uint64_t> bytes(policies.size(), 0);
    std::vector<std::vector<uint64_t>> keys_of;
    for (size_t i = 0; i < policies.size(); ++i) {
      for (uint64_t id = 0; bytes[i] < working_set; ++id) {
        if (id >= keys_of.size()) {
          keys_of.emplace_back();
          if (!(s = workload::MakeKeys(key_dist, filter_keys, Mix64(useed + id), &keys_of.back())).ok()) {
            return Status::InvalidArgument("--key_dist: " + s.message());
          }
        }
        std::unique_ptr<RangeFilter> f;
        double seconds = 0;
        if (!(s = BuildTimed(*policies[i].policy, keys_of[id], &f, &seconds)).ok()) return s;
        bytes[i] += std::max<uint64_t>(f->DataBytes(), 64);
        sets[i].push_back(std::move(f));
      }
    }
    // Queries go to filter ids below the smallest set's size, so every
    // policy answers the same queries.
    size_t common = keys_of.size();
    for (const auto& set : sets) common = std::min(common, set.size());
    for (uint64_t length : lengths) {
      for (bool empty : {true, false}) {
        QuerySet q{length, empty ? correlation : -1, empty, {}, {}};
        SplitMix64 pick(Mix64(useed ^ length ^ (empty ? 0 : 0x5A5A)));
        std::vector<workload::RangeQuery> one;
        for (long long k = 0; k < queries; ++k) {
          const auto id = static_cast<uint32_t>(pick.Next() % common);
          s = empty ? workload::EmptyRangeQueries(keys_of[id], length, correlation, 1, pick.Next(), &one)
                    : workload::NonEmptyRangeQueries(keys_of[id], length, 1, pick.Next(), &one);
          if (!s.ok()) return s;
          q.filter.push_back(id);
          q.ranges.push_back(one[0]);
        }
        Order(order, &q);
        std::vector<Timing> t(policies.size());
        for (long long r = 0; r < rounds; ++r) {
          for (size_t i = 0; i < policies.size(); ++i) {
            const auto& set = sets[i];
            uint64_t positives = 0;
            const auto start = Clock::now();
            for (size_t k = 0; k < q.ranges.size(); ++k) {
              positives += set[q.filter[k]]->MayContainRange(q.ranges[k].lo, q.ranges[k].hi);
            }
            t[i].ns.push_back(1e9 * SecondsSince(start) / static_cast<double>(q.ranges.size()));
            t[i].positives += positives;
            t[i].queries += q.ranges.size();
          }
        }
        for (size_t i = 0; i < policies.size(); ++i) {
          JsonRecord j = Base(policies[i], "random", key_dist, static_cast<uint64_t>(filter_keys), sets[i].size(),
                              useed, static_cast<int>(rounds), t[i]);
          QueryFields(q, order, t[i], &j);
          j["bits_per_key"] = 8.0 * static_cast<double>(bytes[i]) /
                              (static_cast<double>(filter_keys) * static_cast<double>(sets[i].size()));
          j["working_set_bytes"] = bytes[i];
          emit(j);
        }
      }
    }
  }
  return Status::OK();
}

}  // namespace filterlab::sim
