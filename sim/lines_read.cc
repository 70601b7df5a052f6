// Lines a query reads, by refilling each line (lines_read.h).
#include "sim/lines_read.h"

#include <cstring>
#include <memory>

#include "common/aligned_array.h"
#include "filters/policy_open.h"
#include "hashing/remix.h"

namespace filterlab::sim {

Status LinesPerQuery(const FilterPolicy& policy, const std::string& serialized, const std::vector<uint64_t>& added,
                     double* lines_per_query) {
  if (added.empty()) return Status::InvalidArgument("lines per query: no added keys to ask");
  const size_t bytes = serialized.size();
  const size_t lines = (bytes + 63) / 64;
  CacheAlignedArray<char> buf(lines * 64);
  std::memcpy(buf.data(), serialized.data(), bytes);
  std::unique_ptr<Filter> filter;
  Status s = OpenFilterFor(policy, Slice(buf.data(), bytes), &filter);
  if (!s.ok()) return Status::Corruption("lines per query: reopening the filter failed: " + s.message());
  for (uint64_t h : added) {
    if (!filter->MayContain(h)) return Status::Corruption("lines per query: " + policy.spec() + " lost an added key");
  }
  uint64_t counted = 0;
  std::vector<char> changed(added.size());
  char saved[64];
  for (size_t line = 0; line < lines; ++line) {
    char* at = buf.data() + 64 * line;
    const size_t n = std::min<size_t>(64, bytes - 64 * line);
    std::memcpy(saved, at, n);
    std::fill(changed.begin(), changed.end(), 0);
    for (int r = 0; r < kRefills; ++r) {
      SplitMix64 fill(line * kRefills + static_cast<uint64_t>(r));
      for (size_t i = 0; i < n; i += 8) {
        const uint64_t w = fill.Next();
        std::memcpy(at + i, &w, std::min<size_t>(8, n - i));
      }
      for (size_t q = 0; q < added.size(); ++q) changed[q] |= !filter->MayContain(added[q]);
    }
    std::memcpy(at, saved, n);
    for (char c : changed) counted += c != 0;
  }
  if (counted == 0) {
    return Status::Corruption("lines per query: no line of " + policy.spec() +
                              "'s bytes changes an answer (its reader does not read the bytes in place)");
  }
  *lines_per_query = static_cast<double>(counted) / static_cast<double>(added.size());
  return Status::OK();
}

}  // namespace filterlab::sim
