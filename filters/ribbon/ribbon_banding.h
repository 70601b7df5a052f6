// Banding: the incremental Gaussian elimination that turns n keys into an
// upper-triangular ("banded") system over GF(2), one equation per key.
// Key i's equation has its 128 coefficients at slots start..start+127 and
// its result bits as right-hand side. Adding it walks from its start: an
// empty slot takes the row as its pivot row; an occupied one (its row also
// begins with a 1 there) is XORed in, and the walk moves to the next 1 of
// the remainder. A remainder of zero coefficients means the key depends on
// earlier ones: harmless when its result bits also cancel, otherwise the
// system has no solution for this seed and the whole banding is redone with
// the next seed (seed search). The keys' walks may interleave in any order
// without changing the solution (ribbon_banding.cc: three at a time).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "filters/ribbon/ribbon_hasher.h"

namespace filterlab::ribbon {

class Banding {
 public:
  // Tries ordinal seeds start, start+1, ... (mod 256) until one bands every
  // hash into num_slots slots (num_slots a multiple of 128, >= 256).
  // Returns false if all 256 fail. hashes are the keys' 64-bit hashes, in
  // insertion order (the order changes which rows are stored, not whether
  // a solution exists). homogeneous: every result row is 0 (homogeneous
  // Ribbon), so a dependent key always cancels and the first seed bands.
  bool FindSeedAndBand(uint32_t num_slots, const uint64_t* hashes, size_t n, uint32_t starting_ordinal_seed,
                       bool homogeneous = false);

  uint32_t num_slots() const { return num_slots_; }
  uint32_t num_starts() const { return num_slots_ - kCoeffBits + 1; }
  uint32_t ordinal_seed() const { return ordinal_seed_; }
  CoeffRow coeff_row(uint32_t slot) const {
    return static_cast<CoeffRow>(coeff_words_[2 * size_t{slot} + 1]) << 64 | coeff_words_[2 * size_t{slot}];
  }
  ResultRow result_row(uint32_t slot) const { return result_rows_[slot]; }
  // Slot i's row as two words: low 64 bits at [2i], high at [2i + 1].
  const uint64_t* coeff_words() const { return coeff_words_.data(); }
  const ResultRow* result_rows() const { return result_rows_.data(); }

  // Bytes of working memory for num_slots slots (rows and results).
  static size_t MemoryBytes(uint32_t num_slots) { return size_t{num_slots} * (sizeof(CoeffRow) + sizeof(ResultRow)); }

 private:
  void Reset(uint32_t num_slots);
  bool AddAll(const uint64_t* hashes, size_t n, uint32_t raw_seed, bool homogeneous);

  uint32_t num_slots_ = 0;
  uint32_t ordinal_seed_ = 0;
  // Slot i's coefficient row: low 64 bits at 2i, high at 2i + 1 (the walk
  // works on the halves, ribbon_banding.cc). A stored row has bit 0 set, so
  // a slot is empty exactly when its low word is 0.
  std::vector<uint64_t> coeff_words_;
  std::vector<ResultRow> result_rows_;
};

}  // namespace filterlab::ribbon
