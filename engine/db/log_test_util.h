// Test helper: where the log writer put each fragment of an intact log,
// found by walking its headers (independently of log::Reader), so tests can
// say which records a damaged byte must cost.
#pragma once

#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "common/test_scale.h"
#include "engine/db/log_format.h"

namespace filterlab::engine::test {

struct FragmentSpan {
  uint64_t start, end;  // header start, payload end
  size_t record;        // index of the record it belongs to
};

inline std::vector<FragmentSpan> LogFragments(const std::string& log) {
  using log::kBlockSize;
  using log::kHeaderSize;
  std::vector<FragmentSpan> out;
  uint64_t pos = 0;
  size_t record = 0;
  while (pos + kHeaderSize <= log.size()) {
    if (kBlockSize - pos % kBlockSize < kHeaderSize) {
      pos += kBlockSize - pos % kBlockSize;
      continue;
    }
    const size_t len =
        static_cast<uint8_t>(log[pos + 4]) | (static_cast<size_t>(static_cast<uint8_t>(log[pos + 5])) << 8);
    const uint8_t type = static_cast<uint8_t>(log[pos + 6]);
    out.push_back({pos, pos + kHeaderSize + len, record});
    if (type == log::kFullType || type == log::kLastType) ++record;
    pos += kHeaderSize + len;
  }
  return out;
}

// What flipping the byte at `offset` of `log` to `flipped` costs: the
// record of the fragment holding it and every record with a fragment
// starting after it in the same block (the reader drops the rest of the
// block); `lost` is empty for padding bytes. `hidden`: when the flip makes
// the length of a fragment in the last block run past the end of the file,
// the intact fragments after it, which the reader counts as evidence that
// the length was damaged (Damage::intact_fragments).
struct FlipLoss {
  std::set<size_t> lost;
  uint64_t hidden = 0;
};
inline FlipLoss LossOfFlip(const std::vector<FragmentSpan>& frags, uint64_t offset, const std::string& log,
                           char flipped) {
  FlipLoss out;
  for (const auto& f : frags) {
    if (f.start <= offset && offset < f.end) {
      const uint64_t block_end = (f.start / log::kBlockSize + 1) * log::kBlockSize;
      const uint64_t end = block_end < log.size() ? block_end : log.size();
      bool past_eof = false;
      if (offset == f.start + 4 || offset == f.start + 5) {
        std::string h = log.substr(f.start, log::kHeaderSize);
        h[offset - f.start] = flipped;
        const uint64_t len = static_cast<uint8_t>(h[4]) | (static_cast<uint64_t>(static_cast<uint8_t>(h[5])) << 8);
        const uint64_t frag_end = f.start + log::kHeaderSize + len;
        past_eof = end == log.size() && frag_end > end && frag_end <= block_end;
      }
      for (const auto& g : frags) {
        if (g.record == f.record || (g.start >= f.start && g.start < end)) out.lost.insert(g.record);
        if (past_eof && g.start > f.start && g.start < end) ++out.hidden;
      }
      break;
    }
  }
  return out;
}

// The offsets where damage tests flip a byte or cut the file: every byte
// of every fragment header and of block padding, the first, second and last
// payload bytes of every fragment, every byte within 8 of a block boundary,
// and every `stride`-th byte (bytes inside one payload all break the same
// checksum, so these cover every case the reader distinguishes). stride 1:
// every offset. Also file_size itself (for truncations: no cut). Under the
// sanitizers (common/test_scale.h) a stride above 1 is 8 times longer: the
// header and edge bytes stay, the payload bytes between them are samples.
inline std::vector<uint64_t> DamageOffsets(const std::string& log, uint64_t stride) {
  if (stride > 1 && kSanitizedBuild) stride *= 8;
  std::set<uint64_t> at;
  for (uint64_t i = 0; i < log.size(); i += stride) at.insert(i);
  uint64_t covered = 0;
  for (const auto& f : LogFragments(log)) {
    for (uint64_t i = covered; i < f.start; ++i) at.insert(i);
    for (uint64_t i = f.start; i < f.start + log::kHeaderSize + 2 && i < f.end; ++i) at.insert(i);
    at.insert(f.end - 1);
    covered = f.end;
  }
  for (uint64_t i = covered; i < log.size(); ++i) at.insert(i);
  for (uint64_t b = 0; b <= log.size() + log::kBlockSize; b += log::kBlockSize) {
    for (uint64_t i = b >= 8 ? b - 8 : 0; i < b + 8; ++i) at.insert(i);
  }
  std::vector<uint64_t> out;
  for (uint64_t i : at) {
    if (i <= log.size()) out.push_back(i);
  }
  return out;
}

}  // namespace filterlab::engine::test
