// Which of RocksDB's own filter policies writes exactly the filters of one of
// our policies: NewBloomFilterPolicy(B) builds FastLocalBloom at table
// format_version >= 5 and legacy Bloom below it, NewRibbonFilterPolicy(B, -1)
// Standard128Ribbon (RocksDB include/rocksdb/filter_policy.h). RocksDB takes
// only B, so a spec matches only when it is what "fastlocal:bpk=B",
// "legacy:bpk=B" or "ribbon:bpk=B" alone resolves to (no other probes, hash
// width, ribbon:fp= or homogeneous). No librocksdb needed: the lsmbench
// configuration and the FilterPolicy adapter (rocksdb_adapter/) both ask this.
#pragma once

#include "filters/filter.h"

namespace filterlab {

struct RocksDbNativeFilter {
  enum Kind { kNone, kFastLocalBloom, kLegacyBloom, kRibbon } kind = kNone;
  double bits_per_key = 0;  // the B to pass
  // The table format_version the filter needs (5 FastLocalBloom and Ribbon, 4 legacy).
  int format_version = 5;
};

// kind kNone when no RocksDB policy writes exactly `policy`'s filters.
RocksDbNativeFilter RocksDbNativeFilterOf(const FilterPolicy& policy);

}  // namespace filterlab
