// cache_dbl's exact FP model (declared in worm_variants.h; the scheme and the
// summary of this derivation are above CacheDblScheme in worm_cache_line.cc).
//
// The layout. A hash h picks a 512-bit line, and in it the k bits
//   start + i*step (mod 512), i = 0..k-1,  start = h mod 512, step = ((h >> 9) mod 512) | 1.
// An odd step is a unit mod 512, so the k bits are distinct (k <= 512). Call
// (start, step) the key's pattern: 512 * 256 patterns, all equally likely
// for uniform 18 low bits of h.
//
// One query. Fix the query's line and its probe set Q (k bits). A stored
// hash v in the line covers S_v = (v's bits) ∩ Q. The query is a false
// positive iff the S_v of the stored hashes cover Q. By inclusion-exclusion
// over the set T ⊆ Q that the stored hashes stay inside,
//   P(cover) = sum_{T ⊆ Q} (-1)^{k-|T|} P(every stored v has S_v ⊆ T).
// T is written as a k-bit mask over the query's probe indices i.
//
// 64-bit hash: the keys in the query's line are independent with uniform
// patterns (fastrange64 takes the line from the top of h, the pattern from
// its low 18 bits; a line is an interval of ~2^64/lines >> 2^18 values of h,
// so the low bits are uniform to ~2^18 lines/2^64), and their number J is
// Poisson(lambda), lambda = hashes/lines, as in the other line models
// (fpmodel::CacheLocalIdealFpRate). With g(T) = P(S ⊆ T) for one key and
// E[x^J] = e^{lambda (x - 1)}:
//   FP = sum_T (-1)^{k-|T|} exp(-lambda (1 - g(T))).
// Symmetries make one query enough: x -> u x + c (u odd) permutes Z/512 and
// maps the pattern (a, d) to (u a + c, u d), a bijection of all patterns,
// so every query's Q is equivalent to {0, 1, ..., k-1} (c = -start,
// u = step^-1). g(T) is a subset sum (zeta transform) of the histogram of
// S over the 131072 patterns for that Q: 131072 k + k 2^k operations and
// 2^k terms.
//
// 32-bit hash: h = x * phi (mod 2^64) for the 32-bit hash x (WidenFrom32),
// so a line holds the fixed set of ~2^32/lines values x with x*phi in its
// interval: a golden-ratio quasi-lattice (neighbours differ by a few fixed
// d, and x, x + d differ by d*phi in the low 18 bits), not independent
// patterns. The D distinct stored hashes are taken as each value stored
// independently with p = D/2^32 (the D values are a uniform D-subset; the
// dependence is O(1/2^32)). For a query value q that is not stored
// (fpmodel::NarrowHashFpRate adds the stored ones), with
// c(T) = #{v != q in q's line : S_v ⊄ T},
//   FP(q) = sum_T (-1)^{k-|T|} (1 - p)^{c(T)},
// and the layout rate is the mean of FP(q) over uniform q, estimated over a
// fixed sample of query values (their lines enumerated exactly, see
// LineWalk), with its standard error.
#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <map>
#include <mutex>
#include <stdexcept>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "filters/fp_model_internal.h"
#include "filters/worm/worm_variants.h"
#include "hashing/fastrange.h"
#include "hashing/remix.h"

namespace filterlab::worm {
namespace {

constexpr uint32_t kLineMask = 511;
constexpr uint32_t kPatterns = 512 * 256;

uint32_t Start(uint64_t h) { return static_cast<uint32_t>(h) & kLineMask; }
uint32_t Step(uint64_t h) { return (static_cast<uint32_t>(h >> 9) & kLineMask) | 1; }

// Bit i of lut[(q_start + i q_step) mod 512] is set: maps a line bit to the
// mask of the query probe it is (0 for bits outside Q).
struct QueryBits {
  uint32_t lut[512] = {};
  QueryBits(uint32_t start, uint32_t step, int k) {
    for (int i = 0; i < k; ++i) lut[(start + static_cast<uint32_t>(i) * step) & kLineMask] = 1u << i;
  }
  // The query bits a key with this pattern and k probes sets.
  uint32_t Cover(uint32_t start, uint32_t step, int k) const {
    uint32_t mask = 0;
    for (int i = 0; i < k; ++i) mask |= lut[(start + static_cast<uint32_t>(i) * step) & kLineMask];
    return mask;
  }
};

// The cover probability of a query given the histogram of its patterns'
// covers (fpmodel::internal::PatternCoverFp, fp_model_pattern_cover.cc):
//   sum_T (-1)^{k-|T|} exp(-mu (total - within[T])).
double CoverFp(const std::vector<uint32_t>& within, uint32_t total, double mu, int k) {
  return fpmodel::internal::PatternCoverFp(within, total, mu, k, mu);
}

void RequireProbes(const char* function, int probes) {
  if (probes < 1 || probes > kCacheDblMaxExactProbes) {
    throw std::invalid_argument(std::string(function) + ": probes = " + std::to_string(probes) +
                                " is out of range (allowed: 1.." + std::to_string(kCacheDblMaxExactProbes) + ")");
  }
}

// within[T] (subset sums of the covers' histogram) and the count of patterns
// with a nonempty cover, for a key of k probes against Q = {0, ..., kq-1}:
// they depend on the probe counts only, and each took 131072 k + kq 2^kq
// operations, so a process computes them once per (k, kq) (default probes
// scan the model at every probe count for every bits/key they are asked
// for). Entries are never removed, so references stay valid.
struct PatternCovers {
  std::vector<uint32_t> within;
  uint32_t total = 0;
};

const PatternCovers& PatternCoversFor(int k, int kq) {
  static std::mutex mutex;
  static std::map<std::pair<int, int>, PatternCovers> done;
  std::lock_guard<std::mutex> lock(mutex);
  auto [it, fresh] = done.try_emplace({k, kq});
  if (!fresh) return it->second;
  PatternCovers& c = it->second;
  const QueryBits query(0, 1, kq);  // Q = {0, ..., kq-1}
  c.within.assign(size_t{1} << kq, 0);
  for (uint32_t step = 1; step < 512; step += 2) {
    for (uint32_t start = 0; start < 512; ++start) {
      const uint32_t mask = query.Cover(start, step, k);
      if (mask != 0) {
        ++c.within[mask];
        ++c.total;
      }
    }
  }
  fpmodel::internal::SubsetSums(&c.within, kq);
  return c;
}

}  // namespace

double CacheDblFpRate64(double keys_per_line, int probes) {
  if (probes < 1) throw std::invalid_argument("CacheDblFpRate64: probes must be >= 1");
  if (!(keys_per_line >= 0) || !std::isfinite(keys_per_line)) {
    throw std::invalid_argument("CacheDblFpRate64: keys_per_line must be finite and >= 0");
  }
  const int k = probes;
  // Above kCacheDblMaxExactProbes only the query's first probes are asked to
  // be set (a necessary condition), which bounds the rate from above.
  const int kq = std::min(k, kCacheDblMaxExactProbes);
  const PatternCovers& covers = PatternCoversFor(k, kq);
  // Present patterns: Poisson(lambda / 131072) keys each, independent.
  return CoverFp(covers.within, covers.total, keys_per_line / kPatterns, kq);
}

LineWalk::LineWalk(uint64_t lines, uint64_t line) {
  if (lines < 2 || line >= lines) throw std::invalid_argument("LineWalk: needs lines >= 2 and line < lines");
  // Line j is h in [ceil(j 2^64 / L), ceil((j + 1) 2^64 / L)) (fastrange64).
  auto boundary = [lines](uint64_t j) {
    return (static_cast<unsigned __int128>(j) << 64) / lines +
           ((static_cast<unsigned __int128>(j) << 64) % lines != 0 ? 1 : 0);
  };
  const unsigned __int128 lo = boundary(line), hi = boundary(line + 1);
  low_ = static_cast<uint64_t>(lo);
  width_ = static_cast<uint64_t>(hi - lo);
  // Record approach of d*phi to 0 from above (x_lo) and from below (x_hi,
  // as 2^64 - d*phi): the subtractive Euclidean algorithm on the two
  // residues lists every record in increasing d (one-sided best
  // approximations), so the first record below the width is the smallest d.
  uint64_t d_lo = 1, x_lo = kGoldenRatio64, d_hi = 1, x_hi = 0 - kGoldenRatio64;
  for (int iter = 0; up_ == 0 || down_ == 0; ++iter) {
    if (iter > 100000) throw std::logic_error("LineWalk: no return times found");
    if (up_ == 0 && x_lo < width_) {
      up_ = d_lo;
      up_move_ = x_lo;
    }
    if (down_ == 0 && x_hi < width_) {
      down_ = d_hi;
      down_move_ = x_hi;
    }
    if (x_lo > x_hi) {
      x_lo -= x_hi;
      d_lo += d_hi;
    } else {
      x_hi -= x_lo;
      d_hi += d_lo;
    }
  }
}

// The next value after x in the line (or before it, backward): by the
// three-distance theorem (Slater) the return time of the rotation by phi to
// the line's interval is `up_` (offset y moves by +up_move_), `down_` (y
// moves by -down_move_) or their sum; the smallest that keeps y in
// [0, width) is it. Returns 0 if none does (x not in the line).
uint64_t LineWalk::Return(uint64_t x, bool forward) const {
  const uint64_t y = x * kGoldenRatio64 - low_;
  if (y >= width_) return 0;
  const __int128 sign = forward ? 1 : -1;
  struct Move {
    uint64_t d;
    __int128 dy;
  };
  Move moves[3] = {{up_, sign * static_cast<__int128>(up_move_)},
                   {down_, -sign * static_cast<__int128>(down_move_)},
                   {up_ + down_, sign * (static_cast<__int128>(up_move_) - static_cast<__int128>(down_move_))}};
  std::sort(moves, moves + 3, [](const Move& a, const Move& b) { return a.d < b.d; });
  for (const Move& m : moves) {
    const __int128 next = static_cast<__int128>(y) + m.dy;
    if (next >= 0 && next < static_cast<__int128>(width_)) return m.d;
  }
  return 0;
}

std::vector<uint32_t> LineWalk::Members(uint32_t x0) const {
  std::vector<uint32_t> before, out;
  uint64_t x = x0;
  for (uint64_t d; (d = Return(x, false)) != 0 && d <= x;) {
    x -= d;
    before.push_back(static_cast<uint32_t>(x));
  }
  out.assign(before.rbegin(), before.rend());
  x = x0;
  out.push_back(x0);
  for (uint64_t d; (d = Return(x, true)) != 0 && x + d <= UINT32_MAX;) {
    x += d;
    out.push_back(static_cast<uint32_t>(x));
  }
  return out;
}

CacheDbl32Estimate CacheDblFpRate32(uint64_t lines, double hashes, int probes, int sample_lines, double pair_budget) {
  RequireProbes("CacheDblFpRate32", probes);
  if (lines < 2) throw std::invalid_argument("CacheDblFpRate32: lines must be >= 2");
  if (!(hashes >= 0) || hashes >= 4294967296.0) {
    throw std::invalid_argument("CacheDblFpRate32: hashes must be in [0, 2^32)");
  }
  if (sample_lines < 2) throw std::invalid_argument("CacheDblFpRate32: sample_lines must be >= 2");
  const int k = probes;
  const double mu = -std::log1p(-hashes / 4294967296.0);  // (1 - p) = e^{-mu}
  // Queries per line: the budget of member visits, N k + k 2^k per query
  // (N = 2^32 / lines members), at least 4.
  const double per_query = (4294967296.0 / static_cast<double>(lines)) * k + k * std::ldexp(1.0, k);
  const int per_line = std::max(4, static_cast<int>(pair_budget / (per_query * sample_lines)));
  SplitMix64 rng(0xdb1);  // fixed sample
  std::vector<uint32_t> within(size_t{1} << k);
  std::vector<uint32_t> start, step;
  double sum = 0, sum_sq = 0;
  int queries = 0;
  for (int line_index = 0; line_index < sample_lines; ++line_index) {
    // The line of a uniform value: size-biased, as a uniform query picks lines.
    const auto x0 = static_cast<uint32_t>(rng.Next() >> 32);
    const LineWalk walk(lines, FastRange64(uint64_t{x0} * kGoldenRatio64, lines));
    const std::vector<uint32_t> members = walk.Members(x0);
    start.resize(members.size());
    step.resize(members.size());
    for (size_t i = 0; i < members.size(); ++i) {
      const uint64_t h = uint64_t{members[i]} * kGoldenRatio64;
      start[i] = Start(h);
      step[i] = Step(h);
    }
    // Queries: evenly spaced members (a random phase), which spreads them
    // over the value range and, through the walk, over the line's interval.
    const size_t n = members.size();
    const int count = static_cast<int>(std::min<size_t>(n, static_cast<size_t>(per_line)));
    const double phase = static_cast<double>(rng.Next() >> 11) * 0x1p-53;
    double line_sum = 0;
    for (int m = 0; m < count; ++m) {
      const auto qi = static_cast<size_t>((m + phase) * static_cast<double>(n) / count);
      const QueryBits query(start[qi], step[qi], k);
      std::fill(within.begin(), within.end(), 0);
      uint32_t total = 0;
      for (size_t i = 0; i < n; ++i) {
        const uint32_t mask = i == qi ? 0 : query.Cover(start[i], step[i], k);
        if (mask != 0) {
          ++within[mask];
          ++total;
        }
      }
      fpmodel::internal::SubsetSums(&within, k);
      line_sum += CoverFp(within, total, mu, k);
    }
    const double line_mean = line_sum / count;
    sum += line_mean;
    sum_sq += line_mean * line_mean;
    queries += count;
  }
  CacheDbl32Estimate e;
  const double r = sample_lines;
  e.fp = sum / r;
  e.standard_error = std::sqrt(std::max(0.0, (sum_sq - sum * sum / r) / (r - 1)) / r);
  e.queries = queries;
  return e;
}

double CacheDblFpRate32Cached(uint64_t lines, double hashes, int probes) {
  static std::mutex mutex;
  static std::map<std::tuple<uint64_t, double, int>, double> done;
  const auto key = std::make_tuple(lines, hashes, probes);
  {
    std::lock_guard<std::mutex> lock(mutex);
    const auto it = done.find(key);
    if (it != done.end()) return it->second;
  }
  const double fp = CacheDblFpRate32(lines, hashes, probes, 16, 3e7).fp;
  std::lock_guard<std::mutex> lock(mutex);
  done.emplace(key, fp);
  return fp;
}

}  // namespace filterlab::worm
