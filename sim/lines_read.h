// How many 64-byte cache lines a filter's query reads, measured through the
// generic interface alone, so the speed harness can hold each variant to
// (lines per query) x the memory floor: FastLocalBloom reads one line, a
// standard Bloom one per probe, XOR three, Ribbon its query's run of
// interleaved segments (~4).
//
// Method: a line counts for a query when refilling it changes the query's
// answer. The filter is serialized into a 64-byte-aligned buffer and opened
// there (every reader reads aligned bytes in place), and for each 64-byte
// line of the data, in turn, the line is overwritten with kRefills
// different pseudo-random fills and every sample query (added keys, whose
// answer is "yes") asked again; the line counts for each query that
// answered "no" after some fill. A query's answer depends on every line it
// reads: a Bloom probe's bit, a fingerprint slot, a Ribbon segment's bits
// under the key's coefficient row, each changes the answer with probability
// about 1/2 or more per random fill, so a line read is missed with
// probability at most about 2^-kRefills (2^-8). Bytes read only to be
// masked off do not count: the one such read in this project's filters is
// the scalar Ribbon query's extra 16-byte segment in a lower block
// (filters/ribbon/ribbon_solution.h), a line of its own for about a quarter
// of those queries, so about 0.05 lines per query at 10 bits/key and 10k
// keys go uncounted and the per-line figure errs high. Added keys are
// asked because they read every line a query can (a Bloom query of a key
// not added may stop at its first clear bit).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/status.h"
#include "filters/filter.h"

namespace filterlab::sim {

inline constexpr int kRefills = 8;

// The mean over `added` (hashes of keys the filter holds, answered "yes")
// of the lines each query's answer depends on. `serialized` is the filter's
// Serialize() output; the policy opens it (OpenFilterFor). Corruption when
// the filter does not answer "yes" for an added hash, or when no line changes
// any answer (a reader that copied the bytes instead of reading them).
Status LinesPerQuery(const FilterPolicy& policy, const std::string& serialized, const std::vector<uint64_t>& added,
                     double* lines_per_query);

}  // namespace filterlab::sim
