// Helpers shared by the fp_model*.cc files (not part of the API): argument
// checks with uniform messages, and the extended precision the alternating
// sums of the exact models fall back to when long double is not enough.
#pragma once

#include <cfloat>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace filterlab::fpmodel::internal {

[[noreturn]] inline void OutOfDomain(const char* function, const char* param, double value, const char* allowed) {
  char value_text[40];
  std::snprintf(value_text, sizeof value_text, "%.17g", value);
  throw std::invalid_argument(std::string("fpmodel::") + function + ": " + param + " = " + value_text +
                              " is out of range (allowed: " + allowed + ")");
}

inline void RequirePositive(const char* function, const char* param, double value) {
  if (!(value > 0) || !std::isfinite(value)) OutOfDomain(function, param, value, "a finite number > 0");
}

inline void RequireProbes(const char* function, int probes) {
  if (probes < 1) OutOfDomain(function, "probes", probes, "an integer >= 1");
}

// Quad precision where the compiler has it (x86-64: __float128, arithmetic in
// libgcc; aarch64: long double is already IEEE quad).
#if defined(__SIZEOF_FLOAT128__) && LDBL_MANT_DIG < 113
#define FILTERLAB_FPMODEL_FLOAT128 1
using Quad = __float128;
inline constexpr bool kHaveWiderQuad = true;
#else
using Quad = long double;
inline constexpr bool kHaveWiderQuad = false;
#endif

inline long double Exp(long double y) { return std::exp(y); }

template <typename Real>
Real Epsilon();
template <>
inline long double Epsilon<long double>() {
  return LDBL_EPSILON;
}

#ifdef FILTERLAB_FPMODEL_FLOAT128
// e^y for y <= 0 in quad precision (libquadmath is not linked): y = k ln 2 +
// r with |r| <= ~0.35, then 34 Taylor terms (r^35 / 35! < 1e-56). ln 2 is
// given as a 64-bit-mantissa head plus tail (together ~1e-38 accurate).
inline Quad Exp(Quad y) {
  if (y < -11000) return 0;  // far below every term that matters; keeps 2^k a normal long double
  const Quad ln2 = static_cast<Quad>(0xb17217f7d1cf79acp-64L) - static_cast<Quad>(0xd871319ff0342543p-130L);
  const long k = std::lround(static_cast<double>(y / ln2));
  const Quad r = y - static_cast<Quad>(k) * ln2;
  Quad term = 1, sum = 1;
  for (int i = 1; i <= 34; ++i) {
    term *= r / i;
    sum += term;
  }
  return sum * static_cast<Quad>(std::ldexp(1.0L, static_cast<int>(k)));
}

template <>
inline Quad Epsilon<Quad>() {
  return static_cast<Quad>(std::ldexp(1.0L, -112));
}
#endif

// The result of an alternating sum and the estimate of its rounding error:
// sum of |terms| / |sum| times the ulps each term may be off, in units of
// Real's epsilon.
struct AlternatingSum {
  double value = 0;
  double relative_error = std::numeric_limits<double>::infinity();
};

template <typename Real>
AlternatingSum MakeAlternatingSum(Real sum, Real abs_sum, double ulps_per_term) {
  AlternatingSum result;
  result.value = static_cast<double>(sum);
  if (sum > 0) result.relative_error = static_cast<double>(abs_sum / sum * Epsilon<Real>()) * ulps_per_term;
  return result;
}

// Evaluates sum_in<Real>() in long double and, if its estimated relative
// error exceeds 1e-10, again in quad precision. The value, or nullopt if
// even quad precision is not accurate enough; *relative_error (if given)
// gets the last estimate.
inline constexpr double kMaxAlternatingSumError = 1e-10;
template <typename SumIn>
std::optional<double> TryAccurateAlternatingSum(const SumIn& sum_in, double* relative_error = nullptr) {
  AlternatingSum s = sum_in(static_cast<long double>(0));
  if (s.relative_error > kMaxAlternatingSumError && kHaveWiderQuad) s = sum_in(static_cast<Quad>(0));
  if (relative_error != nullptr) *relative_error = s.relative_error;
  if (s.relative_error <= kMaxAlternatingSumError) return s.value;
  return std::nullopt;
}

[[noreturn]] inline void InaccurateSum(const std::string& what, double relative_error) {
  char error_text[32];
  std::snprintf(error_text, sizeof error_text, "%.3g", relative_error);
  throw std::domain_error("fpmodel: cannot evaluate " + what + " accurately (estimated rounding error " + error_text +
                          " relative; fewer bits/key or probes are fine)");
}

// TryAccurateAlternatingSum, throwing std::domain_error naming `what` where
// it has no accurate value.
template <typename SumIn>
double AccurateAlternatingSum(const SumIn& sum_in, const std::string& what) {
  double relative_error = 0;
  const std::optional<double> value = TryAccurateAlternatingSum(sum_in, &relative_error);
  if (!value) InaccurateSum(what, relative_error);
  return *value;
}

// Probe patterns inside a line (fp_model_pattern_cover.cc, derivation there).
// count[T] becomes sum_{S ⊆ T} count[S] over `bits`-bit masks (the zeta
// transform: within[T] from the histogram of the patterns' cover masks).
void SubsetSums(std::vector<uint32_t>* count, int bits);

// P(the stored patterns cover all `bits` query bits) when each of the `total`
// patterns with a nonempty cover is stored as Poisson(mu) keys and
// within[T] = #{patterns with nonempty cover ⊆ T}:
//   sum_T (-1)^{bits-|T|} exp(-mu (total - within[T])),
// except that the query's own pattern (counted in within/total at mu, its
// cover the full mask) carries own_mu keys (own_mu = mu: no exception).
// Alternating: summed by AccurateAlternatingSum; clamped to [0, 1].
double PatternCoverFp(const std::vector<uint32_t>& within, uint32_t total, double mu, int bits, double own_mu);

}  // namespace filterlab::fpmodel::internal
