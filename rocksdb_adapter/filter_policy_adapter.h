// Any registered filterlab filter inside RocksDB's block-based tables: a
// rocksdb::FilterPolicy whose FilterBitsBuilder hashes each key with our
// policy (FilterPolicy::HashKey), builds our filter at Finish, and stores it
// in the keyed form of filters/keyed_filter.h; its FilterBitsReader reopens
// any such block (OpenKeyedFilter) and answers MayMatch with our filter.
//
// What a RocksDB user gets:
//   - full and partitioned filters, whole-key and prefix filtering (the
//     builder takes what RocksDB adds: keys, prefixes, or both);
//   - the filter block names the filter it holds (RocksDB's own formats by
//     their bytes, every other filter by its spec), so a reader needs no
//     configuration to answer with it;
//   - specs whose filters are RocksDB's own formats (fastlocal:bpk=B,
//     legacy:bpk=B, ribbon:bpk=B, and fastlocal/legacy with other probes)
//     write exactly RocksDB's bytes (no spec appended) under RocksDB's family
//     name ("rocksdb.BuiltinBloomFilter", the CompatibilityName of its
//     built-in policies): their tables are RocksDB's own, read by stock
//     RocksDB, and the adapter reads tables RocksDB's policies wrote. A
//     cross-check can hold them to RocksDB's builders byte for byte
//     (AdapterOptions::cross_check_native);
//   - every other spec writes under one family name, "filterlab.Adapter": a
//     DB reopened with any such adapter policy reads each table with the
//     filter it was written with. RocksDB treats a table of the other
//     family as it treats any policy mismatch: it reads it without its
//     filter (correct answers, no filtering).
#pragma once

#include <rocksdb/filter_policy.h>

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>

#include "common/status.h"
#include "filters/filter.h"

namespace filterlab::rocksdb_adapter {

inline constexpr const char* kAdapterCompatibilityName = "filterlab.Adapter";
// RocksDB's built-in policies' family name (BuiltinFilterPolicy::
// kCompatibilityName, table/block_based/filter_policy.cc): the metaindex key
// of their tables' filters is "fullfilter." or "partitionedfilter." + it.
inline constexpr const char* kRocksDbBuiltinCompatibilityName = "rocksdb.BuiltinBloomFilter";

// Counters shared by one adapter policy's builders and readers.
struct AdapterStats {
  std::atomic<uint64_t> filters_built{0};
  std::atomic<uint64_t> entries_added{0};  // distinct hashes over all filters built
  std::atomic<uint64_t> readers_opened{0};
  // cross_check_native: filters compared with RocksDB's own builder, and how
  // many were byte for byte identical.
  std::atomic<uint64_t> cross_checked{0};
  std::atomic<uint64_t> cross_check_identical{0};
};

struct AdapterOptions {
  // Build each filter a second time with RocksDB's own policy for this spec
  // (NewBloomFilterPolicy for fastlocal and legacy, NewRibbonFilterPolicy(B, -1)
  // for ribbon) from the same keys and compare the bytes; a difference fails
  // the table's build (RocksDB then fails the flush or compaction with
  // Corruption naming both sizes). Only for specs whose filters RocksDB writes
  // natively (RocksDbNativeEquivalent).
  bool cross_check_native = false;
  // Compare with this RocksDB policy instead (tests showing that a
  // cross-check can fail); null: RocksDbNativeEquivalent.
  std::shared_ptr<const rocksdb::FilterPolicy> cross_check_with;
};

// The adapter for `policy`. InvalidArgument for a dynamic (memtable) variant,
// which has no static Build, or when cross_check_native is asked of a spec
// RocksDB cannot build itself.
Status NewAdapterPolicy(std::shared_ptr<const FilterPolicy> policy, const AdapterOptions& options,
                        std::shared_ptr<const rocksdb::FilterPolicy>* out);

// The stats of an adapter made by NewAdapterPolicy (nullptr for any other policy).
const AdapterStats* StatsOf(const rocksdb::FilterPolicy& policy);

// RocksDB's own policy writing exactly the bytes of `policy`'s filters:
// NewBloomFilterPolicy(B) (format_version >= 5 for FastLocalBloom, < 5 for
// legacy Bloom) or NewRibbonFilterPolicy(B, -1), when `policy` is what
// "fastlocal:bpk=B", "legacy:bpk=B" or "ribbon:bpk=B" alone resolves to;
// nullptr otherwise (other variants, probes, hash widths, ribbon:fp= or
// homogeneous). *format_version gets the table format it needs.
std::shared_ptr<const rocksdb::FilterPolicy> RocksDbNativeEquivalent(const FilterPolicy& policy, int* format_version);

}  // namespace filterlab::rocksdb_adapter
