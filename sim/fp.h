// FP-rate sampling (`filterlab-sim fp`): build F filters of n keys each from
// a policy, put Q outside queries to them through the batched, prefetching
// MayContainBatch path on all threads, and count positives. The count gets a
// 95% Wilson interval (stats.h) and sits beside the policy's model FP rate.
//
// Determinism: filter f's added hashes come in chunks of kBuildChunk with
// their own derived seeds, and its queries in chunks of kQueryChunk with
// theirs (keygen.h DeriveSeed), so the same seed and parameters give the same
// counts on any number of threads.
//
// Memory: a filter is built from all its hashes at once (FilterPolicy::Build
// takes an array), so building needs 8 bytes per key plus the filter itself:
// about 9.3 GiB for 10^9 keys at 10 bits/key. Runs that exceed MemAvailable are
// refused before they start. Many small filters are processed one per thread
// at a time; a few large ones one after another with all threads generating
// hashes and querying; such a filter is queried from a copy on 2 MiB pages
// (fp.cc MoveToHugePages), which changes no answer.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "common/json_out.h"
#include "common/stats.h"
#include "common/status.h"
#include "filters/filter.h"

namespace filterlab::sim {

inline constexpr uint64_t kBuildChunk = uint64_t{1} << 20;
inline constexpr uint64_t kQueryChunk = uint64_t{1} << 20;

struct FpConfig {
  std::string filter_spec;
  uint64_t keys = 0;  // per filter (the average when vary_ratio > 0)
  // Keys per filter vary uniformly over keys * (1 +- vary_ratio), as filter_bench's
  // -vary_key_count_ratio (0.4 there): at 6-8 bits/key the rounding of each filter's
  // size to whole lines makes the FP rate of a fixed key count differ by 1-2% from
  // that of a spread. Filter f's count depends only on the seed and f.
  double vary_ratio = 0;
  uint64_t filters = 1;                   // number of filters
  uint64_t queries = 0;                   // total outside queries, spread evenly over the filters
  std::string hash_source = "synthetic";  // synthetic | keys
  int key_size = 24;                      // keys: base key length (filter_bench's 24..28 spread)
  int threads = 1;
  uint64_t seed = 0;
  int batch = 1024;  // hashes per MayContainBatch call
  // Work units of the deterministic split (see above). Part of the stream
  // definition: other values give other (equally valid) samples. Tests use
  // small chunks to cross chunk boundaries cheaply.
  uint64_t build_chunk = kBuildChunk;
  uint64_t query_chunk = kQueryChunk;
};

struct FpResult {
  std::string filter;  // the policy's canonical spec
  std::string layout;  // Describe() of the first filter
  int hash_bits = 64;
  uint64_t positives = 0;
  double fp = 0;
  Interval ci{0, 1};
  // Pearson's dispersion of the filters' counts, sum_f (x_f - q_f p)^2 /
  // (q_f p (1 - p)) / (F - 1) with p = fp: ~1 when the filters' rates differ
  // only by the sampling of queries, larger when the filters' own rates
  // scatter (one built filter's rate is a draw around the mean the models
  // give). Negative when there is no value (one filter, or p = 0 or 1).
  double dispersion = -1;
  double model_fp = 0;                  // ModelFpRate(keys), averaged over the filters' key counts
  std::string model_kind;               // what the model promises (fp_model_kind.h): exact, approximation, ...
  double model_max_relative_error = 0;  // an approximation's stated largest relative error; 0 otherwise
  double allowed_low = 0;               // the range fp_tolerance.h allows a measurement of these queries
  double allowed_high = 1;              // around model_fp for that kind
  uint64_t bytes = 0;                   // data bytes of the first filter
  uint64_t total_keys = 0;              // keys over all filters (filters * keys unless vary_ratio > 0)
  uint64_t total_bytes = 0;             // summed over the filters
  double bits_per_key = 0;              // 8 * total_bytes / total_keys
  double build_seconds = 0;             // wall time of hash generation + Build
  double query_seconds = 0;             // wall time of the query phase
  double query_cpu_seconds = 0;         // CPU time of the query phase, all threads
  double seconds = 0;                   // wall time of the whole run
  std::string schedule;                 // "filter_per_thread" or "chunks_over_threads"
};

// Keys in filter f of the run (config.keys unless vary_ratio > 0).
uint64_t KeysOfFilter(const FpConfig& config, uint64_t f);

// Memory the run needs at its peak, in bytes (hash arrays + filters being built).
uint64_t FpMemoryNeeded(const FpConfig& config, const FilterPolicy& policy);

// Every check RunFp makes before it builds (flags, the spec through the
// registry, memory), with the policy: what `fp --check` runs.
Status PrepareFp(const FpConfig& config, std::unique_ptr<FilterPolicy>* policy);
Status RunFp(const FpConfig& config, FpResult* result);

// The JSON line of one configuration.
JsonRecord FpRecord(const FpConfig& config, const FpResult& result);

}  // namespace filterlab::sim
