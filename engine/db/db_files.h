// The files of a DB directory and the filesystem operations the DB needs
// beyond engine/util/file.h (directories, rename, fsync of a directory,
// flock, whole-file reads).
//
//   LOCK              flock'ed while a DB object has the directory open
//   CURRENT           the name of the live manifest, one line
//   MANIFEST-NNNNNN   the live version (version_edit.h)
//   NNNNNN.log        write-ahead logs (log_format.h)
//   NNNNNN.sst        tables (engine/table/format.h)
//   *.tmp             half-written CURRENT; removed on open
// NNNNNN is a file number from one counter shared by all kinds.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/slice.h"
#include "common/status.h"

namespace filterlab::engine {

enum class DbFileType { kLog, kTable, kManifest, kCurrent, kLock, kTemp, kOther };

std::string LogFileName(const std::string& dir, uint64_t number);
std::string TableFileName(const std::string& dir, uint64_t number);
std::string ManifestFileName(const std::string& dir, uint64_t number);
std::string CurrentFileName(const std::string& dir);
std::string LockFileName(const std::string& dir);

// Classifies a bare file name; *number is set for logs, tables, manifests.
DbFileType ParseDbFileName(const std::string& name, uint64_t* number);

// --- filesystem ---
bool PathExists(const std::string& path);
// InvalidArgument if `path` exists but is not a directory.
Status CheckIsDirectoryOrMissing(const std::string& path);
Status CreateDir(const std::string& path);
// Bare names of the entries (no "." / "..").
Status ListDir(const std::string& dir, std::vector<std::string>* names);
Status RemoveFile(const std::string& path);
Status RenameFile(const std::string& from, const std::string& to);
Status SyncDir(const std::string& dir);
Status ReadFileToString(const std::string& path, std::string* contents);
// Writes, fdatasyncs (if sync) and closes `path` (created or truncated).
Status WriteFile(const std::string& path, const Slice& contents, bool sync);
inline Status WriteFileSync(const std::string& path, const Slice& contents) { return WriteFile(path, contents, true); }
Status FileSize(const std::string& path, uint64_t* size);

// An exclusive flock on `path` (created if missing), held until Unlock.
class FileLock {
 public:
  // Busy naming the file when another open file description holds it.
  static Status Acquire(const std::string& path, FileLock** out);
  void Unlock();  // releases and deletes this object
 private:
  explicit FileLock(int fd) : fd_(fd) {}
  int fd_;
};

}  // namespace filterlab::engine
