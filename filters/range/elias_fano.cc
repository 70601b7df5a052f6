// Elias-Fano build, rank/select directory and range-emptiness query (elias_fano.h).
#include "filters/range/elias_fano.h"

#include <algorithm>
#include <bit>
#include <cstdlib>
#include <cstring>
#include <new>

#if defined(__linux__)
#include <sys/mman.h>
#endif

#include "filters/range/select_in_word.h"

namespace filterlab::ef {
namespace {

constexpr uint64_t kWordsPerBlock = kBlockBits / 64;
constexpr uint64_t kMaxHighBits = uint64_t{1} << 41;  // block and sample indices fit uint32

uint64_t Ceil(uint64_t x, uint64_t d) { return x / d + (x % d != 0); }

void Put32(uint64_t* words, uint64_t i, uint64_t v) { words[i / 2] |= (v & 0xffffffffu) << (32 * (i % 2)); }

// Format 3's inventory entry bits: the position of zero 1024k, the far bit,
// then 7 offsets of 12 bits (elias_fano.h).
constexpr int kPositionBits = 41;
constexpr uint64_t kPositionMask = (uint64_t{1} << kPositionBits) - 1;
constexpr int kFarBit = kPositionBits;
constexpr int kOffsetBits = 12;
constexpr int kFirstOffsetBit = kFarBit + 1;
constexpr uint64_t kSubsamplesPerEntry = kZerosPerEntry / kZerosPerSubsample;  // 8, the first at offset 0
// An entry is far when a gap between its sampled zeros (or to the next
// entry's first zero) exceeds this many bits: a scan from a sampled zero
// then reads at most 16 words plus the one it starts in.
constexpr uint64_t kMaxSubsampleGapBits = 1024;

// The inventory (format 3) from the positions of every 128th zero, into
// `inventory` (2 words per entry, zeroed by the caller).
void BuildInventory(const std::vector<uint64_t>& sampled, uint64_t high_bits, uint64_t* inventory) {
  const uint64_t entries = Ceil(sampled.size(), kSubsamplesPerEntry);
  for (uint64_t k = 0; k < entries; ++k) {
    const uint64_t* at = sampled.data() + k * kSubsamplesPerEntry;
    const uint64_t count = std::min<uint64_t>(kSubsamplesPerEntry, sampled.size() - k * kSubsamplesPerEntry);
    const uint64_t next = (k + 1) * kSubsamplesPerEntry < sampled.size() ? at[kSubsamplesPerEntry] : high_bits;
    bool far = false;
    for (uint64_t j = 0; j < count; ++j) {
      const uint64_t following = j + 1 < count ? at[j + 1] : next;
      far |= following - at[j] > kMaxSubsampleGapBits || at[j] - at[0] >= (uint64_t{1} << kOffsetBits);
    }
    unsigned __int128 entry = at[0] | (static_cast<unsigned __int128>(far) << kFarBit);
    if (!far) {
      for (uint64_t j = 1; j < count; ++j) {
        entry |= static_cast<unsigned __int128>(at[j] - at[0]) << (kFirstOffsetBit + kOffsetBits * (j - 1));
      }
    }
    inventory[2 * k] = static_cast<uint64_t>(entry);
    inventory[2 * k + 1] = static_cast<uint64_t>(entry >> 64);
  }
}

// The directory (block counts, superblocks, and samples or inventory) of a
// high vector, into `index` (shape.IndexWords() words, zeroed by the caller).
void BuildIndex(const Shape& shape, const uint64_t* high, uint64_t* index) {
  const uint64_t high_words = shape.HighWords(), high_bits = shape.HighBits();
  const uint64_t index_at = shape.LowWords() + high_words;
  uint64_t* counts = index;
  uint64_t* supers = counts + shape.BlockCountWords();
  uint64_t* samples = supers + shape.Superblocks();  // format 2
  const bool inventory = shape.format >= 3;
  std::vector<uint64_t> sampled;  // format 3: position of every 128th zero
  if (inventory) sampled.reserve(Ceil(shape.Zeros(), kZerosPerSubsample));
  uint64_t ones = 0, zero = 0;
  for (uint64_t w = 0; w < high_words; ++w) {
    const uint64_t block = w / kWordsPerBlock;
    if (w % kWordsPerBlock == 0) {
      if (block % kBlocksPerSuperblock == 0) supers[block / kBlocksPerSuperblock] = ones;
      Put32(counts, block, ones - supers[block / kBlocksPerSuperblock]);
    }
    uint64_t zeros = ~high[w];
    if (w == high_words - 1 && high_bits % 64 != 0) zeros &= (uint64_t{1} << (high_bits % 64)) - 1;
    const auto count = static_cast<uint64_t>(std::popcount(zeros));
    // The next sampled zero index at or after `zero`; sampled if in this word.
    const uint64_t every = inventory ? kZerosPerSubsample : kZerosPerSample;
    for (uint64_t z = Ceil(zero, every) * every; z < zero + count; z += every) {
      if (inventory) {
        sampled.push_back(w * 64 + static_cast<uint64_t>(SelectInWord(zeros, z - zero)));
      } else {
        Put32(samples, z / kZerosPerSample, block);
      }
    }
    zero += count;
    ones += static_cast<uint64_t>(std::popcount(high[w]));  // bits past the end are zero
  }
  if (inventory) BuildInventory(sampled, high_bits, index + (shape.InventoryAt() - index_at));
}

}  // namespace

// Padded to whole blocks: the high vector starts on a 64-byte boundary of a
// 64-byte-aligned buffer, so a block is one cache line.
uint64_t Shape::LowWords() const { return Ceil(n * static_cast<uint64_t>(low_bits), kBlockBits) * kWordsPerBlock; }
uint64_t Shape::HighBits() const { return n + Zeros(); }
uint64_t Shape::HighWords() const { return Ceil(HighBits(), 64); }
uint64_t Shape::Blocks() const { return Ceil(HighBits(), kBlockBits); }
uint64_t Shape::BlockCountWords() const { return Ceil(Blocks(), 2); }
uint64_t Shape::Superblocks() const { return Ceil(Blocks(), kBlocksPerSuperblock); }
uint64_t Shape::Samples() const { return Ceil(Zeros(), kZerosPerSample); }
uint64_t Shape::SampleWords() const { return Ceil(Samples(), 2); }
uint64_t Shape::InventoryEntries() const { return Ceil(Zeros(), kZerosPerEntry); }
// After the superblocks, on an even word: an entry is then one aligned half
// cache line of the 64-byte-aligned buffer.
uint64_t Shape::InventoryAt() const {
  const uint64_t after_supers = LowWords() + HighWords() + BlockCountWords() + Superblocks();
  return after_supers + after_supers % 2;
}
uint64_t Shape::IndexWords() const {
  if (format < 3) return BlockCountWords() + Superblocks() + SampleWords();
  return InventoryAt() + 2 * InventoryEntries() - LowWords() - HighWords();
}

int LowBitsFor(uint64_t n, uint64_t max) {
  if (n == 0) return 0;
  const unsigned __int128 universe = static_cast<unsigned __int128>(max) + 1;
  int l = 0;
  while (l < 63 && (static_cast<unsigned __int128>(n) << (l + 1)) <= universe) ++l;
  return l;
}

namespace {

Shape ShapeOf(uint64_t n, uint64_t max, int format) {
  Shape s;
  s.n = n;
  s.max = max;
  s.low_bits = LowBitsFor(n, max);
  s.format = format;
  return s;
}

// Fills `words` (s.TotalWords(), zeroed) with the set of sorted values.
void BuildInto(const Shape& s, const uint64_t* sorted, uint64_t* words) {
  const int l = s.low_bits;
  uint64_t* low = words;
  uint64_t* high = low + s.LowWords();
  const uint64_t mask = l == 0 ? 0 : (~uint64_t{0} >> (64 - l));
  for (uint64_t i = 0; i < s.n; ++i) {
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
  BuildIndex(s, high, high + s.HighWords());
}

}  // namespace

Shape Build(const uint64_t* sorted, size_t n, uint64_t max, std::vector<uint64_t>* words, int format) {
  const Shape s = ShapeOf(n, max, format);
  words->assign(s.TotalWords(), 0);
  BuildInto(s, sorted, words->data());
  return s;
}

Status ShapeForData(uint64_t n, uint64_t max, int format, size_t data_bytes, const std::string& what, Shape* shape) {
  const Shape s = ShapeOf(n, max, format);
  // n and (max >> l) + 1 are each at most 2^63 (n <= max + 1), so HighBits
  // cannot wrap; refuse before the word counts could.
  if (s.HighBits() >= kMaxHighBits) {
    return Status::Corruption(what + ": an Elias-Fano set of " + std::to_string(n) + " elements up to " +
                              std::to_string(max) +
                              " would need 2^41 or more high bits, more than this format indexes");
  }
  if (data_bytes != s.TotalWords() * 8) {
    return Status::Corruption(what + " needs " + std::to_string(s.TotalWords() * 8) +
                              " data bytes (Elias-Fano format " + std::to_string(format) + ") but has " +
                              std::to_string(data_bytes));
  }
  *shape = s;
  return Status::OK();
}

Status CheckFormatVersion(bool has_version, long long version, const std::string& what) {
  if (has_version && version >= kOldestReadableFormat && version <= kFormatVersion) return Status::OK();
  return Status::Corruption(
      what + ": Elias-Fano format " + (has_version ? std::to_string(version) : "1 (no 'ef' field)") +
      ", this reader reads formats " + std::to_string(kOldestReadableFormat) + " to " + std::to_string(kFormatVersion) +
      " (format 2 added the rank/select directory); rebuild the filter from its keys");
}

void View::Init() {
  low_words_ = shape_.LowWords();
  high_words_ = shape_.HighWords();
  high_bits_ = shape_.HighBits();
  blocks_ = shape_.Blocks();
  counts_at_ = low_words_ + high_words_;
  supers_at_ = counts_at_ + shape_.BlockCountWords();
  samples_at_ = supers_at_ + shape_.Superblocks();
  samples_ = shape_.Samples();
  inventory_at_ = shape_.InventoryAt();
  entries_ = shape_.InventoryEntries();
  low_mask_ = shape_.low_bits == 0 ? 0 : (~uint64_t{0} >> (64 - shape_.low_bits));
  // Zeros() is 0 only for an empty set up to 2^64 - 1 (l = 0: it wraps);
  // consistent sets have n <= zeros (l = floor(log2((max + 1) / n))).
  const unsigned __int128 ratio =
      shape_.Zeros() == 0 ? 0 : (static_cast<unsigned __int128>(shape_.n) << 32) / shape_.Zeros();
  ones_per_zero_ = static_cast<uint64_t>(std::min<unsigned __int128>(ratio, UINT64_MAX));
}

uint64_t View::Word(uint64_t i) const {
  uint64_t w;
  std::memcpy(&w, words_ + 8 * i, 8);
  return w;
}

uint32_t View::Word32(uint64_t word_at, uint64_t i) const {
  uint32_t v;
  std::memcpy(&v, words_ + 8 * word_at + 4 * i, 4);
  return v;
}

uint64_t View::Low(uint64_t i) const {
  const int l = shape_.low_bits;
  if (l == 0) return 0;
  const uint64_t bit = i * static_cast<uint64_t>(l);
  const uint64_t w = bit / 64, b = bit % 64;
  // Both words, without a branch on whether the value straddles them (it
  // does for about l/64 of the elements, a branch mispredicted that often).
  // Word w + 1 exists: the low bits are followed by the high vector.
  // (x << 1) << (63 - b) is x << (64 - b) for b = 1..63 and 0 for b = 0.
  return ((Word(w) >> b) | ((Word(w + 1) << 1) << (63 - b))) & low_mask_;
}

uint64_t View::OnesBeforeBlock(uint64_t block) const {
  return Word(supers_at_ + block / kBlocksPerSuperblock) + Word32(counts_at_, block);
}

uint64_t View::Rank1(uint64_t pos) const {
  if (pos >= high_bits_) return shape_.n;
  const uint64_t block = pos / kBlockBits;
  uint64_t ones = OnesBeforeBlock(block);
  const uint64_t w_end = pos / 64;
  for (uint64_t w = block * kWordsPerBlock; w < w_end; ++w) ones += static_cast<uint64_t>(std::popcount(HighWord(w)));
  if (pos % 64 != 0) ones += static_cast<uint64_t>(std::popcount(HighWord(w_end) << (64 - pos % 64)));
  return ones;
}

uint64_t View::SelectZero(uint64_t z, uint64_t* next) const {
  if (shape_.format < 3) {
    const uint64_t pos = SelectZeroBySamples(z);
    *next = pos < high_bits_ ? NextZero(pos + 1, z + 1) : high_bits_;
    return pos;
  }
  const uint64_t k = z / kZerosPerEntry;
  const uint64_t low = Word(inventory_at_ + 2 * k), high = Word(inventory_at_ + 2 * k + 1);
  const uint64_t first = low & kPositionMask;
  if ((low >> kFarBit) & 1) {
    // Long buckets: search the block counts between this entry's first zero
    // and the next entry's.
    const uint64_t last = k + 1 < entries_ ? Word(inventory_at_ + 2 * (k + 1)) & kPositionMask : high_bits_ - 1;
    const uint64_t pos = SelectZeroInBlock(LastBlockWithZerosAtMost(z, first / kBlockBits, last / kBlockBits), z);
    *next = pos < high_bits_ ? NextZero(pos + 1, z + 1) : high_bits_;
    return pos;
  }
  const uint64_t r = z % kZerosPerEntry;
  const uint64_t j = r / kZerosPerSubsample;
  // Offset j (j >= 1) sits at bit 42 + 12 (j - 1) of the 128-bit entry.
  const unsigned __int128 entry = low | (static_cast<unsigned __int128>(high) << 64);
  const uint64_t offset =
      j == 0 ? 0
             : static_cast<uint64_t>(entry >> (kFirstOffsetBit + kOffsetBits * (j - 1))) & ((1u << kOffsetBits) - 1);
  const uint64_t start = first + offset;  // the position of zero z - (r % 128)
  uint64_t remaining = r % kZerosPerSubsample;
  {
    // The element after zero z is about `remaining` zeros' worth of ones past
    // the sampled zero's (start - (z - remaining) ones precede it): start
    // loading its low bits now, beside the high words, instead of after the
    // scan below (a cache miss less on the query's critical path).
    // A hint: a wrong guess costs a wasted line; clamped to the low bits.
    const uint64_t element = std::min(start - (z - remaining) + ((remaining * ones_per_zero_) >> 32), shape_.n - 1);
    __builtin_prefetch(words_ + 8 * (element * static_cast<uint64_t>(shape_.low_bits) / 64));
  }
  uint64_t w = start / 64;
  uint64_t zeros = ~HighWord(w) & (~uint64_t{0} << (start % 64));
  // At most 17 words on consistent words (entries with longer gaps are far).
  for (;;) {
    const auto count = static_cast<uint64_t>(std::popcount(zeros));
    if (remaining < count) break;
    remaining -= count;
    if (++w >= high_words_) return *next = high_bits_;  // only on inconsistent words; Validate refuses those
    zeros = ~HighWord(w);
  }
  const auto bit = static_cast<uint64_t>(SelectInWord(zeros, remaining));
  const uint64_t pos = w * 64 + bit;
  // Zero z + 1, usually in the same word (buckets hold about one element).
  const uint64_t after = zeros & ~((uint64_t{2} << bit) - 1);  // 2 << 63 is 0: nothing after bit 63
  if (after != 0) {
    *next = w * 64 + static_cast<uint64_t>(std::countr_zero(after));
  } else {
    *next = pos + 1 < high_bits_ ? NextZero(pos + 1, z + 1) : high_bits_;
  }
  return pos;
}

uint64_t View::SelectZeroBySamples(uint64_t z) const {
  // The block holding zero z: the last with at most z zeros before it,
  // between the blocks of the samples around z.
  const uint64_t s = z / kZerosPerSample;
  uint64_t lo = Word32(samples_at_, s);
  uint64_t hi = s + 1 < samples_ ? Word32(samples_at_, s + 1) : blocks_ - 1;
  return SelectZeroInBlock(LastBlockWithZerosAtMost(z, lo, hi), z);
}

uint64_t View::LastBlockWithZerosAtMost(uint64_t z, uint64_t lo, uint64_t hi) const {
  while (hi - lo > 8) {
    const uint64_t mid = lo + (hi - lo + 1) / 2;
    if (ZerosBeforeBlock(mid) <= z) {
      lo = mid;
    } else {
      hi = mid - 1;
    }
  }
  while (lo < hi && ZerosBeforeBlock(lo + 1) <= z) ++lo;
  return lo;
}

uint64_t View::SelectZeroInBlock(uint64_t block, uint64_t z) const {
  // The last word's bits past the vector are zero; its zeros past the end
  // are never reached on consistent words.
  uint64_t remaining = z - ZerosBeforeBlock(block);
  uint64_t w = block * kWordsPerBlock;
  const uint64_t w_end = std::min(w + kWordsPerBlock, high_words_);
  for (; w < w_end; ++w) {
    const uint64_t zeros = ~HighWord(w);
    const auto count = static_cast<uint64_t>(std::popcount(zeros));
    if (remaining < count) return w * 64 + static_cast<uint64_t>(SelectInWord(zeros, remaining));
    remaining -= count;
  }
  return high_bits_;  // only on inconsistent words; Validate refuses those
}

uint64_t View::NextZero(uint64_t pos, uint64_t zeros_before_pos) const {
  // Usually in this word or the next (buckets hold at most 1 element on average).
  uint64_t w = pos / 64;
  uint64_t zeros = ~HighWord(w) & (~uint64_t{0} << (pos % 64));
  if (zeros != 0) return w * 64 + static_cast<uint64_t>(std::countr_zero(zeros));
  if (++w < high_words_ && (zeros = ~HighWord(w)) != 0) return w * 64 + static_cast<uint64_t>(std::countr_zero(zeros));
  // A long bucket: gallop over the block counts from pos's block (at most
  // zeros_before_pos zeros before it), O(log) in the bucket's length.
  const uint64_t z = zeros_before_pos;
  uint64_t lo = pos / kBlockBits, step = 1;
  while (lo + step < blocks_ && ZerosBeforeBlock(lo + step) <= z) {
    lo += step;
    step *= 2;
  }
  return SelectZeroInBlock(LastBlockWithZerosAtMost(z, lo, std::min(lo + step - 1, blocks_ - 1)), z);
}

bool View::AnyInRange(uint64_t a, uint64_t b) const {
  if (shape_.n == 0 || a > shape_.max) return false;
  if (b > shape_.max) b = shape_.max;
  const int l = shape_.low_bits;
  const uint64_t h = a >> l;
  const uint64_t h_b = b >> l;
  // Bucket h: the ones between zero h - 1 and zero h; `first` is the index
  // of its first element (the ones before it).
  uint64_t start = 0, end = 0;
  if (h == 0) {
    end = NextZero(0, 0);
  } else {
    start = SelectZero(h - 1, &end) + 1;
  }
  if (start >= high_bits_) return false;  // only on inconsistent words
  const uint64_t first = start - h;
  if (end >= high_bits_ || end < start) return false;  // only on inconsistent words
  const uint64_t next_index = std::min(first + (end - start), shape_.n);
  // First element of the bucket with low bits >= a's (binary search: sorted).
  const uint64_t a_low = a & low_mask_;
  uint64_t lo = first, hi = next_index;
  if (hi - lo <= 8) {  // the usual bucket (at most 1 element on average): in order, one read each
    for (; lo < hi; ++lo) {
      const uint64_t low = Low(lo);
      if (low >= a_low) return ((h << l) | low) <= b;
    }
  }
  while (lo < hi) {
    const uint64_t mid = lo + (hi - lo) / 2;
    if (Low(mid) < a_low) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  if (lo < next_index) return ((h << l) | Low(lo)) <= b;
  // Otherwise the successor is element next_index, in a later bucket; it is
  // in a bucket <= h_b exactly when its one lies before position
  // h_b + next_index + 1 (where it sits if its bucket is h_b).
  if (next_index >= shape_.n || h_b == h) return false;
  const uint64_t last = h_b + next_index;  // its position if in bucket h_b
  uint64_t p1 = high_bits_;
  // Look at the word after the bucket's end first.
  const uint64_t pos = end + 1;
  if (pos < high_bits_) {
    const uint64_t ones = HighWord(pos / 64) & (~uint64_t{0} << (pos % 64));
    if (ones != 0) p1 = pos / 64 * 64 + static_cast<uint64_t>(std::countr_zero(ones));
  }
  if (p1 == high_bits_) {
    if (last < pos / 64 * 64 + 64) return false;  // the word ends past `last` without a one
    // A rank says whether a one lies in [end, last): then its bucket is < h_b.
    if (Rank1(last) > next_index) return true;
    p1 = last;
    if (p1 >= high_bits_ || ((HighWord(p1 / 64) >> (p1 % 64)) & 1) == 0) return false;
  }
  if (p1 > last) return false;
  return (((p1 - next_index) << l) | Low(next_index)) <= b;
}

void View::AppendElements(std::vector<uint64_t>* out) const {
  uint64_t i = 0;
  for (uint64_t w = 0; w < high_words_ && i < shape_.n; ++w) {
    for (uint64_t ones = HighWord(w); ones != 0 && i < shape_.n; ones &= ones - 1, ++i) {
      const uint64_t pos = w * 64 + static_cast<uint64_t>(std::countr_zero(ones));
      out->push_back(((pos - i) << shape_.low_bits) | Low(i));
    }
  }
}

Status View::Validate() const {
  const uint64_t zeros_expected = shape_.Zeros();
  if (high_bits_ >= kMaxHighBits) return Status::Corruption("Elias-Fano set too large for its format");
  uint64_t ones = 0;
  std::vector<uint64_t> high(high_words_);
  for (uint64_t w = 0; w < high_words_; ++w) {
    high[w] = HighWord(w);
    if (w == high_words_ - 1 && high_bits_ % 64 != 0 && (high[w] >> (high_bits_ % 64)) != 0) {
      return Status::Corruption("Elias-Fano high bits set past the vector's end");
    }
    ones += static_cast<uint64_t>(std::popcount(high[w]));
  }
  const uint64_t zeros = high_bits_ - ones;
  if (ones != shape_.n || zeros != zeros_expected) {
    return Status::Corruption("Elias-Fano high vector holds " + std::to_string(ones) + " ones and " +
                              std::to_string(zeros) + " zeros; its shape says " + std::to_string(shape_.n) + " and " +
                              std::to_string(zeros_expected));
  }
  std::vector<uint64_t> index(shape_.IndexWords(), 0);
  BuildIndex(shape_, high.data(), index.data());
  for (uint64_t i = 0; i < index.size(); ++i) {
    if (Word(counts_at_ + i) != index[i]) {
      const char* part = i < shape_.BlockCountWords()                          ? "block count"
                         : i < shape_.BlockCountWords() + shape_.Superblocks() ? "superblock count"
                                                                               : "zero sample";
      return Status::Corruption(std::string("Elias-Fano rank/select directory word ") + std::to_string(i) + " (" +
                                part + ") does not match the high vector");
    }
  }
  return Status::OK();
}

void Stored::AlignedFree::operator()(uint64_t* p) const { std::free(p); }

// A query reads one cache line of the high vector and one of the low bits,
// at random: with 4 KiB pages a set of tens of MB (10^7 keys at 16 bits/key:
// 20 MB) also misses the TLB on most queries. A set of at least
// kHugePageMinBytes is allocated on 2 MiB boundaries and offered to the
// kernel's transparent huge pages (madvise; a hint: without THP, or with
// THP off, the pages stay small), at most 1/8 of slack for the rounding.
Stored::Stored(const Shape& shape) {
  const size_t bytes = static_cast<size_t>(shape.TotalWords()) * 8;
  const bool huge = bytes >= kHugePageMinBytes;
  const size_t align = huge ? kHugePage : kCacheLine;
  const size_t rounded = std::max((bytes + align - 1) / align * align, align);
  auto* words = static_cast<uint64_t*>(std::aligned_alloc(align, rounded));
  if (words == nullptr) throw std::bad_alloc();
#if defined(__linux__)
  if (huge) (void)madvise(words, rounded, MADV_HUGEPAGE);  // before the first touch
#endif
  std::memset(words, 0, rounded);
  owned_.reset(words);
  const auto* data = reinterpret_cast<const uint8_t*>(words);
  view_ = View(shape, data);
  data_ = Slice(data, bytes);
}

Stored BuildStored(const uint64_t* sorted, size_t n, uint64_t max) {
  Stored set(ShapeOf(n, max, kFormatVersion));
  BuildInto(set.view().shape(), sorted, set.owned_.get());
  return set;
}

}  // namespace filterlab::ef
