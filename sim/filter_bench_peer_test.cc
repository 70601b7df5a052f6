// RocksDB's filter_bench as a peer (filter_bench_peer.h and `filterlab-sim
// filter_bench`), without RocksDB: the arguments each spec maps to, the
// refusals, reading filter_bench's output and version, and the command end
// to end over a stand-in script that prints filter_bench's -quick output.
#include "sim/filter_bench_peer.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "filters/filter_test_util.h"
#include "sim/command_test_util.h"

namespace filterlab::sim {
namespace {

using testing_util::MustPolicy;

std::vector<std::string> ArgsFor(const std::string& spec, const FilterBenchConfig& cfg = {}) {
  std::vector<std::string> args;
  const Status s = FilterBenchArgs(*MustPolicy(spec), cfg, &args);
  EXPECT_TRUE(s.ok()) << spec << ": " << s.ToString();
  return args;
}

TEST(FilterBenchPeer, EachRocksDbFilterGetsItsImplementation) {
  const std::vector<std::string> common = {"-quick",
                                           "-bits_per_key=10",
                                           "-working_mem_size_mb=200",
                                           "-average_keys_per_filter=10000",
                                           "-vary_key_count_ratio=0.4",
                                           "-key_size=24",
                                           "-m_queries=70",
                                           "-net_includes_hashing=false",
                                           "-seed=0"};
  auto with = [&](std::vector<std::string> head) {
    head.insert(head.end(), common.begin(), common.end());
    return head;
  };
  EXPECT_EQ(ArgsFor("legacy:bpk=10"), with({"-impl=0"}));
  EXPECT_EQ(ArgsFor("fastlocal:bpk=10"), with({"-impl=1"}));
  EXPECT_EQ(ArgsFor("ribbon:bpk=10"), with({"-impl=2"}));
  EXPECT_EQ(ArgsFor("legacy_block:bpk=10"), with({"-use_plain_table_bloom", "-impl=0"}));
  FilterBenchConfig cfg;
  cfg.working_set_mb = 64;
  cfg.average_keys = 5000;
  cfg.vary_ratio = 0.25;
  cfg.key_size = 32;
  cfg.queries = 4000000;
  cfg.net_includes_hashing = true;
  cfg.seed = 9;
  EXPECT_EQ(ArgsFor("fastlocal:bpk=9.5", cfg),
            (std::vector<std::string>{"-impl=1", "-quick", "-bits_per_key=9.5", "-working_mem_size_mb=64",
                                      "-average_keys_per_filter=5000", "-vary_key_count_ratio=0.25", "-key_size=32",
                                      "-m_queries=28", "-net_includes_hashing=true", "-seed=9"}));
}

TEST(FilterBenchPeer, RefusesWhatRocksDbDoesNotMeasure) {
  const std::pair<const char*, const char*> refused[] = {
      {"xor:fingerprint=8", "no xor filter"},
      {"binary_fuse:arity=3,fingerprint=8", "no binary_fuse filter"},
      {"sbbf:bpk=10", "no sbbf filter"},
      {"fastlocal:bpk=10,probes=5", "RocksDB's configuration"},
      {"fastlocal:bpk=10,hash=32", "RocksDB's configuration"},
      {"ribbon:bpk=10,homogeneous=1", "RocksDB's configuration"},
      {"legacy:bpk=10,probes=3", "RocksDB's configuration"},
      {"legacy_block:bpk=20", "6 probes"},
      {"ribbon:fp=0.01", "give the filter as ribbon:bpk=B"},
  };
  for (const auto& [spec, why] : refused) {
    std::vector<std::string> args;
    const Status s = FilterBenchArgs(*MustPolicy(spec), FilterBenchConfig{}, &args);
    EXPECT_TRUE(s.IsInvalidArgument()) << spec;
    EXPECT_NE(s.message().find(why), std::string::npos) << spec << ": " << s.message();
  }
}

TEST(FilterBenchPeer, ReadsQuickOutput) {
  FilterBenchOutput out;
  ASSERT_TRUE(ParseFilterBenchOutput(kFilterBenchQuickOutput, &out).ok());
  EXPECT_DOUBLE_EQ(out.build_ns_per_key, 10.4953);
  EXPECT_EQ(out.filters, 16639u);
  EXPECT_DOUBLE_EQ(out.total_mb, 200.018);
  EXPECT_DOUBLE_EQ(out.bits_per_key, 10.0754);
  EXPECT_DOUBLE_EQ(out.single_net_ns_per_op, 9.29376);
  EXPECT_DOUBLE_EQ(out.random_net_ns_per_op, 132.047);
  EXPECT_DOUBLE_EQ(out.fp, 0.0116587);
}

TEST(FilterBenchPeer, RefusesDebugBuildsAndIncompleteOutput) {
  FilterBenchOutput out;
  Status s = ParseFilterBenchOutput(
      std::string("WARNING: Assertions are enabled; benchmarks unnecessarily slow\n") + kFilterBenchQuickOutput, &out);
  EXPECT_TRUE(s.IsInvalidArgument());
  EXPECT_NE(s.message().find("not a release build"), std::string::npos) << s.message();
  std::string text = kFilterBenchQuickOutput;
  text.erase(text.find("  Random filter"), std::string("  Random filter net ns/op: 132.047\n").size());
  s = ParseFilterBenchOutput(text, &out);
  EXPECT_TRUE(s.IsCorruption());
  EXPECT_NE(s.message().find("Random filter net ns/op"), std::string::npos) << s.message();
  s = ParseFilterBenchOutput("Build avg ns/key: fast\n", &out);
  EXPECT_TRUE(s.IsCorruption());
  EXPECT_NE(s.message().find("no number"), std::string::npos) << s.message();
}

TEST(FilterBenchPeer, VersionFromTheStringsRocksDbCompilesIn) {
  const std::string path = testing::TempDir() + "/filterlab_fake_rocksdb_binary";
  {
    std::ofstream f(path, std::ios::binary);
    f << std::string(
             "\x7f"
             "ELF\0\0",
             6)
      << "rocksdb_build_git_sha:abeebd9630" << std::string(1, '\0') << "junk" << std::string(1, '\0')
      << "rocksdb_build_git_tag:v11.8.1" << std::string(1, '\0');
  }
  EXPECT_EQ(FilterBenchVersion(path), "v11.8.1 (abeebd9630)");
  {
    std::ofstream f(path, std::ios::binary);
    f << "no version here";
  }
  EXPECT_EQ(FilterBenchVersion(path), "unknown");
  EXPECT_EQ(FilterBenchVersion(path + ".missing"), "unknown");
}

TEST(FilterBenchPeer, RunCapturesStdoutAndExitStatus) {
  std::string out;
  EXPECT_TRUE(RunCapturingStdout({"/bin/sh", "-c", "echo one; echo two"}, &out).ok());
  EXPECT_EQ(out, "one\ntwo\n");
  const Status s = RunCapturingStdout({"/bin/sh", "-c", "echo partial; exit 3"}, &out);
  EXPECT_TRUE(s.IsIOError());
  EXPECT_NE(s.message().find("status 3"), std::string::npos) << s.message();
  EXPECT_TRUE(RunCapturingStdout({"/nonexistent/filter_bench"}, &out).IsIOError());
}

TEST(FilterBenchCommandTest, RunsThePeerAndEmitsSpeedShapedRecords) {
  const std::string fake = FakeFilterBench();
  const CommandRun run = RunCommand(FilterBenchCommand, {"--filter", "legacy:bpk=10", "--filter_bench", fake,
                                                         "--working_set_mb", "64", "--queries", "2000000"});
  ASSERT_TRUE(run.status.ok()) << run.status.ToString();
  ASSERT_EQ(run.records.size(), 3u);
  EXPECT_EQ(run.records[0]["mode"], "build");
  EXPECT_DOUBLE_EQ(run.records[0]["ns_per_key"].get<double>(), 10.4953);
  EXPECT_EQ(run.records[1]["mode"], "single");
  EXPECT_DOUBLE_EQ(run.records[1]["net_ns_per_op"].get<double>(), 9.29376);
  EXPECT_EQ(run.records[2]["mode"], "random");
  EXPECT_DOUBLE_EQ(run.records[2]["net_ns_per_op"].get<double>(), 132.047);
  EXPECT_DOUBLE_EQ(run.records[2]["fp"].get<double>(), 0.0116587);
  for (const JsonRecord& r : run.records) {
    EXPECT_EQ(r["command"], "filter_bench");
    EXPECT_EQ(r["filter"], "legacy:bpk=10,probes=6,hash=32");
    EXPECT_EQ(r["peer"], fake);
    EXPECT_EQ(r["peer_version"], "unknown");
    EXPECT_EQ(r["filters"], 16639);
    EXPECT_EQ(r["working_set_bytes"], static_cast<uint64_t>(200.018 * 1048576 + 0.5));
  }
  std::ifstream args_file(fake + ".args");
  std::vector<std::string> args;
  for (std::string line; std::getline(args_file, line);) args.push_back(line);
  const std::vector<std::string> want = {"-impl=0",
                                         "-quick",
                                         "-bits_per_key=10",
                                         "-working_mem_size_mb=64",
                                         "-average_keys_per_filter=10000",
                                         "-vary_key_count_ratio=0.4",
                                         "-key_size=24",
                                         "-m_queries=14",
                                         "-net_includes_hashing=false",
                                         "-seed=0"};
  EXPECT_EQ(args, want);
}

TEST(FilterBenchCommandTest, BadInputGivesClearErrors) {
  const std::string fake = FakeFilterBench();
  ExpectError(FilterBenchCommand, {"--filter", "xor:fingerprint=8", "--filter_bench", fake}, {"no xor filter"});
  ExpectError(FilterBenchCommand, {"--filter_bench", fake}, {"--filter"});
  ExpectError(FilterBenchCommand, {"--filter", "legacy:bpk=10", "--filter_bench", "/nonexistent/filter_bench"},
              {"--filter_bench=/nonexistent/filter_bench", "not an executable"});
  ExpectError(FilterBenchCommand,
              {"--filter", "legacy:bpk=10", "--filter_bench",
               FakeFilterBench(std::string("WARNING: Assertions are enabled; benchmarks unnecessarily slow\n") +
                               kFilterBenchQuickOutput)},
              {"not a release build"});
  ::unsetenv("FILTERLAB_FILTER_BENCH");
  ExpectError(FilterBenchCommand, {"--filter", "legacy:bpk=10"}, {"--filter_bench PATH", "FILTERLAB_FILTER_BENCH"});
  ::setenv("FILTERLAB_FILTER_BENCH", fake.c_str(), 1);
  EXPECT_TRUE(RunCommand(FilterBenchCommand, {"--filter", "legacy:bpk=10"}).status.ok());
  ::unsetenv("FILTERLAB_FILTER_BENCH");
  const CommandRun failed = RunCommand(
      FilterBenchCommand, {"--filter", "legacy:bpk=10", "--filter_bench", FakeFilterBench(kFilterBenchQuickOutput, 1)});
  EXPECT_TRUE(failed.status.IsIOError()) << failed.status.ToString();
  EXPECT_TRUE(failed.records.empty());
}

}  // namespace
}  // namespace filterlab::sim
