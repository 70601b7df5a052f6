// The serialized form every range filter shares:
//
//   [data: the variant's bytes][fixed64 XXH3_64(data, layout)][layout][trailer]
//
// i.e. filterlab's trailer (filters/trailer.h) around the data and an 8-byte
// checksum of the data and the layout text. Point filters are small arrays of
// bits where a damaged byte changes answers but cannot send a query astray;
// a range filter's bytes hold offsets, ranks and trie pointers, so a reader
// verifies the checksum first (any damaged byte -> Corruption) and then
// still checks the structure it indexes by against the layout (a layout with
// a valid checksum but impossible values must not crash either).
#pragma once

#include <string>
#include <string_view>

#include "common/slice.h"
#include "common/status.h"

namespace filterlab {

inline constexpr size_t kRangeFilterChecksumBytes = 8;

// Appends data, checksum, layout and trailer to *out.
void AppendRangeFilterBytes(Slice data, std::string_view layout, std::string* out);

// Splits serialized range-filter bytes into the variant's data and its layout
// text, verifying the trailer and the checksum; Corruption with the reason.
Status ParseRangeFilterBytes(Slice bytes, Slice* data, std::string* layout);

}  // namespace filterlab
