// The main of the Google Benchmark binaries (filterlab_bench, engine_bench).
//
// Two ways in. With Google Benchmark's own arguments (--benchmark_filter=...,
// or none) it is Google Benchmark's main: `./filterlab bench` and every
// --benchmark_* flag work as documented upstream. With any of the runner's
// flags below (or --describe / --check) it is a filterlab worker, the
// experiment runner's "gbench" worker (experiments/workers.py): the flags are
// parsed and checked like every worker's (common/flags.h), the selected
// benchmarks run, and each repetition of each benchmark is printed as one
// JSON record on stdout (Google Benchmark's console table goes nowhere; the
// records carry everything it shows and the counters).
//
// A record's args: the benchmark name's "name:value" parts
// (BM_DataBlockSeekForGet/records:500/hash:1/util_pct:75 gives
// {"records": 500, "hash": 1, "util_pct": 75}; unnamed arguments are
// arg0, arg1, ...), so a sweep's results have a column per argument.
#include <benchmark/benchmark.h>

#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "common/flags.h"
#include "common/json_out.h"

namespace filterlab {
namespace {

constexpr char kSummary[] =
    "Google Benchmark micro-benchmarks; with the runner's flags, one JSON record per benchmark repetition";

struct GbenchArgs {
  std::string benchmarks;
  long long repetitions = 1;
  double min_time = 0;
};

void DeclareFlags(FlagSet& flags, GbenchArgs* a) {
  flags.String("benchmarks", ".",
               "regular expression selecting benchmarks by full name (Google Benchmark's --benchmark_filter), e.g.\n"
               "'BM_DataBlockSeekForGet/records:500/'",
               &a->benchmarks);
  flags.Int("repetitions", 1, 1, 1000, "runs of each selected benchmark (one record each)", &a->repetitions);
  flags.Double("min_time", 0, 0, 3600,
               "seconds each run lasts at least (Google Benchmark's --benchmark_min_time); 0 = its default",
               &a->min_time);
  flags.Field("command", "string", "\"gbench\"");
  flags.Field("benchmark", "string", "the benchmark's full name, arguments included");
  flags.Field("family", "string", "the benchmark function, e.g. BM_DataBlockSeekForGet");
  flags.Field("args", "object", "the name's arguments: {\"records\": 500, ...} (unnamed ones arg0, arg1, ...)");
  flags.Field("repetition", "int", "0-based repetition of this benchmark");
  flags.Field("iterations", "int", "iterations timed");
  flags.Field("real_ns", "number", "wall time per iteration, ns");
  flags.Field("cpu_ns", "number", "CPU time of the benchmark's thread per iteration, ns");
  flags.Field("label", "string", "the benchmark's label (SetLabel), empty if none");
  flags.Field("counters", "object", "the benchmark's user counters, as Google Benchmark reports them");
}

double NsPerTimeUnit(benchmark::TimeUnit unit) {
  switch (unit) {
    case benchmark::kNanosecond: return 1;
    case benchmark::kMicrosecond: return 1e3;
    case benchmark::kMillisecond: return 1e6;
    case benchmark::kSecond: return 1e9;
  }
  return 1;
}

// "records:500" -> ("records", 500); "500" -> ("argN", 500); text stays text.
JsonRecord ArgsOf(const std::string& args) {
  JsonRecord out = JsonRecord::object();
  size_t start = 0, unnamed = 0;
  while (start <= args.size() && !args.empty()) {
    const size_t slash = args.find('/', start);
    const std::string part = args.substr(start, slash == std::string::npos ? std::string::npos : slash - start);
    const size_t colon = part.find(':');
    const std::string name = colon == std::string::npos ? "arg" + std::to_string(unnamed++) : part.substr(0, colon);
    const std::string value = colon == std::string::npos ? part : part.substr(colon + 1);
    char* end = nullptr;
    const long long v = std::strtoll(value.c_str(), &end, 10);
    if (!value.empty() && end != nullptr && *end == '\0') {
      out[name] = v;
    } else {
      out[name] = value;
    }
    if (slash == std::string::npos) break;
    start = slash + 1;
  }
  return out;
}

// Prints each iteration run (not the aggregates) as a record; remembers errors.
class JsonLinesReporter final : public benchmark::BenchmarkReporter {
 public:
  bool ReportContext(const Context&) override { return true; }
  void ReportRuns(const std::vector<Run>& runs) override {
    for (const Run& run : runs) {
      if (run.run_type != Run::RT_Iteration) continue;
      if (run.error_occurred) {
        std::fprintf(stderr, "gbench: %s: %s\n", run.benchmark_name().c_str(), run.error_message.c_str());
        ++errors_;
        continue;
      }
      const double unit = NsPerTimeUnit(run.time_unit);
      JsonRecord r;
      r["command"] = "gbench";
      r["benchmark"] = run.benchmark_name();
      r["family"] = run.run_name.function_name;
      r["args"] = ArgsOf(run.run_name.args);
      r["repetition"] = run.repetition_index < 0 ? 0 : run.repetition_index;
      r["iterations"] = static_cast<long long>(run.iterations);
      r["real_ns"] = run.GetAdjustedRealTime() * unit;
      r["cpu_ns"] = run.GetAdjustedCPUTime() * unit;
      r["label"] = run.report_label;
      JsonRecord counters = JsonRecord::object();
      for (const auto& [name, counter] : run.counters) counters[name] = static_cast<double>(counter.value);
      r["counters"] = counters;
      EmitRecord(r);
      ++records_;
    }
  }
  void Finalize() override {}
  int errors() const { return errors_; }
  int records() const { return records_; }

 private:
  int errors_ = 0;
  int records_ = 0;
};

bool IsRunnerFlag(const std::string& arg) {
  for (const char* name : {"--benchmarks", "--repetitions", "--min_time", "--min-time", "--describe", "--check"}) {
    const std::string n = name;
    if (arg == n || arg.rfind(n + "=", 0) == 0) return true;
  }
  return false;
}

int RunnerMain(int argc, char** argv) {
  const std::string program = argc > 0 ? std::string(argv[0]).substr(std::string(argv[0]).find_last_of('/') + 1) : "";
  FlagSet flags("", kSummary, program);
  GbenchArgs a;
  DeclareFlags(flags, &a);
  Status s = flags.Parse(argc - 1, argv + 1);
  if (!s.ok()) {
    std::fprintf(stderr, "%s\n", s.message().c_str());
    return 2;
  }
  std::string answer;
  if (flags.Answered(&answer)) {
    if (flags.describe_requested()) answer = DescribeProgram(program, kSummary, {flags.Description()}).dump();
    std::puts(answer.c_str());
    return 0;
  }
  std::vector<std::string> gb_args = {argv[0], "--benchmark_filter=" + a.benchmarks,
                                      "--benchmark_repetitions=" + std::to_string(a.repetitions)};
  if (a.min_time > 0) gb_args.push_back("--benchmark_min_time=" + std::to_string(a.min_time));
  // --check: list the selection instead of timing it (the list is discarded; only its size matters).
  if (flags.check_only()) gb_args.push_back("--benchmark_list_tests=true");
  std::vector<char*> gb_argv;
  for (auto& x : gb_args) gb_argv.push_back(x.data());
  int gb_argc = static_cast<int>(gb_argv.size());
  benchmark::Initialize(&gb_argc, gb_argv.data());
  JsonLinesReporter reporter;
  std::ostringstream listed;
  std::streambuf* const cout_buf = flags.check_only() ? std::cout.rdbuf(listed.rdbuf()) : nullptr;
  const size_t ran = benchmark::RunSpecifiedBenchmarks(&reporter);
  if (cout_buf != nullptr) std::cout.rdbuf(cout_buf);
  benchmark::Shutdown();
  if (ran == 0) {
    std::fprintf(stderr, "--benchmarks='%s' selects no benchmark of %s (list them with --benchmark_list_tests)\n",
                 a.benchmarks.c_str(), program.c_str());
    return 2;
  }
  return reporter.errors() > 0 ? 1 : 0;
}

}  // namespace
}  // namespace filterlab

int main(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    if (filterlab::IsRunnerFlag(argv[i])) return filterlab::RunnerMain(argc, argv);
  }
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
