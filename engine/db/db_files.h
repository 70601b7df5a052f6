// The files of a DB directory: their names, and the LOCK (flock). Every
// other filesystem operation goes through the Env (engine/util/env.h).
//
//   LOCK              flock'ed while a DB object has the directory open
//   CURRENT           the name of the live manifest, one line
//   MANIFEST-NNNNNN   the version edit log (manifest.h)
//   NNNNNN.log        write-ahead logs (log_format.h)
//   NNNNNN.sst        tables (engine/table/format.h)
//   *.tmp             half-written CURRENT; removed on open
//   lost/             damaged logs and tables no version names, kept for the user
// NNNNNN is a file number from one counter shared by all kinds.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/slice.h"
#include "common/status.h"
#include "engine/util/env.h"

namespace filterlab::engine {

enum class DbFileType { kLog, kTable, kManifest, kCurrent, kLock, kTemp, kOther };

std::string LogFileName(const std::string& dir, uint64_t number);
std::string TableFileName(const std::string& dir, uint64_t number);
std::string ManifestFileName(const std::string& dir, uint64_t number);
std::string CurrentFileName(const std::string& dir);
std::string LockFileName(const std::string& dir);

// Classifies a bare file name; *number is set for logs, tables, manifests.
DbFileType ParseDbFileName(const std::string& name, uint64_t* number);

// Where damaged or orphaned files are moved instead of being deleted.
std::string LostDirName(const std::string& dir);

// InvalidArgument if `path` exists but is not a directory.
Status CheckIsDirectoryOrMissing(const std::string& path);

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
