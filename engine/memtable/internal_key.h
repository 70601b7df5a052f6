// Internal keys (RocksDB's db/dbformat.h): every stored entry is
//   user_key ‖ fixed64_LE(sequence << 8 | type)
// ordered by user key ascending (bytewise; the engine has no custom user
// comparators) and, for equal user keys, by the 8-byte trailer as a u64
// DESCENDING, so the newest version of a key comes first and a lookup at
// snapshot S seeks (key, S, kValueTypeForSeek) and lands on the newest
// version with sequence ≤ S.
#pragma once

#include <cstdint>
#include <string>

#include "common/slice.h"
#include "common/status.h"
#include "engine/util/coding.h"

namespace filterlab::engine {

using SequenceNumber = uint64_t;
// Sequence numbers take the top 56 bits of the trailer.
inline constexpr SequenceNumber kMaxSequenceNumber = (uint64_t{1} << 56) - 1;
inline constexpr size_t kInternalKeyTrailerBytes = 8;

// The value types the engine stores (RocksDB's numbering).
enum ValueType : uint8_t {
  kTypeDeletion = 0x0,
  kTypeValue = 0x1,
  kTypeMerge = 0x2,
  kTypeSingleDeletion = 0x7,
  kTypeRangeDeletion = 0xF,
};
// The largest type in use: a seek key (seq, kValueTypeForSeek) sorts before
// every entry with the same user key and sequence, because a larger trailer
// sorts first.
inline constexpr ValueType kValueTypeForSeek = kTypeRangeDeletion;

// One of the ValueType values above (bits 0, 1, 2, 7 and 15 of the mask).
inline bool IsKnownValueType(uint8_t type) { return type < 16 && ((0x8087u >> type) & 1u) != 0; }

inline uint64_t PackSequenceAndType(SequenceNumber seq, ValueType type) { return (seq << 8) | type; }

struct ParsedInternalKey {
  Slice user_key;
  SequenceNumber sequence = 0;
  ValueType type = kTypeValue;
};

// Appends user_key ‖ trailer. Precondition: seq ≤ kMaxSequenceNumber.
void AppendInternalKey(std::string* dst, const Slice& user_key, SequenceNumber seq, ValueType type);

// Precondition: internal_key.size() >= 8 (callers validate first).
inline Slice ExtractUserKey(const Slice& internal_key) {
  return Slice(internal_key.data(), internal_key.size() - kInternalKeyTrailerBytes);
}
inline uint64_t ExtractTrailer(const Slice& internal_key) {
  return DecodeFixed64(internal_key.data() + internal_key.size() - kInternalKeyTrailerBytes);
}

// The Corruption ParseInternalKey returns for a key it cannot parse.
Status InternalKeyParseError(const Slice& internal_key);
// Corruption (naming the problem) when shorter than the trailer or the type
// is unknown. Inline, with the error built out of line: a DB iterator parses
// every entry it passes, and the call and the OK status cost more than the parse.
inline Status ParseInternalKey(const Slice& internal_key, ParsedInternalKey* out) {
  if (internal_key.size() < kInternalKeyTrailerBytes) [[unlikely]] {
    return InternalKeyParseError(internal_key);
  }
  const uint64_t trailer = ExtractTrailer(internal_key);
  const auto type = static_cast<uint8_t>(trailer & 0xff);
  if (!IsKnownValueType(type)) [[unlikely]] {
    return InternalKeyParseError(internal_key);
  }
  out->user_key = ExtractUserKey(internal_key);
  out->sequence = trailer >> 8;
  out->type = static_cast<ValueType>(type);
  return Status::OK();
}

// Three-way comparison in internal-key order. Preconditions: both ≥ 8 bytes.
// Inline: the memtable's skip list calls it on every search step.
inline int CompareInternalKeys(const Slice& a, const Slice& b) {
  const int r = ExtractUserKey(a).compare(ExtractUserKey(b));
  if (r != 0) return r;
  const uint64_t ta = ExtractTrailer(a), tb = ExtractTrailer(b);
  if (ta > tb) return -1;  // larger trailer (newer) first
  if (ta < tb) return 1;
  return 0;
}

// A memtable lookup key for (user_key, snapshot): the memtable entry prefix
// varint32(len) ‖ user_key ‖ trailer(snapshot, kValueTypeForSeek), so it can
// be compared directly against stored entries.
// Keys up to kInlineBytes encoded (user keys up to 51 bytes) live inside the
// object: a point lookup allocates nothing for its key.
class LookupKey {
 public:
  LookupKey(const Slice& user_key, SequenceNumber snapshot);
  // varint32-prefixed internal key, the memtable's key format.
  const char* memtable_key() const { return data(); }
  Slice internal_key() const { return Slice(data() + ikey_offset_, size_ - ikey_offset_); }
  Slice user_key() const { return Slice(data() + ikey_offset_, size_ - ikey_offset_ - kInternalKeyTrailerBytes); }

 private:
  static constexpr size_t kInlineBytes = 64;
  const char* data() const { return on_heap_ ? heap_.data() : inline_; }
  char inline_[kInlineBytes];
  std::string heap_;  // used only for longer keys
  bool on_heap_ = false;
  size_t size_ = 0;
  size_t ikey_offset_ = 0;
};

}  // namespace filterlab::engine
