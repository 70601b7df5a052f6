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

bool IsInput(const OutputJob& job, const FileMetaData& f) {
  for (const FileList* list : job.inputs) {
    for (const auto& in : *list) {
      if (in->number == f.number) return true;
    }
  }
  return false;
}

// A key with the entries it stands for, for LookupReach.
struct WeightedKey {
  Slice key;
  double weight;
};

}  // namespace

std::vector<double> LookupReach(const Version& before, const OutputJob& job) {
  const int L = before.num_levels();
  // The stored keys' distribution: every table's boundary keys (the job's
  // inputs too: their entries are what it writes), half its entries each.
  std::vector<WeightedKey> points;
  for (int level = 0; level < L; ++level) {
    for (const auto& f : before.files(level)) {
      const double half = static_cast<double>(f->num_entries) / 2;
      points.push_back({f->smallest_user_key(), half});
      points.push_back({f->largest_user_key(), half});
    }
  }
  if (job.inputs.empty() && job.entries > 0) {  // a flush: its keys are new
    const double half = static_cast<double>(job.entries) / 2;
    points.push_back({job.smallest, half});
    points.push_back({job.largest, half});
  }
  std::sort(points.begin(), points.end(),
            [](const WeightedKey& a, const WeightedKey& b) { return a.key.compare(b.key) < 0; });
  std::vector<double> prefix(points.size() + 1, 0.0);  // prefix[i]: weight of points[0, i)
  for (size_t i = 0; i < points.size(); ++i) prefix[i + 1] = prefix[i] + points[i].weight;
  const double total = prefix.back();
  std::vector<double> reach(L, 0.0);
  if (total <= 0) return reach;
  auto share = [&](const Slice& lo, const Slice& hi) {  // weight of the points in [lo, hi]
    const auto first = std::lower_bound(points.begin(), points.end(), lo,
                                        [](const WeightedKey& p, const Slice& k) { return p.key.compare(k) < 0; });
    const auto last = std::upper_bound(points.begin(), points.end(), hi,
                                       [](const Slice& k, const WeightedKey& p) { return k.compare(p.key) < 0; });
    return (prefix[last - points.begin()] - prefix[first - points.begin()]) / total;
  };
  for (int level = 0; level < L; ++level) {
    for (const auto& f : before.files(level)) {
      if (!IsInput(job, *f)) reach[level] += share(f->smallest_user_key(), f->largest_user_key());
    }
  }
  if (job.entries > 0 && job.level >= 0 && job.level < L) reach[job.level] += share(job.smallest, job.largest);
  return reach;
}

Status FilterPolicyForOutput(const Options& options, const Version& before, const OutputJob& job,
                             std::shared_ptr<const FilterPolicy>* policy, allocation::Allocation* out) {
  if (out != nullptr) *out = allocation::Allocation();
  if (!options.filter_allocation) {
    *policy = options.FilterPolicyForLevel(job.level);
    return Status::OK();
  }
  const Options::FilterAllocation& a = *options.filter_allocation;
  const int L = before.num_levels();
  const std::vector<double> reach = LookupReach(before, job);
  allocation::AllocationInput in;
  in.policy = a.policy;
  in.budget_bits_per_key = a.budget_bits_per_key;
  in.existing_share = a.existing_share;
  for (int level = 0; level < L; ++level) {
    allocation::LevelInput l;
    for (const auto& f : before.files(level)) {
      if (!IsInput(job, *f)) l.keys += static_cast<double>(f->num_entries);
    }
    if (level == job.level) l.keys += static_cast<double>(job.entries);
    l.runs = l.keys > 0 ? reach[level] : 0.0;
    Status s = options.FilterFamilyForLevel(level, &l.family);
    if (!s.ok()) return s;
    in.levels.push_back(l);
  }
  allocation::Allocation result;
  Status s = allocation::Allocate(in, &result);
  if (!s.ok()) return s;
  const std::string& spec = result.levels[job.level].spec;
  s = FilterPolicyFromSpec(spec.empty() ? "none" : spec, policy);
  if (s.ok() && out != nullptr) *out = std::move(result);
  return s;
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
