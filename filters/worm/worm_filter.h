// The one Filter implementation all wormhashing sub-variants share,
// parameterised by a scheme (the probe code; see worm_scheme.h). A built
// filter owns a 64-byte aligned, zeroed word array; an opened one reads the
// serialized words in place where they are 64-byte aligned (OpenWormFilter).
// It batches queries with prefetch, and serializes with filterlab's trailer
// (trailer.h) whose layout string holds variant, hash width, probes and the
// exact bit count.
//
// A scheme provides:
//   static uint64_t UnitBits(int probes);            bits per sizing unit
//   static void InitShape(WormShape*);               range etc. from bits/probes
//   static void Add(uint64_t* words, const WormShape&, uint64_t hash);
//   static bool Query(const uint64_t* words, const WormShape&, uint64_t hash);
//   static void Prefetch(const uint64_t* words, const WormShape&, uint64_t hash);
//   static double Model(const WormShape&, double distinct_hashes);   (layout FP model)
//   static FpModelKind ModelKind(int probes, HashWidth);   (SchemeBase: exact)
//   static double ModelMaxRelativeError(int probes, HashWidth);  (SchemeBase: 0;
//       an approximation's measured largest relative error)
//   static uint64_t MaxBits(HashWidth, int probes);
// and the constants kHash32, kHash64, kDefaultWidth, kMinProbes, kMaxProbes,
// kProbesRule, kDefaultProbes, kOddUnits
// (SchemeBase gives the usual ones). Query and Prefetch must read nothing of
// the shape that UnitBits and InitShape do not derive from width, probes and
// units: the filter's FilterView rebuilds the shape from those three.
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
// The empty volatile asm keeps the prefetch: GCC (12) counts
// __builtin_prefetch as no side effect, so a scheme's Prefetch that it does
// not inline early is judged const and every call to it is deleted as dead
// code. It did so for cache_worm64_block's (its Locate is too large to inline
// early): its view prefetch compiled to a bare ret, and its pipelined query
// ran at 6.8x the memory floor against cache_mul64_block's 1.8x.
inline void PrefetchWord(const uint64_t* word) {
  __builtin_prefetch(word, 0, 3);
  asm volatile("");
}

// Bit b of the array: word b/64, bit b%64 (on a little-endian host the same
// memory bit as byte b/8, bit b%8).
inline void SetBit(uint64_t* words, uint64_t b) { words[b >> 6] |= uint64_t{1} << (b & 63); }
inline bool TestBit(const uint64_t* words, uint64_t b) { return ((words[b >> 6] >> (b & 63)) & 1) != 0; }

// Filters are capped at 2^40 bits (128 GiB) whatever the arithmetic allows.
inline constexpr uint64_t kMaxFilterBits = uint64_t{1} << 40;

// The kind of a scheme whose model is exact unless it states an error: an
// approximation where `error` (its ModelMaxRelativeError) is positive.
inline FpModelKind ApproximationIf(double error) {
  return error > 0 ? FpModelKind::kApproximation : FpModelKind::kExact;
}

// The usual answers; a scheme overrides what differs.
struct SchemeBase {
  static constexpr bool kHash32 = true;
  static constexpr bool kHash64 = true;
  static constexpr HashWidth kDefaultWidth = HashWidth::k64;
  static constexpr int kMinProbes = 1;
  static constexpr DefaultProbes kDefaultProbes = DefaultProbes::kModelOptimal;
  static constexpr bool kOddUnits = false;
  static uint64_t MaxBits(HashWidth, int) { return kMaxFilterBits; }
  static void InitShape(WormShape* s) { s->range = s->units; }
  // The tolerance kind the property tests hold the model to; a scheme whose
  // model is a fitted estimate or a bound says so (fp_tolerance.h).
  static FpModelKind ModelKind(int, HashWidth) { return FpModelKind::kExact; }
  static double ModelMaxRelativeError(int, HashWidth) { return 0; }
};

// Hash and prefetch a chunk, then probe it: the misses of a chunk overlap
// instead of being paid one after another. Chunks of 32 keep the prefetched
// lines resident until they are probed. (The filter's and its view's batch.)
template <class Scheme>
void QueryBatch(const uint64_t* words, const WormShape& shape, const uint64_t* hashes, size_t n, bool* results) {
  constexpr size_t kChunk = 32;
  for (size_t start = 0; start < n; start += kChunk) {
    const size_t len = std::min(kChunk, n - start);
    for (size_t j = 0; j < len; ++j) Scheme::Prefetch(words, shape, hashes[start + j]);
    for (size_t j = 0; j < len; ++j) results[start + j] = Scheme::Query(words, shape, hashes[start + j]);
  }
}

// The FilterView of a worm filter: data = the words, param = units |
// probes << 48, ops per scheme and hash width. The three numbers are all a
// shape is derived from (SizeShape / ShapeFromLayout), so a view query
// rebuilds the WormShape on the stack with the scheme's own UnitBits and
// InitShape (a multiply and a few ALU operations: LargestOddAtMost, bit_ceil
// of probes/2) and runs the scheme's Query / Prefetch on it; after inlining
// the compiler keeps only the fields that scheme reads, and the width is a
// constant. The alternative, packing the fields the schemes read (range,
// units, words_touched, group_words, probes) would not fit 64 bits for the
// 2^40-bit non-local filters and would need a per-scheme hook in the scheme
// files.
inline constexpr int kViewProbesShift = 48;
inline constexpr uint64_t kViewUnitsMask = (uint64_t{1} << kViewProbesShift) - 1;
// Meaningful only where WormViewOps (below) accepts the shape.
inline uint64_t WormViewParam(const WormShape& s) { return s.units | uint64_t(s.probes) << kViewProbesShift; }

template <class Scheme, HashWidth kWidth>
WormShape ViewShape(uint64_t param) {
  WormShape s;
  s.width = kWidth;
  s.probes = static_cast<int>(param >> kViewProbesShift);
  s.unit_bits = Scheme::UnitBits(s.probes);
  s.units = param & kViewUnitsMask;
  s.bits = s.units * s.unit_bits;
  Scheme::InitShape(&s);
  return s;
}

template <class Scheme, HashWidth kWidth>
bool ViewMayContain(const FilterView& view, uint64_t hash) {
  return Scheme::Query(static_cast<const uint64_t*>(view.data), ViewShape<Scheme, kWidth>(view.param), hash);
}
template <class Scheme, HashWidth kWidth>
void ViewPrefetch(const FilterView& view, uint64_t hash) {
  Scheme::Prefetch(static_cast<const uint64_t*>(view.data), ViewShape<Scheme, kWidth>(view.param), hash);
}
template <class Scheme, HashWidth kWidth>
void ViewMayContainBatch(const FilterView& view, const uint64_t* hashes, size_t n, bool* results) {
  QueryBatch<Scheme>(static_cast<const uint64_t*>(view.data), ViewShape<Scheme, kWidth>(view.param), hashes, n,
                     results);
}
template <class Scheme, HashWidth kWidth>
inline constexpr FilterView::Ops kWormViewOps{&ViewMayContain<Scheme, kWidth>, &ViewPrefetch<Scheme, kWidth>,
                                              &ViewMayContainBatch<Scheme, kWidth>};

// The ops for `shape`, or nullptr where the view cannot carry it: units or
// probes too wide for the param, a width the scheme does not take, or a
// shape that ViewShape would not rebuild field for field (a scheme whose
// shape depends on more than width, probes and units).
template <class Scheme>
const FilterView::Ops* WormViewOps(const WormShape& shape) {
  if (shape.units > kViewUnitsMask || shape.probes < 0 || shape.probes > 255) return nullptr;
  const uint64_t param = WormViewParam(shape);
  auto same = [&shape](const WormShape& r) {
    return r.width == shape.width && r.probes == shape.probes && r.bits == shape.bits &&
           r.unit_bits == shape.unit_bits && r.units == shape.units && r.range == shape.range &&
           r.words_touched == shape.words_touched && r.group_words == shape.group_words;
  };
  if constexpr (Scheme::kHash32) {
    if (shape.width == HashWidth::k32 && same(ViewShape<Scheme, HashWidth::k32>(param))) {
      return &kWormViewOps<Scheme, HashWidth::k32>;
    }
  }
  if constexpr (Scheme::kHash64) {
    if (shape.width == HashWidth::k64 && same(ViewShape<Scheme, HashWidth::k64>(param))) {
      return &kWormViewOps<Scheme, HashWidth::k64>;
    }
  }
  return nullptr;
}

template <class Scheme>
class WormFilter final : public Filter {
 public:
  // A built filter: owns its zeroed array, filled through mutable_words().
  WormFilter(const WormSubVariant* variant, const WormShape& shape)
      : variant_(variant),
        shape_(shape),
        owned_(shape.storage_words()),
        words_(owned_.data()),
        view_ops_(WormViewOps<Scheme>(shape)) {}
  // An opened filter: views shape.storage_words() words that its caller
  // keeps alive and never changes (OpenFilter's contract).
  WormFilter(const WormSubVariant* variant, const WormShape& shape, const uint64_t* words)
      : variant_(variant), shape_(shape), words_(words), view_ops_(WormViewOps<Scheme>(shape)) {}

  // The owned array (empty for a filter viewing its caller's bytes).
  uint64_t* mutable_words() { return owned_.data(); }

  bool MayContain(uint64_t hash) const override { return Scheme::Query(words_, shape_, hash); }

  // The words the query will read (the scheme's own prefetch, as the batch
  // path uses), so callers pipelining queries across filters overlap them.
  void Prefetch(uint64_t hash) const override { Scheme::Prefetch(words_, shape_, hash); }

  void MayContainBatch(const uint64_t* hashes, size_t n, bool* results) const override {
    QueryBatch<Scheme>(words_, shape_, hashes, n, results);
  }

  // The worm view (above); the default, object-calling one for a shape it
  // cannot carry (none of the registered variants' shapes: the tests check
  // that every worm variant has its own view).
  FilterView View() const override {
    if (view_ops_ == nullptr) return Filter::View();
    return FilterView{view_ops_, words_, WormViewParam(shape_)};
  }

  size_t DataBytes() const override { return shape_.storage_words() * sizeof(uint64_t); }

  // The host is little-endian (CMake refuses others), so the words' bytes in
  // memory are their serialized form.
  void Serialize(std::string* out) const override {
    AppendWithFilterlabTrailer(Slice(reinterpret_cast<const char*>(words_), DataBytes()), Describe(), out);
  }

  std::string Describe() const override { return DescribeWorm(*variant_, shape_); }
  HashWidth hash_width() const override { return shape_.width; }

 private:
  const WormSubVariant* variant_;
  WormShape shape_;
  CacheAlignedArray<uint64_t> owned_;  // built (or copied) words; empty when viewing the caller's
  const uint64_t* words_;              // what queries read: owned_ or the caller's bytes
  const FilterView::Ops* view_ops_;    // nullptr: the default view
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

// Reads the serialized words in place when they start on a 64-byte boundary,
// as a built filter's own array does: then queries touch exactly the lines a
// built filter's would, from memory the caller chose (the speed harness's
// huge-page arena), and opening costs no copy. Otherwise (std::string or
// file buffers are typically 16-byte aligned) it copies them into an owned
// 64-byte aligned array, because the schemes rely on that alignment: the
// SIMD scheme's aligned 256-bit loads fault on a misaligned block, and the
// cache-local schemes' blocks would straddle two lines (two misses a query).
template <class Scheme>
std::unique_ptr<Filter> OpenWormFilter(const WormSubVariant* v, const WormShape& shape, Slice data) {
  if (IsAlignedTo(data.data(), kCacheLineBytes)) {
    return std::make_unique<WormFilter<Scheme>>(v, shape, reinterpret_cast<const uint64_t*>(data.data()));
  }
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
                        &Scheme::ModelKind,
                        &Scheme::ModelMaxRelativeError,
                        Scheme::kOddUnits,
                        &Scheme::MaxBits,
                        &Scheme::UnitBits,
                        &Scheme::InitShape,
                        &BuildWormFilter<Scheme>,
                        &OpenWormFilter<Scheme>,
                        &Scheme::Model};
}

}  // namespace filterlab::worm
