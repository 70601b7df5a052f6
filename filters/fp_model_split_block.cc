// FP model of the 256-bit split block (Parquet's split-block Bloom filter,
// worm's cache_simd variants): SplitBlockPoissonFpRate, declared in
// fp_model.h. Derivation first, then the evaluation.
#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <string>

#include "filters/fp_model.h"
#include "filters/fp_model_internal.h"

namespace filterlab::fpmodel {

// Derivation. A block is 256 bits in eight 32-bit lanes. With L blocks and
// D distinct hashes, the block a query lands in holds J keys, Binomial(D, 1/L),
// which for large L is Poisson(lambda = D/L = 256/b), b = 256 L / D. A key
// activates a window of k = probes consecutive lanes, W_r = {r, r+1, ...,
// r+k-1} mod 8, starting at a uniform lane r (every lane at k = 8), and sets
// one uniform bit in each active lane, independently of its other lanes and
// of the other keys. A query (by symmetry with window W_0 = {0..k-1}) is
// positive iff each of its lanes l has its bit set. Given the block's keys,
// lane l holds c_l active keys and the query's bit in it is set with
// probability 1 - s^{c_l}, s = 31/32, independently across lanes, so
//   FP = E[ prod_{l in W_0} (1 - s^{c_l}) ]
//      = sum_{U subset of W_0} (-1)^{|U|} E[ s^{sum_{l in U} c_l} ]
//      = sum_U (-1)^{|U|} E[ prod_keys s^{|U cap W_r(key)|} ].
// One key of the block contributes g(U) = (1/8) sum_r s^{|U cap W_r|}, so
// with Poisson(lambda) keys E[...] = e^{lambda (g(U) - 1)}:
//   FP = sum_U (-1)^{|U|} exp(lambda (g(U) - 1)),   2^k terms.
// At k = 8 every window is all lanes, g(U) = s^{|U|}, and the sum is
//   sum_i C(8, i) (-1)^i e^{lambda (s^i - 1)} = sum_j Pois(j; lambda) (1 - s^j)^8:
// Parquet's split block, every lane's bit from its own salt. For k < 8 the
// lanes a query tests are covered by overlapping windows, so the lanes'
// loads are correlated (a key covering lane 0 more likely covers lane 1);
// the earlier mixture sum_j Pois(j) (1 - (1 - k/256)^j)^k took them as
// independent and was off by -1.5% at 10 bits/key, k = 6 (+1% at 6 bits/key).
// Exact for ideal hashing (independent uniform lane bits and window starts)
// and Poisson loads; the Binomial(D, 1/L) load of a finite filter changes it
// by O(1/L) relative (below 1e-5 at 10^6 keys).
//
// Evaluation: 2^k terms of alternating sign, each at most 1, in long double
// and, where the estimated rounding error exceeds 1e-10 relative (tiny rates
// at high bits/key), in quad precision (fp_model_internal.h).
namespace {

template <typename Real>
internal::AlternatingSum SplitBlockSum(double bits_per_key, int probes) {
  const Real lambda = Real(256) / Real(bits_per_key);
  const Real s = Real(31) / Real(32);
  Real s_power[9];
  s_power[0] = 1;
  for (int i = 1; i <= 8; ++i) s_power[i] = s_power[i - 1] * s;
  Real sum = 0, abs_sum = 0;
  for (uint32_t u = 0; u < (1u << probes); ++u) {  // U as a mask of the query's lanes 0..k-1
    Real g = 0;
    for (int r = 0; r < 8; ++r) {
      // Window W_r as a mask of lanes, rotated: lanes r..r+k-1 mod 8.
      const uint32_t window_bits = (1u << probes) - 1;
      const uint32_t window = ((window_bits << r) | (window_bits >> (8 - r))) & 0xffu;
      g += s_power[std::popcount(u & window)];
    }
    g /= 8;
    const Real term = internal::Exp(lambda * (g - 1));
    if (std::popcount(u) % 2 == 0) {
      sum += term;
    } else {
      sum -= term;
    }
    abs_sum += term;
  }
  // Each term: one exponential of an argument ~lambda in size (~lambda ulps).
  return internal::MakeAlternatingSum(sum, abs_sum, 4 + 2 * static_cast<double>(256 / bits_per_key));
}

}  // namespace

double SplitBlockPoissonFpRate(double bits_per_key, int probes) {
  internal::RequirePositive("SplitBlockPoissonFpRate", "bits_per_key", bits_per_key);
  if (probes < 1 || probes > 8) internal::OutOfDomain("SplitBlockPoissonFpRate", "probes", probes, "1..8");
  const double lambda = 256.0 / bits_per_key;
  if (lambda > 1e7) {
    internal::OutOfDomain("SplitBlockPoissonFpRate", "256 / bits_per_key", lambda, "<= 1e7 keys per block");
  }
  auto sum_in = [&](auto zero) { return SplitBlockSum<decltype(zero)>(bits_per_key, probes); };
  const double fp = internal::AccurateAlternatingSum(
      sum_in, "SplitBlockPoissonFpRate(" + std::to_string(bits_per_key) + ", " + std::to_string(probes) + ")");
  return std::clamp(fp, 0.0, 1.0);
}

}  // namespace filterlab::fpmodel
