// `filterlab-sim filter_bench`: RocksDB's own filter_bench run with `sim
// speed`'s parameters, its figures as records shaped like speed's (mode
// build: ns_per_key; single and random: net_ns_per_op), so an experiment can
// put both harnesses side by side (filter_bench_peer.h says how the
// parameters map).
#include <unistd.h>

#include <cstdlib>
#include <memory>

#include "common/flags.h"
#include "filters/filter.h"
#include "sim/commands.h"
#include "sim/filter_bench_peer.h"
#include "sim/machine.h"

namespace filterlab::sim {
namespace {

struct PeerArgs {
  std::vector<std::string> specs;
  std::string binary;
  long long ws_mb = 0, avg_keys = 0, key_size = 0, queries = 0, seed = 0;
  double vary = 0;
  bool net_hashing = false;
};

constexpr const char* kBinaryEnv = "FILTERLAB_FILTER_BENCH";

void DeclarePeerFlags(FlagSet& flags, PeerArgs* a) {
  flags.List("filter", "filter spec (repeatable): fastlocal:bpk=B, legacy:bpk=B, ribbon:bpk=B or legacy_block:bpk=B",
             &a->specs);
  flags.String("filter_bench", "",
               "path of a release build of RocksDB's util/filter_bench; empty = $FILTERLAB_FILTER_BENCH", &a->binary);
  flags.Int("working_set_mb", 200, 1, 1 << 20, "working-set size in MiB (-working_mem_size_mb)", &a->ws_mb);
  flags.Int("average_keys", 10000, 10, 100000000, "average keys per filter (-average_keys_per_filter)", &a->avg_keys);
  flags.Double("vary_ratio", 0.4, 0, 0.9, "keys per filter vary by +- this fraction (-vary_key_count_ratio)", &a->vary);
  flags.Int("key_size", 24, 16, 48, "base key length (-key_size)", &a->key_size);
  flags.Int("queries", 10000000, 1000, 10000000000LL, "queries per mode (-m_queries = 7 x this / 10^6 with -quick)",
            &a->queries);
  flags.Bool("net_includes_hashing", "the dry run does not hash, so net ns/op includes hashing", &a->net_hashing);
  flags.Int("seed", 0, 0, 0xffffffffLL, "seed of filter_bench's mt19937 generator (-seed)", &a->seed);
  flags.Field("command", "string", "\"filter_bench\"");
  flags.Field("filter", "string", "canonical spec, every parameter resolved");
  flags.Field("filter_arg", "string", "the --filter text");
  flags.Field("mode", "string", "build | single | random (filter_bench's Build, Single filter, Random filter)");
  flags.Field("peer", "string", "the filter_bench binary run");
  flags.Field("peer_version", "string", "the RocksDB release it was built from (its rocksdb_build_git_tag)");
  flags.Field("peer_args", "string", "filter_bench's arguments");
  flags.Field("working_set_bytes", "int", "serialized bytes of the filters (filter_bench's Total size)");
  flags.Field("filters", "int", "filters in the working set");
  flags.Field("bits_per_key", "number", "filter_bench's Bits/key stored");
  flags.Field("key_size", "int", "base key length");
  flags.Field("seed", "int", "seed");
  flags.Field("queries", "int", "single and random: queries measured");
  flags.Field("mix", "string", "single and random: mixed (half the keys added)");
  flags.Field("net_includes_hashing", "bool", "whether net includes hashing the key");
  flags.Field("ns_per_key", "number", "build: key making + hashing + building, ns per key");
  flags.Field("net_ns_per_op", "number", "single and random: (gross - dry) per query");
  flags.Field("fp", "number?", "random: filter_bench's average FP rate among outside queries");
}

}  // namespace

Status FilterBenchCommand(int argc, char** argv, const Emit& emit, std::string* help) {
  FlagSet flags("filter_bench",
                "RocksDB's own filter benchmark (util/filter_bench.cc, a release build given by --filter_bench\n"
                "or $FILTERLAB_FILTER_BENCH) run -quick with speed's parameters: build ns/key and net ns/op of\n"
                "single-filter and random-filter queries (mixed keys), as records shaped like speed's, for the\n"
                "filters RocksDB has (fastlocal -impl=1, legacy -impl=0, ribbon -impl=2, legacy_block through\n"
                "-use_plain_table_bloom -impl=0). filterlab does not build filter_bench.");
  PeerArgs args;
  DeclarePeerFlags(flags, &args);
  Status s = flags.Parse(argc, argv);
  if (!s.ok()) return s;
  if (flags.Answered(help)) return Status::OK();
  if (args.specs.empty()) {
    return Status::InvalidArgument("filter_bench: give at least one --filter SPEC (e.g. --filter legacy:bpk=10)");
  }
  std::string binary = args.binary;
  if (binary.empty()) {
    const char* env = std::getenv(kBinaryEnv);
    binary = env != nullptr ? env : "";
  }
  if (binary.empty()) {
    return Status::InvalidArgument(std::string("filter_bench: no binary: give --filter_bench PATH or set ") +
                                   kBinaryEnv + " to a release build of RocksDB's util/filter_bench");
  }
  if (::access(binary.c_str(), X_OK) != 0) {
    return Status::InvalidArgument("--filter_bench=" + binary + ": not an executable file");
  }
  FilterBenchConfig cfg;
  cfg.working_set_mb = static_cast<uint64_t>(args.ws_mb);
  cfg.average_keys = static_cast<uint64_t>(args.avg_keys);
  cfg.vary_ratio = args.vary;
  cfg.key_size = static_cast<int>(args.key_size);
  cfg.queries = static_cast<uint64_t>(args.queries);
  cfg.net_includes_hashing = args.net_hashing;
  cfg.seed = static_cast<uint32_t>(args.seed);
  std::vector<std::unique_ptr<FilterPolicy>> policies;
  std::vector<std::vector<std::string>> argvs;
  for (const std::string& spec : args.specs) {
    std::unique_ptr<FilterPolicy> policy;
    if (!(s = NewFilterPolicy(spec, &policy)).ok()) return Status::InvalidArgument("--filter: " + s.message());
    std::vector<std::string> peer_args;
    if (!(s = FilterBenchArgs(*policy, cfg, &peer_args)).ok()) return s;
    policies.push_back(std::move(policy));
    argvs.push_back(std::move(peer_args));
  }
  // filter_bench holds the filters, their builder's hashes and its readers.
  if (!(s = CheckMemory((cfg.working_set_mb << 20) * 3, "--working_set_mb " + std::to_string(cfg.working_set_mb)))
           .ok()) {
    return s;
  }
  if (flags.check_only()) return Status::OK();
  const std::string version = FilterBenchVersion(binary);
  for (size_t i = 0; i < policies.size(); ++i) {
    std::vector<std::string> command = {binary};
    command.insert(command.end(), argvs[i].begin(), argvs[i].end());
    std::string text;
    if (!(s = RunCapturingStdout(command, &text)).ok()) return s;
    FilterBenchOutput out;
    if (!(s = ParseFilterBenchOutput(text, &out)).ok()) return s;
    std::string joined;
    for (const std::string& a : argvs[i]) joined += (joined.empty() ? "" : " ") + a;
    JsonRecord base;
    base["command"] = "filter_bench";
    base["filter"] = policies[i]->spec();
    base["filter_arg"] = args.specs[i];
    base["peer"] = binary;
    base["peer_version"] = version;
    base["peer_args"] = joined;
    base["working_set_bytes"] = static_cast<uint64_t>(out.total_mb * 1048576.0 + 0.5);
    base["filters"] = out.filters;
    base["bits_per_key"] = out.bits_per_key;
    base["key_size"] = cfg.key_size;
    base["seed"] = cfg.seed;
    JsonRecord build = base;
    build["mode"] = "build";
    build["ns_per_key"] = out.build_ns_per_key;
    emit(build);
    for (const char* mode : {"single", "random"}) {
      JsonRecord r = base;
      r["mode"] = mode;
      r["mix"] = "mixed";
      r["queries"] = cfg.queries;
      r["net_includes_hashing"] = cfg.net_includes_hashing;
      r["net_ns_per_op"] = std::string(mode) == "single" ? out.single_net_ns_per_op : out.random_net_ns_per_op;
      if (std::string(mode) == "random") {
        if (out.fp >= 0) {
          r["fp"] = out.fp;
        } else {
          r["fp"] = nullptr;
        }
      }
      emit(r);
    }
  }
  return Status::OK();
}

}  // namespace filterlab::sim
