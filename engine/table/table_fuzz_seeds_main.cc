// table-fuzz-seeds DIR: writes a seed corpus for table_fuzz.cc into DIR, one
// file per seed, each starting with its mode byte: well-formed tables (with
// and without hash index and filter, both checksum kinds), data blocks with
// and without the hash index, serialized filters of several variants, and
// structured round-trip payloads. Mutations of valid inputs reach far deeper
// than random bytes, which rarely get past a footer.
#include <cstdio>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "common/slice.h"
#include "engine/memtable/internal_key.h"
#include "engine/table/block_builder.h"
#include "engine/table/compression.h"
#include "engine/table/table_builder.h"
#include "engine/util/file.h"
#include "filters/filter.h"
#include "filters/range/range_filter.h"

namespace filterlab::engine {
namespace {

int failures = 0;

void Write(const std::string& dir, const std::string& name, char mode, const std::string& payload) {
  std::ofstream out(dir + "/" + name, std::ios::binary);
  out.put(mode);
  out.write(payload.data(), static_cast<std::streamsize>(payload.size()));
  if (!out) {
    fprintf(stderr, "table-fuzz-seeds: cannot write %s/%s\n", dir.c_str(), name.c_str());
    ++failures;
  }
}

std::string UserKey(int i) {
  char buf[16];
  snprintf(buf, sizeof(buf), "key%06d", i);
  return buf;
}

std::string Table(int n, bool hash_index, const char* filter, ChecksumType checksum,
                  CompressionType compression = CompressionType::kNone, const char* range_filter = "") {
  TableOptions o;
  if (*range_filter != '\0') {
    std::unique_ptr<RangeFilterPolicy> policy;
    if (!NewRangeFilterPolicy(range_filter, &policy).ok()) {
      fprintf(stderr, "table-fuzz-seeds: range filter %s failed\n", range_filter);
      ++failures;
      return {};
    }
    o.range_filter_policy = std::move(policy);
  }
  o.compression = compression;
  o.block_size = 256;
  o.restart_interval = 4;
  o.use_hash_index = hash_index;
  if (*filter != '\0') {
    std::unique_ptr<FilterPolicy> policy;
    if (!NewFilterPolicy(filter, &policy).ok()) {
      fprintf(stderr, "table-fuzz-seeds: filter %s failed\n", filter);
      ++failures;
      return {};
    }
    o.filter_policy = std::move(policy);
  }
  o.checksum_type = checksum;
  std::string bytes;
  auto sink = NewStringSink(&bytes);
  std::unique_ptr<TableBuilder> builder;
  Status s = TableBuilder::Open(o, sink.get(), &builder);
  for (int i = 0; s.ok() && i < n; ++i) {
    std::string ikey;
    AppendInternalKey(&ikey, UserKey(i), 100 + i, i % 7 == 0 ? kTypeDeletion : kTypeValue);
    s = builder->Add(ikey, "v" + std::to_string(i));
  }
  if (s.ok()) s = builder->Finish();
  if (!s.ok()) {
    fprintf(stderr, "table-fuzz-seeds: building a table failed: %s\n", s.ToString().c_str());
    ++failures;
  }
  return bytes;
}

std::string DataBlock(int n, bool hash_index) {
  BlockBuilderOptions o;
  o.restart_interval = 3;
  o.use_hash_index = hash_index;
  BlockBuilder b(o);
  for (int i = 0; i < n; ++i) {
    std::string ikey;
    AppendInternalKey(&ikey, UserKey(i), 50, kTypeValue);
    b.Add(ikey, "value" + std::to_string(i));
  }
  return b.Finish().ToString();
}

std::string SerializedFilter(const char* spec) {
  std::unique_ptr<FilterPolicy> policy;
  std::unique_ptr<Filter> filter;
  std::vector<std::string> keys;
  for (int i = 0; i < 50; ++i) keys.push_back(UserKey(i));
  std::vector<Slice> slices(keys.begin(), keys.end());
  Status s = NewFilterPolicy(spec, &policy);
  if (s.ok()) s = BuildFilterFromKeys(*policy, slices.data(), slices.size(), &filter);
  if (!s.ok()) {
    fprintf(stderr, "table-fuzz-seeds: filter %s failed: %s\n", spec, s.ToString().c_str());
    ++failures;
    return {};
  }
  return filter->Serialize();
}

std::string SerializedRangeFilter(const char* spec) {
  std::unique_ptr<RangeFilterPolicy> policy;
  std::unique_ptr<RangeFilter> filter;
  std::vector<std::string> keys;
  for (int i = 0; i < 50; ++i) keys.push_back(UserKey(i));
  std::vector<Slice> slices(keys.begin(), keys.end());
  Status s = NewRangeFilterPolicy(spec, &policy);
  if (s.ok()) s = policy->BuildBytes(slices.data(), slices.size(), &filter);
  if (!s.ok()) {
    fprintf(stderr, "table-fuzz-seeds: range filter %s failed: %s\n", spec, s.ToString().c_str());
    ++failures;
    return {};
  }
  return filter->Serialize();
}

// A round-trip payload in table_fuzz.cc's layout: flags, block-size byte,
// restart byte, then (key length, key, value length, value, delete byte)*.
std::string RoundTripPayload(uint8_t flags, int n, uint8_t range_variant = 0) {
  std::string p;
  p.push_back(static_cast<char>(flags));
  p.push_back(2);
  p.push_back(3);
  if (flags & 128) p.push_back(static_cast<char>(range_variant));
  for (int i = 0; i < n; ++i) {
    const std::string k = UserKey(i * 7), v = "val" + std::to_string(i);
    p.push_back(static_cast<char>(k.size()));
    p += k;
    p.push_back(static_cast<char>(v.size()));
    p += v;
    p.push_back(static_cast<char>(i % 5 == 0 ? 5 : 1));
  }
  return p;
}

}  // namespace
}  // namespace filterlab::engine

int main(int argc, char** argv) {
  using namespace filterlab::engine;
  if (argc != 2) {
    fprintf(stderr, "usage: table-fuzz-seeds DIR (an existing folder to write the seed corpus into)\n");
    return 2;
  }
  const std::string dir = argv[1];
  for (uint8_t flags : {0, 1, 5, 6, 19, 31, 32 + 5, 64 + 19}) {
    Write(dir, "roundtrip-" + std::to_string(flags), 0, RoundTripPayload(flags, 30));
  }
  for (uint8_t variant = 0; variant < 4; ++variant) {
    Write(dir, "roundtrip-range-" + std::to_string(variant), 0, RoundTripPayload(128 + 5, 30, variant));
  }
  Write(dir, "table-plain", 1, Table(40, false, "", ChecksumType::kCRC32C));
  Write(dir, "table-grafite", 1,
        Table(60, false, "fastlocal:bpk=10", ChecksumType::kCRC32C, CompressionType::kNone, "grafite:bpk=16"));
  Write(dir, "table-prefix-bloom", 1,
        Table(60, true, "", ChecksumType::kXXH3, CompressionType::kNone, "prefix_bloom:prefix=6,bpk=10"));
  for (const char* spec :
       {"grafite:bpk=16", "bucketing:bpk=16", "rosetta:bpk=16,range=64", "prefix_bloom:prefix=6,bpk=10"}) {
    Write(dir, std::string("range-filter-") + spec, 5, SerializedRangeFilter(spec));
  }
  Write(dir, "table-hash-fastlocal", 1, Table(60, true, "fastlocal:bpk=10", ChecksumType::kCRC32C));
  Write(dir, "table-xxh3-legacy", 1, Table(30, false, "legacy:bpk=10", ChecksumType::kXXH3));
  Write(dir, "table-lz4", 1, Table(80, true, "fastlocal:bpk=10", ChecksumType::kCRC32C, CompressionType::kLZ4));
  Write(dir, "table-zstd", 1, Table(80, false, "fastlocal:bpk=10", ChecksumType::kXXH3, CompressionType::kZSTD));
  for (CompressionType c : {CompressionType::kLZ4, CompressionType::kZSTD}) {
    std::string stored;
    if (CompressBlock(c, DataBlock(40, false), &stored) != c) {
      fprintf(stderr, "table-fuzz-seeds: a data block did not compress with %s\n", CompressionTypeName(c));
      ++failures;
    }
    Write(dir, std::string("compressed-") + CompressionTypeName(c), 4, std::string(1, static_cast<char>(c)) + stored);
  }
  Write(dir, "table-empty", 1, Table(0, false, "fastlocal:bpk=10", ChecksumType::kCRC32C));
  Write(dir, "block-plain", 2, std::string(1, '\0') + DataBlock(20, false));
  Write(dir, "block-hash", 2, std::string(1, '\0') + DataBlock(20, true));
  for (const char* spec : {"fastlocal:bpk=10", "legacy:bpk=10", "dynamic:bpk=10", "standard:bpk=10",
                           "worm:variant=cache_worm64,bpk=10", "worm:variant=cache_simd_fastrange32,bpk=10"}) {
    Write(dir, std::string("filter-") + spec, 3, SerializedFilter(spec));
  }
  return failures == 0 ? 0 : 1;
}
