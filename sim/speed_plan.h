// The plan of a `filterlab-sim speed` run (sim/speed.h): which measurements
// it makes, in which order, each with the queries its timed and dry loops
// ask (mode, mix, how a query's filter is picked, batch, pipeline depth,
// whether the memory floor is measured beside it), and how a measurement's
// queries are cut into rounds. Made from the config alone, before anything
// is built, so it is tested without timing anything (speed_test.cc).
#pragma once

#include <cstdint>
#include <vector>

#include "sim/speed.h"

namespace filterlab::sim {

// How a query's filter is chosen: always filter 0 (hot), uniformly at random
// over the working set, or skewed (a share of the queries to a few filters).
enum class Pick { kSingle, kRandom, kSkewed };

// One measurement of a run: the queries the timed and dry loops ask and how
// its record is labelled.
struct Measurement {
  SpeedMode mode;
  QueryMix mix;
  Pick pick = Pick::kRandom;
  bool with_floor = false;         // also measure the memory floor (random-filter picks)
  uint32_t primary_threshold = 0;  // skewed: rng <= this picks a primary filter
  uint32_t num_primary = 1;        // skewed: set from skew_filters and the working set
  double skew_filters = 0;         // skewed: the fraction of filters that are primary
  int batch = 1;                   // 1 = one MayContain per query
  bool prepared = true;
  bool pipelined = false;            // batch 1 only: groups of pipeline_depth, prefetched a group ahead
  int pipeline_depth = 16;           // kAutoPipelineDepth until the run resolves it
  bool pipeline_depth_auto = false;  // resolved from the working set's lines_per_query
};

// What a run measures and in which order, from the config alone.
struct SpeedPlan {
  bool build_record = false;             // the build mode's record
  std::vector<Measurement> working_set;  // over the working set of filters
  std::vector<Measurement> huge;         // over one filter of huge_keys keys
  bool needs_working_set() const { return build_record || !working_set.empty(); }
};

// random_pipelined: groups of D queries (D = SpeedConfig::pipeline_depths,
// one record per depth), each group's lines prefetched (FilterView::Prefetch)
// one group before it is answered (see RunPipelined). The depth has to cover
// the memory latency under load with D misses in flight (Little's law): at
// ~25 ns per query and ~250-300 ns per DRAM miss over 1 GiB, 8 cap a query
// at ~30 ns gross, while a group of 32 prefetches issued back to back asks
// for more misses at once than the core's miss buffers take (AMD EPYC 2-core
// VM, 1 GiB of 10k-key filters, one process, 3 each: gross 28.4-31.2 /
// 24.2-26.6 / ~35 ns at depth 8 / 16 / 32; `filterlab-sim speed --filter
// fastlocal:bpk=10 --working_set_mb 1024 --modes random_pipelined
// --pipeline_depth 8,16,32`). 16 is the default.
//
// The limit is in cache lines, not queries: a filter whose query reads L
// lines puts 16 L prefetches in flight at depth 16, and past ~16 lines the
// group's prefetches queue for miss buffers and the floor ratio grows with
// depth. Measured (200 MB of 10k-key filters, 3 rounds, x floor per line at
// depth 2 / 4 / 8 / 16): ribbon:bpk=10 (4.09 lines) 1.43 / 1.09 / 1.44 /
// 1.99, xor:fingerprint=8 (3) 1.56 / 1.09 / 1.33 / 1.54,
// binary_fuse:arity=4 (4) 1.18 / 1.07 / 1.32 / 1.46, legacy_block:bpk=10
// (5.9) 1.09 / 1.27 / 1.37 / 1.46, while fastlocal:bpk=10 (1 line) gives
// 1.90 / 1.09 / 0.91 at depth 4 / 8 / 16. So the depth `auto` holds about
// kPipelineLinesInFlight lines in flight (PipelineDepthForLines).
inline constexpr double kPipelineLinesInFlight = 16;

// The power of two nearest kPipelineLinesInFlight / lines_per_query (in log
// scale), within 2..16; 16 when lines_per_query is unknown (<= 0).
int PipelineDepthForLines(double lines_per_query);

// The order of a run: build; per mix single, random, random_pipelined (per
// depth); batched (per batch size, prepared then unprepared, one filter then
// random filters); skewed (50% of queries to 1% of filters, 80% to 20%);
// then huge (one query at a time, then per batch size).
SpeedPlan PlanSpeedRun(const SpeedConfig& cfg);

// A measurement of `queries` queries in `rounds` parts of whole batches:
// each part asks per_round queries (a multiple of batch, at least one
// batch), all parts together total = rounds x per_round >= queries.
struct RoundSplit {
  uint64_t per_round = 0;
  uint64_t total = 0;
};
RoundSplit SplitIntoRounds(uint64_t queries, uint64_t rounds, uint64_t batch);

}  // namespace filterlab::sim
