#include "tools/filter_table.h"

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "filters/filter.h"
#include "filters/filter_spec.h"
#include "filters/registry.h"
#include "hashing/remix.h"
#include "common/stats.h"

namespace filterlab {
namespace {

// Fixed seeds: the FP counts are the same on every run; only times vary.
constexpr uint64_t kAddedSeed = 0x5eed0001;
constexpr uint64_t kOutsideSeed = 0x5eed0002;
// Outside hashes are generated and queried in chunks of this many, so memory
// stays small however many queries are asked for.
constexpr size_t kChunk = size_t{1} << 16;
// Single-query timing uses at most this many of the outside queries: enough
// for a stable ns/op, and keeps the table quick.
constexpr uint64_t kMaxSingleQueries = 2'000'000;
// Builds are repeated and the fastest kept, to damp noise from the other core.
constexpr int kBuildRepeats = 3;

struct TableOptions {
  double bits_per_key = 10;
  bool bpk_given = false;
  uint64_t keys = 1'000'000;
  uint64_t queries = 10'000'000;
  size_t batch = 64;
  std::vector<std::string> specs;  // empty: every registered example
};

struct Row {
  std::string spec;
  double bits_per_key = 0;
  double bytes_per_key = 0;
  uint64_t positives = 0;
  double fp = 0;
  Interval ci{0, 1};
  double model_fp = 0;
  double build_ns_per_key = 0;
  double single_ns = 0;
  double batch_ns = 0;
};

using Clock = std::chrono::steady_clock;

double SecondsSince(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

int TableUsage(FILE* f) {
  std::fprintf(f,
               "usage: filterlab-tool table [--bpk B] [--keys N] [--queries Q] [--batch S] [--filter SPEC]...\n"
               "  One row per example spec of every registered variant (or per --filter SPEC):\n"
               "  FP rate over Q outside queries with its 95%% Wilson interval, the model FP rate,\n"
               "  actual bits and bytes per key, build ns/key and query ns/op (single, batched),\n"
               "  for a filter of N synthetic (SplitMix64) hashes. Single-threaded.\n"
               "  --bpk B        bits per key of every spec (default: the examples' 10)\n"
               "  --keys N       keys per filter, 1..1000000000 (default 1000000)\n"
               "  --queries Q    outside queries, 1..100000000000 (default 10000000)\n"
               "  --batch S      hashes per MayContainBatch call, 1..65536 (default 64)\n"
               "  --filter SPEC  a spec to measure instead of the examples (repeatable)\n");
  return f == stdout ? 0 : 2;
}

bool ParseCount(const char* text, uint64_t min, uint64_t max, uint64_t* out) {
  const char* end = text + std::strlen(text);
  // Accept plain integers and the 1e6 shorthand when it is a whole number.
  uint64_t v = 0;
  auto [ptr, ec] = std::from_chars(text, end, v);
  if (ec != std::errc() || ptr != end) {
    double d = 0;
    auto [dptr, dec] = std::from_chars(text, end, d);
    if (dec != std::errc() || dptr != end || !(d >= 0) || d > 1e18 || d != std::floor(d)) return false;
    v = static_cast<uint64_t>(d);
  }
  if (v < min || v > max) return false;
  *out = v;
  return true;
}

// Parses the options; on error prints what is wrong and returns false.
bool ParseOptions(int argc, char** argv, TableOptions* opt) {
  for (int i = 0; i < argc; ++i) {
    const std::string flag = argv[i];
    if (i + 1 >= argc) {
      std::fprintf(stderr, "table: unknown option or missing value: '%s'\n", flag.c_str());
      return false;
    }
    const char* value = argv[++i];
    uint64_t n = 0;
    if (flag == "--bpk") {
      char* end = nullptr;
      const double b = std::strtod(value, &end);
      if (end == value || *end != '\0' || !std::isfinite(b) || b <= 0) {
        std::fprintf(stderr, "table: --bpk %s is not allowed; give a positive number (the variant checks its range)\n",
                     value);
        return false;
      }
      opt->bits_per_key = b;
      opt->bpk_given = true;
    } else if (flag == "--keys") {
      if (!ParseCount(value, 1, 1'000'000'000, &n)) {
        std::fprintf(stderr, "table: --keys %s is not allowed; give an integer in [1, 1000000000]\n", value);
        return false;
      }
      opt->keys = n;
    } else if (flag == "--queries") {
      if (!ParseCount(value, 1, 100'000'000'000, &n)) {
        std::fprintf(stderr, "table: --queries %s is not allowed; give an integer in [1, 100000000000]\n", value);
        return false;
      }
      opt->queries = n;
    } else if (flag == "--batch") {
      if (!ParseCount(value, 1, 65536, &n)) {
        std::fprintf(stderr, "table: --batch %s is not allowed; give an integer in [1, 65536]\n", value);
        return false;
      }
      opt->batch = static_cast<size_t>(n);
    } else if (flag == "--filter") {
      opt->specs.push_back(value);
    } else {
      std::fprintf(stderr, "table: unknown option '%s' (allowed: --bpk, --keys, --queries, --batch, --filter)\n",
                   flag.c_str());
      return false;
    }
  }
  return true;
}

// The spec to measure: `example` with bpk replaced when --bpk was given.
Status ResolveSpec(const std::string& example, const TableOptions& opt, std::string* out) {
  if (!opt.bpk_given) {
    *out = example;
    return Status::OK();
  }
  FilterSpec spec;
  Status s = FilterSpec::Parse(example, &spec);
  if (s.ok()) *out = spec.WithParam("bpk", FormatNumber(opt.bits_per_key));
  return s;
}

Status MeasureOne(const std::string& spec_text, const TableOptions& opt, Row* row) {
  std::unique_ptr<FilterPolicy> policy;
  Status s = NewFilterPolicy(spec_text, &policy);
  if (!s.ok()) return s;
  row->spec = policy->spec();

  std::vector<uint64_t> added(opt.keys);
  SplitMix64 added_stream(kAddedSeed);
  for (auto& h : added) h = added_stream.Next();

  std::unique_ptr<Filter> filter;
  double best_build = INFINITY;
  for (int r = 0; r < kBuildRepeats; ++r) {
    filter.reset();
    const auto start = Clock::now();
    s = policy->Build(added.data(), added.size(), &filter);
    best_build = std::min(best_build, SecondsSince(start));
    if (!s.ok()) return s;
  }
  const double keys = static_cast<double>(opt.keys);
  row->build_ns_per_key = best_build * 1e9 / keys;
  row->bytes_per_key = static_cast<double>(filter->DataBytes()) / keys;
  row->bits_per_key = 8 * row->bytes_per_key;
  row->model_fp = policy->ModelFpRate(opt.keys);

  // Every added hash must answer yes; a filter that fails this is broken and
  // its other numbers would mislead.
  auto answers = std::make_unique<bool[]>(std::max(opt.batch, kChunk));
  bool* results = answers.get();
  for (size_t i = 0; i < added.size(); i += kChunk) {
    const size_t n = std::min(kChunk, added.size() - i);
    filter->MayContainBatch(added.data() + i, n, results);
    for (size_t j = 0; j < n; ++j) {
      if (!results[j]) {
        return Status::Corruption("false negative: added hash #" + std::to_string(i + j) + " answered no");
      }
    }
  }
  added.clear();
  added.shrink_to_fit();

  // Batched pass over every outside query: the FP count and batched ns/op.
  std::vector<uint64_t> chunk(kChunk);
  SplitMix64 outside(kOutsideSeed);
  uint64_t positives = 0;
  double batch_seconds = 0;
  for (uint64_t done = 0; done < opt.queries;) {
    const size_t n = static_cast<size_t>(std::min<uint64_t>(kChunk, opt.queries - done));
    for (size_t j = 0; j < n; ++j) chunk[j] = outside.Next();
    const auto start = Clock::now();
    for (size_t j = 0; j < n; j += opt.batch) {
      const size_t m = std::min(opt.batch, n - j);
      filter->MayContainBatch(chunk.data() + j, m, results + j);
    }
    batch_seconds += SecondsSince(start);
    for (size_t j = 0; j < n; ++j) positives += results[j];
    done += n;
  }
  row->positives = positives;
  row->fp = static_cast<double>(positives) / static_cast<double>(opt.queries);
  row->ci = WilsonInterval(positives, opt.queries);
  row->batch_ns = batch_seconds * 1e9 / static_cast<double>(opt.queries);

  // Single-query pass over a prefix of the same outside stream.
  SplitMix64 again(kOutsideSeed);
  const uint64_t singles = std::min(opt.queries, kMaxSingleQueries);
  uint64_t single_positives = 0;
  double single_seconds = 0;
  for (uint64_t done = 0; done < singles;) {
    const size_t n = static_cast<size_t>(std::min<uint64_t>(kChunk, singles - done));
    for (size_t j = 0; j < n; ++j) chunk[j] = again.Next();
    const auto start = Clock::now();
    for (size_t j = 0; j < n; ++j) single_positives += filter->MayContain(chunk[j]);
    single_seconds += SecondsSince(start);
    done += n;
  }
  row->single_ns = single_seconds * 1e9 / static_cast<double>(singles);
  // single_positives keeps the loop from being optimised away; it must also
  // agree with the batched answers over the same prefix, which is cheap to
  // check only when the two passes covered the same queries.
  if (singles == opt.queries && single_positives != positives) {
    return Status::Corruption("MayContain and MayContainBatch disagree: " + std::to_string(single_positives) +
                              " vs " + std::to_string(positives) + " positives");
  }
  return Status::OK();
}

std::string Percent(double p) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.4f", 100 * p);
  return buf;
}

}  // namespace

int RunFilterTable(int argc, char** argv) {
  for (int i = 0; i < argc; ++i) {
    if (std::strcmp(argv[i], "--help") == 0 || std::strcmp(argv[i], "-h") == 0) return TableUsage(stdout);
  }
  TableOptions opt;
  if (!ParseOptions(argc, argv, &opt)) return TableUsage(stderr);
  std::vector<std::string> examples = opt.specs.empty() ? AllExampleSpecs() : opt.specs;
  if (examples.empty()) {
    std::fprintf(stderr, "table: no filter variants are registered in this build\n");
    return 1;
  }

  std::printf("%llu keys per filter (SplitMix64 hashes), %llu outside queries, batch %zu, single-threaded\n",
              static_cast<unsigned long long>(opt.keys), static_cast<unsigned long long>(opt.queries), opt.batch);
  std::printf("FP and model in %%; CI = 95%% Wilson interval; ns are wall time per key or query\n\n");
  // The first column is as wide as the longest canonical spec.
  int width = 6;
  for (const auto& example : examples) {
    std::string spec;
    std::unique_ptr<FilterPolicy> policy;
    const bool ok = ResolveSpec(example, opt, &spec).ok() && NewFilterPolicy(spec, &policy).ok();
    width = std::max(width, static_cast<int>((ok ? policy->spec() : example).size()));
  }
  std::printf("%-*s %8s %9s %8s %19s %8s %9s %8s %8s\n", width, "filter", "bits/key", "bytes/key", "FP %",
              "95% CI %", "model %", "build ns", "query ns", "batch ns");
  int failures = 0;
  for (const auto& example : examples) {
    std::string spec;
    Row row;
    Status s = ResolveSpec(example, opt, &spec);
    if (s.ok()) s = MeasureOne(spec, opt, &row);
    if (!s.ok()) {
      std::printf("%-*s ERROR %s\n", width, example.c_str(), s.ToString().c_str());
      ++failures;
      continue;
    }
    std::string ci = "[";  // appends: GCC 12 warns falsely (-Wrestrict) on "literal" + string
    ci += Percent(row.ci.low);
    ci += ", ";
    ci += Percent(row.ci.high);
    ci += "]";
    std::printf("%-*s %8.3f %9.4f %8s %19s %8s %9.1f %8.1f %8.1f\n", width, row.spec.c_str(), row.bits_per_key,
                row.bytes_per_key, Percent(row.fp).c_str(), ci.c_str(), Percent(row.model_fp).c_str(),
                row.build_ns_per_key, row.single_ns, row.batch_ns);
    std::fflush(stdout);
  }
  return failures == 0 ? 0 : 1;
}

}  // namespace filterlab
