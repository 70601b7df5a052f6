// log::Writer: appends records (log_format.h) to a WritableFile. A record's
// fragments go out in one Append, so a killed process leaves either the whole
// record in the OS page cache or a torn tail the reader reports. Sync() makes
// the records durable. Not thread-safe (the DB serialises writers).
#pragma once

#include <memory>
#include <string>

#include "common/slice.h"
#include "common/status.h"
#include "engine/util/file.h"

namespace filterlab::engine::log {

class Writer {
 public:
  // Writes into a new (empty) file.
  explicit Writer(std::unique_ptr<WritableFile> file) : file_(std::move(file)) {}
  Status AddRecord(const Slice& payload);
  Status Sync() { return file_->Sync(); }
  Status Close() { return file_->Close(); }
  uint64_t bytes_written() const { return bytes_written_; }

 private:
  std::unique_ptr<WritableFile> file_;
  uint64_t bytes_written_ = 0;
  std::string buffer_;  // the fragments of one record, reused
};

// Appends the fragments of `payload` to *dst, a log whose first byte is at
// the start of a block and whose current size is dst->size().
void AppendRecord(std::string* dst, const Slice& payload);

}  // namespace filterlab::engine::log
