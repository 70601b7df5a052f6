#include "engine/db/db_files.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cinttypes>
#include <cstdio>
#include <cstring>

namespace filterlab::engine {
namespace {

std::string NumberedName(const std::string& dir, uint64_t number, const char* suffix) {
  char buf[64];
  std::snprintf(buf, sizeof(buf), "/%06" PRIu64 "%s", number, suffix);
  return dir + buf;
}

Status Errno(const std::string& what, const std::string& path) {
  return Status::IOError(path + ": " + what + " failed: " + std::strerror(errno));
}

// Parses a non-empty all-digit prefix of `s` ending at `end`.
bool ParseNumber(const std::string& s, size_t begin, size_t end, uint64_t* out) {
  if (begin >= end || end - begin > 19) return false;
  uint64_t v = 0;
  for (size_t i = begin; i < end; ++i) {
    if (s[i] < '0' || s[i] > '9') return false;
    v = v * 10 + static_cast<uint64_t>(s[i] - '0');
  }
  *out = v;
  return true;
}

bool EndsWith(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

}  // namespace

std::string LogFileName(const std::string& dir, uint64_t number) { return NumberedName(dir, number, ".log"); }
std::string TableFileName(const std::string& dir, uint64_t number) { return NumberedName(dir, number, ".sst"); }
std::string ManifestFileName(const std::string& dir, uint64_t number) {
  char buf[64];
  std::snprintf(buf, sizeof(buf), "/MANIFEST-%06" PRIu64, number);
  return dir + buf;
}
std::string CurrentFileName(const std::string& dir) { return dir + "/CURRENT"; }
std::string LockFileName(const std::string& dir) { return dir + "/LOCK"; }
std::string LostDirName(const std::string& dir) { return dir + "/lost"; }

DbFileType ParseDbFileName(const std::string& name, uint64_t* number) {
  if (name == "CURRENT") return DbFileType::kCurrent;
  if (name == "LOCK") return DbFileType::kLock;
  if (EndsWith(name, ".tmp")) return DbFileType::kTemp;
  if (name.rfind("MANIFEST-", 0) == 0) {
    return ParseNumber(name, 9, name.size(), number) ? DbFileType::kManifest : DbFileType::kOther;
  }
  if (EndsWith(name, ".log") && ParseNumber(name, 0, name.size() - 4, number)) return DbFileType::kLog;
  if (EndsWith(name, ".sst") && ParseNumber(name, 0, name.size() - 4, number)) return DbFileType::kTable;
  return DbFileType::kOther;
}

Status CheckIsDirectoryOrMissing(const std::string& path) {
  struct stat st;
  if (::stat(path.c_str(), &st) != 0) {
    if (errno == ENOENT) return Status::OK();
    return Errno("stat", path);
  }
  if (!S_ISDIR(st.st_mode)) {
    return Status::InvalidArgument("DB path " + path + " exists but is not a directory (a DB is a directory)");
  }
  return Status::OK();
}

Status FileLock::Acquire(const std::string& path, FileLock** out) {
  const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) return Errno("open lock file", path);
  if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
    const int err = errno;
    ::close(fd);
    if (err == EWOULDBLOCK) {
      return Status::Busy(path + " is locked: the database is already open (in this or another process)");
    }
    errno = err;
    return Errno("flock", path);
  }
  *out = new FileLock(fd);
  return Status::OK();
}

void FileLock::Unlock() {
  ::flock(fd_, LOCK_UN);
  ::close(fd_);
  delete this;
}

}  // namespace filterlab::engine
