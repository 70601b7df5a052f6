#include "engine/db/level_filters.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "filters/registry.h"

namespace filterlab::engine {

void NoteTableFilter(const TableProperties& props, FileMetaData* meta) {
  meta->filter_spec = props.filter_spec;
  meta->num_entries = props.num_entries;
  meta->filter_bytes = props.filter_size;
  meta->filter_model_fp = 1;
  if (props.filter_spec.empty()) return;
  std::unique_ptr<FilterPolicy> policy;
  // The spec was checked when the table was written or opened; a variant
  // missing from this build keeps the no-filter figure.
  if (NewFilterPolicy(props.filter_spec, &policy).ok()) {
    meta->filter_model_fp = policy->ModelFpRate(props.num_filter_keys);
  }
}

namespace {

uint64_t Entries(const FileList& files) {
  uint64_t n = 0;
  for (const auto& f : files) n += f->num_entries;
  return n;
}

}  // namespace

Status FilterPolicyForOutput(const Options& options, const Version& before, int out_level, uint64_t out_entries,
                             const FileList& upper_inputs, const FileList& out_inputs,
                             std::shared_ptr<const FilterPolicy>* policy) {
  if (!options.filter_allocation) {
    *policy = options.FilterPolicyForLevel(out_level);
    return Status::OK();
  }
  const Options::FilterAllocation& a = *options.filter_allocation;
  const int L = before.num_levels();
  // The levels as they will be after the job: keys and runs (header).
  std::vector<double> keys(L), runs(L);
  for (int level = 0; level < L; ++level) {
    keys[level] = static_cast<double>(Entries(before.files(level)));
    runs[level] = static_cast<double>(before.files(level).size());
    if (level == out_level) {
      keys[level] += static_cast<double>(out_entries) - static_cast<double>(Entries(out_inputs));
      runs[level] += level == 0 ? 1.0 - static_cast<double>(out_inputs.size()) : 0.0;
    }
    if (level + 1 == out_level) {
      keys[level] -= static_cast<double>(Entries(upper_inputs));
      runs[level] -= static_cast<double>(upper_inputs.size());
    }
    keys[level] = std::max(0.0, keys[level]);
    runs[level] = level == 0 ? std::max(0.0, runs[level]) : (keys[level] > 0 ? 1.0 : 0.0);
  }
  allocation::AllocationInput in;
  in.policy = a.policy;
  in.budget_bits_per_key = a.budget_bits_per_key;
  in.existing_share = a.existing_share;
  for (int level = 0; level < L; ++level) {
    allocation::LevelInput l;
    l.keys = keys[level];
    l.runs = runs[level];
    Status s = options.FilterFamilyForLevel(level, &l.family);
    if (!s.ok()) return s;
    in.levels.push_back(l);
  }
  allocation::Allocation result;
  Status s = allocation::Allocate(in, &result);
  if (!s.ok()) return s;
  const std::string& spec = result.levels[out_level].spec;
  return FilterPolicyFromSpec(spec.empty() ? "none" : spec, policy);
}

namespace {

// The position of `key` in the key space as a number: the 8 bytes after
// `prefix_len` (the level's common prefix) read big-endian, shorter keys
// padded with zeros.
double KeyPosition(const Slice& key, size_t prefix_len) {
  uint64_t v = 0;
  for (size_t i = 0; i < 8; ++i) {
    const size_t at = prefix_len + i;
    v = (v << 8) | (at < key.size() ? static_cast<uint8_t>(key[at]) : 0u);
  }
  return static_cast<double>(v);
}

}  // namespace

LevelFilterSummary SummarizeLevelFilters(int level, const FileList& files) {
  LevelFilterSummary out;
  for (const auto& f : files) {
    out.entries += f->num_entries;
    out.filter_bytes += f->filter_bytes;
  }
  if (files.empty()) return out;
  // Level 0: a lookup probes every table (each covers about the whole key
  // range). Deeper: it probes the one table whose range holds the key, so
  // a uniform key lands in a table in proportion to its range's width,
  // which need not follow its entries: a range drained to the next level
  // not long ago is refilled sparsely.
  size_t prefix = 0;
  const Slice lo = files.front()->smallest_user_key(), hi = files.back()->largest_user_key();
  while (prefix < lo.size() && prefix < hi.size() && lo[prefix] == hi[prefix]) ++prefix;
  double weighted = 0, weight = 0;
  for (const auto& f : files) {
    const double w = level == 0 ? 1.0
                                : KeyPosition(f->largest_user_key(), prefix) -
                                      KeyPosition(f->smallest_user_key(), prefix) + 1.0;
    weighted += w * f->filter_model_fp;
    weight += w;
  }
  out.model_fp = weighted / weight;
  return out;
}

}  // namespace filterlab::engine
