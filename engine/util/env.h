// Env: the filesystem as the DB sees it — create, open, rename, remove and
// list files, create directories, and make directory entries durable
// (SyncDir). The DB reaches the disk only through the Env in its Options, so
// tests can put a fault-injecting Env (fault_injection_env.h) underneath it
// and simulate what a power loss does to files that were never synced.
//
// Durability contract (POSIX, which Env::Default() implements): bytes
// appended to a WritableFile survive a machine crash only after its Sync();
// a file created, renamed or removed survives (or stays removed) only after
// SyncDir of its directory. Nothing is durable by virtue of having been
// written: the page cache may lose it.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "common/slice.h"
#include "common/status.h"
#include "engine/util/file.h"

namespace filterlab::engine {

class Env {
 public:
  virtual ~Env() = default;
  // The process-wide POSIX Env (never deleted).
  static Env* Default();

  // Creates or truncates `path`.
  virtual Status NewWritableFile(const std::string& path, std::unique_ptr<WritableFile>* out) = 0;
  virtual Status NewRandomAccessFile(const std::string& path, std::unique_ptr<RandomAccessFile>* out) = 0;
  virtual bool FileExists(const std::string& path) = 0;
  // Bare names of the entries (no "." / "..").
  virtual Status GetChildren(const std::string& dir, std::vector<std::string>* names) = 0;
  virtual Status RemoveFile(const std::string& path) = 0;
  // Atomically replaces `to` if it exists.
  virtual Status RenameFile(const std::string& from, const std::string& to) = 0;
  // OK if it already exists.
  virtual Status CreateDir(const std::string& path) = 0;
  // fsync of the directory: its entries (created, renamed, removed files) become durable.
  virtual Status SyncDir(const std::string& dir) = 0;
  virtual Status GetFileSize(const std::string& path, uint64_t* size) = 0;
};

// Whole-file helpers over any Env.
Status ReadFileToString(Env* env, const std::string& path, std::string* contents);
// Writes, Syncs (if sync) and closes `path` (created or truncated).
Status WriteStringToFile(Env* env, const std::string& path, const Slice& contents, bool sync);

// The directory part of a path ("." when it has none).
std::string DirName(const std::string& path);

}  // namespace filterlab::engine
