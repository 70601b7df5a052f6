// The Bloom filters of a Parquet file: the footer's FileMetaData (Thrift
// compact, tools/thrift_compact.h), each row group's column chunks with
// their ColumnMetaData bloom_filter_offset / bloom_filter_length, and each
// filter's BloomFilterHeader (numBytes, algorithm BLOCK, hash XXHASH,
// compression UNCOMPRESSED) with its bitset: the split-block Bloom filter of
// apache/parquet-format BloomFilter.md, which our "sbbf" variant
// (filters/split_block_bloom.h) builds bit for bit. Field numbers are those
// of parquet.thrift (FileMetaData 4 row_groups, 6 created_by; RowGroup 1
// columns, 3 num_rows; ColumnChunk 3 meta_data; ColumnMetaData 1 type, 3
// path_in_schema, 5 num_values, 14 bloom_filter_offset, 15
// bloom_filter_length; BloomFilterHeader 1 numBytes, 2 algorithm, 3 hash, 4
// compression). Damaged or foreign files give a Corruption naming the part.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "common/status.h"

namespace filterlab::parquet {

// parquet.thrift's physical types.
enum PhysicalType : int32_t {
  kBoolean = 0,
  kInt32 = 1,
  kInt64 = 2,
  kInt96 = 3,
  kFloat = 4,
  kDouble = 5,
  kByteArray = 6,
  kFixedLenByteArray = 7,
};
const char* PhysicalTypeName(int32_t type);

struct ColumnBloom {
  int row_group = 0;
  int column = 0;    // index within the row group
  std::string path;  // path_in_schema joined with '.'
  int32_t type = 0;
  int64_t num_values = 0;
  bool has_filter = false;
  int64_t offset = 0;   // bloom_filter_offset: the BloomFilterHeader
  int64_t length = -1;  // bloom_filter_length (header + bitset), -1 when the writer did not say
  std::string bitset;   // numBytes bytes
};

struct ParquetBlooms {
  std::string created_by;
  int64_t num_rows = 0;
  int num_row_groups = 0;
  std::vector<ColumnBloom> columns;  // every column chunk, row group by row group
};

Status ReadParquetBlooms(const std::string& path, ParquetBlooms* out);
// The same from bytes in memory (the fuzz target); `name` names them in errors.
Status ParseParquetBlooms(const std::string& name, const std::string& file, ParquetBlooms* out);

}  // namespace filterlab::parquet
