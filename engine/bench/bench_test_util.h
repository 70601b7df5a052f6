// Helpers shared by lsmbench's tests: a config parsed from flags that must
// be good, a temporary directory, and running a config's benchmarks.
#pragma once

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <memory>
#include <string>
#include <system_error>
#include <vector>

#include "engine/bench/bench_config.h"
#include "engine/bench/benchmarks.h"
#include "engine/bench/engine.h"
#include "engine/bench/report.h"

namespace filterlab::lsmbench::testing_util {

// ParseBenchConfig over {"lsmbench", args...}; a parse error fails the test.
inline BenchConfig ParseOrDie(std::vector<std::string> args) {
  args.insert(args.begin(), "lsmbench");
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  BenchConfig config;
  std::string help;
  const Status s = ParseBenchConfig(static_cast<int>(argv.size()), argv.data(), &config, &help);
  EXPECT_TRUE(s.ok()) << s.ToString();
  return config;
}

// A directory removed at the end.
class TempDir {
 public:
  TempDir() {
    std::string pattern = std::filesystem::temp_directory_path().string() + "/lsmbench-test-XXXXXX";
    if (mkdtemp(pattern.data()) != nullptr) path_ = pattern;
  }
  ~TempDir() {
    std::error_code ec;
    if (!path_.empty()) std::filesystem::remove_all(path_, ec);
  }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

// Runs config's benchmarks in order on one engine as lsmbench's driver does
// (multireadrandom once per pass) and returns every record.
inline std::vector<JsonRecord> RunRecords(const BenchConfig& config, const std::string& dir) {
  std::unique_ptr<Engine> engine;
  const Status open = OpenEngine(config, dir, &engine);
  EXPECT_TRUE(open.ok()) << open.ToString();
  if (!open.ok()) return {};
  BenchRunner runner(config);
  std::vector<JsonRecord> records;
  for (const std::string& name : config.benchmarks) {
    const bool multiread = name == "multireadrandom";
    const std::vector<MultiReadVariant> variants =
        multiread ? MultiReadVariants(config) : std::vector<MultiReadVariant>(1);
    for (const MultiReadVariant& variant : variants) {
      if (name != "stats") engine->ResetStats();
      BenchResult result;
      const Status s =
          multiread ? runner.RunMultiRead(engine.get(), variant, &result) : runner.Run(name, engine.get(), &result);
      EXPECT_TRUE(s.ok()) << name << ": " << s.ToString();
      if (!s.ok()) return records;
      records.push_back(MakeRecord(config, engine.get(), result));
    }
  }
  return records;
}

}  // namespace filterlab::lsmbench::testing_util
