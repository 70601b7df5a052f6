// WriteBatch: a group of Puts and Deletes applied atomically (all or none
// visible, all or none recovered). It is also the payload of one WAL record.
//
// Encoding (rep_):
//   fixed64 first sequence number ‖ fixed32 count ‖ count records, each
//   kTypeValue ‖ varint32 len ‖ key ‖ varint32 len ‖ value   or
//   kTypeDeletion ‖ varint32 len ‖ key
// The DB stamps the sequence when it writes the batch; record i gets
// sequence first + i. Keys and values may be empty and up to 4 GiB − 1.
#pragma once

#include <cstdint>
#include <string>

#include "common/slice.h"
#include "common/status.h"
#include "engine/memtable/internal_key.h"

namespace filterlab::engine {

class MemTable;

class WriteBatch {
 public:
  // Receives the records of a batch in order (Iterate).
  class Handler {
   public:
    virtual ~Handler() = default;
    virtual void Put(const Slice& key, const Slice& value) = 0;
    virtual void Delete(const Slice& key) = 0;
  };

  WriteBatch();

  void Put(const Slice& key, const Slice& value);
  void Delete(const Slice& key);
  void Clear();

  uint32_t Count() const;
  // Bytes of the encoding (what the WAL record will carry).
  size_t ApproximateSize() const { return rep_.size(); }
  // Corruption naming the record when the encoding is malformed.
  Status Iterate(Handler* handler) const;

 private:
  friend class WriteBatchInternal;
  std::string rep_;
};

// The DB's access to a batch's encoding.
class WriteBatchInternal {
 public:
  static constexpr size_t kHeaderSize = 12;
  static SequenceNumber Sequence(const WriteBatch& b);
  static void SetSequence(WriteBatch* b, SequenceNumber seq);
  static Slice Contents(const WriteBatch& b) { return Slice(b.rep_); }
  // Corruption when shorter than the header.
  static Status SetContents(WriteBatch* b, const Slice& contents);
  static void Append(WriteBatch* dst, const WriteBatch& src);
  // Adds every record to `mem` with its sequence number; Corruption (and
  // nothing added) if the encoding is malformed or the count disagrees.
  static Status InsertInto(const WriteBatch& b, MemTable* mem);
};

}  // namespace filterlab::engine
