// FP model of the 256-bit split block (Parquet's split-block Bloom filter,
// worm's cache_simd variants): SplitBlockPoissonFpRate, declared in
// fp_model.h. Derivation first, then the evaluation.
#include <cmath>

#include "filters/fp_model.h"
#include "filters/fp_model_internal.h"

namespace filterlab::fpmodel {

// Derivation. A block is 256 bits in eight 32-bit lanes. With L blocks and
// D distinct hashes, the block a query lands in holds J keys, Binomial(D, 1/L),
// which for large L is Poisson(lambda = D/L = 256/b), b = 256 L / D. A
// stored key activates each lane with probability k/8 (k = probes: k of the
// 8 lanes, the rotation uniform) and sets one uniform bit of that lane's 32,
// so a given bit survives one key with probability 1 - (k/8)(1/32) =
// 1 - k/256 and j keys with (1 - k/256)^j. A query tests k bits in k
// distinct lanes:
//   FP = sum_j Pois(j; lambda) (1 - (1 - k/256)^j)^k.
// k = 8 (every key sets one bit in every lane, each lane's bit from its own
// salt): given j, the lanes' contents are independent and a query's bit in a
// lane is set with probability exactly 1 - (31/32)^j, so the mixture is exact
// for ideal hashing (up to Poisson for Binomial: the mixture over Binomial(D,
// 1/L) differs by O(1/L), below 1e-3 relative from 64 blocks on at b >= 6).
// k < 8: a stored key's active lanes are k consecutive ones, so the lanes a
// query tests are not covered independently; the model is an approximation
// (measured 1.5% below it at 10 bits/key, k = 6, worm cache_simd_fastrange32).
// Compare the one-probe-per-access line model, whose per-key survival
// (1 - 1/B)^k is larger: one bit per lane means a key's bits never coincide.
//
// Evaluation: each term is computed directly (no alternating sum), the pmf in
// log space, from j = 0 to well past the mode (mode + 20 + 12 sqrt(lambda):
// the Poisson tail beyond is < 1e-30).
double SplitBlockPoissonFpRate(double bits_per_key, int probes) {
  internal::RequirePositive("SplitBlockPoissonFpRate", "bits_per_key", bits_per_key);
  if (probes < 1 || probes > 8) internal::OutOfDomain("SplitBlockPoissonFpRate", "probes", probes, "1..8");
  const double lambda = 256.0 / bits_per_key;
  if (lambda > 1e7) {
    internal::OutOfDomain("SplitBlockPoissonFpRate", "256 / bits_per_key", lambda, "<= 1e7 keys per block");
  }
  const double survive = 1.0 - probes / 256.0;
  const double log_lambda = std::log(lambda);
  const auto mode = static_cast<long>(lambda);
  const long last = mode + 20 + static_cast<long>(12.0 * std::sqrt(lambda));
  double sum = 0.0;
  for (long j = 1; j <= last; ++j) {  // j = 0: an empty block never matches
    const double log_pmf = j * log_lambda - lambda - std::lgamma(static_cast<double>(j) + 1.0);
    const double fp_at_j = std::pow(-std::expm1(j * std::log(survive)), probes);
    sum += std::exp(log_pmf) * fp_at_j;
  }
  return sum;
}

}  // namespace filterlab::fpmodel
