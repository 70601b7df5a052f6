// `filterlab-sim lsm`: the filter-memory allocation of a leveled LSM-tree in
// the model alone (filters/allocation/level_allocation.h), without building
// a database: for each size ratio, tree depth, budget and policy, the bits
// and model FP rate of every level's filter and the expected data-block
// reads per lookup. One JSON line per configuration; the curves of
// experiments/engine_allocation.toml's figure are drawn from them.
//
// The tree is Monkey's: levels 1..L are sorted runs, each T times the
// previous, holding N keys in all, n_i = N (T - 1) / (T^L - 1) T^(i-1);
// --l0_runs adds that many level-0 runs of one write buffer (the level-1
// size / T) each. --levels gives L; --buffer_keys derives it instead as the
// fewest levels whose largest holds the rest, L = ceil(log_T(N (T-1) /
// buffer + 1)), the depth a tree filled from a buffer of that size reaches.
#include <cmath>
#include <string>
#include <vector>

#include "common/flags.h"
#include "common/number_list.h"
#include "common/strings.h"
#include "filters/allocation/level_allocation.h"
#include "filters/filter_spec.h"
#include "sim/commands.h"

namespace filterlab::sim {
namespace {

struct LsmArgs {
  std::string filter, ratios_text, levels_text, budgets_text, policies_text;
  double keys = 0, buffer_keys = 0, existing_share = 0;
  long long l0_runs = 0;
};

void DeclareLsmFlags(FlagSet& flags, LsmArgs* a) {
  flags.String("filter", "fastlocal",
               "the filter family of every level: a registry spec whose bpk (and probes) "
               "the policy sets, or a fixed-size one (xor, binary_fuse: a level gets it or none)",
               &a->filter);
  flags.String("size_ratio", "10", "T, the size ratio of consecutive levels: a list or a range (2..1000)",
               &a->ratios_text);
  flags.String("levels", "",
               "L, the sorted levels below level 0: a list or a range (1..20); empty = derived "
               "from --buffer_keys",
               &a->levels_text);
  flags.Double("keys", 1e8, 1, 1e13, "N, the keys in levels 1..L", &a->keys);
  flags.Double("buffer_keys", 0, 0, 1e13,
               "keys of one write buffer: derives L (give --levels or this, not "
               "both)",
               &a->buffer_keys);
  flags.Int("l0_runs", 0, 0, 100, "level-0 runs of (level-1 keys / T) keys each, on top of levels 1..L", &a->l0_runs);
  flags.String("budget", "2:16:1", "total filter bits / total keys: a list or a range (0.01..100)", &a->budgets_text);
  flags.String("policy", "uniform,monkey,no_last_level,optimal", "comma-separated policies", &a->policies_text);
  flags.Double("existing_share", 0, 0, 1, "share of lookups for stored keys the policies weigh", &a->existing_share);
  flags.Field("command", "string", "\"lsm\"");
  flags.Field("filter", "string", "the family (its spec without size parameters)");
  flags.Field("policy", "string", "uniform | monkey | no_last_level | optimal");
  flags.Field("size_ratio", "number", "T");
  flags.Field("levels", "int", "L, sorted levels below level 0");
  flags.Field("l0_runs", "int", "--l0_runs");
  flags.Field("keys", "number", "keys in all levels (level 0 included)");
  flags.Field("budget_bpk", "number", "the budget: total filter bits / total keys");
  flags.Field("existing_share", "number", "--existing_share");
  flags.Field("bits_per_key", "number", "what the allocation spends: total filter bits / total keys");
  flags.Field("expected_reads", "number",
              "data-block reads caused by false positives per lookup: sum over runs of the run's model FP (a level "
              "without a filter: 1) weighted by the runs probed (missing keys; --existing_share mixes in lookups "
              "that stop at the key's level)");
  flags.Field("level_keys", "array", "keys per level, level 0 first (level 0 absent without --l0_runs)");
  flags.Field("level_specs", "array", "each level's filter spec, or none");
  flags.Field("level_bits", "array", "each level's filter memory in bits per key");
  flags.Field("level_fp", "array", "each level's model FP rate (1 without a filter)");
}

Status ParsePolicies(const std::string& text, std::vector<allocation::AllocationPolicy>* out) {
  for (const std::string& name : Split(text, ',')) {
    allocation::AllocationPolicy p;
    Status s = allocation::ParseAllocationPolicy(name, &p);
    if (!s.ok()) return Status::InvalidArgument("--policy=" + text + ": " + s.message());
    out->push_back(p);
  }
  return Status::OK();
}

// Levels 1..L of Monkey's tree holding `keys`, after `l0_runs` level-0 runs.
std::vector<allocation::LevelInput> Tree(double T, int L, double keys, int l0_runs,
                                         const std::shared_ptr<const allocation::FamilyCurve>& family) {
  std::vector<allocation::LevelInput> levels;
  const double first = keys * (T - 1) / (std::pow(T, L) - 1);
  if (l0_runs > 0) levels.push_back({first / T * l0_runs, static_cast<double>(l0_runs), family});
  for (int i = 0; i < L; ++i) levels.push_back({first * std::pow(T, i), 1, family});
  return levels;
}

}  // namespace

Status LsmCommand(int argc, char** argv, const Emit& emit, std::string* help) {
  FlagSet flags("lsm",
                "The filter memory of a leveled LSM-tree in the model: for each --size_ratio, --levels (or the\n"
                "depth --buffer_keys gives), --budget and --policy, the filter and model FP rate of every level\n"
                "(filters/allocation/level_allocation.h: uniform, Monkey's closed form, no filter on the last\n"
                "level, and the Lagrangian optimum over the registry's FP model) and the expected data-block reads\n"
                "per lookup. No database is built. One JSON line per configuration.");
  LsmArgs a;
  DeclareLsmFlags(flags, &a);
  Status s = flags.Parse(argc, argv);
  if (!s.ok()) return s;
  if (flags.Answered(help)) return Status::OK();
  std::vector<double> ratios, levels_list, budgets;
  if (!(s = ParseNumberList("size_ratio", a.ratios_text, 2, 1000, &ratios)).ok()) return s;
  if (!(s = ParseNumberList("budget", a.budgets_text, 0.01, 100, &budgets)).ok()) return s;
  if (a.levels_text.empty() == (a.buffer_keys == 0)) {
    return Status::InvalidArgument(
        "lsm: give the tree's depth as --levels or derive it from --buffer_keys (one "
        "of the two)");
  }
  if (!a.levels_text.empty()) {
    if (!(s = ParseNumberList("levels", a.levels_text, 1, 20, &levels_list)).ok()) return s;
    for (double L : levels_list) {
      if (L != std::floor(L)) return Status::InvalidArgument("--levels=" + a.levels_text + ": levels are integers");
    }
  } else if (a.buffer_keys > a.keys) {
    return Status::InvalidArgument("--buffer_keys=" + FormatNumber(a.buffer_keys) + " exceeds --keys=" +
                                   FormatNumber(a.keys) + "; allowed: a buffer smaller than the tree");
  }
  std::vector<allocation::AllocationPolicy> policies;
  if (!(s = ParsePolicies(a.policies_text, &policies)).ok()) return s;
  std::shared_ptr<const allocation::FamilyCurve> family;
  if (!(s = allocation::FamilyCurve::Make(a.filter, &family)).ok())
    return Status::InvalidArgument("--filter: " + s.message());
  for (auto p : policies) {
    if (p == allocation::AllocationPolicy::kMonkey && !family->sized_by_bpk()) {
      return Status::InvalidArgument("--policy=monkey: the family " + family->family() +
                                     " has one fixed size; monkey needs a bpk family (use optimal or uniform)");
    }
  }
  if (flags.check_only()) return Status::OK();
  for (const double T : ratios) {
    std::vector<double> depths = levels_list;
    if (depths.empty()) depths.push_back(std::ceil(std::log(a.keys * (T - 1) / a.buffer_keys + 1) / std::log(T)));
    for (const double L : depths) {
      for (const double B : budgets) {
        for (const auto p : policies) {
          allocation::AllocationInput in;
          in.levels = Tree(T, static_cast<int>(L), a.keys, static_cast<int>(a.l0_runs), family);
          in.policy = p;
          in.budget_bits_per_key = B;
          in.existing_share = a.existing_share;
          allocation::Allocation out;
          if (!(s = allocation::Allocate(in, &out)).ok()) return s;
          JsonRecord j;
          j["command"] = "lsm";
          j["filter"] = family->family();
          j["policy"] = allocation::AllocationPolicyName(p);
          j["size_ratio"] = T;
          j["levels"] = static_cast<int>(L);
          j["l0_runs"] = a.l0_runs;
          double total = 0;
          JsonRecord keys = JsonRecord::array(), specs = JsonRecord::array(), bits = JsonRecord::array(),
                     fps = JsonRecord::array();
          for (size_t i = 0; i < in.levels.size(); ++i) {
            total += in.levels[i].keys;
            keys.push_back(in.levels[i].keys);
            specs.push_back(out.levels[i].spec.empty() ? "none" : out.levels[i].spec);
            bits.push_back(out.levels[i].bits_per_key);
            fps.push_back(out.levels[i].fp);
          }
          j["keys"] = total;
          j["budget_bpk"] = B;
          j["existing_share"] = a.existing_share;
          j["bits_per_key"] = out.bits_per_key;
          j["expected_reads"] = out.expected_reads;
          j["level_keys"] = keys;
          j["level_specs"] = specs;
          j["level_bits"] = bits;
          j["level_fp"] = fps;
          emit(j);
        }
      }
    }
  }
  return Status::OK();
}

}  // namespace filterlab::sim
