#include "engine/db/log_writer.h"

#include "engine/db/log_format.h"
#include "engine/util/coding.h"
#include "engine/util/crc32c.h"

namespace filterlab::engine::log {

void AppendRecord(std::string* dst, const Slice& payload) {
  char len[4];
  EncodeFixed32(len, static_cast<uint32_t>(payload.size()));
  uint32_t crc = crc32c::Value(len, sizeof(len));
  crc = crc32c::Extend(crc, payload.data(), payload.size());
  PutFixed32(dst, crc32c::Mask(crc));
  dst->append(len, sizeof(len));
  dst->append(payload.data(), payload.size());
}

Status Writer::AddRecord(const Slice& payload) {
  if (payload.size() > kMaxRecordSize) {
    return Status::InvalidArgument("log record of " + std::to_string(payload.size()) +
                                   " bytes is too large (at most 4 GiB - 1)");
  }
  std::string record;
  record.reserve(kHeaderSize + payload.size());
  AppendRecord(&record, payload);
  Status s = file_->Append(record);
  if (s.ok()) bytes_written_ += record.size();
  return s;
}

}  // namespace filterlab::engine::log
