// filter_bench-style speed measurement (`filterlab-sim speed`), after
// RocksDB's util/filter_bench.cc, with our own code and the generic
// filter interface only.
//
// Working set: filters of about --average_keys keys each (varied by
// +-vary_ratio as filter_bench does) built from filter_bench keys until their
// serialized size reaches the working-set size (default 4x the last-level
// cache). Each built filter is serialized into one 2 MiB-aligned arena that
// asks for 2 MiB pages (madvise), and queried through OpenFilter() over those
// bytes, so the random-filter modes run on huge pages whatever the variant.
// Queries go through each filter's FilterView (filters/filter.h), kept in the
// harness's per-filter array, or with query_path "object" through the Filter
// object's virtual MayContain.
//
// Every query measurement runs twice with identically seeded generators: the
// real run ("gross") and a dry run that does everything but the filter call.
// net ns/op = (gross - dry) / queries. By default the dry run still hashes the
// key, so net excludes hashing; with net_includes_hashing it only touches the
// key's length and 4th byte, so net includes hashing.
//
// Modes: build (ns/key: key generation + HashKey + Build; build_call_ns_per_key
// is Build alone), single (always filter 0: hot in cache), random (uniform over
// all filters, one query at a time: filter_bench's figure), random_pipelined
// (the same queries in groups of D = pipeline depth, default 16, each group's
// lines prefetched through FilterView::Prefetch while the group before it is
// answered), batched (one
// random filter per batch; prepared = hash the batch, then one
// MayContainBatch call that prefetches it; unprepared = the same hashes asked
// one MayContain at a time), skewed (50% of queries to 1% of filters, 80% to
// 20%), huge (one filter of huge_keys keys: every query a cache miss).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/status.h"
#include "filters/filter.h"
#include "sim/commands.h"

namespace filterlab::sim {

// The measurements a run can make (--modes), in the order it makes them.
enum class SpeedMode { kBuild, kSingle, kRandom, kRandomPipelined, kBatched, kSkewed, kHuge };
// Which queries ask about added keys (--mixes): all, none, half.
enum class QueryMix { kInside, kOutside, kMixed };

// The flag and record spellings: "build", ..., "random_pipelined", ...;
// "inside", "outside", "mixed".
const char* SpeedModeName(SpeedMode mode);
const char* QueryMixName(QueryMix mix);
// Every spelling, in enum order (the flags' choices).
std::vector<std::string> SpeedModeNames();
std::vector<std::string> QueryMixNames();
// names: spellings already checked against the lists above.
std::vector<SpeedMode> SpeedModesNamed(const std::vector<std::string>& names);
std::vector<QueryMix> QueryMixesNamed(const std::vector<std::string>& names);

struct SpeedConfig {
  std::string filter_spec;
  uint64_t working_set_bytes = 0;  // 0 = 4x last-level cache (at least 64 MiB)
  uint64_t average_keys = 10000;
  double vary_ratio = 0.4;
  int key_size = 24;
  uint64_t queries = 10000000;  // per measurement
  // Each measurement in `rounds` parts, timed and dry back to back per part;
  // net and x_floor are the medians over parts (see speed.cc, Measure).
  int rounds = 5;
  std::vector<int> batch_sizes{8, 16, 32};
  std::vector<SpeedMode> modes;
  std::vector<QueryMix> mixes;  // of single, random and random_pipelined
  bool net_includes_hashing = false;
  std::string huge_pages = "auto";  // auto | on | off
  // view: queries go through each filter's FilterView (Filter::View), kept in
  // the harness's per-filter array; object: through the Filter object's
  // virtual MayContain, as filter_bench calls its reader objects.
  std::string query_path = "view";
  uint64_t huge_keys = 100000000;
  // random_pipelined: each of 2, 4, 8, 16, 32, 64 or kAutoPipelineDepth.
  std::vector<int> pipeline_depths{16};
  bool measure_floor = true;
  uint32_t seed = 0;
};

// A pipeline depth chosen per filter (--pipeline_depth auto): see
// PipelineDepthForLines (speed_plan.h).
inline constexpr int kAutoPipelineDepth = 0;

Status RunSpeed(const SpeedConfig& config, const Emit& emit);

// Memory the huge mode needs for one filter of `keys` keys: the keys'
// hashes and the built and serialized filter (24 bytes per key covers them
// up to 64 bits/key), plus Build's working memory (Ribbon's banding ~21
// bytes/key, a fuse peeling ~23).
uint64_t HugeModeMemory(const FilterPolicy& policy, uint64_t keys);

}  // namespace filterlab::sim
