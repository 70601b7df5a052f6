#include "engine/db/log_reader.h"

#include "engine/db/log_format.h"
#include "engine/util/coding.h"
#include "engine/util/crc32c.h"

namespace filterlab::engine::log {

// Damage is reported in file order. A dropped record can cover damage
// already reported inside it (a lost block between its fragments): the
// wider region replaces those.
void Reader::AddDamage(uint64_t offset, uint64_t bytes, bool incomplete_tail, const std::string& reason,
                       uint64_t intact_fragments) {
  if (bytes == 0) return;
  std::string why = reason;
  while (!damages_.empty() && damages_.back().offset >= offset) {
    incomplete_tail = incomplete_tail && damages_.back().incomplete_tail;
    intact_fragments += damages_.back().intact_fragments;
    why = damages_.back().reason;  // the damage inside explains the loss better
    damages_.pop_back();
  }
  if (!damages_.empty()) {
    Damage& last = damages_.back();
    if (last.offset + last.bytes >= offset) {  // contiguous: one region
      last.bytes = offset + bytes - last.offset;
      last.incomplete_tail = last.incomplete_tail && incomplete_tail;
      last.intact_fragments += intact_fragments;
      return;
    }
  }
  damages_.push_back({offset, bytes, incomplete_tail, intact_fragments, why});
}

bool Reader::FragmentVerifies(uint64_t at, uint64_t end) const {
  if (end - at < kHeaderSize) return false;
  const char* h = contents_.data() + at;
  const size_t length = static_cast<uint8_t>(h[4]) | (static_cast<size_t>(static_cast<uint8_t>(h[5])) << 8);
  const uint8_t t = static_cast<uint8_t>(h[6]);
  if (t < kFullType || t > kMaxRecordType || at + kHeaderSize + length > end) return false;
  return crc32c::Mask(crc32c::Extend(crc32c::Value(h + 6, 1), h + kHeaderSize, length)) == DecodeFixed32(h);
}

// Finds the first intact fragment by trying every offset (the type and
// bounds checks pass for about 4 offsets in 256 of random bytes, each then
// costs one CRC of at most a block), then follows the chain of intact
// fragments after it. The records they hold are not read: a payload may
// itself contain log fragments (a log stored as a value), so a fragment
// found by scanning is evidence of damage, never data.
uint64_t Reader::CountIntactFragments(uint64_t from, uint64_t end) const {
  uint64_t at = from;
  while (at + kHeaderSize <= end && !FragmentVerifies(at, end)) ++at;
  uint64_t count = 0;
  while (at + kHeaderSize <= end && FragmentVerifies(at, end)) {
    ++count;
    const char* h = contents_.data() + at;
    at += kHeaderSize + (static_cast<uint8_t>(h[4]) | (static_cast<size_t>(static_cast<uint8_t>(h[5])) << 8));
  }
  return count;
}

Reader::Fragment Reader::ReadFragment(uint8_t* type, Slice* data, uint64_t* at) {
  const uint64_t size = contents_.size();
  while (pos_ < size) {
    const uint64_t block_end = (pos_ / kBlockSize + 1) * kBlockSize;
    const uint64_t end = block_end < size ? block_end : size;
    if (block_end - pos_ < kHeaderSize) {  // the writer's zero padding
      pos_ = end;
      continue;
    }
    const uint64_t start = pos_;
    if (end - pos_ < kHeaderSize) {
      pos_ = end;
      AddDamage(start, end - start, end == size, "fragment header cut short");
      continue;
    }
    const char* h = contents_.data() + pos_;
    const uint32_t stored_crc = DecodeFixed32(h);
    const size_t length = static_cast<uint8_t>(h[4]) | (static_cast<size_t>(static_cast<uint8_t>(h[5])) << 8);
    const uint8_t t = static_cast<uint8_t>(h[6]);
    if (pos_ + kHeaderSize + length > end) {
      const bool past_eof = end == size && pos_ + kHeaderSize + length <= block_end;
      // Cut short by the end of the file: a torn last write, unless intact
      // fragments follow inside the range (then the length was damaged).
      const uint64_t intact = past_eof ? CountIntactFragments(start + 1, end) : 0;
      pos_ = end;
      std::string reason = past_eof
                               ? "fragment of " + std::to_string(length) + " bytes cut short by the end of the file"
                               : "fragment length " + std::to_string(length) + " crosses the block boundary";
      if (intact > 0) reason += ", but " + std::to_string(intact) + " intact fragment(s) follow it (a damaged length)";
      AddDamage(start, end - start, past_eof && intact == 0, reason, intact);
      continue;
    }
    const uint32_t crc = crc32c::Extend(crc32c::Value(h + 6, 1), h + kHeaderSize, length);
    if (crc32c::Mask(crc) != stored_crc) {
      pos_ = end;  // the length is not trustworthy: drop the rest of the block
      AddDamage(start, end - start, false, "checksum mismatch in a fragment of " + std::to_string(length) + " bytes");
      continue;
    }
    if (t < kFullType || t > kMaxRecordType) {
      pos_ = end;
      AddDamage(start, end - start, false, "unknown fragment type " + std::to_string(t));
      continue;
    }
    pos_ += kHeaderSize + length;
    *type = t;
    *data = Slice(h + kHeaderSize, length);
    *at = start;
    return Fragment::kOk;
  }
  return Fragment::kEnd;
}

bool Reader::ReadRecord(Slice* record) {
  bool in_record = false;
  uint64_t start = 0;
  assembled_.clear();
  uint8_t type = 0;
  Slice data;
  uint64_t at = 0;
  size_t damages_before = damages_.size();
  while (true) {
    if (ReadFragment(&type, &data, &at) == Fragment::kEnd) {
      if (in_record) AddDamage(start, contents_.size() - start, true, "record incomplete at the end of the file");
      return false;
    }
    const uint64_t frag_end = at + kHeaderSize + data.size();
    if (in_record && damages_.size() != damages_before) {
      // Damage between two fragments of the record: its middle is gone.
      AddDamage(start, at - start, false, "record lost a fragment to damage");
      in_record = false;
    }
    damages_before = damages_.size();
    switch (type) {
      case kFullType:
      case kFirstType:
        if (in_record) AddDamage(start, at - start, false, "record lacks its last fragment");
        in_record = type == kFirstType;
        start = at;
        assembled_.assign(data.data(), data.size());
        if (type == kFullType) {
          record_offset_ = at;
          *record = Slice(assembled_);
          return true;
        }
        break;
      case kMiddleType:
      case kLastType:
        if (!in_record) {
          AddDamage(at, frag_end - at, false, "fragment of a record whose beginning is lost");
          break;
        }
        assembled_.append(data.data(), data.size());
        if (type == kLastType) {
          record_offset_ = start;
          *record = Slice(assembled_);
          return true;
        }
        break;
    }
  }
}

std::string Reader::Describe(const Damage& d) const {
  return std::to_string(d.bytes) + " bytes at offset " + std::to_string(d.offset) + " of " + name_ + ": " + d.reason;
}

}  // namespace filterlab::engine::log
