// Files as the table layer sees them: a RandomAccessFile (positional reads of
// a file of known size, shared by concurrent readers) and a WritableFile
// (append-only). Each has a POSIX implementation and an in-memory one, so
// tests and fuzzers can build and open tables without touching the disk and
// the reader never cares where its bytes live.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "common/slice.h"
#include "common/status.h"

namespace filterlab::engine {

class RandomAccessFile {
 public:
  virtual ~RandomAccessFile() = default;
  // Reads bytes [offset, offset + n). *result may point into *scratch (which
  // is resized as needed) or into memory the file owns; it stays valid until
  // the next Read with the same scratch or the file's destruction. A read
  // past the end is an IOError naming the file, the range and the size.
  // Safe to call from several threads at once.
  virtual Status Read(uint64_t offset, size_t n, std::string* scratch, Slice* result) const = 0;
  virtual uint64_t Size() const = 0;
  // The name errors use (a path, or a label for in-memory files).
  virtual const std::string& name() const = 0;
};

class WritableFile {
 public:
  virtual ~WritableFile() = default;
  virtual Status Append(const Slice& data) = 0;
  // Makes the appended bytes durable (fdatasync for POSIX files); in-memory
  // files have nothing to do.
  virtual Status Sync() { return Status::OK(); }
  // Flushes and closes; further Appends are errors.
  virtual Status Close() = 0;
};

// A read-only file over a copy of `contents`.
// pread into buf[0, capacity) at `offset` until at least min_bytes are in,
// retrying EINTR; a read that ends before min_bytes (end of file, an error)
// is an IOError naming `name`, the offset and why. `kind` prefixes "pread"
// in the message (e.g. "O_DIRECT "). Buffered reads ask capacity =
// min_bytes; O_DIRECT reads whole aligned pages and need only the bytes
// asked for, so the last page may come back short.
Status PreadAtLeast(int fd, char* buf, size_t capacity, size_t min_bytes, uint64_t offset, const std::string& name,
                    const char* kind = "");

std::unique_ptr<RandomAccessFile> NewStringFile(std::string contents, std::string name);
// Opens `path` for positional reads (pread).
Status NewPosixRandomAccessFile(const std::string& path, std::unique_ptr<RandomAccessFile>* out);

// Appends to *dst, which must outlive the file.
std::unique_ptr<WritableFile> NewStringSink(std::string* dst);
// Creates or truncates `path`.
Status NewPosixWritableFile(const std::string& path, std::unique_ptr<WritableFile>* out);

}  // namespace filterlab::engine
