#include "engine/bench/bench_config.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "engine/bench/engine.h"

namespace filterlab::lsmbench {
namespace {

// Parses {"lsmbench", args...}.
Status Parse(std::vector<std::string> args, BenchConfig* config, std::string* help = nullptr) {
  args.insert(args.begin(), "lsmbench");
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  std::string ignored;
  return ParseBenchConfig(static_cast<int>(argv.size()), argv.data(), config, help ? help : &ignored);
}

TEST(BenchConfigTest, DefaultsFollowDbBench) {
  BenchConfig c;
  ASSERT_TRUE(Parse({}, &c).ok());
  EXPECT_EQ(c.engine, "filterlab");
  EXPECT_EQ(c.num, 1000000);
  EXPECT_EQ(c.reads, c.num);  // --reads=-1 means --num
  EXPECT_EQ(c.key_size, 16);
  EXPECT_EQ(c.value_size, 100);
  EXPECT_EQ(c.seek_nexts, 10);
  EXPECT_EQ(c.filter, "fastlocal:bpk=10,probes=6,hash=64");  // canonical
  EXPECT_EQ(c.memtable_filter, "");
  EXPECT_EQ(c.approx_algorithm, "new");
}

TEST(BenchConfigTest, MultiGetIsBatchedUnlessSwitchedOff) {
  BenchConfig c;
  ASSERT_TRUE(Parse({}, &c).ok());
  EXPECT_TRUE(c.multiread_batched);
  ASSERT_TRUE(Parse({"--multiread_batched=false"}, &c).ok());
  EXPECT_FALSE(c.multiread_batched);
  ASSERT_TRUE(Parse({"--multiread_batched"}, &c).ok());
  EXPECT_TRUE(c.multiread_batched);
}

TEST(BenchConfigTest, TheIssueCommandParses) {
  BenchConfig c;
  ASSERT_TRUE(Parse({"--benchmarks=filluniquerandom,approximatememtablestats", "--num=1000000", "--batch_size=1000",
                     "--value_size=1"},
                    &c)
                  .ok());
  EXPECT_EQ(c.benchmarks, (std::vector<std::string>{"filluniquerandom", "approximatememtablestats"}));
  EXPECT_EQ(c.batch_size, 1000);
  EXPECT_EQ(c.value_size, 1);
}

TEST(BenchConfigTest, FilterSpecsAreCanonicalAndPerLevelKeepsNone) {
  BenchConfig c;
  ASSERT_TRUE(Parse({"--filter=none", "--filter_per_level=none;;fastlocal:bpk=5",
                     "--memtable_filter=dynamic:bpk=8"},
                    &c)
                  .ok());
  EXPECT_EQ(c.filter, "");
  ASSERT_EQ(c.filter_per_level.size(), 3u);
  EXPECT_EQ(c.filter_per_level[0], "none");
  EXPECT_EQ(c.filter_per_level[1], "");  // falls back to --filter
  EXPECT_EQ(c.filter_per_level[2].rfind("fastlocal:bpk=5", 0), 0u);
  EXPECT_EQ(c.memtable_filter.rfind("dynamic:bpk=8", 0), 0u);
}

TEST(BenchConfigTest, HelpListsFlagsAndBenchmarks) {
  BenchConfig c;
  std::string help;
  ASSERT_TRUE(Parse({"--help"}, &c, &help).ok());
  EXPECT_NE(help.find("usage: lsmbench [FLAGS]"), std::string::npos) << help;
  for (const auto& name : KnownBenchmarks()) EXPECT_NE(help.find(name), std::string::npos) << name;
  EXPECT_NE(help.find("--multiread_stride"), std::string::npos);
}

// Each bad command line and words its error must contain.
struct BadCase {
  std::vector<std::string> args;
  std::vector<std::string> expected;
};

TEST(BenchConfigTest, BadInputNamesTheProblemAndWhatIsAllowed) {
  const std::vector<BadCase> cases = {
      {{"--bogus=1"}, {"unknown flag '--bogus'", "--num"}},
      {{"--benchmarks=readrandom,fillsequential"}, {"unknown benchmark 'fillsequential'", "fillseq"}},
      {{"--benchmarks=,"}, {"--benchmarks is empty"}},
      {{"--num=abc"}, {"--num=abc", "not an integer"}},
      {{"--num=0"}, {"--num=0", "out of range"}},
      {{"--key_size=4"}, {"--key_size=4", "8..65536"}},
      {{"--threads=2"}, {"--threads=2", "1..1"}},
      {{"--engine=leveldb"}, {"--engine=leveldb", "filterlab|memtable|rocksdb"}},
      {{"--filter=nosuch:bpk=10"}, {"--filter=nosuch:bpk=10"}},
      {{"--filter_per_level=fastlocal:bpk=10;fastlocal:bpk=-1"}, {"level 1", "bpk"}},
      {{"--memtable_filter=fastlocal:bpk=10"}, {"dynamic"}},
      {{"--memtable_bloom_ratio=0.5"}, {"--memtable_bloom_ratio=0.5", "out of range"}},
      {{"--util_ratio=0"}, {"--util_ratio=0"}},
      {{"--approx_algorithm=newer"}, {"new|old"}},
      {{"--benchmarks=approximatememtablestats", "--num=100", "--batch_size=100"}, {"below --num"}},
      {{"--benchmarks=multireadrandom", "--num=100", "--batch_size=10", "--multiread_stride=11"},
       {"batch_size x multiread_stride <= num"}},
      {{"--use_existing_db"}, {"--use_existing_db needs --db"}},
      {{"--engine=memtable", "--db=/tmp/x"}, {"--engine=memtable keeps nothing on disk"}},
      {{"--engine=rocksdb", "--filter=standard:bpk=10"}, {"FastLocalBloom", "fastlocal:bpk=B"}},
      {{"--engine=rocksdb", "--filter=fastlocal:bpk=10,probes=3"}, {"fastlocal:bpk=B"}},
      {{"--engine=rocksdb", "--filter_per_level=;"}, {"--filter_per_level is not available"}},
      {{"--engine=rocksdb", "--memtable_filter=dynamic:bpk=8,probes=4"}, {"6 probes"}},
      {{"--engine=rocksdb", "--approx_algorithm=new"}, {"PR #13047", "old"}},
      {{"--statistics"}, {"--engine=rocksdb only"}},
  };
  for (const BadCase& bad : cases) {
    BenchConfig c;
    const Status s = Parse(bad.args, &c);
    std::string line;
    for (const auto& a : bad.args) line += a + " ";
    ASSERT_FALSE(s.ok()) << line;
    EXPECT_TRUE(s.IsInvalidArgument()) << line << s.ToString();
    for (const auto& want : bad.expected) EXPECT_NE(s.message().find(want), std::string::npos) << line << s.message();
  }
}

TEST(BenchConfigTest, RocksDbResolvesTheOldEstimate) {
  BenchConfig c;
  ASSERT_TRUE(Parse({"--engine=rocksdb", "--memtable_filter=dynamic:probes=6,hash=32"}, &c).ok());
  EXPECT_EQ(c.approx_algorithm, "old");
}

TEST(BenchConfigTest, MissingRocksDbIsAClearError) {
  if (HaveRocksDb()) GTEST_SKIP() << "this build has --engine=rocksdb";
  BenchConfig c;
  ASSERT_TRUE(Parse({"--engine=rocksdb"}, &c).ok());
  std::unique_ptr<Engine> engine;
  const Status s = OpenEngine(c, "/nonexistent", &engine);
  EXPECT_TRUE(s.IsNotSupported());
  EXPECT_NE(s.message().find("built without RocksDB"), std::string::npos) << s.message();
}

}  // namespace
}  // namespace filterlab::lsmbench
