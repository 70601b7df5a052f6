// lsmbench: db_bench-style benchmarks of the filterlab LSM engine, of a bare
// memtable, and (when built with librocksdb-dev) of RocksDB with equivalent
// options. `lsmbench --help` lists the flags, `lsmbench --describe` prints
// them and the records' fields as JSON, `lsmbench --check FLAGS` validates a
// command line without running it; engine/README.md describes the
// benchmarks. Text results go to stderr, one JSON object per benchmark to
// stdout. Exit status: 0 done, 1 a benchmark or the engine failed, 2 bad flags.
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <string>
#include <system_error>
#include <vector>

#include "common/json_out.h"
#include "engine/bench/bench_config.h"
#include "engine/bench/benchmarks.h"
#include "engine/bench/engine.h"
#include "engine/bench/report.h"

namespace filterlab::lsmbench {
namespace {

namespace fs = std::filesystem;

// Where the database lives and whether lsmbench made (and so may remove) it.
struct DbDir {
  std::string path;
  bool temporary = false;
};

// What --db must be for this run, checked without changing anything: a
// directory with --use_existing_db; otherwise absent, or an empty directory
// (lsmbench never deletes what it did not create).
Status CheckDbDir(const BenchConfig& config) {
  if (config.engine == "memtable" || config.db.empty()) return Status::OK();
  std::error_code ec;
  const std::string& path = config.db;
  if (config.use_existing_db) {
    if (!fs::is_directory(path, ec)) {
      return Status::InvalidArgument("lsmbench: --use_existing_db: --db=" + path + " is not a directory");
    }
    return Status::OK();
  }
  if (!fs::exists(path, ec)) return Status::OK();
  if (!fs::is_directory(path, ec)) {
    return Status::InvalidArgument("lsmbench: --db=" + path + " exists and is not a directory");
  }
  if (!fs::is_empty(path, ec)) {
    return Status::InvalidArgument("lsmbench: --db=" + path +
                                   " exists and is not empty; pass --use_existing_db to benchmark it as it is, "
                                   "or remove it first");
  }
  return Status::OK();
}

// Makes (or names) the database directory of a checked config.
Status PrepareDbDir(const BenchConfig& config, DbDir* dir) {
  if (config.engine == "memtable") return Status::OK();
  if (config.db.empty()) {
    const char* tmp = std::getenv("TMPDIR");
    std::string pattern = std::string(tmp != nullptr && *tmp != '\0' ? tmp : "/tmp") + "/lsmbench-XXXXXX";
    if (mkdtemp(pattern.data()) == nullptr) {
      return Status::IOError("lsmbench: cannot create a temporary database directory from " + pattern);
    }
    dir->path = pattern;
    dir->temporary = true;
    return Status::OK();
  }
  dir->path = config.db;
  std::error_code ec;
  if (config.use_existing_db || fs::exists(dir->path, ec)) return Status::OK();
  fs::create_directories(dir->path, ec);
  if (ec) return Status::IOError("lsmbench: cannot create --db=" + dir->path + ": " + ec.message());
  return Status::OK();
}

// Empties the database directory (lsmbench made it, or it was empty when
// lsmbench started) for a benchmark that starts from an empty database.
Status WipeDbDir(const DbDir& dir) {
  if (dir.path.empty()) return Status::OK();
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(dir.path, ec)) {
    fs::remove_all(entry.path(), ec);
    if (ec) return Status::IOError("lsmbench: cannot remove " + entry.path().string() + ": " + ec.message());
  }
  if (ec) return Status::IOError("lsmbench: cannot list " + dir.path + ": " + ec.message());
  return Status::OK();
}

void PrintHeader(const BenchConfig& c, const DbDir& dir) {
  std::fprintf(stderr, "lsmbench: engine %s%s%s\n", c.engine.c_str(), dir.path.empty() ? "" : ", db ",
               dir.path.c_str());
  std::fprintf(stderr, "Keys:       %lld bytes each\n", static_cast<long long>(c.key_size));
  std::fprintf(stderr, "Values:     %lld bytes each\n", static_cast<long long>(c.value_size));
  std::fprintf(stderr, "Entries:    %lld\n", static_cast<long long>(c.num));
  std::fprintf(stderr, "Reads:      %lld\n", static_cast<long long>(c.reads));
  std::fprintf(stderr, "Filter:     %s%s\n", engine::FilterLabel(c.filter.get()).c_str(),
               c.filter_per_level.empty() ? "" : " (per-level overrides given)");
  std::fprintf(stderr, "Memtable filter: %s", engine::FilterLabel(c.memtable_filter.get()).c_str());
  if (c.memtable_filter != nullptr) std::fprintf(stderr, " (ratio %g)", c.memtable_bloom_ratio);
  std::fprintf(stderr, "\n");
  std::fprintf(stderr, "Hash index: %s (util ratio %g)\n", c.hash_index ? "on" : "off", c.util_ratio);
  std::fprintf(stderr, "Cache:      %lld MiB, write buffer %g MiB\n", static_cast<long long>(c.cache_mb),
               c.write_buffer_mb);
  if (c.engine == "rocksdb") {
    std::fprintf(stderr,
                 "Note:       Debian's librocksdb 7.8.3 is built with assertions enabled: slower than a release "
                 "build (~1.3x on cached reads, ~2.3x on fills); its memtable estimate is the old algorithm\n");
  }
  std::fprintf(stderr, "------------------------------------------------\n");
}

// Every check a run makes before it starts: the flags (ParseBenchConfig),
// the engine and its options, the database directory. Exit status 2 on a
// problem; --help, --describe and --check stop here with 0.
int CheckCommandLine(int argc, char** argv, BenchConfig* config, bool* done) {
  *done = true;
  std::string help;
  Status s = ParseBenchConfig(argc, argv, config, &help);
  if (s.ok() && !help.empty()) {
    std::fputs(help.c_str(), stdout);
    return 0;
  }
  if (s.ok()) s = CheckEngineConfig(*config);
  if (s.ok()) s = CheckDbDir(*config);
  if (!s.ok()) {
    std::fprintf(stderr, "%s\n", s.message().c_str());
    return 2;
  }
  *done = config->check_only;
  return 0;
}

int Main(int argc, char** argv) {
  BenchConfig config;
  bool done = false;
  const int check_rc = CheckCommandLine(argc, argv, &config, &done);
  if (done) return check_rc;

  DbDir dir;
  Status s = PrepareDbDir(config, &dir);
  if (!s.ok()) {
    std::fprintf(stderr, "%s\n", s.message().c_str());
    return 2;
  }
  PrintHeader(config, dir);

  int rc = 0;
  {
    std::unique_ptr<Engine> engine;
    s = OpenEngine(config, dir.path, &engine);
    bool fresh = !config.use_existing_db;  // nothing written since the last open
    BenchRunner runner(config);
    // Benchmarks [begin, end) of the run under `c`, drawing keys from `r`;
    // `label` tells an allocation pass's lines apart.
    auto run_benchmarks = [&](const BenchConfig& c, BenchRunner& r, size_t begin, size_t end,
                              const std::string& label) {
      for (size_t i = begin; s.ok() && i < end; ++i) {
        const std::string& name = c.benchmarks[i];
        if (c.use_existing_db && IsFill(name)) {
          std::fprintf(stderr, "%-12s : skipped (--use_existing_db is true)\n", name.c_str());
          continue;
        }
        if (NeedsFreshDb(name) && !fresh) {
          engine.reset();
          s = WipeDbDir(dir);
          if (s.ok()) s = OpenEngine(c, dir.path, &engine);
          if (!s.ok()) break;
        }
        fresh = false;
        // multireadrandom runs once per (stride, batched) pair on the same
        // database, each pass a benchmark of its own (line, record, statistics).
        const bool multiread = name == "multireadrandom";
        const std::vector<MultiReadVariant> variants =
            multiread ? MultiReadVariants(c) : std::vector<MultiReadVariant>(1);
        for (size_t v = 0; s.ok() && v < variants.size(); ++v) {
          // Filter statistics are per benchmark; stats shows those of the one before it.
          if (name != "stats") engine->ResetStats();
          BenchResult result;
          s = multiread ? r.RunMultiRead(engine.get(), variants[v], &result) : r.Run(name, engine.get(), &result);
          if (!s.ok()) break;
          result.variant += label;
          if (name != "stats") std::fputs(FormatTextLine(result).c_str(), stderr);  // stats only prints its text
          if (!result.extra_text.empty()) std::fputs(result.extra_text.c_str(), stderr);
          EmitRecord(MakeRecord(c, engine.get(), result));
        }
      }
    };
    // With --filter_policy / --filter_budget_bpk lists, the benchmarks from
    // the first rewritefilters on run once per (budget, policy) pass, each on
    // the database reopened under its pair (a cold block cache, as after a
    // run's own rewritefilters, which writes every table anew) and reading
    // the same keys; the ones before run once, under the first pair.
    const std::vector<AllocationPass> passes = AllocationPasses(config);
    const size_t first_pass = passes.size() > 1 ? FirstAllocationPassBenchmark(config) : config.benchmarks.size();
    if (s.ok()) run_benchmarks(config, runner, 0, first_pass, "");
    for (size_t p = 0; s.ok() && first_pass < config.benchmarks.size() && p < passes.size(); ++p) {
      const BenchConfig pass_config = ConfigForPass(config, passes[p]);
      char label[96];
      std::snprintf(label, sizeof label, "[policy=%s budget=%g]", passes[p].policy.c_str(), passes[p].budget_bpk);
      engine.reset();
      s = OpenEngine(pass_config, dir.path, &engine);
      if (!s.ok()) break;
      BenchRunner pass_runner(pass_config, runner);
      run_benchmarks(pass_config, pass_runner, first_pass, config.benchmarks.size(), label);
    }
    if (!s.ok()) {
      std::fprintf(stderr, "%s\n", s.message().c_str());
      rc = s.IsInvalidArgument() || s.IsNotSupported() ? 2 : 1;
    }
  }  // the engine closes here, before its directory goes

  if (dir.temporary) {
    if (config.keep_db) {
      std::fprintf(stderr, "lsmbench: database kept in %s\n", dir.path.c_str());
    } else {
      std::error_code ec;
      fs::remove_all(dir.path, ec);
      if (ec) std::fprintf(stderr, "lsmbench: warning: cannot remove %s: %s\n", dir.path.c_str(), ec.message().c_str());
    }
  }
  return rc;
}

}  // namespace
}  // namespace filterlab::lsmbench

int main(int argc, char** argv) { return filterlab::lsmbench::Main(argc, argv); }
