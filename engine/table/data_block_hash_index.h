// The data-block hash index (RocksDB's table/block_based/data_block_hash_index.h, PR #4174):
// an optional map, appended to a data block, from a user key's hash to the
// restart interval that holds the key, so a point lookup scans one interval
// instead of binary-searching the restart array.
//
// Layout (after the restart array, before the block footer):
//   [bucket 0 (u8)] ... [bucket M−1 (u8)] [M as u16 LE]
// A bucket holds the restart index (0..253) of the interval holding every
// entry whose user key hashes there, kNoEntry (255) if none does, or
// kCollision (254) if entries of different intervals hash there (the reader
// then falls back to binary search). Hash: Hash32(user_key, seed 397), the
// LevelDB/RocksDB legacy hash, modulo M.
//
// Size and collisions: M ≈ entries / util_ratio, forced odd (a power-of-two
// modulus would only use the hash's weak low bits), so util 1.0 costs about
// 1 byte per entry plus 2 per block. A key of interval i falls back iff some
// key of another interval shares its bucket: ≈ 1 − (1 − 1/M)^(n − I) for n
// entries and interval size I, about 0.58 at util 1.0 with 128 keys per block
// and restart interval 16 (0.48 at util 0.75).
//
// The bucket count is reproduced exactly as RocksDB computes it: 1/util
// summed once per entry in double precision (so util 0.75 and 6 entries give
// 7.999999999999999 → 7, not 8), truncated to u16, 0 → 1, then made odd.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "common/slice.h"
#include "common/status.h"

namespace filterlab::engine {

inline constexpr uint8_t kHashIndexNoEntry = 255;
inline constexpr uint8_t kHashIndexCollision = 254;
// Restart indexes 0..253 fit in a bucket, so at most 254 restart intervals.
inline constexpr size_t kHashIndexMaxRestartIndex = 253;
// The index is written only if the whole block (estimate) is at most 64 KiB.
inline constexpr size_t kHashIndexMaxBlockSize = size_t{1} << 16;
inline constexpr double kDefaultHashUtilRatio = 0.75;
inline constexpr uint32_t kHashIndexSeed = 397;

uint32_t DataBlockHashIndexHash(const Slice& user_key);

class DataBlockHashIndexBuilder {
 public:
  // util_ratio <= 0 or NaN falls back to 0.75 (as RocksDB's builder does;
  // table options reject such values before they get here).
  explicit DataBlockHashIndexBuilder(double util_ratio = kDefaultHashUtilRatio);

  // Called for every entry of the block in order (every version of a key).
  void Add(const Slice& user_key, size_t restart_index);
  // False once an entry lay beyond restart index 253 or the bucket count
  // would not fit in u16: the block is then written without the index.
  bool Valid() const { return valid_; }
  // Bytes Finish would append: M buckets + 2.
  size_t EstimateSize() const { return 2 + NumBuckets(); }
  // M as RocksDB computes it (see the file comment).
  uint16_t NumBuckets() const;
  // Appends the buckets and M. Precondition: Valid().
  void Finish(std::string* dst) const;
  void Reset();

 private:
  double bucket_per_key_;
  double estimated_buckets_ = 0.0;
  bool valid_ = true;
  std::vector<std::pair<uint32_t, uint8_t>> entries_;  // (hash, restart index)
};

// The reader's view of a block's hash index.
class DataBlockHashIndex {
 public:
  DataBlockHashIndex() = default;
  // `block` is the whole block; `before_footer` = block size − 4. Validates
  // the trailer (RocksDB's data_block_hash_index.h layout): before_footer in [2, 65536), M ≥ 1 and M + 2 ≤
  // before_footer. On success the map starts at map_offset().
  Status Open(const Slice& block, const std::string& block_name);
  uint16_t num_buckets() const { return num_buckets_; }
  size_t map_offset() const { return map_offset_; }
  // The bucket for a user key: a restart index, kNoEntry or kCollision.
  uint8_t Lookup(const Slice& user_key) const { return buckets_[DataBlockHashIndexHash(user_key) % num_buckets_]; }

 private:
  const uint8_t* buckets_ = nullptr;
  uint16_t num_buckets_ = 0;
  size_t map_offset_ = 0;
};

}  // namespace filterlab::engine
