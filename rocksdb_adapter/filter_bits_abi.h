// RocksDB's FilterBitsBuilder and FilterBitsReader, declared for the library
// this build links. Since RocksDB 7.0 rocksdb/filter_policy.h only
// forward-declares them ("the details of these classes are internal"); their
// definitions live in table/block_based/filter_policy_internal.h, which
// librocksdb-dev does not install. A FilterPolicy that builds its own filter
// bits must still derive from them, so this header states the virtual
// interface RocksDB calls, slot for slot, for the versions whose layouts we
// checked against RocksDB's history (git show vX:table/block_based/
// filter_policy_internal.h):
//
//   7.0 .. 9.5   AddKey, EstimateEntriesAdded, Finish(buf), Finish(buf, status),
//                MaybePostVerify, ApproximateNumEntries
//   9.6 .. 10.8  AddKeyAndAlt after AddKey (PR #12931: whole key and prefix
//                added in one call)
//   10.9 ..      CalculateSpace and EstimatedFpRate at the end (PR #14111
//                merged BuiltinFilterBitsBuilder into FilterBitsBuilder)
//   reader       MayMatch(key), MayMatch(n, keys, results) in every version
//
// Only the order and signatures of the virtual functions matter to the ABI
// (RocksDB calls through the vtable; the classes have no data members). A
// RocksDB outside these ranges is refused at compile time rather than called
// through a wrong vtable.
#pragma once

#include <rocksdb/filter_policy.h>
#include <rocksdb/slice.h>
#include <rocksdb/status.h>
#include <rocksdb/version.h>

#include <cstddef>
#include <cstdint>
#include <memory>

#define FILTERLAB_ROCKSDB_AT_LEAST(major, minor) \
  (ROCKSDB_MAJOR > (major) || (ROCKSDB_MAJOR == (major) && ROCKSDB_MINOR >= (minor)))

#if !FILTERLAB_ROCKSDB_AT_LEAST(7, 0)
#error \
    "filterlab's RocksDB FilterPolicy adapter needs RocksDB >= 7.0 (older versions declare FilterBitsBuilder publicly with another interface)"
#endif
#if FILTERLAB_ROCKSDB_AT_LEAST(11, 0)
#error \
    "filterlab's RocksDB FilterPolicy adapter knows FilterBitsBuilder layouts up to RocksDB 10.x; check table/block_based/filter_policy_internal.h of this version and extend filter_bits_abi.h"
#endif

namespace ROCKSDB_NAMESPACE {

class FilterBitsBuilder {
 public:
  virtual ~FilterBitsBuilder() {}
  // One key (or prefix), in sorted order; duplicates possible.
  virtual void AddKey(const Slice& key) = 0;
#if FILTERLAB_ROCKSDB_AT_LEAST(9, 6)
  // A whole key and its prefix ("alt") at once.
  virtual void AddKeyAndAlt(const Slice& key, const Slice& alt) = 0;
#endif
  // Distinct entries added so far (TableProperties::num_filter_entries).
  virtual size_t EstimateEntriesAdded() = 0;
  // The filter bits; ownership of their memory goes to *buf.
  virtual Slice Finish(std::unique_ptr<const char[]>* buf) = 0;
  virtual Slice Finish(std::unique_ptr<const char[]>* buf, Status* /*status*/) { return Finish(buf); }
  virtual Status MaybePostVerify(const Slice& /*filter_content*/) { return Status::OK(); }
  // Keys whose filter fits in `bytes` (partitioned filters cut partitions by it).
  virtual size_t ApproximateNumEntries(size_t bytes) = 0;
#if FILTERLAB_ROCKSDB_AT_LEAST(10, 9)
  // Bytes of a filter of `num_entries` keys, metadata included.
  virtual size_t CalculateSpace(size_t num_entries) = 0;
  virtual double EstimatedFpRate(size_t num_entries, size_t bytes) = 0;
#endif
};

class FilterBitsReader {
 public:
  virtual ~FilterBitsReader() {}
  virtual bool MayMatch(const Slice& entry) = 0;
  virtual void MayMatch(int num_keys, Slice** keys, bool* may_match) {
    for (int i = 0; i < num_keys; ++i) may_match[i] = MayMatch(*keys[i]);
  }
};

}  // namespace ROCKSDB_NAMESPACE
