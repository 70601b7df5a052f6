// The speed, floor, probes and model commands end to end on tiny inputs:
// bad parameters give InvalidArgument naming the flag, the value and what is
// allowed, before anything big is allocated; good ones give records with the
// fields the analysis reads. No timing is asserted (speed is shown by
// `filterlab-sim speed`, not by tests).
#include "sim/commands.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <fstream>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "common/stats.h"
#include "filters/filter.h"
#include "filters/filter_spec.h"
#include "filters/fp_model.h"
#include "filters/range/range_workload.h"
#include "filters/registry.h"
#include "sim/command_test_util.h"
#include "sim/speed_plan.h"

namespace filterlab::sim {
namespace {

TEST(SpeedCommand, BadParametersGiveClearErrors) {
  ExpectError(SpeedCommand, {"--filter", "nosuchfilter:bpk=10"}, {"--filter", "nosuchfilter"});
  ExpectError(SpeedCommand, {}, {"--filter"});
  ExpectError(SpeedCommand, {"--filter", "fastlocal:bpk=10", "--batch_sizes", "1"}, {"--batch_sizes", "2..64"});
  ExpectError(SpeedCommand, {"--filter", "fastlocal:bpk=10", "--modes", "single,fastest"}, {"fastest", "allowed"});
  ExpectError(SpeedCommand, {"--filter", "fastlocal:bpk=10", "--average_keys", "0"}, {"--average_keys=0"});
  for (const char* depth : {"12", "128", "1", "autox", "4,,8"}) {
    ExpectError(SpeedCommand, {"--filter", "fastlocal:bpk=10", "--pipeline_depth", depth},
                {"--pipeline_depth", "2, 4, 8, 16, 32, 64 or auto"});
  }
  // 2^20 MiB = 1 TiB of filters: more than this machine has, refused up front.
  ExpectError(SpeedCommand, {"--filter", "fastlocal:bpk=10", "--working_set_mb", "1048576"},
              {"--working_set_mb", "MemAvailable"});
  ExpectError(SpeedCommand, {"--filter", "fastlocal:bpk=10", "--modes", "huge", "--huge_keys", "2000000000"},
              {"--huge_keys", "MemAvailable"});
}

TEST(FloorCommand, BadParametersGiveClearErrors) {
  ExpectError(FloorCommand, {"--min_kb", "2048", "--max_mb", "1"}, {"--min_kb=2048", "--max_mb=1"});
  ExpectError(FloorCommand, {"--max_mb", "1048576"}, {"--max_mb", "MemAvailable"});
  ExpectError(FloorCommand, {"--pages", "1g"}, {"--pages", "4k|2m|both"});
}

// A floor run small enough for a test: every working set gets each measure
// once per page size, with the fields the analysis reads; the prefetch_cost
// measure also reports its work alone, and --prefetch_work 0 leaves it out.
// (Values are timings: only their being finite and non-negative where they
// must be is checked.)
TEST(FloorCommand, RecordsEveryMeasurePerWorkingSet) {
  const CommandRun run = RunCommand(FloorCommand, {"--min_kb", "256", "--max_mb", "1", "--reads", "16000", "--hops",
                                                   "4000", "--pages", "4k", "--threads", "1"});
  ASSERT_TRUE(run.status.ok()) << run.status.ToString();
  std::map<std::string, int> per_measure;
  for (const auto& r : run.records) {
    per_measure[r["measure"].get<std::string>()]++;
    EXPECT_EQ(r["page_bytes"], 4096);
    EXPECT_TRUE(std::isfinite(r["ns_per_line"].get<double>()));
    if (r["measure"] == "prefetch_cost") {
      EXPECT_EQ(r["prefetch_work"], 16);
      EXPECT_GT(r["work_ns_per_line"].get<double>(), 0.0);
    }
    if (r["measure"] == "translation") {
      // 4 KiB pages translate at 4 KiB on any machine: the probe must say so,
      // over 8192 pages (more than any x86 L2 TLB holds). How much slower
      // those loads are than dense ones is a timing, left to the benchmarks.
      EXPECT_EQ(r["translation_page_bytes"], 4096);
      EXPECT_EQ(r["pages_touched"], 8192);
      EXPECT_GT(r["dense_ns_per_line"].get<double>(), 0.0);
    }
  }
  // 256 KiB and 1 MiB; random_line_read without and with prefetch.
  EXPECT_EQ(per_measure["dependent_load"], 2);
  EXPECT_EQ(per_measure["random_line_read"], 4);
  EXPECT_EQ(per_measure["prefetch_cost"], 2);
  EXPECT_EQ(per_measure["translation"], 1);  // once per page size, not per working set
  const CommandRun without =
      RunCommand(FloorCommand, {"--min_kb", "1024", "--max_mb", "1", "--reads", "16000", "--hops", "4000", "--pages",
                                "4k", "--threads", "1", "--prefetch_work", "0"});
  ASSERT_TRUE(without.status.ok()) << without.status.ToString();
  for (const auto& r : without.records) EXPECT_NE(r["measure"], "prefetch_cost");
  EXPECT_EQ(without.records.size(), 4u);  // translation + dependent_load + random_line_read x 2
}

TEST(ProbesCommand, BadParametersGiveClearErrors) {
  ExpectError(ProbesCommand, {"--filter", "nosuchfilter", "--bpk", "10", "--no_boundaries"},
              {"--filter", "nosuchfilter"});
  ExpectError(ProbesCommand, {"--filter", "fastlocal:bpk=10", "--bpk", "10"}, {"--filter", "without bpk and probes"});
  ExpectError(ProbesCommand, {"--filter", "cache_dbl:hash=48", "--bpk", "10"}, {"--filter", "hash"});
  ExpectError(ProbesCommand, {"--bpk", "0.5"}, {"--bpk"});
  ExpectError(ProbesCommand, {"--bpk", "1:3"}, {"--bpk=1:3"});
  ExpectError(ProbesCommand, {"--table", "/nonexistent/choose_num_probes.json"}, {"--table", "cannot open"});
  ExpectError(ProbesCommand, {"--keys", "0"}, {"--keys=0"});
}

// A variant that accepts fewer probes than table count + spread (two probes
// per word: at most 16) gets the counts it accepts as candidates, not an error.
TEST(ProbesCommand, CandidatesStayWithinWhatTheVariantAccepts) {
  // At 40 bits/key its default is 15 probes: 13..17 would be the candidates, 17 is not accepted.
  const CommandRun run = RunCommand(ProbesCommand, {"--filter", "cache_mul64_block", "--bpk", "40", "--keys", "1000",
                                                    "--filters", "2", "--queries", "20000", "--no_boundaries"});
  ASSERT_TRUE(run.status.ok()) << run.status.ToString();
  ASSERT_EQ(run.records.size(), 1u);
  std::vector<int> probes;
  for (const auto& c : run.records[0]["candidates"]) probes.push_back(c["probes"].get<int>());
  EXPECT_EQ(probes, (std::vector<int>{13, 14, 15, 16}));
}

// A speed run small enough for a test (8 MiB of 2000-key filters, 20000
// queries per measurement): the records the analysis reads, with their
// fields; random-filter records carry the memory floor and the ratio to it.
// Every record is the policy's ModelFpRate at its spec with --bpk and
// --probes applied, split as model_fp = F + (1 - F) layout_fp with F = D /
// 2^bits for the D distinct hashes (fpmodel::NarrowHashFpRate, as every
// ModelFpRate).
TEST(ModelCommand, RecordsArePolicyModelsOverTheSweep) {
  const CommandRun run = RunCommand(ModelCommand, {"--filter", "fastlocal:hash=32", "--filter", "legacy", "--bpk",
                                                   "6,10", "--probes", "3:4:1", "--keys", "1e6,1e9"});
  ASSERT_TRUE(run.status.ok()) << run.status.ToString();
  EXPECT_EQ(run.records.size(), 2u * 2 * 2 * 2);
  for (const auto& r : run.records) {
    SCOPED_TRACE(r.dump());
    const double keys = r["keys"].get<double>();
    const int bits = r["hash_bits"].get<int>();
    EXPECT_EQ(bits, 32);
    std::unique_ptr<FilterPolicy> p;
    ASSERT_TRUE(NewFilterPolicy(r["filter"].get<std::string>(), &p).ok());
    EXPECT_EQ(p->spec(), r["filter"]);
    EXPECT_TRUE(r["bits_per_key"] == 6 || r["bits_per_key"] == 10);
    EXPECT_TRUE(r["probes"] == 3 || r["probes"] == 4);
    EXPECT_EQ(p->num_probes(), r["probes"].get<int>());
    EXPECT_EQ(r["model_fp"].get<double>(), p->ModelFpRate(static_cast<size_t>(keys)));
    const double d = r["distinct_hashes"].get<double>(), f = r["fingerprint_fp"].get<double>();
    EXPECT_EQ(d, fpmodel::DistinctHashes(keys, bits));
    EXPECT_EQ(f, std::ldexp(d, -bits));
    EXPECT_DOUBLE_EQ(r["model_fp"].get<double>(), f + (1 - f) * r["layout_fp"].get<double>());
    // Both are approximations (registered errors 0.3% and 0.4%: the 32-bit lattice).
    EXPECT_EQ(r["fp_model_kind"], "approximation");
    const FpModelClaim claim = FpModelClaimOf(*p);
    EXPECT_EQ(r["fp_model_max_relative_error"].get<double>(), claim.max_relative_error);
    EXPECT_GT(claim.max_relative_error, 0);
  }
  // Without --filter: every registered example, at its own bpk and probes.
  const CommandRun all = RunCommand(ModelCommand, {"--keys", "1000"});
  ASSERT_TRUE(all.status.ok()) << all.status.ToString();
  EXPECT_EQ(all.records.size(), AllExampleSpecs().size());
  ExpectError(ModelCommand, {"--filter", "nosuchfilter"}, {"--filter", "nosuchfilter"});
  ExpectError(ModelCommand, {"--filter", "fastlocal", "--probes", "2.5"}, {"--probes", "integers"});
  ExpectError(ModelCommand, {"--filter", "cache_simd_k8", "--probes", "3"}, {"--filter", "probes"});
}

TEST(SpeedCommand, QuickRecordsCarryEveryField) {
  const CommandRun run =
      RunCommand(SpeedCommand, {"--filter", "fastlocal:bpk=10", "--working_set_mb", "8", "--average_keys", "2000",
                                "--queries", "20000", "--modes", "build,single,random,random_pipelined,batched",
                                "--mixes", "mixed", "--batch_sizes", "16", "--pipeline_depth", "4,32"});
  ASSERT_TRUE(run.status.ok()) << run.status.ToString();
  int build = 0, single = 0, random = 0, pipelined = 0, batched = 0;
  JsonRecord random_record, pipelined_record;
  for (const auto& r : run.records) {
    SCOPED_TRACE(r.dump());
    for (const char* field : {"filter", "mode", "working_set_bytes", "huge_pages", "filters", "keys", "bits_per_key"}) {
      EXPECT_TRUE(r.contains(field)) << field;
    }
    const std::string mode = r["mode"];
    if (mode == "build") {
      ++build;
      EXPECT_GT(r["ns_per_key"].get<double>(), 0.0);
      continue;
    }
    for (const char* field : {"mix", "batch", "net_ns_per_op", "gross_ns_per_op", "dry_ns_per_op", "fp", "queries"}) {
      EXPECT_TRUE(r.contains(field)) << field;
    }
    EXPECT_EQ(r["mix"], "mixed");
    const bool random_filter =
        mode == "random" || mode == "random_pipelined" || (mode == "batched" && r["pick"] == "random");
    // Five rounds (the default): net is the median of the rounds' nets,
    // x_floor the median of their net / floor ratios.
    EXPECT_EQ(r["rounds"].get<int>(), 5);
    EXPECT_EQ(r["queries"].get<uint64_t>() % (5 * r["batch"].get<uint64_t>()), 0u);
    const auto nets = r["net_ns_per_op_rounds"].get<std::vector<double>>();
    ASSERT_EQ(nets.size(), 5u);
    EXPECT_EQ(r["net_ns_per_op"].get<double>(), Median(nets));
    if (random_filter) {
      EXPECT_GT(r["floor_ns_per_line"].get<double>(), 0.0);
      const uint64_t translation = r["translation_page_bytes"].get<uint64_t>();
      EXPECT_TRUE(translation == 4096 || translation == 2097152) << translation;
      if (!r["huge_pages"].get<bool>()) {
        EXPECT_EQ(translation, 4096u);
      }
      // One ratio per round whose floor came out positive: the floor is
      // gross - dry of a line stream, and over this test's 8 MiB (cache
      // resident, ~1.4 ns/line) a round on a loaded machine can measure <= 0
      // and then gives no ratio. Over memory-sized sets every round has one.
      const auto ratios = r["x_floor_rounds"].get<std::vector<double>>();
      ASSERT_GE(ratios.size(), 1u);
      ASSERT_LE(ratios.size(), 5u);
      EXPECT_EQ(r["x_floor"].get<double>(), Median(ratios));
    } else {
      EXPECT_FALSE(r.contains("x_floor"));
    }
    single += mode == "single";
    random += mode == "random";
    pipelined += mode == "random_pipelined";
    if (mode == "random") random_record = r;
    if (mode == "random_pipelined") pipelined_record = r;
    batched += mode == "batched";
  }
  EXPECT_EQ(build, 1);
  EXPECT_GE(single, 1);
  EXPECT_GE(random, 1);
  EXPECT_EQ(pipelined, 2);  // one per --pipeline_depth
  // The pipeline reorders memory traffic, not queries: same queries, same answers.
  EXPECT_EQ(random_record["outside_queries"], pipelined_record["outside_queries"]);
  EXPECT_EQ(random_record["fp"], pipelined_record["fp"]);
  EXPECT_EQ(pipelined_record["pipeline_depth"].get<int>(), 32);
  EXPECT_EQ(random_record["pipeline_depth"], 0);
  EXPECT_EQ(batched, 4);  // prepared/unprepared x single/random filter
}

// --pipeline_depth auto: each filter's pipelined record names the depth it
// got, PipelineDepthForLines of the lines its query reads: 16 for a one-line
// Bloom, fewer for Ribbon (~4 lines a query), even without the floor.
TEST(SpeedCommand, AutoPipelineDepthFollowsTheLinesAQueryReads) {
  std::map<std::string, int> depth_of;
  for (const char* spec : {"fastlocal:bpk=10", "ribbon:bpk=10"}) {
    const CommandRun run = RunCommand(
        SpeedCommand, {"--filter", spec, "--working_set_mb", "4", "--average_keys", "2000", "--queries", "4000",
                       "--modes", "random_pipelined", "--mixes", "mixed", "--pipeline_depth", "auto,8", "--no_floor"});
    ASSERT_TRUE(run.status.ok()) << run.status.ToString();
    ASSERT_EQ(run.records.size(), 2u);
    const JsonRecord& automatic = run.records[0];
    SCOPED_TRACE(automatic.dump());
    EXPECT_TRUE(automatic["pipeline_depth_auto"].get<bool>());
    const double lines = automatic["lines_per_query"].get<double>();
    EXPECT_EQ(automatic["pipeline_depth"].get<int>(), PipelineDepthForLines(lines));
    depth_of[spec] = automatic["pipeline_depth"].get<int>();
    EXPECT_FALSE(run.records[1]["pipeline_depth_auto"].get<bool>());
    EXPECT_EQ(run.records[1]["pipeline_depth"].get<int>(), 8);
  }
  EXPECT_EQ(depth_of["fastlocal:bpk=10"], 16);
  EXPECT_LT(depth_of["ribbon:bpk=10"], 16);
}

// rangeworkload --nonempty writes rangespeed's non-empty queries (same
// generator and seed), every one holding a stored key, with an answers file
// of int32 1s in the harness's format.
TEST(RangeWorkloadCommand, NonEmptyQueriesAreRangespeedsAndHoldKeys) {
  const std::string dir = ::testing::TempDir();
  const CommandRun run = RunCommand(RangeWorkloadCommand, {"--keys", "2000", "--queries", "300", "--range_log2", "4",
                                                           "--seed", "7", "--nonempty", "--dir", dir});
  ASSERT_TRUE(run.status.ok()) << run.status.ToString();
  auto read = [](const std::string& path, int width) {
    std::ifstream in(path, std::ios::binary);
    std::vector<uint64_t> v;
    uint64_t count = 0;
    in.read(reinterpret_cast<char*>(&count), width);
    for (uint64_t i = 0; i < count && in; ++i) {
      uint64_t x = 0;
      in.read(reinterpret_cast<char*>(&x), width);
      v.push_back(x);
    }
    EXPECT_TRUE(in.good()) << path << " is shorter than its count " << count;
    EXPECT_EQ(in.peek(), EOF) << path << " is longer than its count";
    return v;
  };
  const auto keys = read(dir + "/keys.bin", 8);
  const auto left = read(dir + "/left_4_nonempty.bin", 8), right = read(dir + "/right_4_nonempty.bin", 8);
  const auto answers = read(dir + "/answers_4_nonempty.bin", 4);
  ASSERT_EQ(keys.size(), 2000u);
  ASSERT_EQ(left.size(), 300u);
  ASSERT_EQ(right.size(), 300u);
  ASSERT_EQ(answers, std::vector<uint64_t>(300, 1));
  std::vector<workload::RangeQuery> want;
  ASSERT_TRUE(workload::NonEmptyRangeQueries(keys, 16, 300, 7 + 16, &want).ok());
  for (size_t i = 0; i < left.size(); ++i) {
    EXPECT_EQ(left[i], want[i].lo);
    EXPECT_EQ(right[i], want[i].hi);
    EXPECT_EQ(right[i] - left[i], 15u);
    EXPECT_TRUE(workload::HoldsKeyIn(keys, left[i], right[i])) << i;
  }
  size_t nonempty_records = 0;
  for (const auto& r : run.records) nonempty_records += r["query_kind"] == "nonempty";
  EXPECT_EQ(nonempty_records, 3u);
}

}  // namespace
}  // namespace filterlab::sim
