// The "dynamic_old" variant: RocksDB's memtable DynamicBloom as it was before
// the 2019 rewrite (PR #5762; the rewrite is the "dynamic" variant,
// dynamic_bloom.h), kept so the rewrite's published speed claim (add, hit and
// miss faster than the old one's) can be measured side by side (`filterlab-sim
// dynamic`). Like "dynamic" it grows key by key: Add for a single writer,
// AddConcurrently for many, MayContain safe alongside either.
//
// Layout (RocksDB's util/dynamic_bloom.h before PR #5762; LegacyLocalityBloomImpl<true> and
// LegacyNoLocalityBloomImpl in util/bloom_impl.h): a byte array
// and the 32-bit BloomHash h (seed 0xbc9f1d34, the memtable's), delta =
// rotr32(h, 17), k probes (RocksDB's memtable: 6), in one of two forms chosen
// by RocksDB's bloom_locality option:
//   locality=0 (RocksDB's default): no locality, bit i = h mod m, then
//     h += delta; m = the requested bits rounded up to whole bytes. k cache
//     misses per key. The probe sequence of the old block-based filter
//     (legacy_bloom.h ForEachNoLocalityProbe, shared).
//   locality=1: an odd number L of 64-byte lines (the requested bits rounded
//     up to whole lines, plus one line if even), line = rotr32(h, 11) mod L,
//     bit i = h mod 512 inside it, then h = rotr32(h, 9) + delta (PlainTable's
//     locality Bloom, legacy_bloom.h ForEachLineProbe<true>, shared). One
//     cache miss per key.
// Add sets each probed bit with a relaxed load and store of its byte;
// AddConcurrently with a relaxed fetch_or, skipped when the bit is already
// set; MayContain reads the bytes with relaxed loads. (Written from the
// specs named above and the behaviour they describe; no RocksDB code.)
//
// FP model (ModelFpRate), for the D = DistinctHashes(n, 32) distinct hashes
// with the matches of equal ones (fpmodel::NarrowHashFpRate):
//   locality=0: legacy_block's model (legacy::NoLocalityFpRate, the probe
//     sequence is the same); a lower bound, as there (legacy_bloom.h): the
//     probes of one 32-bit value are correlated. With the memtable's fixed 6
//     probes the excess grows with the filter: measured / model 1.135,
//     1.120, 1.191, 1.378, 1.538, 2.134 at 6, 8, 10, 12, 16, 24 bits/key (4
//     filters of 10^6 keys, 4*10^7 queries), 1.77 at 24 bits/key and 10^5
//     keys. No model of this excess is derived: the bound promises only
//     that the rate is not below the ideal (fp_tolerance.h), which holds at
//     every bits/key (model_accuracy); the property tests' 2x sanity cap
//     applies at their 10 bits/key.
//   locality=1: the ideal 512-bit line mixture fpmodel::CacheLocalIdealFpRate
//     at m/D bits per hash. The rotate-and-add probes of one 32-bit value
//     are not independent draws and no model of them is derived here, so it
//     is registered as an approximation: measured / model 1.00074 (z +6.2),
//     0.99942, 0.99943, 1.00172 at 6, 10, 16, 24 bits/key (model_accuracy:
//     400 filters of 10^6 keys, 10^9 queries per point); stated error 0.1%.
// Serialized with filterlab's trailer, layout
// "dynamic_old:hash=32,probes=K,locality=L,bits=N"; opened read-only.
#include <algorithm>
#include <atomic>
#include <cstring>
#include <memory>
#include <string>
#include <utility>

#include "common/aligned_array.h"
#include "filters/bits_per_key.h"
#include "filters/filter_spec.h"
#include "filters/fp_model.h"
#include "filters/legacy_bloom.h"
#include "filters/registry.h"
#include "filters/trailer.h"
#include "hashing/legacy_hash.h"
#include "hashing/remix.h"

namespace filterlab::dynamic_old {
namespace {

constexpr char kVariantName[] = "dynamic_old";
constexpr int kDefaultProbes = 6;  // RocksDB's memtable hard-codes 6
constexpr int kMaxProbes = 30;
constexpr uint64_t kLineBits = 512;
// The bit count is a u32 (RocksDB's kTotalBits); the largest whole number of
// odd lines below 2^32 bits, so both forms stay within it.
constexpr uint64_t kMaxBits = ((uint64_t{1} << 32) / kLineBits - 1) * kLineBits;

// Bits for `requested`: whole bytes (locality 0) or an odd number of whole
// lines (locality 1). 0 if above kMaxBits.
uint64_t RoundedBits(uint64_t requested, int locality) {
  requested = std::max<uint64_t>(requested, 1);
  uint64_t bits;
  if (locality == 0) {
    bits = (requested + 7) / 8 * 8;
  } else {
    uint64_t lines = (requested + kLineBits - 1) / kLineBits;
    if (lines % 2 == 0) ++lines;
    bits = lines * kLineBits;
  }
  return bits > kMaxBits ? 0 : bits;
}

inline uint8_t LoadByte(const std::atomic<uint8_t>& b) { return b.load(std::memory_order_relaxed); }
inline uint8_t LoadByte(const uint8_t& b) { return b; }

// The probe walk of either form: byte_fn(byte index, bit mask) per probe
// until it returns false.
template <class ByteFn>
inline bool ForEachProbe(uint32_t h, int locality, uint32_t bits, int probes, ByteFn&& byte_fn) {
  if (locality == 0) {
    return legacy::ForEachNoLocalityProbe(h, bits, probes, [&](uint32_t bit) {
      return byte_fn(size_t{bit >> 3}, static_cast<uint8_t>(1u << (bit & 7)));
    });
  }
  const size_t line_byte = legacy::LineOffset<true>(h, bits / static_cast<uint32_t>(kLineBits), legacy::kLog2LineBytes);
  return legacy::ForEachLineProbe<true>(h, probes, legacy::kLog2LineBytes, [&](uint32_t bit) {
    return byte_fn(line_byte + (bit >> 3), static_cast<uint8_t>(1u << (bit & 7)));
  });
}

template <class Byte>
bool Probe(const Byte* bytes, uint32_t h, int locality, uint32_t bits, int probes) {
  return ForEachProbe(h, locality, bits, probes,
                      [bytes](size_t byte, uint8_t mask) { return (LoadByte(bytes[byte]) & mask) != 0; });
}

std::string Layout(int probes, int locality, uint64_t bits) {
  return std::string(kVariantName) + ":hash=32,probes=" + std::to_string(probes) +
         ",locality=" + std::to_string(locality) + ",bits=" + std::to_string(bits);
}

// A live (growing) filter: bytes of relaxed atomics.
class DynamicOldBloom final : public Filter {
 public:
  DynamicOldBloom(uint64_t bits, int probes, int locality)
      : bytes_(static_cast<size_t>(bits / 8)),
        bits_(static_cast<uint32_t>(bits)),
        probes_(probes),
        locality_(locality) {}

  bool MayContain(uint64_t hash) const override {
    return Probe(bytes_.data(), Lower32(hash), locality_, bits_, probes_);
  }
  bool SupportsAdd() const override { return true; }
  // Single writer: relaxed load and store (no read-modify-write needed).
  void Add(uint64_t hash) override {
    std::atomic<uint8_t>* bytes = bytes_.data();
    ForEachProbe(Lower32(hash), locality_, bits_, probes_, [bytes](size_t byte, uint8_t mask) {
      bytes[byte].store(static_cast<uint8_t>(bytes[byte].load(std::memory_order_relaxed) | mask),
                        std::memory_order_relaxed);
      return true;
    });
  }
  // Many writers: an atomic OR, skipped when the bit is set already. Relaxed
  // suffices: no bit is lost, and a reader's visibility of a key is ordered
  // by whatever publishes the key (the memtable's sequence number).
  void AddConcurrently(uint64_t hash) override {
    std::atomic<uint8_t>* bytes = bytes_.data();
    ForEachProbe(Lower32(hash), locality_, bits_, probes_, [bytes](size_t byte, uint8_t mask) {
      if ((bytes[byte].load(std::memory_order_relaxed) & mask) == 0) {
        bytes[byte].fetch_or(mask, std::memory_order_relaxed);
      }
      return true;
    });
  }
  size_t DataBytes() const override { return bytes_.size(); }
  void Serialize(std::string* out) const override {
    std::string data(bytes_.size(), '\0');
    for (size_t i = 0; i < bytes_.size(); ++i) data[i] = static_cast<char>(LoadByte(bytes_[i]));
    AppendWithFilterlabTrailer(Slice(data), Describe(), out);
  }
  std::string Describe() const override { return Layout(probes_, locality_, bits_); }
  HashWidth hash_width() const override { return HashWidth::k32; }

 private:
  CacheAlignedArray<std::atomic<uint8_t>> bytes_;
  uint32_t bits_;
  int probes_;
  int locality_;
};

// A serialized filter, read in place (the caller keeps the bytes alive).
class OpenedDynamicOldBloom final : public Filter {
 public:
  OpenedDynamicOldBloom(Slice data, int probes, int locality)
      : data_(data), bits_(static_cast<uint32_t>(data.size() * 8)), probes_(probes), locality_(locality) {}
  bool MayContain(uint64_t hash) const override {
    return Probe(data_.udata(), Lower32(hash), locality_, bits_, probes_);
  }
  size_t DataBytes() const override { return data_.size(); }
  void Serialize(std::string* out) const override { AppendWithFilterlabTrailer(data_, Describe(), out); }
  std::string Describe() const override { return Layout(probes_, locality_, bits_); }
  HashWidth hash_width() const override { return HashWidth::k32; }

 private:
  Slice data_;
  uint32_t bits_;
  int probes_;
  int locality_;
};

class DynamicOldPolicy final : public FilterPolicy {
 public:
  DynamicOldPolicy(uint64_t millibits_per_key, int probes, int locality)
      : millibits_per_key_(millibits_per_key), probes_(probes), locality_(locality) {
    spec_ = std::string(kVariantName) + ":bpk=" + FormatNumber(bits_per_key()) + ",probes=" + std::to_string(probes) +
            ",locality=" + std::to_string(locality) + ",hash=32";
  }

  const std::string& spec() const override { return spec_; }
  std::string_view variant() const override { return kVariantName; }
  HashWidth hash_width() const override { return HashWidth::k32; }
  double bits_per_key() const override { return static_cast<double>(millibits_per_key_) / 1000.0; }
  std::optional<int> num_probes() const override { return probes_; }
  int locality() const { return locality_; }
  // RocksDB's memtable hash (BloomHash, seed 0xbc9f1d34), as "dynamic" hash=32.
  uint64_t HashKey(Slice key) const override { return BloomHash32(key.data(), key.size()); }

  bool is_dynamic() const override { return true; }
  // Sized by keys: ceil(expected_keys * bpk) bits, rounded as the form needs.
  Status NewDynamic(size_t expected_keys, std::unique_ptr<Filter>* out) const override {
    const uint64_t bits = Bits(expected_keys);
    if (bits == 0) {
      return Status::InvalidArgument("filter spec '" + spec_ + "': " + std::to_string(expected_keys) +
                                     " keys need more than the old DynamicBloom's 32-bit bit count (at most " +
                                     std::to_string(kMaxBits) + " bits)");
    }
    *out = std::make_unique<DynamicOldBloom>(bits, probes_, locality_);
    return Status::OK();
  }
  Status Build(const uint64_t* hashes, size_t n, std::unique_ptr<Filter>* out) const override {
    Status s = NewDynamic(n, out);
    if (!s.ok()) return s;
    for (size_t i = 0; i < n; ++i) (*out)->Add(hashes[i]);
    return Status::OK();
  }

  double ModelFpRate(size_t n) const override {
    if (n == 0) return 0.0;
    const uint64_t bits = Bits(n);
    if (bits == 0) return 1.0;  // cannot be built
    return fpmodel::NarrowHashFpRate(static_cast<double>(n), 32, [&](double distinct) {
      return locality_ == 0 ? legacy::NoLocalityFpRate(distinct, static_cast<uint32_t>(bits), probes_)
                            : fpmodel::CacheLocalIdealFpRate(static_cast<double>(bits) / distinct, probes_,
                                                             static_cast<int>(kLineBits));
    });
  }

 private:
  uint64_t Bits(size_t keys) const { return RoundedBits(BitsForKeys(keys, millibits_per_key_), locality_); }

  uint64_t millibits_per_key_;
  int probes_;
  int locality_;
  std::string spec_;
};

Status Create(FilterSpec& spec, std::unique_ptr<FilterPolicy>* out) {
  double bpk = 0;
  int probes = 0, locality = 0;
  HashWidth width = HashWidth::k32;
  Status s = spec.GetDouble("bpk", 10.0, 0.5, 100.0, &bpk);
  if (s.ok()) s = spec.GetInt("probes", kDefaultProbes, 1, kMaxProbes, &probes);
  if (s.ok()) s = spec.GetInt("locality", 0, 0, 1, &locality);
  if (s.ok()) s = spec.GetHashWidth(HashWidth::k32, {HashWidth::k32}, &width);
  if (s.ok()) s = spec.Finish({"bpk", "probes", "locality", "hash"});
  if (!s.ok()) return s;
  *out = std::make_unique<DynamicOldPolicy>(MillibitsPerKey(bpk), probes, locality);
  return Status::OK();
}

Status OpenLayout(FilterSpec& layout, Slice data, std::unique_ptr<Filter>* out) {
  for (const char* key : {"hash", "probes", "locality", "bits"}) {
    if (!layout.Has(key)) {
      return Status::Corruption("dynamic_old layout '" + layout.text() + "' lacks '" + key +
                                "' (expected dynamic_old:hash=32,probes=1..30,locality=0|1,bits=N)");
    }
  }
  HashWidth width = HashWidth::k32;
  int probes = 0, locality = 0;
  long long bits = 0;
  Status s = layout.GetHashWidth(HashWidth::k32, {HashWidth::k32}, &width);
  if (s.ok()) s = layout.GetInt("probes", 0, 1, kMaxProbes, &probes);
  if (s.ok()) s = layout.GetInt("locality", 0, 0, 1, &locality);
  if (s.ok()) s = layout.GetInt("bits", 0LL, 8LL, static_cast<long long>(kMaxBits), &bits);
  if (s.ok()) s = layout.Finish({"hash", "probes", "locality", "bits"});
  if (!s.ok()) return Status::Corruption("dynamic_old layout: " + s.message());
  if (static_cast<uint64_t>(bits) != RoundedBits(static_cast<uint64_t>(bits), locality) ||
      static_cast<uint64_t>(bits) != uint64_t{data.size()} * 8) {
    return Status::Corruption("dynamic_old layout '" + layout.text() + "' says " + std::to_string(bits) +
                              " bits but the filter has " + std::to_string(data.size()) +
                              " data bytes (bits must be 8 x bytes, and an odd number of 512-bit lines at "
                              "locality=1; truncated or corrupted)");
  }
  *out = std::make_unique<OpenedDynamicOldBloom>(data, probes, locality);
  return Status::OK();
}

// Lower bound without locality (legacy_block's model), an approximation with
// it (see "FP model" above): the largest relative error measured, rounded up.
constexpr double kLocalityModelError = 0.001;
FpModelKind ModelKind(const FilterPolicy& policy) {
  const auto* p = dynamic_cast<const DynamicOldPolicy*>(&policy);
  return p != nullptr && p->locality() == 0 ? FpModelKind::kLowerBound : FpModelKind::kApproximation;
}

}  // namespace

FILTERLAB_REGISTER_FILTER(FilterVariant{
    kVariantName,
    "RocksDB's memtable DynamicBloom before the 2019 rewrite: 32-bit BloomHash, h += rotr(h,17) probes, "
    "non-local (locality=0) or in an odd count of 64-byte lines (locality=1); supports concurrent adds",
    "bpk=0.5..100 (default 10) probes=1..30 (default 6, the memtable's) locality=0|1 (default 0, RocksDB's "
    "bloom_locality) hash=32",
    &Create,
    &OpenLayout,
    nullptr,
    {"dynamic_old:bpk=10", "dynamic_old:bpk=10,locality=1"},
    FpModelKind::kExact,
    &ModelKind,
    /*has_probes=*/true,
    /*fp_model_max_relative_error=*/kLocalityModelError});

}  // namespace filterlab::dynamic_old
