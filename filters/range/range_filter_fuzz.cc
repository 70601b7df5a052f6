// libFuzzer target over range filters (./filterlab fuzz): every input is
// (1) opened as serialized range-filter bytes, which must give a filter or a
// Status and never crash, and (2) read as a recipe: a registered example spec
// (first byte), up to 256 keys (8 bytes each) and ranges (16 bytes each).
// The filter built from the keys, and the same filter serialized and opened
// again, must answer true for every range that holds a key (no false
// negative, ever) and answer alike. A dynamic filter then deletes the keys
// the data's bits pick and must still find every other key, also through a
// serialized copy.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "filters/range/range_filter.h"
#include "filters/registry.h"

namespace {

uint64_t Load64(const uint8_t* p) {
  uint64_t v;
  std::memcpy(&v, p, 8);
  return v;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace filterlab;
  {
    std::unique_ptr<RangeFilter> opened;
    if (OpenRangeFilter(Slice(data, size), &opened).ok()) {
      for (size_t i = 0; i + 16 <= std::min<size_t>(size, 256); i += 16) {
        const uint64_t a = Load64(data + i), b = Load64(data + i + 8);
        (void)opened->MayContainRange(std::min(a, b), std::max(a, b));
      }
    }
  }
  static const std::vector<std::string> specs = AllRangeExampleSpecs();
  if (size < 1 || specs.empty()) return 0;
  std::unique_ptr<RangeFilterPolicy> policy;
  if (!NewRangeFilterPolicy(specs[data[0] % specs.size()], &policy).ok()) __builtin_trap();
  const size_t key_count = size < 2 ? 0 : std::min<size_t>(data[1], (size - 2) / 8);
  std::vector<uint64_t> keys;
  for (size_t i = 0; i < key_count; ++i) keys.push_back(Load64(data + 2 + 8 * i));
  std::sort(keys.begin(), keys.end());
  keys.erase(std::unique(keys.begin(), keys.end()), keys.end());
  std::unique_ptr<RangeFilter> built, opened;
  if (!policy->Build(keys.data(), keys.size(), &built).ok()) return 0;  // e.g. Grafite's r above 2^60
  const std::string bytes = built->Serialize();
  if (!OpenRangeFilter(bytes, &opened).ok()) __builtin_trap();
  for (size_t i = 2 + 8 * key_count; i + 16 <= size; i += 16) {
    uint64_t lo = Load64(data + i), hi = Load64(data + i + 8);
    if (hi < lo) std::swap(lo, hi);
    const auto it = std::lower_bound(keys.begin(), keys.end(), lo);
    const bool holds = it != keys.end() && *it <= hi;
    const bool answer = built->MayContainRange(lo, hi);
    if (holds && !answer) __builtin_trap();  // a false negative
    if (opened->MayContainRange(lo, hi) != answer) __builtin_trap();
  }
  for (uint64_t k : keys) {
    if (!built->MayContain(k)) __builtin_trap();
  }
  if (!built->SupportsDelete()) return 0;
  std::vector<uint64_t> kept;
  for (size_t i = 0; i < keys.size(); ++i) {
    if ((data[(2 + i) % size] >> (i % 8)) & 1) {
      if (!built->Delete(keys[i]).ok()) __builtin_trap();  // a built key is always there to delete
    } else {
      kept.push_back(keys[i]);
    }
  }
  if (built->num_keys() != kept.size()) __builtin_trap();
  std::unique_ptr<RangeFilter> reopened;
  const std::string after = built->Serialize();
  if (!OpenRangeFilter(after, &reopened).ok()) __builtin_trap();
  for (uint64_t k : kept) {
    if (!built->MayContain(k) || !reopened->MayContain(k)) __builtin_trap();
  }
  return 0;
}
