// `filterlab-sim rangeworkload`: writes the key set and the query sets that
// rangefp and rangespeed generate (same generators, same seeds) as files in
// SOSD's binary format (a little-endian uint64 count, then the values), so
// other tools run the same workload: Grafite's benchmark harness reads keys
// from one such file and a query set from two (left ends, right ends), or
// three with the expected answers (a 32-bit count, then one 32-bit 0/1 per
// query: the harness's format for queries that are not all empty, used for
// the non-empty queries rangespeed times). One JSON line per file written.
#include <bit>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "common/flags.h"
#include "filters/range/range_workload.h"
#include "sim/commands.h"
#include "sim/machine.h"
#include "sim/range_sim.h"

namespace filterlab::sim {
namespace {

Status WriteSosd(const std::string& path, const std::vector<uint64_t>& values) {
  std::unique_ptr<FILE, int (*)(FILE*)> f(std::fopen(path.c_str(), "wb"), &std::fclose);
  if (!f) return Status::IOError("cannot create " + path);
  std::vector<unsigned char> buf(8 * (values.size() + 1));
  auto put = [&](size_t i, uint64_t v) {
    for (int b = 0; b < 8; ++b) buf[8 * i + b] = static_cast<unsigned char>(v >> (8 * b));
  };
  put(0, values.size());
  for (size_t i = 0; i < values.size(); ++i) put(i + 1, values[i]);
  if (std::fwrite(buf.data(), 1, buf.size(), f.get()) != buf.size()) return Status::IOError("short write to " + path);
  return Status::OK();
}

// The harness's answers file: a little-endian int32 count, then one int32
// per query (1: the range holds a key).
Status WriteAnswers(const std::string& path, size_t n, int32_t answer) {
  std::unique_ptr<FILE, int (*)(FILE*)> f(std::fopen(path.c_str(), "wb"), &std::fclose);
  if (!f) return Status::IOError("cannot create " + path);
  std::vector<unsigned char> buf(4 * (n + 1));
  auto put = [&](size_t i, uint32_t v) {
    for (int b = 0; b < 4; ++b) buf[4 * i + b] = static_cast<unsigned char>(v >> (8 * b));
  };
  put(0, static_cast<uint32_t>(n));
  for (size_t i = 0; i < n; ++i) put(i + 1, static_cast<uint32_t>(answer));
  if (std::fwrite(buf.data(), 1, buf.size(), f.get()) != buf.size()) return Status::IOError("short write to " + path);
  return Status::OK();
}

}  // namespace

Status RangeWorkloadCommand(int argc, char** argv, const Emit& emit, std::string* help) {
  FlagSet flags("rangeworkload",
                "Write the keys (DIR/keys.bin) and, per range length 2^i and correlation, the empty queries\n"
                "(DIR/left_<i>_<corr>.bin, DIR/right_<i>_<corr>.bin) that rangefp and rangespeed generate from\n"
                "the same flags and seed, in SOSD's binary format (uint64 count, then uint64 values,\n"
                "little-endian): the inputs of Grafite's benchmark harness (bench_* -k keys.bin -w left right).\n"
                "<corr> is 'none' or the degree. With --nonempty also rangespeed's non-empty queries per length\n"
                "(DIR/left_<i>_nonempty.bin, DIR/right_<i>_nonempty.bin and DIR/answers_<i>_nonempty.bin, an\n"
                "int32 count then int32 1s: the harness's third file). One JSON line per file.");
  long long keys = 0, queries = 0, seed = 0;
  std::string key_dist, range_text, corr_text, dir;
  bool nonempty = false;
  flags.Int("keys", 1000000, 1, 4000000000LL, "distinct keys", &keys);
  flags.String("key_dist", "uniform", "uniform | normal | clustered | sosd:PATH | text:PATH", &key_dist);
  flags.String("range_log2", "5,10", "range lengths as powers of two (0..40)", &range_text);
  flags.String("correlations", "none", "none and/or degrees d in [0, 1]", &corr_text);
  flags.Int("queries", 1000000, 1, 1000000000LL, "empty queries per (length, correlation)", &queries);
  flags.Int("seed", 0, 0, (1LL << 62), "seed of keys and queries (as rangefp's)", &seed);
  flags.String("dir", "", "existing directory to write into", &dir);
  flags.Bool("nonempty", "also write rangespeed's non-empty queries per length (with an answers file)", &nonempty);
  flags.Field("command", "string", "\"rangeworkload\"");
  flags.Field("file", "string", "path written");
  flags.Field("what", "string", "keys | left | right | answers");
  flags.Field("values", "int", "values in the file");
  flags.Field("key_dist", "string", "the --key_dist");
  flags.Field("seed", "int", "the --seed");
  flags.Field("range_length", "int?", "query range length; null for keys");
  flags.Field("correlation", "number?", "query correlation degree; null for keys, uncorrelated and non-empty queries");
  flags.Field("query_kind", "string?", "empty | nonempty; null for keys");
  Status s = flags.Parse(argc, argv);
  if (!s.ok()) return s;
  if (flags.Answered(help)) return Status::OK();
  if (dir.empty()) return Status::InvalidArgument("rangeworkload: give --dir DIR (an existing directory)");
  std::vector<uint64_t> lengths;
  std::vector<double> correlations;
  if (!(s = ParseRangeLengths(range_text, &lengths)).ok()) return s;
  if (!(s = ParseCorrelations(corr_text, &correlations)).ok()) return s;
  if (!(s = CheckMemory(static_cast<uint64_t>(keys) * 16 + static_cast<uint64_t>(queries) * 32,
                        "rangeworkload --keys " + std::to_string(keys)))
           .ok()) {
    return s;
  }
  if (flags.check_only()) return Status::OK();
  std::vector<uint64_t> key_set;
  if (!(s = workload::MakeKeys(key_dist, static_cast<uint64_t>(keys), static_cast<uint64_t>(seed), &key_set)).ok()) {
    return Status::InvalidArgument("--key_dist: " + s.message());
  }
  auto record = [&](const std::string& file, const char* what, size_t n, JsonRecord length, JsonRecord corr,
                    JsonRecord kind) {
    JsonRecord j;
    j["command"] = "rangeworkload";
    j["file"] = file;
    j["what"] = what;
    j["values"] = static_cast<uint64_t>(n);
    j["key_dist"] = key_dist;
    j["seed"] = seed;
    j["range_length"] = std::move(length);
    j["correlation"] = std::move(corr);
    j["query_kind"] = std::move(kind);
    emit(j);
  };
  const std::string keys_path = dir + "/keys.bin";
  if (!(s = WriteSosd(keys_path, key_set)).ok()) return s;
  record(keys_path, "keys", key_set.size(), nullptr, nullptr, nullptr);
  std::vector<workload::RangeQuery> qs;
  for (uint64_t length : lengths) {
    for (double corr : correlations) {
      // The seeds rangefp uses for this query set.
      s = workload::EmptyRangeQueries(key_set, length, corr, static_cast<uint64_t>(queries),
                                      static_cast<uint64_t>(seed) + length, &qs);
      if (!s.ok()) return s;
      std::vector<uint64_t> left, right;
      for (const auto& q : qs) left.push_back(q.lo), right.push_back(q.hi);
      char tag[64];
      std::snprintf(tag, sizeof tag, "%d_%s", std::countr_zero(length),
                    corr < 0 ? "none" : std::to_string(corr).substr(0, 4).c_str());
      for (const auto& [what, values] : {std::pair<const char*, const std::vector<uint64_t>*>{"left", &left},
                                         std::pair<const char*, const std::vector<uint64_t>*>{"right", &right}}) {
        const std::string path = dir + "/" + what + "_" + tag + ".bin";
        if (!(s = WriteSosd(path, *values)).ok()) return s;
        record(path, what, values->size(), length, corr < 0 ? JsonRecord(nullptr) : JsonRecord(corr), "empty");
      }
    }
    if (!nonempty) continue;
    // The seed rangespeed's hot mode uses for this length's non-empty set.
    s = workload::NonEmptyRangeQueries(key_set, length, static_cast<uint64_t>(queries),
                                       static_cast<uint64_t>(seed) + length, &qs);
    if (!s.ok()) return s;
    std::vector<uint64_t> left, right;
    for (const auto& q : qs) left.push_back(q.lo), right.push_back(q.hi);
    const std::string tag = std::to_string(std::countr_zero(length)) + "_nonempty";
    for (const auto& [what, values] : {std::pair<const char*, const std::vector<uint64_t>*>{"left", &left},
                                       std::pair<const char*, const std::vector<uint64_t>*>{"right", &right}}) {
      const std::string path = dir + "/" + what + "_" + tag + ".bin";
      if (!(s = WriteSosd(path, *values)).ok()) return s;
      record(path, what, values->size(), length, nullptr, "nonempty");
    }
    const std::string path = dir + "/answers_" + tag + ".bin";
    if (!(s = WriteAnswers(path, qs.size(), 1)).ok()) return s;
    record(path, "answers", qs.size(), length, nullptr, "nonempty");
  }
  return Status::OK();
}

}  // namespace filterlab::sim
