// The "legacy_block" variant: RocksDB's old block-based (non-local) Bloom
// filter, removed in RocksDB 7.0 (math and FP model in legacy_bloom.h).
//
// RocksDB stored each such filter as its bits plus one byte num_probes inside
// a filter block holding one filter per 2 KiB of data-block offsets (with an
// offset array and base_lg). filterlab does not model that multi-filter
// block, so a legacy_block filter is serialized with filterlab's trailer
// (trailer.h), layout "legacy_block:hash=32,probes=K,bits=N".
#include <algorithm>
#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "common/aligned_array.h"
#include "filters/filter_spec.h"
#include "filters/fp_model.h"
#include "filters/legacy_bloom.h"
#include "filters/legacy_policy.h"
#include "filters/registry.h"
#include "filters/trailer.h"
#include "hashing/fastmod.h"
#include "hashing/fastmod_avx2.h"
#include "hashing/fastmod_avx512.h"

namespace filterlab::legacy {

namespace {
constexpr char kBlockVariantName[] = "legacy_block";
constexpr uint32_t kMinBits = 64;
constexpr uint64_t kMaxBits = 0xfffffff8;  // the largest multiple of 8 that fits the format's u32 bit count
}  // namespace

uint32_t BlockFilterBitsForKeys(uint64_t num_keys, int whole_bits_per_key) {
  const uint64_t b = static_cast<uint64_t>(std::max(whole_bits_per_key, 1));
  if (num_keys > kMaxBits / b) return 0;
  const uint64_t bits = std::max<uint64_t>(num_keys * b, kMinBits);
  const uint64_t rounded = (bits + 7) / 8 * 8;
  return rounded > kMaxBits ? 0 : static_cast<uint32_t>(rounded);
}

double NoLocalityFpRate(double keys, uint32_t total_bits, int num_probes) {
  const double m = total_bits;
  const int k = num_probes;
  // Probes other than #2 are taken as uniform over the m bits.
  const int uniform_probes = k >= 3 ? k - 1 : k;
  const double miss_by_uniform = std::pow(1.0 - 1.0 / m, uniform_probes * keys);
  if (k < 3) return std::pow(1.0 - miss_by_uniform, k);
  // Probe #2 lands on (s * 65537 mod 2^32) mod m, s = 2A + B; s has the
  // trapezoidal distribution of the sum of A in [0, 2^15) doubled and B in
  // [0, 2^17). Gather the probability mass W(b) that probe #2 of a random key
  // puts on each bit b it can reach.
  constexpr uint32_t kA = 1u << 15, kB = 1u << 17;
  constexpr uint32_t kNumS = 2 * (kA - 1) + kB;  // s in [0, 2^16 + 2^17 - 2]
  std::vector<std::pair<uint32_t, double>> mass(kNumS);
  for (uint32_t s = 0; s < kNumS; ++s) {
    const uint32_t lo_a = s >= kB ? (s - kB + 2) / 2 : 0;  // smallest A with s - 2A < 2^17
    const uint32_t hi_a = std::min(kA - 1, s / 2);         // largest A with s - 2A >= 0
    mass[s] = {(s * 65537u) % total_bits, static_cast<double>(hi_a - lo_a + 1) / 4294967296.0};
  }
  std::sort(mass.begin(), mass.end());
  double reachable = 0, sum_miss_over_bits = 0, expected_miss_at_probe2 = 0;
  for (size_t i = 0; i < mass.size();) {
    double w = 0;
    const uint32_t bit = mass[i].first;
    for (; i < mass.size() && mass[i].first == bit; ++i) w += mass[i].second;
    const double miss = std::pow(1.0 - w, keys);  // no key's probe #2 set this bit
    reachable += 1;
    sum_miss_over_bits += miss;
    expected_miss_at_probe2 += w * miss;
  }
  const double fill_uniform = 1.0 - miss_by_uniform * ((m - reachable) + sum_miss_over_bits) / m;
  const double fill_probe2 = 1.0 - miss_by_uniform * expected_miss_at_probe2;
  return std::pow(fill_uniform, k - 1) * fill_probe2;
}

namespace {

// NoLocalityAdd with each probe's h % total_bits by FastMod32Any (c its
// multiplier, hashing/fastmod.h): two multiplies where a 32-bit DIV per probe
// was two thirds of the build. kFixedProbes > 0 unrolls the loop for that
// count. sim speed legacy_block:bpk=10, 5 interleaved rounds: Build alone
// 10.57 -> 5.16 ns/key, the timed build span 15.75 -> 10.38.
template <int kFixedProbes>
void FastModAddAll(const uint64_t* hashes, size_t n, uint32_t total_bits, int num_probes, uint8_t* data) {
  const int probes = kFixedProbes > 0 ? kFixedProbes : num_probes;
  const uint64_t c = FastMod32Any::Multiplier(total_bits);
  for (size_t i = 0; i < n; ++i) {
    uint32_t h = Lower32(hashes[i]);
    const uint32_t delta = RotateRight32(h, 17);
    for (int p = 0; p < probes; ++p) {
      const uint32_t bit = FastMod32Any::Mod(h, total_bits, c);
      data[bit >> 3] |= static_cast<uint8_t>(1u << (bit & 7));
      h += delta;
    }
  }
}

#ifdef FILTERLAB_FASTMOD_AVX2
// Eight keys at a time: the lanes hold the eight keys' probe i, and each
// round's eight remainders come from Mod32x8Avx2 (hashing/fastmod_avx2.h),
// whose multiplies run in the vector units; the scalar work left per probe
// is one byte's read-modify-write. All rounds of a group are stored before
// the bits are set, so the stores of one group overlap the next group's
// remainders. The keys' order within a group does not matter: setting bits
// commutes. The last n mod 8 keys take FastModAddAll.
//
// What bounds it is the byte read-modify-writes, at about the core's rate of
// random stores into L1 (~0.6 ns each on a Zen 3 EPYC). Unrolled, so that
// the read-modify-writes are separate instructions: as one loop instruction
// the vector remainders gained nothing over FastModAddAll (whose probe loop
// the fixed probe count unrolls). sim speed legacy_block:bpk=10 --modes
// build, 200 MB, 5 interleaved rounds beside RocksDB's filter_bench on a
// Zen 3 host (AVX2): the Build call 6.96 -> 5.68 ns/key (medians).
template <int kFixedProbes>
void VectorModAddAll(const uint64_t* hashes, size_t n, uint32_t total_bits, int num_probes, uint8_t* data) {
  const int probes = kFixedProbes > 0 ? kFixedProbes : num_probes;
  const InvariantDivisor32x8 div(InvariantDivisor32::For(total_bits));
  alignas(32) uint32_t bits[kMaxProbes * 8];
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    // The low halves of the eight 64-bit hashes (in the order 0 1 4 5 2 3 6 7).
    const __m256 first = _mm256_castsi256_ps(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(hashes + i)));
    const __m256 second = _mm256_castsi256_ps(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(hashes + i + 4)));
    __m256i h = _mm256_castps_si256(_mm256_shuffle_ps(first, second, _MM_SHUFFLE(2, 0, 2, 0)));
    const __m256i delta = _mm256_or_si256(_mm256_srli_epi32(h, 17), _mm256_slli_epi32(h, 15));  // rotr(h, 17)
    for (int p = 0; p < probes; ++p) {
      _mm256_store_si256(reinterpret_cast<__m256i*>(bits + 8 * p), Mod32x8Avx2(h, div));
      h = _mm256_add_epi32(h, delta);
    }
#pragma GCC unroll 16
    for (int j = 0; j < 8 * probes; ++j) data[bits[j] >> 3] |= static_cast<uint8_t>(1u << (bits[j] & 7));
  }
  FastModAddAll<kFixedProbes>(hashes + i, n - i, total_bits, num_probes, data);
}
#endif

template <int kFixedProbes>
void AddAllWith(const uint64_t* hashes, size_t n, uint32_t total_bits, int num_probes, uint8_t* data) {
#ifdef FILTERLAB_FASTMOD_AVX2
  VectorModAddAll<kFixedProbes>(hashes, n, total_bits, num_probes, data);
#else
  FastModAddAll<kFixedProbes>(hashes, n, total_bits, num_probes, data);
#endif
}

}  // namespace

void NoLocalityAddAll(const uint64_t* hashes, size_t n, uint32_t total_bits, int num_probes, uint8_t* data) {
  switch (num_probes) {  // ChooseNumProbes gives 4..8 at 6..12 bits/key
    case 4: return AddAllWith<4>(hashes, n, total_bits, num_probes, data);
    case 5: return AddAllWith<5>(hashes, n, total_bits, num_probes, data);
    case 6: return AddAllWith<6>(hashes, n, total_bits, num_probes, data);
    case 7: return AddAllWith<7>(hashes, n, total_bits, num_probes, data);
    case 8: return AddAllWith<8>(hashes, n, total_bits, num_probes, data);
    default: return AddAllWith<0>(hashes, n, total_bits, num_probes, data);
  }
}

namespace {

// The FilterView of a legacy_block filter: data = the bit array, param =
// total_bits | num_probes << 32, so a caller holding views reaches the bits
// without touching the Filter object.
constexpr uint64_t ViewParam(uint32_t total_bits, int num_probes) {
  return uint64_t{total_bits} | uint64_t(static_cast<uint8_t>(num_probes)) << 32;
}
inline uint32_t ViewTotalBits(const FilterView& view) { return static_cast<uint32_t>(view.param); }
inline int ViewProbes(const FilterView& view) { return static_cast<uint8_t>(view.param >> 32); }

// Every probe is tested, none left early: with no locality each probe is its
// own line, and the k loads' addresses come from h alone, so they issue
// together and a query costs one round of misses; the answers are ANDed, so
// no branch waits on them (RocksDB's loop, LegacyNoLocalityBloomImpl, leaves
// at the first clear bit; the answer is the same).
//
// Where the compiler targets AVX-512 the remainders come eight at a time
// from Mod32x8Avx512 (hashing/fastmod_avx512.h: double precision, exact, one
// 1/m per query), which needs neither the divider nor the scalar multiplier:
// against a DIV per probe, sim speed legacy_block:bpk=10 (200 MB of 10k-key
// filters, 3 interleaved rounds under the lock, load ~1) hot 6.5-7.3 ->
// 5.5-6.2 ns, random 166-172 -> 139-145 ns (a Zen 4 host). 1/m from rcp14
// and two Newton steps instead of a division made hot 1.2x slower. The same
// arithmetic in AVX2 + FMA (two halves of four doubles; unsigned lanes
// converted through a flipped sign bit) was exact but slower than the
// divisions on a Zen 3 host without AVX-512: hot 7.6-10.9 -> 9.4-20.6 ns,
// random 196-233 -> 207-253 (3 interleaved rounds, load 0.6-0.9), so AVX2
// cores take the divisions. So was the build's Mod32x8Avx2 with its
// constants made per query (one double division, no DIV; on the same host,
// 4 interleaved rounds: hot 9.9-12.1 -> 20.0-22.4 ns, random 201-213 ->
// 209-244), and so with no per-query constant at all (the view's param
// holding bytes = total_bits / 8 and its multiplier for 29-bit numerators,
// h mod total_bits = 8 ((h >> 3) mod bytes) + (h & 7): hot 6.4-10.9 ->
// 10.2-13.8 ns, random level): the divisions' results come one by one, so
// the first probe's load issues early, where the vector chain (two
// multiplies of 3 cycles, shifts, the lanes out) holds every load back. Elsewhere each probe's
// h % total_bits is a 32-bit DIV, unlike the build's FastMod32Any. Tried (sim
// speed legacy_block:bpk=10, single = hot, random, 5 interleaved rounds
// each): FastMod32Any with its multiplier computed per query (a 64-bit DIV)
// made hot 1.51x slower and random 1.03x; the view holding FastMod32's
// multiplier for the byte, (h >> 3) mod (total_bits / 8), with no per-query
// division, hot 1.43x, random 1.11x, pipelined 1.26x; half the probes by DIV
// and half by FastMod32, hot 1.3x. A likely cause, not verified with
// counters (the VM exposes none): the multiplies compete with the key hash's
// (a chain of one multiply per key word, the critical path of a
// one-at-a-time query loop) for the integer multiplier, where the divider is
// otherwise idle; in the build the keys are hashed 16 at a time in vector
// registers, so there the multiplies win. Two more kept the answers and lost
// on a Zen 3 EPYC (sim speed, each process holding both kernels): each
// remainder in scalar double precision (convert, multiply by 1/m, truncate,
// an FMA for the remainder, two corrections; one divsd a query), hot 12.5 ->
// 21.4 ns (200 MB, 4 rounds); and the remainders by recurrence, h + delta's
// being bit + (delta mod m) - carry (2^32 mod m) brought into [0, m) without
// a branch, so three DIVs instead of six, hot 11.0-12.5 -> 29.3-30.2 ns
// (32 MB, 2 processes): the six divisions are independent and overlap, where
// the recurrence is one chain of about eight dependent operations a probe.
bool ViewMayContain(const FilterView& view, uint64_t hash) {
  const auto* data = static_cast<const uint8_t*>(view.data);
  bool all_set = true;
#ifdef FILTERLAB_FASTMOD_AVX512
  const uint32_t h = Lower32(hash);
  const uint32_t delta = RotateRight32(h, 17);
  const double total_bits = ViewTotalBits(view);
  const __m512d d_pd = _mm512_set1_pd(total_bits), inv_d = _mm512_set1_pd(1.0 / total_bits);
  // x_i = h + i delta mod 2^32, lane i of each group of eight probes.
  __m256i x = _mm256_add_epi32(
      _mm256_set1_epi32(static_cast<int>(h)),
      _mm256_mullo_epi32(_mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7), _mm256_set1_epi32(static_cast<int>(delta))));
  const __m256i step = _mm256_set1_epi32(static_cast<int>(8 * delta));
  const int num_probes = ViewProbes(view);
  for (int i = 0; i < num_probes; i += 8) {
    alignas(32) uint32_t bits[8];
    _mm256_store_si256(reinterpret_cast<__m256i*>(bits), Mod32x8Avx512(x, d_pd, inv_d));
    const int lanes = std::min(8, num_probes - i);
    for (int j = 0; j < lanes; ++j) all_set &= ((data[bits[j] >> 3] >> (bits[j] & 7)) & 1) != 0;
    x = _mm256_add_epi32(x, step);
  }
#else
  ForEachNoLocalityProbe(Lower32(hash), ViewTotalBits(view), ViewProbes(view), [&](uint32_t bit) {
    all_set &= ((data[bit >> 3] >> (bit & 7)) & 1) != 0;
    return true;
  });
#endif
  return all_set;
}
// Every probe's line.
void ViewPrefetch(const FilterView& view, uint64_t hash) {
  const auto* data = static_cast<const uint8_t*>(view.data);
  ForEachNoLocalityProbe(Lower32(hash), ViewTotalBits(view), ViewProbes(view), [&](uint32_t bit) {
    __builtin_prefetch(data + bit / 8, 0, 3);
    return true;
  });
}
// No locality: each probe is its own cache miss, so locate and prefetch
// every probe of a chunk of keys, keeping the bit positions (the modulus is
// the expensive part), then test. Small chunks: 16 keys x k probes already
// exceed the misses a core keeps in flight.
void ViewMayContainBatch(const FilterView& view, const uint64_t* hashes, size_t n, bool* results) {
  constexpr size_t kChunk = 16;
  const auto* data = static_cast<const uint8_t*>(view.data);
  const uint32_t total_bits = ViewTotalBits(view);
  const int num_probes = ViewProbes(view);
  uint32_t bit[kChunk][kMaxProbes];
  for (size_t start = 0; start < n; start += kChunk) {
    const size_t m = std::min(kChunk, n - start);
    for (size_t i = 0; i < m; ++i) {
      int p = 0;
      ForEachNoLocalityProbe(Lower32(hashes[start + i]), total_bits, num_probes, [&](uint32_t b) {
        bit[i][p++] = b;
        __builtin_prefetch(data + b / 8, 0, 3);
        return true;
      });
    }
    for (size_t i = 0; i < m; ++i) {
      bool all_set = true;
      for (int p = 0; p < num_probes; ++p) all_set &= ((data[bit[i][p] >> 3] >> (bit[i][p] & 7)) & 1) != 0;
      results[start + i] = all_set;
    }
  }
}
constexpr FilterView::Ops kBlockViewOps{&ViewMayContain, &ViewPrefetch, &ViewMayContainBatch};

class LegacyBlockBloomFilter final : public Filter {
 public:
  LegacyBlockBloomFilter(CacheAlignedArray<uint8_t> bits, int num_probes)
      : owned_(std::move(bits)),
        data_(owned_.data()),
        total_bits_(static_cast<uint32_t>(owned_.size() * 8)),
        num_probes_(num_probes),
        view_{&kBlockViewOps, data_, ViewParam(total_bits_, num_probes_)} {}
  LegacyBlockBloomFilter(Slice view, uint32_t total_bits, int num_probes)
      : data_(view.udata()),
        total_bits_(total_bits),
        num_probes_(num_probes),
        view_{&kBlockViewOps, data_, ViewParam(total_bits_, num_probes_)} {}

  // One query code path for the object and the view (through the view's ops).
  bool MayContain(uint64_t hash) const override { return view_.MayContain(hash); }
  void Prefetch(uint64_t hash) const override { view_.Prefetch(hash); }
  void MayContainBatch(const uint64_t* hashes, size_t n, bool* results) const override {
    view_.MayContainBatch(hashes, n, results);
  }
  FilterView View() const override { return view_; }

  size_t DataBytes() const override { return total_bits_ / 8; }

  void Serialize(std::string* out) const override {
    AppendWithFilterlabTrailer(Slice(reinterpret_cast<const char*>(data_), DataBytes()), Describe(), out);
  }

  std::string Describe() const override {
    return std::string(kBlockVariantName) + ":hash=32,probes=" + std::to_string(num_probes_) +
           ",bits=" + std::to_string(total_bits_);
  }

  HashWidth hash_width() const override { return HashWidth::k32; }

 private:
  CacheAlignedArray<uint8_t> owned_;
  const uint8_t* data_;
  uint32_t total_bits_;
  int num_probes_;
  FilterView view_;
};

class LegacyBlockBloomPolicy final : public LegacyPolicyBase {
 public:
  LegacyBlockBloomPolicy(int millibits_per_key, int num_probes)
      : LegacyPolicyBase(kBlockVariantName, millibits_per_key, num_probes) {}

  Status Build(const uint64_t* hashes, size_t n, std::unique_ptr<Filter>* out) const override {
    const uint32_t bits = BlockFilterBitsForKeys(n, whole_bits_per_key());
    if (bits == 0) {
      return Status::InvalidArgument(spec() + ": " + std::to_string(n) + " keys x " +
                                     std::to_string(whole_bits_per_key()) +
                                     " bits exceed the format's 32-bit bit count (at most " + std::to_string(kMaxBits) +
                                     " bits); use fewer keys per filter");
    }
    CacheAlignedArray<uint8_t> data(bits / 8);
    NoLocalityAddAll(hashes, n, bits, probes(), data.data());
    *out = std::make_unique<LegacyBlockBloomFilter>(std::move(data), probes());
    return Status::OK();
  }

  double ModelFpRate(size_t n) const override {
    if (n == 0) return 0.0;
    const uint32_t bits = BlockFilterBitsForKeys(n, whole_bits_per_key());
    if (bits == 0) return 1.0;  // cannot be built
    return fpmodel::NarrowHashFpRate(static_cast<double>(n), 32,
                                     [&](double distinct) { return NoLocalityFpRate(distinct, bits, probes()); });
  }
};

Status CreateBlock(FilterSpec& spec, std::unique_ptr<FilterPolicy>* out) {
  int millibits = 0, probes = 0;
  Status s = ParseLegacySpec(spec, &millibits, &probes);
  if (s.ok()) *out = std::make_unique<LegacyBlockBloomPolicy>(millibits, probes);
  return s;
}

Status OpenLayout(FilterSpec& layout, Slice data, std::unique_ptr<Filter>* out) {
  for (const char* key : {"hash", "probes", "bits"}) {
    if (!layout.Has(key)) {
      return Status::Corruption("legacy_block layout '" + layout.text() + "' lacks '" + key +
                                "' (expected legacy_block:hash=32,probes=1..30,bits=N)");
    }
  }
  HashWidth width = HashWidth::k32;
  int probes = 0;
  long long bits = 0;
  Status s = layout.GetHashWidth(HashWidth::k32, {HashWidth::k32}, &width);
  if (s.ok()) s = layout.GetInt("probes", 0, 1, kMaxProbes, &probes);
  if (s.ok()) s = layout.GetInt("bits", 0LL, static_cast<long long>(kMinBits), static_cast<long long>(kMaxBits), &bits);
  if (s.ok()) s = layout.Finish({"hash", "probes", "bits"});
  if (!s.ok()) return Status::Corruption(s.message());
  if (bits % 8 != 0 || static_cast<uint64_t>(bits) != uint64_t{data.size()} * 8) {
    return Status::Corruption("legacy_block layout '" + layout.text() + "' says " + std::to_string(bits) +
                              " bits but the filter has " + std::to_string(data.size()) +
                              " data bytes (bits must be 8 x bytes; truncated or corrupted)");
  }
  *out = std::make_unique<LegacyBlockBloomFilter>(data, static_cast<uint32_t>(bits), probes);
  return Status::OK();
}

}  // namespace

std::unique_ptr<Filter> NewLegacyBlockBloomView(Slice data, uint32_t total_bits, int num_probes) {
  return std::make_unique<LegacyBlockBloomFilter>(data, total_bits, num_probes);
}

FILTERLAB_REGISTER_FILTER(FilterVariant{
    kBlockVariantName,
    "RocksDB's old block-based Bloom (removed in 7.0): no locality, bit = h mod m, 32-bit BloomHash, bit-exact "
    "bits (filterlab trailer)",
    "bpk=0.5..100 (default 10; used as whole bits, round half up; below 1 raised to 1) probes=1..30 (default "
    "floor(0.69*bits) clamped to 1..30) hash=32",
    &CreateBlock,
    &OpenLayout,
    nullptr,
    {"legacy_block:bpk=10"},
    FpModelKind::kLowerBound,
    nullptr,
    /*has_probes=*/true});

}  // namespace filterlab::legacy
