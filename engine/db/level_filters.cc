#include "engine/db/level_filters.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "filters/registry.h"
#include "hashing/remix.h"

namespace filterlab::engine {

void NoteTableFilter(const TableProperties& props, FileMetaData* meta) {
  meta->filter_spec = props.filter_spec;
  meta->num_entries = props.num_entries;
  meta->filter_bytes = props.filter_size;
  meta->range_filter_bytes = props.range_filter_size;
  meta->range_filter_spec = props.range_filter_spec;
  meta->filter_model_fp = 1;
  if (props.filter_spec.empty()) return;
  std::unique_ptr<FilterPolicy> policy;
  // The spec was checked when the table was written or opened; a variant
  // missing from this build, or a model without a value at the table's key
  // count (ModelFpRateAt), keeps the no-filter figure.
  double fp = 1;
  if (NewFilterPolicy(props.filter_spec, &policy).ok() && ModelFpRateAt(*policy, props.num_filter_keys, &fp).ok()) {
    meta->filter_model_fp = fp;
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

// The key counts of each level's tables once `job` is installed: the
// current ones but its inputs, plus its output at job.level (a flush or an
// in-place rewrite writes one table of job.entries; a compaction writes
// tables cut at one target size like its inputs, so they stand for its
// outputs, scaled to the entries it writes).
std::vector<std::vector<double>> TableKeysAfter(const Version& before, const OutputJob& job) {
  std::vector<std::vector<double>> tables(static_cast<size_t>(before.num_levels()));
  for (int level = 0; level < before.num_levels(); ++level) {
    for (const auto& f : before.files(level)) {
      if (!IsInput(job, *f)) tables[static_cast<size_t>(level)].push_back(static_cast<double>(f->num_entries));
    }
  }
  if (job.entries == 0 || job.level < 0 || job.level >= before.num_levels()) return tables;
  std::vector<double> inputs;
  double input_entries = 0;
  for (const FileList* list : job.inputs) {
    for (const auto& f : *list) {
      inputs.push_back(static_cast<double>(f->num_entries));
      input_entries += static_cast<double>(f->num_entries);
    }
  }
  std::vector<double>& out = tables[static_cast<size_t>(job.level)];
  if (inputs.size() <= 1 || !(input_entries > 0)) {
    out.push_back(static_cast<double>(job.entries));
  } else {
    const double scale = static_cast<double>(job.entries) / input_entries;
    for (const double n : inputs) out.push_back(n * scale);
  }
  return tables;
}

}  // namespace

double FilterOverheadBits(const std::string& spec, double bits_per_key, std::vector<double> table_keys) {
  if (spec.empty() || table_keys.empty()) return 0;
  std::shared_ptr<const FilterPolicy> policy;
  if (!FilterPolicyFromSpec(spec, &policy).ok() || policy == nullptr) return 0;
  // Tables cut at one target size hold nearly the same count, so their
  // rounding is nearly the same too (all just past a line boundary, or all
  // just below one): it is taken at the tables' own counts, not averaged
  // over a spread. A level's counts are sampled at up to kSamples evenly
  // spaced quantiles, each standing for its share of the tables.
  constexpr size_t kSamples = 8;
  std::sort(table_keys.begin(), table_keys.end());
  const size_t samples = std::min(kSamples, table_keys.size());
  std::vector<uint64_t> hashes;
  double overhead = 0;
  for (size_t i = 0; i < samples; ++i) {
    const double keys = table_keys[(2 * i + 1) * table_keys.size() / (2 * samples)];
    const size_t n = static_cast<size_t>(std::llround(keys));
    if (n == 0) continue;
    hashes.resize(n);
    for (size_t k = 0; k < n; ++k) {
      const uint64_t key = Mix64(k * kGoldenRatio64 + 1);
      hashes[k] = policy->HashKey(Slice(reinterpret_cast<const char*>(&key), sizeof key));
    }
    std::unique_ptr<Filter> filter;
    if (!policy->Build(hashes.data(), n, &filter).ok()) return 0;
    std::string bytes;
    filter->Serialize(&bytes);
    overhead += 8.0 * static_cast<double>(bytes.size()) - static_cast<double>(n) * bits_per_key;
  }
  return overhead * static_cast<double>(table_keys.size()) / static_cast<double>(samples);
}

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
  // The budget counts what the tables will hold: each table's filter is
  // its menu memory (bits/key x keys) plus its rounding up to whole cache
  // lines or words and its trailer (FilterOverheadBits). So the solve's own
  // budget B' is searched for so that the tables' total is the budget B: the
  // total is a nondecreasing step function of B' (a level's tables, cut at
  // one size, cross a line boundary together), so B - excess first, then a
  // bracket and bisection, keeping the B' whose total is nearest to B (within
  // 0.2% it stops; a step wider than that leaves the nearer side of it).
  const std::vector<std::vector<double>> tables = TableKeysAfter(before, job);
  double keys = 0;
  for (const auto& l : in.levels) keys += l.keys;
  const double target = a.budget_bits_per_key;
  allocation::Allocation result;
  double best_excess = 0;
  auto excess_at = [&](double budget, allocation::Allocation* r, double* excess) {
    in.budget_bits_per_key = budget;
    Status st = allocation::Allocate(in, r);
    if (!st.ok() || keys <= 0) {
      *excess = 0;
      return st;
    }
    double held = r->total_bits;
    for (size_t i = 0; i < r->levels.size(); ++i) {
      held += FilterOverheadBits(r->levels[i].spec, r->levels[i].bits_per_key, tables[i]);
    }
    *excess = held / keys - target;
    return st;
  };
  Status s = excess_at(target, &result, &best_excess);
  const double tolerance = 0.002 * target;
  if (s.ok() && keys > 0 && std::abs(best_excess) > tolerance) {
    auto consider = [&](double budget, double* excess) {
      allocation::Allocation r;
      Status st = excess_at(budget, &r, excess);
      if (st.ok() && std::abs(*excess) < std::abs(best_excess)) {
        best_excess = *excess;
        result = std::move(r);
      }
      return st;
    };
    // A bracket [low, high] with excess(low) <= 0 < excess(high): steps of
    // B' -= excess from B until the sign changes, then bisection.
    double low = std::nan(""), high = std::nan("");
    (best_excess > 0 ? high : low) = target;
    double probe = target, e = best_excess;
    for (int step = 0; s.ok() && step < 8 && (std::isnan(low) || std::isnan(high)); ++step) {
      const double next = std::clamp(probe - e, 0.01, 100.0);
      if (next == probe) break;
      probe = next;
      s = consider(probe, &e);
      if (std::abs(best_excess) <= tolerance) break;
      if (e > 0) {
        high = std::isnan(high) ? probe : std::min(high, probe);
      } else {
        low = std::isnan(low) ? probe : std::max(low, probe);
      }
    }
    for (int step = 0; s.ok() && step < 10 && !std::isnan(low) && !std::isnan(high) && high - low > 1e-3 &&
                       std::abs(best_excess) > tolerance;
         ++step) {
      const double mid = (low + high) / 2;
      s = consider(mid, &e);
      (e > 0 ? high : low) = mid;
    }
  }
  in.budget_bits_per_key = target;
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
    out.range_filter_bytes += f->range_filter_bytes;
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
    const double w =
        level == 0 ? 1.0
                   : KeyPosition(f->largest_user_key(), prefix) - KeyPosition(f->smallest_user_key(), prefix) + 1.0;
    weighted += w * f->filter_model_fp;
    weight += w;
  }
  out.model_fp = weighted / weight;
  return out;
}

}  // namespace filterlab::engine
