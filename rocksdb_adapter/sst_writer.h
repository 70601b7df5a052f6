// Writing RocksDB SST files with librocksdb for the tests of our SST filter
// reader (tools/rocksdb_sst.h) and the rocksdb-sst-writer helper: keys
// "key%010d" of the even multiples of a stride (key0000000000,
// key0000000002, ... at stride 1), so the odd multiples are absent keys
// inside the file's range, through SstFileWriter, with one
// of RocksDB's filters (or the adapter), full or partitioned, whole keys or
// prefixes.
#pragma once

#include <rocksdb/options.h>
#include <rocksdb/table.h>

#include <cstdint>
#include <string>

#include "common/status.h"

namespace filterlab::rocksdb_adapter {

struct SstSpec {
  // "fastlocal:bpk=B", "legacy:bpk=B", "ribbon:bpk=B" (RocksDB's own
  // policies, as lsmbench maps them) or "adapter:SPEC" (any registered spec
  // through the FilterPolicy adapter).
  std::string filter = "fastlocal:bpk=10";
  bool partitioned = false;
  // 0: whole-key filtering; N > 0: a FixedPrefix(N) extractor and prefix
  // filtering only (whole_key_filtering = false).
  int prefix_length = 0;
  uint64_t keys = 10000;
  // Key numbers are multiples of it: a stride of 10^4 with FixedPrefix(10)
  // ("key" + the number's first 7 of 10 digits) gives each key its own
  // prefix, and each absent key a prefix no present key has.
  uint64_t stride = 1;
  rocksdb::ChecksumType checksum = rocksdb::kXXH3;
};

// The options SstFileWriter and a DB reading the file need.
Status SstOptionsFor(const SstSpec& spec, rocksdb::Options* options);

// "key%010llu" of i.
std::string SstKeyOf(uint64_t i);
// The i-th key written (i < spec.keys), and the i-th absent key, which
// sorts between present keys i and i + 1 (i + 1 < spec.keys).
inline std::string PresentKey(const SstSpec& spec, uint64_t i) { return SstKeyOf(2 * i * spec.stride); }
inline std::string AbsentKey(const SstSpec& spec, uint64_t i) { return SstKeyOf((2 * i + 1) * spec.stride); }

Status WriteSst(const SstSpec& spec, const std::string& path);

}  // namespace filterlab::rocksdb_adapter
