// Positional reads that bypass the page cache (O_DIRECT), so a table block
// that misses the block cache is a read from the storage device, which is
// what a filter's false positive costs in a deployed engine.
//
// O_DIRECT needs the file offset, the length and the memory buffer aligned
// to the device's logical block size. A Read widens [offset, offset + n) to
// kDirectIoAlignment boundaries, reads into an aligned buffer of the calling
// thread (kept between reads, so a read allocates only when it is larger
// than any before it) and copies the requested bytes into the caller's
// scratch: one copy of a block, cheap beside a device read (~100 us here)
// and what lets every caller keep the RandomAccessFile contract. Reading the
// widened range costs at most 2 x 4 KiB extra per block; a table's blocks
// are not aligned to 4 KiB, so a 4 KiB block usually spans two pages.
//
// Filesystems that refuse O_DIRECT (tmpfs, some FUSE mounts) fail the open
// with EINVAL; NewDirectRandomAccessFile then opens the file for ordinary
// buffered reads and says so (*direct = false), so a caller can report that
// its "cold" reads came from the page cache.
#pragma once

#include <cstddef>
#include <memory>
#include <string>

#include "common/status.h"
#include "engine/util/file.h"

namespace filterlab::engine {

// 4 KiB covers the logical block sizes of the devices we run on (512 B and
// 4 KiB); a larger alignment than the device needs is always accepted.
inline constexpr size_t kDirectIoAlignment = 4096;

// Opens `path` for O_DIRECT reads; falls back to buffered reads when the
// filesystem refuses O_DIRECT, with *direct telling which one was opened.
// Any other failure (missing file, permissions) is an IOError naming the path.
Status NewDirectRandomAccessFile(const std::string& path, std::unique_ptr<RandomAccessFile>* out, bool* direct);

// Whether files in directory `dir` can be opened with O_DIRECT, found by
// creating (and removing) a small probe file there. On false, *why says
// what refused it (e.g. "the filesystem refuses O_DIRECT (Invalid argument);
// tmpfs does").
bool DirectIoSupported(const std::string& dir, std::string* why);

}  // namespace filterlab::engine
