#include "python/src/range_filter_handle.h"

#include <algorithm>
#include <exception>
#include <vector>

#include "common/slice.h"
#include "filters/filter_spec.h"
#include "filters/range/radix_sort.h"
#include "python/src/key_hashing.h"
#include "sim/machine.h"

namespace filterlab::python {

namespace {

bool AscendsStrictly(const uint64_t* v, size_t n) {
  for (size_t i = 1; i < n; ++i) {
    if (v[i] <= v[i - 1]) return false;
  }
  return true;
}

// The keys sorted ascending without repeats (radix_sort.h, the sort Grafite's
// build uses).
void SortUnique(std::vector<uint64_t>* v) {
  if (v->empty()) return;
  RadixSortBelow(v, *std::max_element(v->begin(), v->end()));
  v->erase(std::unique(v->begin(), v->end()), v->end());
}

std::vector<Slice> Slices(const int64_t* offsets, const uint8_t* data, size_t n) {
  std::vector<Slice> out;
  out.reserve(n);
  for (size_t i = 0; i < n; ++i) {
    out.emplace_back(reinterpret_cast<const char*>(data + offsets[i]),
                     static_cast<size_t>(offsets[i + 1] - offsets[i]));
  }
  return out;
}

// The build's peak beside the caller's keys: the variant's own estimate plus
// the sorted copy (and the radix sort's scratch) when one is made.
Status CheckBuildMemory(const RangeFilterPolicy& policy, size_t n, uint64_t copy_bytes) {
  return sim::CheckMemory(policy.BuildMemoryBytes(n) + copy_bytes,
                          "building range filter '" + policy.spec() + "' over " + std::to_string(n) + " keys");
}

Status Query(size_t i, const Status& s) {
  return s.ok() ? s : Status::InvalidArgument("query " + std::to_string(i) + ": " + s.message());
}

}  // namespace

const char* KeyTypeName(RangeFilterHandle::KeyType type) {
  return type == RangeFilterHandle::KeyType::kUint64 ? "uint64" : "byte-string";
}

Status RangeFilterHandle::NewPolicy(std::string_view spec, std::unique_ptr<RangeFilterPolicy>* out) {
  return NewRangeFilterPolicy(spec, out);
}

Status RangeFilterHandle::BuildFromUint64(std::unique_ptr<RangeFilterPolicy> policy, const uint64_t* keys, size_t n,
                                          std::unique_ptr<RangeFilterHandle>* out) {
  std::unique_ptr<RangeFilterHandle> h(new RangeFilterHandle());
  h->variant_ = FindRangeFilterVariant(policy->variant());
  Status s;
  if (AscendsStrictly(keys, n)) {
    // Already the order Build takes: built straight from the caller's array.
    s = CheckBuildMemory(*policy, n, 0);
    if (s.ok()) s = policy->Build(keys, n, &h->filter_);
  } else {
    s = CheckBuildMemory(*policy, n, 16 * uint64_t{n});
    if (!s.ok()) return s;
    std::vector<uint64_t> sorted(keys, keys + n);
    SortUnique(&sorted);
    s = policy->Build(sorted.data(), sorted.size(), &h->filter_);
  }
  if (!s.ok()) return s;
  h->policy_ = std::move(policy);
  h->key_type_ = KeyType::kUint64;
  *out = std::move(h);
  return Status::OK();
}

Status RangeFilterHandle::BuildFromBinary(std::unique_ptr<RangeFilterPolicy> policy, const int64_t* offsets,
                                          const uint8_t* data, size_t data_size, size_t n, bool map_to_uint64,
                                          std::unique_ptr<RangeFilterHandle>* out) {
  Status s = CheckOffsets(offsets, n, data_size);
  if (!s.ok()) return s;
  const std::vector<Slice> keys = Slices(offsets, data, n);
  std::unique_ptr<RangeFilterHandle> h;
  if ((policy->key_types() & kRangeKeysBytes) == 0) {
    if (!map_to_uint64) {
      return Status::InvalidArgument("range filter '" + policy->spec() + "' takes " +
                                     RangeKeyTypesName(policy->key_types()) +
                                     " keys, not byte strings; pass integer keys, or bytes_as_uint64=True to key each "
                                     "string by its first 8 bytes big-endian (zero-padded; strings sharing them "
                                     "merge), as the engine's range filter blocks do for this variant");
    }
    // The engine's map (RangeFilterBlockBuilder::AddKey), monotone in bytewise
    // order, so sorting the mapped values sorts the strings.
    std::vector<uint64_t> mapped(n);
    for (size_t i = 0; i < n; ++i) mapped[i] = OrderPreservingUint64(keys[i]);
    s = BuildFromUint64(std::move(policy), mapped.data(), n, &h);
  } else {
    h.reset(new RangeFilterHandle());
    h->variant_ = FindRangeFilterVariant(policy->variant());
    if (CheckSortedUnique(keys.data(), n).ok()) {
      s = CheckBuildMemory(*policy, n, 0);
      if (s.ok()) s = policy->BuildBytes(keys.data(), n, &h->filter_);
    } else {
      s = CheckBuildMemory(*policy, n, sizeof(Slice) * uint64_t{n});
      if (!s.ok()) return s;
      std::vector<Slice> sorted = keys;
      std::sort(sorted.begin(), sorted.end(), [](const Slice& a, const Slice& b) { return a.compare(b) < 0; });
      sorted.erase(std::unique(sorted.begin(), sorted.end()), sorted.end());
      s = policy->BuildBytes(sorted.data(), sorted.size(), &h->filter_);
    }
    if (s.ok()) h->policy_ = std::move(policy);
  }
  if (!s.ok()) return s;
  h->key_type_ = KeyType::kBytes;
  *out = std::move(h);
  return Status::OK();
}

Status RangeFilterHandle::Open(std::string bytes, std::unique_ptr<RangeFilterPolicy> policy, KeyType key_type,
                               std::unique_ptr<RangeFilterHandle>* out) {
  std::unique_ptr<RangeFilterHandle> h(new RangeFilterHandle());
  h->bytes_ = std::move(bytes);
  Status s = OpenRangeFilter(Slice(h->bytes_), &h->filter_);
  if (!s.ok()) return s;
  FilterSpec layout;
  s = FilterSpec::Parse(h->filter_->Describe(), &layout);
  h->variant_ = s.ok() ? FindRangeFilterVariant(layout.variant()) : nullptr;
  if (h->variant_ == nullptr) {  // OpenRangeFilter found the reader by this name, so it is registered
    return Status::Corruption("range filter layout '" + h->filter_->Describe() + "' names no registered variant");
  }
  if (policy != nullptr && policy->variant() != layout.variant()) {
    return Status::InvalidArgument("the bytes hold a '" + layout.variant() + "' range filter (layout '" +
                                   h->filter_->Describe() + "'), but the spec '" + policy->spec() +
                                   "' names variant '" + std::string(policy->variant()) + "'");
  }
  h->policy_ = std::move(policy);
  h->key_type_ = key_type;
  *out = std::move(h);
  return Status::OK();
}

Status RangeFilterHandle::CheckKeyType(KeyType given, const char* what) const {
  if (given == key_type_) return Status::OK();
  return Status::InvalidArgument(std::string(what) + ": this range filter holds " + KeyTypeName(key_type_) +
                                 " keys, so it is queried with " + KeyTypeName(key_type_) + " values; got " +
                                 KeyTypeName(given) + " ones");
}

Status RangeFilterHandle::MayContainRange(const uint64_t* lo, const uint64_t* hi, size_t n, bool* results) const {
  Status s = CheckKeyType(KeyType::kUint64, "lo, hi");
  if (!s.ok()) return s;
  const RangeFilter& f = *filter_;
  for (size_t i = 0; i < n; ++i) {
    if (hi[i] < lo[i]) return Query(i, f.CheckedMayContainRange(lo[i], hi[i], &results[i]));
    results[i] = f.MayContainRange(lo[i], hi[i]);
  }
  return Status::OK();
}

Status RangeFilterHandle::MayContainBytesRange(const int64_t* lo_offsets, const uint8_t* lo_data, size_t lo_size,
                                               const int64_t* hi_offsets, const uint8_t* hi_data, size_t hi_size,
                                               size_t n, bool* results) const {
  Status s = CheckKeyType(KeyType::kBytes, "lo, hi");
  if (s.ok()) s = CheckOffsets(lo_offsets, n, lo_size);
  if (s.ok()) s = CheckOffsets(hi_offsets, n, hi_size);
  if (!s.ok()) return s;
  for (size_t i = 0; i < n; ++i) {
    const Slice lo(reinterpret_cast<const char*>(lo_data + lo_offsets[i]),
                   static_cast<size_t>(lo_offsets[i + 1] - lo_offsets[i]));
    const Slice hi(reinterpret_cast<const char*>(hi_data + hi_offsets[i]),
                   static_cast<size_t>(hi_offsets[i + 1] - hi_offsets[i]));
    s = filter_->CheckedMayContainBytesRange(lo, hi, &results[i]);
    if (!s.ok()) return Query(i, s);
  }
  return Status::OK();
}

Status RangeFilterHandle::MayContainUint64(const uint64_t* keys, size_t n, bool* results) const {
  Status s = CheckKeyType(KeyType::kUint64, "keys");
  if (!s.ok()) return s;
  for (size_t i = 0; i < n; ++i) results[i] = filter_->MayContain(keys[i]);
  return Status::OK();
}

Status RangeFilterHandle::MayContainBinary(const int64_t* offsets, const uint8_t* data, size_t data_size, size_t n,
                                           bool* results) const {
  Status s = CheckKeyType(KeyType::kBytes, "keys");
  if (s.ok()) s = CheckOffsets(offsets, n, data_size);
  if (!s.ok()) return s;
  for (size_t i = 0; i < n; ++i) {
    results[i] = filter_->MayContainBytes(
        Slice(reinterpret_cast<const char*>(data + offsets[i]), static_cast<size_t>(offsets[i + 1] - offsets[i])));
  }
  return Status::OK();
}

Status RangeFilterHandle::ModelFp(uint64_t n, uint64_t range_length, double* fp) const {
  if (policy_ == nullptr) {
    return Status::InvalidArgument(
        "model_fp: this range filter was read from bytes without a spec; pass spec= to "
        "RangeFilter.from_bytes (the layout is '" +
        filter_->Describe() + "')");
  }
  if (range_length == 0) return Status::InvalidArgument("range_length: got 0; allowed: >= 1 (values per range)");
  try {
    *fp = policy_->ModelFpRate(n, range_length);
  } catch (const std::exception& e) {  // a model outside its domain: say so instead of ending the interpreter
    return Status::InvalidArgument("range filter '" + policy_->spec() + "': no model FP rate for " + std::to_string(n) +
                                   " keys and ranges of " + std::to_string(range_length) + " values: " + e.what());
  }
  return Status::OK();
}

Status RangeFilterHandle::QueryModelFp(const uint64_t* keys, size_t num_keys, const uint64_t* lo, const uint64_t* hi,
                                       size_t n, double* results) const {
  Status s = CheckKeyType(KeyType::kUint64, "query_model_fp");
  if (!s.ok()) return s;
  std::vector<uint64_t> sorted;
  if (!AscendsStrictly(keys, num_keys)) {
    sorted.assign(keys, keys + num_keys);
    SortUnique(&sorted);
    keys = sorted.data();
    num_keys = sorted.size();
  }
  if (num_keys != filter_->num_keys()) {
    return Status::InvalidArgument("query_model_fp: the filter holds " + std::to_string(filter_->num_keys()) +
                                   " distinct keys but " + std::to_string(num_keys) +
                                   " were given; pass the keys it was built from");
  }
  for (size_t i = 0; i < n; ++i) {
    if (hi[i] < lo[i]) {
      bool unused;
      return Query(i, filter_->CheckedMayContainRange(lo[i], hi[i], &unused));
    }
    results[i] = filter_->QueryModelFp(keys, num_keys, lo[i], hi[i]);
  }
  return Status::OK();
}

}  // namespace filterlab::python
