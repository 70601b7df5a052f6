#include "engine/bench/distribution.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace filterlab::lsmbench {

void Distribution::Add(double v) {
  if (!samples_.empty() && v < samples_.back()) sorted_ = false;
  samples_.push_back(v);
  sum_ += v;
}

void Distribution::Merge(const Distribution& other) {
  if (other.samples_.empty()) return;
  samples_.insert(samples_.end(), other.samples_.begin(), other.samples_.end());
  sum_ += other.sum_;
  sorted_ = false;
}

void Distribution::Sort() const {
  if (!sorted_) {
    std::sort(samples_.begin(), samples_.end());
    sorted_ = true;
  }
}

double Distribution::mean() const { return samples_.empty() ? 0 : sum_ / static_cast<double>(samples_.size()); }

double Distribution::stddev() const {
  if (samples_.empty()) return 0;
  // Second pass over the samples rather than a running sum of squares, which
  // loses precision when the spread is small against the mean.
  const double m = mean();
  double acc = 0;
  for (double v : samples_) acc += (v - m) * (v - m);
  return std::sqrt(acc / static_cast<double>(samples_.size()));
}

double Distribution::min() const {
  if (samples_.empty()) return 0;
  Sort();
  return samples_.front();
}

double Distribution::max() const {
  if (samples_.empty()) return 0;
  Sort();
  return samples_.back();
}

double Distribution::Percentile(double p) const {
  if (samples_.empty()) return 0;
  Sort();
  p = std::clamp(p, 0.0, 100.0);
  const double rank = p / 100.0 * static_cast<double>(samples_.size() - 1);
  const size_t lo = static_cast<size_t>(std::floor(rank));
  const size_t hi = std::min(lo + 1, samples_.size() - 1);
  const double frac = rank - static_cast<double>(lo);
  return samples_[lo] + (samples_[hi] - samples_[lo]) * frac;
}

double Distribution::FractionEqual(double v) const {
  if (samples_.empty()) return 0;
  Sort();
  const auto range = std::equal_range(samples_.begin(), samples_.end(), v);
  return static_cast<double>(range.second - range.first) / static_cast<double>(samples_.size());
}

void BucketBounds(double v, double* lo, double* hi) {
  if (v < 10) {
    *lo = std::floor(std::max(v, 0.0));
    *hi = *lo + 1;
    return;
  }
  // Steps within a decade [10^k, 10^(k+1)), in units of 10^(k-1).
  static constexpr double kEdges[] = {10, 12, 14, 16, 18, 20, 25, 30, 35, 40, 45, 50, 60, 70, 80, 90, 100};
  double scale = 1;
  while (v >= scale * 100) scale *= 10;
  for (size_t i = 0; i + 1 < std::size(kEdges); ++i) {
    if (v < kEdges[i + 1] * scale) {
      *lo = kEdges[i] * scale;
      *hi = kEdges[i + 1] * scale;
      return;
    }
  }
  *lo = 100 * scale;  // unreachable for finite v: the loop above stops one decade early
  *hi = 120 * scale;
}

std::vector<std::pair<double, uint64_t>> Distribution::Buckets() const {
  std::vector<std::pair<double, uint64_t>> out;
  Sort();
  for (size_t i = 0; i < samples_.size();) {
    double lo = 0, hi = 0;
    BucketBounds(samples_[i], &lo, &hi);
    size_t j = i;
    while (j < samples_.size() && samples_[j] < hi) ++j;
    out.emplace_back(lo, j - i);
    i = j;
  }
  return out;
}

std::string Distribution::ToString() const {
  std::string out;
  char line[256];
  const size_t n = samples_.size();
  std::snprintf(line, sizeof line, "Count: %zu Average: %.4f  StdDev: %.2f\n", n, mean(), stddev());
  out += line;
  std::snprintf(line, sizeof line, "Min: %.4f  Median: %.4f  Max: %.4f\n", min(), Percentile(50), max());
  out += line;
  std::snprintf(line, sizeof line, "Percentiles: P50: %.2f P75: %.2f P99: %.2f P99.9: %.2f P99.99: %.2f\n",
                Percentile(50), Percentile(75), Percentile(99), Percentile(99.9), Percentile(99.99));
  out += line;
  out += "------------------------------------------------------\n";
  size_t cumulative = 0;
  for (const auto& [lo, in_bucket] : Buckets()) {
    double lower = 0, hi = 0;
    BucketBounds(lo, &lower, &hi);
    cumulative += in_bucket;
    const double pct = 100.0 * static_cast<double>(in_bucket) / static_cast<double>(n);
    const int marks = static_cast<int>(std::lround(pct / 5));  // one '#' per 5%, as db_bench
    std::snprintf(line, sizeof line, "[ %10.0f, %10.0f ) %8llu %7.3f%% %7.3f%% %s\n", lo, hi,
                  static_cast<unsigned long long>(in_bucket), pct,
                  100.0 * static_cast<double>(cumulative) / static_cast<double>(n),
                  std::string(static_cast<size_t>(marks), '#').c_str());
    out += line;
  }
  return out;
}

}  // namespace filterlab::lsmbench
