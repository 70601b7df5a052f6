// The filters a speed run queries (sim/speed.h): built from filter_bench's
// keys, serialized into one 2 MiB-aligned arena that asks for huge pages,
// reopened there with OpenFilter, and described to the query loops by one
// 32-byte FilterRef each, in an array of their own.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "common/status.h"
#include "filters/filter.h"
#include "sim/machine.h"
#include "sim/speed.h"

namespace filterlab::sim {

// What a query needs to know of its filter, 32 bytes per filter in one array,
// so picking a filter, making its key and querying it read one line of
// harness data and then only the filter's own data: the filter's FilterView
// (by default the variant's own, which does not touch the Filter object; with
// --query_path object, Filter::View's default, which calls the object's
// virtual MayContain as filter_bench calls its reader object).
struct alignas(32) FilterRef {
  FilterView view;
  uint32_t id;    // filter_bench's filter id (part of every key)
  uint32_t keys;  // keys added: vals 0..keys-1
};
static_assert(sizeof(FilterRef) == 32, "FilterRef: two per 64-byte line");

// Filters built, serialized into one (huge-page) arena and reopened there.
struct FilterSet {
  std::unique_ptr<PageArena> arena;
  std::vector<std::unique_ptr<Filter>> filters;
  std::vector<uint32_t> ids;
  std::vector<uint32_t> keys;
  size_t num_refs = 0;
  // The queries read refs from here: on 2 MiB pages when granted (a random
  // pick then costs no TLB miss; 2.75 MB for 1 GiB of 10k-key filters).
  std::unique_ptr<PageArena> refs_arena;
  const FilterRef* query_refs = nullptr;
  double build_call_seconds = 0;  // within build_seconds: FilterPolicy::Build alone
  uint64_t total_keys = 0;
  uint64_t serialized_bytes = 0;
  double build_seconds = 0;
  std::string layout;
  // Cache lines one query of an added key reads, over the first filters
  // (MeasureLinesPerQuery, sim/lines_read.h); 0 when not measured.
  double lines_per_query = 0;
};

// Builds one filter from filter_bench keys val 0..n-1 of `id` (timed part:
// key making, HashKey and Build, as filter_bench times it; Build alone is
// also timed, the figure comparable with builds from ready hashes),
// appending its serialized bytes to *blob and adding its times to *set.
Status BuildOne(const FilterPolicy& policy, uint32_t id, uint32_t n, int key_size, std::vector<uint64_t>* hashes,
                std::string* blob, FilterSet* set);

// Copies the serialized filters into the arena, reopens each there with the
// policy's query settings and makes the FilterRef array (query_path object:
// views that call the object's virtual MayContain). Frees the blobs.
Status Materialise(const FilterPolicy& policy, std::vector<std::string>& blobs, bool want_huge, bool via_object,
                   FilterSet* set);

// Filters of average_keys +- vary_ratio keys (filter_bench's ids and key
// counts from cfg.seed) until their serialized bytes reach
// cfg.working_set_bytes.
Status BuildWorkingSet(const FilterPolicy& policy, const SpeedConfig& cfg, bool want_huge, FilterSet* set);

// Measures set->lines_per_query: the mean over the first 4 filters (64 of
// each one's keys; Ribbon's column count varies from filter to filter),
// unless a filter's bytes exceed 16 MiB (each line is refilled 8 times and
// every sample query asked again).
Status MeasureLinesPerQuery(const FilterPolicy& policy, int key_size, FilterSet* set);

// The huge mode's one filter of cfg.huge_keys keys (memory checked first).
Status BuildHugeFilter(const FilterPolicy& policy, const SpeedConfig& cfg, bool want_huge, FilterSet* set);

}  // namespace filterlab::sim
