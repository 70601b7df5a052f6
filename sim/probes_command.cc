// `filterlab-sim probes`: the simulated best probe count per bits/key, and
// for fastlocal a boundary-by-boundary comparison with RocksDB's
// ChooseNumProbes table (choose_num_probes.json).
#include <cmath>
#include <fstream>
#include <map>
#include <memory>

#include "filters/filter.h"
#include "filters/filter_spec.h"
#include "sim/commands.h"
#include "common/flags.h"
#include "sim/machine.h"
#include "common/number_list.h"
#include "sim/probes.h"
#include "common/stats.h"

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
  j["diff"] = (static_cast<double>(r.positives[b]) - static_cast<double>(r.positives[a])) / static_cast<double>(queries);
  j["diff_ci_low"] = d.low;
  j["diff_ci_high"] = d.high;
  j["discordant"] = r.discordant[a][b] + r.discordant[b][a];
  return j;
}

}  // namespace

Status ProbesCommand(int argc, char** argv, const Emit& emit, std::string* help) {
  FlagSet flags("probes",
                "Find by simulation the probe count that minimises the FP rate at each bits/key of --bpk.\n"
                "Candidate counts share added hashes and queries (paired comparison); each record gives every\n"
                "candidate's fp with a Wilson 95% interval, the best count, and the paired 95% interval of\n"
                "fp(other) - fp(best). verdict: agree (best = table), indistinguishable (the table's count is\n"
                "within the interval of the best), disagree. For fastlocal the table is RocksDB's\n"
                "ChooseNumProbes (--table), and a 'boundary' record per table boundary tests the switch\n"
                "from k to k+1 at the boundary and 0.5 bits/key either side; its verdict: agree (both sides\n"
                "confirm the table at 95%), consistent (nothing contradicts it, not all resolved),\n"
                "simulation_switches_earlier / _later (a side contradicts it).");
  std::string variant, extra, bpk_text, table_path;
  long long keys = 0, filters = 0, queries = 0, spread = 0, threads = 0, seed = 0;
  bool no_boundaries = false;
  flags.String("variant", "fastlocal", "filter variant; must accept bpk= and probes= spec keys", &variant);
  flags.String("params", "", "extra spec parameters, e.g. hash=64", &extra);
  flags.String("bpk", "1:60:0.5", "bits/key grid: list or first:last:step (1..100)", &bpk_text);
  flags.Int("keys", 100000, 100, 100000000, "keys per filter", &keys);
  flags.Int("filters", 16, 1, 1000000, "filters per grid point (fresh hashes each)", &filters);
  flags.Int("queries", 10000000, 1000, 100000000000LL, "queries per grid point (spread over the filters)", &queries);
  flags.Int("spread", 2, 0, 10, "candidates: table count +- spread (clipped to 1..30 and to the counts the variant accepts)", &spread);
  flags.Int("threads", 0, 0, 1024, "threads; 0 = all cores", &threads);
  flags.Int("seed", 0, 0, 1LL << 62, "seed", &seed);
  flags.String("table", FILTERLAB_REFERENCE_DIR "/choose_num_probes.json",
               "RocksDB's ChooseNumProbes vectors (used for variant fastlocal)", &table_path);
  flags.Bool("no_boundaries", "skip the per-boundary records", &no_boundaries);
  Status s = flags.Parse(argc, argv);
  if (!s.ok()) return s;
  if (flags.Answered(help)) return Status::OK();
  std::vector<double> grid;
  if (!(s = ParseNumberList("bpk", bpk_text, 1, 100, &grid)).ok()) return s;
  std::map<int, int> table;
  std::vector<std::pair<int, int>> boundaries;
  const bool use_table = variant == "fastlocal";
  if (use_table && !(s = LoadTable(table_path, &table, &boundaries)).ok()) return s;
  if (!(s = CheckMemory(static_cast<uint64_t>(keys) * 8 * 4 * (threads ? threads : NumCores()), "--keys")).ok()) return s;

  ProbeSimConfig base;
  base.variant = variant;
  base.extra_params = extra;
  base.keys = static_cast<uint64_t>(keys);
  base.filters = static_cast<uint64_t>(filters);
  base.queries = static_cast<uint64_t>(queries);
  base.threads = threads == 0 ? NumCores() : static_cast<int>(threads);
  base.seed = static_cast<uint64_t>(seed);

  // The count the table (or, without one, the policy's default) picks at bpk.
  auto chosen = [&](double bpk, std::string* source, int* out) -> Status {
    const int mbpk = static_cast<int>(bpk * 1000.0 + 0.500001);
    if (auto it = table.find(mbpk); it != table.end()) {
      *source = "choose_num_probes.json";
      *out = it->second;
      return Status::OK();
    }
    std::unique_ptr<FilterPolicy> p;
    std::string spec = variant + ":bpk=" + FormatNumber(bpk) + (extra.empty() ? "" : "," + extra);
    Status st = NewFilterPolicy(spec, &p);
    if (!st.ok()) return Status::InvalidArgument("--variant: " + st.message());
    *source = "policy default";
    *out = p->num_probes().value_or(0);
    return Status::OK();
  };

  for (double bpk : grid) {
    int table_k = 0;
    std::string source;
    if (!(s = chosen(bpk, &source, &table_k)).ok()) return s;
    ProbeSimConfig cfg = base;
    cfg.bpk = bpk;
    // Counts the variant does not accept (the two-probes-per-word worm
    // variants stop at 16) are left out of the candidates, not an error.
    for (int k = std::max(1, table_k - static_cast<int>(spread)); k <= std::min(30, table_k + static_cast<int>(spread)); ++k) {
      std::unique_ptr<FilterPolicy> p;
      const std::string spec = variant + ":bpk=" + FormatNumber(bpk) + ",probes=" + std::to_string(k) +
                               (extra.empty() ? "" : "," + extra);
      if (k == table_k || NewFilterPolicy(spec, &p).ok()) cfg.candidates.push_back(k);
    }
    ProbeSimResult r;
    if (!(s = SimulateProbes(cfg, &r)).ok()) return s;
    size_t best = 0, table_i = 0;
    for (size_t i = 0; i < cfg.candidates.size(); ++i) {
      if (r.positives[i] < r.positives[best]) best = i;
      if (cfg.candidates[i] == table_k) table_i = i;
    }
    JsonRecord j;
    j["command"] = "probes";
    j["record"] = "grid";
    j["variant"] = variant;
    j["bits_per_key"] = bpk;
    j["millibits_per_key"] = static_cast<int>(bpk * 1000.0 + 0.500001);
    j["actual_bits_per_key"] = r.bits_per_key;
    j["keys"] = cfg.keys;
    j["filters"] = cfg.filters;
    j["queries"] = cfg.queries;
    j["seed"] = cfg.seed;
    j["table_probes"] = table_k;
    j["table_source"] = source;
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
    emit(j);
  }

  if (use_table && !no_boundaries) {
    for (const auto& [m, k] : boundaries) {
      if (m + 1 > 100000) continue;
      JsonRecord j;
      j["command"] = "probes";
      j["record"] = "boundary";
      j["variant"] = variant;
      j["boundary_millibits"] = m;
      j["probes_below"] = k;
      j["probes_above"] = table.upper_bound(m)->second;
      JsonRecord points = JsonRecord::array();
      // Each side of the boundary either shows the table's choice
      // significantly (below: k better, i.e. fp(k') - fp(k) > 0; above: k'
      // better), shows the opposite significantly (the simulation would
      // switch earlier / later), or cannot tell at this sample size.
      bool earlier = false, later = false, below_confirms = false, above_confirms = false;
      for (int off : {-500, 0, 500}) {
        const double bpk = (m + off) / 1000.0;
        if (bpk < 1) continue;
        ProbeSimConfig cfg = base;
        cfg.bpk = bpk;
        cfg.candidates = {k, j["probes_above"].get<int>()};
        ProbeSimResult r;
        if (!(s = SimulateProbes(cfg, &r)).ok()) return s;
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
      j["verdict"] = earlier ? "simulation_switches_earlier"
                     : later ? "simulation_switches_later"
                     : below_confirms && above_confirms ? "agree" : "consistent";
      emit(j);
    }
  }
  return Status::OK();
}

}  // namespace filterlab::sim
