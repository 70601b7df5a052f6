// Manifest: the persisted state of a DB — the live tables per level (number,
// size, smallest and largest internal key, sequence range), the number of
// the oldest WAL still needed, the next file number and the last sequence —
// kept as an edit log in the log format (log_format.h).
//
// MANIFEST-N's first record is a snapshot (an edit adding every live table);
// each later version change (flush, compaction) appends one VersionEdit
// (tables deleted and added, the new scalars) and syncs it before the
// change is used. A new manifest is started at every Open and when the
// appended edits outgrow the snapshot (ManifestWriter::WantsRewrite), then
// CURRENT switches to it:
//   1. MANIFEST-N written (snapshot) and synced;
//   2. CURRENT.tmp = "MANIFEST-N\n", synced;
//   3. rename(CURRENT.tmp, CURRENT), SyncDir;
//   4. the previous manifest is deleted (and SyncDir).
// rename is atomic, so a crash at any point leaves CURRENT naming a complete
// snapshot; a crash during an append leaves at most a torn last edit, which
// was never acted on (the change waits for the sync).
//
// Edit payload:
//   "filterlab-edit-1" (length-prefixed) ‖ varint32 num_levels ‖
//   varint64 log_number ‖ varint64 next_file_number ‖ varint64 last_sequence ‖
//   varint64 deleted count ‖ per deleted table: varint32 level ‖ varint64 number ‖
//   varint64 added count ‖ per added table: varint32 level ‖ varint64 number ‖
//   varint64 size ‖ length-prefixed smallest ‖ length-prefixed largest ‖
//   varint64 smallest_seq ‖ varint64 largest_seq
//
// Reading: any damage other than an unfinished last edit (a torn tail), and
// any edit that does not apply (bad field, deleting a table that is not
// there, overlapping tables at a level >= 1) is a Corruption naming the
// manifest, the offset and how many intact edits follow. A torn tail is
// dropped and reported (ManifestReport), never silently.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "common/status.h"
#include "engine/db/log_writer.h"
#include "engine/db/version.h"
#include "engine/util/env.h"

namespace filterlab::engine {

struct ManifestState {
  uint64_t log_number = 0;        // WALs with a smaller number are fully flushed
  uint64_t next_file_number = 1;  // lower bound; Open also scans the directory
  SequenceNumber last_sequence = 0;
  std::shared_ptr<Version> version;
};

// One change of the state; also the snapshot that starts a manifest.
struct VersionEdit {
  uint32_t num_levels = 0;
  uint64_t log_number = 0;
  uint64_t next_file_number = 0;
  SequenceNumber last_sequence = 0;
  std::vector<std::pair<int, uint64_t>> deleted;  // (level, table number)
  std::vector<std::pair<int, std::shared_ptr<const FileMetaData>>> added;

  // The edit that builds `state` from nothing.
  static VersionEdit Snapshot(const ManifestState& state);
  std::string Encode() const;
  // "" on success, else what is wrong.
  std::string Decode(const Slice& payload);
  // Applies the edit to *state (whose version is null before the first
  // edit); "" on success, else what is wrong (then *state is unchanged).
  std::string ApplyTo(ManifestState* state) const;
};

// What ReadManifest found besides the state.
struct ManifestReport {
  uint64_t edits = 0;          // applied
  uint64_t dropped_bytes = 0;  // of a torn last edit
  std::string dropped;         // its description, "" when nothing was dropped
};

// The open manifest of a DB (guarded by the DB's manifest mutex).
class ManifestWriter {
 public:
  // Steps 1-3 above for `state`; sync = false skips the fdatasyncs and
  // directory syncs (Options::disable_data_sync).
  static Status Create(Env* env, const std::string& dir, uint64_t number, const ManifestState& state, bool sync,
                       std::unique_ptr<ManifestWriter>* out);
  // Appends `edit`, synced unless sync was false.
  Status Append(const VersionEdit& edit);
  Status Close() { return log_->Close(); }
  uint64_t number() const { return number_; }
  // The appended edits hold more than twice the snapshot's bytes (and 64 KiB):
  // a new manifest would be smaller and quicker to read at Open.
  bool WantsRewrite() const;

 private:
  ManifestWriter(std::unique_ptr<log::Writer> log, uint64_t number, bool sync)
      : log_(std::move(log)), number_(number), sync_(sync) {}
  std::unique_ptr<log::Writer> log_;
  const uint64_t number_;
  const bool sync_;
  uint64_t snapshot_bytes_ = 0;
};

// Reads CURRENT and the manifest it names. NotFound if there is no CURRENT.
Status ReadManifest(Env* env, const std::string& dir, ManifestState* state, uint64_t* manifest_number,
                    ManifestReport* report);

}  // namespace filterlab::engine
