#include "filters/range/range_serialization.h"

#include <cstdint>
#include <cstring>

#include "filters/trailer.h"
#include "hashing/xxh3.h"

namespace filterlab {
namespace {

uint64_t ChecksumOf(Slice data, std::string_view layout) {
  return XXH3_64(layout.data(), layout.size(), XXH3_64(data.data(), data.size()));
}

}  // namespace

void AppendRangeFilterBytes(Slice data, std::string_view layout, std::string* out) {
  std::string payload;
  payload.reserve(data.size() + kRangeFilterChecksumBytes);
  payload.append(data.data(), data.size());
  const uint64_t sum = ChecksumOf(data, layout);
  char b[8];
  for (int i = 0; i < 8; ++i) b[i] = static_cast<char>(sum >> (8 * i));
  payload.append(b, 8);
  AppendWithFilterlabTrailer(Slice(payload), layout, out);
}

Status ParseRangeFilterBytes(Slice bytes, Slice* data, std::string* layout) {
  Slice payload;
  Status s = ParseFilterlabTrailer(bytes, &payload, layout);
  if (!s.ok()) return s;
  if (payload.size() < kRangeFilterChecksumBytes) {
    return Status::Corruption("range filter data of " + std::to_string(payload.size()) +
                              " bytes is shorter than its 8-byte checksum");
  }
  const Slice d(payload.data(), payload.size() - kRangeFilterChecksumBytes);
  uint64_t stored = 0;
  for (int i = 0; i < 8; ++i) stored |= uint64_t{payload.udata()[d.size() + i]} << (8 * i);
  if (stored != ChecksumOf(d, *layout)) {
    return Status::Corruption("range filter checksum mismatch (layout '" + *layout + "', " + std::to_string(d.size()) +
                              " data bytes): the bytes are damaged");
  }
  *data = d;
  return Status::OK();
}

}  // namespace filterlab
