#include "engine/memtable/internal_key.h"

#include <cassert>
#include <cstring>

#include "engine/util/coding.h"

namespace filterlab::engine {

void AppendInternalKey(std::string* dst, const Slice& user_key, SequenceNumber seq, ValueType type) {
  assert(seq <= kMaxSequenceNumber);
  dst->append(user_key.data(), user_key.size());
  PutFixed64(dst, PackSequenceAndType(seq, type));
}

Status InternalKeyParseError(const Slice& internal_key) {
  if (internal_key.size() < kInternalKeyTrailerBytes) {
    return Status::Corruption("internal key of " + std::to_string(internal_key.size()) +
                              " bytes is shorter than its 8-byte sequence/type trailer");
  }
  const auto type = static_cast<uint8_t>(ExtractTrailer(internal_key) & 0xff);
  return Status::Corruption("internal key has unknown value type " + std::to_string(type) +
                            " (allowed: 0 deletion, 1 value, 2 merge, 7 single deletion, 15 range deletion)");
}

LookupKey::LookupKey(const Slice& user_key, SequenceNumber snapshot) {
  assert(snapshot <= kMaxSequenceNumber);
  const size_t ikey_len = user_key.size() + kInternalKeyTrailerBytes;
  const size_t max_size = kMaxVarint32Bytes + ikey_len;
  char* dst = inline_;
  if (max_size > kInlineBytes) {
    heap_.resize(max_size);
    dst = heap_.data();
    on_heap_ = true;
  }
  char* p = EncodeVarint32(dst, static_cast<uint32_t>(ikey_len));
  ikey_offset_ = static_cast<size_t>(p - dst);
  std::memcpy(p, user_key.data(), user_key.size());
  EncodeFixed64(p + user_key.size(), PackSequenceAndType(snapshot, kValueTypeForSeek));
  size_ = ikey_offset_ + ikey_len;
}

}  // namespace filterlab::engine
