// Iterator: the DB's forward scan over user keys in bytewise order, showing
// each key's newest value visible at the iterator's snapshot and hiding
// deleted keys. An iterator pins the memtables and the table files it reads,
// so flushes and compactions that run meanwhile do not change what it sees.
#pragma once

#include "common/slice.h"
#include "common/status.h"

namespace filterlab::engine {

class Iterator {
 public:
  virtual ~Iterator() = default;
  virtual bool Valid() const = 0;
  virtual void SeekToFirst() = 0;
  // First key >= target.
  virtual void Seek(const Slice& target) = 0;
  // Precondition: Valid().
  virtual void Next() = 0;
  // Precondition: Valid(). Valid until the next move.
  virtual Slice key() const = 0;
  virtual Slice value() const = 0;
  // First error met (the iterator is then invalid); OK at a clean end.
  virtual Status status() const = 0;
};

}  // namespace filterlab::engine
