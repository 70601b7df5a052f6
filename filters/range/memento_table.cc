// The rank-and-select quotient table of Memento filter (memento_table.h).
#include "filters/range/memento_table.h"

#include <algorithm>
#include <string>
#include <vector>

namespace filterlab::memento {
namespace {

// Bits 0..k-1 set, k in 0..64.
inline uint64_t LowMask(uint64_t k) { return k >= 64 ? ~uint64_t{0} : (uint64_t{1} << k) - 1; }

// Position of the r-th (0-based) set bit of w; precondition popcount(w) > r.
inline int SelectInWord(uint64_t w, uint64_t r) {
  for (; r > 0; --r) w &= w - 1;
  return __builtin_ctzll(w);
}

}  // namespace

std::string TableShape::Check() const {
  if (quotients == 0) return "no quotients";
  if (slots % 64 != 0 || slots < quotients) {
    return std::to_string(slots) + " slots is not a multiple of 64 at least the " + std::to_string(quotients) +
           " quotients";
  }
  if (slots > (uint64_t{1} << 40)) return std::to_string(slots) + " slots is above 2^40";
  if (width < 1 || width > kMaxWidth) return "slot width " + std::to_string(width) + " is outside 1..58";
  return "";
}

Table::Table(TableShape shape, const uint8_t* data) : shape_(shape), external_(data) {}

uint64_t Table::Remainder(uint64_t i) const {
  const uint64_t w = static_cast<uint64_t>(shape_.width);
  const uint64_t bit = i * w;
  const uint64_t first = 2 * shape_.Blocks() + shape_.OffsetWords() + bit / 64;
  const uint64_t shift = bit % 64;
  uint64_t v = LoadWord(first) >> shift;
  if (shift + w > 64) v |= LoadWord(first + 1) << (64 - shift);
  return v & LowMask(w);
}

void Table::SetRemainder(uint64_t i, uint64_t r) {
  const uint64_t w = static_cast<uint64_t>(shape_.width);
  const uint64_t bit = i * w;
  const uint64_t first = 2 * shape_.Blocks() + shape_.OffsetWords() + bit / 64;
  const uint64_t shift = bit % 64;
  uint64_t* lo = MutableWord(first);
  *lo = (*lo & ~(LowMask(w) << shift)) | (r << shift);
  if (shift + w > 64) {
    uint64_t* hi = MutableWord(first + 1);
    const uint64_t spill = shift + w - 64;
    *hi = (*hi & ~LowMask(spill)) | (r >> (64 - shift));
  }
}

uint64_t Table::Offset(uint64_t block) const {
  return (LoadWord(2 * shape_.Blocks() + block / 4) >> (16 * (block % 4))) & kMaxOffset;
}

void Table::SetOffset(uint64_t block, uint64_t v) {
  uint64_t* word = MutableWord(2 * shape_.Blocks() + block / 4);
  const uint64_t shift = 16 * (block % 4);
  *word = (*word & ~(kMaxOffset << shift)) | (v << shift);
}

void Table::SetBit(Section s, uint64_t i, bool v) {
  uint64_t* word = MutableWord(SectionWord(s) + i / 64);
  const uint64_t m = uint64_t{1} << (i % 64);
  *word = v ? (*word | m) : (*word & ~m);
}

uint64_t Table::SelectRunend(uint64_t from, uint64_t d) const {
  if (from >= shape_.slots) return shape_.slots;
  uint64_t w = from / 64;
  uint64_t bits = Word(kRunends, w) & ~LowMask(from % 64);
  while (true) {
    const uint64_t c = static_cast<uint64_t>(__builtin_popcountll(bits));
    if (c >= d) return 64 * w + static_cast<uint64_t>(SelectInWord(bits, d - 1));
    d -= c;
    if (++w >= shape_.Blocks()) return shape_.slots;
    bits = Word(kRunends, w);
  }
}

uint64_t Table::AfterRunendUpTo(uint64_t i) const {
  const uint64_t block = i / 64, start = 64 * block;
  const uint64_t d = static_cast<uint64_t>(__builtin_popcountll(Word(kOccupied, block) & LowMask(i % 64 + 1)));
  const uint64_t off = Offset(block);
  if (d == 0) return start + off;
  return SelectRunend(start + off, d) + 1;
}

bool Table::FindRun(uint64_t q, uint64_t* start, uint64_t* end) const {
  if (q >= shape_.quotients || !Occupied(q)) return false;
  *end = AfterRunendUpTo(q) - 1;
  *start = q == 0 ? 0 : std::max(q, AfterRunendUpTo(q - 1));
  return true;
}

bool Table::AnyInRun(uint64_t q, uint64_t lo, uint64_t hi) const {
  uint64_t start, end;
  if (!FindRun(q, &start, &end)) return false;
  if (end >= shape_.slots) return true;  // unreachable once validated; never a false negative
  for (uint64_t i = start; i <= end; ++i) {
    const uint64_t r = Remainder(i);
    if (r >= lo) return r <= hi;
  }
  return false;
}

Status Table::RecomputeOffsets(uint64_t first, uint64_t last) {
  for (uint64_t b = std::max<uint64_t>(first, 1); b <= last && b < shape_.Blocks(); ++b) {
    const uint64_t after = AfterRunendUpTo(64 * b - 1);
    const uint64_t off = after > 64 * b ? after - 64 * b : 0;
    if (off > kMaxOffset) {
      return Status::InvalidArgument("memento table: a cluster of runs spills " + std::to_string(off) +
                                     " slots into block " + std::to_string(b) + ", above the 16-bit offset's " +
                                     std::to_string(kMaxOffset));
    }
    SetOffset(b, off);
  }
  return Status::OK();
}

Status Table::Insert(uint64_t q, uint64_t remainder) {
  const bool new_run = !Occupied(q);
  uint64_t pos = 0, run_end = 0;
  if (new_run) {
    pos = std::max(q, AfterRunendUpTo(q));
  } else {
    uint64_t start = 0;
    FindRun(q, &start, &run_end);
    pos = run_end + 1;
    for (uint64_t i = start; i <= run_end; ++i) {
      if (Remainder(i) > remainder) {
        pos = i;
        break;
      }
    }
  }
  // The first empty slot at or after pos: jump over the runs that cover it.
  uint64_t empty = pos;
  while (empty < shape_.slots) {
    const uint64_t after = AfterRunendUpTo(empty);
    if (after <= empty) break;
    empty = after;
  }
  if (empty >= shape_.slots) {
    return Status::NotFound("memento table: no empty slot after slot " + std::to_string(pos) + " of " +
                            std::to_string(shape_.slots));
  }
  for (uint64_t b = q / 64 + 1; b <= empty / 64; ++b) {
    if (Offset(b) >= kMaxOffset) {
      return Status::InvalidArgument("memento table: block " + std::to_string(b) +
                                     "'s offset is at the 16-bit limit; the insert would pass it");
    }
  }
  for (uint64_t j = empty; j > pos; --j) {
    SetRemainder(j, Remainder(j - 1));
    SetBit(kRunends, j, RunEnd(j - 1));
  }
  SetRemainder(pos, remainder);
  if (new_run) {
    SetBit(kRunends, pos, true);
    SetBit(kOccupied, q, true);
  } else if (pos == run_end + 1) {
    SetBit(kRunends, pos, true);
    SetBit(kRunends, run_end, false);
  } else {
    SetBit(kRunends, pos, false);
  }
  ++used_;
  return RecomputeOffsets(q / 64 + 1, empty / 64);
}

Status Table::Erase(uint64_t q, uint64_t remainder) {
  uint64_t start = 0, run_end = 0;
  uint64_t victim = shape_.slots;
  if (FindRun(q, &start, &run_end)) {
    for (uint64_t i = start; i <= run_end && i < shape_.slots; ++i) {
      const uint64_t r = Remainder(i);
      if (r >= remainder) {
        if (r == remainder) victim = i;
        break;
      }
    }
  }
  if (victim >= shape_.slots) {
    return Status::NotFound("memento table: no entry (" + std::to_string(q) + ", " + std::to_string(remainder) + ")");
  }
  // The full stretch [start, empty) from q's run to the next empty slot
  // holds q's run and the runs of the next occupied quotients, one after
  // the other. Each run starts at max(its quotient, the slot after the
  // previous run), so the stretch is rewritten from q's (unchanged) start
  // with the victim left out: the later runs move back by one slot or stop
  // at their canonical slot.
  uint64_t empty = run_end + 1;
  while (empty < shape_.slots) {
    const uint64_t after = AfterRunendUpTo(empty);
    if (after <= empty) break;
    empty = after;
  }
  std::vector<Entry> stretch;
  stretch.reserve(empty - start);
  for (uint64_t quotient = q, i = start; i < empty;) {
    const uint64_t end = SelectRunend(i, 1);
    for (uint64_t j = i; j <= end; ++j) {
      if (j != victim) stretch.push_back({quotient, Remainder(j)});
    }
    i = end + 1;
    if (i >= empty) break;
    // The next run belongs to the next occupied quotient (at or before i,
    // since slot i is full and runs never start before their quotient).
    uint64_t next = quotient + 1;
    while (!Occupied(next)) ++next;
    quotient = next;
  }
  for (uint64_t j = start; j < empty; ++j) {
    SetRemainder(j, 0);
    SetBit(kRunends, j, false);
  }
  if (start == run_end) SetBit(kOccupied, q, false);  // q's run was the victim alone
  uint64_t next = start;
  for (size_t k = 0; k < stretch.size(); ++k) {
    const Entry& e = stretch[k];
    const bool first_of_run = k == 0 || stretch[k - 1].quotient != e.quotient;
    const uint64_t pos = first_of_run ? std::max(next, e.quotient) : next;
    SetRemainder(pos, e.remainder);
    if (k + 1 == stretch.size() || stretch[k + 1].quotient != e.quotient) SetBit(kRunends, pos, true);
    next = pos + 1;
  }
  --used_;
  // Offsets only shrink, so none can pass kMaxOffset.
  return RecomputeOffsets(q / 64 + 1, (empty - 1) / 64 + 1);
}

Status Table::Validate() {
  const std::string bad = shape_.Check();
  if (!bad.empty()) return Status::Corruption("memento table: " + bad);
  uint64_t next = 0, runs = 0, used = 0;
  for (uint64_t w = 0; w < shape_.Blocks(); ++w) {
    uint64_t bits = Word(kOccupied, w);
    while (bits != 0) {
      const uint64_t q = 64 * w + static_cast<uint64_t>(__builtin_ctzll(bits));
      bits &= bits - 1;
      if (q >= shape_.quotients) {
        return Status::Corruption("memento table: quotient " + std::to_string(q) + " is marked occupied but only " +
                                  std::to_string(shape_.quotients) + " exist");
      }
      const uint64_t start = std::max(q, next);
      const uint64_t end = SelectRunend(start, 1);
      if (end >= shape_.slots) {
        return Status::Corruption("memento table: the run of quotient " + std::to_string(q) + " has no end");
      }
      for (uint64_t i = start + 1; i <= end; ++i) {
        if (Remainder(i) < Remainder(i - 1)) {
          return Status::Corruption("memento table: the run of quotient " + std::to_string(q) + " descends at slot " +
                                    std::to_string(i));
        }
      }
      used += end - start + 1;
      next = end + 1;
      ++runs;
    }
  }
  uint64_t runends = 0;
  for (uint64_t w = 0; w < shape_.Blocks(); ++w)
    runends += static_cast<uint64_t>(__builtin_popcountll(Word(kRunends, w)));
  if (runends != runs) {
    return Status::Corruption("memento table: " + std::to_string(runends) + " runends for " + std::to_string(runs) +
                              " occupied quotients");
  }
  // Offsets in block order: each is checked with the ones before it.
  if (Offset(0) != 0) return Status::Corruption("memento table: block 0 has a non-zero offset");
  for (uint64_t b = 1; b < shape_.Blocks(); ++b) {
    const uint64_t after = AfterRunendUpTo(64 * b - 1);
    const uint64_t want = after > 64 * b ? after - 64 * b : 0;
    if (Offset(b) != want) {
      return Status::Corruption("memento table: block " + std::to_string(b) + " stores offset " +
                                std::to_string(Offset(b)) + " but its runs give " + std::to_string(want));
    }
  }
  for (uint64_t b = shape_.Blocks(); b < 4 * shape_.OffsetWords(); ++b) {
    if (Offset(b) != 0) return Status::Corruption("memento table: padding offsets are not zero");
  }
  used_ = used;
  return Status::OK();
}

}  // namespace filterlab::memento
