// Elias-Fano: a sorted set of n distinct integers in [0, max] stored in about
// n (2 + log2((max + 1) / n)) bits, answering "is there an element in
// [a, b]?" (a successor query) in O(log) time whatever the distribution. The
// container of Grafite and of bucketing (grafite.cc, bucketing.cc), as in
// Costa, Ferragina, Vinciguerra, "Grafite: Taming Adversarial Queries with
// Optimal Range Filters" (SIGMOD 2024), Section 3, which stores the hashed
// keys in Elias-Fano (Elias 1974, Fano 1971; Vigna, "Quasi-succinct indices",
// WSDM 2013, and "Broadword implementation of rank/select queries", WEA 2008,
// for the rank/select directory).
//
// Layout. Each element v is split into its low l = floor(log2((max + 1) / n))
// bits, stored packed (n l bits), and its high part h = v >> l, stored in
// unary: element i sets bit h + i of the high bit vector, whose
// (max >> l) + 1 zeros end the buckets 0, 1, ... in order. So the high
// vector has n ones and (max >> l) + 1 zeros, which lies in [n, 2n] when
// n <= max: between 2n and 3n bits.
//
// Rank/select directory over the high vector (format 3, kFormatVersion):
//  - ones before each 512-bit block, as a uint32 relative to its superblock
//    of 2^16 blocks, whose uint64 holds the ones before it: rank in O(1)
//    (two loads and at most 8 popcounts);
//  - a zero inventory, 16 bytes (one aligned half cache line) per 1024
//    zeros: the position of zero 1024k (41 bits), a "far" bit, and the
//    offsets from it (12 bits each) of zeros 1024k + 128j, j = 1..7. Zero z
//    is then found by one inventory load and a scan of the high words from
//    the sampled zero at most 127 zeros before it (about 2 words with ones
//    and zeros mixed evenly). This is sux's SimpleSelectZeroHalf idea
//    (Vigna, "Broadword implementation of rank/select queries", WEA 2008,
//    Section 7: an inventory with relative sub-inventory offsets), sized
//    for a sparser 1/8 bit per zero. An entry whose 1024 zeros span an
//    offset past 12 bits or a gap of more than 1024 bits between sampled
//    zeros (long buckets: dense keys) is marked far and its zeros are found
//    through the block counts instead (a binary search between the blocks of
//    zeros 1024k and 1024(k + 1)), so a select stays O(log) whatever the set.
// Format 2 (still read): the same block counts, then for every 1024th zero
// the index of its block (uint32) instead of the inventory; a select
// searches the block counts between two samples (about 4 blocks), a longer
// dependent chain of loads and a scan of up to 8 words.
// Space, per element: block counts 32 / 512 per high bit (<= 0.19),
// inventory 128 / 1024 per zero (0.125 when (max + 1)/n is a power of two,
// up to 0.25 just below one), superblocks negligible: at most 0.44 bits over
// the EF's own l + 1 + ((max >> l) + 1) / n, and 0.25 at a power of two,
// where the EF's own is 2 + log2((max + 1)/n) (in between it is at most 0.09
// bits less: the frac f of the log gives 1 + 2^f - f <= 2).
//
// Query [a, b]: bucket h = a >> l starts after zero h - 1 (one select) and
// ends at the next zero (found in the same word or the next one in the
// usual case, otherwise by galloping over the block counts from the start:
// O(log) in the bucket's length); the bucket's low bits are read in order
// when it holds at most 8 elements (the usual case: at most 1 on average), else
// binary-searched, for the first element >= a. If the bucket holds none,
// the next element (index known) lies at or before bucket b >> l exactly
// when a rank over the high vector says so; again the next word is looked
// at first. So keys packed into a few huge buckets (dense keys: 10^6 keys 4
// apart) cost a few binary searches, not a scan of the bucket.
// Cost: a query is three dependent memory reads (inventory entry, high
// word, low bits); with 10^7 elements the last two miss the caches. The
// inventory entry says how many elements precede its sampled zero, so the
// select prefetches the low bits where bucket h's first element should be
// (that count plus the remaining zeros times n/zeros: off by a few elements
// at most on uniform data) while it scans the high words, and the low-bits
// read then mostly finds its line arriving: nearer two misses than three.
//
// Serialized as little-endian words: low bits (padded to whole 512-bit
// blocks), high vector, block counts, superblocks, then (format 3) a zero
// word when needed so the inventory starts on an even word, and the
// inventory (format 2: the samples). Read in place through memcpy loads (any
// alignment). The block and sample arrays are uint32; a set must have fewer
// than 2^41 high bits (2^38 elements), far above what memory holds.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "common/slice.h"
#include "common/status.h"

namespace filterlab::ef {

// The serialized layout's version; a filter's layout text states it
// (grafite.cc, bucketing.cc). Built sets are kFormatVersion; a reader also
// reads kOldestReadableFormat and refuses others. 1: zero samples only
// (linear scans; no longer read); 2: block counts and a block sample per
// 1024 zeros; 3: block counts and the zero inventory above.
inline constexpr int kFormatVersion = 3;
inline constexpr int kOldestReadableFormat = 2;

inline constexpr uint64_t kBlockBits = 512;
inline constexpr uint64_t kBlocksPerSuperblock = uint64_t{1} << 16;
inline constexpr uint64_t kZerosPerSample = 1024;    // format 2
inline constexpr uint64_t kZerosPerEntry = 1024;     // format 3: one inventory entry
inline constexpr uint64_t kZerosPerSubsample = 128;  // format 3: offsets within an entry

// What a reader needs besides the words (kept in the owning filter's layout).
struct Shape {
  uint64_t n = 0;    // elements
  uint64_t max = 0;  // every element is <= max
  int low_bits = 0;  // l
  int format = kFormatVersion;
  // Derived sizes (words, unless named otherwise).
  uint64_t LowWords() const;
  uint64_t HighBits() const;  // n + (max >> l) + 1
  uint64_t HighWords() const;
  uint64_t Zeros() const { return (max >> low_bits) + 1; }
  uint64_t Blocks() const;           // 512-bit blocks of the high vector
  uint64_t BlockCountWords() const;  // uint32 per block
  uint64_t Superblocks() const;      // uint64 per 2^16 blocks
  uint64_t Samples() const;          // format 2: uint32 per 1024 zeros
  uint64_t SampleWords() const;
  uint64_t InventoryEntries() const;  // format 3: 2 words per 1024 zeros
  uint64_t InventoryAt() const;       // word index of the inventory (even)
  uint64_t IndexWords() const;        // block counts, superblocks, samples or pad and inventory
  uint64_t TotalWords() const { return LowWords() + HighWords() + IndexWords(); }
};

// l for n elements up to max: floor(log2((max + 1) / n)), 0 when n > max.
int LowBitsFor(uint64_t n, uint64_t max);

// Builds the words of a set from sorted, distinct values <= max, in
// `format` (kOldestReadableFormat..kFormatVersion; tests build old formats).
Shape Build(const uint64_t* sorted, size_t n, uint64_t max, std::vector<uint64_t>* words, int format = kFormatVersion);

// The shape of n elements up to max in `format` (checked by
// CheckFormatVersion), checked against the data's size: what a filter's
// layout reader calls (`what` names the filter in the error).
Status ShapeForData(uint64_t n, uint64_t max, int format, size_t data_bytes, const std::string& what, Shape* shape);

// Checks a layout's "ef=V" field (present: has_version): Corruption naming
// the versions unless kOldestReadableFormat <= V <= kFormatVersion (`what`
// names the layout).
Status CheckFormatVersion(bool has_version, long long version, const std::string& what);

// Read-only view over the words (owned by the caller).
class View {
 public:
  View() = default;
  View(const Shape& shape, const uint8_t* words) : shape_(shape), words_(words) { Init(); }

  // Checks the words against the shape: the high vector holds exactly n ones
  // and (max >> l) + 1 zeros, and the directory is the one its words give.
  // Corruption naming the first inconsistency.
  Status Validate() const;

  // Whether some element lies in [a, b] (a <= b).
  bool AnyInRange(uint64_t a, uint64_t b) const;
  // Appends every element in order (what a conversion between formats
  // reads: the tests rewrite a filter's set in format 2 with it).
  void AppendElements(std::vector<uint64_t>* out) const;
  const Shape& shape() const { return shape_; }

 private:
  void Init();
  uint64_t Word(uint64_t i) const;
  uint32_t Word32(uint64_t word_at, uint64_t i) const;
  uint64_t HighWord(uint64_t i) const { return Word(low_words_ + i); }
  uint64_t Low(uint64_t i) const;
  uint64_t OnesBeforeBlock(uint64_t block) const;
  uint64_t ZerosBeforeBlock(uint64_t block) const { return block * kBlockBits - OnesBeforeBlock(block); }
  // Ones in [0, pos) of the high vector (pos <= its length).
  uint64_t Rank1(uint64_t pos) const;
  // Position in the high vector of the z-th zero (z < zeros); *next = the
  // position of zero z + 1 (the high vector's length when z is the last).
  uint64_t SelectZero(uint64_t z, uint64_t* next) const;
  uint64_t SelectZeroBySamples(uint64_t z) const;  // format 2
  // The last block in [lo, hi] with at most z zeros before it: zero z's
  // block when that lies in [lo, hi].
  uint64_t LastBlockWithZerosAtMost(uint64_t z, uint64_t lo, uint64_t hi) const;
  // Position of zero z, which lies in `block`.
  uint64_t SelectZeroInBlock(uint64_t block, uint64_t z) const;
  // Position of the first zero at or after pos (one exists: the vector ends with one).
  uint64_t NextZero(uint64_t pos, uint64_t zeros_before_pos) const;

  Shape shape_;
  const uint8_t* words_ = nullptr;
  uint64_t low_words_ = 0;
  uint64_t high_words_ = 0;
  uint64_t high_bits_ = 0;
  uint64_t blocks_ = 0;
  uint64_t counts_at_ = 0;   // word index of the block counts
  uint64_t supers_at_ = 0;   // of the superblocks
  uint64_t samples_at_ = 0;  // of the samples (format 2)
  uint64_t samples_ = 0;
  uint64_t inventory_at_ = 0;  // of the inventory (format 3)
  uint64_t entries_ = 0;
  uint64_t ones_per_zero_ = 0;  // n / zeros in 32.32 fixed point: where a select's element lies in the low bits
  uint64_t low_mask_ = 0;
};

// An Elias-Fano set a filter owns (built, in a 64-byte-aligned buffer so a
// block of the high vector is one cache line; 2 MiB-aligned and offered to
// transparent huge pages from 16 MiB) or reads in place (opened).
class Stored {
 public:
  Stored() = default;
  Stored(const Shape& shape, Slice data) : view_(shape, data.udata()), data_(data) {}
  // Moving keeps the view valid: the buffer does not move.
  Stored(Stored&&) noexcept = default;
  Stored& operator=(Stored&&) noexcept = default;

  const View& view() const { return view_; }
  Slice data() const { return data_; }

 private:
  friend Stored BuildStored(const uint64_t* sorted, size_t n, uint64_t max);
  static constexpr size_t kCacheLine = 64;
  static constexpr size_t kHugePage = size_t{2} << 20;
  static constexpr size_t kHugePageMinBytes = 8 * kHugePage;
  struct AlignedFree {
    void operator()(uint64_t* p) const;
  };
  explicit Stored(const Shape& shape);  // zeroed words of that shape

  std::unique_ptr<uint64_t[], AlignedFree> owned_;
  View view_;
  Slice data_;
};

// Builds a Stored set from sorted, distinct values <= max.
Stored BuildStored(const uint64_t* sorted, size_t n, uint64_t max);

}  // namespace filterlab::ef
