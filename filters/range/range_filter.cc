// Defaults of the range-filter interface, the key maps, and the reader that
// dispatches serialized range filters to their variant (range_filter.h).
#include "filters/range/range_filter.h"

#include <cmath>
#include <vector>

#include "filters/filter_spec.h"
#include "filters/range/range_serialization.h"
#include "filters/registry.h"

namespace filterlab {

std::string RangeKeyTypesName(unsigned types) {
  std::string s;
  if (types & kRangeKeysUint64) s += "uint64";
  if (types & kRangeKeysBytes) s += s.empty() ? "bytes" : ",bytes";
  return s;
}

std::string EncodeBigEndian64(uint64_t key) {
  std::string s(8, '\0');
  EncodeBigEndian64(key, s.data());
  return s;
}

uint64_t OrderPreservingUint64(Slice key) {
  uint64_t v = 0;
  const size_t n = key.size() < 8 ? key.size() : 8;
  for (size_t i = 0; i < n; ++i) v |= uint64_t{key.udata()[i]} << (56 - 8 * i);
  return v;
}

bool RangeFilter::MayContainBytesRange(Slice lo, Slice hi) const {
  return MayContainRange(OrderPreservingUint64(lo), OrderPreservingUint64(hi));
}

Status RangeFilter::CheckedMayContainRange(uint64_t lo, uint64_t hi, bool* may_contain) const {
  if (hi < lo) {
    return Status::InvalidArgument("range [" + std::to_string(lo) + ", " + std::to_string(hi) +
                                   "] has hi < lo; ranges are inclusive and need lo <= hi");
  }
  *may_contain = MayContainRange(lo, hi);
  return Status::OK();
}

Status RangeFilter::CheckedMayContainBytesRange(Slice lo, Slice hi, bool* may_contain) const {
  if (hi.compare(lo) < 0) {
    return Status::InvalidArgument("byte-string range with hi < lo (lo " + std::to_string(lo.size()) + " bytes, hi " +
                                   std::to_string(hi.size()) +
                                   " bytes); ranges are inclusive and need lo <= hi in bytewise order");
  }
  *may_contain = MayContainBytesRange(lo, hi);
  return Status::OK();
}

Status RangeFilter::Insert(uint64_t) {
  return Status::NotSupported("range filter '" + Describe() + "' is static: it takes no inserts after Build");
}

Status RangeFilter::Delete(uint64_t) {
  return Status::NotSupported("range filter '" + Describe() + "' is static: it takes no deletes");
}

Status RangeFilterPolicy::BuildBytes(const Slice* sorted_keys, size_t n, std::unique_ptr<RangeFilter>* out) const {
  Status s = CheckSortedUnique(sorted_keys, n);
  if (!s.ok()) return s;
  std::vector<uint64_t> mapped;
  mapped.reserve(n);
  for (size_t i = 0; i < n; ++i) {
    const uint64_t k = OrderPreservingUint64(sorted_keys[i]);
    if (mapped.empty() || mapped.back() != k) mapped.push_back(k);
  }
  return Build(mapped.data(), mapped.size(), out);
}

Status RangeFilterPolicy::NewDynamic(uint64_t, std::unique_ptr<RangeFilter>*) const {
  return Status::NotSupported("range filter '" + spec() + "' is static: build it from sorted keys");
}

double RangeFilter::QueryModelFp(const uint64_t*, size_t, uint64_t, uint64_t) const { return std::nan(""); }

Status CheckSortedUnique(const uint64_t* keys, size_t n) {
  for (size_t i = 1; i < n; ++i) {
    if (keys[i] <= keys[i - 1]) {
      return Status::InvalidArgument("range filter keys must be sorted ascending without repeats: key #" +
                                     std::to_string(i) + " (" + std::to_string(keys[i]) + ") follows " +
                                     std::to_string(keys[i - 1]));
    }
  }
  return Status::OK();
}

Status CheckSortedUnique(const Slice* keys, size_t n) {
  for (size_t i = 1; i < n; ++i) {
    if (keys[i].compare(keys[i - 1]) <= 0) {
      return Status::InvalidArgument("range filter keys must be byte strings sorted bytewise without repeats: key #" +
                                     std::to_string(i) + " does not follow key #" + std::to_string(i - 1));
    }
  }
  return Status::OK();
}

Status OpenRangeFilter(Slice bytes, std::unique_ptr<RangeFilter>* out) {
  Slice data;
  std::string layout_text;
  Status s = ParseRangeFilterBytes(bytes, &data, &layout_text);
  if (!s.ok()) return s;
  FilterSpec layout;
  s = FilterSpec::Parse(layout_text, &layout);
  if (!s.ok()) return Status::Corruption("range filter layout is malformed: " + s.message());
  const RangeFilterVariant* v = FindRangeFilterVariant(layout.variant());
  if (v == nullptr || v->open_layout == nullptr) {
    std::string known;
    for (const auto* r : RegisteredRangeFilterVariants()) known += (known.empty() ? "" : ", ") + std::string(r->name);
    return Status::Corruption("range filter layout names variant '" + layout.variant() +
                              "', which has no range-filter reader in this build; known: " + known);
  }
  s = v->open_layout(layout, data, out);
  if (!s.ok() && !s.IsCorruption()) s = Status::Corruption(s.message());
  return s;
}

}  // namespace filterlab
