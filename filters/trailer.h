// filterlab's serialized-filter trailer, for variants that have no native
// (RocksDB) format. Layout of a serialized filter:
//
//   [data: data_len bytes][layout: L bytes of ASCII spec][fixed32 L]
//   [fixed64 data_len]["FLT1"]
//
// The layout string is the filter's Describe() text: the variant name and
// every parameter its reader needs (e.g. "worm:variant=cache_worm64,hash=64,
// probes=6,bits=10000"), so a reader needs nothing but the bytes. The magic
// can never be mistaken for a RocksDB legacy trailer (whose last four bytes
// are a line count that the legacy format caps far below 0x31544c46).
#pragma once

#include <string>
#include <string_view>

#include "common/slice.h"
#include "common/status.h"

namespace filterlab {

inline constexpr char kFilterlabTrailerMagic[4] = {'F', 'L', 'T', '1'};
inline constexpr size_t kFilterlabTrailerFixedBytes = 4 + 8 + 4;

// Appends data, layout and the fixed fields to *out.
void AppendWithFilterlabTrailer(Slice data, std::string_view layout, std::string* out);

// True if `bytes` end with the filterlab magic (then ParseFilterlabTrailer decides validity).
bool HasFilterlabTrailer(Slice bytes);

// Splits a serialized filter; Corruption with the reason if the lengths do not
// add up or the layout is not printable text.
Status ParseFilterlabTrailer(Slice bytes, Slice* data, std::string* layout);

}  // namespace filterlab
