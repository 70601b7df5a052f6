// lsmbench's self-description against what it prints: the --describe JSON
// names every flag once with a type, and every record that MakeRecord makes
// in small real runs (2000 keys, every benchmark each engine supports, with
// the options that add optional fields) carries only declared fields of the
// declared types (CheckRecordFields). tests/test_lsmbench.py holds the
// binary's --describe and --check to the same contract.
#include "engine/bench/report.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "common/flags.h"
#include "engine/bench/bench_config.h"
#include "engine/bench/bench_test_util.h"
#include "engine/bench/benchmarks.h"
#include "engine/bench/engine.h"

namespace filterlab::lsmbench {
namespace {

using testing_util::ParseOrDie;
using testing_util::RunRecords;
using testing_util::TempDir;

const nlohmann::ordered_json& Command() {
  static const nlohmann::ordered_json description = LsmbenchDescription();
  return description["commands"][0];
}

TEST(LsmbenchDescription, NamesEveryFlagOnceWithAType) {
  const nlohmann::ordered_json d = LsmbenchDescription();
  EXPECT_EQ(d["program"], "lsmbench");
  ASSERT_EQ(d["commands"].size(), 1u);
  const nlohmann::ordered_json& command = d["commands"][0];
  std::set<std::string> names;
  for (const auto& flag : command["flags"]) {
    EXPECT_TRUE(names.insert(flag["name"].get<std::string>()).second) << flag.dump();
    EXPECT_FALSE(flag["help"].get<std::string>().empty()) << flag.dump();
  }
  for (const char* name : {"benchmarks", "engine", "num", "filter", "filter_per_level", "memtable_filter",
                           "multiread_stride", "multiread_batched", "db", "use_existing_db"}) {
    EXPECT_EQ(names.count(name), 1u) << name;
  }
  for (const auto& flag : command["flags"]) {
    if (flag["name"] != "benchmarks") continue;
    EXPECT_EQ(flag["type"], "choice_list");
    EXPECT_EQ(flag["choices"].get<std::vector<std::string>>(), KnownBenchmarks());
  }
  std::set<std::string> fields;
  for (const auto& field : command["fields"]) {
    EXPECT_TRUE(fields.insert(field["name"].get<std::string>()).second) << field.dump();
    EXPECT_EQ(field["type"].get<std::string>().rfind("invalid:", 0), std::string::npos) << field.dump();
  }
}

// Records of every benchmark at 2000 keys on the filterlab DB, with the
// options that add optional fields (histogram, per-level filters, memtable
// filter, hash index, two multireadrandom passes).
TEST(LsmbenchDescription, FilterlabRecordsCarryOnlyDeclaredFields) {
  TempDir dir;
  ASSERT_FALSE(dir.path().empty());
  const BenchConfig config = ParseOrDie(
      {"--benchmarks=filluniquerandom,approximatememtablestats,fillseq,fillrandom,overwrite,flush,readrandom,"
       "readmissing,readseq,seekrandom,multireadrandom,readwhilewriting,compact,waitforcompaction,stats",
       "--num=2000", "--reads=500", "--batch_size=8", "--multiread_batched=true,false", "--histogram",
       "--filter_per_level=none;;legacy:bpk=8", "--memtable_filter=dynamic:bpk=8", "--hash_index",
       "--write_buffer_mb=1", "--compression=lz4", "--use_direct_reads", "--threads=2"});
  const std::vector<JsonRecord> records = RunRecords(config, dir.path());
  ASSERT_EQ(records.size(), config.benchmarks.size() + 1);  // multireadrandom: two passes
  std::set<std::string> seen;
  for (const JsonRecord& record : records) {
    const Status s = CheckRecordFields(record, Command());
    EXPECT_TRUE(s.ok()) << s.ToString() << "\n" << record.dump();
    for (const auto& [key, value] : record.items()) seen.insert(key);
  }
  for (const char* field : {"levels", "filter_stats", "filter_per_level", "p99_micros", "histogram", "stats", "io",
                            "direct_reads", "compression", "threads", "thread_ops_per_sec"}) {
    EXPECT_EQ(seen.count(field), 1u) << field << " was never printed: the run no longer covers it";
  }
}

// A filter-memory policy adds its own fields and the totals.
TEST(LsmbenchDescription, FilterPolicyRecordsCarryOnlyDeclaredFields) {
  TempDir dir;
  ASSERT_FALSE(dir.path().empty());
  const BenchConfig config = ParseOrDie({"--benchmarks=fillrandom,flush,readmissing", "--num=3000", "--reads=500",
                                         "--filter=fastlocal", "--filter_policy=optimal", "--filter_budget_bpk=5",
                                         "--level_multiplier=4", "--num_levels=5", "--write_buffer_mb=1"});
  std::set<std::string> seen;
  for (const JsonRecord& record : RunRecords(config, dir.path())) {
    const Status s = CheckRecordFields(record, Command());
    EXPECT_TRUE(s.ok()) << s.ToString() << "\n" << record.dump();
    for (const auto& [key, value] : record.items()) seen.insert(key);
  }
  for (const char* field : {"filter_policy", "filter_budget_bpk", "filter_bits_per_key", "fp_reads_per_op",
                            "fp_reads_model_per_op", "fp_reads_model_sigma_per_op", "level_multiplier"}) {
    EXPECT_EQ(seen.count(field), 1u) << field << " was never printed";
  }
}

TEST(LsmbenchDescription, MemTableRecordsCarryOnlyDeclaredFields) {
  const BenchConfig config =
      ParseOrDie({"--engine=memtable",
                  "--benchmarks=filluniquerandom,approximatememtablestats,readrandom,readmissing,readseq,"
                  "seekrandom,multireadrandom,stats",
                  "--num=2000", "--reads=500", "--batch_size=8", "--memtable_filter=dynamic:bpk=8"});
  const std::vector<JsonRecord> records = RunRecords(config, "");
  ASSERT_EQ(records.size(), config.benchmarks.size());
  for (const JsonRecord& record : records) {
    const Status s = CheckRecordFields(record, Command());
    EXPECT_TRUE(s.ok()) << s.ToString() << "\n" << record.dump();
  }
}

TEST(LsmbenchDescription, RocksDbRecordsCarryOnlyDeclaredFields) {
  if (!HaveRocksDb()) GTEST_SKIP() << "this build has no --engine=rocksdb";
  TempDir dir;
  ASSERT_FALSE(dir.path().empty());
  const BenchConfig config =
      ParseOrDie({"--engine=rocksdb", "--benchmarks=fillrandom,flush,readrandom,readmissing,multireadrandom,stats",
                  "--num=2000", "--reads=500", "--batch_size=8", "--statistics", "--histogram"});
  const std::vector<JsonRecord> records = RunRecords(config, dir.path());
  ASSERT_EQ(records.size(), config.benchmarks.size());
  for (const JsonRecord& record : records) {
    const Status s = CheckRecordFields(record, Command());
    EXPECT_TRUE(s.ok()) << s.ToString() << "\n" << record.dump();
  }
}

TEST(LsmbenchDescription, LevelDbRecordsCarryOnlyDeclaredFields) {
  if (!HaveLevelDb()) GTEST_SKIP() << "this build has no --engine=leveldb";
  TempDir dir;
  ASSERT_FALSE(dir.path().empty());
  const BenchConfig config = ParseOrDie(
      {"--engine=leveldb", "--benchmarks=fillrandom,flush,readrandom,readmissing,multireadrandom,stats", "--num=2000",
       "--reads=500", "--batch_size=8", "--filter=legacy_block:bpk=10", "--histogram", "--threads=2"});
  const std::vector<JsonRecord> records = RunRecords(config, dir.path());
  ASSERT_EQ(records.size(), config.benchmarks.size());
  for (const JsonRecord& record : records) {
    const Status s = CheckRecordFields(record, Command());
    EXPECT_TRUE(s.ok()) << s.ToString() << "\n" << record.dump();
  }
  EXPECT_EQ(records[3]["found"], 0);                       // readmissing
  EXPECT_GT(records[1]["sst_bytes"].get<uint64_t>(), 0u);  // flush wrote a table
}

}  // namespace
}  // namespace filterlab::lsmbench
