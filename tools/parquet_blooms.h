// `filterlab-tool parquet-blooms [--json] [--check-values FILE] FILE.parquet...`:
// the split-block Bloom filters of Parquet files (tools/parquet_file.h). Per
// row group and column with a filter: bytes, blocks, the share of bits set,
// the number of distinct values that fill implies, and the FP rate a value
// not in the column meets, both exactly for this bitset and by the model at
// the implied count.
//
// The fill of a split-block filter: each value sets one bit in each of the 8
// words of one of L blocks, so after D values a block holds Poisson(D/L)
// values and a word's bit is set with probability 1 - (31/32)^j given j,
// i.e. a share f = 1 - exp(-D / (32 L)) of all bits on average; so
// D = -32 L ln(1 - f). An absent value passes when all 8 of its bits are
// set: for this bitset exactly mean over blocks of prod over words
// (popcount(word) / 32); the model at D is fpmodel::SplitBlockPoissonFpRate
// at 256 L / D bits per value and 8 bits per value.
//
// --check-values FILE (one Parquet file): the column values per row group,
// as `python -m analysis.parquet_blooms --check` writes them from pyarrow
// ("FLPV" then records of u32 row group, u32 column, u64 count and count
// values as u32 length + the PLAIN-encoded bytes Parquet hashes: 4 or 8
// little-endian bytes for INT32, INT64, FLOAT, DOUBLE, the bytes of a
// BYTE_ARRAY without its length). Our sbbf is built over them with the
// file's block count and compared with the file's bitset bit for bit.
#pragma once

namespace filterlab {

// argv holds the arguments after "parquet-blooms"; returns the exit code (0
// every file read and every check identical, 1 otherwise, 2 usage errors).
int RunParquetBlooms(int argc, char** argv);

}  // namespace filterlab
