// RocksDB's own policy for one of ours (rocksdb_native_filter.h).
#include "filters/rocksdb_native_filter.h"

#include <memory>
#include <string>

#include "filters/filter_spec.h"

namespace filterlab {

RocksDbNativeFilter RocksDbNativeFilterOf(const FilterPolicy& policy) {
  RocksDbNativeFilter out;
  const std::string_view v = policy.variant();
  if (v != "fastlocal" && v != "legacy" && v != "ribbon") return out;
  FilterSpec spec;
  double bpk = 0;
  if (!FilterSpec::Parse(policy.spec(), &spec).ok() || !spec.Has("bpk")) return out;
  if (!spec.GetDouble("bpk", 10, 0, 100, &bpk).ok() || bpk <= 0) return out;
  // The spec must be exactly what the variant with this bpk alone resolves to.
  std::unique_ptr<FilterPolicy> plain;
  if (!NewFilterPolicy(std::string(v) + ":bpk=" + FormatNumber(bpk), &plain).ok()) return out;
  if (plain->spec() != policy.spec()) return out;
  out.kind = v == "fastlocal" ? RocksDbNativeFilter::kFastLocalBloom
             : v == "legacy"  ? RocksDbNativeFilter::kLegacyBloom
                              : RocksDbNativeFilter::kRibbon;
  out.bits_per_key = bpk;
  out.format_version = out.kind == RocksDbNativeFilter::kLegacyBloom ? 4 : 5;
  return out;
}

}  // namespace filterlab
