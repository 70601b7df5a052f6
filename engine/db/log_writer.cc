#include "engine/db/log_writer.h"

#include "engine/db/log_format.h"
#include "engine/util/coding.h"
#include "engine/util/crc32c.h"

namespace filterlab::engine::log {
namespace {

// Fragments `payload` into *out for a log whose size is `offset` before it.
void Fragment(uint64_t offset, const Slice& payload, std::string* out) {
  const char* p = payload.data();
  size_t left = payload.size();
  bool first = true;
  do {
    size_t in_block = static_cast<size_t>((offset + out->size()) % kBlockSize);
    const size_t room = kBlockSize - in_block;
    if (room < kHeaderSize) {
      out->append(room, '\0');
      in_block = 0;
    }
    const size_t avail = kBlockSize - in_block - kHeaderSize;
    const size_t n = left < avail ? left : avail;
    const bool last = n == left;
    const uint8_t type = first ? (last ? kFullType : kFirstType) : (last ? kLastType : kMiddleType);
    const char t = static_cast<char>(type);
    uint32_t crc = crc32c::Extend(crc32c::Value(&t, 1), p, n);
    PutFixed32(out, crc32c::Mask(crc));
    out->push_back(static_cast<char>(n & 0xff));
    out->push_back(static_cast<char>(n >> 8));
    out->push_back(t);
    out->append(p, n);
    p += n;
    left -= n;
    first = false;
  } while (left > 0);
}

}  // namespace

void AppendRecord(std::string* dst, const Slice& payload) {
  std::string fragments;
  Fragment(dst->size(), payload, &fragments);
  dst->append(fragments);
}

Status Writer::AddRecord(const Slice& payload) {
  buffer_.clear();
  Fragment(bytes_written_, payload, &buffer_);
  Status s = file_->Append(buffer_);
  if (s.ok()) bytes_written_ += buffer_.size();
  return s;
}

}  // namespace filterlab::engine::log
