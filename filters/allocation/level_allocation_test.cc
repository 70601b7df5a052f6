#include "filters/allocation/level_allocation.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>

#include "filters/filter_spec.h"
#include "filters/registry.h"

namespace filterlab::allocation {
namespace {

std::shared_ptr<const FamilyCurve> Family(const std::string& spec) {
  std::shared_ptr<const FamilyCurve> f;
  Status s = FamilyCurve::Make(spec, &f);
  EXPECT_TRUE(s.ok()) << s.ToString();
  return f;
}

// A leveled tree: level i >= 1 holds first * T^(i-1) keys; level 0 one run of first / T keys.
AllocationInput Tree(const std::string& family, double T, int levels, double first, double budget,
                     AllocationPolicy policy) {
  AllocationInput in;
  in.policy = policy;
  in.budget_bits_per_key = budget;
  const auto f = Family(family);
  for (int i = 0; i < levels; ++i) {
    LevelInput l;
    l.keys = i == 0 ? first / T : first * std::pow(T, i - 1);
    l.family = f;
    in.levels.push_back(l);
  }
  return in;
}

Allocation Solve(const AllocationInput& in) {
  Allocation a;
  Status s = Allocate(in, &a);
  EXPECT_TRUE(s.ok()) << s.ToString();
  return a;
}

// The least model cost sum w_i p_i over every combination of `menu`
// indices of each level's family points (plus none) within the budget.
double BruteForce(const AllocationInput& in, const std::vector<int>& menu) {
  const std::vector<double> w = LookupWeights(in);
  double total_keys = 0;
  for (const auto& l : in.levels) total_keys += l.keys;
  const double budget = in.budget_bits_per_key * total_keys;
  // Per level: (bits spent, weighted fp) of none and each menu point.
  std::vector<std::vector<std::pair<double, double>>> options(in.levels.size());
  for (size_t i = 0; i < in.levels.size(); ++i) {
    options[i].push_back({0.0, w[i]});
    for (int m : menu) {
      const auto& p = in.levels[i].family->points()[m];
      options[i].push_back(
          {p.bits_per_key * in.levels[i].keys, w[i] * p.policy->ModelFpRate(static_cast<size_t>(in.levels[i].keys))});
    }
  }
  double best = INFINITY;
  std::function<void(size_t, double, double)> rec = [&](size_t i, double bits, double cost) {
    if (bits > budget * (1 + 1e-12)) return;
    if (i == options.size()) {
      best = std::min(best, cost);
      return;
    }
    for (const auto& [b, c] : options[i]) rec(i + 1, bits + b, cost + c);
  };
  rec(0, 0, 0);
  return best;
}

TEST(FamilyCurve, MeasuresMemoryAndReducesSpecsToTheirFamily) {
  const auto bloom = Family("fastlocal:bpk=10,probes=6");
  EXPECT_EQ(bloom->family(), "fastlocal");
  EXPECT_TRUE(bloom->sized_by_bpk());
  // 2^15 keys at 5 bits/key are exactly 320 cache lines: no rounding.
  EXPECT_EQ(bloom->BitsForBits(5), 5);
  EXPECT_EQ(bloom->SpecForBits(5.1), "fastlocal:bpk=5.1");
  // Ribbon's bpk is its Bloom-equivalent: it spends ~70% of it (README).
  const auto ribbon = Family("ribbon:bpk=10");
  const std::string spec = ribbon->SpecForBits(7);
  FilterSpec parsed;
  double bpk = 0;
  ASSERT_TRUE(FilterSpec::Parse(spec, &parsed).ok()) << spec;
  ASSERT_TRUE(parsed.GetDouble("bpk", 0, 0, 100, &bpk).ok()) << spec;
  EXPECT_GT(bpk, 9) << spec;
  EXPECT_LT(bpk, 11) << spec;
  const auto xor8 = Family("xor:fingerprint=8");
  EXPECT_FALSE(xor8->sized_by_bpk());
  ASSERT_EQ(xor8->points().size(), 1u);
  EXPECT_NEAR(xor8->min_bits_per_key(), 8 * 1.23, 0.1);  // XOR's 1.23 slots per key
  std::shared_ptr<const FamilyCurve> bad;
  EXPECT_TRUE(FamilyCurve::Make("nosuch:bpk=3", &bad).IsInvalidArgument());
}

TEST(LevelAllocation, PolicyNamesRoundTripAndBadInputIsRefused) {
  for (const std::string& name : AllocationPolicyNames()) {
    AllocationPolicy p;
    ASSERT_TRUE(ParseAllocationPolicy(name, &p).ok());
    EXPECT_EQ(AllocationPolicyName(p), name);
  }
  AllocationPolicy p;
  Status s = ParseAllocationPolicy("greedy", &p);
  EXPECT_TRUE(s.IsInvalidArgument());
  EXPECT_NE(s.message().find("no_last_level"), std::string::npos) << s.message();
  Allocation a;
  AllocationInput in = Tree("fastlocal", 10, 3, 1000, 0, AllocationPolicy::kOptimal);
  EXPECT_TRUE(Allocate(in, &a).IsInvalidArgument());
  in.budget_bits_per_key = 5;
  in.existing_share = 1.5;
  EXPECT_TRUE(Allocate(in, &a).IsInvalidArgument());
  in.existing_share = 0;
  in.levels[1].keys = -1;
  EXPECT_TRUE(Allocate(in, &a).IsInvalidArgument());
  in = Tree("xor:fingerprint=8", 10, 3, 1000, 5, AllocationPolicy::kMonkey);
  s = Allocate(in, &a);
  EXPECT_TRUE(s.IsInvalidArgument());
  EXPECT_NE(s.message().find("fixed size"), std::string::npos) << s.message();
}

// Every policy spends the budget to within 2% on a bpk family (the issue's
// target); no_last_level spends it all above the last level.
TEST(LevelAllocation, SpendsTheBudget) {
  for (const char* family : {"fastlocal", "ribbon"}) {
    for (const double T : {4.0, 10.0}) {
      for (const double B : {2.0, 5.0, 10.0, 16.0}) {
        for (const std::string& name : AllocationPolicyNames()) {
          AllocationPolicy policy;
          ASSERT_TRUE(ParseAllocationPolicy(name, &policy).ok());
          const AllocationInput in = Tree(family, T, 6, 2e4, B, policy);
          const Allocation a = Solve(in);
          double spendable = B;
          if (policy == AllocationPolicy::kNoLastLevel) {
            // All of it above the last level, unless that exceeds the family's largest filter there.
            EXPECT_EQ(a.levels.back().spec, "") << family;
            double total = 0;
            for (const auto& l : in.levels) total += l.keys;
            const double upper = (total - in.levels.back().keys) / total;
            spendable = std::min(B, upper * in.levels[0].family->max_bits_per_key());
          }
          EXPECT_NEAR(a.bits_per_key, spendable, 0.02 * B) << family << " T=" << T << " B=" << B << " " << name;
        }
      }
    }
  }
}

// Monkey's closed form: consecutive levels T times larger differ by
// ln T / ln^2 2 bits per key (4.79 at T = 10) while every level has a filter.
TEST(LevelAllocation, MonkeyStepsBitsByLnTOverLn2Squared) {
  const Allocation a = Solve(Tree("fastlocal", 10, 5, 1e4, 10, AllocationPolicy::kMonkey));
  for (size_t i = 1; i + 1 < a.levels.size(); ++i) {
    EXPECT_NEAR(a.levels[i].bits_per_key - a.levels[i + 1].bits_per_key, std::log(10) / 0.4804530139182014, 1e-6)
        << "level " << i;
  }
  // And it pays off at 5 bits/key: the factor, in the model.
  const double uniform = Solve(Tree("fastlocal", 10, 5, 1e4, 5, AllocationPolicy::kUniform)).expected_reads;
  const double monkey = Solve(Tree("fastlocal", 10, 5, 1e4, 5, AllocationPolicy::kMonkey)).expected_reads;
  EXPECT_LT(monkey, 0.6 * uniform);
}

// The optimiser is never worse than uniform in its own model. The budgets are
// menu points, where uniform's filter is a menu point the optimiser could
// pick for every level, so the comparison is exact; against monkey, whose
// bits fall between menu points, the real curve may sit below the menu's
// chord by up to ~0.7% (e^{-0.48 b} over a 0.5-bit step) where it matters,
// and ~1e-5 absolute above 24 bits/key (2-bit steps, FP < 1e-5): tolerance
// 1% + 1e-5.
TEST(LevelAllocation, OptimalIsNeverWorseThanTheOtherPolicies) {
  for (const char* family : {"fastlocal", "standard", "ribbon"}) {
    for (const double T : {4.0, 10.0}) {
      for (const int L : {3, 5, 6}) {
        for (const double B : {2.0, 3.0, 5.0, 8.0, 12.0, 16.0}) {
          for (const double q : {0.0, 0.5}) {
            AllocationInput in = Tree(family, T, L, 1e4, B, AllocationPolicy::kOptimal);
            in.existing_share = q;
            const Allocation opt = Solve(in);
            in.policy = AllocationPolicy::kUniform;
            const Allocation uni = Solve(in);
            in.policy = AllocationPolicy::kMonkey;
            const Allocation mon = Solve(in);
            in.policy = AllocationPolicy::kNoLastLevel;
            const Allocation nll = Solve(in);
            const std::string where = std::string(family) + " T=" + std::to_string(T) + " L=" + std::to_string(L) +
                                      " B=" + std::to_string(B) + " q=" + std::to_string(q);
            EXPECT_LE(opt.expected_reads, uni.expected_reads * (1 + 1e-12)) << where;
            EXPECT_LE(opt.expected_reads, mon.expected_reads * 1.01 + 1e-5) << where;
            EXPECT_LE(opt.expected_reads, nll.expected_reads * 1.01 + 1e-5) << where;
            EXPECT_LE(opt.bits_per_key, B * 1.02) << where;
          }
        }
      }
    }
  }
}

// Against brute force over every combination of a small menu (none and
// whole bpk 1..10 per level, 11^3 choices), and over the optimiser's own
// full menu (none and ~75 points, ~4.4e5 choices): the optimiser's answer is
// at least as good as both (its one partly filled level's bpk is
// interpolated, a real filter whose FP lies on or below the chord it was
// chosen on, which the discrete menus cannot offer).
TEST(LevelAllocation, OptimalMatchesBruteForce) {
  for (const double B : {0.6, 2.0, 4.5, 7.0}) {
    for (const double q : {0.0, 1.0}) {
      AllocationInput in = Tree("fastlocal", 6, 3, 3e3, B, AllocationPolicy::kOptimal);
      in.existing_share = q;
      in.levels[0].runs = 3;
      const Allocation opt = Solve(in);
      const auto& points = in.levels[0].family->points();
      std::vector<int> whole, all;
      for (size_t m = 0; m < points.size(); ++m) {
        all.push_back(static_cast<int>(m));
        const double b = points[m].bpk_param;
        if (b == std::floor(b) && b <= 10) whole.push_back(static_cast<int>(m));
      }
      ASSERT_EQ(whole.size(), 10u);
      const std::string where = "B=" + std::to_string(B) + " q=" + std::to_string(q);
      EXPECT_LE(opt.expected_reads, BruteForce(in, whole) * (1 + 1e-12)) << where;
      EXPECT_LE(opt.expected_reads, BruteForce(in, all) * (1 + 1e-12)) << where;
      EXPECT_LE(opt.bits_per_key, B * (1 + 1e-9)) << where;
      if (q == 1.0) {
        EXPECT_EQ(opt.levels.back().spec, "") << "keys found at the last level never need its filter";
      }
    }
  }
}

// A fixed-size family: each level gets XOR or nothing; with a budget for
// some levels only, the filters go where they save the most reads per bit
// (the small, shallow levels) and the result equals the brute force over
// all 2^5 subsets.
TEST(LevelAllocation, FixedSizeFamilyIsFilterOrNone) {
  for (const double B : {0.5, 1.2, 3.0, 12.0}) {
    AllocationInput in = Tree("xor:fingerprint=8", 4, 5, 1e4, B, AllocationPolicy::kOptimal);
    const Allocation opt = Solve(in);
    EXPECT_LE(opt.bits_per_key, B * (1 + 1e-12)) << B;
    EXPECT_DOUBLE_EQ(opt.expected_reads, BruteForce(in, {0})) << B;
    in.policy = AllocationPolicy::kUniform;
    for (const auto& l : Solve(in).levels) EXPECT_EQ(l.spec, "xor:fingerprint=8,hash=64") << "uniform ignores B";
  }
}

// Families may differ per level; a level without a family stays unfiltered
// and its keys still count in the budget's denominator.
TEST(LevelAllocation, MixedFamiliesAndUnfilteredLevels) {
  AllocationInput in = Tree("fastlocal", 10, 5, 1e4, 6, AllocationPolicy::kOptimal);
  in.levels[4].family = Family("ribbon");
  in.levels[1].family = nullptr;
  const Allocation a = Solve(in);
  EXPECT_EQ(a.levels[1].spec, "");
  EXPECT_EQ(a.levels[1].fp, 1.0);
  EXPECT_EQ(a.levels[4].spec.rfind("ribbon:", 0), 0u) << a.levels[4].spec;
  EXPECT_NEAR(a.bits_per_key, 6, 0.12);
  // A level with no keys is left out and gets uniform's filter.
  in.levels[2].keys = 0;
  const Allocation b = Solve(in);
  EXPECT_EQ(b.levels[2].spec, "fastlocal:bpk=6");
  EXPECT_EQ(b.levels[2].weight, 0);
}

// A level of 1..8 keys next to large ones (a flush of a nearly empty
// memtable while level 0 is empty): its bits are nearly free, so optimal
// gives it the menu point of least FP at its keys, for one key the top
// (fastlocal:bpk=48: one 512-bit line at 22 probes; at 8 keys bpk=44's 20
// probes do better in the same line). Every menu point's model is
// evaluated at the level's keys, including fastlocal:bpk=46 and 48 over
// one key, one line at 21 and 22 probes, where the model's closed form
// cancels beyond quad precision (fp_model_test.cc); each policy gives such
// a level a filter whose model has a value there, and uniform's B = 46
// keeps its spec.
TEST(LevelAllocation, AFewKeysLevelGetsTheLeastFpWithAModelValue) {
  const auto family = Family("fastlocal");
  for (const double few : {1.0, 2.0, 3.0, 5.0, 8.0}) {
    AllocationInput in = Tree("fastlocal", 10, 4, 1e4, 5, AllocationPolicy::kOptimal);
    in.levels[0].keys = few;
    const Allocation a = Solve(in);
    ASSERT_EQ(a.levels.size(), 4u);
    double least_fp = 1;
    for (const auto& p : family->points()) {
      double fp = 1;
      ASSERT_TRUE(ModelFpRateAt(*p.policy, static_cast<size_t>(few), &fp).ok()) << p.policy->spec() << " " << few;
      least_fp = std::min(least_fp, fp);
    }
    if (few == 1) {
      EXPECT_EQ(a.levels[0].spec, family->points().back().policy->spec());
    }
    EXPECT_EQ(a.levels[0].fp, least_fp) << few << " keys: " << a.levels[0].spec;
    EXPECT_GT(a.levels[0].fp, 0) << few << " keys";
    EXPECT_LT(a.levels[0].fp, 1e-6) << few << " keys";
    EXPECT_LE(a.bits_per_key, 5 * (1 + 1e-12)) << few << " keys";
    for (const AllocationPolicy policy :
         {AllocationPolicy::kUniform, AllocationPolicy::kMonkey, AllocationPolicy::kNoLastLevel}) {
      in.policy = policy;
      const Allocation b = Solve(in);
      for (const auto& l : b.levels) {
        EXPECT_TRUE(l.fp >= 0 && l.fp <= 1) << AllocationPolicyName(policy) << " " << l.spec;
      }
    }
    in.policy = AllocationPolicy::kUniform;
    in.budget_bits_per_key = 46;
    const Allocation u = Solve(in);
    EXPECT_EQ(u.levels[0].spec, "fastlocal:bpk=46") << few << " keys";
    EXPECT_GT(u.levels[0].fp, 0) << few << " keys";
  }
  // Ribbon builds (and models) a FastLocalBloom filter at the same bpk where
  // that is smaller, as it is for one key: the same one-line case.
  for (const AllocationPolicy policy : {AllocationPolicy::kOptimal, AllocationPolicy::kUniform}) {
    AllocationInput in = Tree("ribbon", 10, 4, 1e4, policy == AllocationPolicy::kUniform ? 46 : 5, policy);
    in.levels[0].keys = 1;
    const Allocation a = Solve(in);
    for (const auto& l : a.levels) EXPECT_TRUE(l.fp >= 0 && l.fp <= 1) << AllocationPolicyName(policy) << " " << l.spec;
    EXPECT_LT(a.levels[0].fp, 1e-6) << AllocationPolicyName(policy) << " " << a.levels[0].spec;
  }
}

}  // namespace
}  // namespace filterlab::allocation
