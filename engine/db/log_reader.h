// log::Reader: reads the records of a log file (log_format.h) in order and
// stops at the first one that does not verify — an incomplete header, a
// length past the end of the file, or a CRC mismatch — reporting where and
// why, so the caller can drop that tail (prefix semantics) and warn.
#pragma once

#include <cstdint>
#include <string>

#include "common/slice.h"
#include "common/status.h"

namespace filterlab::engine::log {

class Reader {
 public:
  // Reads records from `contents` (the whole file); `name` labels messages.
  Reader(std::string contents, std::string name) : contents_(std::move(contents)), name_(std::move(name)) {}

  // The next record; false at the end or at the first bad record (then
  // tail_problem() says why and dropped_bytes() how much is ignored).
  bool ReadRecord(Slice* payload);

  // "" when every byte was read as records.
  const std::string& tail_problem() const { return tail_problem_; }
  uint64_t dropped_bytes() const { return contents_.size() - offset_; }
  uint64_t offset() const { return offset_; }
  // "N bytes at offset X of NAME dropped: PROBLEM".
  std::string DescribeTail() const;

 private:
  const std::string contents_;
  const std::string name_;
  uint64_t offset_ = 0;
  std::string tail_problem_;
};

}  // namespace filterlab::engine::log
