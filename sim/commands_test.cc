// The speed, floor, probes and model commands end to end on tiny inputs:
// bad parameters give InvalidArgument naming the flag, the value and what is
// allowed, before anything big is allocated; good ones give records with the
// fields the analysis reads. No timing is asserted (speed is shown by
// `filterlab-sim speed`, not by tests).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "sim/commands.h"

namespace filterlab::sim {
namespace {

using CommandFn = Status (*)(int, char**, const Emit&, std::string*);

struct CommandRun {
  std::vector<JsonRecord> records;
  std::string help;
  Status status;
};

CommandRun RunCommand(CommandFn command, std::vector<std::string> args) {
  CommandRun run;
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  run.status = command(static_cast<int>(argv.size()), argv.data(),
                       [&run](const JsonRecord& r) { run.records.push_back(r); }, &run.help);
  return run;
}

void ExpectError(CommandFn command, std::vector<std::string> args, std::vector<std::string> must_mention) {
  std::string joined;
  for (const auto& a : args) joined += a + " ";
  const CommandRun run = RunCommand(command, args);
  EXPECT_TRUE(run.status.IsInvalidArgument()) << joined << "-> " << run.status.ToString();
  for (const auto& m : must_mention) {
    EXPECT_NE(run.status.message().find(m), std::string::npos) << joined << "-> " << run.status.message();
  }
  EXPECT_TRUE(run.records.empty()) << joined;
}

TEST(SpeedCommand, BadParametersGiveClearErrors) {
  ExpectError(SpeedCommand, {"--filter", "nosuchfilter:bpk=10"}, {"--filter", "nosuchfilter"});
  ExpectError(SpeedCommand, {}, {"--filter"});
  ExpectError(SpeedCommand, {"--filter", "fastlocal:bpk=10", "--batch-sizes", "1"}, {"--batch-sizes", "2..64"});
  ExpectError(SpeedCommand, {"--filter", "fastlocal:bpk=10", "--modes", "single,fastest"}, {"fastest", "allowed"});
  ExpectError(SpeedCommand, {"--filter", "fastlocal:bpk=10", "--average-keys", "0"}, {"--average-keys=0"});
  ExpectError(SpeedCommand, {"--filter", "fastlocal:bpk=10", "--pipeline-depth", "12"}, {"--pipeline-depth", "4, 8, 16, 32, 64"});
  ExpectError(SpeedCommand, {"--filter", "fastlocal:bpk=10", "--pipeline-depth", "128"}, {"--pipeline-depth", "4..64"});
  // 2^20 MiB = 1 TiB of filters: more than this machine has, refused up front.
  ExpectError(SpeedCommand, {"--filter", "fastlocal:bpk=10", "--working-set-mb", "1048576"},
              {"--working-set-mb", "MemAvailable"});
  ExpectError(SpeedCommand, {"--filter", "fastlocal:bpk=10", "--modes", "huge", "--huge-keys", "2000000000"},
              {"--huge-keys", "MemAvailable"});
}

TEST(FloorCommand, BadParametersGiveClearErrors) {
  ExpectError(FloorCommand, {"--min-kb", "2048", "--max-mb", "1"}, {"--min-kb=2048", "--max-mb=1"});
  ExpectError(FloorCommand, {"--max-mb", "1048576"}, {"--max-mb", "MemAvailable"});
  ExpectError(FloorCommand, {"--pages", "1g"}, {"--pages", "4k|2m|both"});
}

TEST(ProbesCommand, BadParametersGiveClearErrors) {
  ExpectError(ProbesCommand, {"--variant", "nosuchfilter", "--bpk", "10", "--no-boundaries"}, {"nosuchfilter"});
  ExpectError(ProbesCommand, {"--bpk", "0.5"}, {"--bpk"});
  ExpectError(ProbesCommand, {"--bpk", "1:3"}, {"--bpk=1:3"});
  ExpectError(ProbesCommand, {"--table", "/nonexistent/choose_num_probes.json"}, {"--table", "cannot open"});
  ExpectError(ProbesCommand, {"--keys", "0"}, {"--keys=0"});
}

// A variant that accepts fewer probes than table count + spread (two probes
// per word: at most 16) gets the counts it accepts as candidates, not an error.
TEST(ProbesCommand, CandidatesStayWithinWhatTheVariantAccepts) {
  const CommandRun run = RunCommand(ProbesCommand, {"--variant", "cache_mul64_block", "--bpk", "30", "--keys", "1000",
                                                    "--filters", "2", "--queries", "20000", "--no-boundaries"});
  ASSERT_TRUE(run.status.ok()) << run.status.ToString();
  ASSERT_EQ(run.records.size(), 1u);
  std::vector<int> probes;
  for (const auto& c : run.records[0]["candidates"]) probes.push_back(c["probes"].get<int>());
  EXPECT_EQ(probes, (std::vector<int>{13, 14, 15, 16}));
}

// A speed run small enough for a test (8 MiB of 2000-key filters, 20000
// queries per measurement): the records the analysis reads, with their
// fields; random-filter records carry the memory floor and the ratio to it.
TEST(SpeedCommand, QuickRecordsCarryEveryField) {
  const CommandRun run = RunCommand(SpeedCommand, {"--filter", "fastlocal:bpk=10", "--working-set-mb", "8", "--average-keys",
                                            "2000", "--queries", "20000", "--modes", "build,single,random,random_pipelined,batched",
                                            "--mixes", "mixed", "--batch-sizes", "16", "--pipeline-depth", "4,32"});
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
    if (random_filter) {
      EXPECT_GT(r["floor_ns_per_line"].get<double>(), 0.0);
      EXPECT_NEAR(r["x_floor"].get<double>(), r["net_ns_per_op"].get<double>() / r["floor_ns_per_line"].get<double>(),
                  1e-9);
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
  EXPECT_EQ(pipelined, 2);  // one per --pipeline-depth
  // The pipeline reorders memory traffic, not queries: same queries, same answers.
  EXPECT_EQ(random_record["outside_queries"], pipelined_record["outside_queries"]);
  EXPECT_EQ(random_record["fp"], pipelined_record["fp"]);
  EXPECT_EQ(pipelined_record["pipeline_depth"].get<int>(), 32);
  EXPECT_EQ(random_record["pipeline_depth"], 0);
  EXPECT_EQ(batched, 4);  // prepared/unprepared x single/random filter
}

}  // namespace
}  // namespace filterlab::sim
