// XOR filters (Graf & Lemire, "Xor Filters: Faster and Smaller Than Bloom and
// Cuckoo Filters", 2020): `xor:fingerprint=8|16`. An array of c = 1.23 n + 32
// fingerprints in three blocks of c/3; a key's slots are one per block, and
// the array is filled by peeling (peeling.h) so that the XOR of a key's three
// slots is its fingerprint. Three reads per query, 1.23 f bits/key (9.84 at
// 8 bits, 19.68 at 16) at FP 2^-f (peeled_filter.h states the model): 23%
// above the bound log2(1/FP), against Bloom's 44%.
//
// The paper's 1.23 is just above the threshold (~1.222) under which a random
// 3-hypergraph peels completely; the +32 slots keep small filters peelable
// often enough for the seed retries.
//
// A key's slots, one per block of B: for its mixed hash h (fuse_hash.h),
// block 0 at multiply-high(h, B), block 1 at multiply-high(SlotBits1(h), B),
// block 2 (format 4) at multiply-high(low half of h x B, B): the first two
// base-B digits of h / 2^64 and a digit of an independent-looking product.
// The second digit reuses the first's product (mulx gives both halves), so
// a query multiplies four times, not five. The two digits are jointly
// uniform over B^2 up to a relative error of B^2 / 2^64 (2^-20 at 10^7
// keys, B ~ 2^22) and are set by the top ~2 log2 B bits of h, above the
// fingerprint's 8 or 16 low bits until B nears 2^24 (10^7 keys: B = 4.1 M).
// Formats 2 and 3 put block 2's slot at multiply-high(SlotBits2(h), B);
// their bytes are read with that rule (kFormat3Slots).
//
// Construction at 10^7 keys (filterlab_bench
// --benchmark_filter='FuseBuild/xor.*/10000000$', beside fastfilter_cpp's
// bulk-insert-and-query.exe 10000000 0,2 on the shared 2-vCPU Xeon, medians
// of 3 interleaved runs at load 2.7-6.9): XOR8 115 ns/key against its Xor8's
// 148, XOR16 119 against 146. A key's slots lie in three random places, so
// the build is bound by cache misses, which peeling.h prefetches.
#include <cmath>
#include <memory>
#include <string>

#include "filters/filter.h"
#include "filters/fuse/peeled_filter.h"
#include "filters/registry.h"
#include "hashing/fastrange.h"

namespace filterlab::fuse {
namespace {

// kFormat3Slots: bytes of formats 2 and 3 (read, never built).
template <bool kFormat3Slots = false>
struct XorLayout {
  static constexpr int kArity = 3;
  static constexpr const char* kVariant = "xor";
  // A key's three slots are far apart: peeled first in, first out, so
  // that the next keys' slots can be prefetched (peeling.h).
  static constexpr bool kPeelBreadthFirst = true;
  static constexpr double kSlotsPerKey = 1.23;
  static constexpr size_t kMaxKeys = 3'000'000'000;  // 3 blocks < 2^32 slots
  static constexpr uint64_t kMaxBlockLength = (uint64_t{1} << 32) / 3;

  uint64_t block_length = 0;

  // floor(1.23 n) + 32 slots rounded up to whole blocks; no slots for no keys.
  static XorLayout For(size_t keys) {
    if (keys == 0) return XorLayout{};
    const auto capacity = static_cast<uint64_t>(std::floor(1.23 * static_cast<double>(keys))) + 32;
    return XorLayout{(capacity + 2) / 3};
  }

  size_t num_slots() const { return static_cast<size_t>(3 * block_length); }

  void Positions(uint64_t h, uint32_t* pos) const {
    const InBlocks at = InBlocksOf(h, block_length);
    for (int i = 0; i < kArity; ++i) pos[i] = static_cast<uint32_t>(i * block_length + at.of[i]);
  }
  // The key's slot inside each block (each < block), the one place they are
  // defined: Positions and the query take them from here.
  struct InBlocks {
    uint64_t of[kArity];
  };
  static InBlocks InBlocksOf(uint64_t h, uint64_t block) {
    const Product128 first = MulHiLo(h, block);
    return InBlocks{
        {first.high, MulHi(SlotBits1(h), block), kFormat3Slots ? MulHi(SlotBits2(h), block) : MulHi(first.low, block)}};
  }

  static void ViewPositions(uint64_t param, uint64_t h, uint32_t* pos) { FromViewParam(param).Positions(h, pos); }

  // The query: Positions' slots, read through each block's base pointer
  // (data + i B, independent of the hash), with the block length read as
  // the 32 bits it is.
  template <class Fingerprint, bool kMultiplied>
  static bool QueryMayContain(const FilterView& view, uint64_t hash) {
    const uint64_t block = static_cast<uint32_t>(view.param);
    const auto* data = static_cast<const unsigned char*>(view.data);
    const unsigned char* block1 = data + block * sizeof(Fingerprint);
    const unsigned char* block2 = block1 + block * sizeof(Fingerprint);
    const uint64_t h = kMultiplied ? MultipliedHash(hash, SeedOf(view.param)) : hash;
    const InBlocks at = InBlocksOf(h, block);
    const Fingerprint x = FingerprintOf<Fingerprint>(h) ^ LoadFingerprintAt<Fingerprint>(data, at.of[0]) ^
                          LoadFingerprintAt<Fingerprint>(block1, at.of[1]) ^
                          LoadFingerprintAt<Fingerprint>(block2, at.of[2]);
    return x == 0;
  }
  template <class Fingerprint, bool kMultiplied>
  static constexpr FilterView::Ops kQueryOps{&QueryMayContain<Fingerprint, kMultiplied>,
                                             &ViewPrefetch<XorLayout, Fingerprint, kMultiplied>,
                                             &ViewMayContainBatch<XorLayout, Fingerprint, kMultiplied>};
  template <class Fingerprint, bool kMultiplied>
  static const FilterView::Ops* QueryOps(const XorLayout&) {
    return &kQueryOps<Fingerprint, kMultiplied>;
  }

  std::string DescribePrefix() const { return "xor:"; }
  std::string DescribeSize() const { return "block_length=" + std::to_string(block_length); }

  // Block length in the low 32 bits, the seed (< 256) above.
  uint64_t ViewParam(uint32_t seed) const { return block_length | uint64_t{seed} << 40; }
  static XorLayout FromViewParam(uint64_t param) { return XorLayout{param & 0xffffffffu}; }
  static uint32_t SeedOf(uint64_t param) { return static_cast<uint32_t>(param >> 40); }
};

Status CreateXorPolicy(FilterSpec& spec, std::unique_ptr<FilterPolicy>* out) {
  std::string fingerprint;
  HashWidth width;
  Status s = spec.GetChoice("fingerprint", "8", {"8", "16"}, &fingerprint);
  if (s.ok()) s = spec.GetHashWidth(HashWidth::k64, {HashWidth::k64}, &width);
  if (s.ok()) s = spec.Finish({"fingerprint", "hash"});
  if (!s.ok()) return s;
  *out = std::make_unique<PeeledPolicy<XorLayout<>>>("xor:fingerprint=" + fingerprint + ",hash=64",
                                                     std::stoi(fingerprint));
  return Status::OK();
}

// Reads "xor:fingerprint=F,hash=64,format=2|3|4,seed=S,block_length=B" + 3 B fingerprints,
// in place at any alignment.
Status OpenXorLayout(FilterSpec& layout, Slice data, std::unique_ptr<Filter>* out) {
  static constexpr const char* kKeys[] = {"fingerprint", "hash", "seed", "block_length"};
  for (const char* key : kKeys) {
    if (!layout.Has(key)) {
      return Status::Corruption("xor filter layout '" + layout.text() + "' lacks '" + key +
                                "' (expected fingerprint, hash, seed, block_length)");
    }
  }
  int format = 0;
  if (Status f = CheckPeeledFormat(layout, "xor", &format); !f.ok()) return f;
  std::string fingerprint;
  HashWidth width;
  long long seed = 0, block_length = 0;
  Status s = layout.GetChoice("fingerprint", "8", {"8", "16"}, &fingerprint);
  if (s.ok()) s = layout.GetHashWidth(HashWidth::k64, {HashWidth::k64}, &width);
  if (s.ok()) s = layout.GetInt("seed", 0LL, 0LL, 255LL, &seed);
  if (s.ok()) {
    s = layout.GetInt("block_length", 0LL, 0LL, static_cast<long long>(XorLayout<>::kMaxBlockLength), &block_length);
  }
  if (s.ok()) s = layout.Finish({"fingerprint", "hash", "format", "seed", "block_length"});
  if (!s.ok()) return Status::Corruption("xor filter layout: " + s.message());
  const auto block = static_cast<uint64_t>(block_length);
  return format >= 4 ? OpenPeeled(XorLayout<>{block}, static_cast<uint32_t>(seed), format, std::stoi(fingerprint),
                                  layout.text(), data, out)
                     : OpenPeeled(XorLayout</*kFormat3Slots=*/true>{block}, static_cast<uint32_t>(seed), format,
                                  std::stoi(fingerprint), layout.text(), data, out);
}

}  // namespace

FILTERLAB_REGISTER_FILTER(FilterVariant{
    "xor",
    "XOR filter (Graf & Lemire 2020): 1.23 fingerprints per key, 3 reads per query, FP 2^-fingerprint; static",
    "fingerprint=8|16 (default 8) hash=64; no bpk: bits/key follow from the fingerprint (9.84 or 19.68)",
    &CreateXorPolicy,
    &OpenXorLayout,
    nullptr,
    {"xor:fingerprint=8", "xor:fingerprint=16"},
    FpModelKind::kExact,
    nullptr,
    /*has_probes=*/false});

}  // namespace filterlab::fuse
