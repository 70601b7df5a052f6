// Distribution: every sample of a measurement (per-call latencies, or the
// counts approximatememtablestats reports), summarised the way db_bench's
// histograms are (count, mean, standard deviation, min, median, max,
// percentiles, a bucketed histogram). Unlike db_bench, which interpolates
// inside fixed buckets, samples are kept and percentiles are exact order
// statistics (linear interpolation between neighbours), so P50 of integer
// counts is an observed value or the midpoint of two. Memory: 8 bytes per
// sample (10^7 samples = 80 MB).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace filterlab::lsmbench {

class Distribution {
 public:
  void Reserve(size_t n) { samples_.reserve(n); }
  void Add(double v);
  // Adds every sample of `other` (e.g. the latencies of another thread).
  void Merge(const Distribution& other);

  size_t count() const { return samples_.size(); }
  // All of these are 0 for an empty distribution.
  double mean() const;
  // Population standard deviation (divide by n), as db_bench reports.
  double stddev() const;
  double min() const;
  double max() const;
  // p in [0, 100]: the p-th percentile by linear interpolation between the
  // order statistics at ranks floor and ceil of p/100 · (n − 1).
  double Percentile(double p) const;
  // Fraction of samples equal to v.
  double FractionEqual(double v) const;

  // db_bench-style text: summary lines, percentiles P50 P75 P99 P99.9
  // P99.99, then one line per non-empty bucket "[ lo, hi ) count pct cum% ###".
  // Bucket edges run 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, then 10, 12, 14, 16, 18, 20,
  // 25, 30, 35, 40, 45, 50, 60, 70, 80, 90 and the same pattern per decade.
  std::string ToString() const;
  // The same buckets as [[lower edge, count], ...], non-empty ones only.
  std::vector<std::pair<double, uint64_t>> Buckets() const;

 private:
  void Sort() const;

  mutable std::vector<double> samples_;
  mutable bool sorted_ = true;
  double sum_ = 0;
};

// The lower edge of the histogram bucket holding v >= 0, and its upper edge.
void BucketBounds(double v, double* lo, double* hi);

}  // namespace filterlab::lsmbench
