// FP models of a block-local Bloom filter — every key and every query picks
// one B-bit block uniformly and makes k probes inside it — as Poisson
// mixtures over the number of keys in the block (declared in fp_model.h):
//   CacheLocalPoissonFpRate  the textbook mixture (Putze, Sanders, Singler 2007), which
//                            applies Bloom's per-block approximation;
//   CacheLocalIdealFpRate    the exact value for ideal hashing, and
//   CacheLocalIdealOccupancyFpRate the same as a sum of positive terms, its
//                            fallback where the closed form cancels.
#include <algorithm>
#include <cmath>
#include <numbers>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include "common/avx512_warnings.h"

// Eigen's vectorised exp/log use the AVX-512 intrinsics: GCC's false
// positives on them silenced for the Eigen headers only.
FILTERLAB_AVX512_WARNINGS_OFF
#include <Eigen/Core>
#include <unsupported/Eigen/SpecialFunctions>
FILTERLAB_AVX512_WARNINGS_ON

#include "filters/fp_model.h"
#include "filters/fp_model_internal.h"

namespace filterlab::fpmodel {
namespace {

using internal::OutOfDomain;
using internal::RequirePositive;
using internal::RequireProbes;

void RequireBlock(const char* function, double bits_per_key, int probes, int block_bits) {
  RequirePositive(function, "bits_per_key", bits_per_key);
  RequireProbes(function, probes);
  if (block_bits < 2) OutOfDomain(function, "block_bits", block_bits, "an integer >= 2");
  const double lambda = block_bits / bits_per_key;
  if (lambda > 1e9) OutOfDomain(function, "block_bits / bits_per_key", lambda, "<= 1e9 keys per block");
}

// Chernoff bound on a Poisson(lambda) tail: log P(J >= x) for x > lambda, or
// log P(J <= x) for x < lambda, is at most x - lambda - x ln(x / lambda).
double LogPoissonTailBound(double x, double lambda) {
  if (x <= 0) return -lambda;  // P(J <= 0) = e^{-lambda} exactly
  return x - lambda - x * std::log(x / lambda);
}

// log Pois(j; lambda) for j >= 1 without the cancellation of
// j ln(lambda) - lambda - lgamma(j + 1) (terms of size j ln j for a result
// of size ~1): by Stirling,
//   log Pois(j) = -ln(2 pi j)/2 - stirlerr(j) - bd0(j, lambda), where
//   stirlerr(j) = ln j! - ln(sqrt(2 pi j) (j/e)^j)
//               = 1/(12j) - 1/(360j^3) + 1/(1260j^5) - 1/(1680j^7) + 1/(1188j^9) - ...
//     (the series from j = 16 on, where the next term is < 2e-16; lgamma below),
//   bd0(j, lambda) = j ln(j/lambda) + lambda - j >= 0, which with
//     v = (j - lambda)/(j + lambda) is (j - lambda) v + 2j (v^3/3 + v^5/5 + ...)
//     (the series for |v| < 1/4, 15 terms, the plain form beyond).
// Relative error of the result ~1e-15 for any j and lambda.
Eigen::ArrayXd LogPoissonPmf(const Eigen::ArrayXd& j, double lambda) {
  const Eigen::ArrayXd inv = j.inverse();
  const Eigen::ArrayXd inv2 = inv * inv;
  const Eigen::ArrayXd series_stirlerr =
      inv * (1.0 / 12 - inv2 * (1.0 / 360 - inv2 * (1.0 / 1260 - inv2 * (1.0 / 1680 - inv2 * (1.0 / 1188)))));
  const double half_log_2pi = 0.5 * std::log(2 * std::numbers::pi);
  const Eigen::ArrayXd direct_stirlerr = (j + 1).lgamma() - (j + 0.5) * j.log() + j - half_log_2pi;
  const Eigen::ArrayXd stirlerr = (j >= 16).select(series_stirlerr, direct_stirlerr);

  const Eigen::ArrayXd v = (j - lambda) / (j + lambda);
  const Eigen::ArrayXd v2 = v * v;
  // Horner for 1/3 + v^2/5 + ... + v^28/31.
  Eigen::ArrayXd odd_series = Eigen::ArrayXd::Constant(j.size(), 1.0 / 31);
  for (int k = 14; k >= 1; --k) odd_series = odd_series * v2 + 1.0 / (2 * k + 1);
  const Eigen::ArrayXd series_bd0 = (j - lambda) * v + 2 * j * v * v2 * odd_series;
  const Eigen::ArrayXd direct_bd0 = j * (j / lambda).log() + lambda - j;
  const Eigen::ArrayXd bd0 = (v.abs() < 0.25).select(series_bd0, direct_bd0);

  return -0.5 * (2 * std::numbers::pi * j).log() - stirlerr - bd0;
}

}  // namespace

// Derivation. A key lands in a block chosen uniformly among the filter's
// blocks, so (Poissonising the binomial, exact as the number of blocks grows)
// the number J of keys in the block a query probes is Poisson(lambda) with
// lambda = B / b. Given J = j, the j keys made k j independent uniform probes
// into B bits, so a given bit is still 0 with probability (1 - 1/B)^{kj}, and
// taking the query's k probes as hitting set bits independently with that
// probability (Bloom's classic approximation, per block),
//   f(j) = (1 - (1 - 1/B)^{kj})^k,   FP = sum_j Pois(j; lambda) f(j).
// f(j) is (E[C]/B)^k for C the set bits of the block, whereas the true
// per-block rate is E[(C/B)^k] >= (E[C]/B)^k (Jensen): so this model is
// low by ~1% at B = 512, b = 10, k = 6 (0.9576% vs 0.9665% for ideal
// hashing, CacheLocalIdealFpRate); exact for k = 1.
//
// Evaluation: terms in log space (lambda^j / j! overflows for j > ~170),
//   log Pois(j) by LogPoissonPmf above,
//   log f(j) = k ln(-expm1(k j log1p(-1/B))),
// summed with Eigen over j in [j_lo, j_hi]. Truncation: f increases with j,
// and P(J >= m) >= 1/2 for m = floor(lambda) >= 1 (the Poisson median is at
// least lambda - ln 2), so the sum S >= f(m) P(J >= m) >= f(m)/2 and also
// S >= f(j_lo)/2 for j_lo <= m. We pick (with the Chernoff bound above)
//   j_hi so that P(J > j_hi) <= 1e-17 * S_lower, where S_lower = f(m') *
//        min(1/2, P(J >= 1)) and m' = max(1, floor(lambda)) — the omitted
//        right tail, each term <= Pois(j) * 1, is below 1e-17 * S;
//   j_lo so that P(J < j_lo) <= 0.5e-17 — the omitted left tail is at most
//        P(J < j_lo) f(j_lo) <= 1e-17 * S.
// So the truncation error is below 2e-17 relative, under the rounding error
// of the terms and their sum (~1e-15 relative). In practice the window is
// about lambda +- 9..10 sqrt(lambda) plus every j from 1 when lambda < ~40
// (about 150 terms at B = 512, b = 10).
double CacheLocalPoissonFpRate(double bits_per_key, int probes, int block_bits) {
  RequireBlock("CacheLocalPoissonFpRate", bits_per_key, probes, block_bits);
  const double lambda = block_bits / bits_per_key;
  const double log_bit_stays_zero_per_probe = std::log1p(-1.0 / block_bits);
  auto log_block_fp = [&](double j) {
    return probes * std::log(-std::expm1(probes * j * log_bit_stays_zero_per_probe));
  };

  const double anchor = std::max(1.0, std::floor(lambda));
  const double log_mass_at_or_above_anchor = std::log(std::min(0.5, -std::expm1(-lambda)));
  const double log_right_target = std::log(1e-17) + log_mass_at_or_above_anchor + log_block_fp(anchor);
  double j_hi = std::max(anchor, std::ceil(lambda));
  while (LogPoissonTailBound(j_hi + 1, lambda) > log_right_target) j_hi += 1;
  const double log_left_target = std::log(0.5e-17);
  double j_lo = std::floor(lambda);
  while (j_lo > 0 && LogPoissonTailBound(j_lo - 1, lambda) > log_left_target) j_lo -= 1;
  j_lo = std::max(j_lo, 1.0);  // f(0) = 0: an empty block never gives a false positive

  const auto count = static_cast<Eigen::Index>(j_hi - j_lo + 1);
  const Eigen::ArrayXd j = Eigen::ArrayXd::LinSpaced(count, j_lo, j_hi);
  const Eigen::ArrayXd log_fp = probes * (-(j * (probes * log_bit_stays_zero_per_probe)).expm1()).log();
  return (LogPoissonPmf(j, lambda) + log_fp).exp().sum();
}

// Derivation (same setting, no approximation beyond Poisson keys per block
// and ideal hashing: every probe of every key and query independent and
// uniform over the B bits, repeats allowed). Let the query's k probes hit s
// distinct positions; with probability pi_s (pi_0 = 1 before any probe; each
// probe is new with probability (B - s)/B: pi'_s = pi_s s/B + pi_{s-1}
// (B - s + 1)/B). Given J = j keys, all s positions are set with probability,
// by inclusion-exclusion over the ones left unset,
//   sum_{i=0..s} (-1)^i C(s, i) (1 - i/B)^{kj},
// and the Poisson generating function E[x^{kJ}] = e^{lambda (x^k - 1)} gives
//   FP = sum_{s=1..k} pi_s sum_{i=0..s} (-1)^i C(s, i) e^{-lambda (1 - (1 - i/B)^k)}.
// k(k+3)/2 terms. The inner sums alternate (up to 2^k in size against a result
// that can be ~1e-8 at k = 24), so the sum runs in long double with the error
// estimate and quad-precision fallback of TwoPerWordPoissonFpRate.
namespace {

// The query's FP given the distribution of how many distinct bits it probes:
//   sum_s pi_s sum_{u <= s} (-1)^u C(s, u) F(u),
// where pi_s = P(s distinct query bits) and F(u) = P(u given bits all stay
// unset) = all_set_factor[u] (inclusion-exclusion over which of the s bits
// are unset). An alternating sum: its terms' magnitudes are kept for the
// rounding estimate (`ulps_per_term`, internal::MakeAlternatingSum).
template <typename Real>
internal::AlternatingSum DistinctBitsInclusionExclusion(const std::vector<Real>& distinct,
                                                        const std::vector<Real>& all_set_factor, double ulps_per_term) {
  Real sum = 0, abs_sum = 0;
  for (int s = 1; s < static_cast<int>(distinct.size()); ++s) {
    Real binomial = 1;  // C(s, u)
    for (int u = 0; u <= s; ++u) {
      const Real term = distinct[s] * binomial * all_set_factor[u];
      sum += u % 2 == 0 ? term : -term;
      abs_sum += term;
      binomial = binomial * Real(s - u) / Real(u + 1);
    }
  }
  return internal::MakeAlternatingSum(sum, abs_sum, ulps_per_term);
}

// CacheLocalIdealFpRate's value as a sum of positive terms: the k j probes
// of j keys leave C set bits of the block, and the query's k independent
// uniform probes all land on set bits with probability (C/B)^k, so
//   FP = sum_j Pois(j; lambda) E[(C_{kj}/B)^k],
// with the distribution of C after t probes by the occupancy recurrence
// P_{t+1}(c) = P_t(c) c/B + P_t(c-1) (B-c+1)/B (exact, no cancellation: the
// relative error is a few ulps per term). O(k j_hi B) operations, so it is
// the fallback where the closed form cancels, which is where lambda is small
// (a few keys per block); nullopt where it would exceed ~2e8 operations or
// the terms leave double's range. The right tail is cut as in
// CacheLocalPoissonFpRate (f(j) = E[(C_{kj}/B)^k] grows with j, so the sum
// is at least f(m') min(1/2, P(J >= 1))): the omitted mass is below 1e-17
// of the sum.
std::optional<double> CacheLocalIdealByOccupancy(double bits_per_key, int probes, int block_bits) {
  const double lambda = block_bits / bits_per_key;
  const double anchor = std::max(1.0, std::floor(lambda));
  const double j_estimate = lambda + 12 * std::sqrt(lambda) + 40;
  if (j_estimate * probes * block_bits > 2e8) return std::nullopt;
  const double log_mass_at_or_above_anchor = std::log(std::min(0.5, -std::expm1(-lambda)));
  std::vector<double> occupancy(static_cast<size_t>(block_bits) + 1, 0.0);  // P(C = c) after the probes so far
  occupancy[0] = 1;
  int top = 0;                                                   // largest c with P(C = c) > 0
  std::vector<double> hit(static_cast<size_t>(block_bits) + 1);  // (c/B)^k
  for (int c = 0; c <= block_bits; ++c) hit[static_cast<size_t>(c)] = std::pow(double(c) / block_bits, probes);
  std::vector<double> f;  // f[j - 1] = E[(C_{kj}/B)^k]
  double log_right_target = 0;
  for (double j = 1;; j += 1) {
    for (int p = 0; p < probes; ++p) {
      top = std::min(top + 1, block_bits);
      for (int c = top; c >= 1; --c) {
        occupancy[static_cast<size_t>(c)] = occupancy[static_cast<size_t>(c)] * c / block_bits +
                                            occupancy[static_cast<size_t>(c) - 1] * (block_bits - c + 1) / block_bits;
      }
      occupancy[0] = 0;
    }
    double fj = 0;
    for (int c = 1; c <= top; ++c) fj += occupancy[static_cast<size_t>(c)] * hit[static_cast<size_t>(c)];
    f.push_back(fj);
    if (j == anchor) {
      if (!(fj > 0)) return std::nullopt;  // below double's range
      log_right_target = std::log(1e-17) + log_mass_at_or_above_anchor + std::log(fj);
    }
    if (j >= anchor && LogPoissonTailBound(j + 1, lambda) <= log_right_target) break;
  }
  const auto count = static_cast<Eigen::Index>(f.size());
  const Eigen::ArrayXd j = Eigen::ArrayXd::LinSpaced(count, 1, static_cast<double>(count));
  const Eigen::ArrayXd fs = Eigen::Map<const Eigen::ArrayXd>(f.data(), count);
  return (LogPoissonPmf(j, lambda).exp() * fs).sum();
}

}  // namespace

double CacheLocalIdealFpRate(double bits_per_key, int probes, int block_bits) {
  RequireBlock("CacheLocalIdealFpRate", bits_per_key, probes, block_bits);
  if (probes > 64) OutOfDomain("CacheLocalIdealFpRate", "probes", probes, "1..64");
  const double lambda_double = block_bits / bits_per_key;
  const int k = probes;
  const int max_distinct = std::min(k, block_bits);

  auto sum_in = [&](auto zero) {
    using Real = decltype(zero);
    const Real lambda = Real(block_bits) / Real(bits_per_key);
    // e^{-lambda (1 - (1 - i/B)^k)} for i = 0..max_distinct.
    std::vector<Real> all_set_factor(max_distinct + 1);
    for (int i = 0; i <= max_distinct; ++i) {
      Real one_minus_power;
      if constexpr (std::is_same_v<Real, long double>) {
        one_minus_power = -std::expm1(k * std::log1p(-static_cast<long double>(i) / block_bits));
      } else {
        Real power = 1;
        const Real x = 1 - Real(i) / Real(block_bits);
        for (int p = 0; p < k; ++p) power *= x;
        one_minus_power = 1 - power;
      }
      all_set_factor[i] = internal::Exp(-lambda * one_minus_power);
    }
    std::vector<Real> distinct(max_distinct + 1, Real(0));  // pi_s
    distinct[0] = 1;
    for (int p = 0; p < k; ++p) {
      for (int s = std::min(p + 1, max_distinct); s >= 1; --s) {
        distinct[s] =
            distinct[s] * Real(s) / Real(block_bits) + distinct[s - 1] * Real(block_bits - s + 1) / Real(block_bits);
      }
      distinct[0] = 0;
    }
    return DistinctBitsInclusionExclusion(distinct, all_set_factor, 8 + 4.0 * k + 4 * lambda_double);
  };
  double relative_error = 0;
  if (const std::optional<double> fp = internal::TryAccurateAlternatingSum(sum_in, &relative_error)) return *fp;
  // Few keys per block and many probes: the FP is far below the alternating
  // terms (one key in a 512-bit line at 21 probes, a FastLocalBloom filter
  // of one key at >= 44.5 bits/key: estimated error 2.2e-10 relative even in
  // quad precision), so the sum of positive terms above.
  if (const std::optional<double> fp = CacheLocalIdealByOccupancy(bits_per_key, probes, block_bits)) return *fp;
  internal::InaccurateSum("CacheLocalIdealFpRate(" + std::to_string(bits_per_key) + ", " + std::to_string(probes) +
                              ", " + std::to_string(block_bits) + ")",
                          relative_error);
}

// CacheLocalWalkFpRate: the same Poisson line load, but each key's probes
// walk the line without immediate repeats: bit_0 uniform, bit_i = bit_{i-1}
// XOR u_i with u_i uniform on 1..B-1 (worm's CACHE_WORM64: u_i = 1 +
// worm(511, h)). XOR with a uniform nonzero value moves to a uniform *other*
// bit of the line, so the offsets c_i = bit_i XOR bit_0 are a random walk on
// the complete graph over the B bits, started at 0. Derivation:
// 1. A key of the line hits a set U of u bits with a probability that
//    depends on u alone. Its bits are bit_0 XOR C, C = {c_0..c_{k-1}}, so
//    it misses U iff bit_0 is outside U XOR C; E|U XOR C| = sum_x P(C meets
//    x XOR U). C contains c_0 = 0, so the u values x in U always meet; for
//    the others the walk starts outside x XOR U and each step lands on a
//    uniform one of the B - 1 other bits, u of which are in the set, so it
//    stays outside with probability ((B-1-u)/(B-1))^{k-1}. Hence
//      P(hit U) = 1 - ((B-u)/B) ((B-1-u)/(B-1))^{k-1}.
// 2. The query's own bits are such a walk: its number of distinct bits s
//    follows the chain pi'_s = pi_s (s-1)/(B-1) + pi_{s-1} (B-s+1)/(B-1)
//    (from s visited bits, standing on one, the next step revisits one of
//    the other s - 1 with probability (s-1)/(B-1)), pi_1 = 1 after the
//    first bit.
// 3. As in CacheLocalIdealFpRate, by inclusion-exclusion over the subsets U
//    of the query's s bits left unset and Poisson(lambda) keys:
//      FP = sum_s pi_s sum_{u=0..s} (-1)^u C(s, u) e^{-lambda P(hit u bits)}.
// Exact for ideal hashing (uniform bit_0 and steps) and Poisson loads.
// Against independent probes it shifts the rate by -0.3..-0.8% at 6..24
// bits/key (fewer repeats in the query: more bits to cover; fewer in the
// keys: more bits set), the gap the model_accuracy experiment measured for
// cache_worm64.
double CacheLocalWalkFpRate(double bits_per_key, int probes, int block_bits) {
  RequireBlock("CacheLocalWalkFpRate", bits_per_key, probes, block_bits);
  if (probes > 64) OutOfDomain("CacheLocalWalkFpRate", "probes", probes, "1..64");
  const double lambda_double = block_bits / bits_per_key;
  const int k = probes;
  const int max_distinct = std::min(k, block_bits);
  auto sum_in = [&](auto zero) {
    using Real = decltype(zero);
    const Real lambda = Real(block_bits) / Real(bits_per_key);
    const Real bits = Real(block_bits), others = Real(block_bits - 1);
    std::vector<Real> all_set_factor(max_distinct + 1);
    for (int u = 0; u <= max_distinct; ++u) {
      Real stay_out = (bits - Real(u)) / bits;  // bit_0 outside U
      for (int p = 1; p < k; ++p) stay_out *= (others - Real(u)) / others;
      all_set_factor[u] = internal::Exp(-lambda * (1 - stay_out));
    }
    std::vector<Real> distinct(max_distinct + 1, Real(0));  // pi_s
    distinct[1] = 1;
    for (int p = 1; p < k; ++p) {
      for (int s = std::min(p + 1, max_distinct); s >= 1; --s) {
        distinct[s] =
            distinct[s] * Real(s - 1) / others + (s >= 2 ? distinct[s - 1] * (bits - Real(s - 1)) / others : Real(0));
      }
    }
    return DistinctBitsInclusionExclusion(distinct, all_set_factor, 8 + 4.0 * k + 4 * lambda_double);
  };
  return internal::AccurateAlternatingSum(sum_in, "CacheLocalWalkFpRate(" + std::to_string(bits_per_key) + ", " +
                                                      std::to_string(probes) + ", " + std::to_string(block_bits) + ")");
}

double CacheLocalIdealOccupancyFpRate(double bits_per_key, int probes, int block_bits) {
  RequireBlock("CacheLocalIdealOccupancyFpRate", bits_per_key, probes, block_bits);
  if (const std::optional<double> fp = CacheLocalIdealByOccupancy(bits_per_key, probes, block_bits)) return *fp;
  OutOfDomain("CacheLocalIdealOccupancyFpRate", "(B/b + 12 sqrt(B/b) + 40) k B",
              (block_bits / bits_per_key + 12 * std::sqrt(block_bits / bits_per_key) + 40) * probes * block_bits,
              "<= 2e8 operations, with a nonzero FP in double");
}

}  // namespace filterlab::fpmodel
