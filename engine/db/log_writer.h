// log::Writer: appends records (log_format.h) to a WritableFile, one
// Append call per record, so a killed process leaves either the whole record
// in the OS page cache or a torn tail the reader drops. Sync() makes the
// records durable. Not thread-safe (the DB serialises writers).
#pragma once

#include <memory>

#include "common/slice.h"
#include "common/status.h"
#include "engine/util/file.h"

namespace filterlab::engine::log {

class Writer {
 public:
  explicit Writer(std::unique_ptr<WritableFile> file) : file_(std::move(file)) {}
  Status AddRecord(const Slice& payload);
  Status Sync() { return file_->Sync(); }
  Status Close() { return file_->Close(); }
  uint64_t bytes_written() const { return bytes_written_; }

 private:
  std::unique_ptr<WritableFile> file_;
  uint64_t bytes_written_ = 0;
};

// The header + payload of one record, for callers that build files whole.
void AppendRecord(std::string* dst, const Slice& payload);

}  // namespace filterlab::engine::log
