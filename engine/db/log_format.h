// Record framing of the write-ahead log and of the manifest (an edit log in
// the same format). A file is a sequence of 32 KiB blocks; a record is cut
// into fragments that never cross a block boundary, each with a 7-byte header
//
//   [masked CRC32C u32 LE][fragment length u16 LE][type u8][fragment bytes]
//
// type: 1 full (a whole record), 2 first, 3 middle, 4 last. The CRC
// (crc32c.h, masked) covers the type byte and the fragment bytes. When fewer
// than 7 bytes are left in a block the writer fills them with zeros and
// starts the next block. (This is the framing LevelDB and RocksDB use.)
//
// Why blocks: a damaged byte costs at most the fragments of its block. The
// reader does not trust a damaged header's length, so it drops the rest of
// that block and resynchronises at the next block boundary, where a fragment
// header always starts; fragments of a record whose first part was lost are
// dropped too. What the caller does with the records after a damaged region
// (stop, fail, or go on) is its recovery policy (WalRecoveryMode, options.h);
// the reader reports every damaged region with its offset, size and reason.
//
// A false fragment passes only if its CRC matches by chance (about 2^-32 per
// fragment tried), so an intact record is never confused with damage.
#pragma once

#include <cstddef>
#include <cstdint>

namespace filterlab::engine::log {

enum RecordType : uint8_t { kFullType = 1, kFirstType = 2, kMiddleType = 3, kLastType = 4 };
inline constexpr uint8_t kMaxRecordType = kLastType;

inline constexpr size_t kBlockSize = 32768;
inline constexpr size_t kHeaderSize = 4 + 2 + 1;

}  // namespace filterlab::engine::log
