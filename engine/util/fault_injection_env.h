// FaultInjectionEnv: an Env over a real directory tree (it wraps
// Env::Default()) that remembers what the page cache would lose, for tests
// of what the DB promises about durability.
//
// It records, per file written through it, how many bytes were appended and
// how many of them a Sync() made durable, and every create / rename / remove
// not yet made durable by a SyncDir of the directory. PowerLoss() then does
// to the files what a machine crash may do: each file keeps its synced bytes
// plus a random prefix of its unsynced ones (possibly none: a torn tail), and
// optionally every unsynced directory change is undone (a created file
// vanishes, a rename goes back, a removed file returns with its synced
// bytes). What is left is exactly what a filesystem honouring fsync and
// fdatasync must keep; the DB is then reopened over it.
//
// Also: SetFilesystemActive(false) makes every mutating call fail (the
// moment of the crash: nothing more reaches the disk while the DB object is
// torn down), and injected errors make the next writes or syncs fail.
// Thread-safe. Files must be closed (the DB destroyed) before PowerLoss.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "engine/util/env.h"
#include "engine/util/random.h"

namespace filterlab::engine {

class FaultInjectionEnv final : public Env {
 public:
  FaultInjectionEnv() : base_(Env::Default()) {}

  Status NewWritableFile(const std::string& path, std::unique_ptr<WritableFile>* out) override;
  Status NewRandomAccessFile(const std::string& path, std::unique_ptr<RandomAccessFile>* out) override {
    return base_->NewRandomAccessFile(path, out);
  }
  bool FileExists(const std::string& path) override { return base_->FileExists(path); }
  Status GetChildren(const std::string& dir, std::vector<std::string>* names) override {
    return base_->GetChildren(dir, names);
  }
  Status RemoveFile(const std::string& path) override;
  Status RenameFile(const std::string& from, const std::string& to) override;
  Status CreateDir(const std::string& path) override;
  Status SyncDir(const std::string& dir) override;
  Status GetFileSize(const std::string& path, uint64_t* size) override { return base_->GetFileSize(path, size); }

  // false: every append, sync, create, rename, remove and SyncDir fails
  // with an IOError saying the filesystem is down.
  void SetFilesystemActive(bool active);
  // The next `n` Sync() calls of files (not SyncDir) fail with an IOError
  // (a failing disk); the data stays unsynced.
  void FailNextSyncs(int n);
  // The next `n` Append calls fail with an IOError, writing nothing.
  void FailNextAppends(int n);
  // Every file Sync() takes at least this long (a slow disk), outside the lock.
  void SetSyncDelayMicros(int micros);

  // The crash (see above). `rnd` picks how many unsynced bytes each file
  // keeps; with drop_unsynced_dir_entries, directory changes not synced are
  // undone. Afterwards everything on disk counts as synced.
  Status PowerLoss(Random* rnd, bool drop_unsynced_dir_entries);

  // Totals over files written through this Env since construction.
  uint64_t bytes_appended() const;
  uint64_t bytes_synced() const;
  uint64_t unsynced_bytes_dropped() const;

  // Called by the files.
  Status OnAppend(const std::string& path, size_t n);
  Status OnSync(const std::string& path);

 private:
  struct FileState {
    uint64_t written = 0;
    uint64_t synced = 0;
  };
  // A directory change not yet synced, and how to undo it.
  struct DirOp {
    enum Kind { kCreate, kRename, kRemove } kind;
    std::string path;       // created / renamed-to / removed
    std::string from;       // kRename: the old name
    bool had_old = false;   // kCreate, kRename: `path` existed before
    std::string old_bytes;  // ... its durable contents; kRemove: the removed file's
  };
  Status Down() const;
  // The bytes of `path` that are durable now (under mu_).
  std::string DurableContents(const std::string& path);

  Env* const base_;
  mutable std::mutex mu_;
  bool active_ = true;
  int fail_syncs_ = 0;
  int fail_appends_ = 0;
  int sync_delay_micros_ = 0;
  std::map<std::string, FileState> files_;
  std::vector<DirOp> dir_ops_;
  uint64_t appended_ = 0, synced_ = 0, dropped_ = 0;
};

}  // namespace filterlab::engine
