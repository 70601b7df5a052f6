#include "sim/fp.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <vector>

#include "common/test_scale.h"
#include "filters/filter_test_util.h"
#include "hashing/remix.h"
#include "sim/commands.h"
#include "sim/keygen.h"

namespace filterlab::sim {
namespace {

FpConfig Config(const std::string& spec, uint64_t keys, uint64_t filters, uint64_t queries, int threads) {
  FpConfig c;
  c.filter_spec = spec;
  c.keys = keys;
  c.filters = filters;
  c.queries = queries;
  c.threads = threads;
  c.seed = 42;
  return c;
}

uint64_t Positives(FpConfig c) {
  FpResult r;
  Status s = RunFp(c, &r);
  EXPECT_TRUE(s.ok()) << s.ToString();
  return r.positives;
}

// Counts depend on seed and parameters only. Small work units (build and
// query chunks of 4096 instead of 2^20) make both phases span many chunks at
// a fraction of the cost: 2 builds chunks per filter and 13 query chunks, so
// threads really split both; with 13 filters on 3 threads each thread builds
// whole filters (the other schedule). Both hash sources.
TEST(Fp, CountsIndependentOfThreadCount) {
  for (const char* source : {"synthetic", "keys"}) {
    for (uint64_t filters : {uint64_t{1}, uint64_t{13}}) {
      FpConfig c = Config("standard:bpk=6", 5000, filters, 13 * 4096 + 123, 1);
      c.hash_source = source;
      c.build_chunk = 4096;
      c.query_chunk = 4096;
      c.batch = 100;  // batches straddle the 2048-hash buffers
      const uint64_t one = Positives(c);
      EXPECT_GT(one, 0u);
      for (int threads : {2, 3}) {
        c.threads = threads;
        EXPECT_EQ(Positives(c), one) << source << " filters=" << filters << " threads=" << threads;
      }
    }
  }
}

// --vary_ratio spreads the key counts as filter_bench does: every filter's
// count lies in keys +- floor(ratio * keys), the counts differ between filters,
// the record's total and bits/key follow the real counts, the model is the
// mean of the filters' models, and counts still do not depend on threads.
TEST(Fp, VaryRatioSpreadsKeyCountsDeterministically) {
  FpConfig c = Config("fastlocal:bpk=6", 1000, 40, 400000, 1);
  c.vary_ratio = 0.4;
  uint64_t total = 0, lo = ~uint64_t{0}, hi = 0;
  double model_sum = 0;
  std::unique_ptr<FilterPolicy> policy;
  ASSERT_TRUE(PrepareFp(c, &policy).ok());
  for (uint64_t f = 0; f < c.filters; ++f) {
    const uint64_t n = KeysOfFilter(c, f);
    EXPECT_GE(n, 600u);
    EXPECT_LE(n, 1400u);
    lo = std::min(lo, n);
    hi = std::max(hi, n);
    total += n;
    model_sum += policy->ModelFpRate(n);
  }
  EXPECT_GT(hi - lo, 200u) << "40 uniform draws over 801 values should spread";
  FpResult r;
  ASSERT_TRUE(RunFp(c, &r).ok());
  EXPECT_EQ(r.total_keys, total);
  EXPECT_DOUBLE_EQ(r.bits_per_key, 8.0 * static_cast<double>(r.total_bytes) / static_cast<double>(total));
  EXPECT_DOUBLE_EQ(r.model_fp, model_sum / 40);
  c.threads = 2;
  EXPECT_EQ(Positives(c), r.positives);
  c.vary_ratio = 0;
  EXPECT_EQ(KeysOfFilter(c, 7), 1000u);
  c.vary_ratio = 0.95;
  EXPECT_FALSE(PrepareFp(c, &policy).ok());
}

// The batch size is a speed knob only: it must not change a single count.
TEST(Fp, CountsIndependentOfBatchSize) {
  FpConfig c = Config("fastlocal:bpk=6", 20000, 1, 100000, 1);
  const uint64_t reference = Positives(c);
  for (int batch : {1, 7, 64, 2048}) {
    c.batch = batch;
    EXPECT_EQ(Positives(c), reference) << "batch=" << batch;
  }
}

// The vectorisable fill is the SplitMix64 stream, from any starting index.
TEST(FillSplitMix64, EqualsTheSequentialGenerator) {
  SplitMix64 rng(0xfeed);
  std::vector<uint64_t> sequential(1000);
  for (auto& h : sequential) h = rng.Next();
  std::vector<uint64_t> filled(1000);
  FillSplitMix64(0xfeed, 0, 1000, filled.data());
  EXPECT_EQ(filled, sequential);
  FillSplitMix64(0xfeed, 377, 100, filled.data());
  EXPECT_TRUE(std::equal(filled.begin(), filled.begin() + 100, sequential.begin() + 377));
}

TEST(Fp, SeedChangesTheSample) {
  FpConfig c = Config("standard:bpk=6", 20000, 1, 1000000, 2);
  const uint64_t a = Positives(c);
  c.seed = 43;
  EXPECT_NE(Positives(c), a);
}

// The sampled FP of the standard Bloom filter against (1 - e^{-kn/m})^k with
// the filter's actual m. Tolerance: 4 binomial sigma of the query sample
// (sqrt(p(1-p)/Q)); with m = 10^6 bits the formula's approximation error
// (O(k/m) relative) and the spread of the filter's own fill are both far
// below that.
TEST(Fp, StandardBloomWithinFourSigmaOfTheory) {
  for (int probes : {3, 6}) {
    const uint64_t n = 100000, q = 4000000;
    FpResult r;
    ASSERT_TRUE(RunFp(Config("standard:bpk=10,probes=" + std::to_string(probes), n, 1, q, 2), &r).ok());
    const double m = 8.0 * static_cast<double>(r.bytes);
    const double theory = std::pow(1.0 - std::exp(-probes * static_cast<double>(n) / m), probes);
    const double sigma = std::sqrt(theory * (1 - theory) / static_cast<double>(q));
    EXPECT_NEAR(r.fp, theory, 4 * sigma) << "probes=" << probes << " m=" << m;
    EXPECT_LE(r.ci.low, r.fp);
    EXPECT_GE(r.ci.high, r.fp);
  }
}

// `dispersion` (Pearson's chi^2 / (F - 1) of the per-filter counts) against
// what it must be. One-bit filters of 50 keys in 500 bits: filter f answers
// an outside query positive with probability X_f / m, X_f its set bits, so
// its count is Binomial(q, X_f / m) and the dispersion's expectation is
//   1 + q Var(X/m) / (p (1 - p)),   p = E[X]/m,
// with the occupancy moments of Z = m - X (n keys, uniform bits):
//   E[Z] = m (1-1/m)^n,  E[Z(Z-1)] = m (m-1) (1-2/m)^n.
// (~19 here, ~2 with the sanitizers' tenth of the queries: the filters' own
// rates scatter far more than sampling does; the test asks that the allowed
// band exclude 1, sampling alone.)
// The statistic of F = 300 filters estimates it to ~sqrt(2/F) = 8% relative
// (the variance of a sample variance), plus the skew of X: allow 35%. XOR
// filters of 8-bit fingerprints answer every outside query positive with
// probability exactly 2^-8 whatever their keys, so there the statistic is
// chi^2_{F-1} / (F - 1): 1 +- 4 sqrt(2/(F-1)). Fixed seed (Config's 42).
TEST(Fp, DispersionMeasuresTheSpreadOfTheFiltersOwnRates) {
  {
    const uint64_t n = 50, filters = 300, q_per_filter = SanitizerScaled(100000);
    FpResult r;
    ASSERT_TRUE(RunFp(Config("onebit:bpk=10", n, filters, filters * q_per_filter, 2), &r).ok());
    const double m = 500, nd = static_cast<double>(n);
    const double ez = m * std::pow(1 - 1 / m, nd), ezz = m * (m - 1) * std::pow(1 - 2 / m, nd);
    const double var_x = ezz + ez - ez * ez;  // Var(Z) = Var(X)
    const double p = 1 - ez / m;
    const double expected = 1 + static_cast<double>(q_per_filter) * var_x / (m * m) / (p * (1 - p));
    EXPECT_NEAR(r.dispersion, expected, 0.35 * expected) << "p " << p << " measured fp " << r.fp;
    EXPECT_GT((1 - 0.35) * expected, 1.0) << "the band must exclude sampling alone (1)";
  }
  {
    const uint64_t filters = 300;
    FpResult r;
    ASSERT_TRUE(RunFp(Config("xor:fingerprint=8", 2000, filters, filters * SanitizerScaled(20000), 2), &r).ok());
    EXPECT_NEAR(r.dispersion, 1.0, 4 * std::sqrt(2.0 / (filters - 1)));
  }
  {
    FpResult r;  // one filter: no dispersion
    ASSERT_TRUE(RunFp(Config("onebit:bpk=10", 50, 1, 1000, 1), &r).ok());
    EXPECT_LT(r.dispersion, 0);
  }
}

struct Captured {
  std::vector<JsonRecord> records;
  std::string help;
  Status Run(std::vector<std::string> args) {
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    return FpCommand(
        static_cast<int>(argv.size()), argv.data(), [this](const JsonRecord& r) { records.push_back(r); }, &help);
  }
};

TEST(FpCommand, OneLinePerFilterWithEveryField) {
  Captured c;
  ASSERT_TRUE(c.Run({"--filter", "standard:bpk=8", "--filter", "standard:bpk=12", "--keys", "10000", "--queries",
                     "100000", "--threads", "2"})
                  .ok());
  ASSERT_EQ(c.records.size(), 2u);
  for (const auto& r : c.records) {
    for (const char* field :
         {"filter", "keys", "filters", "queries", "positives", "fp", "ci_low", "ci_high", "ci_method", "model_fp",
          "bytes", "bits_per_key", "seconds", "queries_per_s", "seed", "threads", "hash_source"}) {
      EXPECT_TRUE(r.contains(field)) << field;
    }
    EXPECT_EQ(r["keys"], 10000);
    EXPECT_EQ(r["queries"], 100000);
    EXPECT_GT(r["model_fp"].get<double>(), 0.0);
    EXPECT_NEAR(r["bits_per_key"].get<double>(),
                r["filter"].get<std::string>().find("bpk=8") != std::string::npos ? 8 : 12, 0.1);
  }
}

TEST(FpCommand, BadParametersGiveClearErrors) {
  Captured c;
  Status s = c.Run({"--filter", "standard:bpk=10", "--keys", "0"});
  EXPECT_TRUE(s.IsInvalidArgument());
  EXPECT_NE(s.message().find("--keys=0"), std::string::npos) << s.message();

  s = c.Run({"--filter", "nosuchfilter:bpk=10", "--keys", "10"});
  EXPECT_TRUE(s.IsInvalidArgument());
  EXPECT_NE(s.message().find("nosuchfilter"), std::string::npos) << s.message();
  EXPECT_NE(s.message().find("--filter"), std::string::npos) << s.message();

  // 10^12 keys need 8 TB for their hashes: refused before anything is allocated.
  s = c.Run({"--filter", "standard:bpk=10", "--keys", "1e12"});
  EXPECT_TRUE(s.IsInvalidArgument());
  EXPECT_NE(s.message().find("--keys 1000000000000"), std::string::npos) << s.message();
  EXPECT_NE(s.message().find("MemAvailable"), std::string::npos) << s.message();

  // The need counts Build's working memory: a 10^9-key binary fuse build
  // holds 8 bytes of hashes, ~1 of filter and ~23 of peeling per key, a
  // Bloom filter only the hashes and its bits.
  FpConfig big;
  big.keys = 1000000000;
  EXPECT_GT(FpMemoryNeeded(big, *testing_util::MustPolicy("binary_fuse:arity=4,fingerprint=8")), 31 * big.keys);
  EXPECT_LT(FpMemoryNeeded(big, *testing_util::MustPolicy("fastlocal:bpk=10")), 10 * big.keys);

  s = c.Run({"--filter", "standard:bpk=10", "--bogus", "1"});
  EXPECT_NE(s.message().find("unknown flag '--bogus'"), std::string::npos) << s.message();

  s = c.Run({"--keys", "10"});
  EXPECT_NE(s.message().find("--filter"), std::string::npos) << s.message();

  s = c.Run({"--filter", "standard:bpk=10", "--hash_source", "files"});
  EXPECT_NE(s.message().find("synthetic|keys"), std::string::npos) << s.message();
  EXPECT_TRUE(c.records.empty());
}

TEST(FpCommand, HelpDescribesEveryFlag) {
  Captured c;
  ASSERT_TRUE(c.Run({"--help"}).ok());
  for (const char* f :
       {"--filter", "--keys", "--filters", "--queries", "--hash_source", "--key_size", "--threads", "--seed"}) {
    EXPECT_NE(c.help.find(f), std::string::npos) << f;
  }
}

}  // namespace
}  // namespace filterlab::sim
