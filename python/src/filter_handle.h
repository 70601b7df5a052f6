// FilterHandle: what one `filterlab.Filter` object holds on the C++ side — a
// policy (from the spec, through the registry), the filter built or read
// with it, and how its uint64 queries are meant (hashes or integer keys).
// Plain C++ without Python types, so every call below can run with the GIL
// released; module.cc binds it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "common/status.h"
#include "filters/filter.h"

namespace filterlab::python {

class FilterHandle {
 public:
  // How a uint64 array handed to the filter is read (key_hashing.h).
  enum class Uint64Keys { kIntegerKeys, kHashes };

  // The policy `spec` names, or the registry's InvalidArgument (the message
  // the command line prints for the same spec).
  static Status NewPolicy(std::string_view spec, std::unique_ptr<FilterPolicy>* out);

  // Builds from n uint64 values read as `kind`. A value equal to the one
  // before it counts once, as the engine's filter blocks count the versions
  // of one key (engine/table/filter_block.h, BuildFilterFromKeys).
  static Status BuildFromUint64(std::unique_ptr<FilterPolicy> policy, Uint64Keys kind, const uint64_t* values, size_t n,
                                std::unique_ptr<FilterHandle>* out);
  // Builds from n byte-string keys data[offsets[i] .. offsets[i + 1]).
  template <class Offset>
  static Status BuildFromBinary(std::unique_ptr<FilterPolicy> policy, const Offset* offsets, const uint8_t* data,
                                size_t data_size, size_t n, std::unique_ptr<FilterHandle>* out);

  // Reads a filter serialized by to_bytes / the engine's filter blocks. As the
  // engine's reader, the spec supplies the key hash and must make hashes of the
  // filter's width; num_keys (when known) gives bits_per_key and the model.
  static Status Open(std::string bytes, std::unique_ptr<FilterPolicy> policy, Uint64Keys kind,
                     std::optional<uint64_t> num_keys, std::unique_ptr<FilterHandle>* out);

  // results[i] = MayContain(key i) for uint64 keys read as this filter's kind.
  Status MayContainUint64(const uint64_t* values, size_t n, bool* results) const;
  template <class Offset>
  Status MayContainBinary(const Offset* offsets, const uint8_t* data, size_t data_size, size_t n, bool* results) const;

  const FilterPolicy& policy() const { return *policy_; }
  const Filter& filter() const { return *filter_; }
  Uint64Keys uint64_keys() const { return kind_; }
  // Entries the filter was built from (after dropping repeats), if known.
  std::optional<uint64_t> num_keys() const { return num_keys_; }

  // The policy's model FP rate for a filter of n distinct keys
  // (ModelFpRateAt: InvalidArgument where the model has no value).
  Status ModelFp(uint64_t n, double* fp) const;

 private:
  FilterHandle() = default;
  static Status Finish(std::unique_ptr<FilterPolicy> policy, Uint64Keys kind, const uint64_t* hashes, size_t n,
                       std::unique_ptr<FilterHandle>* out);

  std::unique_ptr<FilterPolicy> policy_;
  std::string bytes_;  // what an opened filter reads in place; declared before filter_, so it outlives it
  std::unique_ptr<Filter> filter_;
  Uint64Keys kind_ = Uint64Keys::kIntegerKeys;
  std::optional<uint64_t> num_keys_;
};

}  // namespace filterlab::python
