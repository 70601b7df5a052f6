// Elias-Fano build, select and range-emptiness query (elias_fano.h).
#include "filters/range/elias_fano.h"

#include <algorithm>
#include <bit>
#include <cstring>

#if defined(__BMI2__)
#include <immintrin.h>
#endif

namespace filterlab::ef {
namespace {

// Position (0..63) of the r-th (0-based) set bit of x; x has more than r set bits.
inline int SelectInWord(uint64_t x, int r) {
#if defined(__BMI2__)
  return std::countr_zero(_pdep_u64(uint64_t{1} << r, x));
#else
  for (int i = 0; i < r; ++i) x &= x - 1;
  return std::countr_zero(x);
#endif
}

uint64_t Ceil64(uint64_t bits) { return bits / 64 + (bits % 64 != 0); }

}  // namespace

uint64_t Shape::LowWords() const { return Ceil64(n * static_cast<uint64_t>(low_bits)); }
uint64_t Shape::HighBits() const { return n + (max >> low_bits) + 1; }
uint64_t Shape::HighWords() const { return Ceil64(HighBits()); }
uint64_t Shape::Samples() const {
  const uint64_t zeros = (max >> low_bits) + 1;
  return zeros / kZerosPerSample + (zeros % kZerosPerSample != 0);
}

int LowBitsFor(uint64_t n, uint64_t max) {
  if (n == 0) return 0;
  const unsigned __int128 universe = static_cast<unsigned __int128>(max) + 1;
  int l = 0;
  while (l < 63 && (static_cast<unsigned __int128>(n) << (l + 1)) <= universe) ++l;
  return l;
}

Shape Build(const uint64_t* sorted, size_t n, uint64_t max, std::vector<uint64_t>* words) {
  Shape s;
  s.n = n;
  s.max = max;
  s.low_bits = LowBitsFor(n, max);
  const int l = s.low_bits;
  const uint64_t low_words = s.LowWords(), high_words = s.HighWords();
  words->assign(low_words + high_words + s.Samples(), 0);
  uint64_t* low = words->data();
  uint64_t* high = low + low_words;
  const uint64_t mask = l == 0 ? 0 : (~uint64_t{0} >> (64 - l));
  for (uint64_t i = 0; i < n; ++i) {
    const uint64_t v = sorted[i];
    if (l != 0) {
      const uint64_t bit = i * static_cast<uint64_t>(l);
      const uint64_t w = bit / 64, b = bit % 64;
      low[w] |= (v & mask) << b;
      if (b + static_cast<uint64_t>(l) > 64) low[w + 1] |= (v & mask) >> (64 - b);
    }
    const uint64_t pos = (v >> l) + i;
    high[pos / 64] |= uint64_t{1} << (pos % 64);
  }
  // Sample every kZerosPerSample-th zero.
  uint64_t* samples = high + high_words;
  const uint64_t high_bits = s.HighBits();
  uint64_t zero = 0;
  for (uint64_t w = 0; w < high_words; ++w) {
    uint64_t zeros = ~high[w];
    if (w == high_words - 1 && high_bits % 64 != 0) zeros &= (uint64_t{1} << (high_bits % 64)) - 1;
    const uint64_t count = static_cast<uint64_t>(std::popcount(zeros));
    // Samples falling in this word: zero indices that are multiples of the sample rate.
    uint64_t next = (zero + kZerosPerSample - 1) / kZerosPerSample * kZerosPerSample;
    while (next < zero + count) {
      samples[next / kZerosPerSample] =
          w * 64 + static_cast<uint64_t>(SelectInWord(zeros, static_cast<int>(next - zero)));
      next += kZerosPerSample;
    }
    zero += count;
  }
  return s;
}

void View::Init() {
  low_words_ = shape_.LowWords();
  high_words_ = shape_.HighWords();
  high_bits_ = shape_.HighBits();
  samples_at_ = low_words_ + high_words_;
  low_mask_ = shape_.low_bits == 0 ? 0 : (~uint64_t{0} >> (64 - shape_.low_bits));
}

uint64_t View::Word(uint64_t i) const {
  uint64_t w;
  std::memcpy(&w, words_ + 8 * i, 8);
  return w;
}

uint64_t View::Low(uint64_t i) const {
  const int l = shape_.low_bits;
  if (l == 0) return 0;
  const uint64_t bit = i * static_cast<uint64_t>(l);
  const uint64_t w = bit / 64, b = bit % 64;
  uint64_t v = Word(w) >> b;
  if (b + static_cast<uint64_t>(l) > 64) v |= Word(w + 1) << (64 - b);
  return v & low_mask_;
}

uint64_t View::SelectZero(uint64_t z) const {
  const uint64_t pos = Word(samples_at_ + z / kZerosPerSample);
  uint64_t remaining = z % kZerosPerSample;
  if (remaining == 0) return pos;
  uint64_t w = pos / 64;
  const uint64_t b = pos % 64;
  uint64_t zeros = b == 63 ? 0 : ~HighWord(w) & (~uint64_t{0} << (b + 1));
  uint64_t count = static_cast<uint64_t>(std::popcount(zeros));
  while (count < remaining && w + 1 < high_words_) {
    remaining -= count;
    zeros = ~HighWord(++w);
    count = static_cast<uint64_t>(std::popcount(zeros));
  }
  if (count < remaining) return high_bits_;  // only on inconsistent words; Validate refuses those
  return w * 64 + static_cast<uint64_t>(SelectInWord(zeros, static_cast<int>(remaining - 1)));
}

bool View::AnyInRange(uint64_t a, uint64_t b) const {
  if (shape_.n == 0 || a > shape_.max) return false;
  if (b > shape_.max) b = shape_.max;
  const int l = shape_.low_bits;
  const uint64_t h = a >> l;
  const uint64_t h_b = b >> l;
  // Start of bucket h in the high vector, and the index of its first element.
  const uint64_t start = h == 0 ? 0 : SelectZero(h - 1) + 1;
  if (start >= high_bits_) return false;
  const uint64_t first = start - h;
  // The bucket's elements are the run of ones from `start`.
  uint64_t pos = start;
  uint64_t w = pos / 64;
  uint64_t word = HighWord(w) >> (pos % 64);
  uint64_t run = static_cast<uint64_t>(std::countr_one(word));
  if (run >= 64 - pos % 64) {
    run = 64 - pos % 64;
    while (w + 1 < high_words_) {
      const uint64_t next = HighWord(++w);
      const auto ones = static_cast<uint64_t>(std::countr_one(next));
      run += ones;
      if (ones < 64) break;
    }
  }
  run = std::min(run, shape_.n - std::min(first, shape_.n));
  // First element of the bucket with low bits >= a's (binary search: sorted).
  const uint64_t a_low = a & low_mask_;
  uint64_t lo = first, hi = first + run;
  while (lo < hi) {
    const uint64_t mid = lo + (hi - lo) / 2;
    if (Low(mid) < a_low) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  if (lo < first + run) return ((h << l) | Low(lo)) <= b;
  // Successor is the next element, in a later bucket: find its one bit, but
  // only as far as bucket b >> l could put it.
  const uint64_t next_index = first + run;
  if (next_index >= shape_.n || h_b == h) return false;
  pos = start + run + 1;  // after bucket h's terminating zero
  const uint64_t limit = std::min(high_bits_, h_b + next_index + 1);
  while (pos < limit) {
    w = pos / 64;
    const uint64_t ones = HighWord(w) >> (pos % 64);
    if (ones != 0) {
      const uint64_t p1 = pos + static_cast<uint64_t>(std::countr_zero(ones));
      if (p1 >= limit) return false;
      const uint64_t high = p1 - next_index;
      return ((high << l) | Low(next_index)) <= b;
    }
    pos = (w + 1) * 64;
  }
  return false;
}

Status View::Validate() const {
  const uint64_t zeros_expected = (shape_.max >> shape_.low_bits) + 1;
  uint64_t ones = 0, zero = 0;
  for (uint64_t w = 0; w < high_words_; ++w) {
    const uint64_t word = HighWord(w);
    uint64_t valid = ~uint64_t{0};
    if (w == high_words_ - 1 && high_bits_ % 64 != 0) {
      valid = (uint64_t{1} << (high_bits_ % 64)) - 1;
      if ((word & ~valid) != 0) return Status::Corruption("Elias-Fano high bits set past the vector's end");
    }
    const uint64_t zeros = ~word & valid;
    const auto count = static_cast<uint64_t>(std::popcount(zeros));
    uint64_t next = (zero + kZerosPerSample - 1) / kZerosPerSample * kZerosPerSample;
    while (next < zero + count) {
      const uint64_t expect = w * 64 + static_cast<uint64_t>(SelectInWord(zeros, static_cast<int>(next - zero)));
      if (next / kZerosPerSample >= shape_.Samples() || Word(samples_at_ + next / kZerosPerSample) != expect) {
        return Status::Corruption("Elias-Fano select sample " + std::to_string(next / kZerosPerSample) +
                                  " does not point at zero " + std::to_string(next));
      }
      next += kZerosPerSample;
    }
    zero += count;
    ones += static_cast<uint64_t>(std::popcount(word & valid));
  }
  if (ones != shape_.n || zero != zeros_expected) {
    return Status::Corruption("Elias-Fano high vector holds " + std::to_string(ones) + " ones and " +
                              std::to_string(zero) + " zeros; its shape says " + std::to_string(shape_.n) + " and " +
                              std::to_string(zeros_expected));
  }
  return Status::OK();
}

}  // namespace filterlab::ef
