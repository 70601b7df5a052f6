// A filter together with the key hash it was built over: what a reader of a
// stored filter needs to answer for keys, not hashes. The bytes of a
// filter (filter.h) say how to query it, but not how its keys were hashed:
// the policy that built it decides that (HashKey). Filters stored outside our
// own tables (RocksDB filter blocks written through the FilterPolicy adapter,
// rocksdb_adapter/filter_policy_adapter.h) therefore carry what names the hash:
//
//   RocksDB's own formats (FastLocalBloom -1, Standard128Ribbon -2, legacy
//   Bloom, always-false / always-true): their bytes alone, exactly as
//   RocksDB's builders write them. The format fixes the hash: XXPH3-64 of the
//   key for -1 and -2, the legacy 32-bit BloomHash for legacy Bloom
//   (RocksDB table/block_based/filter_policy.cc, GetBuiltinFilterBitsReader).
//   Every other filter: the serialized filter (with its filterlab trailer,
//   trailer.h), then the canonical spec of the policy that built it:
//
//     [serialized filter][spec: S bytes of ASCII][fixed32 S]["FLS1"]
//
// "FLS1" (0x31534c46 little-endian) cannot end a RocksDB format: a legacy
// Bloom block ends with its line count, which RocksDB keeps far below 2^31;
// the -1/-2 formats end with reserved bytes that are zero.
#pragma once

#include <memory>
#include <string>

#include "common/slice.h"
#include "common/status.h"
#include "filters/filter.h"

namespace filterlab {

inline constexpr char kKeyedFilterMagic[4] = {'F', 'L', 'S', '1'};

// Whether the policy's filters are stored as RocksDB's own bytes: its
// serialized form is one of RocksDB's full-filter formats and its HashKey is
// the hash that format implies. Otherwise stored with the spec appended.
bool StoresNativeRocksDbFormat(const FilterPolicy& policy);

// Appends the stored form of `filter`, which `policy` built; `native` is
// StoresNativeRocksDbFormat(policy) (which builds a small filter to find out,
// so callers storing many filters ask once).
void AppendKeyedFilter(const FilterPolicy& policy, bool native, const Filter& filter, std::string* out);

// A stored filter reopened: the filter (reading the caller's bytes in place
// where it can, OpenFilter's contract) and a policy whose HashKey is the one
// it was built over. For RocksDB's formats the policy is a stand-in of the
// same hash (fastlocal:bpk=10 for XXPH3-64, legacy:bpk=10 for BloomHash32),
// `spec` then says which format it is.
struct KeyedFilter {
  std::unique_ptr<FilterPolicy> hasher;
  std::unique_ptr<Filter> filter;
  // "rocksdb:fastlocal", "rocksdb:ribbon", "rocksdb:legacy",
  // "rocksdb:always_false", "rocksdb:always_true", or the stored spec.
  std::string spec;

  bool KeyMayMatch(Slice key) const { return filter->MayContain(hasher->HashKey(key)); }
};

// Opens a stored filter. Corruption naming the problem for truncated or
// damaged bytes, an unreadable spec, or a spec whose hash width differs from
// the filter's.
Status OpenKeyedFilter(Slice bytes, KeyedFilter* out);

}  // namespace filterlab
