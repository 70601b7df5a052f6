// Tests of BenchRunner's multireadrandom passes over a list of strides and
// batched modes: each pass's record carries its own stride and mode, and the
// key streams stay reproducible from --seed. Runs on the bare memtable engine
// (no disk) with a small key space; tests/test_lsmbench.py runs the whole
// binary.
#include "engine/bench/benchmarks.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "engine/bench/bench_config.h"
#include "engine/bench/bench_test_util.h"
#include "engine/bench/engine.h"
#include "engine/bench/report.h"

namespace filterlab::lsmbench {
namespace {

using testing_util::ParseOrDie;

// fillrandom, then every multireadrandom pass, then readrandom, as lsmbench's
// driver runs them; returns the records in order.
std::vector<JsonRecord> RunPasses(const BenchConfig& config) {
  std::unique_ptr<Engine> engine;
  const Status open = OpenEngine(config, "", &engine);
  EXPECT_TRUE(open.ok()) << open.ToString();
  if (!open.ok()) return {};
  BenchRunner runner(config);
  std::vector<JsonRecord> records;
  BenchResult fill;
  EXPECT_TRUE(runner.Run("fillrandom", engine.get(), &fill).ok());
  for (const MultiReadVariant& variant : MultiReadVariants(config)) {
    BenchResult result;
    const Status s = runner.RunMultiRead(engine.get(), variant, &result);
    EXPECT_TRUE(s.ok()) << s.ToString();
    records.push_back(MakeRecord(config, engine.get(), result));
  }
  BenchResult read;
  EXPECT_TRUE(runner.Run("readrandom", engine.get(), &read).ok());
  records.push_back(MakeRecord(config, engine.get(), read));
  return records;
}

// fillrandom writes 2000 random keys of 0..1999 (about 63% distinct), so
// how many keys a pass finds depends on the keys it drew.
const std::vector<std::string> kBase = {"--engine=memtable", "--num=2000", "--batch_size=8", "--seed=7"};

std::vector<std::string> With(std::vector<std::string> extra) {
  std::vector<std::string> args = kBase;
  args.insert(args.end(), extra.begin(), extra.end());
  return args;
}

TEST(BenchmarksTest, EachMultiReadPassReportsItsOwnStrideAndMode) {
  const BenchConfig config = ParseOrDie(With({"--multiread_stride=0,16", "--multiread_batched=true,false"}));
  const std::vector<JsonRecord> recs = RunPasses(config);
  ASSERT_EQ(recs.size(), 5u);
  const std::vector<std::pair<int64_t, bool>> want = {{0, true}, {0, false}, {16, true}, {16, false}};
  for (size_t i = 0; i < want.size(); ++i) {
    EXPECT_EQ(recs[i]["benchmark"], "multireadrandom") << i;
    EXPECT_EQ(recs[i]["stride"], want[i].first) << i;
    EXPECT_EQ(recs[i]["multiread_batched"], want[i].second) << i;
    EXPECT_EQ(recs[i]["ops"], 2000) << i;  // --reads defaults to --num: 250 batches of 8
    EXPECT_EQ(recs[i]["batch_size"], 8) << i;
    EXPECT_GT(recs[i]["found"].get<uint64_t>(), 0u) << i;
    EXPECT_LT(recs[i]["found"].get<uint64_t>(), 2000u) << i;
  }
  // Other benchmarks report the first value of each list.
  EXPECT_EQ(recs[4]["benchmark"], "readrandom");
  EXPECT_EQ(recs[4]["stride"], 0);
  EXPECT_EQ(recs[4]["multiread_batched"], true);
}

TEST(BenchmarksTest, PassesAreReproducibleAndTheFirstMatchesASingleValueRun) {
  const BenchConfig list = ParseOrDie(With({"--multiread_stride=16,256", "--multiread_batched=false,true"}));
  const std::vector<JsonRecord> a = RunPasses(list), b = RunPasses(list);
  ASSERT_EQ(a.size(), 5u);
  ASSERT_EQ(b.size(), 5u);
  for (size_t i = 0; i < a.size(); ++i) EXPECT_EQ(a[i]["found"], b[i]["found"]) << i;
  // A single-value run draws the same first stream as the list's first pass
  // (BenchRunner::StreamSeed counts streams in run order), so it reads the
  // same keys and finds the same number.
  const BenchConfig single = ParseOrDie(With({"--multiread_stride=16", "--multiread_batched=false"}));
  const std::vector<JsonRecord> one = RunPasses(single);
  ASSERT_EQ(one.size(), 2u);
  EXPECT_EQ(one[0]["stride"], 16);
  EXPECT_EQ(one[0]["multiread_batched"], false);
  EXPECT_EQ(one[0]["found"], a[0]["found"]);
}

}  // namespace
}  // namespace filterlab::lsmbench
