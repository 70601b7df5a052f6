// How filterlab's Python module turns the keys Python hands it into the hashes a
// policy's filters consume, the way the command line does:
//
//   hashes      uint64 values that already are the policy's hashes (HashKey's
//               output, or any well-mixed 64-bit hash): used as they are;
//   integers    key number k is lsmbench's key of k (engine/bench/bench_keys.h:
//               8-byte big-endian k, then '0' bytes up to lsmbench's default
//               --key_size of 16), hashed with FilterPolicy::HashKey, so a filter
//               built here from keys 0..N-1 is the filter block lsmbench's
//               fillseq writes for them;
//   binary      byte strings (Python bytes, UTF-8 str, Arrow binary/string
//               arrays) as offsets into one data buffer, hashed with HashKey.
//
// Everything here runs without the GIL: it reads only the arrays it is given.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "common/slice.h"
#include "common/status.h"
#include "engine/bench/bench_keys.h"
#include "filters/filter.h"

namespace filterlab::python {

// lsmbench's default --key_size (engine/bench/bench_config.cc).
inline constexpr size_t kIntegerKeyBytes = 16;

// Keys are hashed and queried in chunks of this many: the hashes stay on the
// stack, and each chunk is one MayContainBatch call (the simulator's `fp`
// queries in calls of 1024 too, sim/fp.h FpConfig::batch).
inline constexpr size_t kChunk = 1024;

// out[i] = the hash `policy` gives integer key ints[i].
inline void HashIntegerKeys(const FilterPolicy& policy, const uint64_t* ints, size_t n, uint64_t* out) {
  char key[kIntegerKeyBytes];
  for (size_t i = 0; i < n; ++i) {
    lsmbench::FormatKey(ints[i], kIntegerKeyBytes, key);
    out[i] = policy.HashKey(Slice(key, kIntegerKeyBytes));
  }
}

// out[i] = the hash `policy` gives data[offsets[first + i] .. offsets[first + i + 1]).
// Offsets were checked (CheckOffsets) before.
template <class Offset>
void HashBinaryKeys(const FilterPolicy& policy, const Offset* offsets, const uint8_t* data, size_t first, size_t n,
                    uint64_t* out) {
  for (size_t i = 0; i < n; ++i) {
    const Offset begin = offsets[first + i];
    out[i] = policy.HashKey(Slice(data + begin, static_cast<size_t>(offsets[first + i + 1] - begin)));
  }
}

// OK if offsets[0..n] is non-decreasing, starts at or above 0 and ends within
// `data_size` bytes (what an Arrow binary array's offsets promise; checked,
// so a malformed array cannot make a key read outside its buffer).
template <class Offset>
Status CheckOffsets(const Offset* offsets, size_t n, size_t data_size) {
  if (offsets[0] < 0) return Status::InvalidArgument("keys: the first offset is negative");
  for (size_t i = 0; i < n; ++i) {
    if (offsets[i + 1] < offsets[i]) {
      return Status::InvalidArgument("keys: offsets decrease at key " + std::to_string(i) + " (" +
                                     std::to_string(offsets[i]) + " then " + std::to_string(offsets[i + 1]) + ")");
    }
  }
  if (static_cast<uint64_t>(offsets[n]) > data_size) {
    return Status::InvalidArgument("keys: the last offset " + std::to_string(offsets[n]) + " is past the " +
                                   std::to_string(data_size) + " bytes of key data");
  }
  return Status::OK();
}

// OK if every hash fits `width`. A 32-bit variant reads only the low 32 bits
// of what it is given (filter.h), so a wider value handed in as a hash would
// be cut silently: refused, naming the first one and the filter (`spec`).
Status CheckHashWidth(HashWidth width, const std::string& spec, const uint64_t* hashes, size_t n);

}  // namespace filterlab::python
