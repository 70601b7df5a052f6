// Running a filterlab-sim command in a test: its records, help text and
// status from an argument list, and the check that bad arguments give
// InvalidArgument naming what is wrong, with no records.
#pragma once

#include <gtest/gtest.h>

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

}  // namespace filterlab::sim
