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
using testing_util::RunRecords;
using testing_util::TempDir;

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

// The sum of a record's per-thread rates is at least its aggregate rate
// (each thread's time is at most the slowest's), and there is one per thread.
void ExpectThreadRates(const JsonRecord& rec, int threads) {
  ASSERT_TRUE(rec.contains("thread_ops_per_sec")) << rec.dump();
  ASSERT_EQ(rec["thread_ops_per_sec"].size(), static_cast<size_t>(threads)) << rec.dump();
  EXPECT_EQ(rec["threads"], threads);
  double sum = 0;
  for (const auto& rate : rec["thread_ops_per_sec"]) {
    EXPECT_GT(rate.get<double>(), 0) << rec.dump();
    sum += rate.get<double>();
  }
  EXPECT_GE(sum * (1 + 1e-9), rec["ops_per_sec"].get<double>()) << rec.dump();
}

TEST(BenchmarksTest, ThreadsShareAFillAndEachReaderDoesAllReads) {
  // filluniquerandom writes every key of 0..1999 once whatever the threads,
  // so each of 3 readers finds every key it looks up.
  const BenchConfig config = ParseOrDie({"--engine=memtable", "--num=2000", "--reads=500", "--threads=3", "--histogram",
                                         "--seed=7", "--benchmarks=filluniquerandom,readrandom,readmissing"});
  const std::vector<JsonRecord> recs = RunRecords(config, "");
  ASSERT_EQ(recs.size(), 3u);
  EXPECT_EQ(recs[0]["entries_written"], 2000);
  EXPECT_EQ(recs[0]["memtable_entries"], 2000);  // each key once: the threads' shares do not overlap
  ExpectThreadRates(recs[0], 3);
  EXPECT_EQ(recs[1]["ops"], 1500);
  EXPECT_EQ(recs[1]["found"], 1500);
  EXPECT_EQ(recs[2]["found"], 0);
  ExpectThreadRates(recs[1], 3);
}

TEST(BenchmarksTest, ThreadedRunsAreReproducibleFromTheSeed) {
  // fillrandom's keys repeat (about 63% of 0..1999 distinct), so how many
  // lookups find their key depends on every thread's stream: equal for the
  // same --seed, and (checked for these seeds) different for another.
  auto run = [](const std::string& seed) {
    return RunRecords(ParseOrDie({"--engine=memtable", "--num=2000", "--reads=2000", "--threads=3", "--seed=" + seed,
                                  "--benchmarks=fillrandom,readrandom"}),
                      "");
  };
  const std::vector<JsonRecord> a = run("7"), b = run("7"), c = run("8");
  ASSERT_EQ(a.size(), 2u);
  ASSERT_EQ(b.size(), 2u);
  ASSERT_EQ(c.size(), 2u);
  EXPECT_EQ(a[0]["memtable_entries"], b[0]["memtable_entries"]);
  EXPECT_EQ(a[1]["found"], b[1]["found"]);
  EXPECT_NE(a[1]["found"], c[1]["found"]);
  EXPECT_LT(a[1]["found"].get<uint64_t>(), 6000u);
}

// Several benchmark threads against our DB at once, with a writer and tiny
// memtables so flushes and compactions run under the readers: Get
// (readrandom, readwhilewriting), MultiGet (multireadrandom), iterators
// (seekrandom, readseq) and concurrent writers (the threaded fill). Also
// runs under TSan (the name matches its "Concurren" filter).
TEST(BenchmarksTest, ConcurrentThreadsOnTheFilterlabEngine) {
  TempDir dir;
  const BenchConfig config = ParseOrDie(
      {"--engine=filterlab", "--num=3000", "--reads=400", "--threads=2", "--batch_size=8", "--multiread_stride=4",
       "--write_buffer_mb=1", "--target_file_mb=1", "--value_size=400", "--cache_mb=1", "--seed=11",
       "--benchmarks=filluniquerandom,flush,readrandom,readwhilewriting,multireadrandom,seekrandom,"
       "readseq"});
  const std::vector<JsonRecord> recs = RunRecords(config, dir.path());
  ASSERT_EQ(recs.size(), 7u);
  EXPECT_EQ(recs[0]["entries_written"], 3000);
  EXPECT_GT(recs[1]["sst_bytes"].get<uint64_t>(), 0u);  // the readers search tables
  // Every key exists (the writer only overwrites), so every lookup finds it.
  for (size_t i = 2; i <= 4; ++i) {
    EXPECT_EQ(recs[i]["found"], recs[i]["ops"]) << recs[i]["benchmark"];
    ExpectThreadRates(recs[i], 2);
  }
  EXPECT_EQ(recs[2]["ops"], 800);
  EXPECT_EQ(recs[4]["batches"], 100);  // 50 batches of 8 per thread
  EXPECT_EQ(recs[5]["found"], 800);    // seekrandom lands on existing keys
  EXPECT_EQ(recs[6]["ops"], 800);      // readseq: 400 entries per thread
}

}  // namespace
}  // namespace filterlab::lsmbench
