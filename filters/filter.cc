#include "filters/filter.h"

#include <algorithm>
#include <cstdlib>
#include <vector>

namespace filterlab {

void Filter::MayContainBatch(const uint64_t* hashes, size_t n, bool* results) const {
  for (size_t i = 0; i < n; ++i) results[i] = MayContain(hashes[i]);
}

namespace {
bool ObjectMayContain(const FilterView& view, uint64_t hash) {
  return static_cast<const Filter*>(view.data)->MayContain(hash);
}
void ObjectPrefetch(const FilterView& view, uint64_t hash) { static_cast<const Filter*>(view.data)->Prefetch(hash); }
void ObjectMayContainBatch(const FilterView& view, const uint64_t* hashes, size_t n, bool* results) {
  static_cast<const Filter*>(view.data)->MayContainBatch(hashes, n, results);
}
constexpr FilterView::Ops kObjectOps{&ObjectMayContain, &ObjectPrefetch, &ObjectMayContainBatch};
}  // namespace

FilterView Filter::View() const { return FilterView{&kObjectOps, this, 0}; }

void Filter::Add(uint64_t) { std::abort(); }  // precondition SupportsAdd() violated

void Filter::AddConcurrently(uint64_t) { std::abort(); }  // precondition SupportsAdd() violated

void FilterPolicy::HashKeys(const Slice* keys, size_t n, uint64_t* out) const {
  for (size_t i = 0; i < n; ++i) out[i] = HashKey(keys[i]);
}

Status FilterPolicy::NewDynamic(size_t, std::unique_ptr<Filter>*) const {
  return Status::NotSupported("filter variant '" + std::string(variant()) +
                              "' is static: build it from all its hashes at once (dynamic variants: dynamic)");
}

Status BuildFilterFromKeys(const FilterPolicy& policy, const Slice* keys, size_t n, std::unique_ptr<Filter>* out) {
  // HashKeys: a variant whose hash vectorises across keys hashes them at that speed. A hash equal to
  // the one before is dropped (sorted or repeated keys), as RocksDB's builders drop a repeat.
  std::vector<uint64_t> hashes(n);
  policy.HashKeys(keys, n, hashes.data());
  hashes.erase(std::unique(hashes.begin(), hashes.end()), hashes.end());
  return policy.Build(hashes.data(), hashes.size(), out);
}

}  // namespace filterlab
