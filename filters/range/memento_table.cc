// The rank-and-select quotient table of Memento filter (memento_table.h).
#include "filters/range/memento_table.h"

#include <algorithm>
#include <string>
#include <vector>

#include "filters/range/select_in_word.h"

namespace filterlab::memento {
namespace {

// Bits 0..k-1 set, k in 0..64.
inline uint64_t LowMask(uint64_t k) { return k >= 64 ? ~uint64_t{0} : (uint64_t{1} << k) - 1; }

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
  const uint64_t bit = (i % 64) * w;
  const uint8_t* p = Block(i / 64) + kRemainderByte + bit / 8;
  const uint64_t shift = bit % 8;
  uint64_t v = Load64(p) >> shift;
  if (shift + w > 64) v |= static_cast<uint64_t>(p[8]) << (64 - shift);
  return v & LowMask(w);
}

void Table::SetRemainder(uint64_t i, uint64_t r) {
  const uint64_t w = static_cast<uint64_t>(shape_.width);
  const uint64_t bit = (i % 64) * w;
  uint8_t* p = MutableBlock(i / 64) + kRemainderByte + bit / 8;
  const uint64_t shift = bit % 8;
  uint64_t v = Load64(p);
  v = (v & ~(LowMask(w) << shift)) | (r << shift);
  std::memcpy(p, &v, 8);
  if (shift + w > 64) {
    const uint64_t spill = shift + w - 64;
    p[8] = static_cast<uint8_t>((p[8] & ~LowMask(spill)) | (r >> (64 - shift)));
  }
}

uint64_t Table::Offset(uint64_t block) const {
  const uint64_t stored = Block(block)[kOffsetByte];
  if (stored < kSaturatedOffset) return stored;
  // Saturated: walk from the nearest earlier block whose offset is stored
  // (block 0's always is: nothing precedes it).
  uint64_t b = block;
  while (b > 0 && Block(b)[kOffsetByte] >= kSaturatedOffset) --b;
  uint64_t off = Block(b)[kOffsetByte];
  for (++b; b <= block; ++b) {
    const uint64_t after = AfterRunendUpToWith(64 * b - 1, off);
    off = after > 64 * b ? after - 64 * b : 0;
  }
  return off;
}

void Table::SetOffset(uint64_t block, uint64_t v) {
  MutableBlock(block)[kOffsetByte] = static_cast<uint8_t>(std::min(v, kSaturatedOffset));
}

void Table::SetBit(Section s, uint64_t i, bool v) {
  uint8_t* p = MutableBlock(i / 64) + s;
  uint64_t word = Load64(p);
  const uint64_t m = uint64_t{1} << (i % 64);
  word = v ? (word | m) : (word & ~m);
  std::memcpy(p, &word, 8);
}

uint64_t Table::SelectRunend(uint64_t from, uint64_t d) const {
  if (from >= shape_.slots) return shape_.slots;
  uint64_t w = from / 64;
  uint64_t bits = BlockWord(w, kRunends) & ~LowMask(from % 64);
  while (true) {
    const uint64_t c = static_cast<uint64_t>(__builtin_popcountll(bits));
    if (c >= d) return 64 * w + static_cast<uint64_t>(SelectInWord(bits, d - 1));
    d -= c;
    if (++w >= shape_.Blocks()) return shape_.slots;
    bits = BlockWord(w, kRunends);
  }
}

uint64_t Table::AfterRunendUpToWith(uint64_t i, uint64_t off) const {
  const uint64_t block = i / 64, start = 64 * block;
  const uint64_t d = static_cast<uint64_t>(__builtin_popcountll(BlockWord(block, kOccupied) & LowMask(i % 64 + 1)));
  if (d == 0) return start + off;
  return SelectRunend(start + off, d) + 1;
}

bool Table::FindRun(uint64_t q, uint64_t* start, uint64_t* end) const {
  if (q >= shape_.quotients) return false;
  const uint64_t block = q / 64;
  const uint64_t occupied = BlockWord(block, kOccupied);
  if (((occupied >> (q % 64)) & 1) == 0) return false;
  // q is the d-th occupied quotient of its block: its run ends at the d-th
  // runend from the block's offset and starts after the (d-1)-th (or at the
  // offset for d = 1; the offset is where the runs of earlier blocks end),
  // never before q. One select pass for both ends.
  const uint64_t d = static_cast<uint64_t>(__builtin_popcountll(occupied & LowMask(q % 64 + 1)));
  const uint64_t base = 64 * block + Offset(block);
  if (d == 1) {
    *start = std::max(q, base);
    *end = SelectRunend(base, 1);
  } else {
    const uint64_t previous = SelectRunend(base, d - 1);
    *start = std::max(q, previous + 1);
    *end = SelectRunend(previous + 1, 1);
  }
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

void Table::RecomputeOffsets(uint64_t first, uint64_t last) {
  // In block order, each from the one before it (true offsets, so a
  // saturated block's successor is computed right).
  uint64_t b = std::max<uint64_t>(first, 1);
  if (b > last || b >= shape_.Blocks()) return;
  uint64_t prev = Offset(b - 1);
  for (; b <= last && b < shape_.Blocks(); ++b) {
    const uint64_t after = AfterRunendUpToWith(64 * b - 1, prev);
    prev = after > 64 * b ? after - 64 * b : 0;
    SetOffset(b, prev);
  }
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
  RecomputeOffsets(q / 64 + 1, empty / 64);
  return Status::OK();
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
  RecomputeOffsets(q / 64 + 1, (empty - 1) / 64 + 1);
  return Status::OK();
}

Status Table::Validate() {
  const std::string bad = shape_.Check();
  if (!bad.empty()) return Status::Corruption("memento table: " + bad);
  uint64_t next = 0, runs = 0, used = 0;
  for (uint64_t w = 0; w < shape_.Blocks(); ++w) {
    uint64_t bits = BlockWord(w, kOccupied);
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
    runends += static_cast<uint64_t>(__builtin_popcountll(BlockWord(w, kRunends)));
  if (runends != runs) {
    return Status::Corruption("memento table: " + std::to_string(runends) + " runends for " + std::to_string(runs) +
                              " occupied quotients");
  }
  // Offsets in block order: each stored byte against the true offset the
  // runs give from the (already checked) one before it.
  if (Block(0)[kOffsetByte] != 0) return Status::Corruption("memento table: block 0 has a non-zero offset");
  uint64_t prev = 0;
  for (uint64_t b = 1; b < shape_.Blocks(); ++b) {
    const uint64_t after = AfterRunendUpToWith(64 * b - 1, prev);
    prev = after > 64 * b ? after - 64 * b : 0;
    const uint64_t stored = Block(b)[kOffsetByte];
    if (stored != std::min(prev, kSaturatedOffset)) {
      return Status::Corruption("memento table: block " + std::to_string(b) + " stores offset " +
                                std::to_string(stored) + " but its runs give " + std::to_string(prev));
    }
  }
  const uint8_t* tail = Base() + shape_.Blocks() * shape_.BlockBytes();
  for (uint64_t i = 0; i < kTailBytes; ++i) {
    if (tail[i] != 0) return Status::Corruption("memento table: the tail bytes after the blocks are not zero");
  }
  used_ = used;
  return Status::OK();
}

}  // namespace filterlab::memento
