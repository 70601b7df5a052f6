// The filters of the tables a flush or compaction writes, when
// Options::filter_allocation spreads one memory budget over the levels
// (filters/allocation/level_allocation.h has the policies and their math),
// and what each table's filter is recorded as for the per-level statistics.
//
// When the allocation runs. Every flush and every compaction computes it
// afresh, just before it opens its first output table, from the key counts
// the levels will hold once the job is installed: the current version's
// tables (each table's entries, read from its properties), minus the job's
// inputs, plus the job's entries at its output level (a flush adds one
// level-0 run). Only the output level's result is used; tables keep the
// filter they were written with, so reads never depend on the policy and a
// level may hold tables sized under earlier counts until compaction rewrites
// them. (A job costs one solve: microseconds for the closed forms, a few ms
// for optimal.)
//
// While the tree grows. Each level gets what the policy gives the tree as it
// is at that moment (Monkey's "from the levels' actual key counts"), not as
// it will be. The deepest level starts small, so monkey and optimal first
// give it many bits, and fewer as it fills and its share of the keys rises;
// shallow levels are rewritten often and hold the current allocation, but
// the deepest keeps tables written over its growth, sized for a smaller
// level. So the memory the tables hold runs above the budget while the
// deepest level is young. Measured with lsmbench (engine/README.md): 4M
// keys, T = 10, 6 levels, 64 KiB buffers, budget 5: uniform holds 5.06
// bits/key, monkey 5.63 (the young level 5, a fifth of level 4's size,
// 9.7 bits/key, its first tables 17-19), optimal 5.49; 1M keys, T = 10,
// 1 MiB buffers: monkey 5.09 and 5.24, optimal 5.02 and 5.09 in two runs
// each; a 20k-key test tree at T = 4 (level_filters_test.cc), ~6.5.
// LevelStats::filter_bytes is that memory, and lsmbench reports it beside
// the budget. (Sizing levels from their targets instead keeps a young
// deepest level at the few bits a full one gets, and its upper levels then
// hold most of the memory: 3.9 bits/key at a budget of 5 in the 1M-key
// tree.)
// Trivial moves (a table relinked one level down without rewriting) keep a
// table's filter; with a policy other than uniform the levels' filters
// differ, so compaction then always rewrites (db_compaction.cc).
#pragma once

#include <memory>

#include "common/status.h"
#include "engine/db/options.h"
#include "engine/db/version.h"
#include "engine/table/table_properties.h"

namespace filterlab::engine {

// Records in *meta what `props` say of the table's filter: its spec, the
// table's entries, the filter's bytes and its model FP rate (the policy's
// ModelFpRate at the filter's distinct keys; 1 without a filter).
void NoteTableFilter(const TableProperties& props, FileMetaData* meta);

// The filter of the tables a job writes to `out_level` of `before` (the
// version the job started from): with options.filter_allocation, the
// allocation's choice for that level after the job, which removes
// `upper_inputs` (from out_level - 1) and `out_inputs` (from out_level) and
// adds `out_entries` entries at out_level (one more run at level 0);
// without it, options.FilterPolicyForLevel(out_level).
Status FilterPolicyForOutput(const Options& options, const Version& before, int out_level, uint64_t out_entries,
                             const FileList& upper_inputs, const FileList& out_inputs,
                             std::shared_ptr<const FilterPolicy>* policy);

// Per level, for DbStats: entries, filter bytes, and the model FP rate a
// table lookup there expects for an absent key (level 0: the mean over its
// tables, each of which a lookup probes; deeper levels: weighted by each
// table's key-range width, the share of uniformly drawn keys whose lookup
// lands in it; widths are the 8 bytes after the level's common key prefix,
// read as a number).
struct LevelFilterSummary {
  uint64_t entries = 0;
  uint64_t filter_bytes = 0;
  double model_fp = 1;  // 1 without tables or filters
};
LevelFilterSummary SummarizeLevelFilters(int level, const FileList& files);

}  // namespace filterlab::engine
