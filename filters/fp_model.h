// Analytic false-positive models for the Bloom-filter family: the theory
// curves that every measured FP rate is held against (tests, the simulator's
// `model` command, the plots). Formulas: RocksDB's util/bloom_impl.h
// (BloomMath, kept bit-for-bit so fp_model.json matches) and
// the exact Poisson mixtures of cache-local Bloom filters (Putze, Sanders, Singler 2007). Notation: b =
// bits per key, k = probes, B = bits per block (cache line or word group),
// n = keys. Arguments outside a model's domain throw std::invalid_argument
// naming the function, the parameter, its value and what is allowed.
#pragma once

#include <cstdint>
#include <functional>

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
// E.g. 0.96647% at B = 512, b = 10, k = 6 (vs 0.95757% above). A real
// filter of D hashes in L lines loads a line Binomial(D, 1/L), not Poisson:
// replacing e^{-lambda x} by (1 - x/L)^D in the derivation moves the value
// by -2e-6, -6e-6, -1.4e-5, -2.3e-5 relative at 6, 10, 16, 24 bits/key (k =
// 4, 6, 9, 12) for 10^6 keys, far below the binomial sigma of 10^9 queries
// (3e-4 to 4e-3 of the rate), so the Poisson form is kept.
double CacheLocalIdealFpRate(double bits_per_key, int probes, int block_bits);
// The same value as a sum of positive terms over the Poisson key count and
// the occupancy of the block (no cancellation, O(k (B/b) B) operations):
// what CacheLocalIdealFpRate falls back to where its closed form cancels
// beyond quad precision (few keys per block, many probes: one key in a
// 512-bit line at 21 probes). Throws std::invalid_argument beyond ~2e8
// operations.
double CacheLocalIdealOccupancyFpRate(double bits_per_key, int probes, int block_bits);

// The same line load, but each key's (and the query's) probes walk the line
// without immediate repeats: the first bit uniform, each next one the
// previous XOR a uniform nonzero value (worm's CACHE_WORM64). Exact for
// ideal hashing; derivation in fp_model_cache_local.cc. probes: 1..64.
double CacheLocalWalkFpRate(double bits_per_key, int probes, int block_bits);

// Exact Poisson mixture for the "two probes per 64-bit word" layout
// (DynamicBloom, worm *_BLOCK variants): each key touches `words_touched`
// distinct words of an aligned group of `group_words` 64-bit words and sets
// two independent, possibly equal, bits in each. Exact for ideal hashing
// (like CacheLocalIdealFpRate). group_words: a power of two in 1..64;
// words_touched: 1..min(group_words, 12). ~1 us for up to 5 words, up to
// ~1 s at 12 words.
double TwoPerWordPoissonFpRate(double bits_per_key, int words_touched, int group_words);

// The same layout with a third bit in each key's last word (word a XOR (D-1):
// odd probe counts, k = 2D + 1), and, with distinct_pair, the two bits of a
// word always different (worm's CACHE_WORM64_BLOCK); otherwise every bit is
// independent and uniform in its word. Exact for ideal hashing; equals
// TwoPerWordPoissonFpRate at third_bit = distinct_pair = false. Derivation in
// fp_model_two_per_word.cc. Arguments as there.
double WordBitsPoissonFpRate(double bits_per_key, int words_touched, int group_words, bool third_bit,
                             bool distinct_pair);

// Poisson mixture for a 256-bit split block of eight 32-bit lanes (Parquet's
// and Impala's split-block Bloom filter at probes = 8, worm's cache_simd
// variants): a key's block holds Poisson(256/b) keys, and a key sets one
// uniform bit in each of `probes` consecutive lanes starting at a uniform
// lane (all 8 lanes at probes = 8). By inclusion-exclusion over the subsets U
// of the query's lanes (derivation in fp_model_split_block.cc):
//   sum_U (-1)^{|U|} exp(256/b (g(U) - 1)),  g(U) = (1/8) sum_r (31/32)^{|U cap W_r|},
// which at probes = 8 is sum_j Pois(j; 256/b) (1 - (31/32)^j)^8. Exact for
// ideal hashing; probes: 1..8.
double SplitBlockPoissonFpRate(double bits_per_key, int probes);

// Probability that a new item's f-bit hash equals one of n stored hashes
// (RocksDB's FingerprintFpRate): 1 - e^{-n/2^f}, ~n/2^f, the term of hashes
// narrower than the key space. RocksDB adds it to the layout's rate as an
// independent event (IndependentProbabilitySum); filterlab's ModelFpRate
// combines the two with NarrowHashFpRate instead.
double FingerprintFpRate(double keys, int hash_bits);

// p1 + p2 - p1 p2: probability of either of two independent events.
double IndependentProbabilitySum(double p1, double p2);

// Hashes narrower than the key space.
//
// n keys hashed uniformly and independently to f bits take
//   D = 2^f (1 - (1 - 2^-f)^n)  ~=  2^f (1 - e^{-n/2^f})
// distinct values on average (each of the 2^f values is missed by all n
// hashes with probability (1 - 2^-f)^n). For n << 2^f, D ~= n - n^2/2^{f+1}:
// at f = 64 D = n to 3e-11 relative even at 10^9 keys; at f = 32 and 10^9
// keys D = 0.892 n. Computed as -expm1(n log1p(-2^-f)) 2^f, accurate to a
// few ulps at every f (no 1 - e^{-x} cancellation). D / 2^f is the
// probability that a uniform query hash equals one of them: 1 - e^{-n/2^f},
// FingerprintFpRate, up to a relative 2^-(f+1) in the exponent. keys: finite
// and >= 0; hash_bits: 1..128.
double DistinctHashes(double keys, int hash_bits);

// The FP rate of a filter built from the f-bit hashes of n keys, given its
// layout's FP rate as a function of how many distinct hashes it holds:
//   FP = F + (1 - F) * layout_fp(D),   D = DistinctHashes(n, f),  F = D / 2^f.
// A filter sees only hashes: n keys leave D distinct ones in bits sized for
// n. An outside query's hash equals one of them with probability F and then
// always matches; otherwise it is an ordinary outside query of a filter
// holding D distinct hashes, i.e. at m/D bits per hash, not m/n. RocksDB's
// IndependentProbabilitySum(layout_fp(n), FingerprintFpRate(n, f)) counts the
// n - D colliding keys twice, as matches and as extra load on the bits: at
// 10 bits/key, f = 32 and 10^9 keys (F = 0.2077, D = 0.892 n, so the layout
// sees 11.2 bits per hash) FastLocal's model gives 21.24% here against 21.53%
// that way; the standard filter with 32-bit hashes measures 0.211433 (95%
// interval +-0.00008) against 0.211407 here and 0.214204 that way (sim/README).
// At f = 64, D = n and F ~ n/2^64: both forms agree.
// layout_fp(d) is the layout's FP rate for d distinct uniform hashes in the
// filter built for `keys` (its size fixed, e.g. StandardFpRateExact(m, d, k)
// or a Poisson mixture at m/d bits per hash); it is called once, with D, and
// must return a probability (a few ulps outside [0, 1], the rounding of long
// sums, are clamped; more is an error). keys = 0 gives 0 (nothing stored)
// without calling layout_fp. keys and hash_bits as for DistinctHashes.
// Approximations: layout_fp is taken at the mean of D (its spread is
// ~sqrt(D), negligible); the stored hashes are treated as independent
// uniform values, so what a layout derives from the hash is the layout
// model's business. Not modelled, and only visible when F is large: a block
// of a block-local layout receives a fixed set of ~2^f/blocks hash values, so
// its load is binomial (variance shrunk by 1 - F), not Poisson (the 512-bit
// line mixture is ~0.1% high at 10^9 keys), and layouts that compute the
// probes from those same f bits may spread them unlike random ones.
double NarrowHashFpRate(double keys, int hash_bits, const std::function<double(double distinct_hashes)>& layout_fp);

// RocksDB's LegacyLocalityBloomImpl<false>::EstimatedFpRate: cache-local
// two-point rate plus the empirical penalty 0.1/(0.75b + 22) of the legacy
// filter's degenerate probe deltas, combined with the 32-bit fingerprint term.
double LegacyLocalityEstimatedFpRate(double keys, double data_bytes, int probes);

// The layout part of that estimate alone, for NarrowHashFpRate:
// min(1, CacheLocalFpRate(b, k, 512) + 0.1/(0.75 b + 22)), in RocksDB's
// arithmetic, so LegacyLocalityEstimatedFpRate(n, m/8, k) equals
// IndependentProbabilitySum(LegacyLocalityFpRate(m/n, k), FingerprintFpRate(n,
// 32)) to the last ulps wherever the sum is <= 1 (the additive penalty takes
// it above 1 near 0.5 bits/key with many probes; RocksDB's estimate keeps
// such values, this caps them). Like the estimate, any bits_per_key > 0 is
// evaluated, even beyond one key per 512-bit line.
double LegacyLocalityFpRate(double bits_per_key, int probes);

// The layout FP rate of RocksDB's legacy full filter (filters/legacy_bloom.h):
// `hashes` distinct 32-bit hashes h in `lines` 512-bit lines, line = h mod
// lines, and in it the k bits (h + i rotr32(h, 17)) mod 512, an arithmetic
// progression whose step may be even (then the bits repeat). Sums exactly over
// the 2^18 in-line patterns and the ten classes of the query's step, for a
// Poisson line load, with the one correction the 32-bit hash's lattice needs:
// no other key of the line repeats the query's own pattern more often than
// the lattice allows (derivation in fp_model_pattern_cover.cc). Queries with
// more than kLegacyLineMaxExactProbes distinct bits are asked for their first
// 20 only: above 20 probes the value is an upper bound. Measured over model
// (4 filters of 10^6 keys, 4*10^7 queries, with NarrowHashFpRate's matches of
// equal hashes): 0.999, 1.010, 1.002, 0.999, 0.993, 0.997 at 6, 8, 10, 12,
// 16, 24 bits/key. ~0.02 s at k = 6,
// ~0.3 s at k = 20 (cached per argument triple). lines: 1..2^32-1; hashes:
// 0..2^32; probes: 1..30.
inline constexpr int kLegacyLineMaxExactProbes = 20;
double LegacyLineFpRate(double lines, double hashes, int probes);

// RocksDB's FastLocalBloomImpl::EstimatedFpRate.
double FastLocalEstimatedFpRate(double keys, double data_bytes, int probes, int hash_bits);

}  // namespace filterlab::fpmodel
