// InternalIterator: a forward scan over internal keys (user key ‖ trailer)
// in internal-key order, the common shape of everything the DB merges:
// memtables, single tables, whole levels (their files concatenated) and
// the merge of any of these. Used by compaction and by the DB iterator
// (db_iter.h). Each iterator keeps alive (shared_ptr) what it reads.
//
// Filtered seeks. SeekFiltered(target, query) is a Seek that may skip what
// the query (table_reader.h SeekQuery: the user keys the DB iterator may
// still return) rules out: a memtable whose prefix Bloom lacks the query's
// prefix, a table whose filters say none of its keys is in the query's range
// or prefix, is left invalid (a level moves on to its next file the query
// may reach) without its index or data being read. Every table such a seek
// meets is counted once at its level (SeekRecorder, RocksDB's seek tickers
// of PR #11460): filtered, or filter match / no filter, then whether it read
// data and whether that data held a key the query admits ("useful"). The
// query's views must stay valid until the next seek: a level iterator also
// uses it to stop at the query's upper end instead of opening files beyond.
#pragma once

#include <memory>
#include <vector>

#include "common/slice.h"
#include "common/status.h"
#include "engine/db/iterator.h"
#include "engine/db/version.h"
#include "engine/table/table_reader.h"

namespace filterlab::engine {

class MemTable;
class TableCache;

class InternalIterator : public Iterator {
 public:
  // Seek (internal key `target`) that may skip what `query` rules out (above).
  virtual void SeekFiltered(const Slice& target, const SeekQuery& query) {
    (void)query;
    Seek(target);
  }
};

// Receives one count per table a filtered seek met (DBImpl's level tickers).
class SeekRecorder {
 public:
  virtual ~SeekRecorder() = default;
  // `answer`: what the table's filters said (combined() kNegative: the
  // table was skipped); `useful`: the seek read data and found a key the
  // query admits.
  virtual void RecordTableSeek(int level, const TableReader::SeekFilterAnswer& answer, bool useful) = 0;
};

std::unique_ptr<InternalIterator> NewMemTableIterator(std::shared_ptr<const MemTable> mem);
// One table; its filtered seeks are counted at `level` by `recorder` (null: not counted).
std::unique_ptr<InternalIterator> NewTableIterator(std::shared_ptr<const TableReader> table, int level = 0,
                                                   SeekRecorder* recorder = nullptr);
// The files of one sorted level (>= 1) in key order, opened lazily through
// the table cache.
std::unique_ptr<InternalIterator> NewLevelIterator(TableCache* cache, FileList files, int level = 0,
                                                   SeekRecorder* recorder = nullptr);
// The union of `children` in internal-key order. Children are few (the
// memtables, the L0 files and one per deeper level), so the smallest is
// found by a linear scan rather than a heap.
std::unique_ptr<InternalIterator> NewMergingIterator(std::vector<std::unique_ptr<InternalIterator>> children);

// Whether user key `k` lies past the query's range: at or above its upper end.
inline bool PastQueryEnd(const SeekQuery& query, const Slice& user_key) {
  return query.hi != nullptr && user_key.compare(*query.hi) >= 0;
}

}  // namespace filterlab::engine
