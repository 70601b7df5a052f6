// The working set of a speed run (speed_working_set.h).
#include "sim/speed_working_set.h"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <new>

#include "common/timer.h"
#include "filters/policy_open.h"
#include "hashing/fastrange.h"
#include "sim/keygen.h"
#include "sim/lines_read.h"
#include "sim/mt19937.h"

namespace filterlab::sim {

Status BuildOne(const FilterPolicy& policy, uint32_t id, uint32_t n, int key_size, std::vector<uint64_t>* hashes,
                std::string* blob, FilterSet* set) {
  // Keys are made a chunk at a time and hashed together (HashKeys: legacy's
  // hash runs 16 keys in one AVX-512 register); one KeyMaker per key of the
  // chunk, so every key is still in its buffer when the chunk is hashed.
  constexpr uint32_t kChunk = 64;
  std::vector<KeyMaker> makers(kChunk, KeyMaker(key_size, /*vary_alignment=*/true));
  Slice keys[kChunk];
  const auto t0 = Clock::now();
  hashes->resize(n);
  uint64_t* out = hashes->data();
  for (uint32_t v = 0; v < n; v += kChunk) {
    const uint32_t m = std::min(kChunk, n - v);
    for (uint32_t i = 0; i < m; ++i) keys[i] = makers[i].Added(id, v + i);
    policy.HashKeys(keys, m, out + v);
  }
  // Compacted in place (a write never passes the read): an equal neighbour
  // is dropped, as filter_bench's builders drop a repeat of the previous
  // hash. In one pass after all the hashing, so that no read waits on the
  // hash kernel's latest vector stores (a narrower load is not forwarded
  // from them): chunk by chunk, those reads held a sixth of this function's
  // samples.
  size_t kept = 0;
  for (uint32_t i = 0; i < n; ++i) {
    const uint64_t h = out[i];
    if (kept == 0 || out[kept - 1] != h) out[kept++] = h;
  }
  std::unique_ptr<Filter> filter;
  const auto t1 = Clock::now();
  Status s = policy.Build(out, kept, &filter);
  const auto t2 = Clock::now();
  hashes->resize(kept);
  set->build_seconds += std::chrono::duration<double>(t2 - t0).count();
  set->build_call_seconds += std::chrono::duration<double>(t2 - t1).count();
  if (!s.ok()) return s;
  if (set->layout.empty()) set->layout = filter->Describe();
  filter->Serialize(blob);
  return Status::OK();
}

// The filters are reopened with the policy's query settings (OpenFilterFor: FastLocalBloom's kernel=).
Status Materialise(const FilterPolicy& policy, std::vector<std::string>& blobs, bool want_huge, bool via_object,
                   FilterSet* set) {
  uint64_t total = 0;
  for (const auto& b : blobs) total += (b.size() + 63) / 64 * 64;
  Status s = CheckMemory(total, "speed working set");
  if (!s.ok()) return s;
  s = PageArena::Allocate(total, want_huge, &set->arena);
  if (!s.ok()) return s;
  uint64_t off = 0;
  for (auto& b : blobs) {
    char* dst = set->arena->data() + off;
    std::memcpy(dst, b.data(), b.size());
    std::unique_ptr<Filter> f;
    s = OpenFilterFor(policy, Slice(dst, b.size()), &f);
    if (!s.ok()) return Status::Corruption("reopening a serialized filter failed: " + s.message());
    set->filters.push_back(std::move(f));
    off += (b.size() + 63) / 64 * 64;
  }
  // Freed only now: freed while the filters were being opened, each blob's
  // space took the next Filter object, scattering the objects one per 4 KiB
  // page over the whole heap (a TLB miss per object in the random modes).
  // Opened first, the objects sit side by side.
  for (auto& b : blobs) std::string().swap(b);
  set->serialized_bytes = total;
  set->num_refs = set->filters.size();
  s = PageArena::Allocate(set->num_refs * sizeof(FilterRef), want_huge, &set->refs_arena);
  if (!s.ok()) return s;
  auto* refs = reinterpret_cast<FilterRef*>(set->refs_arena->data());
  for (size_t i = 0; i < set->num_refs; ++i) {
    const Filter& f = *set->filters[i];
    new (&refs[i]) FilterRef{via_object ? f.Filter::View() : f.View(), set->ids[i], set->keys[i]};
  }
  set->query_refs = refs;
  return Status::OK();
}

Status BuildWorkingSet(const FilterPolicy& policy, const SpeedConfig& cfg, bool want_huge, FilterSet* set) {
  Random32 rng(cfg.seed);
  std::vector<uint64_t> hashes;
  std::vector<std::string> blobs;
  uint64_t bytes = 0;
  const uint32_t spread = 1 + 2 * static_cast<uint32_t>(cfg.vary_ratio * static_cast<double>(cfg.average_keys));
  while (bytes < cfg.working_set_bytes) {
    const uint32_t id = rng.Next();
    const uint32_t n = static_cast<uint32_t>(cfg.average_keys) + FastRange32(rng.Next(), spread) - spread / 2;
    blobs.emplace_back();
    Status s = BuildOne(policy, id, n, cfg.key_size, &hashes, &blobs.back(), set);
    if (!s.ok()) return s;
    bytes += blobs.back().size();
    set->ids.push_back(id);
    set->keys.push_back(n);
    set->total_keys += n;
  }
  return Materialise(policy, blobs, want_huge, cfg.query_path == "object", set);
}

Status BuildHugeFilter(const FilterPolicy& policy, const SpeedConfig& cfg, bool want_huge, FilterSet* set) {
  Status s = CheckMemory(HugeModeMemory(policy, cfg.huge_keys), "--huge_keys " + std::to_string(cfg.huge_keys));
  if (!s.ok()) return s;
  std::vector<uint64_t> hashes;
  std::vector<std::string> blobs(1);
  Random32 rng(cfg.seed);
  const uint32_t id = rng.Next();
  s = BuildOne(policy, id, static_cast<uint32_t>(cfg.huge_keys), cfg.key_size, &hashes, &blobs[0], set);
  if (!s.ok()) return s;
  std::vector<uint64_t>().swap(hashes);
  set->ids.push_back(id);
  set->keys.push_back(static_cast<uint32_t>(cfg.huge_keys));
  set->total_keys = cfg.huge_keys;
  return Materialise(policy, blobs, want_huge, cfg.query_path == "object", set);
}

Status MeasureLinesPerQuery(const FilterPolicy& policy, int key_size, FilterSet* set) {
  constexpr size_t kFilters = 4, kQueries = 64;
  double sum = 0;
  size_t measured = 0;
  for (size_t f = 0; f < std::min(kFilters, set->filters.size()); ++f) {
    const std::string bytes = set->filters[f]->Serialize();
    if (bytes.size() > (size_t{16} << 20)) return Status::OK();
    KeyMaker km(key_size, /*vary_alignment=*/true);
    std::vector<uint64_t> added;
    for (uint32_t v = 0; v < std::min<uint32_t>(set->keys[f], kQueries); ++v) {
      added.push_back(policy.HashKey(km.Added(set->ids[f], v)));
    }
    double lines = 0;
    Status s = LinesPerQuery(policy, bytes, added, &lines);
    if (!s.ok()) return s;
    sum += lines;
    ++measured;
  }
  if (measured > 0) set->lines_per_query = sum / static_cast<double>(measured);
  return Status::OK();
}

uint64_t HugeModeMemory(const FilterPolicy& policy, uint64_t keys) {
  return keys * 8 * 3 + policy.BuildTemporaryBytes(static_cast<size_t>(keys));
}

}  // namespace filterlab::sim
