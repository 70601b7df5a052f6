// RocksDB's own filter benchmark (util/filter_bench.cc) as a peer of `sim
// speed`: which filter_bench arguments measure the filter a spec names, what
// its output says, and which RocksDB release a filter_bench binary was built
// from. filterlab never builds or ships filter_bench; `filterlab-sim
// filter_bench` (filter_bench_command.cc) runs a release build the user
// points it at, so the two harnesses can be run side by side in one
// experiment with the same parameters.
//
// How the parameters map. Both build filters of average_keys +- vary_ratio
// keys (filter_bench: -average_keys_per_filter, -vary_key_count_ratio) from
// the same 24..28-byte keys (-key_size) until the serialized filters reach
// the working set (-working_mem_size_mb, MiB), at -bits_per_key; both time
// the build as key making + hashing + building ("Build avg ns/key"), and
// queries as gross minus a dry run that also hashes (unless
// -net_includes_hashing), per mode: "Single filter" = sim speed's single,
// "Random filter" = random (one query at a time, a uniformly random filter
// each), both with mixed (50% added) keys under -quick, which makes exactly
// these two modes and divides -m_queries by 7 (so -m_queries = 7 queries /
// 10^6 asks `queries` of each). The filters RocksDB has:
//   fastlocal:bpk=B   -impl=1 (format_version 5 Bloom)
//   legacy:bpk=B      -impl=0 (the legacy full filter)
//   ribbon:bpk=B      -impl=2 (Standard128Ribbon, Bloom-equivalent bits/key)
//   legacy_block:bpk=B with RocksDB's 6 probes: -use_plain_table_bloom
//                     -impl=0 (PlainTableBloomV1 without locality runs the
//                     same LegacyNoLocalityBloomImpl probes over one array;
//                     RocksDB 7 removed the block-based filter itself)
// each only with its default parameters (RocksDB's probe count, 64-bit
// hash for fastlocal, no homogeneous Ribbon), which the spec must resolve to.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/status.h"
#include "filters/filter.h"

namespace filterlab::sim {

// What filter_bench is asked, besides the filter: sim speed's parameters.
struct FilterBenchConfig {
  uint64_t working_set_mb = 200;
  uint64_t average_keys = 10000;
  double vary_ratio = 0.4;
  int key_size = 24;
  uint64_t queries = 10000000;  // per mode
  bool net_includes_hashing = false;
  uint32_t seed = 0;
};

// filter_bench's arguments (without the program) for `policy`, or
// InvalidArgument naming the spec and what filter_bench can measure.
Status FilterBenchArgs(const FilterPolicy& policy, const FilterBenchConfig& config, std::vector<std::string>* args);

// What one filter_bench -quick run printed.
struct FilterBenchOutput {
  double build_ns_per_key = 0;
  uint64_t filters = 0;
  double total_mb = 0;  // "Total size (MB)": the serialized filters, MiB
  double bits_per_key = 0;
  double single_net_ns_per_op = 0;
  double random_net_ns_per_op = 0;
  double fp = -1;  // "Average FP rate %" / 100, of the last (random) mode; -1 if not printed
};

// Reads filter_bench's stdout. Corruption naming the line that is missing;
// FailedPrecondition-like InvalidArgument when filter_bench says it is not a
// release build ("WARNING: Assertions are enabled", "Optimization is
// disabled"): its times would not be RocksDB's.
Status ParseFilterBenchOutput(const std::string& text, FilterBenchOutput* out);

// The RocksDB release a filter_bench binary was built from: the value of
// the "rocksdb_build_git_tag:" string RocksDB compiles into every binary
// (util/build_version.cc), with the "rocksdb_build_git_sha:" value after
// it, e.g. "v11.8.1 (abeebd9630...)"; "unknown" when neither is found.
std::string FilterBenchVersion(const std::string& binary_path);

// Runs argv (argv[0] a path, no shell) and returns its stdout in *out; its
// stderr goes to ours. IOError when it cannot start or does not exit 0.
Status RunCapturingStdout(const std::vector<std::string>& argv, std::string* out);

}  // namespace filterlab::sim
