#include "engine/bench/bench_config.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "engine/bench/engine.h"
#include "filters/filter.h"

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
  ASSERT_NE(c.filter, nullptr);
  EXPECT_EQ(c.filter->spec(), "fastlocal:bpk=10,probes=6,hash=64");  // canonical
  EXPECT_EQ(c.memtable_filter, nullptr);
  EXPECT_EQ(c.approx_algorithm, "new");
}

// Lists of --filter_policy and --filter_budget_bpk: one pass per (budget,
// policy) pair, budget-major in list order, starting at the first
// rewritefilters; the config's own values are the first pair's.
TEST(BenchConfigTest, AllocationListsGiveOnePassPerPairBudgetMajor) {
  BenchConfig c;
  ASSERT_TRUE(Parse({"--filter_policy=uniform,monkey,optimal", "--filter_budget_bpk=5,2.5",
                     "--benchmarks=filluniquerandom,waitforcompaction,rewritefilters,readmissing,readrandom"},
                    &c)
                  .ok());
  EXPECT_EQ(c.filter_policies, (std::vector<std::string>{"uniform", "monkey", "optimal"}));
  EXPECT_EQ(c.filter_budgets_bpk, (std::vector<double>{5, 2.5}));
  EXPECT_EQ(c.filter_policy, "uniform");
  EXPECT_EQ(c.filter_budget_bpk, 5);
  const std::vector<AllocationPass> passes = AllocationPasses(c);
  std::vector<std::pair<std::string, double>> got;
  for (const AllocationPass& p : passes) got.emplace_back(p.policy, p.budget_bpk);
  const std::vector<std::pair<std::string, double>> want = {{"uniform", 5},   {"monkey", 5},   {"optimal", 5},
                                                            {"uniform", 2.5}, {"monkey", 2.5}, {"optimal", 2.5}};
  EXPECT_EQ(got, want);
  EXPECT_EQ(FirstAllocationPassBenchmark(c), 2u);
  const BenchConfig pass = ConfigForPass(c, passes[4]);
  EXPECT_EQ(pass.filter_policy, "monkey");
  EXPECT_EQ(pass.filter_budget_bpk, 2.5);
  EXPECT_EQ(pass.benchmarks, c.benchmarks);
  // One value each: one pass, the flags' values; no rewritefilters needed.
  ASSERT_TRUE(
      Parse({"--filter_policy=optimal", "--filter_budget_bpk=3", "--benchmarks=fillrandom,readmissing"}, &c).ok());
  ASSERT_EQ(AllocationPasses(c).size(), 1u);
  EXPECT_EQ(AllocationPasses(c)[0].policy, "optimal");
  EXPECT_EQ(AllocationPasses(c)[0].budget_bpk, 3);
  EXPECT_EQ(FirstAllocationPassBenchmark(c), c.benchmarks.size());
  // Without a policy: one pass, no policy.
  ASSERT_TRUE(Parse({}, &c).ok());
  ASSERT_EQ(AllocationPasses(c).size(), 1u);
  EXPECT_EQ(AllocationPasses(c)[0].policy, "");
}

TEST(BenchConfigTest, FilterPolicyFlags) {
  BenchConfig c;
  ASSERT_TRUE(Parse({"--filter=ribbon", "--filter_policy=monkey", "--filter_budget_bpk=6.5", "--level_multiplier=4",
                     "--num_levels=6"},
                    &c)
                  .ok());
  EXPECT_EQ(c.filter_policy, "monkey");
  EXPECT_EQ(c.filter_budget_bpk, 6.5);
  EXPECT_EQ(c.level_multiplier, 4);
  EXPECT_EQ(c.num_levels, 6);
  Status s = Parse({"--filter_policy=greedy"}, &c);
  EXPECT_TRUE(s.IsInvalidArgument());
  EXPECT_NE(s.message().find("no_last_level"), std::string::npos) << s.message();
  s = Parse({"--filter_budget_bpk=5"}, &c);  // no policy to apply it
  EXPECT_TRUE(s.IsInvalidArgument());
  EXPECT_NE(s.message().find("--filter_policy"), std::string::npos) << s.message();
  // Monkey sizes filters by bpk: a fixed-size family is refused with the DB options check.
  ASSERT_TRUE(Parse({"--check", "--filter=xor:fingerprint=8", "--filter_policy=monkey"}, &c).ok());
  s = CheckEngineConfig(c);
  EXPECT_TRUE(s.IsInvalidArgument());
  EXPECT_NE(s.message().find("fixed size"), std::string::npos) << s.message();
}

TEST(BenchConfigTest, MultiGetIsBatchedUnlessSwitchedOff) {
  using Batched = std::vector<bool>;
  BenchConfig c;
  ASSERT_TRUE(Parse({}, &c).ok());
  EXPECT_EQ(c.multiread_batched, Batched{true});
  EXPECT_EQ(c.multiread_strides, std::vector<int64_t>{0});
  ASSERT_TRUE(Parse({"--multiread_batched=false"}, &c).ok());
  EXPECT_EQ(c.multiread_batched, Batched{false});
  ASSERT_TRUE(Parse({"--multiread_batched=0"}, &c).ok());
  EXPECT_EQ(c.multiread_batched, Batched{false});
  // The bare flag still means true, also when another flag follows it (the
  // list flag must not take the next argument as its value).
  ASSERT_TRUE(Parse({"--multiread_batched"}, &c).ok());
  EXPECT_EQ(c.multiread_batched, Batched{true});
  ASSERT_TRUE(Parse({"--multiread_batched", "--num=5000"}, &c).ok());
  EXPECT_EQ(c.multiread_batched, Batched{true});
  EXPECT_EQ(c.num, 5000);
  // A single stride, also in the space-separated and 1e3 forms.
  ASSERT_TRUE(Parse({"--multiread_stride", "16"}, &c).ok());
  EXPECT_EQ(c.multiread_strides, std::vector<int64_t>{16});
  ASSERT_TRUE(Parse({"--multiread_stride=1e3"}, &c).ok());
  EXPECT_EQ(c.multiread_strides, std::vector<int64_t>{1000});
}

TEST(BenchConfigTest, MultiReadListsExpandStrideMajorInListOrder) {
  BenchConfig c;
  ASSERT_TRUE(Parse({"--benchmarks=multireadrandom", "--num=100000", "--batch_size=16", "--multiread_stride=256,0,16",
                     "--multiread_batched=false,true"},
                    &c)
                  .ok());
  EXPECT_EQ(c.multiread_strides, (std::vector<int64_t>{256, 0, 16}));
  EXPECT_EQ(c.multiread_batched, (std::vector<bool>{false, true}));
  const std::vector<MultiReadVariant> v = MultiReadVariants(c);
  const std::vector<std::pair<int64_t, bool>> want = {{256, false}, {256, true}, {0, false},
                                                      {0, true},    {16, false}, {16, true}};
  ASSERT_EQ(v.size(), want.size());
  for (size_t i = 0; i < v.size(); ++i) {
    EXPECT_EQ(v[i].stride, want[i].first) << i;
    EXPECT_EQ(v[i].batched, want[i].second) << i;
  }
  // Single values give one variant, the defaults (0, true).
  ASSERT_TRUE(Parse({}, &c).ok());
  ASSERT_EQ(MultiReadVariants(c).size(), 1u);
  EXPECT_EQ(MultiReadVariants(c)[0].stride, 0);
  EXPECT_TRUE(MultiReadVariants(c)[0].batched);
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

TEST(BenchConfigTest, FiltersBecomePoliciesOnceAndPerLevelKeepsNone) {
  BenchConfig c;
  ASSERT_TRUE(
      Parse({"--filter=legacy:bpk=10", "--filter_per_level=none;;fastlocal:bpk=5", "--memtable_filter=dynamic:bpk=8"},
            &c)
          .ok());
  ASSERT_NE(c.filter, nullptr);
  EXPECT_EQ(c.filter->spec().rfind("legacy:bpk=10", 0), 0u);
  ASSERT_EQ(c.filter_per_level.size(), 3u);
  EXPECT_EQ(c.filter_per_level[0], nullptr);   // none
  EXPECT_EQ(c.filter_per_level[1], c.filter);  // an empty entry falls back to --filter
  ASSERT_NE(c.filter_per_level[2], nullptr);
  EXPECT_EQ(c.filter_per_level[2]->spec().rfind("fastlocal:bpk=5", 0), 0u);
  ASSERT_NE(c.memtable_filter, nullptr);
  EXPECT_EQ(c.memtable_filter->spec().rfind("dynamic:bpk=8", 0), 0u);
  ASSERT_TRUE(Parse({"--filter=none"}, &c).ok());
  EXPECT_EQ(c.filter, nullptr);
}

TEST(BenchConfigTest, CheckValidatesAndSaysRunNothing) {
  BenchConfig c;
  ASSERT_TRUE(Parse({"--benchmarks=fillrandom,readrandom", "--num=5000"}, &c).ok());
  EXPECT_FALSE(c.check_only);
  ASSERT_TRUE(Parse({"--check", "--benchmarks=fillrandom,readrandom", "--num=5000"}, &c).ok());
  EXPECT_TRUE(c.check_only);
  // --check runs the cross-checks too, the RocksDB limits included.
  Status s = Parse({"--check", "--engine=rocksdb", "--filter=dynamic:bpk=10"}, &c);
  EXPECT_TRUE(s.IsInvalidArgument());
  EXPECT_NE(s.message().find("memtable filter"), std::string::npos) << s.message();
  s = Parse({"--check", "--benchmarks=approximatememtablestats", "--num=100", "--batch_size=100"}, &c);
  EXPECT_NE(s.message().find("below --num"), std::string::npos) << s.message();
}

// RocksDB's three table filters and the spec each answers to; everything
// else goes through the adapter, and with force_adapter everything does
// (RocksDB's own formats then cross-checked). Memtable filters are refused.
TEST(BenchConfigTest, RocksDbTableFilterIsNativeOrAdapter) {
  RocksDbTableFilter choice;
  ASSERT_TRUE(RocksDbTableFilterFor(nullptr, false, &choice).ok());
  EXPECT_EQ(choice.kind, RocksDbTableFilter::kNone);
  struct Case {
    const char* spec;
    RocksDbTableFilter::Kind kind;
    double bits_per_key;
    int format_version;
  };
  for (const Case& c : {Case{"fastlocal:bpk=10", RocksDbTableFilter::kBloom, 10, 5},
                        Case{"fastlocal:bpk=9.5", RocksDbTableFilter::kBloom, 9.5, 5},
                        Case{"legacy:bpk=10", RocksDbTableFilter::kLegacyBloom, 10, 4},
                        Case{"ribbon:bpk=10", RocksDbTableFilter::kRibbon, 10, 5},
                        Case{"ribbon:bpk=7.5", RocksDbTableFilter::kRibbon, 7.5, 5}}) {
    std::unique_ptr<FilterPolicy> p;
    ASSERT_TRUE(NewFilterPolicy(c.spec, &p).ok()) << c.spec;
    ASSERT_TRUE(RocksDbTableFilterFor(p.get(), false, &choice).ok()) << c.spec;
    EXPECT_EQ(choice.kind, c.kind) << c.spec;
    EXPECT_EQ(choice.bits_per_key, c.bits_per_key) << c.spec;
    EXPECT_EQ(choice.format_version, c.format_version) << c.spec;
    ASSERT_TRUE(RocksDbTableFilterFor(p.get(), true, &choice).ok()) << c.spec;
    EXPECT_EQ(choice.kind, RocksDbTableFilter::kAdapter) << c.spec;
    EXPECT_TRUE(choice.cross_check) << c.spec;
    EXPECT_EQ(choice.format_version, c.format_version) << c.spec;
  }
  for (const char* spec : {"ribbon:fp=0.01", "ribbon:bpk=10,homogeneous=1", "fastlocal:bpk=10,probes=3",
                           "fastlocal:bpk=10,hash=32", "standard:bpk=10", "sbbf:bpk=10", "xor:fingerprint=8"}) {
    std::unique_ptr<FilterPolicy> p;
    ASSERT_TRUE(NewFilterPolicy(spec, &p).ok()) << spec;
    ASSERT_TRUE(RocksDbTableFilterFor(p.get(), false, &choice).ok()) << spec;
    EXPECT_EQ(choice.kind, RocksDbTableFilter::kAdapter) << spec;
    EXPECT_FALSE(choice.cross_check) << spec;
  }
  std::unique_ptr<FilterPolicy> p;
  ASSERT_TRUE(NewFilterPolicy("dynamic:bpk=10", &p).ok());
  const Status s = RocksDbTableFilterFor(p.get(), false, &choice);
  EXPECT_TRUE(s.IsInvalidArgument());
  EXPECT_NE(s.message().find("memtable filter"), std::string::npos) << s.message();
}

TEST(BenchConfigTest, HelpListsFlagsAndBenchmarks) {
  BenchConfig c;
  std::string help;
  ASSERT_TRUE(Parse({"--help"}, &c, &help).ok());
  EXPECT_NE(help.find("usage: lsmbench [FLAGS]"), std::string::npos) << help;
  for (const auto& name : KnownBenchmarks()) EXPECT_NE(help.find(name), std::string::npos) << name;
  EXPECT_NE(help.find("--multiread_stride"), std::string::npos);
  // What the records of other benchmarks report when the lists hold several values.
  EXPECT_NE(help.find("Other benchmarks' records report the first stride"), std::string::npos) << help;
  EXPECT_NE(help.find("Other benchmarks' records report the first value"), std::string::npos) << help;
}

// Each bad command line and words its error must contain.
struct BadCase {
  std::vector<std::string> args;
  std::vector<std::string> expected;
};

// db_bench runs a repeated name again (readrandom,readrandom: a cold, then a
// warm pass), so lsmbench's list keeps repeats in order.
TEST(BenchConfigTest, BenchmarksMayRepeatAsInDbBench) {
  BenchConfig c;
  ASSERT_TRUE(Parse({"--benchmarks=fillseq,readrandom,readrandom"}, &c).ok());
  EXPECT_EQ(c.benchmarks, (std::vector<std::string>{"fillseq", "readrandom", "readrandom"}));
}

TEST(BenchConfigTest, BadInputNamesTheProblemAndWhatIsAllowed) {
  const std::vector<BadCase> cases = {
      {{"--bogus=1"}, {"unknown flag '--bogus'", "--num"}},
      {{"--benchmarks=readrandom,fillsequential"}, {"unknown entry 'fillsequential'", "fillseq|"}},
      {{"--benchmarks="}, {"--benchmarks=", "empty list"}},
      {{"--filter="}, {"--filter=", "none"}},
      {{"--num=abc"}, {"--num=abc", "not an integer"}},
      {{"--num=0"}, {"--num=0", "out of range"}},
      {{"--key_size=4"}, {"--key_size=4", "8..65536"}},
      {{"--threads=0"}, {"--threads=0", "1..1024"}},
      {{"--engine=memtable", "--use_direct_reads"}, {"--use_direct_reads", "filterlab and rocksdb"}},
      {{"--engine=nosuch"}, {"--engine=nosuch", "filterlab|memtable|rocksdb|leveldb"}},
      {{"--engine=leveldb", "--compression=lz4"}, {"Snappy only", "none"}},
      {{"--engine=leveldb", "--filter=fastlocal:bpk=10"}, {"legacy_block:bpk=B"}},
      {{"--filter=nosuch:bpk=10"}, {"--filter=nosuch:bpk=10"}},
      {{"--filter_per_level=fastlocal:bpk=10;fastlocal:bpk=-1"}, {"level 1", "bpk"}},
      {{"--memtable_filter=fastlocal:bpk=10"}, {"dynamic"}},
      {{"--memtable_bloom_ratio=0.5"}, {"--memtable_bloom_ratio=0.5", "out of range"}},
      {{"--util_ratio=0"}, {"--util_ratio=0"}},
      {{"--approx_algorithm=newer"}, {"new|old"}},
      {{"--benchmarks=approximatememtablestats", "--num=100", "--batch_size=100"}, {"below --num"}},
      {{"--benchmarks=multireadrandom", "--num=100", "--batch_size=10", "--multiread_stride=11"},
       {"batch_size x multiread_stride <= num"}},
      // Every stride of a list is checked against batch_size x stride <= num.
      {{"--benchmarks=multireadrandom", "--num=100", "--batch_size=10", "--multiread_stride=0,10,11"},
       {"--multiread_stride=11 (from --multiread_stride=0,10,11)", "batch_size x multiread_stride <= num"}},
      // Single values fail as the one-value flags always did.
      {{"--multiread_stride=abc"}, {"--multiread_stride=abc", "not an integer", "0..1000000000"}},
      {{"--multiread_stride=-1"}, {"--multiread_stride=-1", "out of range", "0..1000000000"}},
      {{"--multiread_batched=maybe"}, {"--multiread_batched=maybe", "not a boolean", "true or false"}},
      {{"--multiread_batched", "true"}, {"unexpected argument 'true'"}},
      // Lists name the whole value, the bad entry and what is allowed.
      {{"--multiread_stride=0,16,x"},
       {"--multiread_stride=0,16,x", "--multiread_stride=x", "not an integer", "0..1000000000",
        "comma-separated list"}},
      {{"--multiread_stride=0,,16"}, {"--multiread_stride=0,,16", "empty value", "comma-separated list"}},
      {{"--multiread_stride=16,0,16"}, {"--multiread_stride=16,0,16", "'16' is listed twice", "each value once"}},
      {{"--multiread_batched=true,maybe"},
       {"--multiread_batched=true,maybe", "--multiread_batched=maybe", "true or false", "comma-separated list"}},
      {{"--multiread_batched=false,0"}, {"'0' is listed twice"}},
      {{"--multiread_batched="}, {"--multiread_batched=", "not a boolean"}},
      // Allocation lists: each entry checked, passes only from a rewritefilters on, no fill inside them.
      {{"--filter_policy=uniform,greedy"}, {"--filter_policy=uniform,greedy", "'greedy'", "no_last_level"}},
      {{"--filter_policy=uniform,,monkey", "--benchmarks=fillrandom,rewritefilters"},
       {"--filter_policy=uniform,,monkey", "''", "optimal"}},
      {{"--filter_policy=monkey,monkey"}, {"'monkey' is listed twice", "each value once"}},
      {{"--filter_policy=monkey", "--filter_budget_bpk=5,x"},
       {"--filter_budget_bpk=5,x", "--filter_budget_bpk=x", "not a finite number", "comma-separated list"}},
      {{"--filter_policy=monkey", "--filter_budget_bpk=5,200"},
       {"--filter_budget_bpk=200", "out of range", "0.01..100"}},
      {{"--filter_policy=uniform,monkey", "--benchmarks=fillrandom,readmissing"},
       {"2 (budget, policy) passes", "start at rewritefilters", "with rewritefilters in --benchmarks"}},
      {{"--filter_policy=monkey", "--filter_budget_bpk=2,5", "--benchmarks=fillrandom,rewritefilters,fillseq"},
       {"fillseq after rewritefilters", "fills before the first rewritefilters only"}},
      {{"--filter_budget_bpk=2,5"}, {"--filter_budget_bpk applies with --filter_policy"}},
      {{"--use_existing_db"}, {"--use_existing_db needs --db"}},
      {{"--engine=memtable", "--db=/tmp/x"}, {"--engine=memtable keeps nothing on disk"}},
      {{"--engine=rocksdb", "--filter=dynamic:bpk=10"}, {"memtable filter", "static registry spec"}},
      {{"--rocksdb_filter_adapter"}, {"--engine=rocksdb only"}},
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
