// Every filterlab-sim command keeps its contract with the runner: the
// records a tiny run prints carry only the fields its --describe declares,
// each of its declared type (CheckRecordFields), and --check validates a
// command line (specs through the registry, cross-checks, memory) without
// running or printing anything.
#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

#include "common/flags.h"
#include "sim/command_test_util.h"
#include "sim/commands.h"

namespace filterlab::sim {
namespace {

JsonRecord Describe(CommandFn command) {
  const CommandRun run = RunCommand(command, {"--describe"});
  EXPECT_TRUE(run.status.ok()) << run.status.ToString();
  return JsonRecord::parse(run.help);
}

struct Case {
  const char* name;
  CommandFn command;
  std::vector<std::string> args;  // tiny sizes: well under a second each
};

std::vector<Case> TinyRuns() {
  return {
      {"fp",
       FpCommand,
       {"--filter", "fastlocal:bpk=10", "--filter", "legacy:bpk=10", "--keys", "1000", "--queries", "10000",
        "--hash_source", "keys", "--threads", "1"}},
      {"model",
       ModelCommand,
       {"--filter", "fastlocal", "--filter", "cache_dbl:hash=32", "--bpk", "8,10", "--keys", "1000"}},
      {"speed",
       SpeedCommand,
       {"--filter", "fastlocal:bpk=10", "--working_set_mb", "2", "--average_keys", "2000", "--queries", "2000",
        "--huge_keys", "2000", "--rounds", "2", "--batch_sizes", "8", "--pipeline_depth", "4"}},
      {"floor",
       FloorCommand,
       {"--min_kb", "1024", "--max_mb", "1", "--reads", "4000", "--hops", "4000", "--threads", "2"}},
      {"probes",
       ProbesCommand,
       {"--filter", "fastlocal", "--bpk", "3.5", "--keys", "500", "--filters", "2", "--queries", "4000", "--threads",
        "1"}},
      {"lsm",
       LsmCommand,
       {"--filter", "fastlocal", "--size_ratio", "4,10", "--levels", "3", "--keys", "1e6", "--l0_runs", "2", "--budget",
        "5"}},
      {"rangefp",
       RangeFpCommand,
       {"--filter", "grafite:bpk=12", "--filter", "bucketing:bpk=12", "--filter", "prefix_bloom:prefix=6,bpk=12",
        "--keys", "2000", "--queries", "2000", "--range_log2", "0,6", "--correlations", "none,0.8"}},
      {"rangefp",
       RangeFpCommand,
       {"--filter", "memento:bpk=16,range=64", "--filter", "memento:bpk=16,range=64,expand=sacrifice", "--keys", "2000",
        "--grow_from", "100", "--queries", "1000", "--range_log2", "0,6"}},
      {"rangespeed",
       RangeSpeedCommand,
       {"--filter", "grafite:bpk=12", "--filter", "rosetta:bpk=12,range=64", "--keys", "2000", "--queries", "500",
        "--range_log2", "4", "--rounds", "2", "--working_set_mb", "1", "--filter_keys", "500"}},
      {"rangeworkload",
       RangeWorkloadCommand,
       {"--keys", "1000", "--queries", "100", "--range_log2", "3", "--correlations", "none,0.8", "--nonempty", "--dir",
        ::testing::TempDir()}},
      {"filter_bench", FilterBenchCommand, {"--filter", "legacy:bpk=10", "--filter_bench", FakeFilterBench()}},
      {"dynamic",
       DynamicCommand,
       {"--filter", "dynamic:bpk=10", "--filter", "dynamic_old:bpk=10,locality=1", "--keys", "2000", "--threads", "2",
        "--rounds", "2"}},
  };
}

TEST(CommandContract, EveryRecordHasOnlyDeclaredFieldsOfTheirTypes) {
  for (const Case& c : TinyRuns()) {
    SCOPED_TRACE(c.name);
    const JsonRecord description = Describe(c.command);
    EXPECT_EQ(description.value("command", std::string()), std::string(c.name));
    ASSERT_FALSE(description["fields"].empty()) << c.name << " declares no record fields";
    const CommandRun run = RunCommand(c.command, c.args);
    ASSERT_TRUE(run.status.ok()) << run.status.ToString();
    ASSERT_FALSE(run.records.empty());
    for (const JsonRecord& r : run.records) {
      const Status s = CheckRecordFields(r, description);
      EXPECT_TRUE(s.ok()) << s.ToString() << "\n" << r.dump();
      EXPECT_EQ(r.value("command", std::string()), std::string(c.name));
    }
  }
}

// The record kinds a run prints vary with its flags; the tiny runs above
// must have shown every mode of speed and both record kinds of probes.
TEST(CommandContract, TinyRunsCoverEveryRecordKind) {
  for (const Case& c : TinyRuns()) {
    const std::string name = c.name;
    if (name != "speed" && name != "probes" && name != "rangespeed") continue;
    const CommandRun run = RunCommand(c.command, c.args);
    ASSERT_TRUE(run.status.ok()) << run.status.ToString();
    std::set<std::string> kinds;
    for (const JsonRecord& r : run.records) kinds.insert(r.value("mode", r.value("record", std::string())));
    if (name == "speed") {
      EXPECT_EQ(kinds,
                (std::set<std::string>{"build", "single", "random", "random_pipelined", "batched", "skewed", "huge"}));
    } else if (name == "rangespeed") {
      EXPECT_EQ(kinds, (std::set<std::string>{"build", "hot", "random"}));
    } else {
      EXPECT_EQ(kinds, (std::set<std::string>{"grid", "boundary"}));
    }
  }
}

TEST(CommandContract, CheckValidatesWithoutRunningOrPrinting) {
  for (const Case& c : TinyRuns()) {
    SCOPED_TRACE(c.name);
    std::vector<std::string> args = c.args;
    args.push_back("--check");
    const CommandRun run = RunCommand(c.command, args);
    EXPECT_TRUE(run.status.ok()) << run.status.ToString();
    EXPECT_TRUE(run.records.empty());
    EXPECT_TRUE(run.help.empty());
  }
}

// --check fails on what the run would fail on before measuring: a spec the
// registry rejects, a cross-check between flags, a memory need.
TEST(CommandContract, CheckRejectsWhatARunWouldReject) {
  const std::pair<CommandFn, std::vector<std::string>> bad[] = {
      {FpCommand, {"--check", "--filter", "fastlocal:bpk=10", "--filter", "nosuchfilter"}},
      {FpCommand, {"--check", "--filter", "fastlocal:bpk=10", "--keys", "1e12"}},
      {FpCommand, {"--check"}},
      {ModelCommand, {"--check", "--filter", "fastlocal:bpk=1000"}},
      {ModelCommand, {"--check", "--filter", "fastlocal", "--bpk", "1:3"}},
      {SpeedCommand, {"--check", "--filter", "standard:probes=99"}},
      {SpeedCommand, {"--check", "--filter", "fastlocal", "--modes", "single,fastest"}},
      {SpeedCommand, {"--check", "--filter", "fastlocal", "--working_set_mb", "1048576"}},
      {SpeedCommand, {"--check", "--filter", "fastlocal", "--modes", "huge", "--huge_keys", "2000000000"}},
      {FloorCommand, {"--check", "--min_kb", "4096", "--max_mb", "1"}},
      {FilterBenchCommand, {"--check", "--filter", "xor:fingerprint=8", "--filter_bench", FakeFilterBench()}},
      {FloorCommand, {"--check", "--max_mb", "1048576"}},
      {ProbesCommand, {"--check", "--filter", "fastlocal:bpk=10"}},
      {ProbesCommand, {"--check", "--filter", "nosuchfilter", "--bpk", "10"}},
      {ProbesCommand, {"--check", "--keys", "100000000", "--threads", "1024"}},
      {LsmCommand, {"--check", "--levels", "3", "--policy", "greedy"}},
      {LsmCommand, {"--check", "--filter", "xor:fingerprint=8", "--levels", "3", "--policy", "monkey"}},
      {LsmCommand, {"--check"}},  // neither --levels nor --buffer_keys
      {LsmCommand, {"--check", "--levels", "3", "--buffer_keys", "1000"}},
      {LsmCommand, {"--check", "--levels", "2.5"}},
      {RangeFpCommand, {"--check"}},
      {RangeFpCommand, {"--check", "--filter", "fastlocal:bpk=10"}},                        // a point filter
      {RangeFpCommand, {"--check", "--filter", "grafite:bpk=16", "--keys", "4000000000"}},  // memory
      {RangeFpCommand, {"--check", "--filter", "grafite:bpk=16", "--correlations", "none,1.5"}},
      {RangeFpCommand, {"--check", "--filter", "grafite:bpk=16", "--range_log2", "41"}},
      {RangeSpeedCommand, {"--check", "--filter", "grafite:bpk=16", "--correlation", "none,0.8"}},
      {RangeWorkloadCommand, {"--check"}},  // no --dir
      {RangeSpeedCommand, {"--check", "--filter", "grafite:bpk=16", "--working_set_mb", "1048576"}},
      {ModelCommand, {"--check", "--filter", "grafite:bpk=16", "--probes", "3"}},
      {DynamicCommand, {"--check", "--filter", "fastlocal:bpk=10"}},  // not dynamic
      {DynamicCommand, {"--check", "--filter", "dynamic_old:bpk=10,locality=2"}},
  };
  for (const auto& [command, args] : bad) {
    std::string joined;
    for (const auto& a : args) joined += a + " ";
    const CommandRun run = RunCommand(command, args);
    EXPECT_FALSE(run.status.ok()) << joined;
    EXPECT_TRUE(run.records.empty()) << joined;
  }
}

}  // namespace
}  // namespace filterlab::sim
