#include "sim/speed.h"

#include <algorithm>
#include <cmath>
#include <memory>
#include <vector>

#include "common/stats.h"
#include "filters/filter.h"
#include "sim/floor.h"
#include "sim/machine.h"
#include "sim/speed_plan.h"
#include "sim/speed_queries.h"
#include "sim/speed_working_set.h"

namespace filterlab::sim {
namespace {

class SpeedRun {
 public:
  SpeedRun(const SpeedConfig& cfg, const FilterPolicy& policy, const Emit& emit)
      : cfg_(cfg), policy_(policy), emit_(emit) {}

  JsonRecord Base(const std::string& mode, const FilterSet& set, bool huge) const {
    JsonRecord j;
    j["command"] = "speed";
    j["filter"] = policy_.spec();
    j["filter_arg"] = cfg_.filter_spec;
    j["layout"] = set.layout;
    j["mode"] = mode;
    j["working_set_bytes"] = set.serialized_bytes;
    j["filters"] = set.filters.size();
    j["keys"] = set.total_keys;
    j["bits_per_key"] = 8.0 * static_cast<double>(set.serialized_bytes) / static_cast<double>(set.total_keys);
    j["huge_pages"] = huge;
    j["query_path"] = cfg_.query_path;
    j["key_size"] = cfg_.key_size;
    j["seed"] = cfg_.seed;
    return j;
  }

  // Runs gross and dry for one plan in cfg_.rounds rounds and emits the
  // record. Each round asks the next 1/rounds of the queries, timed and dry
  // back to back (after the round's floor, when the plan has one), so a
  // round's net and x_floor pair measurements taken within about a second.
  // The record's net and x_floor are the medians over rounds, so a change
  // of the host's speed during one round's timed part but not its dry part
  // moves one round, not the figure. Counts, gross and dry are over all
  // queries. Where the timed loop is bound by the memory side (random
  // filters over 1 GiB on a VM: a nested page walk per line) it hides the
  // harness's time, so net also moves with the dry loop's own speed, which
  // varies with code layout between builds (paper/findings.md, "the dry
  // loop's layout sensitivity"): compare such figures across builds through
  // gross and floor.
  Status Measure(const FilterSet& set, const Measurement& plan, uint64_t queries) {
    const uint32_t seed = cfg_.seed + (plan.mix == QueryMix::kOutside ? 2 : 1);
    const uint64_t rounds = static_cast<uint64_t>(cfg_.rounds);
    const RoundSplit split = SplitIntoRounds(queries, rounds, static_cast<uint64_t>(plan.batch));
    const uint64_t per_round = split.per_round;
    QuerySource timed_source(set, policy_, plan, seed, cfg_.key_size, false);
    QuerySource dry_source(set, policy_, plan, seed, cfg_.key_size, cfg_.net_includes_hashing);
    Tally gross, dry;
    std::vector<double> nets, floors, ratios;
    for (uint64_t r = 0; r < rounds; ++r) {
      const double floor_ns = plan.with_floor ? Floor(set) : 0;
      const Tally g = RunQueries<false>(timed_source, plan, per_round);
      const Tally d = RunQueries<true>(dry_source, plan, per_round);
      const double net = (g.seconds - d.seconds) * 1e9 / static_cast<double>(per_round);
      nets.push_back(net);
      if (floor_ns > 0) {
        floors.push_back(floor_ns);
        ratios.push_back(net / floor_ns);
      }
      gross += g;
      dry += d;
    }
    if (gross.inside_negatives != 0) {
      return Status::Corruption("filter " + policy_.spec() + " answered 'no' for " +
                                std::to_string(gross.inside_negatives) + " added keys in mode " +
                                SpeedModeName(plan.mode));
    }
    JsonRecord j = Base(SpeedModeName(plan.mode), set, set.arena->huge_pages());
    j["mix"] = QueryMixName(plan.mix);
    j["pick"] = plan.pick == Pick::kSingle ? "single" : plan.pick == Pick::kRandom ? "random" : "skewed";
    j["batch"] = plan.batch;
    if (plan.batch > 1) j["prepared"] = plan.prepared;
    j["pipeline_depth"] = plan.pipelined ? plan.pipeline_depth : 0;
    if (plan.pipelined) j["pipeline_depth_auto"] = plan.pipeline_depth_auto;
    if (plan.pipeline_depth_auto && set.lines_per_query > 0) j["lines_per_query"] = set.lines_per_query;
    if (plan.pick == Pick::kSkewed) {
      j["skew"] = std::to_string(static_cast<int>(std::lround(plan.primary_threshold / 42949672.96))) + "% in " +
                  std::to_string(plan.num_primary) + " filters";
    }
    j["queries"] = split.total;
    j["rounds"] = rounds;
    j["net_includes_hashing"] = cfg_.net_includes_hashing;
    const double n = static_cast<double>(split.total);
    j["gross_ns_per_op"] = gross.seconds * 1e9 / n;
    j["dry_ns_per_op"] = dry.seconds * 1e9 / n;
    j["net_ns_per_op"] = Median(nets);
    j["net_ns_per_op_rounds"] = nets;
    // The same from the thread's CPU time: on a shared machine the wall
    // figures include time other processes ran; these do not.
    j["gross_cpu_ns_per_op"] = gross.cpu_seconds * 1e9 / n;
    j["dry_cpu_ns_per_op"] = dry.cpu_seconds * 1e9 / n;
    j["net_cpu_ns_per_op"] = (gross.cpu_seconds - dry.cpu_seconds) * 1e9 / n;
    if (gross.outside > 0) {
      j["fp"] = static_cast<double>(gross.false_positives) / static_cast<double>(gross.outside);
    } else {
      j["fp"] = nullptr;
    }
    j["outside_queries"] = gross.outside;
    if (!floors.empty()) {
      if (const uint64_t t = TranslationPageBytes(set.arena->huge_pages()); t != 0) j["translation_page_bytes"] = t;
      j["floor_ns_per_line"] = Median(floors);
      j["x_floor"] = Median(ratios);
      j["x_floor_rounds"] = ratios;
      if (set.lines_per_query > 0) {
        j["lines_per_query"] = set.lines_per_query;
        j["x_floor_per_line"] = Median(ratios) / set.lines_per_query;
      }
    }
    emit_(j);
    return Status::OK();
  }

  // Measured again in each round of a random-filter measurement, beside the
  // round's timed and dry runs, so a change of the host's speed between
  // rounds moves both sides of x_floor. 4M reads (~50 ms a round) gave
  // 11.3-11.8 ns/line over 1 GiB, the range 20M-read floors gave.
  double Floor(const FilterSet& set) const {
    if (!cfg_.measure_floor) return 0;
    return RandomLineReadNs(set.arena->data(), set.arena->size() / 64, 4000000, 32, 1, cfg_.seed + 7);
  }

  // The page size the TLB caches for pages like the working set's (floor's
  // `translation` measure), once per run: where 2 MiB pages translate at
  // 4 KiB (a hypervisor backing guest memory with 4 KiB pages), every random
  // line of a large working set needs a page walk, which the floor's bare
  // stream overlaps better than a query loop does (sim/README.md).
  // 0 when the probe's 32 MiB could not be mapped (then the field is left
  // out); measured, or found unmeasurable, once.
  uint64_t TranslationPageBytes(bool huge) {
    if (!translation_probed_) {
      translation_probed_ = true;
      std::unique_ptr<PageArena> probe_arena;
      if (PageArena::Allocate(TranslationProbe::kPages * 4096, huge, &probe_arena).ok()) {
        translation_page_bytes_ = ProbeTranslation(probe_arena->data(), 2000000, cfg_.seed + 9).translation_page_bytes;
      }
    }
    return translation_page_bytes_;
  }

  Status Run(const SpeedPlan& plan) {
    const bool want_huge =
        cfg_.huge_pages == "on" || (cfg_.huge_pages == "auto" && TransparentHugePageMode() != "never");
    Status s;
    if (plan.needs_working_set()) {
      FilterSet set;
      if (!(s = BuildWorkingSet(policy_, cfg_, want_huge, &set)).ok()) return s;
      if (plan.build_record) EmitBuild(set);
      const bool any_floor = std::any_of(plan.working_set.begin(), plan.working_set.end(),
                                         [](const Measurement& m) { return m.with_floor; });
      const bool any_auto_depth =
          std::any_of(plan.working_set.begin(), plan.working_set.end(),
                      [](const Measurement& m) { return m.pipelined && m.pipeline_depth == kAutoPipelineDepth; });
      if (((any_floor && cfg_.measure_floor) || any_auto_depth) &&
          !(s = MeasureLinesPerQuery(policy_, cfg_.key_size, &set)).ok()) {
        return s;
      }
      for (Measurement m : plan.working_set) {
        if (m.mode == SpeedMode::kSkewed && !SetPrimaries(set, &m)) continue;
        if (m.pipelined && m.pipeline_depth == kAutoPipelineDepth) {
          m.pipeline_depth = PipelineDepthForLines(set.lines_per_query);
          m.pipeline_depth_auto = true;
        }
        if (!(s = Measure(set, m, cfg_.queries)).ok()) return s;
      }
    }
    if (!plan.huge.empty()) {
      FilterSet set;
      if (!(s = BuildHugeFilter(policy_, cfg_, want_huge, &set)).ok()) return s;
      for (const Measurement& m : plan.huge) {
        if (!(s = Measure(set, m, cfg_.queries)).ok()) return s;
      }
    }
    return Status::OK();
  }

  void EmitBuild(const FilterSet& set) const {
    JsonRecord j = Base("build", set, set.arena->huge_pages());
    j["ns_per_key"] = set.build_seconds * 1e9 / static_cast<double>(set.total_keys);
    // FilterPolicy::Build from ready hashes only (no key making or hashing).
    j["build_call_ns_per_key"] = set.build_call_seconds * 1e9 / static_cast<double>(set.total_keys);
    j["average_keys"] = cfg_.average_keys;
    j["vary_ratio"] = cfg_.vary_ratio;
    emit_(j);
  }

  // Skewed: the primary filters are a fraction of the working set, at least
  // one and leaving one other; false (skip) when the set has one filter.
  static bool SetPrimaries(const FilterSet& set, Measurement* m) {
    if (set.filters.size() < 2) return false;
    m->num_primary = std::max<uint32_t>(1, static_cast<uint32_t>(m->skew_filters * set.filters.size()));
    if (m->num_primary >= set.filters.size()) m->num_primary = static_cast<uint32_t>(set.filters.size()) - 1;
    return true;
  }

 private:
  const SpeedConfig& cfg_;
  const FilterPolicy& policy_;
  const Emit& emit_;
  bool translation_probed_ = false;
  uint64_t translation_page_bytes_ = 0;  // 0 = could not be measured
};

constexpr std::pair<SpeedMode, const char*> kModeNames[] = {
    {SpeedMode::kBuild, "build"},     {SpeedMode::kSingle, "single"},
    {SpeedMode::kRandom, "random"},   {SpeedMode::kRandomPipelined, "random_pipelined"},
    {SpeedMode::kBatched, "batched"}, {SpeedMode::kSkewed, "skewed"},
    {SpeedMode::kHuge, "huge"}};
constexpr std::pair<QueryMix, const char*> kMixNames[] = {
    {QueryMix::kInside, "inside"}, {QueryMix::kOutside, "outside"}, {QueryMix::kMixed, "mixed"}};

template <class E, size_t N>
const char* NameOf(const std::pair<E, const char*> (&names)[N], E value) {
  for (const auto& [e, name] : names) {
    if (e == value) return name;
  }
  return "?";
}

template <class E, size_t N>
std::vector<E> Named(const std::pair<E, const char*> (&names)[N], const std::vector<std::string>& wanted) {
  std::vector<E> out;
  for (const std::string& w : wanted) {
    for (const auto& [e, name] : names) {
      if (w == name) out.push_back(e);
    }
  }
  return out;
}

template <class E, size_t N>
std::vector<std::string> AllNames(const std::pair<E, const char*> (&names)[N]) {
  std::vector<std::string> out;
  for (const auto& [e, name] : names) out.push_back(name);
  return out;
}

}  // namespace

const char* SpeedModeName(SpeedMode mode) { return NameOf(kModeNames, mode); }
const char* QueryMixName(QueryMix mix) { return NameOf(kMixNames, mix); }
std::vector<std::string> SpeedModeNames() { return AllNames(kModeNames); }
std::vector<std::string> QueryMixNames() { return AllNames(kMixNames); }
std::vector<SpeedMode> SpeedModesNamed(const std::vector<std::string>& names) { return Named(kModeNames, names); }
std::vector<QueryMix> QueryMixesNamed(const std::vector<std::string>& names) { return Named(kMixNames, names); }

Status RunSpeed(const SpeedConfig& config, const Emit& emit) {
  std::unique_ptr<FilterPolicy> policy;
  Status s = NewFilterPolicy(config.filter_spec, &policy);
  if (!s.ok()) return Status::InvalidArgument("--filter: " + s.message());
  for (int b : config.batch_sizes) {
    if (b < 2 || b > 64) {
      return Status::InvalidArgument("--batch_sizes: " + std::to_string(b) + " is not allowed; batch sizes are 2..64");
    }
  }
  SpeedConfig cfg = config;
  if (cfg.working_set_bytes == 0) {
    cfg.working_set_bytes = std::max<uint64_t>(4 * LastLevelCacheBytes(), uint64_t{64} << 20);
  }
  SpeedRun run(cfg, *policy, emit);
  return run.Run(PlanSpeedRun(cfg));
}

}  // namespace filterlab::sim
