#include "filters/legacy_policy.h"

#include "filters/legacy_bloom.h"
#include "filters/rocksdb_bits_per_key.h"
#include "hashing/legacy_hash.h"

namespace filterlab::legacy {

LegacyPolicyBase::LegacyPolicyBase(std::string_view variant, int millibits_per_key, int num_probes)
    : variant_(variant),
      millibits_per_key_(millibits_per_key),
      whole_bits_per_key_(rocksdb_bpk::WholeBitsPerKey(millibits_per_key)),
      num_probes_(num_probes) {
  spec_ = variant_ + ":bpk=" + FormatNumber(bits_per_key()) + ",probes=" + std::to_string(num_probes_) + ",hash=32";
}

uint64_t LegacyPolicyBase::HashKey(Slice key) const { return BloomHash32(key.data(), key.size()); }

void LegacyPolicyBase::HashKeys(const Slice* keys, size_t n, uint64_t* out) const {
  LegacyHash32Batch(keys, n, kBloomHashSeed, out);
}

Status ParseLegacySpec(FilterSpec& spec, int* millibits_per_key, int* num_probes) {
  Status s = rocksdb_bpk::GetMillibitsPerKey(spec, millibits_per_key);
  if (!s.ok()) return s;
  const int default_probes = ChooseNumProbes(rocksdb_bpk::WholeBitsPerKey(*millibits_per_key));
  s = spec.GetInt("probes", default_probes, 1, kMaxProbes, num_probes);
  if (!s.ok()) return s;
  HashWidth width = HashWidth::k32;
  s = spec.GetHashWidth(HashWidth::k32, {HashWidth::k32}, &width);
  if (!s.ok()) return s;
  return spec.Finish({"bpk", "probes", "hash"});
}

}  // namespace filterlab::legacy
