// Test SST files written by librocksdb (sst_writer.h).
#include "rocksdb_adapter/sst_writer.h"

#include <rocksdb/filter_policy.h>
#include <rocksdb/slice_transform.h>
#include <rocksdb/sst_file_writer.h>
#include <rocksdb/table.h>

#include <cstdio>
#include <memory>

#include "filters/filter.h"
#include "filters/rocksdb_native_filter.h"
#include "rocksdb_adapter/filter_policy_adapter.h"

namespace filterlab::rocksdb_adapter {

std::string SstKeyOf(uint64_t i) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "key%010llu", static_cast<unsigned long long>(i));
  return buf;
}

Status SstOptionsFor(const SstSpec& spec, rocksdb::Options* options) {
  rocksdb::BlockBasedTableOptions t;
  t.format_version = 5;
  t.checksum = spec.checksum;
  t.optimize_filters_for_memory = false;
  const std::string adapter_prefix = "adapter:";
  if (spec.filter.rfind(adapter_prefix, 0) == 0) {
    std::unique_ptr<FilterPolicy> policy;
    Status s = NewFilterPolicy(spec.filter.substr(adapter_prefix.size()), &policy);
    if (!s.ok()) return s;
    s = NewAdapterPolicy(std::move(policy), AdapterOptions(), &t.filter_policy);
    if (!s.ok()) return s;
  } else {
    std::unique_ptr<FilterPolicy> policy;
    Status s = NewFilterPolicy(spec.filter, &policy);
    if (!s.ok()) return s;
    int format_version = 5;
    t.filter_policy = RocksDbNativeEquivalent(*policy, &format_version);
    t.format_version = static_cast<uint32_t>(format_version);
    if (t.filter_policy == nullptr) {
      return Status::InvalidArgument("sst writer: RocksDB has no own policy for '" + spec.filter +
                                     "'; allowed: fastlocal:bpk=B, legacy:bpk=B, ribbon:bpk=B or adapter:SPEC");
    }
  }
  if (spec.partitioned) {
    t.partition_filters = true;
    t.index_type = rocksdb::BlockBasedTableOptions::kTwoLevelIndexSearch;
    t.metadata_block_size = 2048;  // several partitions at test sizes
  }
  t.whole_key_filtering = spec.prefix_length == 0;
  *options = rocksdb::Options();
  options->table_factory.reset(rocksdb::NewBlockBasedTableFactory(t));
  options->compression = rocksdb::kNoCompression;
  if (spec.prefix_length > 0) options->prefix_extractor.reset(rocksdb::NewFixedPrefixTransform(spec.prefix_length));
  return Status::OK();
}

Status WriteSst(const SstSpec& spec, const std::string& path) {
  rocksdb::Options options;
  Status s = SstOptionsFor(spec, &options);
  if (!s.ok()) return s;
  rocksdb::SstFileWriter writer(rocksdb::EnvOptions(), options);
  rocksdb::Status rs = writer.Open(path);
  for (uint64_t i = 0; rs.ok() && i < spec.keys; ++i) rs = writer.Put(PresentKey(spec, i), std::to_string(i));
  if (rs.ok()) rs = writer.Finish();
  if (!rs.ok()) return Status::IOError("sst writer: " + path + ": " + rs.ToString());
  return Status::OK();
}

}  // namespace filterlab::rocksdb_adapter
