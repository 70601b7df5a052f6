// The slot table under Memento filter (memento.cc): a rank-and-select
// quotient filter (Pandey, Bender, Johnson, Patro, "A General-Purpose
// Counting Filter: Making Every Bit Count", SIGMOD 2017, Section 3) holding
// sorted runs of fixed-width remainders.
//
// An entry is (quotient q < N, remainder of `width` bits). The table is a
// multiset: an entry added twice takes two slots, so a delete removes one
// copy and leaves the other (what makes deletes exact for a filter whose
// distinct keys may share an entry). Entries of one quotient form a run of
// consecutive slots, sorted ascending (non-decreasing) by remainder;
// runs appear in quotient order, each starting at its canonical slot q or
// right after the previous run, whichever is later (linear probing that
// keeps order). Per slot two metadata bits: occupied[q] (quotient q has a
// run) and runend[i] (slot i ends a run). Runends are matched to occupied
// quotients by rank: the d-th occupied quotient's run ends at the d-th
// runend. So as not to count from slot 0, each block of 64 slots stores an
// offset: how many of its first slots are taken by runs of quotients of
// earlier blocks (RSQF's "offset", defined here from the block start).
// Then the runend of quotient q in block b is the d-th runend at or after
// 64b + offset[b], d = occupied quotients in [64b, q]. The offset is stored
// in 8 bits, saturating: 255 means "255 or more", and the true value is
// then computed from the previous block's (the runends after it), as the
// RSQF does. At load 0.95 a cluster backlog of 255 slots is very rare, so
// that walk almost never runs. The table has S >= N slots (a multiple of
// 64): runs of the last quotients may spill past slot N - 1.
//
// Layout (format 2): one block per 64 slots, each 17 + 8 width bytes: the
// occupieds word, the runends word (little-endian 64-bit), the offset byte,
// then the 64 remainders (slot j of the block at bit j * width of its
// remainder bytes, little-endian). A lookup reads one block: its two words,
// its offset and the run's remainders sit in one or two adjacent cache lines
// (the authors' code interleaves its blocks the same way; format 1 kept four
// separate arrays, four cache misses a probe). After the blocks,
// kTailBytes zero bytes, so 8-byte reads of the last remainders stay inside.
//
// Cost: width + 2 + 8/64 bits per slot. An insert shifts the slots up to
// the next empty one, a delete shifts the runs after the removed slot back,
// each run no further than its canonical slot, up to the next empty one.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "common/status.h"

namespace filterlab::memento {

inline constexpr int kMaxWidth = 58;
inline constexpr uint64_t kSaturatedOffset = 255;
inline constexpr uint64_t kTailBytes = 16;

struct TableShape {
  uint64_t quotients = 1;  // N: canonical slots
  uint64_t slots = 64;     // S >= N, a multiple of 64
  int width = 1;           // remainder bits per slot, 1..kMaxWidth

  uint64_t Blocks() const { return slots / 64; }
  uint64_t BlockBytes() const { return 17 + 8 * static_cast<uint64_t>(width); }
  uint64_t TotalBytes() const { return Blocks() * BlockBytes() + kTailBytes; }
  // Why the shape is impossible, or empty when it is fine.
  std::string Check() const;
};

// One (quotient, remainder) pair; tables load from them sorted by quotient,
// then remainder (repeats allowed: each takes its own slot).
struct Entry {
  uint64_t quotient;
  uint64_t remainder;
  bool operator<(const Entry& o) const {
    return quotient != o.quotient ? quotient < o.quotient : remainder < o.remainder;
  }
  bool operator==(const Entry& o) const { return quotient == o.quotient && remainder == o.remainder; }
};

class Table {
 public:
  Table() = default;
  // Reads `data` (shape.TotalBytes(), any alignment) in place:
  // read-only, Validate() before any query.
  Table(TableShape shape, const uint8_t* data);

  // A writable table of `shape.quotients` quotients from sorted entries,
  // with at least `min_slots` slots (more when runs spill past them; rounded
  // up to 64). InvalidArgument when an entry's quotient or remainder does
  // not fit.
  static Status Load(uint64_t quotients, int width, uint64_t min_slots, const std::vector<Entry>& sorted, Table* out) {
    return LoadFrom(
        quotients, width, min_slots, sorted.size(), [&](size_t i) { return sorted[i]; }, out);
  }
  // The same from n entries given by at(i) (a build decodes them from
  // packed, radix-sorted words without a vector of Entry).
  template <typename At>
  static Status LoadFrom(uint64_t quotients, int width, uint64_t min_slots, size_t n, At at, Table* out);

  const TableShape& shape() const { return shape_; }
  bool writable() const { return !owned_.empty(); }
  const uint8_t* data() const { return Base(); }
  size_t bytes() const { return shape_.TotalBytes(); }
  uint64_t used_slots() const { return used_; }

  bool Occupied(uint64_t q) const { return Bit(kOccupied, q); }
  bool RunEnd(uint64_t i) const { return Bit(kRunends, i); }
  uint64_t Remainder(uint64_t i) const;
  // The block's true offset (the stored byte, or past saturation computed).
  uint64_t Offset(uint64_t block) const;
  // The slots of q's run, when q is occupied (false otherwise).
  bool FindRun(uint64_t q, uint64_t* start, uint64_t* end) const;
  // Whether q's run holds a remainder in [lo, hi].
  bool AnyInRun(uint64_t q, uint64_t lo, uint64_t hi) const;

  // Adds (q, remainder) keeping runs sorted, beside any equal entries.
  // NotFound when no empty slot follows the insert point (the caller
  // expands). Precondition writable().
  Status Insert(uint64_t q, uint64_t remainder);
  // Removes one copy of (q, remainder); NotFound, the table unchanged, when
  // there is none. Precondition writable().
  Status Erase(uint64_t q, uint64_t remainder);

  // Calls visit(quotient, remainder) for every entry in order.
  template <typename Visit>
  void ForEach(Visit visit) const {
    uint64_t next = 0;
    for (uint64_t w = 0; w < shape_.Blocks(); ++w) {
      uint64_t bits = BlockWord(w, kOccupied);
      while (bits != 0) {
        const uint64_t q = 64 * w + static_cast<uint64_t>(__builtin_ctzll(bits));
        bits &= bits - 1;
        const uint64_t start = q > next ? q : next;
        const uint64_t end = SelectRunend(start, 1);
        for (uint64_t i = start; i <= end && i < shape_.slots; ++i) visit(q, Remainder(i));
        next = end + 1;
      }
    }
  }

  // Checks the structure against itself: every occupied quotient below N
  // has a run, runends and occupieds pair up, runs are non-decreasing,
  // the stored offsets are the ones the runs give, the tail bytes are zero.
  // Corruption otherwise.
  // Also counts used_slots() of a table read in place.
  Status Validate();

 private:
  enum Section { kOccupied = 0, kRunends = 8 };  // byte offsets in a block
  static constexpr uint64_t kOffsetByte = 16, kRemainderByte = 17;
  const uint8_t* Base() const { return owned_.empty() ? external_ : owned_.data(); }
  const uint8_t* Block(uint64_t b) const { return Base() + b * shape_.BlockBytes(); }
  static uint64_t Load64(const uint8_t* p) {
    uint64_t v;
    std::memcpy(&v, p, 8);
    return v;
  }
  uint64_t BlockWord(uint64_t b, Section s) const { return Load64(Block(b) + s); }
  bool Bit(Section s, uint64_t i) const { return (BlockWord(i / 64, s) >> (i % 64)) & 1; }
  uint8_t* MutableBlock(uint64_t b) { return owned_.data() + b * shape_.BlockBytes(); }
  void SetBit(Section s, uint64_t i, bool v);
  void SetRemainder(uint64_t i, uint64_t r);
  void SetOffset(uint64_t block, uint64_t v);
  // The position of the d-th (d >= 1) runend at or after slot `from`;
  // shape_.slots when there are fewer.
  uint64_t SelectRunend(uint64_t from, uint64_t d) const;
  // One past the runend of the largest occupied quotient <= i when that
  // runend is at or after the start of i's block; otherwise some value at
  // most the start of i's block. So slot i holds an entry exactly when
  // AfterRunendUpTo(i) > i, and a new run of an unoccupied quotient q
  // starts at max(q, AfterRunendUpTo(q)).
  uint64_t AfterRunendUpTo(uint64_t i) const { return AfterRunendUpToWith(i, Offset(i / 64)); }
  // The same given the true offset of i's block.
  uint64_t AfterRunendUpToWith(uint64_t i, uint64_t block_offset) const;
  // offsets[b] recomputed from the runs, blocks first..last, in order.
  void RecomputeOffsets(uint64_t first, uint64_t last);

  TableShape shape_;
  std::vector<uint8_t> owned_;
  const uint8_t* external_ = nullptr;
  uint64_t used_ = 0;
};

template <typename At>
Status Table::LoadFrom(uint64_t quotients, int width, uint64_t min_slots, size_t n, At at, Table* out) {
  const uint64_t max_remainder = width >= 64 ? ~uint64_t{0} : (uint64_t{1} << width) - 1;
  uint64_t next = 0;
  Entry prev{0, 0};
  for (size_t i = 0; i < n; ++i) {
    const Entry e = at(i);
    if (e.quotient >= quotients || e.remainder > max_remainder || (i > 0 && e < prev)) {
      return Status::InvalidArgument("memento table: entry #" + std::to_string(i) +
                                     " is out of range or out of order (quotients " + std::to_string(quotients) +
                                     ", width " + std::to_string(width) + ")");
    }
    next = (next > e.quotient ? next : e.quotient) + 1;
    prev = e;
  }
  Table t;
  t.shape_.quotients = quotients;
  t.shape_.width = width;
  const uint64_t want = min_slots > next ? min_slots : next;
  t.shape_.slots = ((want > quotients ? want : quotients) + 63) / 64 * 64;
  const std::string bad = t.shape_.Check();
  if (!bad.empty()) return Status::InvalidArgument("memento table: " + bad);
  t.owned_.assign(t.shape_.TotalBytes(), 0);
  next = 0;
  Entry e = n > 0 ? at(0) : Entry{0, 0};
  for (size_t i = 0; i < n; ++i) {
    const Entry following = i + 1 < n ? at(i + 1) : Entry{0, 0};
    const bool first_of_run = i == 0 || prev.quotient != e.quotient;
    const uint64_t pos = first_of_run ? (next > e.quotient ? next : e.quotient) : next;
    t.SetRemainder(pos, e.remainder);
    if (first_of_run) t.SetBit(kOccupied, e.quotient, true);
    if (i + 1 == n || following.quotient != e.quotient) t.SetBit(kRunends, pos, true);
    next = pos + 1;
    prev = e;
    e = following;
  }
  t.used_ = n;
  t.RecomputeOffsets(1, t.shape_.Blocks() - 1);
  *out = std::move(t);
  return Status::OK();
}

}  // namespace filterlab::memento
