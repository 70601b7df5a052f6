// The filter, view, policy and reader that XOR and binary fuse filters share:
// a fingerprint array (8 or 16 bits a slot) where a key is present when the
// XOR of its kArity slots equals its fingerprint. The families differ only in
// their Layout (sizing and slot positions: xor_filter.cc,
// binary_fuse_filter.cc), which besides what peeling.h asks provides
//   static constexpr const char* kVariant;          // "xor", "binary_fuse"
//   static constexpr double kSlotsPerKey;           // for large n
//   static constexpr size_t kMaxKeys;               // slot indices are 32-bit
//   static Layout For(size_t distinct_keys);
//   std::string DescribePrefix() const;             // "xor:", "binary_fuse:arity=3,"
//   std::string DescribeSize() const;               // "block_length=B", ...
//   uint64_t ViewParam(uint32_t seed) const;        // layout + seed in one word
//   static Layout FromViewParam(uint64_t param);
//   static void ViewPositions(uint64_t param, uint64_t h, uint32_t* pos);  // = FromViewParam(param).Positions
//   static uint32_t SeedOf(uint64_t param);
// and optionally its own query, which must find Positions' slots:
//   template <class Fingerprint, bool kMultiplied>
//   static const FilterView::Ops* QueryOps(const Layout&);  // else kOps below
//
// FP model, exact: an outside query y is a false positive when its
// fingerprint equals the XOR of the fingerprint array at its kArity slots.
// Whatever the array holds, that XOR is fixed by the stored keys and y's
// slots, while y's fingerprint (the low f bits of its mixed hash) is uniform
// over 2^f values and independent of its slots, so the match has probability
// 2^-f exactly: 1/256 = 0.390625% at 8 bits, 1/65536 at 16. It does not
// depend on n; a query whose 64-bit hash equals a stored one always matches
// (~n/2^64, fpmodel::NarrowHashFpRate adds it). Duplicates removed change
// nothing but the size.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>

#include "common/aligned_array.h"
#include "common/slice.h"
#include "common/status.h"
#include "filters/filter.h"
#include "filters/filter_spec.h"
#include "filters/fp_model.h"
#include "filters/fuse/fuse_hash.h"
#include "filters/fuse/peeling.h"
#include "filters/trailer.h"
#include "hashing/xxh3.h"

namespace filterlab::fuse {

// Fingerprints are read with memcpy, so the array may sit at any address
// (16-bit ones included) and an opened filter always reads its bytes in place.
template <class Fingerprint>
inline Fingerprint LoadFingerprint(const unsigned char* data, uint32_t slot) {
  Fingerprint v;
  std::memcpy(&v, data + size_t{slot} * sizeof(Fingerprint), sizeof(Fingerprint));
  return v;
}

// The fingerprint at `slot` of an array at `base` (a query's loads: the
// slot as a 64-bit index, so a constant part of it folds into the address).
template <class Fingerprint>
inline Fingerprint LoadFingerprintAt(const unsigned char* base, uint64_t slot) {
  Fingerprint v;
  std::memcpy(&v, base + slot * sizeof(Fingerprint), sizeof(Fingerprint));
  return v;
}

// The view: data = the fingerprint array, param = Layout::ViewParam(seed).
// A query's slots, from the view's layout and seed; returns the mixed hash.
// kMultiplied: the hash is remixed with the seed's multiplier (fuse_hash.h;
// seeds >= 1, and every seed of format 2 bytes), else taken as it is (seed
// 0 of format 3): a filter's ops are chosen once, so a query branches on
// neither.
template <class Layout, bool kMultiplied>
inline uint64_t SlotsOf(const FilterView& view, uint64_t hash, uint32_t* pos) {
  const uint64_t h = kMultiplied ? MultipliedHash(hash, Layout::SeedOf(view.param)) : hash;
  Layout::ViewPositions(view.param, h, pos);
  return h;
}

template <class Layout, class Fingerprint, bool kMultiplied>
bool ViewMayContain(const FilterView& view, uint64_t hash) {
  const auto* data = static_cast<const unsigned char*>(view.data);
  uint32_t pos[Layout::kArity];
  Fingerprint x = FingerprintOf<Fingerprint>(SlotsOf<Layout, kMultiplied>(view, hash, pos));
  for (int j = 0; j < Layout::kArity; ++j) x ^= LoadFingerprint<Fingerprint>(data, pos[j]);
  return x == 0;
}

template <class Layout, class Fingerprint, bool kMultiplied>
void ViewPrefetch(const FilterView& view, uint64_t hash) {
  const auto* data = static_cast<const unsigned char*>(view.data);
  uint32_t pos[Layout::kArity];
  SlotsOf<Layout, kMultiplied>(view, hash, pos);
  for (int j = 0; j < Layout::kArity; ++j) __builtin_prefetch(data + size_t{pos[j]} * sizeof(Fingerprint));
}

// Per chunk of queries: every slot computed and prefetched, then read.
template <class Layout, class Fingerprint, bool kMultiplied>
void ViewMayContainBatch(const FilterView& view, const uint64_t* hashes, size_t n, bool* results) {
  constexpr size_t kChunk = 32;
  constexpr int kArity = Layout::kArity;
  const auto* data = static_cast<const unsigned char*>(view.data);
  uint32_t pos[kChunk][kArity];
  Fingerprint expect[kChunk];
  for (size_t start = 0; start < n; start += kChunk) {
    const size_t m = n - start < kChunk ? n - start : kChunk;
    for (size_t i = 0; i < m; ++i) {
      expect[i] = FingerprintOf<Fingerprint>(SlotsOf<Layout, kMultiplied>(view, hashes[start + i], pos[i]));
      for (int j = 0; j < kArity; ++j) __builtin_prefetch(data + size_t{pos[i][j]} * sizeof(Fingerprint));
    }
    for (size_t i = 0; i < m; ++i) {
      Fingerprint x = expect[i];
      for (int j = 0; j < kArity; ++j) x ^= LoadFingerprint<Fingerprint>(data, pos[i][j]);
      results[start + i] = x == 0;
    }
  }
}

template <class Layout, class Fingerprint, bool kMultiplied>
inline constexpr FilterView::Ops kOps{&ViewMayContain<Layout, Fingerprint, kMultiplied>,
                                      &ViewPrefetch<Layout, Fingerprint, kMultiplied>,
                                      &ViewMayContainBatch<Layout, Fingerprint, kMultiplied>};

// The layout text names the slot and fingerprint mixing of fuse_hash.h as
// format=N. Bytes are only readable with the mixing that built them: read with
// another, a stored key's slots and fingerprint differ and the filter answers
// "absent" for keys it holds. So any change to that mixing bumps kPeeledFormat,
// and a reader refuses bytes of a format it does not know (CheckPeeledFormat)
// instead of answering wrong. format=2: every seed's slots from hash x (odd
// base + seed x even step); format=3: the same for seeds >= 1, seed 0 from
// the hash itself; format=4 (written now): format 3, except XOR's third slot
// (the second base-B digit of the hash: xor_filter.cc) and 4-wise binary
// fuse's third offset (the mixed hash's bits 16..31 while segments are at
// most 2^16 slots: binary_fuse_filter.cc), each saving the query a multiply.
// All three are read. Bytes without format= came from earlier mixings and
// are refused: rebuild them.
inline constexpr int kPeeledFormat = 4;
inline constexpr int kOldestPeeledFormat = 2;

// Whether a filter of `format` built with `seed` remixes its hashes with the
// seed's multiplier (fuse_hash.h: MultipliedHash), as its reader must.
inline bool MultipliesSeed(int format, uint32_t seed) { return seed != 0 || format < 3; }

// Reads format= into *format (kOldestPeeledFormat..kPeeledFormat).
inline Status CheckPeeledFormat(FilterSpec& layout, const char* family, int* format_out) {
  if (!layout.Has("format")) {
    return Status::Corruption(std::string(family) + " filter layout '" + layout.text() +
                              "' has no format= (written by a filterlab before format " +
                              std::to_string(kPeeledFormat) +
                              ", with another slot mixing, which this reader cannot answer for): rebuild the filter");
  }
  long long format = 0;
  Status s = layout.GetInt("format", kPeeledFormat, 1LL, 1LL << 20, &format);
  if (!s.ok()) return Status::Corruption(std::string(family) + " filter layout: " + s.message());
  if (format < kOldestPeeledFormat || format > kPeeledFormat) {
    return Status::Corruption(std::string(family) + " filter layout '" + layout.text() + "': format " +
                              std::to_string(format) + ", this reader reads formats " +
                              std::to_string(kOldestPeeledFormat) + " to " + std::to_string(kPeeledFormat) +
                              " only: rebuild the filter");
  }
  *format_out = static_cast<int>(format);
  return Status::OK();
}

template <class Layout, class Fingerprint>
class PeeledFilter final : public Filter {
 public:
  // A built filter owning its array (format kPeeledFormat).
  PeeledFilter(const Layout& layout, uint32_t seed, CacheAlignedArray<Fingerprint> owned)
      : PeeledFilter(layout, seed, kPeeledFormat, std::move(owned), nullptr) {}
  // A filter reading the caller's bytes of `format` in place (any alignment).
  PeeledFilter(const Layout& layout, uint32_t seed, int format, const unsigned char* bytes)
      : PeeledFilter(layout, seed, format, CacheAlignedArray<Fingerprint>(), bytes) {}

  bool MayContain(uint64_t hash) const override { return view_.MayContain(hash); }
  void MayContainBatch(const uint64_t* hashes, size_t n, bool* results) const override {
    view_.MayContainBatch(hashes, n, results);
  }
  void Prefetch(uint64_t hash) const override { view_.Prefetch(hash); }
  FilterView View() const override { return view_; }
  size_t DataBytes() const override { return layout_.num_slots() * sizeof(Fingerprint); }
  void Serialize(std::string* out) const override {
    AppendWithFilterlabTrailer(Slice(reinterpret_cast<const char*>(bytes_), DataBytes()), Describe(), out);
  }
  using Filter::Serialize;
  // e.g. "binary_fuse:arity=3,fingerprint=8,hash=64,format=3,seed=0,segment_length=8192,segment_count=136";
  // the format of the bytes (an opened format 2 filter stays format 2).
  std::string Describe() const override {
    return layout_.DescribePrefix() + "fingerprint=" + std::to_string(8 * sizeof(Fingerprint)) +
           ",hash=64,format=" + std::to_string(format_) + ",seed=" + std::to_string(seed_) + "," +
           layout_.DescribeSize();
  }
  HashWidth hash_width() const override { return HashWidth::k64; }

 private:
  PeeledFilter(const Layout& layout, uint32_t seed, int format, CacheAlignedArray<Fingerprint> owned,
               const unsigned char* bytes)
      : layout_(layout),
        seed_(seed),
        format_(format),
        owned_(std::move(owned)),
        bytes_(bytes != nullptr ? bytes : reinterpret_cast<const unsigned char*>(owned_.data())),
        view_{layout.num_slots() == 0        ? &kEmptyViewOps
              : MultipliesSeed(format, seed) ? QueryOps<true>(layout)
                                             : QueryOps<false>(layout),
              bytes_, layout.ViewParam(seed)} {}

  // The layout's own ops where it has them (binary fuse: a query per
  // segment length), else the generic ones above.
  template <bool kMultiplied>
  static const FilterView::Ops* QueryOps(const Layout& layout) {
    if constexpr (requires { Layout::template QueryOps<Fingerprint, kMultiplied>(layout); }) {
      return Layout::template QueryOps<Fingerprint, kMultiplied>(layout);
    } else {
      return &kOps<Layout, Fingerprint, kMultiplied>;
    }
  }

  Layout layout_;
  uint32_t seed_;
  int format_;
  CacheAlignedArray<Fingerprint> owned_;  // empty when viewing the caller's bytes
  const unsigned char* bytes_;
  FilterView view_;
};

// Spec: the family's parameters + fingerprint=8|16, hash=64 (canonical text
// made by the family's Create). XXH3_64 of the key, as the other variants.
template <class Layout>
class PeeledPolicy final : public FilterPolicy {
 public:
  PeeledPolicy(std::string spec, int fingerprint_bits) : spec_(std::move(spec)), fingerprint_bits_(fingerprint_bits) {}

  const std::string& spec() const override { return spec_; }
  std::string_view variant() const override { return Layout::kVariant; }
  HashWidth hash_width() const override { return HashWidth::k64; }
  // The layout's bits/key for large n: fingerprint bits x slots per key
  // (XOR8 9.84, binary fuse8 9.0 3-wise, 8.6 4-wise). Smaller filters use
  // more (a fixed +32 slots for XOR; binary fuse's size factor grows below
  // ~10^6 keys, and whole segments round it up); DataBytes() is exact.
  double bits_per_key() const override { return fingerprint_bits_ * Layout::kSlotsPerKey; }

  uint64_t HashKey(Slice key) const override { return XXH3_64(key.data(), key.size()); }

  Status Build(const uint64_t* hashes, size_t n, std::unique_ptr<Filter>* out) const override {
    if (n > Layout::kMaxKeys) {
      return Status::InvalidArgument("filter spec '" + spec_ + "': " + std::to_string(n) + " keys, above the " +
                                     std::string(Layout::kVariant) + " limit of " + std::to_string(Layout::kMaxKeys) +
                                     " (slot indices are 32-bit)");
    }
    return fingerprint_bits_ == 8 ? BuildAs<uint8_t>(hashes, n, out) : BuildAs<uint16_t>(hashes, n, out);
  }

  // peeling.h's count: 9 bytes per key and 13 per slot, plus the counting
  // pass's bucket starts (8 bytes per ~256 keys).
  uint64_t BuildTemporaryBytes(size_t n) const override {
    if (n == 0 || n > Layout::kMaxKeys) return 0;
    return 9 * uint64_t{n} + 13 * uint64_t{Layout::For(n).num_slots()} + 8 * (uint64_t{n} / 256 + 1);
  }

  // 2^-f for any n > 0 (see the top of this file), + equal 64-bit hashes.
  double ModelFpRate(size_t n) const override {
    const double per_query = std::ldexp(1.0, -fingerprint_bits_);
    return fpmodel::NarrowHashFpRate(static_cast<double>(n), 64, [per_query](double) { return per_query; });
  }

 private:
  template <class Fingerprint>
  Status BuildAs(const uint64_t* hashes, size_t n, std::unique_ptr<Filter>* out) const {
    Peeled<Layout, Fingerprint> peeled;
    Status s = BuildByPeeling<Fingerprint>(
        hashes, n, [](size_t keys, uint32_t seed) { return Layout::For(GrownKeys(keys, seed)); }, kMaxAttempts,
        "filter spec '" + spec_ + "'", &peeled);
    if (!s.ok()) return s;
    *out =
        std::make_unique<PeeledFilter<Layout, Fingerprint>>(peeled.layout, peeled.seed, std::move(peeled.fingerprints));
    return Status::OK();
  }

  std::string spec_;
  int fingerprint_bits_;
};

// A reader's last step once the family has parsed its layout text: the data
// must be exactly the layout's array.
template <class Layout>
Status OpenPeeled(const Layout& layout, uint32_t seed, int format, int fingerprint_bits, const std::string& layout_text,
                  Slice data, std::unique_ptr<Filter>* out) {
  const size_t want = layout.num_slots() * static_cast<size_t>(fingerprint_bits / 8);
  if (data.size() != want) {
    return Status::Corruption(std::string(Layout::kVariant) + " filter data is " + std::to_string(data.size()) +
                              " bytes; layout '" + layout_text + "' needs " + std::to_string(want));
  }
  const auto* bytes = reinterpret_cast<const unsigned char*>(data.data());
  if (fingerprint_bits == 8) {
    *out = std::make_unique<PeeledFilter<Layout, uint8_t>>(layout, seed, format, bytes);
  } else {
    *out = std::make_unique<PeeledFilter<Layout, uint16_t>>(layout, seed, format, bytes);
  }
  return Status::OK();
}

}  // namespace filterlab::fuse
