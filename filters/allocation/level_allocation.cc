#include "filters/allocation/level_allocation.h"

#include <algorithm>
#include <cmath>
#include <optional>

#include "filters/filter_spec.h"
#include "filters/registry.h"

namespace filterlab::allocation {
namespace {

constexpr double kLn2Squared = 0.4804530139182014;  // ln^2 2

// One entry of a level's menu: a filter spec ("" = none), its memory per key and model FP.
struct Choice {
  std::string spec;
  double bits = 0;
  double fp = 1;
};

size_t KeyCount(double keys) { return static_cast<size_t>(std::llround(keys)); }

// The model FP of `spec` at `keys` (1 for no filter); nullopt where the
// model has no value there (ModelFpRateAt) or the spec is not registered.
std::optional<double> ModelFp(const std::string& spec, double keys) {
  if (spec.empty()) return 1.0;
  std::unique_ptr<FilterPolicy> policy;
  double fp = 1;
  if (!NewFilterPolicy(spec, &policy).ok() || !ModelFpRateAt(*policy, KeyCount(keys), &fp).ok()) return std::nullopt;
  return fp;
}

// The level's allocation for a filter spending `bits` of its family's
// memory ("none" below its smallest), with its model FP at the level's keys
// (0 without keys). A filter whose model has no value at those keys (header)
// gives way to the largest menu point below it that has one, or none.
LevelAllocation FromBits(const LevelInput& level, double bits) {
  LevelAllocation a;
  a.fp = level.keys > 0 ? 1.0 : 0.0;
  if (level.family == nullptr || (level.family->sized_by_bpk() && bits < level.family->min_bits_per_key())) {
    return a;
  }
  a.spec = level.family->SpecForBits(bits);
  a.bits_per_key = level.family->BitsForBits(bits);
  if (level.keys <= 0) return a;
  if (const std::optional<double> fp = ModelFp(a.spec, level.keys)) {
    a.fp = *fp;
    return a;
  }
  const auto& points = level.family->points();
  for (size_t k = points.size(); k-- > 0;) {
    double fp = 1;
    if (points[k].bits_per_key < a.bits_per_key && ModelFpRateAt(*points[k].policy, KeyCount(level.keys), &fp).ok()) {
      a.spec = points[k].policy->spec();
      a.bits_per_key = points[k].bits_per_key;
      a.fp = fp;
      return a;
    }
  }
  return LevelAllocation{"", 0, 1, 0};
}

// A level's menu: none, then every point of its family with its FP at the
// level's keys (all; a point whose model has no value there is left out),
// and the lower convex hull of those in (bits, fp).
struct Menu {
  std::vector<Choice> all;
  std::vector<Choice> hull;
};

Menu MakeMenu(const LevelInput& level) {
  Menu m;
  m.all.push_back(Choice{});
  if (level.family != nullptr) {
    for (const auto& p : level.family->points()) {
      double fp = 1;
      if (ModelFpRateAt(*p.policy, KeyCount(level.keys), &fp).ok()) {
        m.all.push_back({p.policy->spec(), p.bits_per_key, fp});
      }
    }
  }
  for (const Choice& c : m.all) {
    if (!m.hull.empty() && c.fp >= m.hull.back().fp) continue;  // more bits, no better
    while (m.hull.size() >= 2) {
      const Choice& a = m.hull[m.hull.size() - 2];
      const Choice& b = m.hull.back();
      // b lies on or above the segment a-c: drop it.
      if ((b.fp - a.fp) * (c.bits - a.bits) >= (c.fp - a.fp) * (b.bits - a.bits)) {
        m.hull.pop_back();
      } else {
        break;
      }
    }
    m.hull.push_back(c);
  }
  return m;
}

// Monkey's closed form (header): bits per level under p = e^{-b ln^2 2}.
std::vector<double> MonkeyBits(const AllocationInput& in, const std::vector<double>& w) {
  const size_t L = in.levels.size();
  double total_keys = 0;
  for (const auto& l : in.levels) total_keys += l.keys;
  std::vector<bool> active(L);
  for (size_t i = 0; i < L; ++i) active[i] = in.levels[i].keys > 0 && w[i] > 0 && in.levels[i].family != nullptr;
  std::vector<double> bits(L, 0.0);
  const double memory = in.budget_bits_per_key * total_keys * kLn2Squared;
  while (true) {
    double sum_n = 0, sum_term = 0;
    for (size_t i = 0; i < L; ++i) {
      if (!active[i]) continue;
      sum_n += in.levels[i].keys;
      sum_term += in.levels[i].keys * std::log(w[i] / in.levels[i].keys);
    }
    if (sum_n == 0) break;
    const double ln_c = (sum_term - memory) / sum_n;
    bool dropped = false;
    for (size_t i = 0; i < L; ++i) {
      if (!active[i]) continue;
      const double ln_p = ln_c + std::log(in.levels[i].keys / w[i]);
      if (ln_p >= 0) {
        active[i] = false;
        bits[i] = 0;
        dropped = true;
      } else {
        bits[i] = -ln_p / kLn2Squared;
      }
    }
    if (!dropped) break;
  }
  return bits;
}

// One level's answer in a solve: a menu point, or a bpk interpolated between
// two hull points of a bpk family. A menu point is referred to, not copied:
// Optimal runs L x (menu size) solves and keeps one.
struct Pick {
  const Choice* choice = nullptr;  // a menu point, or
  LevelAllocation partial;         // (choice == nullptr) a filter between two hull points
  double fp() const { return choice != nullptr ? choice->fp : partial.fp; }
};

// A hull edge: taking it moves `level` from hull point to - 1 to `to`, at
// `cost_bits` of memory for a gain of `lambda` per bit.
struct Edge {
  size_t level, to;
  double lambda, cost_bits;
};

// Every level's hull edges by decreasing lambda. Ties (equal levels) keep
// level order, so equal levels fill shallow first. A solve that leaves one
// level out skips its edges: the others keep this order, which is the one
// sorting them alone would give (the sort is stable).
std::vector<Edge> SortedEdges(const AllocationInput& in, const std::vector<double>& w, const std::vector<Menu>& menus) {
  std::vector<Edge> edges;
  for (size_t i = 0; i < in.levels.size(); ++i) {
    if (in.levels[i].keys <= 0) continue;
    const auto& hull = menus[i].hull;
    for (size_t k = 1; k < hull.size(); ++k) {
      const double db = hull[k].bits - hull[k - 1].bits;
      const double dp = hull[k - 1].fp - hull[k].fp;
      edges.push_back({i, k, w[i] * dp / (in.levels[i].keys * db), in.levels[i].keys * db});
    }
  }
  std::stable_sort(edges.begin(), edges.end(), [](const Edge& a, const Edge& b) { return a.lambda > b.lambda; });
  return edges;
}

// The Lagrangian solve (header) of the levels other than `fixed` (whose
// pick is given) with `budget` bits: hull edges by decreasing lambda; an
// edge that does not fit is taken in part on a bpk family (its bpk
// interpolated), skipped otherwise. Returns the model cost sum w_i p_i.
double SolveRest(const AllocationInput& in, const std::vector<double>& w, const std::vector<Menu>& menus,
                 const std::vector<Edge>& edges, size_t fixed, const Choice* fixed_choice, double budget,
                 std::vector<Pick>* picks) {
  const size_t L = in.levels.size();
  std::vector<size_t> at(L, 0);  // hull index each level has reached
  std::vector<bool> blocked(L, false);
  picks->assign(L, Pick{});
  double left = budget;
  if (fixed < L) {
    (*picks)[fixed].choice = fixed_choice;
    left -= fixed_choice->bits * in.levels[fixed].keys;
    if (left < 0) return INFINITY;
  }
  size_t partial_level = L;
  double partial_bits = 0;
  for (const Edge& e : edges) {
    if (e.level == fixed || blocked[e.level] || at[e.level] + 1 != e.to || e.lambda <= 0) continue;
    if (e.cost_bits <= left) {
      at[e.level] = e.to;
      left -= e.cost_bits;
      continue;
    }
    blocked[e.level] = true;  // this level stops here
    const auto& hull = menus[e.level].hull;
    if (in.levels[e.level].family->sized_by_bpk() && hull[e.to - 1].bits > 0 && left > 0) {
      partial_level = e.level;
      partial_bits = hull[e.to - 1].bits + left / in.levels[e.level].keys;
      break;  // the budget is spent at the KKT point
    }
  }
  double cost = 0;
  for (size_t i = 0; i < L; ++i) {
    if (in.levels[i].keys <= 0) continue;
    Pick& p = (*picks)[i];
    if (i == partial_level) {
      // The real filter at the interpolated bpk: where the curve is not
      // convex between the two hull points it lies above their chord.
      p.partial = FromBits(in.levels[i], partial_bits);
    } else if (i != fixed) {
      p.choice = &menus[i].hull[at[i]];
    }
    cost += w[i] * p.fp();
  }
  return cost;
}

// optimal (header): the Lagrangian solve, then each level in turn fixed at
// each point of its full menu (hull or not) with the others solved again,
// keeping the best. The second step closes the gap the hull leaves where a
// family's curve is not convex, above all at its foot: no filter (0 bits, FP
// 1) to its first filters is concave for a one-probe Bloom filter, so the
// hull jumps from none straight to ~1 bit/key, and a large last level that
// cannot afford that jump would otherwise get nothing when 0.75 bits/key
// fit. L x (menu size) re-solves of O(L x menu) edges each: well under 1 ms
// per level-menu point.
std::vector<LevelAllocation> Optimal(const AllocationInput& in, const std::vector<double>& w, double budget) {
  const size_t L = in.levels.size();
  std::vector<Menu> menus(L);
  for (size_t i = 0; i < L; ++i) {
    if (in.levels[i].keys > 0) menus[i] = MakeMenu(in.levels[i]);
  }
  const std::vector<Edge> edges = SortedEdges(in, w, menus);
  std::vector<Pick> best, picks;
  double best_cost = SolveRest(in, w, menus, edges, L, nullptr, budget, &best);
  for (size_t i = 0; i < L; ++i) {
    if (in.levels[i].keys <= 0) continue;
    for (const Choice& c : menus[i].all) {
      const double cost = SolveRest(in, w, menus, edges, i, &c, budget, &picks);
      if (cost < best_cost) {
        best_cost = cost;
        best.swap(picks);
      }
    }
  }
  std::vector<LevelAllocation> out(L);
  for (size_t i = 0; i < L; ++i) {
    if (in.levels[i].keys <= 0) continue;
    const Pick& p = best[i];
    if (p.choice != nullptr) {
      out[i].spec = p.choice->spec;
      out[i].bits_per_key = p.choice->bits;
      out[i].fp = p.choice->fp;
    } else {
      out[i].spec = p.partial.spec;
      out[i].bits_per_key = p.partial.bits_per_key;
      out[i].fp = p.partial.fp;
    }
  }
  return out;
}

Status Check(const AllocationInput& in) {
  if (!(in.budget_bits_per_key > 0 && in.budget_bits_per_key <= 100)) {
    return Status::InvalidArgument("filter allocation: budget " + FormatNumber(in.budget_bits_per_key) +
                                   " bits/key is not allowed; use a number in (0, 100]");
  }
  if (!(in.existing_share >= 0 && in.existing_share <= 1)) {
    return Status::InvalidArgument("filter allocation: existing-key share " + FormatNumber(in.existing_share) +
                                   " is not allowed; use a number in [0, 1]");
  }
  for (size_t i = 0; i < in.levels.size(); ++i) {
    const LevelInput& l = in.levels[i];
    if (!(l.keys >= 0 && std::isfinite(l.keys)) || !(l.runs >= 0 && std::isfinite(l.runs))) {
      return Status::InvalidArgument("filter allocation: level " + std::to_string(i) + " has keys " +
                                     FormatNumber(l.keys) + " and runs " + FormatNumber(l.runs) +
                                     "; both must be finite and >= 0");
    }
    if (in.policy == AllocationPolicy::kMonkey && l.family != nullptr && !l.family->sized_by_bpk()) {
      return Status::InvalidArgument("filter allocation: monkey sizes each level's filter in bits/key, but level " +
                                     std::to_string(i) + "'s family " + l.family->family() +
                                     " has one fixed size; use optimal (filter or none per level) or uniform");
    }
  }
  return Status::OK();
}

}  // namespace

const std::vector<std::string>& AllocationPolicyNames() {
  static const std::vector<std::string> names = {"uniform", "monkey", "no_last_level", "optimal"};
  return names;
}

Status ParseAllocationPolicy(std::string_view name, AllocationPolicy* out) {
  static const AllocationPolicy kPolicies[] = {AllocationPolicy::kUniform, AllocationPolicy::kMonkey,
                                               AllocationPolicy::kNoLastLevel, AllocationPolicy::kOptimal};
  for (size_t i = 0; i < AllocationPolicyNames().size(); ++i) {
    if (name == AllocationPolicyNames()[i]) {
      *out = kPolicies[i];
      return Status::OK();
    }
  }
  return Status::InvalidArgument("filter allocation policy '" + std::string(name) +
                                 "' is unknown; allowed: uniform, monkey, no_last_level, optimal");
}

const char* AllocationPolicyName(AllocationPolicy policy) {
  return AllocationPolicyNames()[static_cast<size_t>(policy)].c_str();
}

std::vector<double> LookupWeights(const AllocationInput& in) {
  double total = 0;
  for (const auto& l : in.levels) total += l.keys;
  std::vector<double> w(in.levels.size());
  double deeper = total;
  for (size_t i = 0; i < in.levels.size(); ++i) {
    deeper -= in.levels[i].keys;
    const double deeper_share = total > 0 ? std::max(0.0, deeper) / total : 0;
    w[i] = in.levels[i].keys > 0 ? in.levels[i].runs * ((1 - in.existing_share) + in.existing_share * deeper_share) : 0;
  }
  return w;
}

Status Allocate(const AllocationInput& in, Allocation* out) {
  *out = Allocation();
  Status s = Check(in);
  if (!s.ok()) return s;
  const size_t L = in.levels.size();
  const std::vector<double> w = LookupWeights(in);
  double total_keys = 0;
  for (const auto& l : in.levels) total_keys += l.keys;
  const double B = in.budget_bits_per_key;

  std::vector<LevelAllocation> levels(L);
  switch (in.policy) {
    case AllocationPolicy::kUniform:
      for (size_t i = 0; i < L; ++i) levels[i] = FromBits(in.levels[i], B);
      break;
    case AllocationPolicy::kMonkey: {
      const std::vector<double> bits = MonkeyBits(in, w);
      for (size_t i = 0; i < L; ++i) levels[i] = FromBits(in.levels[i], in.levels[i].keys > 0 ? bits[i] : B);
      break;
    }
    case AllocationPolicy::kNoLastLevel: {
      size_t last = L;
      for (size_t i = 0; i < L; ++i) {
        if (in.levels[i].keys > 0) last = i;
      }
      const double upper_keys = last < L ? total_keys - in.levels[last].keys : 0;
      for (size_t i = 0; i < L; ++i) {
        if (i == last) continue;  // no filter
        const auto& f = in.levels[i].family;
        double bits = upper_keys > 0 ? B * total_keys / upper_keys : B;
        if (f != nullptr) bits = std::min(bits, f->max_bits_per_key());
        levels[i] = FromBits(in.levels[i], bits);
      }
      break;
    }
    case AllocationPolicy::kOptimal:
      levels = Optimal(in, w, B * total_keys);
      for (size_t i = 0; i < L; ++i) {
        if (in.levels[i].keys <= 0) levels[i] = FromBits(in.levels[i], B);
      }
      break;
  }
  for (size_t i = 0; i < L; ++i) {
    LevelAllocation& a = levels[i];
    a.weight = w[i];
    if (in.levels[i].keys <= 0) a.fp = 0;
    if (a.spec.empty()) a.bits_per_key = 0;
    out->total_bits += a.bits_per_key * in.levels[i].keys;
    out->expected_reads += a.expected_reads();
  }
  out->levels = std::move(levels);
  out->bits_per_key = total_keys > 0 ? out->total_bits / total_keys : 0;
  return Status::OK();
}

}  // namespace filterlab::allocation
