// log::Reader: reads the intact records of a log file (log_format.h) in
// order. Damage does not stop it: a fragment that does not verify costs the
// rest of its block, an incomplete record (fragments missing before or after)
// is dropped, and reading goes on at the next intact record (it never
// resynchronises inside a block: a payload may contain log fragments). Every dropped
// byte range is reported as a Damage, adjacent ones merged, so the caller
// sees where the damage is and how many intact records follow it, and
// applies its recovery policy.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/slice.h"
#include "common/status.h"

namespace filterlab::engine::log {

struct Damage {
  uint64_t offset = 0;  // first dropped byte
  uint64_t bytes = 0;   // dropped bytes from there (block padding included)
  // Only an unfinished write at the end of the file (a header or fragment cut
  // short, or a record whose last fragment is missing) and nothing after it.
  bool incomplete_tail = false;
  // Intact fragments inside the range, behind a damaged length that ran
  // past the end of the file (not read as records; see CountIntactFragments).
  uint64_t intact_fragments = 0;
  std::string reason;
};

class Reader {
 public:
  // Reads records from `contents` (the whole file); `name` labels messages.
  Reader(std::string contents, std::string name) : contents_(std::move(contents)), name_(std::move(name)) {}

  // The next intact record (valid until the next call); false at the end.
  // Damage met on the way is appended to damages() first.
  bool ReadRecord(Slice* record);

  // Offset of the first byte of the record ReadRecord last returned.
  uint64_t record_offset() const { return record_offset_; }
  const std::vector<Damage>& damages() const { return damages_; }
  const std::string& name() const { return name_; }
  uint64_t size() const { return contents_.size(); }
  // "N bytes at offset X of NAME: REASON".
  std::string Describe(const Damage& d) const;

 private:
  enum class Fragment { kOk, kEnd };
  // The next verified fragment (*type, *data, *at) or kEnd.
  Fragment ReadFragment(uint8_t* type, Slice* data, uint64_t* at);
  // Whether an intact fragment starts at `at` (and ends by `end`).
  bool FragmentVerifies(uint64_t at, uint64_t end) const;
  // Intact fragments from the first one at or after `from` on, chained, before `end`.
  uint64_t CountIntactFragments(uint64_t from, uint64_t end) const;
  void AddDamage(uint64_t offset, uint64_t bytes, bool incomplete_tail, const std::string& reason,
                 uint64_t intact_fragments = 0);

  const std::string contents_;
  const std::string name_;
  uint64_t pos_ = 0;
  uint64_t record_offset_ = 0;
  std::string assembled_;
  std::vector<Damage> damages_;
};

}  // namespace filterlab::engine::log
