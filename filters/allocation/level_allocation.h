// Filter memory across the levels of an LSM-tree: given the keys per level,
// one memory budget (total filter bits / total keys) and each level's filter
// family (family_curve.h), the filter every level's tables get.
//
// Cost. A point lookup probes, newest first, one sorted run after another:
// every level-0 table, then one table per deeper level. At a run whose filter
// says "maybe" for a key the run does not hold, it reads a data block for
// nothing; without a filter it always does. So a lookup for a missing key
// costs, in data-block reads caused by false positives,
//   R = sum_i w_i p_i,   w_i = runs_i (level 0: its tables; others: 1, or
//                        the share of lookups reaching the level's tables),
// with p_i the model FP rate of level i's filter at its n_i keys (1 without
// a filter). A lookup for a key that exists at level j probes only the runs
// above j, so with a share q of lookups for existing keys (drawn uniformly
// from the stored keys) w_i = runs_i ((1 - q) + q sum_{j>i} n_j / N). (Inside
// level 0 the runs newer than the key's are not counted: a small
// underestimate while level 0 holds a few tables.) Memory is
// M = sum_i n_i b_i <= B N, with b_i the bits per key level i spends.
//
// Policies.
// - uniform: b_i = B everywhere (a filter for B bits/key at every level).
// - monkey (Dayan et al., SIGMOD 2017), the closed form for leveling under
//   the textbook Bloom model p = e^{-b ln^2 2}: minimising sum w_i p_i with
//   sum n_i ln(1/p_i) = B N ln^2 2 gives (Lagrange) p_i = c n_i / w_i, i.e.
//   FP proportional to the level's share of keys, with c from the budget:
//     ln c = (sum_A n_i ln(w_i / n_i) - B N ln^2 2) / sum_A n_i
//   over the set A of levels with p_i < 1 (levels whose p_i would reach 1 get
//   no filter, and c is solved again without them). b_i = ln(w_i/(c n_i)) /
//   ln^2 2 is then spent on the level's real family (SpecForBits), so its
//   real FP is that family's model at b_i, not e^{-b_i ln^2 2}; a level whose
//   b_i is below the family's smallest filter gets none. Needs a family sized
//   by bpk.
// - no_last_level (RocksDB's optimize_filters_for_hits): no filter on the
//   deepest level that holds keys, the whole budget spread evenly over the
//   levels above it: b_i = B N / (N - n_last), capped at the family's largest
//   filter. For existing-key lookups the last level's filter only ever says
//   "maybe" to a key that is there, so it buys nothing.
// - optimal: minimise sum w_i p_i(b_i) subject to sum n_i b_i <= B N with the
//   registry's model for p_i, each level choosing from its family's menu (no
//   filter = b 0, p 1). The Lagrangian sum w_i p_i + lambda sum n_i b_i
//   separates by level: for a given multiplier lambda each level takes the
//   point of its menu's lower convex hull where -w_i dp/db = lambda n_i. As
//   lambda falls every level's bits rise, so the KKT solution is a
//   one-dimensional search over lambda; done exactly by sorting the hull
//   edges of all levels by their lambda (w_i dp / (n_i db), the FP reads
//   saved per bit) and taking them in that order until the budget is spent,
//   the last one partly (its bpk interpolated, which a bpk family allows).
//   On a convex menu this is the optimum of the continuous problem; the menu
//   (family_curve.cc) is a 0.25..2-bit grid with interpolation. Where a
//   family's curve is not convex the hull skips points, above all at its
//   foot (none -> ~1 bit/key is concave for a one-probe filter), so a large
//   level that cannot afford the hull's next vertex would get nothing where
//   a smaller real filter fits: the solve is therefore repeated with each
//   level fixed at each point of its full menu, the others solved as above,
//   and the best kept (L x menu re-solves, a few ms). A fixed-size family's
//   only edge (none -> its filter) cannot be taken in part: an edge that
//   does not fit is skipped and cheaper edges after it are still taken (the
//   greedy knapsack fill, with the same one-level enumeration on top).
// The optimum is never worse than uniform in this model when uniform's
// points lie on the menus (they do for bpk families: the hull is below every
// menu point, and uniform spends the same budget); tested against uniform and
// against brute force over small grids in level_allocation_test.cc.
//
// A level with no keys costs nothing and weighs nothing: it is left out of
// the solve and given uniform's filter (what a first table there would get
// before the next allocation counts it).
//
// A filter whose FP model has no value at a level's key count
// (ModelFpRateAt in filters/registry.h: the fpmodel functions refuse where
// their domain or precision ends) is not offered to that level: optimal's
// menu for the level leaves it out, and where another policy's bits (or
// optimal's interpolated bpk) land on it, the level gets the largest menu
// point below it whose model has a value there, or no filter if none has.
// The allocation never throws for it.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"
#include "filters/allocation/family_curve.h"

namespace filterlab::allocation {

enum class AllocationPolicy { kUniform, kMonkey, kNoLastLevel, kOptimal };

// "uniform" | "monkey" | "no_last_level" | "optimal".
const std::vector<std::string>& AllocationPolicyNames();
Status ParseAllocationPolicy(std::string_view name, AllocationPolicy* out);
const char* AllocationPolicyName(AllocationPolicy policy);

struct LevelInput {
  double keys = 0;  // entries the level's filters cover
  // Sorted runs a lookup probes there: level 0 its tables, deeper levels 1
  // in Monkey's tree; the engine passes the expected number of the level's
  // tables a lookup reaches (fractional where a level covers only part of
  // the key space; engine/db/level_filters.h).
  double runs = 1;
  // The level's family; nullptr = the level gets no filter whatever the policy.
  std::shared_ptr<const FamilyCurve> family;
};

struct AllocationInput {
  std::vector<LevelInput> levels;  // shallowest (level 0) first
  AllocationPolicy policy = AllocationPolicy::kUniform;
  double budget_bits_per_key = 10;  // B: (0, 100]
  double existing_share = 0;        // q: share of lookups for stored keys, [0, 1]
};

struct LevelAllocation {
  std::string spec;         // the filter's spec; "" = no filter
  double bits_per_key = 0;  // memory per key (the family's menu, interpolated)
  double fp = 1;            // model FP rate at the level's keys (1 without a filter; 0 without keys)
  double weight = 0;        // w_i: runs probed per lookup
  double expected_reads() const { return weight * fp; }
};

struct Allocation {
  std::vector<LevelAllocation> levels;
  double total_bits = 0;      // sum n_i b_i
  double bits_per_key = 0;    // total_bits / sum n_i (0 without keys)
  double expected_reads = 0;  // R = sum w_i p_i: data-block reads from FPs per lookup
};

// InvalidArgument naming the input that is out of range (budget, share,
// keys, runs) or the policy a fixed-size family cannot follow (monkey).
Status Allocate(const AllocationInput& input, Allocation* out);

// The weights w_i of `input` (see above), for callers that evaluate other
// allocations in the same model (tests, brute force).
std::vector<double> LookupWeights(const AllocationInput& input);

}  // namespace filterlab::allocation
