// Record framing of the write-ahead log (and of the manifest, which is one
// such record): a file is a sequence of
//
//   [masked CRC32C u32 LE][length u32 LE][payload: length bytes]
//
// where the CRC (crc32c.h, masked) covers the 4 length bytes and the
// payload. A WAL record's payload is one WriteBatch (write_batch.h).
//
// Why length-prefixed rather than LevelDB's 32 KiB block fragments: the only
// damage a process or machine crash does to an append-only file is a torn
// tail (a partial last record, or garbage/zeros after the last complete one),
// and a reader that stops at the first record that does not verify drops
// exactly that tail. Block fragments would additionally let a reader skip a
// damaged record in the middle and resynchronise, which we do not want
// anyway: recovery keeps a strict prefix of the writes (never a write whose
// predecessors were lost). A damaged length can make the reader stop early,
// but never accept bytes that were not written as one record: the CRC of a
// false record would have to match by chance (about 2^-32).
#pragma once

#include <cstddef>
#include <cstdint>

namespace filterlab::engine::log {

inline constexpr size_t kHeaderSize = 8;
// Longest payload a record may carry (the length field is a u32).
inline constexpr uint64_t kMaxRecordSize = 0xffffffffu;

}  // namespace filterlab::engine::log
