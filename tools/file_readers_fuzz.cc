// libFuzzer target over the readers of foreign files: the RocksDB SST filter
// reader (tools/rocksdb_sst.h, with the keyed filter blocks it opens) and the
// Parquet footer and Bloom filter reader (tools/parquet_file.h, with its Thrift
// compact reader). Each input is tried as both. The SST reader runs with its
// block checksums off, so mutations reach the footer, block, index and filter
// parsers behind them; a file that opens is then queried and modelled, as
// sst-filters does. Any crash, sanitizer report or hang is a failure; errors
// are the expected outcome of most inputs. Seeds: testdata/fuzz-seeds/
// (SSTs librocksdb wrote, a Parquet file DuckDB wrote).
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "tools/parquet_file.h"
#include "tools/rocksdb_sst.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace filterlab;
  const std::string bytes(reinterpret_cast<const char*>(data), size);
  std::unique_ptr<rocksdb_sst::SstFile> sst;
  if (rocksdb_sst::SstFile::OpenBytes("fuzz.sst", bytes, &sst, /*verify_checksums=*/false).ok()) {
    for (const char* key : {"", "key0000000001", "key0000000002", "zzzzzzzzzzzzzzzzzz"}) {
      (void)sst->KeyMayMatch(key);
    }
    std::string model;
    for (const auto& block : sst->filters()) (void)rocksdb_sst::BlockModelFpRate(block, 1000, &model);
  }
  parquet::ParquetBlooms blooms;
  (void)parquet::ParseParquetBlooms("fuzz.parquet", bytes, &blooms);
  return 0;
}
