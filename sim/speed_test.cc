// The units of `filterlab-sim speed` (speed_plan.h, speed_working_set.h,
// speed_queries.h), each against an oracle written independently here: the
// plan's order, the round split, filter_bench's generator order (checked
// against std::mt19937 itself), the working set's key counts, and the query
// loops' counts, which must not depend on the loop (one at a time,
// pipelined at any depth, batched prepared or not), on timed vs dry, or on
// how a measurement is cut into rounds. No timing is asserted.
#include "sim/speed.h"

#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "common/test_scale.h"
#include "filters/filter.h"
#include "filters/filter_test_util.h"
#include "hashing/fastrange.h"
#include "sim/keygen.h"
#include "sim/mt19937.h"
#include "sim/speed_plan.h"
#include "sim/speed_queries.h"
#include "sim/speed_working_set.h"

namespace filterlab::sim {
namespace {

SpeedConfig Config(std::vector<SpeedMode> modes, std::vector<QueryMix> mixes) {
  SpeedConfig cfg;
  cfg.filter_spec = "fastlocal:bpk=10";
  cfg.modes = std::move(modes);
  cfg.mixes = std::move(mixes);
  return cfg;
}

struct Expected {
  SpeedMode mode;
  QueryMix mix;
  Pick pick;
  bool with_floor;
  int batch;
  bool prepared;
  int depth;  // 0: not pipelined
};

void ExpectPlan(const std::vector<Measurement>& got, const std::vector<Expected>& want) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < want.size(); ++i) {
    SCOPED_TRACE("measurement " + std::to_string(i));
    EXPECT_EQ(got[i].mode, want[i].mode);
    EXPECT_EQ(got[i].mix, want[i].mix);
    EXPECT_EQ(got[i].pick, want[i].pick);
    EXPECT_EQ(got[i].with_floor, want[i].with_floor);
    EXPECT_EQ(got[i].batch, want[i].batch);
    if (want[i].batch > 1) {
      EXPECT_EQ(got[i].prepared, want[i].prepared);
    }
    EXPECT_EQ(got[i].pipelined, want[i].depth != 0);
    if (want[i].depth != 0) {
      EXPECT_EQ(got[i].pipeline_depth, want[i].depth);
    }
  }
}

// The documented order: build; per mix single, random, pipelined per depth;
// batched per size (prepared then unprepared, one filter then random);
// skewed (50% to 1%, 80% to 20%); huge (one at a time, then per size). The
// floor is measured beside every measurement whose queries leave the cache:
// random and skewed picks and the huge filter, not a hot filter 0.
TEST(SpeedPlan, EveryModeInTheDocumentedOrder) {
  SpeedConfig cfg = Config({SpeedMode::kHuge, SpeedMode::kSkewed, SpeedMode::kBatched, SpeedMode::kRandomPipelined,
                            SpeedMode::kRandom, SpeedMode::kSingle, SpeedMode::kBuild},
                           {QueryMix::kInside, QueryMix::kMixed});
  cfg.pipeline_depths = {8, 16};
  cfg.batch_sizes = {8, 32};
  const SpeedPlan plan = PlanSpeedRun(cfg);
  EXPECT_TRUE(plan.build_record);
  EXPECT_TRUE(plan.needs_working_set());
  using M = SpeedMode;
  using X = QueryMix;
  std::vector<Expected> want;
  for (X mix : {X::kInside, X::kMixed}) {
    want.push_back({M::kSingle, mix, Pick::kSingle, false, 1, true, 0});
    want.push_back({M::kRandom, mix, Pick::kRandom, true, 1, true, 0});
    want.push_back({M::kRandomPipelined, mix, Pick::kRandom, true, 1, true, 8});
    want.push_back({M::kRandomPipelined, mix, Pick::kRandom, true, 1, true, 16});
  }
  for (int b : {8, 32}) {
    for (bool prepared : {true, false}) {
      want.push_back({M::kBatched, X::kMixed, Pick::kSingle, false, b, prepared, 0});
      want.push_back({M::kBatched, X::kMixed, Pick::kRandom, true, b, prepared, 0});
    }
  }
  want.push_back({M::kSkewed, X::kMixed, Pick::kSkewed, true, 1, true, 0});
  want.push_back({M::kSkewed, X::kMixed, Pick::kSkewed, true, 1, true, 0});
  ExpectPlan(plan.working_set, want);
  // The skewed pair: 50% of queries to 1% of the filters, then 80% to 20%.
  const Measurement& half = plan.working_set[want.size() - 2];
  const Measurement& most = plan.working_set[want.size() - 1];
  EXPECT_NEAR(half.primary_threshold / 4294967296.0, 0.5, 1e-9);
  EXPECT_DOUBLE_EQ(half.skew_filters, 0.01);
  EXPECT_NEAR(most.primary_threshold / 4294967296.0, 0.8, 1e-9);
  EXPECT_DOUBLE_EQ(most.skew_filters, 0.2);
  ExpectPlan(plan.huge, {{M::kHuge, X::kMixed, Pick::kSingle, true, 1, true, 0},
                         {M::kHuge, X::kMixed, Pick::kSingle, true, 8, true, 0},
                         {M::kHuge, X::kMixed, Pick::kSingle, true, 32, true, 0}});
}

TEST(SpeedPlan, OnlyWhatIsAsked) {
  const SpeedPlan huge_only = PlanSpeedRun(Config({SpeedMode::kHuge}, {QueryMix::kMixed}));
  EXPECT_FALSE(huge_only.needs_working_set());
  EXPECT_TRUE(huge_only.working_set.empty());
  EXPECT_EQ(huge_only.huge.size(), 1 + SpeedConfig{}.batch_sizes.size());

  const SpeedPlan build_only = PlanSpeedRun(Config({SpeedMode::kBuild}, {QueryMix::kMixed}));
  EXPECT_TRUE(build_only.needs_working_set());
  EXPECT_TRUE(build_only.working_set.empty());
  EXPECT_TRUE(build_only.huge.empty());

  // Mixes apply to single, random and random_pipelined only.
  const SpeedPlan batched = PlanSpeedRun(Config({SpeedMode::kBatched}, {QueryMix::kInside, QueryMix::kOutside}));
  for (const Measurement& m : batched.working_set) EXPECT_EQ(m.mix, QueryMix::kMixed);
  EXPECT_EQ(batched.working_set.size(), 4 * SpeedConfig{}.batch_sizes.size());

  EXPECT_FALSE(PlanSpeedRun(Config({}, {QueryMix::kMixed})).needs_working_set());
}

TEST(SpeedPlan, RoundsAreWholeBatchesCoveringTheQueries) {
  EXPECT_EQ(SplitIntoRounds(10, 5, 1).per_round, 2u);
  EXPECT_EQ(SplitIntoRounds(10, 5, 1).total, 10u);
  EXPECT_EQ(SplitIntoRounds(10, 3, 1).per_round, 4u);
  EXPECT_EQ(SplitIntoRounds(10, 3, 1).total, 12u);
  EXPECT_EQ(SplitIntoRounds(100, 5, 16).per_round, 32u);  // ceil(100 / 80) batches of 16
  EXPECT_EQ(SplitIntoRounds(1, 5, 8).per_round, 8u);      // at least one batch a round
  for (uint64_t queries : {1u, 7u, 1000u, 1001u, 123457u}) {
    for (uint64_t rounds : {1u, 3u, 5u, 7u}) {
      for (uint64_t batch : {1u, 8u, 64u}) {
        const RoundSplit s = SplitIntoRounds(queries, rounds, batch);
        EXPECT_EQ(s.per_round % batch, 0u);
        EXPECT_EQ(s.total, s.per_round * rounds);
        EXPECT_GE(s.total, queries);
        EXPECT_LT(s.total - queries, rounds * batch) << queries << " " << rounds << " " << batch;
      }
    }
  }
}

// filter_bench's generator is std::mt19937 with a multiply-shift range.
TEST(SpeedGenerator, Random32IsStdMt19937) {
  for (uint32_t seed : {0u, 1u, 5489u, 0xdeadbeefu}) {
    Random32 r(seed);
    std::mt19937 oracle(seed);
    for (int i = 0; i < 2000; ++i) ASSERT_EQ(r.Next(), oracle()) << "seed " << seed << " output " << i;
    for (uint32_t n : {1u, 3u, 1000u, 0xffffffffu}) {
      const uint32_t x = static_cast<uint32_t>(oracle());
      EXPECT_EQ(r.Uniformish(n), static_cast<uint32_t>((uint64_t{x} * n) >> 32));
    }
  }
}

using testing_util::MustPolicy;

SpeedConfig SmallSet(const std::string& spec) {
  SpeedConfig cfg = Config({SpeedMode::kRandom}, {QueryMix::kMixed});
  cfg.filter_spec = spec;
  cfg.working_set_bytes = 96 << 10;
  cfg.average_keys = 1000;
  cfg.seed = 7;
  return cfg;
}

// Filter ids and key counts follow filter_bench's draws (id, then
// average + FastRange(draw, spread) - spread / 2), filters are added until
// their serialized bytes reach the working-set size, and every reopened
// filter holds its keys.
TEST(SpeedWorkingSet, FilterBenchFiltersUpToTheWorkingSetSize) {
  const SpeedConfig cfg = SmallSet("fastlocal:bpk=10");
  const auto policy = MustPolicy(cfg.filter_spec);
  FilterSet set;
  ASSERT_TRUE(BuildWorkingSet(*policy, cfg, /*want_huge=*/false, &set).ok());
  ASSERT_GT(set.filters.size(), 5u);
  ASSERT_EQ(set.num_refs, set.filters.size());
  std::mt19937 oracle(cfg.seed);
  const uint32_t spread = 1 + 2 * static_cast<uint32_t>(cfg.vary_ratio * cfg.average_keys);
  uint64_t total_keys = 0, bytes = 0, bytes_before_last = 0;
  for (size_t i = 0; i < set.filters.size(); ++i) {
    const uint32_t id = static_cast<uint32_t>(oracle());
    const uint32_t n =
        static_cast<uint32_t>(cfg.average_keys) + FastRange32(static_cast<uint32_t>(oracle()), spread) - spread / 2;
    EXPECT_EQ(set.ids[i], id);
    EXPECT_EQ(set.keys[i], n);
    EXPECT_EQ(set.query_refs[i].id, id);
    EXPECT_EQ(set.query_refs[i].keys, n);
    EXPECT_GE(n, 600u);
    EXPECT_LE(n, 1400u);
    total_keys += n;
    bytes_before_last = bytes;
    bytes += set.filters[i]->Serialize().size();
    KeyMaker km(cfg.key_size, /*vary_alignment=*/true);
    for (uint32_t v = 0; v < n; v += 37) {
      ASSERT_TRUE(set.query_refs[i].view.MayContain(policy->HashKey(km.Added(id, v))))
          << "filter " << i << " key " << v;
    }
  }
  EXPECT_EQ(set.total_keys, total_keys);
  EXPECT_GE(bytes, cfg.working_set_bytes);
  EXPECT_LT(bytes_before_last, cfg.working_set_bytes);  // no filter more than needed
  EXPECT_FALSE(set.layout.empty());
  EXPECT_GT(set.build_seconds, 0);
  EXPECT_LE(set.build_call_seconds, set.build_seconds);
}

// The working set for the query tests: 24 filters of ~1000 keys.
struct Fixture {
  std::unique_ptr<FilterPolicy> policy;
  FilterSet set;
  explicit Fixture(const std::string& spec) : policy(MustPolicy(spec)) {
    const Status s = BuildWorkingSet(*policy, SmallSet(spec), false, &set);
    EXPECT_TRUE(s.ok()) << s.ToString();
  }
};

Measurement Plan(Pick pick, QueryMix mix) {
  Measurement m{pick == Pick::kSingle ? SpeedMode::kSingle : SpeedMode::kRandom, mix, pick, false};
  return m;
}

// filter_bench's order of generator calls: per query the filter (skewed:
// a draw for primary or not, then the filter), "inside?", then the value
// (Uniformish over the filter's keys); a batch draws its filter once.
TEST(SpeedQuerySource, AsksFilterBenchQueriesInItsOrder) {
  Fixture f("fastlocal:bpk=10");
  const FilterSet& set = f.set;
  const uint32_t num_filters = static_cast<uint32_t>(set.num_refs);
  for (Pick pick : {Pick::kSingle, Pick::kRandom, Pick::kSkewed}) {
    for (int batch : {1, 8}) {
      SCOPED_TRACE("pick " + std::to_string(static_cast<int>(pick)) + " batch " + std::to_string(batch));
      Measurement m = Plan(pick, QueryMix::kMixed);
      m.batch = batch;
      m.primary_threshold = 0xccccccccu;
      m.num_primary = 5;
      QuerySource source(set, *f.policy, m, 11, 24, false);
      std::mt19937 oracle(11);
      auto pick_filter = [&]() -> uint32_t {
        if (pick == Pick::kSingle) return 0;
        const uint64_t x = oracle();
        if (pick == Pick::kRandom) return static_cast<uint32_t>((x * num_filters) >> 32);
        if (x <= m.primary_threshold)
          return static_cast<uint32_t>((uint64_t{static_cast<uint32_t>(oracle())} * 5) >> 32);
        return 5 + static_cast<uint32_t>((uint64_t{static_cast<uint32_t>(oracle())} * (num_filters - 5)) >> 32);
      };
      std::vector<PreparedQuery> got(64);
      for (int round = 0; round < 20; ++round) {
        if (batch == 1) {
          for (auto& q : got) q = source.Prepare();
        } else {
          for (size_t b = 0; b < got.size(); b += 8) source.PrepareBatch(8, &got[b]);
        }
        uint32_t fi = 0;
        for (size_t i = 0; i < got.size(); ++i) {
          if (i % batch == 0) fi = pick_filter();
          const bool inside = static_cast<uint32_t>(oracle()) <= 0x7fffffffu;
          const uint32_t val = static_cast<uint32_t>((uint64_t{static_cast<uint32_t>(oracle())} * set.keys[fi]) >> 32);
          KeyMaker km(24, /*vary_alignment=*/true);
          const Slice want = km.AddedOrOutside(set.ids[fi], val, inside);
          ASSERT_EQ(got[i].filter, &set.query_refs[fi]) << "query " << i;
          ASSERT_EQ(got[i].inside, inside) << "query " << i;
          ASSERT_EQ(got[i].key.ToString(), want.ToString()) << "query " << i;
        }
      }
    }
  }
}

// Everything the loops count for `queries` queries of a fresh source.
Tally Ask(const Fixture& f, const Measurement& m, uint64_t queries, bool dry, int parts = 1) {
  QuerySource source(f.set, *f.policy, m, 3, 24, false);
  Tally t;
  for (int p = 0; p < parts; ++p) {
    t += dry ? RunQueries<true>(source, m, queries / parts) : RunQueries<false>(source, m, queries / parts);
  }
  return t;
}

void ExpectSameCounts(const Tally& a, const Tally& b, bool same_answers) {
  EXPECT_EQ(a.inside, b.inside);
  EXPECT_EQ(a.outside, b.outside);
  EXPECT_EQ(a.sink, b.sink);  // the sum of the hashes asked: the same keys
  if (same_answers) {
    EXPECT_EQ(a.false_positives, b.false_positives);
    EXPECT_EQ(a.inside_negatives, b.inside_negatives);
  }
}

// The depth `auto` picks: the power of two nearest 16 / lines (log scale),
// within 2..16, and 16 when the lines are unknown.
TEST(SpeedPlan, PipelineDepthForLines) {
  EXPECT_EQ(PipelineDepthForLines(1.0), 16);
  EXPECT_EQ(PipelineDepthForLines(0.5), 16);   // at most 16
  EXPECT_EQ(PipelineDepthForLines(0.0), 16);   // unknown
  EXPECT_EQ(PipelineDepthForLines(1.5), 8);    // 10.7 -> 2^3.4
  EXPECT_EQ(PipelineDepthForLines(3.0), 4);    // XOR: 5.3 -> 2^2.4
  EXPECT_EQ(PipelineDepthForLines(4.09), 4);   // Ribbon at 10 bits/key
  EXPECT_EQ(PipelineDepthForLines(5.88), 2);   // legacy_block: 2.7 -> 2^1.4
  EXPECT_EQ(PipelineDepthForLines(100.0), 2);  // at least 2
}

// One source's queries give the same counts one at a time, pipelined at
// every depth, in any number of rounds, and in the dry run (whose answers
// are `hash & 1`, so only the queries compare). Covers a one-line Bloom, a
// 32-bit hash and the variants read through several lines.
TEST(SpeedLoops, EveryLoopAsksTheSameQueries) {
  const uint64_t queries = SanitizerScaled(64 * 400, 8);
  for (const char* spec : {"fastlocal:bpk=10", "legacy:bpk=10", "ribbon:bpk=10", "binary_fuse:arity=4,fingerprint=8",
                           "xor:fingerprint=8"}) {
    SCOPED_TRACE(spec);
    Fixture f(spec);
    const Measurement one = Plan(Pick::kRandom, QueryMix::kMixed);
    const Tally base = Ask(f, one, queries, false);
    EXPECT_EQ(base.inside + base.outside, queries);
    EXPECT_EQ(base.inside_negatives, 0u);
    EXPECT_GT(base.false_positives, 0u);  // ~1% of ~12800 outside queries
    ExpectSameCounts(base, Ask(f, one, queries, true), false);
    ExpectSameCounts(base, Ask(f, one, queries, false, 5), true);
    for (int depth : {2, 4, 8, 16, 32, 64}) {
      Measurement piped = one;
      piped.pipelined = true;
      piped.pipeline_depth = depth;
      SCOPED_TRACE("depth " + std::to_string(depth));
      ExpectSameCounts(base, Ask(f, piped, queries, false), true);
      ExpectSameCounts(base, Ask(f, piped, queries, false, 5), true);
      ExpectSameCounts(base, Ask(f, piped, queries, true), false);
    }
  }
}

// Batches draw a filter per batch (other queries than one at a time): one
// MayContainBatch and MayContain one by one answer them alike.
TEST(SpeedLoops, PreparedAndUnpreparedBatchesAgree) {
  Fixture f("legacy:bpk=10");
  const uint64_t queries = SanitizerScaled(64 * 200, 8);
  for (int batch : {2, 8, 64}) {
    for (Pick pick : {Pick::kSingle, Pick::kRandom}) {
      Measurement m = Plan(pick, QueryMix::kMixed);
      m.mode = SpeedMode::kBatched;
      m.batch = batch;
      m.prepared = true;
      const Tally prepared = Ask(f, m, queries, false);
      m.prepared = false;
      ExpectSameCounts(prepared, Ask(f, m, queries, false), true);
      ExpectSameCounts(prepared, Ask(f, m, queries, true), false);
      EXPECT_EQ(prepared.inside + prepared.outside, queries);
      EXPECT_EQ(prepared.inside_negatives, 0u);
    }
  }
}

// Mixes: inside asks only added keys (none answered "no"), outside only
// others, mixed half of each: within 4 binomial sigma of 1/2 (sigma = 0.5 /
// sqrt(n), 0.35% at n = 20000).
TEST(SpeedLoops, MixesAskTheirShareOfAddedKeys) {
  Fixture f("fastlocal:bpk=10");
  const uint64_t n = 20000;
  const Tally inside = Ask(f, Plan(Pick::kRandom, QueryMix::kInside), n, false);
  EXPECT_EQ(inside.inside, n);
  EXPECT_EQ(inside.inside_negatives, 0u);
  const Tally outside = Ask(f, Plan(Pick::kRandom, QueryMix::kOutside), n, false);
  EXPECT_EQ(outside.outside, n);
  // The FP rate of ~1% among outside queries: the filters are really asked.
  EXPECT_GT(outside.false_positives, 0u);
  EXPECT_LT(outside.false_positives, n / 20);
  const Tally mixed = Ask(f, Plan(Pick::kRandom, QueryMix::kMixed), n, false);
  EXPECT_NEAR(static_cast<double>(mixed.inside) / n, 0.5, 4 * 0.5 / std::sqrt(static_cast<double>(n)));
}

}  // namespace
}  // namespace filterlab::sim
