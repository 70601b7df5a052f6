// The "legacy" variant: RocksDB's format_version 2..4 full filter (math,
// format and FP model in legacy_bloom.h).
#include "filters/legacy_bloom.h"

#include <algorithm>
#include <cstring>
#include <string>
#include <utility>

#include "common/aligned_array.h"
#include "filters/fp_model.h"
#include "filters/legacy_bloom_avx2.h"
#include "filters/legacy_bloom_avx512.h"
#include "filters/legacy_policy.h"
#include "filters/registry.h"
#include "hashing/fastmod.h"

#if defined(__BMI__)
#include <immintrin.h>
#endif

namespace filterlab::legacy {

namespace {

// The word index (h >> 6) & 7 is one BMI1 bextr where the target has it
// (GCC otherwise copies h, shifts and masks: three instructions a probe):
// sim speed legacy:bpk=10's Build alone 4.42 -> 3.89 ns/key with it (5
// interleaved rounds, this project's AMD EPYC).
inline uint32_t WordOfLine(uint32_t h) {
#if defined(__BMI__)
  return _bextr_u32(h, 6, 3);
#else
  return (h >> 6) & 7;
#endif
}

// AddToLine<false> on a 64-byte line seen as eight little-endian u64 words:
// bit b of the line (byte b / 8, bit b % 8) is bit b % 64 of word b / 64 on
// a little-endian host (CMake checks), so a probe is a shift and one OR into
// memory instead of a byte read-modify-write with two masks, and with the
// probe count fixed (kFixedProbes > 0) the loop is unrolled: ~6 instructions
// a probe instead of ~12. Same bits as AddToLine (legacy_bloom_test.cc
// compares every probe count 1..30).
template <int kFixedProbes>
inline void AddToLine64Words(uint32_t h, int num_probes, uint8_t* line) {
  const int probes = kFixedProbes > 0 ? kFixedProbes : num_probes;
  const uint32_t delta = RotateRight32(h, 17);
  for (int i = 0; i < probes; ++i) {
    uint8_t* word_at = line + size_t{WordOfLine(h)} * 8;
    uint64_t word;
    std::memcpy(&word, word_at, 8);
    word |= uint64_t{1} << (h & 63);
    std::memcpy(word_at, &word, 8);
    h += delta;
  }
}

// kPrefetch: the line of hash i + kDepth is located (two multiplies) and
// prefetched while hash i is added, so that many misses overlap; for a filter
// that fits the L2 cache (the filter_bench working set's ~12 KiB filters)
// the prefetches would only cost instructions, so they are left out.
template <int kFixedProbes, bool kPrefetch>
void AddAllFastMod(const uint64_t* hashes, size_t n, uint32_t num_lines, int num_probes, uint8_t* data) {
  constexpr size_t kDepth = 16;
  const uint64_t c = FastMod32::Multiplier(num_lines);
  auto line_of = [&](uint64_t hash) {
    return data + (size_t{FastMod32::Mod(Lower32(hash), num_lines, c)} << kLog2LineBytes);
  };
  for (size_t i = 0; i < n; ++i) {
    if constexpr (kPrefetch) {
      if (i + kDepth < n) __builtin_prefetch(line_of(hashes[i + kDepth]), 1, 3);
    }
    AddToLine64Words<kFixedProbes>(Lower32(hashes[i]), num_probes, line_of(hashes[i]));
  }
}

// Filters above this many lines are built with prefetches (256 KiB: an L2 of
// today's x86 cores or more).
constexpr uint32_t kPrefetchAboveLines = (256 << 10) >> kLog2LineBytes;

template <int kFixedProbes>
void AddAllForProbes(const uint64_t* hashes, size_t n, uint32_t num_lines, int num_probes, uint8_t* data) {
  if (num_lines > kPrefetchAboveLines) return AddAllFastMod<kFixedProbes, true>(hashes, n, num_lines, num_probes, data);
  AddAllFastMod<kFixedProbes, false>(hashes, n, num_lines, num_probes, data);
}

}  // namespace

void AddAll(const uint64_t* hashes, size_t n, uint32_t num_lines, int num_probes, uint8_t* data) {
  if (n == 0) return;                         // no lines either
  if (num_lines <= FastMod32::kMaxDivisor) {  // the line by two multiplies (hashing/fastmod.h)
    switch (num_probes) {                     // ChooseNumProbes gives 4..8 at 6..12 bits/key
      case 4: return AddAllForProbes<4>(hashes, n, num_lines, num_probes, data);
      case 5: return AddAllForProbes<5>(hashes, n, num_lines, num_probes, data);
      case 6: return AddAllForProbes<6>(hashes, n, num_lines, num_probes, data);
      case 7: return AddAllForProbes<7>(hashes, n, num_lines, num_probes, data);
      case 8: return AddAllForProbes<8>(hashes, n, num_lines, num_probes, data);
      default: return AddAllForProbes<0>(hashes, n, num_lines, num_probes, data);
    }
  }
  for (size_t i = 0; i < n; ++i) {
    const uint32_t h = Lower32(hashes[i]);
    AddToLine64Words<0>(h, num_probes, data + LineOffset<false>(h, num_lines, kLog2LineBytes));
  }
}

namespace {

constexpr char kVariantName[] = "legacy";

// The FilterView of a legacy filter: data = the bit array, param = what
// finds and probes a line, so a caller holding views (the speed harness's
// random-filter modes, a pipelined caller) reaches the line without touching
// the Filter object: one dependent miss per query instead of two (object,
// then line). Two layouts of param:
// - compact (64-byte lines, at most FastMod32::kMaxDivisor = 65535 lines, a
//   4 MiB filter, ~3.3M keys at 10 bits/key): c | num_lines << 34 |
//   num_probes << 50, the line h % num_lines found by FastMod32 (two
//   multiplies, hashing/fastmod.h) with its multiplier c kept here;
// - general (any line size and count): num_lines | num_probes << 32 |
//   log2_line_bytes << 40, the line found by a division.
// Either probes with a vector kernel on 64-byte lines where one is compiled
// (legacy_bloom_avx512.h, else legacy_bloom_avx2.h), else with RocksDB's loop.
enum class ViewLayout { kCompact, kGeneral };

constexpr int kCompactLinesShift = FastMod32::kMultiplierBits;
constexpr int kCompactProbesShift = kCompactLinesShift + 16;
static_assert(kCompactProbesShift + 5 <= 64 && kMaxProbes < 32, "compact view param fits 64 bits");

bool FitsCompactView(uint32_t num_lines, int log2_line_bytes) {
  return log2_line_bytes == kLog2LineBytes && num_lines <= FastMod32::kMaxDivisor;
}
uint64_t ViewParam(ViewLayout layout, uint32_t num_lines, int num_probes, int log2_line_bytes) {
  const auto probes = static_cast<uint64_t>(static_cast<uint8_t>(num_probes));
  if (layout == ViewLayout::kCompact) {
    return FastMod32::Multiplier(num_lines) | uint64_t{num_lines} << kCompactLinesShift | probes << kCompactProbesShift;
  }
  return uint64_t{num_lines} | probes << 32 | uint64_t(static_cast<uint8_t>(log2_line_bytes)) << 40;
}
template <ViewLayout kLayout>
inline int ViewProbes(const FilterView& view) {
  return kLayout == ViewLayout::kCompact ? static_cast<int>(view.param >> kCompactProbesShift)
                                         : static_cast<uint8_t>(view.param >> 32);
}
template <ViewLayout kLayout>
inline int ViewLog2LineBytes(const FilterView& view) {
  return kLayout == ViewLayout::kCompact ? kLog2LineBytes : static_cast<uint8_t>(view.param >> 40);
}
template <ViewLayout kLayout>
inline const uint8_t* ViewLine(const FilterView& view, uint32_t h) {
  const auto* data = static_cast<const uint8_t*>(view.data);
  if constexpr (kLayout == ViewLayout::kCompact) {
    const auto num_lines = static_cast<uint32_t>(view.param >> kCompactLinesShift) & 0xffff;
    const uint64_t c = view.param & ((uint64_t{1} << FastMod32::kMultiplierBits) - 1);
    return data + (size_t{FastMod32::Mod(h, num_lines, c)} << kLog2LineBytes);
  }
  return data + LineOffset<false>(h, static_cast<uint32_t>(view.param), ViewLog2LineBytes<kLayout>(view));
}

// The probes of h in its line: a branch-free vector kernel where lines are
// 64 bytes and the compiler targets AVX-512 or AVX2, else RocksDB's loop,
// which leaves at the first clear bit.
constexpr bool kHasLine64Kernel = kHasAvx512Path || kHasAvx2Path;
template <bool kLine64Kernel>
inline bool MatchLine(uint32_t h, int num_probes, int log2_line_bytes, const uint8_t* line) {
#if defined(FILTERLAB_LEGACY_AVX512)
  if constexpr (kLine64Kernel) return MayMatchLine64Avx512(h, num_probes, line);
#elif defined(FILTERLAB_LEGACY_AVX2)
  if constexpr (kLine64Kernel) return MayMatchLine64Avx2(h, num_probes, line);
#endif
  return MayMatchLine<false>(h, num_probes, log2_line_bytes, line);
}

template <ViewLayout kLayout, bool kLine64Kernel>
bool ViewMayContain(const FilterView& view, uint64_t hash) {
  const uint32_t h = Lower32(hash);
  return MatchLine<kLine64Kernel>(h, ViewProbes<kLayout>(view), ViewLog2LineBytes<kLayout>(view),
                                  ViewLine<kLayout>(view, h));
}
template <ViewLayout kLayout>
void ViewPrefetch(const FilterView& view, uint64_t hash) {
  PrefetchLine(ViewLine<kLayout>(view, Lower32(hash)), ViewLog2LineBytes<kLayout>(view));
}
// Locate and prefetch every line of a chunk first, then probe (the line is
// found once per key; its address is kept).
template <ViewLayout kLayout, bool kLine64Kernel>
void ViewMayContainBatch(const FilterView& view, const uint64_t* hashes, size_t n, bool* results) {
  constexpr size_t kChunk = 64;
  const uint8_t* lines[kChunk];
  const int log2_line_bytes = ViewLog2LineBytes<kLayout>(view);
  const int num_probes = ViewProbes<kLayout>(view);
  for (size_t start = 0; start < n; start += kChunk) {
    const size_t m = std::min(kChunk, n - start);
    for (size_t i = 0; i < m; ++i) {
      lines[i] = ViewLine<kLayout>(view, Lower32(hashes[start + i]));
      PrefetchLine(lines[i], log2_line_bytes);
    }
    for (size_t i = 0; i < m; ++i) {
      results[start + i] = MatchLine<kLine64Kernel>(Lower32(hashes[start + i]), num_probes, log2_line_bytes, lines[i]);
    }
  }
}
template <ViewLayout kLayout, bool kLine64Kernel>
constexpr FilterView::Ops kViewOps{&ViewMayContain<kLayout, kLine64Kernel>, &ViewPrefetch<kLayout>,
                                   &ViewMayContainBatch<kLayout, kLine64Kernel>};

FilterView MakeView(const uint8_t* data, uint32_t num_lines, int num_probes, int log2_line_bytes) {
  if (num_lines == 0) return FilterView{&kEmptyViewOps, data, 0};
  const ViewLayout layout = FitsCompactView(num_lines, log2_line_bytes) ? ViewLayout::kCompact : ViewLayout::kGeneral;
  const FilterView::Ops* ops = layout == ViewLayout::kCompact      ? &kViewOps<ViewLayout::kCompact, kHasLine64Kernel>
                               : log2_line_bytes == kLog2LineBytes ? &kViewOps<ViewLayout::kGeneral, kHasLine64Kernel>
                                                                   : &kViewOps<ViewLayout::kGeneral, false>;
  return FilterView{ops, data, ViewParam(layout, num_lines, num_probes, log2_line_bytes)};
}

class LegacyBloomFilter final : public Filter {
 public:
  // Built (64-byte lines, owns its bits) ...
  LegacyBloomFilter(CacheAlignedArray<uint8_t> bits, uint32_t num_lines, int num_probes)
      : owned_(std::move(bits)),
        data_(owned_.data()),
        num_lines_(num_lines),
        num_probes_(num_probes),
        log2_line_bytes_(kLog2LineBytes),
        view_(MakeView(data_, num_lines_, num_probes_, log2_line_bytes_)) {}
  // ... or a view of bytes the caller keeps alive, with any power-of-two line.
  LegacyBloomFilter(Slice view, uint32_t num_lines, int num_probes, int log2_line_bytes)
      : data_(view.udata()),
        num_lines_(num_lines),
        num_probes_(num_probes),
        log2_line_bytes_(log2_line_bytes),
        view_(MakeView(data_, num_lines_, num_probes_, log2_line_bytes_)) {}

  // One query code path for the object and the view (through the view's ops).
  bool MayContain(uint64_t hash) const override { return view_.MayContain(hash); }
  void Prefetch(uint64_t hash) const override { view_.Prefetch(hash); }
  void MayContainBatch(const uint64_t* hashes, size_t n, bool* results) const override {
    view_.MayContainBatch(hashes, n, results);
  }
  FilterView View() const override { return view_; }

  size_t DataBytes() const override { return static_cast<size_t>(num_lines_) << log2_line_bytes_; }

  void Serialize(std::string* out) const override {
    if (num_lines_ == 0) return;  // RocksDB writes an empty filter for no keys
    out->append(reinterpret_cast<const char*>(data_), DataBytes());
    char trailer[kTrailerBytes];
    trailer[0] = static_cast<char>(num_probes_);
    std::memcpy(trailer + 1, &num_lines_, 4);  // little-endian host (checked in CMake)
    out->append(trailer, kTrailerBytes);
  }

  std::string Describe() const override {
    return std::string(kVariantName) + ":hash=32,probes=" + std::to_string(num_probes_) +
           ",lines=" + std::to_string(num_lines_) + ",line_bytes=" + std::to_string(1 << log2_line_bytes_);
  }

  HashWidth hash_width() const override { return HashWidth::k32; }

 private:
  CacheAlignedArray<uint8_t> owned_;
  const uint8_t* data_;
  uint32_t num_lines_;
  int num_probes_;
  int log2_line_bytes_;
  FilterView view_;
};

class LegacyBloomPolicy final : public LegacyPolicyBase {
 public:
  LegacyBloomPolicy(int millibits_per_key, int num_probes)
      : LegacyPolicyBase(kVariantName, millibits_per_key, num_probes) {}

  Status Build(const uint64_t* hashes, size_t n, std::unique_ptr<Filter>* out) const override {
    const uint32_t lines = n == 0 ? 0 : NumLinesForKeys(n, whole_bits_per_key());
    CacheAlignedArray<uint8_t> bits(size_t{lines} << kLog2LineBytes);
    AddAll(hashes, n, lines, probes(), bits.data());
    *out = std::make_unique<LegacyBloomFilter>(std::move(bits), lines, probes());
    return Status::OK();
  }

  // The exact in-line pattern model (legacy_bloom.h, fpmodel::LegacyLineFpRate)
  // for the distinct 32-bit hashes, with their matches.
  double ModelFpRate(size_t n) const override {
    if (n == 0) return 0.0;
    const double lines = NumLinesForKeys(n, whole_bits_per_key());
    return fpmodel::NarrowHashFpRate(static_cast<double>(n), 32, [&](double distinct) {
      return fpmodel::LegacyLineFpRate(lines, distinct, probes());
    });
  }
};

// Up to 20 probes an approximation: the in-line pattern model is exact for
// independent patterns with the query's own-pattern correction, but takes
// the lattice's patterns near the query's at the average density
// (fp_model_pattern_cover.cc); measured / model 1.00019, 1.00399 (z +13.7),
// 0.99947, 0.99997 at 6, 10, 16, 24 bits/key (model_accuracy: 400 filters
// of 10^6 keys, 10^9 queries per point), so the stated error is 0.4%. Above
// 20 probes the model asks only the first 20 of the query's distinct bits
// to be set: an upper bound.
constexpr double kLegacyModelError = 0.004;
FpModelKind LegacyModelKind(const FilterPolicy& policy) {
  const std::optional<int> k = policy.num_probes();
  return k && *k > fpmodel::kLegacyLineMaxExactProbes ? FpModelKind::kUpperBound : FpModelKind::kApproximation;
}

Status Create(FilterSpec& spec, std::unique_ptr<FilterPolicy>* out) {
  int millibits = 0, probes = 0;
  Status s = ParseLegacySpec(spec, &millibits, &probes);
  if (s.ok()) *out = std::make_unique<LegacyBloomPolicy>(millibits, probes);
  return s;
}

// RocksDB's native form (§2.1): data, then [num_probes][LE32 num_lines].
// Where RocksDB falls back to an always-true reader (no line size fits),
// filterlab reports Corruption naming the field: strict, because an
// unexpected value here means a bug or damaged bytes.
Status OpenNative(Slice bytes, std::unique_ptr<Filter>* out) {
  if (bytes.size() < kTrailerBytes) return Status::NotFound("too short for a legacy Bloom trailer");
  const size_t len = bytes.size() - kTrailerBytes;
  const int probes = static_cast<int8_t>(bytes[len]);
  if (probes < 1) return Status::NotFound("not a legacy Bloom filter (its trailer starts with num_probes >= 1)");
  if (probes > kMaxProbes) {
    return Status::Corruption("legacy Bloom trailer byte at offset " + std::to_string(len) + " (num_probes) is " +
                              std::to_string(probes) + "; allowed: 1..30 (all RocksDB ever writes)");
  }
  uint32_t num_lines = 0;
  std::memcpy(&num_lines, bytes.data() + len + 1, 4);  // little-endian host (checked in CMake)
  if (num_lines == 0) {
    return Status::Corruption("legacy Bloom trailer bytes at offsets " + std::to_string(len + 1) + ".." +
                              std::to_string(len + 4) + " (num_lines) are 0; allowed: 1..2^32-1");
  }
  // Lines are CACHE_LINE_SIZE bytes of the machine that built the filter: 64
  // on x86-64, 128 on aarch64/ppc, 256 on s390x. RocksDB's reader accepts any
  // power of two that makes the length add up, and so does this one.
  int log2_line_bytes = 0;
  while (log2_line_bytes <= kMaxLog2LineBytes && (uint64_t{num_lines} << log2_line_bytes) < len) ++log2_line_bytes;
  if (log2_line_bytes > kMaxLog2LineBytes || (uint64_t{num_lines} << log2_line_bytes) != len) {
    return Status::Corruption("legacy Bloom data length " + std::to_string(len) +
                              " (filter size minus 5-byte trailer) is not num_lines (" + std::to_string(num_lines) +
                              ") times a power-of-two line size of 1..2^29 bytes (64 on x86-64); "
                              "the filter is truncated or corrupted");
  }
  *out = std::make_unique<LegacyBloomFilter>(Slice(bytes.data(), len), num_lines, probes, log2_line_bytes);
  return Status::OK();
}

}  // namespace

std::unique_ptr<Filter> NewLegacyBloomView(Slice data, uint32_t num_lines, int num_probes, int log2_line_bytes) {
  return std::make_unique<LegacyBloomFilter>(data, num_lines, num_probes, log2_line_bytes);
}

FILTERLAB_REGISTER_FILTER(FilterVariant{
    kVariantName,
    "RocksDB format_version<=4 full Bloom: odd count of 64-byte lines, line = h mod lines, 32-bit BloomHash, "
    "bit-exact",
    "bpk=0.5..100 (default 10; used as whole bits, round half up; below 1 raised to 1 as RocksDB does) "
    "probes=1..30 (default floor(0.69*bits) clamped to 1..30) hash=32",
    &Create,
    nullptr,
    &OpenNative,
    {"legacy:bpk=10"},
    FpModelKind::kExact,
    &LegacyModelKind,
    /*has_probes=*/true,
    /*fp_model_max_relative_error=*/kLegacyModelError});

}  // namespace filterlab::legacy
