// RangeFilterHandle: what one `filterlab.RangeFilter` object holds on the C++
// side — the range filter built or read (filters/range/range_filter.h), the
// policy of its spec when known, and the key type it holds (uint64 or byte
// strings), so queries of the other type are refused instead of answered in
// another key space. Plain C++ without Python types, so every call below can
// run with the GIL released; range_bindings.cc binds it.
//
// Keys need not be sorted: the build sorts and drops repeats (a copy) unless
// they already ascend strictly, the order RangeFilterPolicy::Build takes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "common/status.h"
#include "filters/range/range_filter.h"
#include "filters/registry.h"

namespace filterlab::python {

class RangeFilterHandle {
 public:
  // The key type a filter was built from, and the queries it answers.
  enum class KeyType { kUint64, kBytes };

  // The range policy `spec` names, or the registry's InvalidArgument (what
  // `filterlab-sim rangefp --filter=SPEC` prints after its "--filter: ").
  static Status NewPolicy(std::string_view spec, std::unique_ptr<RangeFilterPolicy>* out);

  // Builds from n uint64 keys in any order (repeats count once).
  static Status BuildFromUint64(std::unique_ptr<RangeFilterPolicy> policy, const uint64_t* keys, size_t n,
                                std::unique_ptr<RangeFilterHandle>* out);
  // Builds from n byte strings data[offsets[i] .. offsets[i + 1]) in any
  // order (repeats count once). A variant that does not take byte strings
  // natively (key_types without bytes) is refused unless `map_to_uint64`:
  // then each string is OrderPreservingUint64 of it (its first 8 bytes,
  // big-endian, zero-padded), as the engine's range filter blocks map keys
  // for such a variant (engine/table/range_filter_block.cc), and the filter
  // holds uint64 keys.
  static Status BuildFromBinary(std::unique_ptr<RangeFilterPolicy> policy, const int64_t* offsets, const uint8_t* data,
                                size_t data_size, size_t n, bool map_to_uint64,
                                std::unique_ptr<RangeFilterHandle>* out);

  // Reads serialized bytes (to_bytes, an engine range filter block): the
  // layout in the trailer names the variant. `policy` (may be null) is the
  // spec's, needed only by ModelFp; it must name the layout's variant.
  static Status Open(std::string bytes, std::unique_ptr<RangeFilterPolicy> policy, KeyType key_type,
                     std::unique_ptr<RangeFilterHandle>* out);

  // results[i] = MayContainRange(lo[i], hi[i]); InvalidArgument naming the
  // first i with hi[i] < lo[i] (CheckedMayContainRange's message).
  Status MayContainRange(const uint64_t* lo, const uint64_t* hi, size_t n, bool* results) const;
  // The same for byte-string ends, bytewise order.
  Status MayContainBytesRange(const int64_t* lo_offsets, const uint8_t* lo_data, size_t lo_size,
                              const int64_t* hi_offsets, const uint8_t* hi_data, size_t hi_size, size_t n,
                              bool* results) const;
  // Point queries: results[i] = MayContain(key i).
  Status MayContainUint64(const uint64_t* keys, size_t n, bool* results) const;
  Status MayContainBinary(const int64_t* offsets, const uint8_t* data, size_t data_size, size_t n, bool* results) const;

  // The policy's model (or bound) FP rate for an empty range of `range_length`
  // values among n keys (NaN for a variant without a model).
  Status ModelFp(uint64_t n, uint64_t range_length, double* fp) const;
  // results[i] = the filter's QueryModelFp for [lo[i], hi[i]] given the keys
  // it was built from (any order; sorted here if they are not).
  Status QueryModelFp(const uint64_t* keys, size_t num_keys, const uint64_t* lo, const uint64_t* hi, size_t n,
                      double* results) const;

  const RangeFilter& filter() const { return *filter_; }
  // Null when read from bytes without a spec.
  const RangeFilterPolicy* policy() const { return policy_.get(); }
  const RangeFilterVariant& variant() const { return *variant_; }
  KeyType key_type() const { return key_type_; }

 private:
  RangeFilterHandle() = default;
  Status CheckKeyType(KeyType given, const char* what) const;

  std::unique_ptr<RangeFilterPolicy> policy_;
  const RangeFilterVariant* variant_ = nullptr;
  std::string bytes_;  // what an opened filter reads in place; declared before filter_, so it outlives it
  std::unique_ptr<RangeFilter> filter_;
  KeyType key_type_ = KeyType::kUint64;
};

// "uint64" or "bytes".
const char* KeyTypeName(RangeFilterHandle::KeyType type);

}  // namespace filterlab::python
