// Elias-Fano: a sorted set of n distinct integers in [0, max] stored in about
// n (2 + log2((max + 1) / n)) bits, answering "is there an element in
// [a, b]?" with one select and a short scan. The container of Grafite and of
// bucketing (grafite.h, bucketing.cc), as in Costa, Ferragina, Vinciguerra,
// "Grafite: Taming Adversarial Queries with Optimal Range Filters" (SIGMOD
// 2024), Section 3, which stores the hashed keys in Elias-Fano (Elias 1974,
// Fano 1971; Vigna, "Quasi-succinct indices", WSDM 2013, for the select).
//
// Layout. Each element v is split into its low l = floor(log2((max + 1) / n))
// bits, stored packed (n l bits), and its high part h = v >> l, stored in
// unary: element i sets bit h + i of the high bit vector, whose
// (max >> l) + 1 zeros end the buckets 0, 1, ... in order. So the high
// vector has n ones and (max >> l) + 1 zeros: between n and 2n + 1 bits.
// Space, per element: l + 1 + ((max >> l) + 1) / n, which is 2 + log2((max +
// 1)/n) when (max + 1)/n is a power of two and at most 0.09 bits less in
// between (the frac f of the log gives 1 + 2^f - f <= 2).
//
// Select. The position of every 512th zero is sampled (a uint64 each: at most
// (2n + 1) / 512 * 64 bits, 0.25 bits per element), and the z-th zero is
// found from the sample before it by counting zeros a word at a time, then
// selecting inside the word. A query for [a, b] finds where bucket a >> l
// starts (the zero before it), skips the bucket's elements below a, and
// takes the first element at or after a: the answer is whether it is <= b.
// Expected work: one sample, about 4 words of the high vector (the sample's
// 256 zeros on average lie ~384 bits ahead), one bucket (< 1 element on
// average), and one low-bits read.
//
// Serialized as little-endian uint64 words: low bits, then the high vector,
// then the samples. Read in place through memcpy loads (any alignment).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "common/slice.h"
#include "common/status.h"

namespace filterlab::ef {

// What a reader needs besides the words (kept in the owning filter's layout).
struct Shape {
  uint64_t n = 0;    // elements
  uint64_t max = 0;  // every element is <= max
  int low_bits = 0;  // l
  // Derived sizes (words).
  uint64_t LowWords() const;
  uint64_t HighBits() const;  // n + (max >> l) + 1
  uint64_t HighWords() const;
  uint64_t Samples() const;  // one per 512 zeros
  uint64_t TotalWords() const { return LowWords() + HighWords() + Samples(); }
};
inline constexpr uint64_t kZerosPerSample = 512;

// l for n elements up to max: floor(log2((max + 1) / n)), 0 when n > max.
int LowBitsFor(uint64_t n, uint64_t max);

// Builds the words of a set from sorted, distinct values <= max.
Shape Build(const uint64_t* sorted, size_t n, uint64_t max, std::vector<uint64_t>* words);

// Read-only view over the words (owned by the caller).
class View {
 public:
  View() = default;
  View(const Shape& shape, const uint8_t* words) : shape_(shape), words_(words) { Init(); }

  // Checks the words against the shape: the samples point at zeros in order,
  // the high vector holds exactly n ones and (max >> l) + 1 zeros. Corruption
  // naming the first inconsistency.
  Status Validate() const;

  // Whether some element lies in [a, b] (a <= b).
  bool AnyInRange(uint64_t a, uint64_t b) const;
  const Shape& shape() const { return shape_; }

 private:
  void Init();
  uint64_t Word(uint64_t i) const;
  uint64_t HighWord(uint64_t i) const { return Word(low_words_ + i); }
  uint64_t Low(uint64_t i) const;
  // Position in the high vector of the z-th zero (z < zeros).
  uint64_t SelectZero(uint64_t z) const;

  Shape shape_;
  const uint8_t* words_ = nullptr;
  uint64_t low_words_ = 0;
  uint64_t high_words_ = 0;
  uint64_t high_bits_ = 0;
  uint64_t samples_at_ = 0;  // word index of the first sample
  uint64_t low_mask_ = 0;
};

}  // namespace filterlab::ef
