// StandardBloom: the textbook Bloom filter (Bloom 1970), the baseline every
// other filter's FP curve is compared with. m bits, k probes spread over the
// whole array, no locality: each probe of a query is its own cache miss once
// the filter outgrows the cache, which is exactly what the cache-local
// variants trade FP rate to avoid.
//
// Size: m = ceil(n * bits_per_key) bits exactly (no rounding to lines or
// words; storage is padded to whole 64-bit words and the padding is never
// probed), so the measured FP rate can be held against the exact formula
// with the filter's true m.
//
// Probes: probe i (0 <= i < k) is bit FastRange64(Mix64(h + i * phi64), m).
// Mix64 (the splitmix64 finaliser) is a bijection with full avalanche, and
// h + i * phi64 are k distinct inputs, so the k positions behave like k
// independent uniform draws from [0, m); FastRange64 maps each onto [0, m)
// with bias below m / 2^64. This costs more arithmetic than double hashing
// (h1 + i h2 mod m), but double hashing derives all k positions from two
// values: two keys share an entire probe set with probability ~1/m^2 rather
// than ~1/m^k, so its FP rate drifts above the formula at high bits/key
// (Dillinger & Manolios 2004; Kirsch & Mitzenmacher's equivalence is only
// asymptotic). For the baseline, independence matters more than speed. A 32-bit hash is zero-extended and spread by the
// same Mix64, so its positions are just as independent; only keys with equal 32-bit hashes collide completely.
//
// FP rate: with independent uniform probes, a bit is still 0 after n keys
// with probability (1 - 1/m)^(kn), so a new key passes all k probes with
// probability (1 - (1 - 1/m)^(kn))^k = fpmodel::StandardFpRateExact(m, n, k)
// (the small-m correction to (1 - e^(-k/b))^k, which Bloom's independence
// assumption makes slightly optimistic; exact results differ by O(k/m)).
// With f-bit hashes the n keys leave D = DistinctHashes(n, f) distinct ones
// (D = n at 64 bits; 0.892 n at 32 bits and 10^9 keys), so ModelFpRate is
// fpmodel::NarrowHashFpRate: F + (1 - F) StandardFpRateExact(m, D, k) with
// F = D/2^f, the chance that a query's hash is one of them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "common/aligned_array.h"
#include "common/status.h"
#include "filters/filter.h"
#include "filters/filter_spec.h"
#include "hashing/fastrange.h"
#include "hashing/remix.h"

namespace filterlab {

// Probe i's bit among m for a (widened) hash: the positions every
// StandardBloom uses (see above), shared with the standard-Bloom levels of
// Rosetta (filters/range/rosetta.cc).
inline uint64_t StandardProbeBit(uint64_t hash, int i, uint64_t num_bits) {
  return FastRange64(Mix64(hash + static_cast<uint64_t>(i) * kGoldenRatio64), num_bits);
}

class StandardBloom final : public Filter {
 public:
  // Probes 1..30. The default round(b ln 2) is the FP-optimal k; it reaches 30
  // at b ~ 43, where the FP rate is already ~1e-9, below what any sampled
  // experiment can resolve, while each probe is another cache miss. 30 is
  // also the legacy RocksDB filter's cap, so the two compare probe for probe.
  static constexpr int kMinProbes = 1;
  static constexpr int kMaxProbes = 30;
  // 2^37 bits = 16 GiB, far beyond this project's filters.
  static constexpr uint64_t kMaxBits = uint64_t{1} << 37;

  // An empty filter of exactly `num_bits` bits, to be filled with Insert.
  // InvalidArgument naming the allowed ranges.
  static Status Create(uint64_t num_bits, int num_probes, HashWidth hash_width, std::unique_ptr<StandardBloom>* out);
  // Reader for the serialized form (registry open_layout). Reads the words
  // in place (the caller keeps `data` alive, as OpenFilter requires) when
  // they are 8-byte aligned: every probe reads one word, so no alignment
  // beyond the word's matters. Otherwise copies them into an owned array.
  static Status OpenLayout(FilterSpec& layout, Slice data, std::unique_ptr<Filter>* out);

  // Sets the k bits of `hash`. Filters are immutable once handed out as a
  // Filter (SupportsAdd() is false); this is the builder's path, only for a
  // filter from Create (an opened one may view bytes it must not change).
  void Insert(uint64_t hash);

  // Through the view (one query path for the object and the view).
  bool MayContain(uint64_t hash) const override { return view_.MayContain(hash); }
  void MayContainBatch(const uint64_t* hashes, size_t n, bool* results) const override {
    view_.MayContainBatch(hashes, n, results);
  }
  // All k words the query may read: each probe is its own line, and a
  // positive query reads every one (a negative one stops at its first 0).
  void Prefetch(uint64_t hash) const override { view_.Prefetch(hash); }
  // data = the words, param = m | k << 40 (m <= 2^37), ops by hash width.
  FilterView View() const override { return view_; }
  size_t DataBytes() const override { return num_words() * sizeof(uint64_t); }
  void Serialize(std::string* out) const override;
  using Filter::Serialize;
  // "standard:hash=64,probes=7,bits=M".
  std::string Describe() const override;
  HashWidth hash_width() const override { return hash_width_; }

  uint64_t num_bits() const { return num_bits_; }
  int num_probes() const { return num_probes_; }
  // Bit index of probe i for `hash` (after masking to the hash width).
  uint64_t ProbeBit(uint64_t hash, int i) const;

 private:
  // An owned, zeroed array (words == nullptr) or a view of `words`, which
  // the caller keeps alive and unchanged.
  StandardBloom(uint64_t num_bits, int num_probes, HashWidth hash_width, const uint64_t* words);
  size_t num_words() const { return static_cast<size_t>((num_bits_ + 63) / 64); }

  uint64_t num_bits_;
  int num_probes_;
  HashWidth hash_width_;
  CacheAlignedArray<uint64_t> owned_;  // empty when viewing the caller's bytes
  const uint64_t* words_;              // what queries read: owned_ or the caller's bytes
  FilterView view_;                    // after words_: it points at them
};

}  // namespace filterlab
