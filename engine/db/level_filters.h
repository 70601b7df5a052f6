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
// for optimal, whose solves slowed lsmbench's 4M-key load at nice 19 on a
// loaded machine from ~500 s to 889 s, and its settling from ~100 s to 369.)
//
// Weights: the tables a lookup reaches. A lookup probes a level-0 table
// or a deeper level's table only if the key lies in that table's key range,
// and right after a load level 0 and level 1 are often empty and a level
// refilled from above covers only part of the key space. So the weight of
// level i (LevelInput::runs) is the expected number of its tables whose
// range holds a looked-up key: the sum over its tables of the share of the
// stored keys inside the table's range (LookupReach below). Lookups are
// thus assumed to follow the stored keys' distribution, which lsmbench's
// readrandom and readmissing do (a missing key is a stored key with one
// more digit). An empty level weighs nothing and gets no memory; a full
// level covering the key space weighs 1, as in Monkey's model.
//
// While the tree grows. Each level gets what the policy gives the tree as it
// is at that moment (the "from the levels' actual key counts", and
// their reach), not as it will be: shallow levels are rewritten often and hold
// the current allocation, but the deepest keeps tables written over its
// growth, sized for a level with other counts and reach, and a level that
// was the last for a while keeps what the policy gave the last level
// (no_last_level: none). So a level's tables may hold different filters and
// their memory drifts from the budget: after lsmbench's 4M-key load
// (engine/README.md) monkey's tables held 4.73 bits/key at a budget of 5
// and no_last_level's 1.74. DB::RewriteFilters rewrites, in place, every
// table whose filter differs from what the allocation gives its level in
// the tree as it is now: afterwards every level holds the allocation of the
// current shape, which is the steady state Monkey analyses (each level
// sized for its keys and its lookups).
//
// Memory is what the tables hold. Each table's filter is its menu memory
// (bits/key x keys) plus its rounding up to whole cache lines (or words) and
// a 5-byte trailer: on ~3300-key tables +1.1% for uniform and +2.8% for
// monkey at 5 bits/key when the solve ignored it. So every allocation adds
// that overhead (FilterOverheadBits, per level at its tables' key counts,
// the job's output counted as the tables it will write) and solves
// again with the budget lowered by the excess, until the tables' total is
// within 0.2% of the budget: every policy, uniform included, then holds
// the budget's memory (tested in level_filters_test.cc within 2%). LevelStats::filter_bytes is the memory the
// tables hold, and lsmbench reports it beside the budget. (Sizing levels from their targets
// instead keeps a young deepest level at the few bits a full one gets, and
// its upper levels then hold most of the memory: 3.9 bits/key at a budget
// of 5 in a 1M-key tree.)
// Trivial moves (a table relinked one level down without rewriting) keep a
// table's filter; with a policy other than uniform the levels' filters
// differ, so compaction then always rewrites (db_compaction.cc).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "common/status.h"
#include "engine/db/options.h"
#include "engine/db/version.h"
#include "engine/table/table_properties.h"
#include "filters/allocation/level_allocation.h"

namespace filterlab::engine {

// Records in *meta what `props` say of the table's filter: its spec, the
// table's entries, the filter's bytes and its model FP rate (the policy's
// ModelFpRate at the filter's distinct keys; 1 without a filter).
void NoteTableFilter(const TableProperties& props, FileMetaData* meta);

// A flush or compaction, as the allocation sees it: it removes `inputs`
// (files of any level) and writes `entries` entries to `level` with user
// keys in [smallest, largest] (one new run at level 0; a rewrite in place
// removes and writes at the same level).
struct OutputJob {
  int level = 0;
  uint64_t entries = 0;
  Slice smallest, largest;
  std::vector<const FileList*> inputs;
};

// The filter of the tables `job` writes, `before` being the version it
// started from: with options.filter_allocation, the allocation's choice for
// job.level in the tree after the job (key counts and LookupReach weights);
// without it, options.FilterPolicyForLevel(job.level). *result, if not
// null, receives the whole allocation (empty without filter_allocation).
Status FilterPolicyForOutput(const Options& options, const Version& before, const OutputJob& job,
                             std::shared_ptr<const FilterPolicy>* policy, allocation::Allocation* result = nullptr);

// The bits the filters of `spec` over tables of `table_keys` keys each
// spend beyond their keys x `bits_per_key` (the family menu's memory per
// key, measured over 2^15 keys): their rounding up to whole cache lines or
// words and their serialized trailers. Filters are built over synthetic
// keys at up to 8 quantiles of the counts, each standing for its share of
// the tables. 0 for "" (no filter) or no tables.
double FilterOverheadBits(const std::string& spec, double bits_per_key, std::vector<double> table_keys);

// The expected number of tables per level a lookup probes (for the levels
// of `before` after `job`, the job's output counted as one table over its
// range): per table, the share of the stored keys inside its range,
// estimated from the tables' boundaries, each table's two boundary keys
// standing for its entries (half each) and a flush's memtable standing for
// itself by its first and last key. A table's own entries always count, so
// a level with keys has a weight > 0. Exact in the limit of many tables;
// with few, it is as coarse as they are.
std::vector<double> LookupReach(const Version& before, const OutputJob& job);

// Per level, for DbStats: entries, filter bytes, and the model FP rate a
// table lookup there expects for an absent key (level 0: the mean over its
// tables, each of which a lookup probes; deeper levels: weighted by each
// table's key-range width, the share of uniformly drawn keys whose lookup
// lands in it; widths are the 8 bytes after the level's common key prefix,
// read as a number).
struct LevelFilterSummary {
  uint64_t entries = 0;
  uint64_t filter_bytes = 0;
  uint64_t range_filter_bytes = 0;  // beside the point filters, outside any allocation budget
  double model_fp = 1;              // 1 without tables or filters
};
LevelFilterSummary SummarizeLevelFilters(int level, const FileList& files);

}  // namespace filterlab::engine
