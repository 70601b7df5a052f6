// Analytic false-positive models for the Bloom-filter family: the theory
// curves that every measured FP rate is held against (tests, the simulator's
// `model` command, the plots). Formulas: ../shared/spec/rocksdb-filters.md
// §1.10 (RocksDB's BloomMath, kept bit-for-bit so fp_model.json matches) and
// ../shared/spec/wormhashing.md §3 (exact Poisson mixtures). Notation: b =
// bits per key, k = probes, B = bits per block (cache line or word group),
// n = keys. Arguments outside a model's domain throw std::invalid_argument
// naming the function, the parameter, its value and what is allowed.
#pragma once

#include <cstdint>

namespace filterlab::fpmodel {

// Classic estimate (1 - e^{-k/b})^k of a non-local Bloom filter.
double StandardFpRate(double bits_per_key, int probes);

// The same without the exponential approximation, for m bits and n keys:
// (1 - (1 - 1/m)^{kn})^k.
double StandardFpRateExact(double m_bits, double keys, int probes);

// RocksDB's BloomMath::CacheLocalFpRate: average of the standard rate for a
// block holding mu + sigma and mu - sigma keys, mu = B/b, sigma = sqrt(mu).
// A two-point shortcut; kept because fp_model.json records it.
double CacheLocalFpRate(double bits_per_key, int probes, int block_bits);

// Exact Poisson mixture for a block-local Bloom filter with one probe per
// access anywhere in a B-bit block: sum_j Pois(j; B/b) (1 - (1-1/B)^{kj})^k.
// Evaluated with Eigen over all j carrying non-negligible Poisson mass.
// Exact over the block load, but per block it uses Bloom's classic
// approximation (query probes independent given the load), which for ideal
// hashing is ~1% low at B = 512, b = 10, k = 6; see CacheLocalIdealFpRate.
double CacheLocalPoissonFpRate(double bits_per_key, int probes, int block_bits);

// The same layout without that approximation: the exact FP rate for ideal
// hashing (every probe of every key and query independent and uniform within
// its block, repeats allowed) with Poisson keys per block. probes <= 64.
// E.g. 0.96647% at B = 512, b = 10, k = 6 (vs 0.95757% above).
double CacheLocalIdealFpRate(double bits_per_key, int probes, int block_bits);

// Exact Poisson mixture for the "two probes per 64-bit word" layout
// (DynamicBloom, worm *_BLOCK variants): each key touches `words_touched`
// distinct words of an aligned group of `group_words` 64-bit words and sets
// two independent, possibly equal, bits in each. Exact for ideal hashing
// (like CacheLocalIdealFpRate). group_words: a power of two in 1..64;
// words_touched: 1..min(group_words, 12). ~1 us for up to 5 words, up to
// ~1 s at 12 words.
double TwoPerWordPoissonFpRate(double bits_per_key, int words_touched, int group_words);

// Probability that a new item's f-bit hash equals one of n stored hashes
// (RocksDB's FingerprintFpRate): the n/2^f term of hashes narrower than the
// key space.
double FingerprintFpRate(double keys, int hash_bits);

// p1 + p2 - p1 p2: probability of either of two independent events.
double IndependentProbabilitySum(double p1, double p2);

// RocksDB's LegacyLocalityBloomImpl<false>::EstimatedFpRate: cache-local
// two-point rate plus the empirical penalty 0.1/(0.75b + 22) of the legacy
// filter's degenerate probe deltas, combined with the 32-bit fingerprint term.
double LegacyLocalityEstimatedFpRate(double keys, double data_bytes, int probes);

// RocksDB's FastLocalBloomImpl::EstimatedFpRate.
double FastLocalEstimatedFpRate(double keys, double data_bytes, int probes, int hash_bits);

}  // namespace filterlab::fpmodel
