#include "engine/memtable/internal_key.h"

#include <cassert>

#include "engine/util/coding.h"

namespace filterlab::engine {

bool IsKnownValueType(uint8_t type) {
  switch (type) {
    case kTypeDeletion:
    case kTypeValue:
    case kTypeMerge:
    case kTypeSingleDeletion:
    case kTypeRangeDeletion:
      return true;
    default:
      return false;
  }
}

void AppendInternalKey(std::string* dst, const Slice& user_key, SequenceNumber seq, ValueType type) {
  assert(seq <= kMaxSequenceNumber);
  dst->append(user_key.data(), user_key.size());
  PutFixed64(dst, PackSequenceAndType(seq, type));
}

Status ParseInternalKey(const Slice& internal_key, ParsedInternalKey* out) {
  if (internal_key.size() < kInternalKeyTrailerBytes) {
    return Status::Corruption("internal key of " + std::to_string(internal_key.size()) +
                              " bytes is shorter than its 8-byte sequence/type trailer");
  }
  const uint64_t trailer = ExtractTrailer(internal_key);
  const auto type = static_cast<uint8_t>(trailer & 0xff);
  if (!IsKnownValueType(type)) {
    return Status::Corruption("internal key has unknown value type " + std::to_string(type) +
                              " (allowed: 0 deletion, 1 value, 2 merge, 7 single deletion, 15 range deletion)");
  }
  out->user_key = ExtractUserKey(internal_key);
  out->sequence = trailer >> 8;
  out->type = static_cast<ValueType>(type);
  return Status::OK();
}

uint64_t ExtractTrailer(const Slice& internal_key) {
  assert(internal_key.size() >= kInternalKeyTrailerBytes);
  return DecodeFixed64(internal_key.data() + internal_key.size() - kInternalKeyTrailerBytes);
}

int CompareInternalKeys(const Slice& a, const Slice& b) {
  const int r = ExtractUserKey(a).compare(ExtractUserKey(b));
  if (r != 0) return r;
  const uint64_t ta = ExtractTrailer(a), tb = ExtractTrailer(b);
  if (ta > tb) return -1;  // larger trailer (newer) first
  if (ta < tb) return 1;
  return 0;
}

LookupKey::LookupKey(const Slice& user_key, SequenceNumber snapshot) {
  const size_t ikey_len = user_key.size() + kInternalKeyTrailerBytes;
  buf_.reserve(kMaxVarint32Bytes + ikey_len);
  PutVarint32(&buf_, static_cast<uint32_t>(ikey_len));
  ikey_offset_ = buf_.size();
  AppendInternalKey(&buf_, user_key, snapshot, kValueTypeForSeek);
}

}  // namespace filterlab::engine
