// Version: the set of live tables at one moment — per level, the files with
// their key ranges. Versions are immutable and shared (shared_ptr): a Get,
// MultiGet or iterator holds the version it started with, and the DB deletes
// a table file only when no live version lists it (db_impl.cc,
// DeleteObsoleteFiles), so readers never lose a file under them.
//
// Level 0 holds flushed memtables; its files may overlap and are kept newest
// first (by largest sequence number). Levels >= 1 are sorted runs: files in
// key order, non-overlapping, and a user key lives in at most one file of a
// level (compaction only cuts output files between different user keys), so
// a lookup binary-searches one file per level.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "common/slice.h"
#include "engine/memtable/internal_key.h"

namespace filterlab::engine {

struct FileMetaData {
  uint64_t number = 0;
  uint64_t file_size = 0;
  std::string smallest;  // internal keys
  std::string largest;
  SequenceNumber smallest_seq = 0;
  SequenceNumber largest_seq = 0;
  // The canonical spec of the table's filter ("" = none). Not in the
  // manifest: set when the table is written, and read from the table itself
  // when Open opens every live table.
  std::string filter_spec;
  // Also from the table (level_filters.h NoteTableFilter), likewise not in
  // the manifest: its entries, its filter block's bytes, and its filter's
  // model FP rate at the keys it holds (1 without a filter).
  uint64_t num_entries = 0;
  uint64_t filter_bytes = 0;
  uint64_t range_filter_bytes = 0;  // the range filter block's bytes (0: none)
  std::string range_filter_spec;    // "" = none
  double filter_model_fp = 1;

  Slice smallest_user_key() const { return ExtractUserKey(smallest); }
  Slice largest_user_key() const { return ExtractUserKey(largest); }
  // smallest_user_key <= key <= largest_user_key
  bool ContainsUserKey(const Slice& user_key) const {
    return smallest_user_key().compare(user_key) <= 0 && user_key.compare(largest_user_key()) <= 0;
  }
};

using FileList = std::vector<std::shared_ptr<const FileMetaData>>;

class Version {
 public:
  explicit Version(int num_levels) : files_(num_levels) {}

  int num_levels() const { return static_cast<int>(files_.size()); }
  const FileList& files(int level) const { return files_[level]; }
  FileList& mutable_files(int level) { return files_[level]; }
  uint64_t LevelBytes(int level) const;
  size_t TotalFiles() const;

  // Levels >= 1: index of the first file whose largest user key >= user_key
  // (files(level).size() if none). The key can only be in that file.
  // `begin` narrows the search to files from that index on (for sorted
  // batches, whose later keys cannot land in earlier files).
  size_t FindFile(int level, const Slice& user_key, size_t begin = 0) const;
  // Files of `level` overlapping the user-key range [begin, end] (null =
  // unbounded). For level 0 the range grows to cover every overlapping
  // file's range transitively, so the result can be compacted on its own.
  FileList OverlappingFiles(int level, const Slice* begin, const Slice* end) const;
  // True if no level below `level` has a file that may contain user_key:
  // then a deletion of it at `level` shadows nothing and can be dropped.
  bool IsBottommostForKey(int level, const Slice& user_key) const;
  // Puts level 0 newest first and levels >= 1 in key order.
  void SortLevels();
  // Internal check of the invariants above; "" if they hold.
  std::string CheckInvariants() const;

 private:
  std::vector<FileList> files_;
};

}  // namespace filterlab::engine
