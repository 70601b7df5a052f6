// The query loops of a speed run (speed_queries.h).
#include "sim/speed_queries.h"

#include <algorithm>

#include "common/timer.h"

namespace filterlab::sim {
namespace {

// Wall and thread CPU time of one timed loop.
struct LoopTimer {
  Clock::time_point wall0 = Clock::now();
  double cpu0 = ThreadCpuSeconds();
};

// The counts live in registers for the whole loop (a Tally member updated
// through a pointer would be stored after every opaque filter call). Both
// members are forced inline: if the compiler outlines ToTally (it did once
// this file grew, by its inlining budget, not by any change to the loops),
// `this` escapes, every count is stored after every filter call, and the hot
// batched loops ran up to 9% slower in gross ns/op.
struct Counts {
  uint64_t outside = 0, false_positives = 0, inside = 0, inside_negatives = 0, sink = 0;
  __attribute__((always_inline)) void Add(bool inside_key, bool result, uint64_t hash) {
    inside += inside_key;
    inside_negatives += inside_key & !result;
    outside += !inside_key;
    false_positives += !inside_key & result;
    sink += hash;
  }
  __attribute__((always_inline)) Tally ToTally(const LoopTimer& timer) const {
    const double wall = SecondsSince(timer.wall0);
    return Tally{outside, false_positives, inside, inside_negatives, sink, wall, ThreadCpuSeconds() - timer.cpu0};
  }
};

// The loops below exist twice each: kDry = false asks the filter, kDry = true
// puts `hash & 1` in its place and does everything else identically (same
// generator calls, same key making and hashing, same bookkeeping), so
// gross - dry is the filter's cost. noinline keeps each a separate function,
// so the two are compiled alike and profiles (callgrind) count them apart.

// One query at a time: nothing of a query's filter work is started before
// its own MayContain call.
template <bool kDry>
__attribute__((noinline)) Tally RunOneByOne(QuerySource& source, uint64_t queries) {
  constexpr uint64_t kAhead = kKeysAhead;
  PreparedQuery ahead[kAhead];
  Counts c;
  const LoopTimer timer;
  for (uint64_t j = 0; j < std::min(queries, kAhead); ++j) ahead[j] = source.Prepare();
  for (uint64_t q = 0; q < queries; ++q) {
    PreparedQuery& slot = ahead[q % kAhead];
    const FilterView& view = slot.filter->view;
    const bool inside = slot.inside;
    const uint64_t hash = source.Hash(slot.key);
    if (q + kAhead < queries) slot = source.Prepare();
    const bool result = kDry ? (hash & 1) != 0 : view.MayContain(hash);
    c.Add(inside, result, hash);
  }
  return c.ToTally(timer);
}

// The same queries in the same order, software-pipelined in groups of
// kDepth: each step hashes the next group's keys, prefetches that group's
// lines back to back, then answers the current group, whose lines were
// prefetched one step earlier (kDepth to 2 kDepth - 1 queries before each
// is answered). The dry run keeps the groups and the order and leaves out the
// prefetches and the queries.
//
// Why groups and not one query's prefetch per query answered (query q+D
// hashed and prefetched while q is answered): there, each prefetch's
// address came at the end of its query's hashing chain
// (key -> XXH3 -> FastRange -> line), in the middle of the next queries'
// work, and one query is most of what the core's reorder buffer holds
// (~250 instructions per query, 320 entries on this AMD EPYC), so a prefetch
// not yet issued or waiting for a miss buffer stalled the whole window.
// Grouped, the hashing of a group runs with nothing waiting on memory and the
// group's prefetches then issue together from ready addresses. Measured in
// one process, 1 GiB of 10k-key filters, depth 16, 3 alternations: gross
// 32.3-42.5 ns/op per query one-by-one, 24.2-26.6 grouped.
template <bool kDry, uint64_t kDepth>
__attribute__((noinline)) Tally RunPipelined(QuerySource& source, uint64_t queries) {
  struct Pending {
    const FilterView* view;
    uint64_t hash;
    bool inside;
  };
  Pending groups[2][kDepth];
  PreparedQuery ahead[kKeysAhead];
  uint64_t prepared = 0, hashed = 0;
  for (; prepared < std::min(queries, kKeysAhead); ++prepared) ahead[prepared] = source.Prepare();
  // Hashes (and unless kDry prefetches) the next n queries into `group`;
  // query j's key was prepared kKeysAhead queries before it is hashed.
  auto start_group = [&](Pending* group, uint64_t n) {
    for (uint64_t i = 0; i < n; ++i, ++hashed) {
      PreparedQuery& slot = ahead[hashed % kKeysAhead];
      group[i].view = &slot.filter->view;
      group[i].inside = slot.inside;
      group[i].hash = source.Hash(slot.key);
      if (prepared < queries) {
        slot = source.Prepare();
        ++prepared;
      }
    }
    if (!kDry) {
      for (uint64_t i = 0; i < n; ++i) group[i].view->Prefetch(group[i].hash);
    }
  };
  Counts c;
  const LoopTimer timer;
  start_group(groups[0], std::min(queries, kDepth));
  for (uint64_t first = 0, g = 0; first < queries; first += kDepth, ++g) {
    const uint64_t n = std::min(kDepth, queries - first);
    const uint64_t next = first + n;
    if (next < queries) start_group(groups[(g + 1) & 1], std::min(kDepth, queries - next));
    const Pending* group = groups[g & 1];
    for (uint64_t i = 0; i < n; ++i) {
      const bool result = kDry ? (group[i].hash & 1) != 0 : group[i].view->MayContain(group[i].hash);
      c.Add(group[i].inside, result, group[i].hash);
    }
  }
  return c.ToTally(timer);
}

// Batches of plan.batch keys of one filter, through its view: prepared = one
// MayContainBatch (which prefetches the batch), unprepared = MayContain one
// by one. The next
// batch's keys are made before this batch is hashed (see QuerySource).
template <bool kDry>
__attribute__((noinline)) Tally RunBatches(QuerySource& source, uint64_t queries, int batch, bool prepared) {
  constexpr int kMaxBatch = 64;
  static_assert(2 * kMaxBatch <= QuerySource::kKeySlots, "two batches of keys alive at once");
  PreparedQuery made[2][kMaxBatch];
  uint64_t hashes[kMaxBatch];
  bool results[kMaxBatch];
  const size_t n = static_cast<size_t>(batch);
  Counts c;
  const LoopTimer timer;
  source.PrepareBatch(n, made[0]);
  for (uint64_t q = 0, b = 0; q < queries; q += n, ++b) {
    const PreparedQuery* cur = made[b & 1];
    for (size_t i = 0; i < n; ++i) hashes[i] = source.Hash(cur[i].key);
    if (q + n < queries) source.PrepareBatch(n, made[(b + 1) & 1]);
    const FilterView& view = cur[0].filter->view;
    if (kDry) {
      for (size_t i = 0; i < n; ++i) results[i] = (hashes[i] & 1) != 0;
    } else if (prepared) {
      view.MayContainBatch(hashes, n, results);
    } else {
      for (size_t i = 0; i < n; ++i) results[i] = view.MayContain(hashes[i]);
    }
    for (size_t i = 0; i < n; ++i) c.Add(cur[i].inside, results[i], hashes[i]);
  }
  return c.ToTally(timer);
}

}  // namespace

template <bool kDry>
Tally RunQueries(QuerySource& source, const Measurement& plan, uint64_t queries) {
  if (plan.batch > 1) return RunBatches<kDry>(source, queries, plan.batch, plan.prepared);
  if (plan.pipelined) {
    switch (plan.pipeline_depth) {
      case 2: return RunPipelined<kDry, 2>(source, queries);
      case 4: return RunPipelined<kDry, 4>(source, queries);
      case 8: return RunPipelined<kDry, 8>(source, queries);
      case 16: return RunPipelined<kDry, 16>(source, queries);
      case 32: return RunPipelined<kDry, 32>(source, queries);
      default: return RunPipelined<kDry, 64>(source, queries);
    }
  }
  return RunOneByOne<kDry>(source, queries);
}

template Tally RunQueries<false>(QuerySource&, const Measurement&, uint64_t);
template Tally RunQueries<true>(QuerySource&, const Measurement&, uint64_t);

}  // namespace filterlab::sim
