// Env::Default(): the POSIX filesystem, and the whole-file helpers.
#include "engine/util/env.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace filterlab::engine {
namespace {

Status Errno(const std::string& what, const std::string& path) {
  return Status::IOError(path + ": " + what + " failed: " + std::strerror(errno));
}

class PosixEnv final : public Env {
 public:
  Status NewWritableFile(const std::string& path, std::unique_ptr<WritableFile>* out) override {
    return NewPosixWritableFile(path, out);
  }
  Status NewRandomAccessFile(const std::string& path, std::unique_ptr<RandomAccessFile>* out) override {
    return NewPosixRandomAccessFile(path, out);
  }
  bool FileExists(const std::string& path) override {
    struct stat st;
    return ::stat(path.c_str(), &st) == 0;
  }
  Status GetChildren(const std::string& dir, std::vector<std::string>* names) override {
    names->clear();
    DIR* d = ::opendir(dir.c_str());
    if (d == nullptr) return Errno("opendir", dir);
    while (struct dirent* e = ::readdir(d)) {
      const std::string name = e->d_name;
      if (name != "." && name != "..") names->push_back(name);
    }
    ::closedir(d);
    return Status::OK();
  }
  Status RemoveFile(const std::string& path) override {
    if (::unlink(path.c_str()) != 0) return Errno("unlink", path);
    return Status::OK();
  }
  Status RenameFile(const std::string& from, const std::string& to) override {
    if (::rename(from.c_str(), to.c_str()) != 0) return Errno("rename to " + to, from);
    return Status::OK();
  }
  Status CreateDir(const std::string& path) override {
    if (::mkdir(path.c_str(), 0755) != 0 && errno != EEXIST) return Errno("mkdir", path);
    return Status::OK();
  }
  Status SyncDir(const std::string& dir) override {
    const int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) return Errno("open directory", dir);
    const int r = ::fsync(fd);
    const int err = errno;
    ::close(fd);
    if (r != 0) {
      errno = err;
      return Errno("fsync directory", dir);
    }
    return Status::OK();
  }
  Status GetFileSize(const std::string& path, uint64_t* size) override {
    struct stat st;
    if (::stat(path.c_str(), &st) != 0) return Errno("stat", path);
    *size = static_cast<uint64_t>(st.st_size);
    return Status::OK();
  }
};

}  // namespace

Env* Env::Default() {
  static PosixEnv* env = new PosixEnv;
  return env;
}

Status ReadFileToString(Env* env, const std::string& path, std::string* contents) {
  std::unique_ptr<RandomAccessFile> file;
  Status s = env->NewRandomAccessFile(path, &file);
  if (!s.ok()) return s;
  Slice result;
  s = file->Read(0, file->Size(), contents, &result);
  if (!s.ok()) return s;
  if (result.data() != contents->data()) contents->assign(result.data(), result.size());
  contents->resize(result.size());
  return Status::OK();
}

Status WriteStringToFile(Env* env, const std::string& path, const Slice& contents, bool sync) {
  std::unique_ptr<WritableFile> file;
  Status s = env->NewWritableFile(path, &file);
  if (s.ok()) s = file->Append(contents);
  if (s.ok() && sync) s = file->Sync();
  if (s.ok()) s = file->Close();
  return s;
}

std::string DirName(const std::string& path) {
  const size_t slash = path.rfind('/');
  if (slash == std::string::npos) return ".";
  return slash == 0 ? "/" : path.substr(0, slash);
}

}  // namespace filterlab::engine
