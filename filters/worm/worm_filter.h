// The one Filter implementation all wormhashing sub-variants share,
// parameterised by a scheme (the probe code; see worm_scheme.h). It owns a
// 64-byte aligned, zeroed word array, batches queries with prefetch, and
// serializes with filterlab's trailer (trailer.h) whose layout string holds
// variant, hash width, probes and the exact bit count.
//
// A scheme provides:
//   static uint64_t UnitBits(int probes);            bits per sizing unit
//   static void InitShape(WormShape*);               range etc. from bits/probes
//   static void Add(uint64_t* words, const WormShape&, uint64_t hash);
//   static bool Query(const uint64_t* words, const WormShape&, uint64_t hash);
//   static void Prefetch(const uint64_t* words, const WormShape&, uint64_t hash);
//   static double Model(const WormShape&, double distinct_hashes);   (layout FP model)
//   static bool ModelExact(int probes);
//   static uint64_t MaxBits(HashWidth, int probes);
// and the constants kHash32, kHash64, kDefaultWidth, kMinProbes, kMaxProbes,
// kProbesRule, kDefaultProbes, kOddUnits, kApproxBelow, kApproxAbove
// (SchemeBase gives the usual ones).
#pragma once

#include <algorithm>
#include <cstring>
#include <memory>
#include <string>

#include "common/aligned_array.h"
#include "filters/trailer.h"
#include "filters/worm/worm_scheme.h"

namespace filterlab::worm {

// Read prefetch with high temporal locality (the line is probed shortly).
inline void PrefetchWord(const uint64_t* word) { __builtin_prefetch(word, 0, 3); }

// Bit b of the array: word b/64, bit b%64 (on a little-endian host the same
// memory bit as byte b/8, bit b%8).
inline void SetBit(uint64_t* words, uint64_t b) { words[b >> 6] |= uint64_t{1} << (b & 63); }
inline bool TestBit(const uint64_t* words, uint64_t b) { return ((words[b >> 6] >> (b & 63)) & 1) != 0; }

// Filters are capped at 2^40 bits (128 GiB) whatever the arithmetic allows.
inline constexpr uint64_t kMaxFilterBits = uint64_t{1} << 40;

// The usual answers; a scheme overrides what differs.
struct SchemeBase {
  static constexpr bool kHash32 = true;
  static constexpr bool kHash64 = true;
  static constexpr HashWidth kDefaultWidth = HashWidth::k64;
  static constexpr int kMinProbes = 1;
  static constexpr DefaultProbes kDefaultProbes = DefaultProbes::kModelOptimal;
  static constexpr bool kOddUnits = false;
  // Default band for approximate models: the approximations named beside
  // the schemes move the rate by a few percent at 10 bits/key.
  static constexpr double kApproxBelow = 0.05;
  static constexpr double kApproxAbove = 0.20;
  static uint64_t MaxBits(HashWidth, int) { return kMaxFilterBits; }
  static void InitShape(WormShape* s) { s->range = s->units; }
};

template <class Scheme>
class WormFilter final : public Filter {
 public:
  WormFilter(const WormSubVariant* variant, const WormShape& shape)
      : variant_(variant), shape_(shape), words_(shape.storage_words()) {}

  uint64_t* mutable_words() { return words_.data(); }

  bool MayContain(uint64_t hash) const override { return Scheme::Query(words_.data(), shape_, hash); }

  // The words the query will read (the scheme's own prefetch, as the batch
  // path uses), so callers pipelining queries across filters overlap them.
  void Prefetch(uint64_t hash) const override { Scheme::Prefetch(words_.data(), shape_, hash); }

  // Hash and prefetch a chunk, then probe it: the misses of a chunk overlap
  // instead of being paid one after another. Chunks of 32 keep the prefetched
  // lines resident until they are probed.
  void MayContainBatch(const uint64_t* hashes, size_t n, bool* results) const override {
    constexpr size_t kChunk = 32;
    for (size_t start = 0; start < n; start += kChunk) {
      const size_t len = std::min(kChunk, n - start);
      for (size_t j = 0; j < len; ++j) Scheme::Prefetch(words_.data(), shape_, hashes[start + j]);
      for (size_t j = 0; j < len; ++j) results[start + j] = Scheme::Query(words_.data(), shape_, hashes[start + j]);
    }
  }

  size_t DataBytes() const override { return words_.size() * sizeof(uint64_t); }

  // The host is little-endian (CMake refuses others), so the words' bytes in
  // memory are their serialized form.
  void Serialize(std::string* out) const override {
    AppendWithFilterlabTrailer(Slice(reinterpret_cast<const char*>(words_.data()), DataBytes()), Describe(), out);
  }

  std::string Describe() const override { return DescribeWorm(*variant_, shape_); }
  HashWidth hash_width() const override { return shape_.width; }

 private:
  const WormSubVariant* variant_;
  WormShape shape_;
  CacheAlignedArray<uint64_t> words_;
};

template <class Scheme>
std::unique_ptr<Filter> BuildWormFilter(const WormSubVariant* v, const WormShape& shape, const uint64_t* hashes,
                                        size_t n) {
  auto filter = std::make_unique<WormFilter<Scheme>>(v, shape);
  uint64_t* words = filter->mutable_words();
  // Prefetch a few keys ahead of the add (OR-ing bits commutes, so the order
  // of adds does not matter; the prefetch only hides the misses).
  constexpr size_t kAhead = 8;
  for (size_t i = 0; i < n; ++i) {
    if (i + kAhead < n) Scheme::Prefetch(words, shape, hashes[i + kAhead]);
    Scheme::Add(words, shape, hashes[i]);
  }
  return filter;
}

// Copies the data into an aligned array (the serialized bytes need not be
// aligned, and the SIMD path loads whole aligned blocks).
template <class Scheme>
std::unique_ptr<Filter> OpenWormFilter(const WormSubVariant* v, const WormShape& shape, Slice data) {
  auto filter = std::make_unique<WormFilter<Scheme>>(v, shape);
  std::memcpy(filter->mutable_words(), data.data(), data.size());
  return filter;
}

template <class Scheme>
WormSubVariant MakeSubVariant(const char* name, const char* summary) {
  return WormSubVariant{name,
                        summary,
                        Scheme::kHash32,
                        Scheme::kHash64,
                        Scheme::kDefaultWidth,
                        Scheme::kMinProbes,
                        Scheme::kMaxProbes,
                        Scheme::kProbesRule,
                        Scheme::kDefaultProbes,
                        &Scheme::ModelExact,
                        Scheme::kApproxBelow,
                        Scheme::kApproxAbove,
                        Scheme::kOddUnits,
                        &Scheme::MaxBits,
                        &Scheme::UnitBits,
                        &Scheme::InitShape,
                        &BuildWormFilter<Scheme>,
                        &OpenWormFilter<Scheme>,
                        &Scheme::Model};
}

}  // namespace filterlab::worm
