// The DB's user-facing iterator (iterator.h) over a merged internal
// iterator: entries newer than the snapshot are skipped; of each user key
// only the newest remaining entry counts, and a key whose newest entry is a
// deletion is hidden. `pinned` keeps alive whatever the internal iterator
// reads from (memtables, version).
//
// Bounds and prefixes (ReadOptions, options.h). Each Seek(target) turns the
// read options into the range of user keys it may return, [target, end),
// and the prefix every one of them shares when that is known (SeekRangeFor
// below); the iterator stops at `end`, and the internal iterator's filtered
// seek skips the memtables and tables whose filters rule that range or
// prefix out. The rule for using a prefix is that every key the seek may
// return has it: never a shortcut that could skip a key a total-order seek
// returns (RocksDB's auto_prefix_mode can, for keys shorter than the prefix:
// its DBTest2::AutoPrefixMode1).
#pragma once

#include <memory>
#include <string>

#include "engine/db/internal_iterator.h"
#include "engine/db/iterator.h"
#include "engine/db/options.h"
#include "engine/memtable/internal_key.h"

namespace filterlab::engine {

class PrefixExtractor;

// The range of user keys Seek(target) may return under `options` and the
// DB's `extractor` (null: none): [target, end) when `bounded` (by
// iterate_upper_bound, or with prefix_same_as_start by the end of target's
// prefix), [target, ...) otherwise; and, when every key of that range has
// target's prefix, that prefix and its extractor (else prefix_extractor is
// null), so filters holding prefixes can answer for the range.
struct SeekRange {
  bool bounded = false;
  std::string end;
  const PrefixExtractor* prefix_extractor = nullptr;
  std::string prefix;
};
void SeekRangeFor(const ReadOptions& options, const PrefixExtractor* extractor, const Slice& target, SeekRange* out);

std::unique_ptr<Iterator> NewDBIterator(std::unique_ptr<InternalIterator> internal, SequenceNumber snapshot,
                                        std::shared_ptr<const void> pinned, const ReadOptions& options = ReadOptions(),
                                        std::shared_ptr<const PrefixExtractor> extractor = nullptr);

}  // namespace filterlab::engine
