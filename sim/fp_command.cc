// `filterlab-sim fp`: flags and the sweep over --filter specs.
#include <memory>
#include <vector>

#include "common/flags.h"
#include "sim/commands.h"
#include "sim/fp.h"
#include "sim/machine.h"

namespace filterlab::sim {
namespace {

void DeclareFpFields(FlagSet& flags) {
  flags.Field("command", "string", "\"fp\"");
  flags.Field("filter", "string", "canonical spec, every parameter resolved");
  flags.Field("filter_arg", "string", "the --filter text");
  flags.Field("layout", "string", "the built filter's Describe() (of the first filter)");
  flags.Field("hash_bits", "int", "hash width the filter consumes");
  flags.Field("keys", "int", "keys per filter (the average with vary_ratio > 0)");
  flags.Field("vary_ratio", "number", "keys per filter vary uniformly by +- this fraction");
  flags.Field("total_keys", "int", "keys over all filters");
  flags.Field("filters", "int", "filters built");
  flags.Field("queries", "int", "outside queries in total");
  flags.Field("hash_source", "string", "synthetic | keys");
  flags.Field("key_size", "int", "base key length (hash_source keys only)");
  flags.Field("seed", "int", "seed of every stream");
  flags.Field("threads", "int", "worker threads");
  flags.Field("batch", "int", "hashes per MayContainBatch call");
  flags.Field("positives", "int", "outside queries answered positive");
  flags.Field("fp", "number", "positives / queries");
  flags.Field("ci_low", "number", "95% Wilson interval, low end");
  flags.Field("ci_high", "number", "95% Wilson interval, high end");
  flags.Field("ci_method", "string", "\"wilson95\"");
  flags.Field("dispersion", "number",
              "filters >= 2 only: Pearson's chi^2 / (F - 1) of the per-filter counts against fp; ~1 when the "
              "filters' rates differ only by query sampling, above 1 by the spread of the built filters' own rates");
  flags.Field("model_fp", "number", "the policy's ModelFpRate(keys)");
  flags.Field("model_kind", "string",
              "what the model promises: exact | approximation | empirical | lower_bound | upper_bound");
  flags.Field("model_max_relative_error", "number",
              "an approximation's stated largest |measured / model - 1| (its registration); 0 for other kinds");
  flags.Field("model_allowed_low", "number", "lowest fp the model's kind allows at these queries (fp_tolerance.h)");
  flags.Field("model_allowed_high", "number", "highest fp the model's kind allows at these queries");
  flags.Field("bytes", "int", "filter data bytes of one filter");
  flags.Field("total_bytes", "int", "filter data bytes of all filters");
  flags.Field("bits_per_key", "number", "8 * total_bytes / total_keys");
  flags.Field("build_seconds", "number", "wall seconds building");
  flags.Field("query_seconds", "number", "wall seconds querying");
  flags.Field("seconds", "number", "wall seconds in all");
  flags.Field("queries_per_s", "number", "queries / query_seconds");
  flags.Field("query_cpu_seconds", "number", "CPU seconds of all threads querying");
  flags.Field("queries_per_cpu_s", "number", "queries / query_cpu_seconds");
  flags.Field("schedule", "string", "filter_per_thread | chunks_over_threads");
}

}  // namespace

Status FpCommand(int argc, char** argv, const Emit& emit, std::string* help) {
  FlagSet flags("fp",
                "Sample the false-positive rate: build --filters filters of --keys keys each, put --queries\n"
                "outside queries to them (batched, prefetching, all threads) and print one JSON line per\n"
                "--filter: positives, fp, a 95% Wilson interval (ci_low, ci_high; ci_method=wilson95),\n"
                "the policy's model_fp, bytes, actual bits_per_key and queries_per_s. Counts depend only on\n"
                "the seed and parameters, not on --threads. Memory: 8 bytes per key while a filter is built,\n"
                "plus the filter (about 9.3 GiB for 10^9 keys at 10 bits/key); runs that do not fit in\n"
                "MemAvailable are refused.");
  std::vector<std::string> specs;
  double vary = 0;
  long long keys = 0, filters = 0, queries = 0, key_size = 0, threads = 0, seed = 0, batch = 0;
  std::string hash_source;
  flags.List("filter", "filter spec, e.g. fastlocal:bpk=10 (see filterlab-tool list-filters); repeat for a sweep",
             &specs);
  flags.Int("keys", 1000000, 1, 1000000000000LL, "keys per filter", &keys);
  flags.Int("filters", 1, 1, 1000000000LL, "number of filters (queries are spread evenly over them)", &filters);
  flags.Int("queries", 10000000, 1, 1000000000000000LL, "total outside queries", &queries);
  flags.Double("vary_ratio", 0, 0, 0.9,
               "keys per filter vary uniformly over keys * (1 +- this), as filter_bench's -vary_key_count_ratio 0.4",
               &vary);
  flags.Choice("hash_source", "synthetic", {"synthetic", "keys"},
               "synthetic: seeded uniform 64-bit hashes; keys: filter_bench keys hashed by the policy's HashKey",
               &hash_source);
  flags.Int("key_size", 24, 16, 48, "base key length for --hash_source keys (lengths spread over +0..+4)", &key_size);
  flags.Int("threads", 0, 0, 1024, "worker threads; 0 = all cores", &threads);
  flags.Int("seed", 0, 0, (1LL << 62), "seed of every generated stream", &seed);
  flags.Int("batch", 1024, 1, 2048, "hashes per MayContainBatch call (a speed knob: counts do not depend on it)",
            &batch);
  DeclareFpFields(flags);
  Status s = flags.Parse(argc, argv);
  if (!s.ok()) return s;
  if (flags.Answered(help)) return Status::OK();
  if (specs.empty())
    return Status::InvalidArgument("fp: give at least one --filter SPEC (e.g. --filter fastlocal:bpk=10)");
  if (static_cast<double>(keys) * static_cast<double>(filters) > 1e13) {
    return Status::InvalidArgument("fp: --keys " + std::to_string(keys) + " x --filters " + std::to_string(filters) +
                                   " exceeds 10^13 keys in total");
  }
  std::vector<FpConfig> runs;
  for (const auto& spec : specs) {
    FpConfig cfg;
    cfg.filter_spec = spec;
    cfg.keys = static_cast<uint64_t>(keys);
    cfg.filters = static_cast<uint64_t>(filters);
    cfg.vary_ratio = vary;
    cfg.queries = static_cast<uint64_t>(queries);
    cfg.hash_source = hash_source;
    cfg.key_size = static_cast<int>(key_size);
    cfg.threads = threads == 0 ? NumCores() : static_cast<int>(threads);
    cfg.seed = static_cast<uint64_t>(seed);
    cfg.batch = static_cast<int>(batch);
    std::unique_ptr<FilterPolicy> policy;
    if (!(s = PrepareFp(cfg, &policy)).ok()) return s;
    runs.push_back(cfg);
  }
  if (flags.check_only()) return Status::OK();
  for (const FpConfig& cfg : runs) {
    FpResult r;
    if (!(s = RunFp(cfg, &r)).ok()) return s;
    emit(FpRecord(cfg, r));
  }
  return Status::OK();
}

}  // namespace filterlab::sim
