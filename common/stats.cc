#include "common/stats.h"

#include <algorithm>
#include <cmath>

namespace filterlab {

// Wilson: the set of p for which |p_hat - p| <= z sqrt(p(1-p)/n), solved for p:
// centre (p_hat + z^2/2n) / (1 + z^2/n), half-width
// z sqrt(p_hat(1-p_hat)/n + z^2/4n^2) / (1 + z^2/n).
Interval WilsonInterval(uint64_t successes, uint64_t trials, double z) {
  if (trials == 0) return {0.0, 1.0};
  const double n = static_cast<double>(trials);
  const double p = static_cast<double>(successes) / n;
  const double z2 = z * z;
  const double denom = 1.0 + z2 / n;
  const double centre = (p + z2 / (2.0 * n)) / denom;
  const double half = z * std::sqrt(p * (1.0 - p) / n + z2 / (4.0 * n * n)) / denom;
  // The exact endpoints at 0 and n successes are 0 and 1; rounding must not
  // move them.
  const double low = successes == 0 ? 0.0 : std::max(0.0, centre - half);
  const double high = successes == trials ? 1.0 : std::min(1.0, centre + half);
  return {low, high};
}

Interval PairedDifferenceInterval(uint64_t only_first, uint64_t only_second, uint64_t trials, double z) {
  if (trials == 0) return {-1.0, 1.0};
  const double n = static_cast<double>(trials);
  const double b = static_cast<double>(only_first);
  const double c = static_cast<double>(only_second);
  const double diff = (b - c) / n;
  // Var(b - c) for multinomial counts: (b + c) - (b - c)^2 / n, per n^2.
  const double var = std::max(0.0, (b + c) - (b - c) * (b - c) / n) / (n * n);
  // With no discordant pair at all, allow one (a "rule of three"-like floor)
  // so the interval never collapses to a point.
  const double half = z * std::sqrt(std::max(var, 1.0 / (n * n)));
  return {diff - half, diff + half};
}

double Median(std::vector<double> values) {
  if (values.empty()) return std::nan("");
  const size_t mid = values.size() / 2;
  std::nth_element(values.begin(), values.begin() + mid, values.end());
  const double upper = values[mid];
  if (values.size() % 2 == 1) return upper;
  const double lower = *std::max_element(values.begin(), values.begin() + mid);
  return (lower + upper) / 2;
}

}  // namespace filterlab
