// Split-block Bloom filter ("sbbf"): Parquet's Bloom filter (also Impala's
// and Kudu's), bit-exact with apache/parquet-format BloomFilter.md; kernels
// and bit layout in split_block_bloom.h.
//
// Why this layout: a key lives in one 32-byte block and sets exactly one bit
// in each of its eight 32-bit words, so a query is one load of half a cache
// line and eight bit tests that a single AVX2 multiply, shift and test do at
// once, with no loop over probes. The price in FP rate: the 8 bits per key
// are fixed (no probe count to tune) and a block's load varies block to
// block, so at 10 bits/key it gives 1.26% where a non-local Bloom filter
// with the same 8 probes gives ~0.85%.
//
// Hash: XXH64 of the key bytes with seed 0 (Parquet's), so the filter's bits
// for a set of values equal a Parquet writer's for the same block count
// (filters/vectors/parquet_sbbf_vectors.cc checks against the golden file of
// apache/parquet-testing). Only 64-bit hashes: the block takes the high 32
// bits and the bits the low 32.
//
// Sizing: num_blocks = max(1, ceil(n * bpk / 256)), i.e. the bits asked for
// rounded up to whole blocks. Parquet writers round to a power of two; the
// layout (and Parquet's readers) accept any count, and rounding to a power of
// two would give up to twice the bits asked for.
//
// FP model (ModelFpRate, exact for ideal hashing): with D distinct hashes in
// L blocks, the block a query reads holds Poisson(D/L) keys (mean 256 / b, b
// = 256 L / D), and with j keys each word has each of its bits set with
// probability 1 - (31/32)^j independently of the other words (each word's bit
// comes from its own salt), so
//   FP = sum_j Pois(j; D/L) (1 - (31/32)^j)^8
// (fpmodel::SplitBlockPoissonFpRate(256 L / D, 8), through
// fpmodel::NarrowHashFpRate at 64 bits, where D = n and the equal-hash term
// is ~n/2^64). Published figures: 6.0 / 10.5 / 16.9 / 26.4 bits/key give
// about 10% / 1% / 0.1% / 0.01%; the model gives 9.93% / 1.013% / 0.0997% /
// 0.00988% (split_block_bloom_test.cc).
//
// Serialized form: the blocks followed by filterlab's trailer with layout
// "sbbf:hash=64,blocks=L"; the bytes before the trailer are exactly a
// Parquet bitset (Parquet's own Thrift header is not read or written).
#include "filters/split_block_bloom.h"

#include <algorithm>
#include <cstring>
#include <memory>
#include <string>

#include "common/aligned_array.h"
#include "filters/bits_per_key.h"
#include "filters/filter.h"
#include "filters/fp_model.h"
#include "filters/registry.h"
#include "filters/trailer.h"
#include "hashing/remix.h"
#include "hashing/xxh3.h"

namespace filterlab::sbbf {
namespace {

// 2^29 blocks = 16 GiB, the limit of the other bit-array variants.
constexpr uint64_t kMaxBlocks = uint64_t{1} << 29;

inline const uint32_t* ViewBlock(const FilterView& view, uint64_t hash) {
  return static_cast<const uint32_t*>(view.data) +
         size_t{BlockIndex(hash, static_cast<uint32_t>(view.param))} * kBlockWords;
}

// The view: data = the 32-byte-aligned blocks, param = num_blocks.
bool ViewMayContain(const FilterView& view, uint64_t hash) {
  return BlockMayMatch(ViewBlock(view, hash), Lower32(hash));
}
// A 32-byte-aligned block lies inside one cache line: one prefetch.
void ViewPrefetch(const FilterView& view, uint64_t hash) { __builtin_prefetch(ViewBlock(view, hash), 0, 3); }
// Locates and prefetches every block of a chunk, then tests them, so the
// misses overlap; chunks of 64 as FastLocalBloom's batch.
void ViewMayContainBatch(const FilterView& view, const uint64_t* hashes, size_t n, bool* results) {
  constexpr size_t kChunk = 64;
  const uint32_t* blocks[kChunk];
  for (size_t start = 0; start < n; start += kChunk) {
    const size_t m = std::min(kChunk, n - start);
    for (size_t i = 0; i < m; ++i) {
      blocks[i] = ViewBlock(view, hashes[start + i]);
      __builtin_prefetch(blocks[i], 0, 3);
    }
    for (size_t i = 0; i < m; ++i) results[start + i] = BlockMayMatch(blocks[i], Lower32(hashes[start + i]));
  }
}
constexpr FilterView::Ops kViewOps{&ViewMayContain, &ViewPrefetch, &ViewMayContainBatch};

// Adds n hashes through a 16-deep prefetch pipeline (the block of hash i + 16
// is requested while hash i is added). Same bits in any order.
void AddAll(const uint64_t* hashes, size_t n, uint32_t num_blocks, uint32_t* data) {
  constexpr size_t kDepth = 16;
  auto block_of = [&](uint64_t hash) { return data + size_t{BlockIndex(hash, num_blocks)} * kBlockWords; };
  for (size_t i = 0; i < std::min(n, kDepth); ++i) __builtin_prefetch(block_of(hashes[i]), 1, 1);
  for (size_t i = 0; i < n; ++i) {
    if (i + kDepth < n) __builtin_prefetch(block_of(hashes[i + kDepth]), 1, 1);
    BlockAdd(block_of(hashes[i]), Lower32(hashes[i]));
  }
}

class SplitBlockBloomFilter final : public Filter {
 public:
  // An owned, zeroed array (blocks == nullptr), or a view of the caller's
  // 32-byte-aligned blocks.
  SplitBlockBloomFilter(uint32_t num_blocks, const uint32_t* blocks)
      : num_blocks_(num_blocks),
        owned_(blocks == nullptr ? size_t{num_blocks} * kBlockWords : 0),
        blocks_(blocks == nullptr ? owned_.data() : blocks),
        view_{&kViewOps, blocks_, num_blocks} {}

  uint32_t* owned() { return owned_.data(); }

  bool MayContain(uint64_t hash) const override { return view_.MayContain(hash); }
  void MayContainBatch(const uint64_t* hashes, size_t n, bool* results) const override {
    view_.MayContainBatch(hashes, n, results);
  }
  void Prefetch(uint64_t hash) const override { view_.Prefetch(hash); }
  FilterView View() const override { return view_; }
  size_t DataBytes() const override { return size_t{num_blocks_} * kBlockBytes; }
  void Serialize(std::string* out) const override {
    AppendWithFilterlabTrailer(Slice(reinterpret_cast<const char*>(blocks_), DataBytes()), Describe(), out);
  }
  using Filter::Serialize;
  // "sbbf:hash=64,blocks=L".
  std::string Describe() const override { return "sbbf:hash=64,blocks=" + std::to_string(num_blocks_); }
  HashWidth hash_width() const override { return HashWidth::k64; }

 private:
  uint32_t num_blocks_;
  CacheAlignedArray<uint32_t> owned_;  // empty when viewing the caller's bytes
  const uint32_t* blocks_;
  FilterView view_;
};

// Spec: sbbf:bpk=B[,hash=64].
class SplitBlockBloomPolicy final : public FilterPolicy {
 public:
  explicit SplitBlockBloomPolicy(uint64_t millibits_per_key) : millibits_per_key_(millibits_per_key) {
    spec_ = "sbbf:bpk=" + FormatNumber(bits_per_key()) + ",hash=64";
  }

  const std::string& spec() const override { return spec_; }
  std::string_view variant() const override { return "sbbf"; }
  HashWidth hash_width() const override { return HashWidth::k64; }
  double bits_per_key() const override { return static_cast<double>(millibits_per_key_) / 1000.0; }

  // Parquet's: XXH64 of the key bytes, seed 0.
  uint64_t HashKey(Slice key) const override { return XXH64(key.data(), key.size(), 0); }

  Status Build(const uint64_t* hashes, size_t n, std::unique_ptr<Filter>* out) const override {
    const uint64_t num_blocks = NumBlocks(n);
    if (num_blocks > kMaxBlocks) {
      return Status::InvalidArgument("filter spec '" + spec_ + "': " + std::to_string(n) + " keys need " +
                                     std::to_string(num_blocks) +
                                     " blocks of 32 bytes, above the sbbf limit of 2^29 blocks (16 GiB)");
    }
    *out = NewSplitBlockBloom(hashes, n, static_cast<uint32_t>(num_blocks));
    return Status::OK();
  }

  // The split-block mixture for the distinct hashes (see top).
  double ModelFpRate(size_t n) const override {
    if (n == 0) return 0.0;
    const double bits = 256.0 * static_cast<double>(NumBlocks(n));
    return fpmodel::NarrowHashFpRate(static_cast<double>(n), 64, [bits](double distinct) {
      return fpmodel::SplitBlockPoissonFpRate(bits / distinct, 8);
    });
  }

 private:
  uint64_t NumBlocks(size_t n) const { return std::max<uint64_t>(1, (BitsForKeys(n, millibits_per_key_) + 255) / 256); }

  uint64_t millibits_per_key_;
  std::string spec_;
};

Status CreatePolicy(FilterSpec& spec, std::unique_ptr<FilterPolicy>* out) {
  double bits_per_key = 0;
  HashWidth width;
  Status s = spec.GetDouble("bpk", 10.0, 0.5, 100.0, &bits_per_key);
  if (s.ok()) s = spec.GetHashWidth(HashWidth::k64, {HashWidth::k64}, &width);
  if (s.ok()) s = spec.Finish({"bpk", "hash"});
  if (!s.ok()) return s;
  *out = std::make_unique<SplitBlockBloomPolicy>(MillibitsPerKey(bits_per_key));
  return Status::OK();
}

// Reads "sbbf:hash=64,blocks=L" + the blocks; in place when they are 32-byte
// aligned (the AVX2 path's aligned load, and a block inside one cache line),
// else from an owned copy.
Status OpenLayout(FilterSpec& layout, Slice data, std::unique_ptr<Filter>* out) {
  for (const char* key : {"hash", "blocks"}) {
    if (!layout.Has(key)) {
      return Status::Corruption("sbbf filter layout '" + layout.text() + "' lacks '" + key +
                                "' (expected sbbf:hash=64,blocks=1..2^29)");
    }
  }
  HashWidth width;
  long long num_blocks = 0;
  Status s = layout.GetHashWidth(HashWidth::k64, {HashWidth::k64}, &width);
  if (s.ok()) s = layout.GetInt("blocks", 1LL, 1LL, static_cast<long long>(kMaxBlocks), &num_blocks);
  if (s.ok()) s = layout.Finish({"hash", "blocks"});
  if (!s.ok()) return Status::Corruption("sbbf filter layout: " + s.message());
  const size_t bytes = static_cast<size_t>(num_blocks) * kBlockBytes;
  if (data.size() != bytes) {
    return Status::Corruption("sbbf filter data is " + std::to_string(data.size()) + " bytes; layout '" +
                              layout.text() + "' needs " + std::to_string(bytes) + " (32 per block)");
  }
  if (IsAlignedTo(data.data(), kBlockBytes)) {
    *out = std::make_unique<SplitBlockBloomFilter>(static_cast<uint32_t>(num_blocks),
                                                   reinterpret_cast<const uint32_t*>(data.data()));
  } else {
    auto copy = std::make_unique<SplitBlockBloomFilter>(static_cast<uint32_t>(num_blocks), nullptr);
    std::memcpy(copy->owned(), data.data(), data.size());
    *out = std::move(copy);
  }
  return Status::OK();
}

}  // namespace

std::unique_ptr<Filter> NewSplitBlockBloom(const uint64_t* hashes, size_t n, uint32_t num_blocks) {
  auto filter = std::make_unique<SplitBlockBloomFilter>(num_blocks, nullptr);
  AddAll(hashes, n, num_blocks, filter->owned());
  return filter;
}

FILTERLAB_REGISTER_FILTER(FilterVariant{
    "sbbf",
    "Parquet's split-block Bloom filter, bit-exact: one 32-byte block per key, one bit in each of its 8 words, "
    "AVX2 query",
    "bpk=0.5..100 (default 10; blocks = ceil(n * bpk / 256)) hash=64 (XXH64 seed 0, Parquet's)",
    &CreatePolicy,
    &OpenLayout,
    nullptr,
    {"sbbf:bpk=10"},
    FpModelKind::kExact,
    nullptr,
    /*has_probes=*/false});

}  // namespace filterlab::sbbf
