// How RocksDB's BloomLikeFilterPolicy turns a requested bits/key into the
// integers its filters are built from (BloomFilterPolicy's
// millibits_per_key, RocksDB's table/block_based/filter_policy.cc). Shared by the RocksDB-format variants (fastlocal,
// legacy, legacy_block) so their sizes match RocksDB's bit for bit. The generic filters/bits_per_key.h rounds to
// nearest (llround); RocksDB adds 0.500001 and truncates, which differs at ties (10.0005 -> 10001 here, 10000 there)
// and also sanitizes the range, so the RocksDB formats use this one.
#pragma once

#include "common/status.h"
#include "filters/filter_spec.h"

namespace filterlab::rocksdb_bpk {

// RocksDB raises a requested bits/key below 1 to 1 and caps it at 100 (NaN
// also becomes 100); below 0.5 it builds no filter at all, which filterlab's
// spec parser rejects before we get here.
inline double Sanitize(double bits_per_key) {
  if (!(bits_per_key < 100.0)) return 100.0;  // also NaN
  if (bits_per_key < 1.0) return 1.0;
  return bits_per_key;
}

// Thousandths of a bit per key. The +0.500001 rounds to nearest with a slight
// upward nudge, so inputs with three decimals (e.g. 9.999) come out exact
// despite binary floating point.
inline int MillibitsPerKey(double bits_per_key) { return static_cast<int>(Sanitize(bits_per_key) * 1000.0 + 0.500001); }

// Whole bits per key (round half up), what the legacy filters use.
inline int WholeBitsPerKey(int millibits_per_key) { return (millibits_per_key + 500) / 1000; }

// Reads a spec's "bpk" (0.5..100, default 10) as RocksDB's millibits.
inline Status GetMillibitsPerKey(FilterSpec& spec, int* millibits_per_key) {
  double bpk = 0;
  Status s = spec.GetDouble("bpk", 10.0, 0.5, 100.0, &bpk);
  if (s.ok()) *millibits_per_key = MillibitsPerKey(bpk);
  return s;
}

}  // namespace filterlab::rocksdb_bpk
