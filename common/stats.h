// Confidence intervals for sampled rates. The simulator reports the 95%
// Wilson score interval for a binomial proportion (positives out of queries):
// unlike the plain normal interval it stays inside [0, 1] and keeps close to
// nominal coverage when positives are few (FP rates of 1e-7 give a handful of
// hits), and unlike Clopper-Pearson it needs no inverse incomplete beta. Its
// coverage is checked on a synthetic Bernoulli source in stats_test.cc.
#pragma once

#include <cstdint>
#include <vector>

namespace filterlab {

// Two-sided standard-normal quantile for 95%: Phi^{-1}(0.975).
inline constexpr double kZ95 = 1.959963984540054;

struct Interval {
  double low;
  double high;
};

// Wilson score interval for `successes` out of `trials` at normal quantile z.
// trials == 0 gives [0, 1].
Interval WilsonInterval(uint64_t successes, uint64_t trials, double z = kZ95);

// Interval for a difference of two paired proportions (the same queries put to
// two filters): b = queries only the first says positive, c = only the second.
// Returns the Wald interval for (b - c) / trials with the variance of the
// discordant counts (the McNemar setting); with few discordant pairs it is
// approximate, which callers state.
Interval PairedDifferenceInterval(uint64_t only_first, uint64_t only_second, uint64_t trials, double z = kZ95);

// Median of `values` (the mean of the middle two for an even count); NaN for
// none. The speed command takes it over rounds, so one round disturbed by
// other load on a shared host does not move the figure.
double Median(std::vector<double> values);

}  // namespace filterlab
