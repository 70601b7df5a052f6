// `filterlab-sim probes`: the simulated best probe count per bits/key, and
// for fastlocal a boundary-by-boundary comparison with RocksDB's
// ChooseNumProbes table (choose_num_probes.json).
#include <cmath>
#include <fstream>
#include <map>
#include <memory>

#include "common/flags.h"
#include "common/number_list.h"
#include "common/stats.h"
#include "filters/filter.h"
#include "filters/filter_spec.h"
#include "sim/commands.h"
#include "sim/machine.h"
#include "sim/probes.h"

namespace filterlab::sim {
namespace {

// [mbpk] -> probes from the reference table (step-500 grid and boundaries).
Status LoadTable(const std::string& path, std::map<int, int>* table, std::vector<std::pair<int, int>>* boundaries) {
  std::ifstream in(path);
  if (!in) return Status::InvalidArgument("--table=" + path + ": cannot open (expected choose_num_probes.json)");
  JsonRecord doc;
  try {
    doc = JsonRecord::parse(in);
    for (const char* key : {"fastlocal_step500", "fastlocal_boundaries"}) {
      for (const auto& row : doc.at("data").at(key)) (*table)[row.at(0).get<int>()] = row.at(1).get<int>();
    }
  } catch (const std::exception& e) {
    return Status::InvalidArgument("--table=" + path + ": not a choose_num_probes.json file: " + e.what());
  }
  // A boundary is the last mbpk with k before an entry with k+1.
  int prev_m = -1, prev_k = -1;
  for (const auto& [m, k] : *table) {
    if (prev_k >= 0 && k != prev_k) boundaries->push_back({prev_m, prev_k});
    prev_m = m;
    prev_k = k;
  }
  return Status::OK();
}

JsonRecord Evidence(const ProbeSimResult& r, size_t a, size_t b, uint64_t queries) {
  // Paired difference fp(b) - fp(a): positive means a is better.
  const Interval d = PairedDifferenceInterval(r.discordant[b][a], r.discordant[a][b], queries);
  JsonRecord j;
  j["diff"] =
      (static_cast<double>(r.positives[b]) - static_cast<double>(r.positives[a])) / static_cast<double>(queries);
  j["diff_ci_low"] = d.low;
  j["diff_ci_high"] = d.high;
  j["discordant"] = r.discordant[a][b] + r.discordant[b][a];
  return j;
}

struct ProbesArgs {
  std::string filter, bpk_text, table_path;
  long long keys = 0, filters = 0, queries = 0, spread = 0, threads = 0, seed = 0;
  bool no_boundaries = false;
};

// One bits/key of the grid and the count the table (or the policy) picks there.
struct GridPoint {
  double bpk;
  int table_probes;
  std::string table_source;
};

// Everything a run does, validated before anything is simulated.
struct ProbesPlan {
  ProbeSimConfig base;
  std::string variant;  // the spec's variant name, for the records
  int spread = 0;
  std::vector<GridPoint> grid;
  std::map<int, int> table;                     // fastlocal: ChooseNumProbes, [mbpk] -> probes
  std::vector<std::pair<int, int>> boundaries;  // (last mbpk with k, k); empty when not wanted
};

int Millibits(double bpk) { return static_cast<int>(bpk * 1000.0 + 0.500001); }

void DeclareProbesFlags(FlagSet& flags, ProbesArgs* a) {
  flags.String("filter", "fastlocal", "filter spec without bpk and probes, e.g. fastlocal or cache_dbl:hash=32",
               &a->filter);
  flags.String("bpk", "1:60:0.5", "bits/key grid: list or first:last:step (1..100)", &a->bpk_text);
  flags.Int("keys", 100000, 100, 100000000, "keys per filter", &a->keys);
  flags.Int("filters", 16, 1, 1000000, "filters per grid point (fresh hashes each)", &a->filters);
  flags.Int("queries", 10000000, 1000, 100000000000LL, "queries per grid point (spread over the filters)", &a->queries);
  flags.Int("spread", 2, 0, 10,
            "candidates: table count +- spread (clipped to 1..30 and to the counts the variant accepts)", &a->spread);
  flags.Int("threads", 0, 0, 1024, "threads; 0 = all cores", &a->threads);
  flags.Int("seed", 0, 0, 1LL << 62, "seed", &a->seed);
  flags.String("table", FILTERLAB_REFERENCE_DIR "/choose_num_probes.json",
               "RocksDB's ChooseNumProbes vectors (used for variant fastlocal)", &a->table_path);
  flags.Bool("no_boundaries", "skip the per-boundary records", &a->no_boundaries);
  flags.Field("command", "string", "\"probes\"");
  flags.Field("record", "string", "grid (one bits/key) | boundary (one switch of the table from k to k+1)");
  flags.Field("variant", "string", "the spec's variant name");
  flags.Field("filter", "string", "the --filter spec (without bpk and probes)");
  flags.Field("bits_per_key", "number", "grid: requested bits per key");
  flags.Field("millibits_per_key", "int", "grid: bits per key in thousandths (the table's key)");
  flags.Field("actual_bits_per_key", "number", "grid: bits per key of the built filters");
  flags.Field("keys", "int", "grid: keys per filter");
  flags.Field("filters", "int", "grid: filters per grid point");
  flags.Field("queries", "int", "grid: queries per grid point");
  flags.Field("seed", "int", "grid: seed");
  flags.Field("table_probes", "int", "grid: the count the table (or the policy's default) picks");
  flags.Field("table_source", "string", "grid: choose_num_probes.json | policy default");
  flags.Field("candidates", "array", "grid: per candidate {probes, positives, fp, ci_low, ci_high, vs_best}");
  flags.Field("best_probes", "int", "grid: the candidate with the fewest positives");
  flags.Field("table_vs_best", "object",
              "grid: paired fp(table) - fp(best) {diff, diff_ci_low, diff_ci_high, discordant}");
  flags.Field("ci_method", "string", "grid: how the intervals are computed");
  flags.Field("verdict", "string",
              "grid: agree | indistinguishable | disagree; boundary: agree | consistent | "
              "simulation_switches_earlier | simulation_switches_later");
  flags.Field("boundary_millibits", "int", "boundary: the last millibits/key with probes_below");
  flags.Field("probes_below", "int", "boundary: the table's count up to the boundary");
  flags.Field("probes_above", "int", "boundary: the table's count after it");
  flags.Field("points", "array", "boundary: paired fp(above) - fp(below) at the boundary and 0.5 bits/key either side");
}

// The count the table (or, without one, the policy's default) picks at bpk.
Status TableProbes(const ProbesPlan& plan, double bpk, GridPoint* point) {
  point->bpk = bpk;
  if (auto it = plan.table.find(Millibits(bpk)); it != plan.table.end()) {
    point->table_source = "choose_num_probes.json";
    point->table_probes = it->second;
    return Status::OK();
  }
  std::unique_ptr<FilterPolicy> p;
  Status s = NewFilterPolicy(ProbeSpec(plan.base.filter, bpk), &p);
  if (!s.ok()) return Status::InvalidArgument("--filter: " + s.message());
  if (!p->num_probes())
    return Status::InvalidArgument("--filter=" + plan.base.filter + ": the variant has no probe count");
  point->table_source = "policy default";
  point->table_probes = *p->num_probes();
  return Status::OK();
}

// Flags, spec, table, memory: everything checked before a filter is built.
Status PlanProbes(const ProbesArgs& a, ProbesPlan* plan) {
  FilterSpec spec;
  Status s = FilterSpec::Parse(a.filter, &spec);
  if (!s.ok()) return Status::InvalidArgument("--filter: " + s.message());
  if (spec.Has("bpk") || spec.Has("probes")) {
    return Status::InvalidArgument("--filter=" + a.filter +
                                   ": give the spec without bpk and probes (bits/key come "
                                   "from --bpk, probes are the candidates), e.g. fastlocal or cache_dbl:hash=32");
  }
  std::vector<double> grid;
  if (!(s = ParseNumberList("bpk", a.bpk_text, 1, 100, &grid)).ok()) return s;
  plan->variant = spec.variant();
  plan->spread = static_cast<int>(a.spread);
  if (plan->variant == "fastlocal") {
    std::vector<std::pair<int, int>> boundaries;
    if (!(s = LoadTable(a.table_path, &plan->table, &boundaries)).ok()) return s;
    if (!a.no_boundaries) plan->boundaries = boundaries;
  }
  ProbeSimConfig& base = plan->base;
  base.filter = a.filter;
  base.keys = static_cast<uint64_t>(a.keys);
  base.filters = static_cast<uint64_t>(a.filters);
  base.queries = static_cast<uint64_t>(a.queries);
  base.threads = a.threads == 0 ? NumCores() : static_cast<int>(a.threads);
  base.seed = static_cast<uint64_t>(a.seed);
  for (double bpk : grid) {
    GridPoint point;
    if (!(s = TableProbes(*plan, bpk, &point)).ok()) return s;
    plan->grid.push_back(point);
  }
  return CheckMemory(static_cast<uint64_t>(a.keys) * 8 * 4 * static_cast<uint64_t>(base.threads), "--keys");
}

// table count +- spread, less the counts the variant does not accept (the
// two-probes-per-word worm variants stop at 16): those are left out, not an
// error.
std::vector<int> Candidates(const ProbesPlan& plan, const GridPoint& point) {
  std::vector<int> out;
  const int k0 = point.table_probes;
  for (int k = std::max(1, k0 - plan.spread); k <= std::min(30, k0 + plan.spread); ++k) {
    std::unique_ptr<FilterPolicy> p;
    if (k == k0 || NewFilterPolicy(ProbeSpec(plan.base.filter, point.bpk, k), &p).ok()) out.push_back(k);
  }
  return out;
}

Status GridRecord(const ProbesPlan& plan, const GridPoint& point, JsonRecord* out) {
  ProbeSimConfig cfg = plan.base;
  cfg.bpk = point.bpk;
  cfg.candidates = Candidates(plan, point);
  ProbeSimResult r;
  Status s = SimulateProbes(cfg, &r);
  if (!s.ok()) return s;
  size_t best = 0, table_i = 0;
  for (size_t i = 0; i < cfg.candidates.size(); ++i) {
    if (r.positives[i] < r.positives[best]) best = i;
    if (cfg.candidates[i] == point.table_probes) table_i = i;
  }
  JsonRecord& j = *out;
  j["command"] = "probes";
  j["record"] = "grid";
  j["variant"] = plan.variant;
  j["filter"] = plan.base.filter;
  j["bits_per_key"] = point.bpk;
  j["millibits_per_key"] = Millibits(point.bpk);
  j["actual_bits_per_key"] = r.bits_per_key;
  j["keys"] = cfg.keys;
  j["filters"] = cfg.filters;
  j["queries"] = cfg.queries;
  j["seed"] = cfg.seed;
  j["table_probes"] = point.table_probes;
  j["table_source"] = point.table_source;
  JsonRecord cands = JsonRecord::array();
  for (size_t i = 0; i < cfg.candidates.size(); ++i) {
    const Interval ci = WilsonInterval(r.positives[i], cfg.queries);
    JsonRecord c;
    c["probes"] = cfg.candidates[i];
    c["positives"] = r.positives[i];
    c["fp"] = static_cast<double>(r.positives[i]) / static_cast<double>(cfg.queries);
    c["ci_low"] = ci.low;
    c["ci_high"] = ci.high;
    c["vs_best"] = Evidence(r, best, i, cfg.queries);
    cands.push_back(c);
  }
  j["candidates"] = cands;
  j["best_probes"] = cfg.candidates[best];
  const JsonRecord ev = Evidence(r, best, table_i, cfg.queries);
  j["table_vs_best"] = ev;
  j["ci_method"] = "wilson95; paired differences: Wald on discordant pairs";
  j["verdict"] = best == table_i ? "agree" : (ev["diff_ci_low"].get<double>() <= 0 ? "indistinguishable" : "disagree");
  return Status::OK();
}

// The table's switch from k to k+1 after millibits m, tested at m and 0.5
// bits/key either side.
Status BoundaryRecord(const ProbesPlan& plan, int m, int k, JsonRecord* out) {
  JsonRecord& j = *out;
  j["command"] = "probes";
  j["record"] = "boundary";
  j["variant"] = plan.variant;
  j["filter"] = plan.base.filter;
  j["boundary_millibits"] = m;
  j["probes_below"] = k;
  const int above = plan.table.upper_bound(m)->second;
  j["probes_above"] = above;
  JsonRecord points = JsonRecord::array();
  // Each side of the boundary either shows the table's choice
  // significantly (below: k better, i.e. fp(k') - fp(k) > 0; above: k'
  // better), shows the opposite significantly (the simulation would
  // switch earlier / later), or cannot tell at this sample size.
  bool earlier = false, later = false, below_confirms = false, above_confirms = false;
  for (int off : {-500, 0, 500}) {
    const double bpk = (m + off) / 1000.0;
    if (bpk < 1) continue;
    ProbeSimConfig cfg = plan.base;
    cfg.bpk = bpk;
    cfg.candidates = {k, above};
    ProbeSimResult r;
    Status s = SimulateProbes(cfg, &r);
    if (!s.ok()) return s;
    JsonRecord p = Evidence(r, 0, 1, cfg.queries);  // fp(k+1) - fp(k)
    p["bits_per_key"] = bpk;
    p["fp_below_probes"] = static_cast<double>(r.positives[0]) / static_cast<double>(cfg.queries);
    p["fp_above_probes"] = static_cast<double>(r.positives[1]) / static_cast<double>(cfg.queries);
    if (off < 0 && p["diff_ci_high"].get<double>() < 0) earlier = true;  // k+1 already better below
    if (off > 0 && p["diff_ci_low"].get<double>() > 0) later = true;     // k still better above
    if (off < 0 && p["diff_ci_low"].get<double>() > 0) below_confirms = true;
    if (off > 0 && p["diff_ci_high"].get<double>() < 0) above_confirms = true;
    points.push_back(p);
  }
  j["points"] = points;
  // agree: both sides confirm the table; consistent: no side contradicts
  // it but at least one cannot tell (near the optimum neighbouring
  // counts differ by less than the interval).
  j["verdict"] = earlier                            ? "simulation_switches_earlier"
                 : later                            ? "simulation_switches_later"
                 : below_confirms && above_confirms ? "agree"
                                                    : "consistent";
  return Status::OK();
}

}  // namespace

Status ProbesCommand(int argc, char** argv, const Emit& emit, std::string* help) {
  FlagSet flags("probes",
                "Find by simulation the probe count that minimises the FP rate of --filter at each bits/key of\n"
                "--bpk. Candidate counts share added hashes and queries (paired comparison); each record gives\n"
                "every candidate's fp with a Wilson 95% interval, the best count, and the paired 95% interval of\n"
                "fp(other) - fp(best). verdict: agree (best = table), indistinguishable (the table's count is\n"
                "within the interval of the best), disagree. For fastlocal the table is RocksDB's\n"
                "ChooseNumProbes (--table), and a 'boundary' record per table boundary tests the switch\n"
                "from k to k+1 at the boundary and 0.5 bits/key either side; its verdict: agree (both sides\n"
                "confirm the table at 95%), consistent (nothing contradicts it, not all resolved),\n"
                "simulation_switches_earlier / _later (a side contradicts it). Other variants are compared\n"
                "with their policy's default count.");
  ProbesArgs args;
  DeclareProbesFlags(flags, &args);
  Status s = flags.Parse(argc, argv);
  if (!s.ok()) return s;
  if (flags.Answered(help)) return Status::OK();
  ProbesPlan plan;
  if (!(s = PlanProbes(args, &plan)).ok()) return s;
  if (flags.check_only()) return Status::OK();
  for (const GridPoint& point : plan.grid) {
    JsonRecord j;
    if (!(s = GridRecord(plan, point, &j)).ok()) return s;
    emit(j);
  }
  for (const auto& [m, k] : plan.boundaries) {
    if (m + 1 > 100000) continue;
    JsonRecord j;
    if (!(s = BoundaryRecord(plan, m, k, &j)).ok()) return s;
    emit(j);
  }
  return Status::OK();
}

}  // namespace filterlab::sim
