#include "engine/util/file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace filterlab::engine {
namespace {

Status PastEnd(const std::string& name, uint64_t offset, size_t n, uint64_t size) {
  return Status::IOError(name + ": read of " + std::to_string(n) + " bytes at offset " + std::to_string(offset) +
                         " goes past the end of the file (" + std::to_string(size) + " bytes)");
}

bool RangeFits(uint64_t offset, size_t n, uint64_t size) { return offset <= size && n <= size - offset; }

class StringFile final : public RandomAccessFile {
 public:
  StringFile(std::string contents, std::string name) : contents_(std::move(contents)), name_(std::move(name)) {}
  Status Read(uint64_t offset, size_t n, std::string*, Slice* result) const override {
    if (!RangeFits(offset, n, contents_.size())) return PastEnd(name_, offset, n, contents_.size());
    *result = Slice(contents_.data() + offset, n);
    return Status::OK();
  }
  uint64_t Size() const override { return contents_.size(); }
  const std::string& name() const override { return name_; }

 private:
  const std::string contents_;
  const std::string name_;
};

class PosixRandomAccessFile final : public RandomAccessFile {
 public:
  PosixRandomAccessFile(int fd, uint64_t size, std::string name) : fd_(fd), size_(size), name_(std::move(name)) {}
  ~PosixRandomAccessFile() override { ::close(fd_); }
  Status Read(uint64_t offset, size_t n, std::string* scratch, Slice* result) const override {
    if (!RangeFits(offset, n, size_)) return PastEnd(name_, offset, n, size_);
    scratch->resize(n);
    Status s = PreadAtLeast(fd_, scratch->data(), n, n, offset, name_);
    if (!s.ok()) return s;
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

class StringSink final : public WritableFile {
 public:
  explicit StringSink(std::string* dst) : dst_(dst) {}
  Status Append(const Slice& data) override {
    if (closed_) return Status::IOError("append to a closed in-memory file");
    dst_->append(data.data(), data.size());
    return Status::OK();
  }
  Status Close() override {
    closed_ = true;
    return Status::OK();
  }

 private:
  std::string* dst_;
  bool closed_ = false;
};

class PosixWritableFile final : public WritableFile {
 public:
  PosixWritableFile(int fd, std::string path) : fd_(fd), path_(std::move(path)) {}
  ~PosixWritableFile() override {
    if (fd_ >= 0) ::close(fd_);
  }
  Status Append(const Slice& data) override {
    if (fd_ < 0) return Status::IOError(path_ + ": append to a closed file");
    size_t done = 0;
    while (done < data.size()) {
      const ssize_t r = ::write(fd_, data.data() + done, data.size() - done);
      if (r < 0 && errno == EINTR) continue;
      if (r < 0) return Status::IOError(path_ + ": write failed: " + std::strerror(errno));
      done += static_cast<size_t>(r);
    }
    return Status::OK();
  }
  Status Sync() override {
    if (fd_ < 0) return Status::IOError(path_ + ": sync of a closed file");
    if (::fdatasync(fd_) != 0) return Status::IOError(path_ + ": fdatasync failed: " + std::strerror(errno));
    return Status::OK();
  }
  Status Close() override {
    if (fd_ < 0) return Status::OK();
    const int r = ::close(fd_);
    fd_ = -1;
    if (r != 0) return Status::IOError(path_ + ": close failed: " + std::strerror(errno));
    return Status::OK();
  }

 private:
  int fd_;
  const std::string path_;
};

}  // namespace

Status PreadAtLeast(int fd, char* buf, size_t capacity, size_t min_bytes, uint64_t offset, const std::string& name,
                    const char* kind) {
  size_t done = 0;
  while (done < min_bytes) {
    const ssize_t r = ::pread(fd, buf + done, capacity - done, static_cast<off_t>(offset + done));
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) {
      return Status::IOError(name + ": " + kind + "pread at offset " + std::to_string(offset + done) +
                             " failed: " + (r == 0 ? std::string("unexpected end of file") : std::strerror(errno)));
    }
    done += static_cast<size_t>(r);
  }
  return Status::OK();
}

std::unique_ptr<RandomAccessFile> NewStringFile(std::string contents, std::string name) {
  return std::make_unique<StringFile>(std::move(contents), std::move(name));
}

Status NewPosixRandomAccessFile(const std::string& path, std::unique_ptr<RandomAccessFile>* out) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return Status::IOError(path + ": cannot open for reading: " + std::strerror(errno));
  struct stat st;
  if (::fstat(fd, &st) != 0) {
    const int err = errno;
    ::close(fd);
    return Status::IOError(path + ": cannot stat: " + std::strerror(err));
  }
  if (!S_ISREG(st.st_mode)) {
    ::close(fd);
    return Status::IOError(path + ": not a regular file");
  }
  *out = std::make_unique<PosixRandomAccessFile>(fd, static_cast<uint64_t>(st.st_size), path);
  return Status::OK();
}

std::unique_ptr<WritableFile> NewStringSink(std::string* dst) { return std::make_unique<StringSink>(dst); }

Status NewPosixWritableFile(const std::string& path, std::unique_ptr<WritableFile>* out) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return Status::IOError(path + ": cannot open for writing: " + std::strerror(errno));
  *out = std::make_unique<PosixWritableFile>(fd, path);
  return Status::OK();
}

}  // namespace filterlab::engine
