// Binary fuse filters (Graf & Lemire, "Binary Fuse Filters: Fast and Smaller
// Than Xor Filters", 2022): `binary_fuse:arity=3|4,fingerprint=8|16`. The
// fingerprint array is cut into segments of L = 2^k slots; a key picks a
// window of `arity` consecutive segments (its first slot anywhere in the
// first segment_count segments) and one slot in each, and the array is
// filled by peeling (peeling.h) as for XOR filters. Keeping each key's slots
// in consecutive segments is what lets the array be smaller than XOR's 1.23 n:
// the hypergraph peels from both ends inwards (the "fuse" effect).
//
// Sizing, the paper's formulas for n keys (natural logs):
//   3-wise: L = 2^floor(ln n / ln 3.33 + 2.25),
//           size factor = max(1.125, 0.875 + 0.25 ln(10^6) / ln n);
//   4-wise: L = 2^floor(ln n / ln 2.91 - 0.5),
//           size factor = max(1.075, 0.77 + 0.305 ln(6 10^5) / ln n);
//   L at most 2^18; capacity = n x size factor;
//   segment_count = ceil(capacity / L) - (arity - 1), at least 1;
//   slots = (segment_count + arity - 1) L.
// Not the paper's: n below 2 is sized as 2 (ln 1 = 0), and L is at least 4,
// so that the tiny filters of few keys still have distinct slot choices.
// At 10^6 keys: 3-wise 9.04 bits/key at 8 bits (L = 8192, 138 segments),
// 4-wise 8.62 (L = 4096, 263 segments); FP 2^-f (peeled_filter.h).
//
// A key's slots: h0 = multiply-high(mixed hash, segment_count L) in the first
// segment_count segments, then h0 + i L (i < arity) with its offset inside
// that segment XORed with an independent offset, so slot i lies in the i-th
// segment after h0's: offsets 1 and 2 from bits 46..63 and 28..45 of one
// product (SlotBits1); L <= 2^18, so no offset reads below bit 28. Offset 3
// (4-wise), format 4: while L <= 2^16, bits 16..31 of the mixed hash itself,
// which neither the fingerprint (bits 0..7 or 0..15) nor h0 reads (h0 is the
// top of hash x range, range < 2^32: bits 32..63, the lower half adding at
// most a carry), so it is as independent of both as bits of a uniform hash
// are, and a query spends no multiply on it; from 2^17 the top of a second
// product (SlotBits2). Formats 2 and 3 took offset 3 from SlotBits2 at every
// L; their 4-wise bytes are read with that rule (kFormat3Offsets).
//
// The query (FixedLengthMayContain): one query function per segment length,
// so L and the segments' distances are constants; for a seed-0 filter
// (fuse_hash.h) one mulx places the first slot, one multiply gives the
// offsets, then three or four byte loads: 16 instructions 3-wise, 25 4-wise
// (26 with format 3's second multiply; fingerprint 8, L = 256, the Release
// build: GCC -O3 -march=native on the Zen 4 host; objdump -d
// build/sim/filterlab-sim). Measured figures beside FastLocalBloom's:
// paper/results/speed_rocksdb (`hot` column).
#include <algorithm>
#include <cmath>
#include <memory>
#include <string>
#include <utility>

#include "filters/filter.h"
#include "filters/fuse/peeled_filter.h"
#include "filters/registry.h"
#include "hashing/fastrange.h"

namespace filterlab::fuse {
namespace {

constexpr int kMaxLog2SegmentLength = 18;
constexpr int kMinLog2SegmentLength = 2;

// Offset 3 (4-wise) comes from the mixed hash's bits 16..31 up to this
// segment length, from SlotBits2 above it (format 4; see the top).
constexpr int kMaxLog2LengthOfHashOffset = 16;

// kFormat3Offsets: 4-wise bytes of formats 2 and 3, whose offset 3 is
// SlotBits2's at every L (read, never built).
template <int kArityValue, bool kFormat3Offsets = false>
struct FuseLayout {
  static_assert(kArityValue == 3 || kArityValue == 4);
  static_assert(kArityValue == 4 || !kFormat3Offsets, "3-wise slots are the same in every format");
  static constexpr int kArity = kArityValue;
  static constexpr const char* kVariant = "binary_fuse";
  static constexpr double kSlotsPerKey = kArity == 3 ? 1.125 : 1.075;
  static constexpr size_t kMaxKeys = 3'000'000'000;  // x size factor + segments < 2^32 slots
  static constexpr uint64_t kMaxSlots = uint64_t{1} << 32;

  int log2_segment_length = kMinLog2SegmentLength;
  uint64_t segment_count = 0;  // 0: no keys, no slots

  static FuseLayout For(size_t keys) {
    if (keys == 0) return FuseLayout{};
    const double n = std::max(2.0, static_cast<double>(keys));
    const double log_n = std::log(n);
    const double k = kArity == 3 ? log_n / std::log(3.33) + 2.25 : log_n / std::log(2.91) - 0.5;
    const int log2_length = std::clamp(static_cast<int>(std::floor(k)), kMinLog2SegmentLength, kMaxLog2SegmentLength);
    const double factor = kArity == 3 ? std::max(1.125, 0.875 + 0.25 * std::log(1e6) / log_n)
                                      : std::max(1.075, 0.77 + 0.305 * std::log(6e5) / log_n);
    const auto capacity = static_cast<uint64_t>(std::llround(n * factor));
    const uint64_t length = uint64_t{1} << log2_length;
    const uint64_t segments = (capacity + length - 1) / length;
    const uint64_t count = segments > kArity - 1 ? segments - (kArity - 1) : 1;
    return FuseLayout{log2_length, count};
  }

  uint64_t segment_length() const { return uint64_t{1} << log2_segment_length; }
  size_t num_slots() const {
    return segment_count == 0 ? 0 : static_cast<size_t>((segment_count + kArity - 1) * segment_length());
  }

  void Positions(uint64_t h, uint32_t* pos) const {
    PositionsIn(segment_count * segment_length(), log2_segment_length, h, pos);
  }
  // The slots of mixed hash h in a layout of `range` = segment_count x L
  // first-slot positions and segments of 2^log2_length slots.
  static void PositionsIn(uint64_t range, int log2_length, uint64_t h, uint32_t* pos) {
    const uint64_t length = uint64_t{1} << log2_length;
    const uint64_t h0 = FastRange64(h, range);
    const Offsets o = OffsetsOf(h, log2_length);
    pos[0] = static_cast<uint32_t>(h0);
    for (int i = 1; i < kArity; ++i) pos[i] = static_cast<uint32_t>((h0 + i * length) ^ o.of[i]);
  }
  // Slot i's offset inside its segment (i >= 1; each < L), the one place
  // the offsets are defined: Positions and the fixed-length queries (where
  // log2_length is a constant and the shifts and masks fold) both take them
  // from here.
  struct Offsets {
    uint64_t of[kArity];
  };
  static Offsets OffsetsOf(uint64_t h, int log2_length) {
    const uint64_t mask = (uint64_t{1} << log2_length) - 1;
    const uint64_t d = SlotBits1(h);
    Offsets o{};
    o.of[1] = (d >> 46) & mask;
    o.of[2] = (d >> 28) & mask;
    if constexpr (kArity == 4) {
      o.of[3] = !kFormat3Offsets && log2_length <= kMaxLog2LengthOfHashOffset ? (h >> 16) & mask
                                                                              : (SlotBits2(h) >> 46) & mask;
    }
    return o;
  }
  // Positions from the view's param directly: segment_count x L is its low
  // 32 bits, so no shift down to the count and back up per query.
  static void ViewPositions(uint64_t param, uint64_t h, uint32_t* pos) {
    PositionsIn(param & 0xffffffffu, static_cast<int>((param >> 32) & 0xff), h, pos);
  }

  // A query with the segment length a constant: L, its mask and the
  // segments' distances from the array's start become immediates and
  // address displacements, so a query spends nothing on them. Slot i =
  // (h0 + i L) ^ offset_i = (h0 ^ offset_i) + i L (the offset, < L, changes
  // bits below L only, adding i L bits from L up): the same slots as
  // Positions. 17 lengths x arity x fingerprint x seed mixing; the ops
  // pick one per filter.
  template <class Fingerprint, bool kMultiplied, int kLog2Length>
  static bool FixedLengthMayContain(const FilterView& view, uint64_t hash) {
    constexpr uint64_t kLength = uint64_t{1} << kLog2Length;
    const auto* data = static_cast<const unsigned char*>(view.data);
    const uint64_t h = kMultiplied ? MultipliedHash(hash, SeedOf(view.param)) : hash;
    const uint64_t h0 = MulHi(h, static_cast<uint32_t>(view.param));  // FastRange64 over segment_count x L
    const Offsets o = OffsetsOf(h, kLog2Length);
    auto at = [data](uint64_t slot) { return LoadFingerprintAt<Fingerprint>(data, slot); };
    Fingerprint x =
        FingerprintOf<Fingerprint>(h) ^ at(h0) ^ at(kLength + (h0 ^ o.of[1])) ^ at(2 * kLength + (h0 ^ o.of[2]));
    if constexpr (kArity == 4) x ^= at(3 * kLength + (h0 ^ o.of[3]));
    return x == 0;
  }
  template <class Fingerprint, bool kMultiplied, int kLog2Length>
  static constexpr FilterView::Ops kFixedLengthOps{&FixedLengthMayContain<Fingerprint, kMultiplied, kLog2Length>,
                                                   &ViewPrefetch<FuseLayout, Fingerprint, kMultiplied>,
                                                   &ViewMayContainBatch<FuseLayout, Fingerprint, kMultiplied>};
  template <class Fingerprint, bool kMultiplied, int... kLog2>
  static const FilterView::Ops* FixedLengthOps(int log2_length, std::integer_sequence<int, kLog2...>) {
    static constexpr const FilterView::Ops* kTable[] = {
        &kFixedLengthOps<Fingerprint, kMultiplied, kMinLog2SegmentLength + kLog2>...};
    return kTable[log2_length - kMinLog2SegmentLength];
  }
  template <class Fingerprint, bool kMultiplied>
  static const FilterView::Ops* QueryOps(const FuseLayout& layout) {
    return FixedLengthOps<Fingerprint, kMultiplied>(
        layout.log2_segment_length,
        std::make_integer_sequence<int, kMaxLog2SegmentLength - kMinLog2SegmentLength + 1>());
  }

  std::string DescribePrefix() const { return "binary_fuse:arity=" + std::to_string(kArity) + ","; }
  std::string DescribeSize() const {
    return "segment_length=" + std::to_string(segment_length()) + ",segment_count=" + std::to_string(segment_count);
  }

  // segment_count x L (< 2^32) in the low 32 bits, log2 L at bit 32, the
  // seed (< 256) from bit 40.
  uint64_t ViewParam(uint32_t seed) const {
    return segment_count * segment_length() | uint64_t(log2_segment_length) << 32 | uint64_t{seed} << 40;
  }
  static FuseLayout FromViewParam(uint64_t param) {
    const int log2_length = static_cast<int>((param >> 32) & 0xff);
    return FuseLayout{log2_length, (param & 0xffffffffu) >> log2_length};
  }
  static uint32_t SeedOf(uint64_t param) { return static_cast<uint32_t>(param >> 40); }
};

Status CreateBinaryFusePolicy(FilterSpec& spec, std::unique_ptr<FilterPolicy>* out) {
  std::string arity, fingerprint;
  HashWidth width;
  Status s = spec.GetChoice("arity", "3", {"3", "4"}, &arity);
  if (s.ok()) s = spec.GetChoice("fingerprint", "8", {"8", "16"}, &fingerprint);
  if (s.ok()) s = spec.GetHashWidth(HashWidth::k64, {HashWidth::k64}, &width);
  if (s.ok()) s = spec.Finish({"arity", "fingerprint", "hash"});
  if (!s.ok()) return s;
  std::string canonical = "binary_fuse:arity=" + arity + ",fingerprint=" + fingerprint + ",hash=64";
  if (arity == "3") {
    *out = std::make_unique<PeeledPolicy<FuseLayout<3>>>(std::move(canonical), std::stoi(fingerprint));
  } else {
    *out = std::make_unique<PeeledPolicy<FuseLayout<4>>>(std::move(canonical), std::stoi(fingerprint));
  }
  return Status::OK();
}

template <int kArity, bool kFormat3Offsets = false>
Status OpenFuse(int log2_length, uint64_t segment_count, uint32_t seed, int format, int fingerprint_bits,
                const std::string& text, Slice data, std::unique_ptr<Filter>* out) {
  using Layout = FuseLayout<kArity, kFormat3Offsets>;
  const Layout layout{log2_length, segment_count};
  if (segment_count != 0 && (segment_count + kArity - 1) * layout.segment_length() > Layout::kMaxSlots) {
    return Status::Corruption("binary_fuse filter layout '" + text + "' has more than 2^32 slots");
  }
  return OpenPeeled(layout, seed, format, fingerprint_bits, text, data, out);
}

// Reads "binary_fuse:arity=A,fingerprint=F,hash=64,format=2|3|4,seed=S,segment_length=L,
// segment_count=C" + (C + A - 1) L fingerprints, in place at any alignment.
Status OpenBinaryFuseLayout(FilterSpec& layout, Slice data, std::unique_ptr<Filter>* out) {
  static constexpr const char* kKeys[] = {"arity", "fingerprint", "hash", "seed", "segment_length", "segment_count"};
  for (const char* key : kKeys) {
    if (!layout.Has(key)) {
      return Status::Corruption("binary_fuse filter layout '" + layout.text() + "' lacks '" + key +
                                "' (expected arity, fingerprint, hash, seed, segment_length, segment_count)");
    }
  }
  int format = 0;
  if (Status f = CheckPeeledFormat(layout, "binary_fuse", &format); !f.ok()) return f;
  std::string arity, fingerprint;
  HashWidth width;
  long long seed = 0, length = 0, count = 0;
  Status s = layout.GetChoice("arity", "3", {"3", "4"}, &arity);
  if (s.ok()) s = layout.GetChoice("fingerprint", "8", {"8", "16"}, &fingerprint);
  if (s.ok()) s = layout.GetHashWidth(HashWidth::k64, {HashWidth::k64}, &width);
  if (s.ok()) s = layout.GetInt("seed", 0LL, 0LL, 255LL, &seed);
  if (s.ok()) {
    s = layout.GetInt("segment_length", 4LL, 1LL << kMinLog2SegmentLength, 1LL << kMaxLog2SegmentLength, &length);
  }
  if (s.ok()) s = layout.GetInt("segment_count", 0LL, 0LL, 1LL << 32, &count);
  if (s.ok()) s = layout.Finish({"arity", "fingerprint", "hash", "format", "seed", "segment_length", "segment_count"});
  if (!s.ok()) return Status::Corruption("binary_fuse filter layout: " + s.message());
  if ((length & (length - 1)) != 0) {
    return Status::Corruption("binary_fuse filter layout '" + layout.text() + "': segment_length " +
                              std::to_string(length) + " is not a power of two");
  }
  const int log2_length = __builtin_ctzll(static_cast<unsigned long long>(length));
  const auto segments = static_cast<uint64_t>(count);
  const auto open = arity == "3" ? &OpenFuse<3> : format >= 4 ? &OpenFuse<4> : &OpenFuse<4, /*kFormat3Offsets=*/true>;
  return open(log2_length, segments, static_cast<uint32_t>(seed), format, std::stoi(fingerprint), layout.text(), data,
              out);
}

}  // namespace

FILTERLAB_REGISTER_FILTER(FilterVariant{
    "binary_fuse",
    "Binary fuse filter (Graf & Lemire 2022): 1.075-1.125 fingerprints per key, 3 or 4 reads per query, FP "
    "2^-fingerprint; static",
    "arity=3|4 (default 3) fingerprint=8|16 (default 8) hash=64; no bpk: bits/key follow from arity and "
    "fingerprint (8 bits: 9.0 3-wise, 8.6 4-wise)",
    &CreateBinaryFusePolicy,
    &OpenBinaryFuseLayout,
    nullptr,
    {"binary_fuse:arity=3,fingerprint=8", "binary_fuse:arity=4,fingerprint=8", "binary_fuse:arity=3,fingerprint=16",
     "binary_fuse:arity=4,fingerprint=16"},
    FpModelKind::kExact,
    nullptr,
    /*has_probes=*/false});

}  // namespace filterlab::fuse
