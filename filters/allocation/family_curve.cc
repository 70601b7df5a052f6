#include "filters/allocation/family_curve.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <mutex>

#include "filters/filter_spec.h"
#include "filters/registry.h"
#include "hashing/remix.h"

namespace filterlab::allocation {
namespace {

// The bpk values a menu offers: fine where the allocation's optimum usually
// lies (a level's FP changes ~e^-0.48 per bit), coarser above.
std::vector<double> BpkGrid() {
  std::vector<double> grid;
  for (double b = 0.5; b <= 8.0; b += 0.25) grid.push_back(b);
  for (double b = 8.5; b <= 24.0; b += 0.5) grid.push_back(b);
  for (double b = 26; b <= 48; b += 2) grid.push_back(b);
  return grid;
}

bool IsSizeParam(const std::string& key) { return key == "bpk" || key == "probes" || key == "fp"; }

// Memory per key of `policy`'s filter over kSizingKeys synthetic keys.
Status MeasureBitsPerKey(const FilterPolicy& policy, double* bits_per_key) {
  std::vector<uint64_t> hashes(FamilyCurve::kSizingKeys);
  SplitMix64 gen(0x5eed);
  for (uint64_t& h : hashes) {
    const uint64_t key = gen.Next();
    h = policy.HashKey(Slice(reinterpret_cast<const char*>(&key), sizeof key));
  }
  std::unique_ptr<Filter> filter;
  Status s = policy.Build(hashes.data(), hashes.size(), &filter);
  if (!s.ok()) return s;
  *bits_per_key = 8.0 * static_cast<double>(filter->DataBytes()) / static_cast<double>(hashes.size());
  return Status::OK();
}

}  // namespace

Status FamilyCurve::Make(std::string_view family_text, std::shared_ptr<const FamilyCurve>* out) {
  static std::mutex mu;
  static std::map<std::string, std::shared_ptr<const FamilyCurve>, std::less<>> cache;
  std::lock_guard<std::mutex> l(mu);
  if (auto it = cache.find(family_text); it != cache.end()) {
    *out = it->second;
    return Status::OK();
  }
  FilterSpec spec;
  Status s = FilterSpec::Parse(family_text, &spec);
  std::unique_ptr<FilterPolicy> probe;
  std::vector<std::string> accepted;
  if (s.ok()) s = NewFilterPolicy(family_text, &probe, &accepted);
  if (!s.ok()) {
    return Status::InvalidArgument("filter family '" + std::string(family_text) + "': " + s.message());
  }
  auto curve = std::shared_ptr<FamilyCurve>(new FamilyCurve());
  curve->sized_by_bpk_ = std::find(accepted.begin(), accepted.end(), "bpk") != accepted.end();
  if (!curve->sized_by_bpk_) {
    curve->family_ = probe->spec();
    Point p;
    s = MeasureBitsPerKey(*probe, &p.bits_per_key);
    if (!s.ok()) return s;
    p.policy = std::move(probe);
    curve->points_.push_back(std::move(p));
  } else {
    std::string fixed;
    for (const auto& [key, value] : spec.Params()) {
      if (!IsSizeParam(key)) fixed += "," + key + "=" + value;
    }
    curve->family_ = spec.variant() + (fixed.empty() ? "" : ":" + fixed.substr(1));
    for (const double bpk : BpkGrid()) {
      std::unique_ptr<FilterPolicy> policy;
      // A bpk outside the variant's range is simply not on its menu.
      if (!NewFilterPolicy(spec.variant() + ":bpk=" + FormatNumber(bpk) + fixed, &policy).ok()) continue;
      Point p;
      p.bpk_param = bpk;
      s = MeasureBitsPerKey(*policy, &p.bits_per_key);
      if (!s.ok()) return s;
      p.policy = std::move(policy);
      curve->points_.push_back(std::move(p));
    }
    if (curve->points_.empty()) {
      return Status::InvalidArgument("filter family '" + curve->family_ +
                                     "': the variant accepts none of the bpk values 0.5..48");
    }
    std::stable_sort(curve->points_.begin(), curve->points_.end(),
                     [](const Point& a, const Point& b) { return a.bits_per_key < b.bits_per_key; });
  }
  cache.emplace(std::string(family_text), curve);
  *out = std::move(curve);
  return Status::OK();
}

namespace {

// The menu interval [i, i+1] holding `bits` and the position t in it (0..1),
// clamped to the menu.
void Locate(const std::vector<FamilyCurve::Point>& points, double bits, size_t* i, double* t) {
  *i = 0;
  *t = 0;
  if (points.size() == 1 || bits <= points.front().bits_per_key) return;
  if (bits >= points.back().bits_per_key) {
    *i = points.size() - 2;
    *t = 1;
    return;
  }
  while (points[*i + 1].bits_per_key < bits) ++*i;
  const double lo = points[*i].bits_per_key, hi = points[*i + 1].bits_per_key;
  *t = hi > lo ? (bits - lo) / (hi - lo) : 1;
}

}  // namespace

std::string FamilyCurve::SpecForBits(double bits_per_key) const {
  if (!sized_by_bpk_) return points_.front().policy->spec();
  size_t i;
  double t;
  Locate(points_, bits_per_key, &i, &t);
  const double bpk = points_.size() == 1 ? points_[0].bpk_param
                                         : points_[i].bpk_param + t * (points_[i + 1].bpk_param - points_[i].bpk_param);
  FilterSpec spec;
  (void)FilterSpec::Parse(family_, &spec);  // parsed once already in Make
  const double millibits = std::round(bpk * 1000) / 1000;
  return spec.WithParam("bpk", FormatNumber(millibits));
}

double FamilyCurve::BitsForBits(double bits_per_key) const {
  if (points_.size() == 1) return points_[0].bits_per_key;
  size_t i;
  double t;
  Locate(points_, bits_per_key, &i, &t);
  return points_[i].bits_per_key + t * (points_[i + 1].bits_per_key - points_[i].bits_per_key);
}

}  // namespace filterlab::allocation
