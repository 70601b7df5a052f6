// FP model of the "two probes per 64-bit word" layout (DynamicBloom, the
// wormhashing *_BLOCK variants): TwoPerWordPoissonFpRate, declared in
// fp_model.h. Derivation first, then the evaluation.
#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "filters/fp_model.h"
#include "filters/fp_model_internal.h"

namespace filterlab::fpmodel {

// Derivation. Layout: the filter is an array of aligned groups of W 64-bit
// words (W a power of two). A key picks a word offset a uniformly among all
// words; with the group that contains it, it touches the D words a XOR i,
// i < D (distinct, and inside the group since D <= W), and in each sets two
// bits at independent uniform positions (possibly the same bit). A query does
// the same with its own offset a' and reports "maybe" iff all its 2D bits are
// set.
//
// 1. Poisson counts per offset. With n keys in G groups, b = 64 W G / n. The
//    number of keys per group is Poisson(lambda = 64 W / b) (Poissonised, as
//    in the block-local models), split uniformly over the W offsets, so the
//    counts c_a of keys with offset a are independent Poisson(mu), mu = 64/b.
// 2. Given the counts, word w holds the 2 m_w bits of m_w = sum of c_a over
//    the offsets a whose words include w; different words' bits are
//    independent (each key draws fresh positions per word).
// 3. A query word with load m: each of its two bits is unset with probability
//    q1 = (63/64)^{2m}; two distinct positions are both unset with probability
//    q2 = (62/64)^{2m}. The query's two bits coincide with probability 1/64
//    (then one set bit suffices) and are distinct otherwise, so, exactly,
//      g(m) = (1/64)(1 - q1) + (63/64)(1 - 2 q1 + q2)
//           = 1 - (127/64) r1^m + (63/64) r2^m,   r1 = (63/64)^2, r2 = (62/64)^2.
// 4. By symmetry take a' = 0, so the query words are Q = {0..D-1}, and
//      FP = E[ prod_{w in Q} g(m_w) ].
//    Writing g(m) = sum_t alpha_t rho_t^m with (alpha, rho) in {(1, 1),
//    (-127/64, r1), (63/64, r2)} and expanding the product over the 3^D
//    choices t = (t_w):
//      FP = sum_t (prod_w alpha_{t_w}) E[ prod_a z_a(t)^{c_a} ],
//      z_a(t) = prod_{w in Q, w in words(a)} rho_{t_w},
//    and the Poisson generating function E[z^c] = e^{mu (z - 1)} gives
//      FP = sum_t (prod_w alpha_{t_w}) prod_a e^{mu (z_a(t) - 1)}.
// This is exact for the model of steps 1-3, including the correlation of a
// query's words through keys that touch several of them, and the dependence
// of a word's two query bits (step 3; the textbook per-block formula, as in
// CacheLocalPoissonFpRate, ignores that kind of dependence). When D is a
// power of two, every key touching one query word touches all of them, and
// the sum reduces to sum_m Pois(m; mu D) g(m)^D (the tests check this). For
// other D a key covers only part of the query's words: for D = 3 of W = 4
// each key misses one word of the group, so given the group's key count the
// query words' loads are negatively correlated, and treating them as
// independent overestimates the FP rate (1.116% instead of 1.090% at b = 10).
//
// Approximations that remain: Poisson rather than binomial keys per group
// (relative error O(1/G)); ideal hashing — uniform independent offsets and
// bit positions (real variants carve them from one 64-bit or even 32-bit
// value: fastrange bias, 12-bit slices of one product; and the equal hashes
// of 32-bit hashes, which callers add with NarrowHashFpRate).
//
// Evaluation. z_a only takes the values r1^i r2^j (i, j = how many of the
// offset's covered query words chose t = 1 and t = 2), so e^{mu (z - 1)} is
// tabulated once per (i, j), and a depth-first walk over the query words
// keeps each offset's (i, j): a leaf's term is its coefficient times <= 16
// table entries (no exp() per leaf; glibc's expl costs ~300 ns).
// Rounding: the sum alternates in sign. Its terms add up in magnitude to
// S_abs, up to ~1e6 times the result when the result is tiny (D = 12 at
// b = 100: FP ~ 2e-12), so the relative rounding error is about
// S_abs / FP * (ulps per term). It is summed in long double, and again in
// quad precision when the estimate exceeds 1e-10 (only at high b: D = 3
// beyond ~90 bits/key, D = 5 beyond ~40, D = 8..12 beyond ~30). Checked
// against a 113-bit reference: at most 7e-14 relative error for D <= 12,
// b <= 100. Cost: 3^D leaves: ~1 us at D <= 5, 0.1 s at D = 12 in long
// double, ~1.3 s at D = 12 in quad precision.
namespace {

template <typename Real>
class TwoPerWordExpansion {
 public:
  TwoPerWordExpansion(double bits_per_key, int words_touched, int group_words)
      : d_(words_touched), keys_per_offset_(64 / bits_per_key) {
    const Real keys_per_offset = Real(64) / Real(bits_per_key);
    const Real r1 = Real(63 * 63) / Real(64 * 64);
    const Real r2 = Real(62 * 62) / Real(64 * 64);
    Real r1_power = 1;
    for (int i = 0; i <= d_; ++i) {
      Real z = r1_power;
      for (int j = 0; i + j <= d_; ++j) {
        offset_factor_[i][j] = i + j == 0 ? Real(1) : internal::Exp(keys_per_offset * (z - 1));
        z *= r2;
      }
      r1_power *= r1;
    }
    // The offsets whose words {a XOR i : i < D} include query word w are
    // a = w XOR i: all below 2^ceil(log2 D); the group's other offsets cover none.
    int relevant_offsets = 1;
    while (relevant_offsets < d_) relevant_offsets <<= 1;
    num_offsets_ = std::min(relevant_offsets, group_words);
    for (int w = 0; w < d_; ++w) {
      for (int i = 0; i < d_; ++i) covering_[w][i] = w ^ i;
    }
  }

  internal::AlternatingSum Run() {
    Visit(0, Real(1));
    // Each table entry is off by ~(2 + 2 mu) ulps (the rounding of z - 1,
    // times mu), a term multiplies up to 16 of them and D coefficients.
    return internal::MakeAlternatingSum(sum_, abs_sum_, d_ + 16 * (2 + 2 * keys_per_offset_));
  }

 private:
  static constexpr int kMaxWords = 12;
  static constexpr int kMaxOffsets = 16;  // 2^ceil(log2 kMaxWords)

  void Visit(int w, Real coefficient) {
    if (w == d_) {
      Real term = coefficient;
      for (int a = 0; a < num_offsets_; ++a) term *= offset_factor_[r1_count_[a]][r2_count_[a]];
      sum_ += term;
      abs_sum_ += term < 0 ? -term : term;
      return;
    }
    Visit(w + 1, coefficient);  // t_w = 0: alpha = rho = 1
    for (int i = 0; i < d_; ++i) ++r1_count_[covering_[w][i]];
    Visit(w + 1, coefficient * (Real(-127) / 64));  // t_w = 1
    for (int i = 0; i < d_; ++i) --r1_count_[covering_[w][i]], ++r2_count_[covering_[w][i]];
    Visit(w + 1, coefficient * (Real(63) / 64));  // t_w = 2
    for (int i = 0; i < d_; ++i) --r2_count_[covering_[w][i]];
  }

  const int d_;
  const double keys_per_offset_;  // mu
  int num_offsets_ = 0;
  Real offset_factor_[kMaxWords + 1][kMaxWords + 1] = {};  // [i][j] = e^{mu (r1^i r2^j - 1)}
  int covering_[kMaxWords][kMaxWords] = {};
  int r1_count_[kMaxOffsets] = {};
  int r2_count_[kMaxOffsets] = {};
  Real sum_ = 0;
  Real abs_sum_ = 0;
};

}  // namespace

double TwoPerWordPoissonFpRate(double bits_per_key, int words_touched, int group_words) {
  internal::RequirePositive("TwoPerWordPoissonFpRate", "bits_per_key", bits_per_key);
  if (group_words < 1 || group_words > 64 || (group_words & (group_words - 1)) != 0) {
    internal::OutOfDomain("TwoPerWordPoissonFpRate", "group_words", group_words, "a power of two in 1..64");
  }
  if (words_touched < 1 || words_touched > group_words || words_touched > 12) {
    internal::OutOfDomain("TwoPerWordPoissonFpRate", "words_touched", words_touched, "1..min(group_words, 12)");
  }
  auto sum_in = [&](auto zero) {
    return TwoPerWordExpansion<decltype(zero)>(bits_per_key, words_touched, group_words).Run();
  };
  return internal::AccurateAlternatingSum(sum_in, "TwoPerWordPoissonFpRate(" + std::to_string(bits_per_key) + ", " +
                                                      std::to_string(words_touched) + ", " +
                                                      std::to_string(group_words) + ")");
}

// WordBitsPoissonFpRate: the same layout with a third bit in each key's last
// word (odd probe counts: word a XOR (D-1) gets three bits), and optionally
// with the two bits of a word always distinct (worm's CACHE_WORM64_BLOCK).
// Steps 1, 2 and 4 as above; step 3 per word and key type. A key puts into
// a word either nothing, a pair, or (its last word) a pair and a third bit.
// It avoids i given positions of the word with probability
//   h_pair(i)  = (1 - i/64)^2,  or (64-i)(63-i)/(64*63) for a distinct pair,
//   h_three(i) = h_pair(i) (1 - i/64).
// The query's bits in a word take j distinct positions (pair: j = 2, or 1
// with probability 1/64 if the pair may coincide; third bit: one more unless
// it hits one of them), and by inclusion-exclusion all j are set with
// probability sum_i (-1)^i C(j, i) P(i given positions unset). With
// c_w(i) = sum_j P(j) (-1)^i C(j, i) for query word w and E[z^c] =
// e^{mu (z - 1)} over the Poisson counts c_a of the offsets a < W:
//   FP = sum_{i_0..i_{D-1}} prod_w c_w(i_w) prod_a exp(mu (z_a - 1)),
//   z_a = prod_{w < D, w in words(a)} h_{type(a, w)}(i_w).
// Exact for ideal hashing like TwoPerWordPoissonFpRate, which it equals
// without the third bit and with coinciding pairs allowed (the tests check).
// 3^D or 4 3^(D-1) leaves of W D factors each: < 1 ms up to D = 8.
namespace {

template <typename Real>
internal::AlternatingSum WordBitsSum(double bits_per_key, int d, int group_words, bool third_bit, bool distinct_pair) {
  const Real mu = Real(64) / Real(bits_per_key);
  auto h_pair = [&](int i) -> Real {
    const Real x = Real(64 - i);
    return distinct_pair ? x * Real(63 - i) / Real(64 * 63) : x * x / Real(64 * 64);
  };
  // avoid[type][i]: type 1 = pair, 2 = pair + third bit.
  Real avoid[3][4];
  for (int i = 0; i <= 3; ++i) {
    avoid[0][i] = 1;
    avoid[1][i] = h_pair(i);
    avoid[2][i] = h_pair(i) * Real(64 - i) / Real(64);
  }
  // P(j distinct query positions) for a pair, and for a pair + third bit.
  Real pair_distinct[4] = {0, distinct_pair ? Real(0) : Real(1) / 64, distinct_pair ? Real(1) : Real(63) / 64, 0};
  Real three_distinct[4] = {0, 0, 0, 0};
  for (int j = 1; j <= 2; ++j) {
    three_distinct[j] += pair_distinct[j] * Real(j) / 64;           // the third bit repeats one of them
    three_distinct[j + 1] += pair_distinct[j] * Real(64 - j) / 64;  // or adds one
  }
  // coef[w][i] = sum_j P(j) (-1)^i C(j, i).
  const int last = d - 1;
  auto coefficients = [](const Real* p_distinct, Real* coef) {
    for (int i = 0; i <= 3; ++i) {
      coef[i] = 0;
      for (int j = i; j <= 3; ++j) {
        Real binomial = 1;
        for (int t = 0; t < i; ++t) binomial = binomial * Real(j - t) / Real(t + 1);
        coef[i] += p_distinct[j] * binomial * Real(i % 2 == 0 ? 1 : -1);
      }
    }
  };
  Real coef_pair[4], coef_three[4];
  coefficients(pair_distinct, coef_pair);
  coefficients(three_distinct, coef_three);
  // The offsets whose words meet the query's (a XOR t < D for some t < D).
  int offsets = 1;
  while (offsets < d) offsets <<= 1;
  offsets = std::min(offsets, group_words);
  // type[a][w]: what a key at offset a puts into query word w.
  int type[64][12] = {};
  for (int a = 0; a < offsets; ++a) {
    for (int t = 0; t < d; ++t) {
      const int w = a ^ t;
      if (w < d) type[a][w] = third_bit && t == last ? 2 : 1;
    }
  }
  // exp(mu (z - 1)) once per distinct z: the leaves' products z take few values (each factor is one of
  // a word's four avoid values), while a leaf needs one exponential per offset, and an exponential in
  // quad precision (internal::Exp, 34 Taylor terms in software) was nearly all of the time: 8748 leaves
  // x 8 offsets at D = 8, ~0.4 s per call. Keyed by z itself, so each term is the same number as
  // computed without the table.
  std::map<Real, Real> exp_at;
  std::vector<int> choice(static_cast<size_t>(d), 0);
  Real sum = 0, abs_sum = 0;
  for (;;) {
    Real term = 1;
    for (int w = 0; w < d; ++w) term *= (third_bit && w == last ? coef_three : coef_pair)[choice[w]];
    if (term != 0) {
      for (int a = 0; a < offsets; ++a) {
        Real z = 1;
        for (int w = 0; w < d; ++w) z *= avoid[type[a][w]][choice[w]];
        if (z == 1) continue;
        const auto [at, fresh] = exp_at.try_emplace(z, Real(0));
        if (fresh) at->second = internal::Exp(mu * (z - 1));
        term *= at->second;
      }
      sum += term;
      abs_sum += term < 0 ? -term : term;
    }
    int w = 0;  // next choice vector (odometer; word w ranges over 0..max i)
    for (; w < d; ++w) {
      const int max_i = third_bit && w == last ? 3 : 2;
      if (++choice[w] <= max_i) break;
      choice[w] = 0;
    }
    if (w == d) break;
  }
  // Each term: up to `offsets` exponentials of ~(2 + 2 mu) ulps each, D coefficients.
  return internal::MakeAlternatingSum(sum, abs_sum, d + offsets * (2 + 2 * (64 / bits_per_key)));
}

}  // namespace

double WordBitsPoissonFpRate(double bits_per_key, int words_touched, int group_words, bool third_bit,
                             bool distinct_pair) {
  internal::RequirePositive("WordBitsPoissonFpRate", "bits_per_key", bits_per_key);
  if (group_words < 1 || group_words > 64 || (group_words & (group_words - 1)) != 0) {
    internal::OutOfDomain("WordBitsPoissonFpRate", "group_words", group_words, "a power of two in 1..64");
  }
  if (words_touched < 1 || words_touched > group_words || words_touched > 12) {
    internal::OutOfDomain("WordBitsPoissonFpRate", "words_touched", words_touched, "1..min(group_words, 12)");
  }
  auto sum_in = [&](auto zero) {
    return WordBitsSum<decltype(zero)>(bits_per_key, words_touched, group_words, third_bit, distinct_pair);
  };
  return internal::AccurateAlternatingSum(sum_in, "WordBitsPoissonFpRate(" + std::to_string(bits_per_key) + ", " +
                                                      std::to_string(words_touched) + ", " +
                                                      std::to_string(group_words) + ")");
}

}  // namespace filterlab::fpmodel
