// Running a filterlab-sim command in a test: its records, help text and
// status from an argument list, and the check that bad arguments give
// InvalidArgument naming what is wrong, with no records.
#pragma once

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include "sim/commands.h"

namespace filterlab::sim {

using CommandFn = Status (*)(int, char**, const Emit&, std::string*);

struct CommandRun {
  std::vector<JsonRecord> records;
  std::string help;
  Status status;
};

inline CommandRun RunCommand(CommandFn command, std::vector<std::string> args) {
  CommandRun run;
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  run.status = command(
      static_cast<int>(argv.size()), argv.data(), [&run](const JsonRecord& r) { run.records.push_back(r); }, &run.help);
  return run;
}

inline void ExpectError(CommandFn command, std::vector<std::string> args, std::vector<std::string> must_mention) {
  std::string joined;
  for (const auto& a : args) joined += a + " ";
  const CommandRun run = RunCommand(command, args);
  EXPECT_TRUE(run.status.IsInvalidArgument()) << joined << "-> " << run.status.ToString();
  for (const auto& m : must_mention) {
    EXPECT_NE(run.status.message().find(m), std::string::npos) << joined << "-> " << run.status.message();
  }
  EXPECT_TRUE(run.records.empty()) << joined;
}

// What RocksDB's filter_bench -quick prints (11.8.1's util/filter_bench.cc,
// the lines filter_bench_peer.cc reads, figures from a 200 MB legacy run).
inline constexpr const char* kFilterBenchQuickOutput =
    "Building...\n"
    "Build avg ns/key: 10.4953\n"
    "Number of filters: 16639\n"
    "Total size (MB): 200.018\n"
    "Reported total allocated memory (MB): 200.91\n"
    "Reported internal fragmentation: 0.446%\n"
    "Bits/key stored: 10.0754\n"
    "----------------------------\n"
    "Mixed inside/outside queries...\n"
    "  Single filter net ns/op: 9.29376\n"
    "  Random filter net ns/op: 132.047\n"
    "    Average FP rate %: 1.16587\n"
    "----------------------------\n"
    "Done. (For more info, run with -legend or -help.)\n";

// A stand-in for a filter_bench binary: a shell script that prints `output`
// and writes its arguments, one per line, to PATH.args. Returns PATH (in a
// fresh temporary directory).
inline std::string FakeFilterBench(const std::string& output = kFilterBenchQuickOutput, int exit_code = 0) {
  char dir[] = "/tmp/filterlab-fake-filter-bench-XXXXXX";
  EXPECT_NE(::mkdtemp(dir), nullptr);
  const std::string path = std::string(dir) + "/filter_bench";
  std::ofstream script(path);
  script << "#!/bin/sh\nfor a in \"$@\"; do echo \"$a\"; done > \"$0.args\"\ncat <<'FILTERLAB_EOF'\n"
         << output << "FILTERLAB_EOF\nexit " << exit_code << "\n";
  script.close();
  EXPECT_EQ(::chmod(path.c_str(), 0755), 0);
  return path;
}

}  // namespace filterlab::sim
