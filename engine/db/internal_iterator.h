// InternalIterator: a forward scan over internal keys (user key ‖ trailer)
// in internal-key order, the common shape of everything the DB merges:
// memtables, single tables, whole levels (their files concatenated) and
// the merge of any of these. Used by compaction and by the DB iterator
// (db_iter.h). Each iterator keeps alive (shared_ptr) what it reads.
#pragma once

#include <memory>
#include <vector>

#include "common/slice.h"
#include "common/status.h"
#include "engine/db/iterator.h"
#include "engine/db/version.h"

namespace filterlab::engine {

class MemTable;
class TableCache;
class TableReader;

// Internal iterators have the DB iterator's interface (iterator.h); their
// keys are internal keys and Seek takes an internal key.
using InternalIterator = Iterator;

std::unique_ptr<InternalIterator> NewMemTableIterator(std::shared_ptr<const MemTable> mem);
std::unique_ptr<InternalIterator> NewTableIterator(std::shared_ptr<const TableReader> table);
// The files of one sorted level (>= 1) in key order, opened lazily through
// the table cache.
std::unique_ptr<InternalIterator> NewLevelIterator(TableCache* cache, FileList files);
// The union of `children` in internal-key order. Children are few (the
// memtables, the L0 files and one per deeper level), so the smallest is
// found by a linear scan rather than a heap.
std::unique_ptr<InternalIterator> NewMergingIterator(std::vector<std::unique_ptr<InternalIterator>> children);

}  // namespace filterlab::engine
