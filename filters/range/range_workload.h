// Key sets and range queries for range filters, shared by the simulator
// (filterlab-sim rangefp / rangespeed) and the engine's range benchmarks, so
// both run one implementation of each workload. Every generator is
// deterministic in its seed (SplitMix64 streams, own Box-Muller and Zipf
// sampling, no std:: distribution whose output differs between libraries).
//
// Keys (sorted ascending, distinct):
//   uniform    64-bit uniform;
//   normal     N(mu = 2^63, sigma = 2^50), rounded and clamped to [0, 2^64-1]
//              (the key distribution of Diva's harness);
//   clustered  n / 1000 clusters (at least 1) at uniform centres, each key
//              drawn into a cluster by a Zipf(1) law over the clusters and
//              placed uniformly within 2^32 values of its centre;
//   sosd:PATH  a SOSD binary file (Marcus et al., "Benchmarking Learned
//              Indexes", VLDB 2020): a little-endian uint64 count, then that
//              many little-endian uint64 keys (books, osm, fb, wiki ...);
//   text:PATH  one byte-string key per line (LoadTextKeys); for integer
//              filters each line is a decimal uint64.
// A generator draws until it has n distinct keys (normal and clustered
// repeat keys); files give their distinct keys, the first n if n is smaller.
//
// Empty range queries of `length` values, [lo, lo + length - 1]:
//   uncorrelated: lo uniform;
//   correlated (degree d in [0, 1]): lo = a uniform stored key +
//     U[1, 2^round(30 (1 - d))], as Grafite's workload_gen (qcorrelated);
// each checked against the sorted keys and redrawn when it holds a key.
// Non-empty queries (for speed): a stored key k and lo = k - U[0, length),
// so [lo, lo + length - 1] holds k.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/status.h"

namespace filterlab::workload {

struct RangeQuery {
  uint64_t lo;
  uint64_t hi;
};

// The key distributions' names, for flags and messages.
inline constexpr const char* kKeyDistributions = "uniform | normal | clustered | sosd:PATH | text:PATH";

// n sorted distinct keys of `distribution` (see above). InvalidArgument for
// an unknown name, NotFound/IOError/Corruption for a file that cannot be
// read or is malformed (naming the file and what is wrong).
Status MakeKeys(const std::string& distribution, uint64_t n, uint64_t seed, std::vector<uint64_t>* keys);

// A SOSD file's keys, sorted and de-duplicated, at most max_keys of them.
Status LoadSosdKeys(const std::string& path, uint64_t max_keys, std::vector<uint64_t>* keys);

// A text file's lines (without the newline; a trailing '\r' dropped),
// sorted bytewise and de-duplicated, at most max_keys of them.
Status LoadTextKeys(const std::string& path, uint64_t max_keys, std::vector<std::string>* keys);

// Whether sorted `keys` hold a key in [lo, hi].
bool HoldsKeyIn(const std::vector<uint64_t>& keys, uint64_t lo, uint64_t hi);

// `count` empty ranges of `length` (>= 1) values. correlation < 0:
// uncorrelated; else the degree d in [0, 1]. Fails (naming how many it found)
// when empty ranges are too rare to find within 100 attempts per query plus
// 10^6.
Status EmptyRangeQueries(const std::vector<uint64_t>& keys, uint64_t length, double correlation, uint64_t count,
                         uint64_t seed, std::vector<RangeQuery>* out);

// `count` ranges of `length` values each holding at least one stored key.
Status NonEmptyRangeQueries(const std::vector<uint64_t>& keys, uint64_t length, uint64_t count, uint64_t seed,
                            std::vector<RangeQuery>* out);

// The offset bound of a correlated query: 2^round(30 (1 - d)).
uint64_t CorrelationSpan(double degree);

}  // namespace filterlab::workload
