#include "engine/db/log_reader.h"

#include "engine/db/log_format.h"
#include "engine/util/coding.h"
#include "engine/util/crc32c.h"

namespace filterlab::engine::log {

bool Reader::ReadRecord(Slice* payload) {
  if (!tail_problem_.empty()) return false;
  const uint64_t left = contents_.size() - offset_;
  if (left == 0) return false;
  if (left < kHeaderSize) {
    tail_problem_ = "incomplete record header (" + std::to_string(left) + " of " + std::to_string(kHeaderSize) +
                    " bytes)";
    return false;
  }
  const char* header = contents_.data() + offset_;
  const uint32_t stored_crc = DecodeFixed32(header);
  const uint32_t length = DecodeFixed32(header + 4);
  if (length > left - kHeaderSize) {
    tail_problem_ = "record length " + std::to_string(length) + " goes past the end of the file (" +
                    std::to_string(left - kHeaderSize) + " payload bytes left)";
    return false;
  }
  uint32_t crc = crc32c::Value(header + 4, 4);
  crc = crc32c::Extend(crc, header + kHeaderSize, length);
  if (crc32c::Mask(crc) != stored_crc) {
    tail_problem_ = "checksum mismatch in record of " + std::to_string(length) + " bytes";
    return false;
  }
  *payload = Slice(header + kHeaderSize, length);
  offset_ += kHeaderSize + length;
  return true;
}

std::string Reader::DescribeTail() const {
  return std::to_string(dropped_bytes()) + " bytes at offset " + std::to_string(offset_) + " of " + name_ +
         " dropped: " + tail_problem_;
}

}  // namespace filterlab::engine::log
