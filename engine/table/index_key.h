// Index block keys (RocksDB's ShortenedIndexBuilder, table/block_based/index_builder.h). The index holds one entry per
// data block whose key S separates it from the next block:
//   last_key(N) <= S < first_key(N+1)   (internal-key order)
// A short S keeps the index small (restart interval 1, so every key is stored
// whole). A point lookup seeks the index to the first S >= its target and
// must find its user key's newest version in that block or the next — so, as
// the data-block hash index also requires (§1.4 step 7), S's user key is below
// the next block's first user key unless the two blocks share a boundary
// user key, in which case S is the whole last key of block N.
#pragma once

#include <string>

#include "common/slice.h"

namespace filterlab::engine {

// The bytewise-shortest string T with start <= T < limit (precondition:
// start < limit), following the spec's rule: at the first differing byte d,
// increment start[d] and cut after it if that stays below limit; otherwise
// keep start[d] and increment the first non-0xFF byte after d, cutting after
// it. When start is a prefix of limit, or no byte can be incremented, T = start.
std::string ShortestSeparator(const Slice& start, const Slice& limit);

// The index key between data blocks whose last and first internal keys are
// `last` and `next` (last < next, both internal keys): the shortened user key
// with the trailer (kMaxSequenceNumber, kValueTypeForSeek), which sorts first
// among its versions, when shortening helps; otherwise `last` itself.
std::string IndexSeparator(const Slice& last, const Slice& next);

}  // namespace filterlab::engine
