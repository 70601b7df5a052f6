// What `filterlab-sim rangefp` and `rangespeed` share: the range-filter
// policies of a sweep, the key set and its memory check, the query-set
// flags (range lengths as powers of two, correlation degrees), and building
// a filter with its timing.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "common/status.h"
#include "filters/range/range_filter.h"
#include "filters/range/range_workload.h"

namespace filterlab::sim {

struct RangePolicy {
  std::string filter_arg;
  std::unique_ptr<RangeFilterPolicy> policy;
};

// Every --filter made into a range policy (InvalidArgument naming the spec).
Status MakeRangePolicies(const std::vector<std::string>& specs, std::vector<RangePolicy>* out);

// --range_log2 "0:24:1" or "5,10" -> lengths 2^i (0 <= i <= 40).
Status ParseRangeLengths(const std::string& text, std::vector<uint64_t>* lengths);

// --correlations "none,0.5,0.8": -1 for none (uncorrelated), else a degree in [0, 1].
Status ParseCorrelations(const std::string& text, std::vector<double>* degrees);

// Refuses (naming `what` and both numbers) when the keys, `per_key_bytes`
// more per key, every policy's BuildMemoryBytes and `extra` bytes exceed
// MemAvailable.
Status CheckRangeMemory(uint64_t keys, const std::vector<RangePolicy>& policies, uint64_t extra,
                        const std::string& what);

// Builds one filter from the keys, timing it.
Status BuildTimed(const RangeFilterPolicy& policy, const std::vector<uint64_t>& keys, std::unique_ptr<RangeFilter>* out,
                  double* seconds);
// A dynamic filter started for `grow_from` keys (NewDynamic) that takes
// the keys by Insert, in an order shuffled by `seed`, timing the inserts.
Status GrowTimed(const RangeFilterPolicy& policy, const std::vector<uint64_t>& keys, uint64_t grow_from, uint64_t seed,
                 std::unique_ptr<RangeFilter>* out, double* seconds);

}  // namespace filterlab::sim
