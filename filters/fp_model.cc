// RocksDB's BloomMath FP formulas and the standard Bloom filter (declared and
// documented in fp_model.h). The RocksDB formulas (BloomMath in
// RocksDB's util/bloom_impl.h) use the same operations in the same order as
// util/bloom_impl.h, so fp_model.json, produced by RocksDB itself, matches
// to the last few ulps. The exact Poisson mixtures are in
// fp_model_cache_local.cc and fp_model_two_per_word.cc.
#include "filters/fp_model.h"

#include <algorithm>
#include <cmath>

#include "filters/fp_model_internal.h"

namespace filterlab::fpmodel {
namespace {

using internal::OutOfDomain;
using internal::RequirePositive;
using internal::RequireProbes;

void RequireHashBits(const char* function, int hash_bits) {
  if (hash_bits < 1 || hash_bits > 128) OutOfDomain(function, "hash_bits", hash_bits, "1..128");
}

// The unchecked formulas, as BloomMath computes them.
double Standard(double bits_per_key, int probes) { return std::pow(1.0 - std::exp(-probes / bits_per_key), probes); }

// With b >= B (at most one key per block on average) the "uncrowded" block
// would hold mu - sigma <= 0 keys; RocksDB never gets there (b <= 100 < 512)
// and CacheLocalFpRate rejects it, but the estimates below keep RocksDB's
// arithmetic for any input, as RocksDB does.
double CacheLocalTwoPoint(double bits_per_key, int probes, int block_bits) {
  const double keys_per_block = block_bits / bits_per_key;
  const double keys_stddev = std::sqrt(keys_per_block);
  const double crowded = Standard(block_bits / (keys_per_block + keys_stddev), probes);
  const double uncrowded = Standard(block_bits / (keys_per_block - keys_stddev), probes);
  return (crowded + uncrowded) / 2;
}

double Fingerprint(double keys, int hash_bits) {
  const double collision_rate = keys * std::pow(0.5, hash_bits);
  // Below 1e-4 the series is more accurate than 1 - e^{-x}, which would
  // subtract two nearly equal numbers.
  if (collision_rate > 0.0001) return 1.0 - std::exp(-collision_rate);
  return collision_rate - collision_rate * collision_rate / 2;
}

double IndependentSum(double p1, double p2) { return p1 + p2 - p1 * p2; }

// RocksDB's legacy locality estimate without the fingerprint term.
double LegacyLocality(double bits_per_key, int probes) {
  // RocksDB hard-codes 512-bit lines here even where lines are 128 bytes.
  return CacheLocalTwoPoint(bits_per_key, probes, 512) + 0.1 / (bits_per_key * 0.75 + 22);
}

void RequireKeyCount(const char* function, double keys) {
  if (!(keys >= 0) || !std::isfinite(keys)) OutOfDomain(function, "keys", keys, "a finite number >= 0");
}

// D / 2^f = 1 - (1 - 2^-f)^n, the probability that a given one of the 2^f
// hash values is taken by at least one of n keys.
double HashTakenRate(double keys, int hash_bits) {
  return -std::expm1(keys * std::log1p(-std::ldexp(1.0, -hash_bits)));
}

}  // namespace

double StandardFpRate(double bits_per_key, int probes) {
  RequirePositive("StandardFpRate", "bits_per_key", bits_per_key);
  RequireProbes("StandardFpRate", probes);
  return Standard(bits_per_key, probes);
}

double StandardFpRateExact(double m_bits, double keys, int probes) {
  if (!(m_bits >= 1) || !std::isfinite(m_bits)) {
    OutOfDomain("StandardFpRateExact", "m_bits", m_bits, "a finite number >= 1");
  }
  if (!(keys >= 0) || !std::isfinite(keys)) OutOfDomain("StandardFpRateExact", "keys", keys, "a finite number >= 0");
  RequireProbes("StandardFpRateExact", probes);
  if (m_bits == 1) return keys > 0 ? 1.0 : 0.0;  // log1p(-1) = -inf; avoid 0 * -inf
  // (1 - 1/m)^{kn} = e^{kn ln(1 - 1/m)}; log1p keeps precision when m is large.
  const double bit_still_zero = std::exp(probes * keys * std::log1p(-1.0 / m_bits));
  return std::pow(1.0 - bit_still_zero, probes);
}

double CacheLocalFpRate(double bits_per_key, int probes, int block_bits) {
  // RocksDB answers 1 for a filter with no bits; kept so callers see the same.
  if (bits_per_key <= 0) return 1.0;
  RequirePositive("CacheLocalFpRate", "bits_per_key", bits_per_key);
  RequireProbes("CacheLocalFpRate", probes);
  if (block_bits < 2) OutOfDomain("CacheLocalFpRate", "block_bits", block_bits, "an integer >= 2");
  if (bits_per_key >= block_bits) {
    OutOfDomain("CacheLocalFpRate", "bits_per_key", bits_per_key,
                "< block_bits, i.e. more than one key per block; use CacheLocalPoissonFpRate beyond that");
  }
  return CacheLocalTwoPoint(bits_per_key, probes, block_bits);
}

double FingerprintFpRate(double keys, int hash_bits) {
  RequireKeyCount("FingerprintFpRate", keys);
  RequireHashBits("FingerprintFpRate", hash_bits);
  return Fingerprint(keys, hash_bits);
}

double IndependentProbabilitySum(double p1, double p2) {
  if (!(p1 >= 0 && p1 <= 1)) OutOfDomain("IndependentProbabilitySum", "p1", p1, "a probability in [0, 1]");
  if (!(p2 >= 0 && p2 <= 1)) OutOfDomain("IndependentProbabilitySum", "p2", p2, "a probability in [0, 1]");
  return IndependentSum(p1, p2);
}

double DistinctHashes(double keys, int hash_bits) {
  RequireKeyCount("DistinctHashes", keys);
  RequireHashBits("DistinctHashes", hash_bits);
  return std::ldexp(HashTakenRate(keys, hash_bits), hash_bits);
}

double NarrowHashFpRate(double keys, int hash_bits, const std::function<double(double)>& layout_fp) {
  RequireKeyCount("NarrowHashFpRate", keys);
  RequireHashBits("NarrowHashFpRate", hash_bits);
  if (keys == 0) return 0.0;
  const double taken = HashTakenRate(keys, hash_bits);  // F = D / 2^f
  double layout = layout_fp(std::ldexp(taken, hash_bits));
  // Sums of many terms may end a few ulps outside [0, 1] (a Poisson mixture
  // at ~0.5 bits/key gives 1 + 2^-52): rounding, not a wrong model.
  constexpr double kRounding = 1e-12;
  if (!(layout >= -kRounding && layout <= 1 + kRounding)) {
    OutOfDomain("NarrowHashFpRate", "layout_fp(distinct_hashes)", layout, "a probability in [0, 1]");
  }
  layout = std::clamp(layout, 0.0, 1.0);
  return taken + (1 - taken) * layout;
}

double LegacyLocalityEstimatedFpRate(double keys, double data_bytes, int probes) {
  RequirePositive("LegacyLocalityEstimatedFpRate", "keys", keys);
  RequirePositive("LegacyLocalityEstimatedFpRate", "data_bytes", data_bytes);
  RequireProbes("LegacyLocalityEstimatedFpRate", probes);
  const double bits_per_key = 8.0 * data_bytes / keys;
  return IndependentSum(LegacyLocality(bits_per_key, probes), Fingerprint(keys, 32));
}

double LegacyLocalityFpRate(double bits_per_key, int probes) {
  RequirePositive("LegacyLocalityFpRate", "bits_per_key", bits_per_key);
  RequireProbes("LegacyLocalityFpRate", probes);
  return std::min(1.0, LegacyLocality(bits_per_key, probes));
}

double FastLocalEstimatedFpRate(double keys, double data_bytes, int probes, int hash_bits) {
  RequirePositive("FastLocalEstimatedFpRate", "keys", keys);
  RequirePositive("FastLocalEstimatedFpRate", "data_bytes", data_bytes);
  RequireProbes("FastLocalEstimatedFpRate", probes);
  RequireHashBits("FastLocalEstimatedFpRate", hash_bits);
  const double bits_per_key = 8.0 * data_bytes / keys;
  return IndependentSum(CacheLocalTwoPoint(bits_per_key, probes, 512), Fingerprint(keys, hash_bits));
}

}  // namespace filterlab::fpmodel
