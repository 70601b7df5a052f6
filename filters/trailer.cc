#include "filters/trailer.h"

#include <cstdint>
#include <cstring>

namespace filterlab {
namespace {

void PutFixed32(std::string* out, uint32_t v) {
  char b[4];
  for (int i = 0; i < 4; ++i) b[i] = static_cast<char>(v >> (8 * i));
  out->append(b, 4);
}
void PutFixed64(std::string* out, uint64_t v) {
  char b[8];
  for (int i = 0; i < 8; ++i) b[i] = static_cast<char>(v >> (8 * i));
  out->append(b, 8);
}
uint64_t GetFixed(const uint8_t* p, int bytes) {
  uint64_t v = 0;
  for (int i = 0; i < bytes; ++i) v |= uint64_t{p[i]} << (8 * i);
  return v;
}

}  // namespace

void AppendWithFilterlabTrailer(Slice data, std::string_view layout, std::string* out) {
  out->reserve(out->size() + data.size() + layout.size() + kFilterlabTrailerFixedBytes);
  out->append(data.data(), data.size());
  out->append(layout.data(), layout.size());
  PutFixed32(out, static_cast<uint32_t>(layout.size()));
  PutFixed64(out, data.size());
  out->append(kFilterlabTrailerMagic, 4);
}

bool HasFilterlabTrailer(Slice bytes) {
  return bytes.size() >= 4 && std::memcmp(bytes.data() + bytes.size() - 4, kFilterlabTrailerMagic, 4) == 0;
}

Status ParseFilterlabTrailer(Slice bytes, Slice* data, std::string* layout) {
  const size_t total = bytes.size();
  if (!HasFilterlabTrailer(bytes)) {
    return Status::Corruption("filter bytes do not end with the filterlab trailer magic 'FLT1'");
  }
  if (total < kFilterlabTrailerFixedBytes) {
    return Status::Corruption("filterlab trailer truncated: " + std::to_string(total) + " bytes, at least " +
                              std::to_string(kFilterlabTrailerFixedBytes) + " needed");
  }
  const uint8_t* end = bytes.udata() + total;
  const uint64_t data_len = GetFixed(end - 12, 8);
  const uint64_t layout_len = GetFixed(end - 16, 4);
  const uint64_t payload = total - kFilterlabTrailerFixedBytes;
  if (layout_len > payload || data_len != payload - layout_len) {
    return Status::Corruption("filterlab trailer inconsistent: " + std::to_string(total) +
                              " bytes in all, but trailer says data " + std::to_string(data_len) + " + layout " +
                              std::to_string(layout_len) + " + " + std::to_string(kFilterlabTrailerFixedBytes) +
                              " (truncated or corrupted filter)");
  }
  const char* l = bytes.data() + data_len;
  for (uint64_t i = 0; i < layout_len; ++i) {
    if (l[i] < 0x20 || l[i] > 0x7e) {
      return Status::Corruption("filterlab trailer layout text has a non-printable byte at offset " +
                                std::to_string(i));
    }
  }
  *data = Slice(bytes.data(), data_len);
  layout->assign(l, layout_len);
  return Status::OK();
}

}  // namespace filterlab
