// The policy side shared by RocksDB's two legacy Bloom variants ("legacy" and
// "legacy_block", math in legacy_bloom.h): RocksDB's bits/key handling
// (millibits, then whole bits rounded half up), the default probe count
// floor(0.69 * whole bits) in 1..30, keys hashed with BloomHash32, and the
// canonical spec "<variant>:bpk=B,probes=K,hash=32".
#pragma once

#include <string>
#include <string_view>

#include "common/status.h"
#include "filters/filter.h"
#include "filters/filter_spec.h"

namespace filterlab::legacy {

class LegacyPolicyBase : public FilterPolicy {
 public:
  LegacyPolicyBase(std::string_view variant, int millibits_per_key, int num_probes);

  const std::string& spec() const override { return spec_; }
  std::string_view variant() const override { return variant_; }
  HashWidth hash_width() const override { return HashWidth::k32; }
  // As requested (to a thousandth); the filters use whole_bits_per_key(), as RocksDB does.
  double bits_per_key() const override { return millibits_per_key_ / 1000.0; }
  std::optional<int> num_probes() const override { return num_probes_; }
  // RocksDB's BloomHash (legacy 32-bit hash, seed 0xbc9f1d34).
  uint64_t HashKey(Slice key) const override;
  // The same, 16 keys at a time with AVX-512, 8 with AVX2 (LegacyHash32Batch).
  void HashKeys(const Slice* keys, size_t n, uint64_t* out) const override;

 protected:
  int whole_bits_per_key() const { return whole_bits_per_key_; }
  int probes() const { return num_probes_; }

 private:
  std::string variant_;
  int millibits_per_key_;
  int whole_bits_per_key_;
  int num_probes_;
  std::string spec_;
};

// Reads a legacy variant's spec: bpk (0.5..100, default 10, below 1 raised to
// 1), probes (1..30, default from the whole bits), hash (32 only); rejects
// any other key.
Status ParseLegacySpec(FilterSpec& spec, int* millibits_per_key, int* num_probes);

}  // namespace filterlab::legacy
