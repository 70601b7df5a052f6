// Manifest: the persisted state of a DB — the live tables per level (number,
// size, smallest and largest internal key, sequence range), the number of
// the oldest WAL still needed, the next file number and the last sequence.
//
// Every change (flush, compaction, open) writes a complete new manifest
// rather than appending an edit, then switches CURRENT to it:
//   1. MANIFEST-N written and fdatasync'ed;
//   2. CURRENT.tmp = "MANIFEST-N\n", fdatasync'ed;
//   3. rename(CURRENT.tmp, CURRENT), fsync of the directory;
//   4. the previous manifest is deleted.
// rename is atomic, so a crash at any point leaves CURRENT naming a complete
// manifest: the old one (steps 1–3 not finished) or the new one. The state
// is small (about 60 bytes per table plus its two keys), so rewriting it is
// cheap next to the table write that caused the change.
//
// File format: one log record (log_format.h: masked CRC32C, length,
// payload) and nothing after it. Payload:
//   "filterlab-manifest-1" (length-prefixed) ‖ varint32 num_levels ‖
//   varint64 log_number ‖ varint64 next_file_number ‖ varint64 last_sequence ‖
//   varint64 file count ‖ per file: varint32 level ‖ varint64 number ‖
//   varint64 size ‖ length-prefixed smallest ‖ length-prefixed largest ‖
//   varint64 smallest_seq ‖ varint64 largest_seq
// Any deviation (bad CRC, truncation, trailing bytes, a bad field) is a
// Corruption naming the manifest and the problem: unlike a WAL, a manifest
// is synced before CURRENT names it, so a torn one is real damage.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "common/status.h"
#include "engine/db/version.h"

namespace filterlab::engine {

struct ManifestState {
  uint64_t log_number = 0;        // WALs with a smaller number are fully flushed
  uint64_t next_file_number = 1;  // lower bound; Open also scans the directory
  SequenceNumber last_sequence = 0;
  std::shared_ptr<Version> version;

  std::string Encode() const;
  // `name` labels errors.
  static Status Decode(const Slice& payload, const std::string& name, ManifestState* out);
};

// Steps 1–3 above (the caller deletes the old manifest); sync = false skips
// the fdatasyncs (Options::disable_data_sync).
Status WriteManifest(const std::string& dir, uint64_t manifest_number, const ManifestState& state, bool sync);
// Reads CURRENT and the manifest it names. NotFound if there is no CURRENT.
Status ReadManifest(const std::string& dir, ManifestState* state, uint64_t* manifest_number);

}  // namespace filterlab::engine
