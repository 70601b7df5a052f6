// Probe patterns inside one 512-bit line, and the FP model of RocksDB's legacy
// full filter built on them (declared in fp_model.h and fp_model_internal.h).
//
// The cover probability (fpmodel::internal::PatternCoverFp). Fix a query's
// line and its set Q of probed bits, numbered 0..q-1. A stored hash v of the
// line covers S_v = (v's bits) ∩ Q, a q-bit mask. The query is a false
// positive iff the stored hashes' S_v together cover Q; by inclusion-exclusion
// over the set T ⊆ Q that they all stay inside,
//   P(cover) = sum_{T ⊆ Q} (-1)^{q-|T|} P(every stored v has S_v ⊆ T).
// If every possible pattern (a key's probe set) is stored independently as a
// Poisson(mu) number of keys, P(no stored v has S_v ⊄ T) = e^{-mu c(T)},
// c(T) = #{patterns with S ⊄ T} = total - within[T], where within[T] counts
// the patterns with a nonempty S ⊆ T (a subset sum, the zeta transform of the
// histogram of S). Cost: patterns * q to histogram, q 2^q to sum up.
//
// The legacy line (fpmodel::LegacyLineFpRate). RocksDB's format_version <= 4
// full filter (filters/legacy_bloom.h) takes, from one 32-bit hash h, the
// line h mod L (L odd) and the in-line bits s + i*d (mod 512), i < k, with
// s = h mod 512 and d = rotr32(h, 17) mod 512 = bits 17..25 of h: an
// arithmetic progression whose step need not be a unit mod 512, so the bits
// repeat when d is even (512/2^v distinct bits at 2-adic valuation v, one
// bit at d = 0). Call (s, d) the pattern: 2^18 of them.
//
// 1. Patterns as if independent. Each key of the line has a uniform
//    pattern, independent of the others and of the query's, and the line's
//    load is Poisson(lambda), lambda = hashes / L: mu = lambda / 2^18 per
//    pattern. The map x -> u x + c (u odd) permutes Z/512 and maps the
//    pattern (s, d) to (u s + c, u d), a bijection of all patterns, so a
//    query is equivalent to start 0 and step 2^v, v its step's valuation
//    (probability 2^-(v+1) for v < 9, and 1/512 for d = 0, "v = 9"): ten
//    query classes, each with q = min(k, 512/2^v) distinct bits.
// 2. The 32-bit lattice. The members of line r are the values h = r + jL,
//    each stored with probability p = hashes/2^32. Their patterns are not
//    independent draws: consecutive members shift s by L mod 512 and d by
//    L/2^17, so the ~2^32/L members of a line spread over the 2^18 patterns
//    like a lattice, x = 2^32 / (L 2^18) per pattern, evenly (counts floor(x)
//    or ceil(x)), not Poisson. Spread evenly or thinned from Poisson, a
//    pattern other than the query's carries mu = p x stored keys on average
//    either way; the difference is the query's own pattern: the query is one
//    of its members, and the others number (size-biased over the even counts
//    a = floor(x), f = x - a) a (a - 1 + 2f) / x, not x. For x < 1 (more than
//    2^14 lines: above ~8*10^5 keys at 10 bits/key) that is none: no stored
//    key repeats the query's pattern exactly, where independent patterns put
//    mu there. The model gives the query's own pattern that mean instead of
//    mu (own_mu below). At 10^6 keys and 10 and 24 bits/key this moves the
//    model from 1.4% and 2.8% above the measurement (10^8 queries) to within
//    0.4% of it (see LegacyLineFpRate for every bits/key measured).
// What remains approximate: the lattice's patterns near the query's (same
// step, start shifted by a few multiples of the step) are taken at the
// average density; the Poisson load; the even-count picture of the lattice.
#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <tuple>
#include <type_traits>
#include <vector>

#include "filters/fp_model.h"
#include "filters/fp_model_internal.h"

namespace filterlab::fpmodel {
namespace internal {

void SubsetSums(std::vector<uint32_t>* count, int bits) {
  uint32_t* c = count->data();
  const size_t n = count->size();
  for (int i = 0; i < bits; ++i) {
    const size_t bit = size_t{1} << i;
    for (size_t t = 0; t < n; ++t) {
      if ((t & bit) != 0) c[t] += c[t ^ bit];
    }
  }
}

double PatternCoverFp(const std::vector<uint32_t>& within, uint32_t total, double mu, int bits, double own_mu) {
  if (total == 0 || mu == 0) return 0;  // nothing can cover the query (the sum is exactly 0)
  const double max_exponent = mu * total;
  // Every T but the full mask excludes the query's own pattern: its factor
  // e^{-mu} becomes e^{-own_mu}.
  const bool own_differs = own_mu != mu;
  auto sum_in = [&](auto zero) {
    using Real = decltype(zero);
    // e^{-mu c}, c = patterns outside T. In long double each from its own
    // exponent; in quad (the fallback) as powers of e^{-mu}, whose c
    // roundings (c <= 2^18, ~1e-29 relative) the error estimate counts.
    constexpr bool kLong = std::is_same_v<Real, long double>;
    std::vector<Real> absent(total + 1);
    const Real one_absent = Exp(Real(-mu));
    absent[0] = 1;
    for (uint32_t c = 1; c <= total; ++c) {
      absent[c] = kLong ? Exp(Real(-mu) * Real(c)) : absent[c - 1] * one_absent;
    }
    const Real own_factor = own_differs ? Exp(Real(mu) - Real(own_mu)) : Real(1);
    Real plus = 0, minus = 0;
    const uint32_t full = static_cast<uint32_t>(within.size()) - 1;
    for (uint32_t t = 0; t <= full; ++t) {
      Real term = absent[total - within[t]];
      if (own_differs && t != full) term *= own_factor;
      if ((std::popcount(full ^ t) & 1) == 0) {
        plus += term;
      } else {
        minus += term;
      }
    }
    // Each term's exponent is rounded to ~|mu c| ulps of itself.
    return MakeAlternatingSum(plus - minus, plus + minus, 10 + 4 * max_exponent + (kLong ? 0.0 : 2.0 * total));
  };
  const double p = AccurateAlternatingSum(sum_in, "pattern cover probability (" + std::to_string(bits) + " bits)");
  return std::clamp(p, 0.0, 1.0);
}

}  // namespace internal

namespace {

constexpr uint32_t kLineMask = 511;
constexpr double kPatterns = 512.0 * 512.0;

// The layout rate for `hashes` distinct 32-bit hashes in `lines` lines (see
// the top of this file), the query asked for its first min(k, max_query) bits.
double LegacyLine(double lines, double hashes, int probes, int max_query) {
  const double lambda = hashes / lines;
  const double mu = lambda / kPatterns;
  // The lattice: members per pattern, and the query pattern's other members.
  const double per_pattern = std::ldexp(1.0, 32) / lines / kPatterns;
  const double a = std::floor(per_pattern), f = per_pattern - a;
  const double own_mu = mu * (a * (a - 1 + 2 * f) / per_pattern) / per_pattern;
  double fp = 0;
  std::vector<uint32_t> within;
  for (int v = 0; v <= 9; ++v) {
    const double weight = v < 9 ? std::ldexp(1.0, -(v + 1)) : 1.0 / 512;
    const uint32_t query_step = v < 9 ? uint32_t{1} << v : 0;
    // lut[bit] = mask of the query's distinct bit it is (0 outside Q).
    uint32_t lut[512] = {};
    int bits = 0;
    for (int i = 0; i < std::min(probes, max_query); ++i) {
      const uint32_t bit = (static_cast<uint32_t>(i) * query_step) & kLineMask;
      if (lut[bit] == 0) lut[bit] = uint32_t{1} << bits++;
    }
    within.assign(size_t{1} << bits, 0);
    uint32_t total = 0;
    for (uint32_t step = 0; step < 512; ++step) {
      for (uint32_t start = 0; start < 512; ++start) {
        uint32_t mask = 0;
        for (int i = 0; i < probes; ++i) mask |= lut[(start + static_cast<uint32_t>(i) * step) & kLineMask];
        if (mask != 0) {
          ++within[mask];
          ++total;
        }
      }
    }
    internal::SubsetSums(&within, bits);
    fp += weight * internal::PatternCoverFp(within, total, mu, bits, own_mu);
  }
  return fp;
}

}  // namespace

double LegacyLineFpRate(double lines, double hashes, int probes) {
  if (!(lines >= 1) || !(lines <= 4294967295.0)) {
    internal::OutOfDomain("LegacyLineFpRate", "lines", lines, "1..2^32-1");
  }
  if (!(hashes >= 0) || !(hashes <= 4294967296.0)) {
    internal::OutOfDomain("LegacyLineFpRate", "hashes", hashes, "0..2^32 (distinct 32-bit hashes)");
  }
  if (probes < 1 || probes > 30) internal::OutOfDomain("LegacyLineFpRate", "probes", probes, "1..30");
  if (hashes == 0) return 0;
  // One evaluation costs 2^18 k + 10 (q 2^q) operations (~0.3 s at k = 20);
  // filters of one size ask for the same value again and again.
  static std::mutex mutex;
  static std::map<std::tuple<double, double, int>, double> done;
  const auto key = std::make_tuple(lines, hashes, probes);
  {
    std::lock_guard<std::mutex> lock(mutex);
    const auto it = done.find(key);
    if (it != done.end()) return it->second;
  }
  const double fp = LegacyLine(lines, hashes, probes, kLegacyLineMaxExactProbes);
  std::lock_guard<std::mutex> lock(mutex);
  if (done.size() > 4096) done.clear();
  done.emplace(key, fp);
  return fp;
}

}  // namespace filterlab::fpmodel
