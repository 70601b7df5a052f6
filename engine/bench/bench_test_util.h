// Helpers shared by lsmbench's tests: a config parsed from flags that must be good.
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "engine/bench/bench_config.h"

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

}  // namespace filterlab::lsmbench::testing_util
