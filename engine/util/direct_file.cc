#include "engine/util/direct_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

namespace filterlab::engine {
namespace {

std::string ErrnoText(int err) { return std::strerror(err); }

// The calling thread's aligned read buffer, grown to the largest read so far.
class AlignedBuffer {
 public:
  ~AlignedBuffer() { std::free(data_); }
  char* Reserve(size_t n) {
    if (n > size_) {
      std::free(data_);
      data_ = static_cast<char*>(std::aligned_alloc(kDirectIoAlignment, n));
      size_ = data_ == nullptr ? 0 : n;
    }
    return data_;
  }

 private:
  char* data_ = nullptr;
  size_t size_ = 0;
};

class DirectRandomAccessFile final : public RandomAccessFile {
 public:
  DirectRandomAccessFile(int fd, uint64_t size, std::string name) : fd_(fd), size_(size), name_(std::move(name)) {}
  ~DirectRandomAccessFile() override { ::close(fd_); }

  Status Read(uint64_t offset, size_t n, std::string* scratch, Slice* result) const override {
    if (offset > size_ || n > size_ - offset) {
      return Status::IOError(name_ + ": read of " + std::to_string(n) + " bytes at offset " + std::to_string(offset) +
                             " goes past the end of the file (" + std::to_string(size_) + " bytes)");
    }
    const uint64_t begin = offset / kDirectIoAlignment * kDirectIoAlignment;
    const uint64_t end = (offset + n + kDirectIoAlignment - 1) / kDirectIoAlignment * kDirectIoAlignment;
    const size_t span = static_cast<size_t>(end - begin);
    thread_local AlignedBuffer buffer;
    char* buf = buffer.Reserve(span);
    if (buf == nullptr) return Status::IOError(name_ + ": cannot allocate a " + std::to_string(span) + "-byte buffer");
    // The last page may run past the end of the file: pread then returns
    // short, which is fine as long as it covers [offset, offset + n).
    Status s = PreadAtLeast(fd_, buf, span, static_cast<size_t>(offset + n - begin), begin, name_, "O_DIRECT ");
    if (!s.ok()) return s;
    scratch->assign(buf + (offset - begin), n);
    *result = Slice(scratch->data(), n);
    return Status::OK();
  }
  uint64_t Size() const override { return size_; }
  const std::string& name() const override { return name_; }

 private:
  const int fd_;
  const uint64_t size_;
  const std::string name_;
};

}  // namespace

Status NewDirectRandomAccessFile(const std::string& path, std::unique_ptr<RandomAccessFile>* out, bool* direct) {
  *direct = false;
  int fd = ::open(path.c_str(), O_RDONLY | O_DIRECT | O_CLOEXEC);
  if (fd < 0 && errno == EINVAL) return NewPosixRandomAccessFile(path, out);  // the filesystem refuses O_DIRECT
  if (fd < 0) return Status::IOError(path + ": cannot open for O_DIRECT reads: " + ErrnoText(errno));
  struct stat st;
  if (::fstat(fd, &st) != 0) {
    const int err = errno;
    ::close(fd);
    return Status::IOError(path + ": fstat failed: " + ErrnoText(err));
  }
  *out = std::make_unique<DirectRandomAccessFile>(fd, static_cast<uint64_t>(st.st_size), path);
  *direct = true;
  return Status::OK();
}

bool DirectIoSupported(const std::string& dir, std::string* why) {
  const std::string probe = dir + "/.direct_io_probe";
  const int fd = ::open(probe.c_str(), O_RDWR | O_CREAT | O_TRUNC | O_DIRECT | O_CLOEXEC, 0644);
  if (fd >= 0) {
    ::close(fd);
    ::unlink(probe.c_str());
    why->clear();
    return true;
  }
  const int err = errno;
  ::unlink(probe.c_str());
  *why = err == EINVAL ? "the filesystem of " + dir + " refuses O_DIRECT (" + ErrnoText(err) + "; tmpfs does)"
                       : "cannot create a probe file in " + dir + ": " + ErrnoText(err);
  return false;
}

}  // namespace filterlab::engine
