#include "python/src/filter_handle.h"

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <vector>

#include "filters/registry.h"
#include "python/src/key_hashing.h"
#include "sim/machine.h"

namespace filterlab::python {

Status CheckHashWidth(HashWidth width, const std::string& spec, const uint64_t* hashes, size_t n) {
  if (width == HashWidth::k64) return Status::OK();
  for (size_t i = 0; i < n; ++i) {
    if (hashes[i] > 0xffffffffu) {
      char value[32];
      std::snprintf(value, sizeof value, "0x%" PRIx64, hashes[i]);
      return Status::InvalidArgument("filter '" + spec + "' takes 32-bit hashes, but hash " + std::to_string(i) +
                                     " is " + value +
                                     ", which does not fit in 32 bits; pass keys (hashed=False) or the hashes' "
                                     "low 32 bits");
    }
  }
  return Status::OK();
}

namespace {

// Drops each value equal to the one before it, in place; returns the count kept.
size_t DropRepeats(uint64_t* v, size_t n) {
  if (n == 0) return 0;
  size_t kept = 1;
  for (size_t i = 1; i < n; ++i) {
    if (v[i] != v[kept - 1]) v[kept++] = v[i];
  }
  return kept;
}

bool HasRepeats(const uint64_t* v, size_t n) {
  for (size_t i = 1; i < n; ++i) {
    if (v[i] == v[i - 1]) return true;
  }
  return false;
}

// What a build of n keys needs besides the caller's keys: the hashes (when
// made here), the filter (generously at the requested bits/key, or 64 for a
// layout sized otherwise) and the variant's own working memory.
Status CheckBuildMemory(const FilterPolicy& policy, size_t n, bool hashes_made_here) {
  const double bpk = policy.bits_per_key() > 0 ? policy.bits_per_key() : 64;
  const uint64_t needed = (hashes_made_here ? 8 * uint64_t{n} : 0) +
                          static_cast<uint64_t>(1.5 * bpk / 8 * static_cast<double>(n)) + policy.BuildTemporaryBytes(n);
  return sim::CheckMemory(needed, "building '" + policy.spec() + "' over " + std::to_string(n) + " keys");
}

}  // namespace

Status FilterHandle::NewPolicy(std::string_view spec, std::unique_ptr<FilterPolicy>* out) {
  return NewFilterPolicy(spec, out);
}

Status FilterHandle::Finish(std::unique_ptr<FilterPolicy> policy, Uint64Keys kind, const uint64_t* hashes, size_t n,
                            std::unique_ptr<FilterHandle>* out) {
  std::unique_ptr<FilterHandle> h(new FilterHandle());
  Status s = policy->Build(hashes, n, &h->filter_);
  if (!s.ok()) return s;
  h->policy_ = std::move(policy);
  h->kind_ = kind;
  h->num_keys_ = n;
  *out = std::move(h);
  return Status::OK();
}

Status FilterHandle::BuildFromUint64(std::unique_ptr<FilterPolicy> policy, Uint64Keys kind, const uint64_t* values,
                                     size_t n, std::unique_ptr<FilterHandle>* out) {
  if (kind == Uint64Keys::kHashes) {
    Status s = CheckHashWidth(policy->hash_width(), policy->spec(), values, n);
    if (!s.ok()) return s;
    // The common case (no value repeats the one before it) builds straight from
    // the caller's array, as the C++ build does.
    const bool repeats = HasRepeats(values, n);
    s = CheckBuildMemory(*policy, n, repeats);
    if (!s.ok()) return s;
    if (!repeats) return Finish(std::move(policy), kind, values, n, out);
    std::vector<uint64_t> kept(values, values + n);
    const size_t m = DropRepeats(kept.data(), n);
    return Finish(std::move(policy), kind, kept.data(), m, out);
  }
  Status s = CheckBuildMemory(*policy, n, true);
  if (!s.ok()) return s;
  std::vector<uint64_t> hashes(n);
  HashIntegerKeys(*policy, values, n, hashes.data());
  const size_t m = DropRepeats(hashes.data(), n);
  return Finish(std::move(policy), kind, hashes.data(), m, out);
}

template <class Offset>
Status FilterHandle::BuildFromBinary(std::unique_ptr<FilterPolicy> policy, const Offset* offsets, const uint8_t* data,
                                     size_t data_size, size_t n, std::unique_ptr<FilterHandle>* out) {
  Status s = CheckOffsets(offsets, n, data_size);
  if (s.ok()) s = CheckBuildMemory(*policy, n, true);
  if (!s.ok()) return s;
  std::vector<uint64_t> hashes(n);
  HashBinaryKeys(*policy, offsets, data, 0, n, hashes.data());
  const size_t m = DropRepeats(hashes.data(), n);
  return Finish(std::move(policy), Uint64Keys::kIntegerKeys, hashes.data(), m, out);
}

Status FilterHandle::Open(std::string bytes, std::unique_ptr<FilterPolicy> policy, Uint64Keys kind,
                          std::optional<uint64_t> num_keys, std::unique_ptr<FilterHandle>* out) {
  std::unique_ptr<FilterHandle> h(new FilterHandle());
  h->bytes_ = std::move(bytes);
  Status s = OpenFilter(Slice(h->bytes_), &h->filter_);
  if (!s.ok()) return s;
  // The engine's check on a table's filter block (FilterBlockReader::Open).
  if (h->filter_->hash_width() != policy->hash_width()) {
    return Status::InvalidArgument("filter '" + h->filter_->Describe() + "' takes " +
                                   HashWidthText(h->filter_->hash_width()) + "-bit hashes but the filter spec '" +
                                   policy->spec() + "' makes " + HashWidthText(policy->hash_width()) + "-bit ones");
  }
  h->policy_ = std::move(policy);
  h->kind_ = kind;
  h->num_keys_ = num_keys;
  *out = std::move(h);
  return Status::OK();
}

Status FilterHandle::MayContainUint64(const uint64_t* values, size_t n, bool* results) const {
  if (kind_ == Uint64Keys::kHashes) {
    Status s = CheckHashWidth(filter_->hash_width(), policy_->spec(), values, n);
    if (!s.ok()) return s;
    for (size_t start = 0; start < n; start += kChunk) {
      filter_->MayContainBatch(values + start, std::min(kChunk, n - start), results + start);
    }
    return Status::OK();
  }
  uint64_t hashes[kChunk];
  for (size_t start = 0; start < n; start += kChunk) {
    const size_t m = std::min(kChunk, n - start);
    HashIntegerKeys(*policy_, values + start, m, hashes);
    filter_->MayContainBatch(hashes, m, results + start);
  }
  return Status::OK();
}

template <class Offset>
Status FilterHandle::MayContainBinary(const Offset* offsets, const uint8_t* data, size_t data_size, size_t n,
                                      bool* results) const {
  Status s = CheckOffsets(offsets, n, data_size);
  if (!s.ok()) return s;
  uint64_t hashes[kChunk];
  for (size_t start = 0; start < n; start += kChunk) {
    const size_t m = std::min(kChunk, n - start);
    HashBinaryKeys(*policy_, offsets, data, start, m, hashes);
    filter_->MayContainBatch(hashes, m, results + start);
  }
  return Status::OK();
}

Status FilterHandle::ModelFp(uint64_t n, double* fp) const { return ModelFpRateAt(*policy_, n, fp); }

template Status FilterHandle::BuildFromBinary<int32_t>(std::unique_ptr<FilterPolicy>, const int32_t*, const uint8_t*,
                                                       size_t, size_t, std::unique_ptr<FilterHandle>*);
template Status FilterHandle::BuildFromBinary<int64_t>(std::unique_ptr<FilterPolicy>, const int64_t*, const uint8_t*,
                                                       size_t, size_t, std::unique_ptr<FilterHandle>*);
template Status FilterHandle::MayContainBinary<int32_t>(const int32_t*, const uint8_t*, size_t, size_t, bool*) const;
template Status FilterHandle::MayContainBinary<int64_t>(const int64_t*, const uint8_t*, size_t, size_t, bool*) const;

}  // namespace filterlab::python
