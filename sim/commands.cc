#include "sim/commands.h"

#include <cstdio>
#include <cstring>
#include <vector>

#include "common/flags.h"

namespace filterlab::sim {

namespace {

struct Command {
  const char* name;
  Status (*run)(int, char**, const Emit&, std::string*);
  const char* summary;
};

const Command kCommands[] = {
    {"fp", FpCommand, "sample FP rates (positives, Wilson 95% interval, model) at up to 10^9 keys"},
    {"model", ModelCommand, "analytic FP rates per variant / bits per key / probes / keys / hash width"},
    {"speed", SpeedCommand, "filter_bench-style build and query timings (net ns/op against a dry run)"},
    {"floor", FloorCommand, "the machine's memory floors: dependent-load latency, random line throughput"},
    {"probes", ProbesCommand, "simulated best probe count per bits/key vs RocksDB's ChooseNumProbes"},
    {"lsm", LsmCommand, "filter memory per LSM level: bits, FP and reads per lookup by allocation policy"},
    {"dynamic", DynamicCommand, "a memtable filter's add / hit / miss times, serial and parallel (dynamic_bloom_test)"},
    {"rangefp", RangeFpCommand,
     "range filters' FP on empty ranges per length and correlation, model/bound, lower bound"},
    {"rangespeed", RangeSpeedCommand, "range filters' build ns/key and query ns (empty, non-empty; hot, working set)"},
    {"rangeworkload", RangeWorkloadCommand,
     "write rangefp's keys and queries as SOSD binary files (other tools' inputs)"},
};

constexpr const char* kSummary = "Every measurement is printed as one JSON object per line on stdout.";

int Usage(FILE* f) {
  std::fprintf(f,
               "usage: filterlab-sim COMMAND [FLAGS]   (COMMAND --help for its flags)\n"
               "       filterlab-sim --describe      (every command's flags and record fields as JSON)\n"
               "commands:\n");
  for (const auto& c : kCommands) std::fprintf(f, "  %-13s %s\n", c.name, c.summary);
  std::fprintf(f, "%s\n", kSummary);
  return f == stdout ? 0 : 2;
}

// filterlab-sim --describe: each command's own --describe, gathered.
int Describe() {
  std::vector<JsonRecord> commands;
  for (const auto& c : kCommands) {
    std::string arg = "--describe", out;
    char* argv[] = {arg.data()};
    Status s = c.run(
        1, argv, [](const JsonRecord&) {}, &out);
    if (!s.ok() || out.empty()) {
      std::fprintf(stderr, "filterlab-sim %s --describe: %s\n", c.name,
                   s.ok() ? "no description" : s.message().c_str());
      return 1;
    }
    JsonRecord d = JsonRecord::parse(out);
    d["summary_line"] = c.summary;
    commands.push_back(std::move(d));
  }
  std::printf("%s\n", DescribeProgram("filterlab-sim", kSummary, std::move(commands)).dump().c_str());
  return 0;
}

}  // namespace

CommandFunction FindCommand(const std::string& name) {
  for (const auto& c : kCommands) {
    if (name == c.name) return c.run;
  }
  return nullptr;
}

int SimMain(int argc, char** argv) {
  if (argc < 2) return Usage(stderr);
  const std::string cmd = argv[1];
  if (cmd == "--help" || cmd == "-h" || cmd == "help") return Usage(stdout);
  if (cmd == "--describe") return Describe();
  if (CommandFunction run = FindCommand(cmd)) {
    std::string help;
    Status s = run(
        argc - 2, argv + 2, [](const JsonRecord& r) { EmitRecord(r); }, &help);
    if (!help.empty()) {
      std::fputs(help.c_str(), stdout);
      return 0;
    }
    if (!s.ok()) {
      std::fprintf(stderr, "filterlab-sim %s: %s\n", cmd.c_str(), s.message().c_str());
      return s.IsInvalidArgument() ? 2 : 1;
    }
    return 0;
  }
  std::fprintf(stderr, "filterlab-sim: unknown command '%s'\n", cmd.c_str());
  Usage(stderr);
  return 2;
}

}  // namespace filterlab::sim
