#include "sim/speed.h"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <memory>
#include <new>
#include <vector>

#include "common/stats.h"
#include "common/timer.h"
#include "filters/filter.h"
#include "filters/policy_open.h"
#include "sim/floor.h"
#include "sim/keygen.h"
#include "sim/machine.h"
#include "sim/mt19937.h"

namespace filterlab::sim {
namespace {

// filter_bench's generator: mt19937 (the same outputs as std::mt19937, made
// 624 at a time; see mt19937.h) and a multiply-shift range reduction.
class Random32 {
 public:
  explicit Random32(uint32_t seed) : gen_(seed) {}
  uint32_t Next() { return gen_.Next(); }
  uint32_t Uniformish(uint32_t n) { return static_cast<uint32_t>((uint64_t{Next()} * n) >> 32); }

 private:
  Mt19937 gen_;
};

// What a query needs to know of its filter, 32 bytes per filter in one array,
// so picking a filter, making its key and querying it read one line of
// harness data and then only the filter's own data: the filter's FilterView
// (by default the variant's own, which does not touch the Filter object; with
// --query_path object, Filter::View's default, which calls the object's
// virtual MayContain as filter_bench calls its reader object).
struct alignas(32) FilterRef {
  FilterView view;
  uint32_t id;    // filter_bench's filter id (part of every key)
  uint32_t keys;  // keys added: vals 0..keys-1
};
static_assert(sizeof(FilterRef) == 32, "FilterRef: two per 64-byte line");

// Filters built, serialized into one (huge-page) arena and reopened there.
struct FilterSet {
  std::unique_ptr<PageArena> arena;
  std::vector<std::unique_ptr<Filter>> filters;
  std::vector<uint32_t> ids;
  std::vector<uint32_t> keys;
  size_t num_refs = 0;
  // The queries read refs from here: on 2 MiB pages when granted (a random
  // pick then costs no TLB miss; 2.75 MB for 1 GiB of 10k-key filters).
  std::unique_ptr<PageArena> refs_arena;
  const FilterRef* query_refs = nullptr;
  double build_call_seconds = 0;  // within build_seconds: FilterPolicy::Build alone
  uint64_t total_keys = 0;
  uint64_t serialized_bytes = 0;
  double build_seconds = 0;
  std::string layout;
};

// Builds one filter from filter_bench keys val 0..n-1 of `id` (timed part:
// key making, HashKey and Build, as filter_bench times it; Build alone is
// also timed, the figure comparable with builds from ready hashes),
// appending its serialized bytes to *blob.
Status BuildOne(const FilterPolicy& policy, uint32_t id, uint32_t n, int key_size, std::vector<uint64_t>* hashes,
                std::string* blob, FilterSet* set) {
  KeyMaker km(key_size, /*vary_alignment=*/true);
  const auto t0 = Clock::now();
  hashes->clear();
  for (uint32_t v = 0; v < n; ++v) {
    const uint64_t h = policy.HashKey(km.Added(id, v));
    if (hashes->empty() || hashes->back() != h) hashes->push_back(h);
  }
  std::unique_ptr<Filter> filter;
  const auto t1 = Clock::now();
  Status s = policy.Build(hashes->data(), hashes->size(), &filter);
  const auto t2 = Clock::now();
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

enum class Pick { kSingle, kRandom, kSkewed };

// One measurement of a run: the queries the timed and dry loops ask and how
// its record is labelled.
struct Measurement {
  SpeedMode mode;
  QueryMix mix;
  Pick pick = Pick::kRandom;
  bool with_floor = false;         // also measure the memory floor (random-filter picks)
  uint32_t primary_threshold = 0;  // skewed: rng <= this picks a primary filter
  uint32_t num_primary = 1;        // skewed: set from skew_filters and the working set
  double skew_filters = 0;         // skewed: the fraction of filters that are primary
  int batch = 1;                   // 1 = one MayContain per query
  bool prepared = true;
  bool pipelined = false;  // batch 1 only: groups of pipeline_depth, prefetched a group ahead
  int pipeline_depth = 16;
};

// What a run measures and in which order, from the config alone.
struct SpeedPlan {
  bool build_record = false;             // the build mode's record
  std::vector<Measurement> working_set;  // over the working set of filters
  std::vector<Measurement> huge;         // over one filter of huge_keys keys
  bool needs_working_set() const { return build_record || !working_set.empty(); }
};

// random_pipelined: groups of D queries (D = SpeedConfig::pipeline_depths,
// one record per depth), each group's lines prefetched (FilterView::Prefetch)
// one group before it is answered (see RunPipelined). The depth has to cover
// the memory latency under load with D misses in flight (Little's law): at
// ~25 ns per query and ~250-300 ns per DRAM miss over 1 GiB, 8 cap a query
// at ~30 ns gross, while a group of 32 prefetches issued back to back asks
// for more misses at once than the core's miss buffers take (AMD EPYC 2-core
// VM, 1 GiB of 10k-key filters, one process, 3 each: gross 28.4-31.2 /
// 24.2-26.6 / ~35 ns at depth 8 / 16 / 32; `filterlab-sim speed --filter
// fastlocal:bpk=10 --working_set_mb 1024 --modes random_pipelined
// --pipeline_depth 8,16,32`). 16 is the default.

struct Tally {
  uint64_t outside = 0, false_positives = 0, inside = 0, inside_negatives = 0, sink = 0;
  double seconds = 0;      // wall
  double cpu_seconds = 0;  // this thread's CPU time: what other load on the machine does not add
  Tally& operator+=(const Tally& o) {
    outside += o.outside;
    false_positives += o.false_positives;
    inside += o.inside;
    inside_negatives += o.inside_negatives;
    sink += o.sink;
    seconds += o.seconds;
    cpu_seconds += o.cpu_seconds;
    return *this;
  }
};

// Wall and thread CPU time of one timed loop.
struct LoopTimer {
  Clock::time_point wall0 = Clock::now();
  double cpu0 = ThreadCpuSeconds();
};

// A query made but not yet hashed: its filter, whether its key was added,
// and the key (in one of QuerySource's key buffers).
struct PreparedQuery {
  const FilterRef* filter;
  Slice key;
  bool inside;
};

// Makes the queries of one measurement, in filter_bench's order of generator
// calls: per query (per batch in batched modes) the filter, then per key
// "inside?" and the value. Used identically by the timed and the dry run.
//
// Keys are made some queries before they are hashed (the loops below keep
// kKeysAhead prepared queries, or the next batch, in hand). A key written
// and then read at once by the hash cannot be store-forwarded (the hash's
// 8-byte loads straddle the writes), so the read waits until the write
// retires, which waits for every older instruction, including the previous
// query's filter call: every query would then pay the filter's whole
// latency, in the timed run only. Made early, the key is in L1 when hashed.
class QuerySource {
 public:
  // Keys alive at once: a ring of KeyMakers. The loops keep at most two
  // batches of 64 (or kKeysAhead + 1 single queries) alive.
  static constexpr size_t kKeySlots = 128;

  QuerySource(const FilterSet& set, const FilterPolicy& policy, const Measurement& plan, uint32_t seed, int key_size,
              bool cheap_hash)
      : rng_(seed),
        refs_(set.query_refs),
        num_filters_(static_cast<uint32_t>(set.num_refs)),
        policy_(policy),
        pick_(plan.pick),
        primary_threshold_(plan.primary_threshold),
        num_primary_(plan.num_primary),
        inside_threshold_(plan.mix == QueryMix::kInside    ? 0xffffffffu
                          : plan.mix == QueryMix::kOutside ? 0u
                                                           : 0x7fffffffu),
        never_inside_(plan.mix == QueryMix::kOutside),
        cheap_hash_(cheap_hash) {
    key_makers_.reserve(kKeySlots);
    for (size_t i = 0; i < kKeySlots; ++i) key_makers_.emplace_back(key_size, /*vary_alignment=*/true);
    if (plan.batch == 1) {
      for (Drawn& d : drawn_) d = Draw();
    }
  }

  // One query to its own filter (single-query loops only: the generator
  // has been drawn kDrawAhead queries ahead, see Drawn).
  PreparedQuery Prepare() {
    const size_t n = next_slot_++;
    Drawn& slot = drawn_[n % kDrawAhead];
    const Drawn d = slot;
    slot = Draw();
    const uint32_t val = static_cast<uint32_t>((uint64_t{d.val_draw} * d.filter->keys) >> 32);  // Uniformish
    KeyMaker& km = key_makers_[n % kKeySlots];
    return PreparedQuery{d.filter, km.AddedOrOutside(d.filter->id, val, d.inside), d.inside};
  }

  // n (<= 64) queries to one filter.
  void PrepareBatch(size_t n, PreparedQuery* out) {
    const FilterRef* f = NextFilter();
    for (size_t i = 0; i < n; ++i) out[i] = PrepareKey(f);
  }

  // The hash the filter is asked about. cheap_hash (a dry run with
  // net_includes_hashing) only touches the key's length and 4th byte.
  uint64_t Hash(const Slice& key) const {
    if (cheap_hash_) return key.size() ^ static_cast<uint8_t>(key[3]);
    return policy_.HashKey(key);
  }

 private:
  const FilterRef* NextFilter() {
    uint32_t fi = 0;
    if (pick_ == Pick::kRandom) {
      fi = rng_.Uniformish(num_filters_);
    } else if (pick_ == Pick::kSkewed) {
      fi = rng_.Next() <= primary_threshold_ ? rng_.Uniformish(num_primary_)
                                             : num_primary_ + rng_.Uniformish(num_filters_ - num_primary_);
    }
    return &refs_[fi];
  }

  // A single query's generator draws, made kDrawAhead queries before its key
  // (every draw of a query, so the generator is called in filter_bench's
  // order: filter, inside?, value), with its FilterRef prefetched: over 86k
  // filters the 2.75 MB FilterRef array does not stay in L2, and a FilterRef
  // read at once cost a miss per query in both runs, which the out-of-order
  // window overlapped differently in the timed run (more instructions per
  // query) than in the dry one, inflating net. The value's draw is kept raw
  // until the FilterRef (its key count) is in cache.
  struct Drawn {
    const FilterRef* filter;
    uint32_t val_draw;
    bool inside;
  };
  static constexpr size_t kDrawAhead = 16;
  static_assert(kKeySlots % kDrawAhead == 0, "one counter indexes both rings");

  Drawn Draw() {
    const FilterRef* f = NextFilter();
    __builtin_prefetch(f, 0, 3);
    const bool inside = !never_inside_ && rng_.Next() <= inside_threshold_;
    return Drawn{f, rng_.Next(), inside};
  }

  PreparedQuery PrepareKey(const FilterRef* f) {
    const bool inside = !never_inside_ && rng_.Next() <= inside_threshold_;
    const uint32_t val = rng_.Uniformish(f->keys);
    KeyMaker& km = key_makers_[next_slot_++ % kKeySlots];
    return PreparedQuery{f, km.AddedOrOutside(f->id, val, inside), inside};
  }

  Random32 rng_;
  Drawn drawn_[kDrawAhead];  // query n's draws in drawn_[n % kDrawAhead]
  std::vector<KeyMaker> key_makers_;
  size_t next_slot_ = 0;
  const FilterRef* refs_;
  uint32_t num_filters_;
  const FilterPolicy& policy_;
  Pick pick_;
  uint32_t primary_threshold_, num_primary_, inside_threshold_;
  bool never_inside_, cheap_hash_;
};

// Queries made ahead of their hashing (see QuerySource).
constexpr uint64_t kKeysAhead = 8;

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

// The next `queries` queries of `source` in the plan's loop. Called once per
// round on the same source, so the rounds of a measurement together ask
// exactly the queries one call would.
template <bool kDry>
Tally RunQueries(QuerySource& source, const Measurement& plan, uint64_t queries) {
  if (plan.batch > 1) return RunBatches<kDry>(source, queries, plan.batch, plan.prepared);
  if (plan.pipelined) {
    switch (plan.pipeline_depth) {
      case 4: return RunPipelined<kDry, 4>(source, queries);
      case 8: return RunPipelined<kDry, 8>(source, queries);
      case 16: return RunPipelined<kDry, 16>(source, queries);
      case 32: return RunPipelined<kDry, 32>(source, queries);
      default: return RunPipelined<kDry, 64>(source, queries);
    }
  }
  return RunOneByOne<kDry>(source, queries);
}

class SpeedRun {
 public:
  SpeedRun(const SpeedConfig& cfg, const FilterPolicy& policy, const Emit& emit)
      : cfg_(cfg), policy_(policy), emit_(emit) {}

  JsonRecord Base(const std::string& mode, const FilterSet& set, bool huge) const {
    JsonRecord j;
    j["command"] = "speed";
    j["filter"] = policy_.spec();
    j["filter_arg"] = cfg_.filter_spec;
    j["layout"] = set.layout;
    j["mode"] = mode;
    j["working_set_bytes"] = set.serialized_bytes;
    j["filters"] = set.filters.size();
    j["keys"] = set.total_keys;
    j["bits_per_key"] = 8.0 * static_cast<double>(set.serialized_bytes) / static_cast<double>(set.total_keys);
    j["huge_pages"] = huge;
    j["query_path"] = cfg_.query_path;
    j["key_size"] = cfg_.key_size;
    j["seed"] = cfg_.seed;
    return j;
  }

  // Runs gross and dry for one plan in cfg_.rounds rounds and emits the
  // record. Each round asks the next 1/rounds of the queries, timed and dry
  // back to back (after the round's floor, when the plan has one), so a
  // round's net and x_floor pair measurements taken within about a second.
  // The record's net and x_floor are the medians over rounds, so a change
  // of the host's speed during one round's timed part but not its dry part
  // moves one round, not the figure. Counts, gross and dry are over all
  // queries. Where the timed loop is bound by the memory side (random
  // filters over 1 GiB on a VM: a nested page walk per line) it hides the
  // harness's time, so net also moves with the dry loop's own speed, which
  // varies with code layout between builds (paper/findings.md, "the dry
  // loop's layout sensitivity"): compare such figures across builds through
  // gross and floor.
  Status Measure(const FilterSet& set, const Measurement& plan, uint64_t queries) {
    const uint32_t seed = cfg_.seed + (plan.mix == QueryMix::kOutside ? 2 : 1);
    const uint64_t batch = static_cast<uint64_t>(plan.batch);
    const uint64_t rounds = static_cast<uint64_t>(cfg_.rounds);
    const uint64_t per_round = std::max<uint64_t>(1, (queries + rounds * batch - 1) / (rounds * batch)) * batch;
    const uint64_t rounded = per_round * rounds;
    QuerySource timed_source(set, policy_, plan, seed, cfg_.key_size, false);
    QuerySource dry_source(set, policy_, plan, seed, cfg_.key_size, cfg_.net_includes_hashing);
    Tally gross, dry;
    std::vector<double> nets, floors, ratios;
    for (uint64_t r = 0; r < rounds; ++r) {
      const double floor_ns = plan.with_floor ? Floor(set) : 0;
      const Tally g = RunQueries<false>(timed_source, plan, per_round);
      const Tally d = RunQueries<true>(dry_source, plan, per_round);
      const double net = (g.seconds - d.seconds) * 1e9 / static_cast<double>(per_round);
      nets.push_back(net);
      if (floor_ns > 0) {
        floors.push_back(floor_ns);
        ratios.push_back(net / floor_ns);
      }
      gross += g;
      dry += d;
    }
    if (gross.inside_negatives != 0) {
      return Status::Corruption("filter " + policy_.spec() + " answered 'no' for " +
                                std::to_string(gross.inside_negatives) + " added keys in mode " +
                                SpeedModeName(plan.mode));
    }
    JsonRecord j = Base(SpeedModeName(plan.mode), set, set.arena->huge_pages());
    j["mix"] = QueryMixName(plan.mix);
    j["pick"] = plan.pick == Pick::kSingle ? "single" : plan.pick == Pick::kRandom ? "random" : "skewed";
    j["batch"] = plan.batch;
    if (plan.batch > 1) j["prepared"] = plan.prepared;
    j["pipeline_depth"] = plan.pipelined ? plan.pipeline_depth : 0;
    if (plan.pick == Pick::kSkewed) {
      j["skew"] = std::to_string(static_cast<int>(std::lround(plan.primary_threshold / 42949672.96))) + "% in " +
                  std::to_string(plan.num_primary) + " filters";
    }
    j["queries"] = rounded;
    j["rounds"] = rounds;
    j["net_includes_hashing"] = cfg_.net_includes_hashing;
    const double n = static_cast<double>(rounded);
    j["gross_ns_per_op"] = gross.seconds * 1e9 / n;
    j["dry_ns_per_op"] = dry.seconds * 1e9 / n;
    j["net_ns_per_op"] = Median(nets);
    j["net_ns_per_op_rounds"] = nets;
    // The same from the thread's CPU time: on a shared machine the wall
    // figures include time other processes ran; these do not.
    j["gross_cpu_ns_per_op"] = gross.cpu_seconds * 1e9 / n;
    j["dry_cpu_ns_per_op"] = dry.cpu_seconds * 1e9 / n;
    j["net_cpu_ns_per_op"] = (gross.cpu_seconds - dry.cpu_seconds) * 1e9 / n;
    if (gross.outside > 0) {
      j["fp"] = static_cast<double>(gross.false_positives) / static_cast<double>(gross.outside);
    } else {
      j["fp"] = nullptr;
    }
    j["outside_queries"] = gross.outside;
    if (!floors.empty()) {
      if (const uint64_t t = TranslationPageBytes(set.arena->huge_pages()); t != 0) j["translation_page_bytes"] = t;
      j["floor_ns_per_line"] = Median(floors);
      j["x_floor"] = Median(ratios);
      j["x_floor_rounds"] = ratios;
    }
    emit_(j);
    return Status::OK();
  }

  // Measured again in each round of a random-filter measurement, beside the
  // round's timed and dry runs, so a change of the host's speed between
  // rounds moves both sides of x_floor. 4M reads (~50 ms a round) gave
  // 11.3-11.8 ns/line over 1 GiB, the range 20M-read floors gave.
  double Floor(const FilterSet& set) const {
    if (!cfg_.measure_floor) return 0;
    return RandomLineReadNs(set.arena->data(), set.arena->size() / 64, 4000000, 32, 1, cfg_.seed + 7);
  }

  // The page size the TLB caches for pages like the working set's (floor's
  // `translation` measure), once per run: where 2 MiB pages translate at
  // 4 KiB (a hypervisor backing guest memory with 4 KiB pages), every random
  // line of a large working set needs a page walk, which the floor's bare
  // stream overlaps better than a query loop does (sim/README.md).
  // 0 when the probe's 32 MiB could not be mapped (then the field is left
  // out); measured, or found unmeasurable, once.
  uint64_t TranslationPageBytes(bool huge) {
    if (!translation_probed_) {
      translation_probed_ = true;
      std::unique_ptr<PageArena> probe_arena;
      if (PageArena::Allocate(TranslationProbe::kPages * 4096, huge, &probe_arena).ok()) {
        translation_page_bytes_ = ProbeTranslation(probe_arena->data(), 2000000, cfg_.seed + 9).translation_page_bytes;
      }
    }
    return translation_page_bytes_;
  }

  Status Run(const SpeedPlan& plan) {
    const bool want_huge =
        cfg_.huge_pages == "on" || (cfg_.huge_pages == "auto" && TransparentHugePageMode() != "never");
    Status s;
    if (plan.needs_working_set()) {
      FilterSet set;
      if (!(s = BuildWorkingSet(policy_, cfg_, want_huge, &set)).ok()) return s;
      if (plan.build_record) EmitBuild(set);
      for (Measurement m : plan.working_set) {
        if (m.mode == SpeedMode::kSkewed && !SetPrimaries(set, &m)) continue;
        if (!(s = Measure(set, m, cfg_.queries)).ok()) return s;
      }
    }
    if (!plan.huge.empty()) {
      FilterSet set;
      if (!(s = BuildHugeFilter(want_huge, &set)).ok()) return s;
      for (const Measurement& m : plan.huge) {
        if (!(s = Measure(set, m, cfg_.queries)).ok()) return s;
      }
    }
    return Status::OK();
  }

  void EmitBuild(const FilterSet& set) const {
    JsonRecord j = Base("build", set, set.arena->huge_pages());
    j["ns_per_key"] = set.build_seconds * 1e9 / static_cast<double>(set.total_keys);
    // FilterPolicy::Build from ready hashes only (no key making or hashing).
    j["build_call_ns_per_key"] = set.build_call_seconds * 1e9 / static_cast<double>(set.total_keys);
    j["average_keys"] = cfg_.average_keys;
    j["vary_ratio"] = cfg_.vary_ratio;
    emit_(j);
  }

  // Skewed: the primary filters are a fraction of the working set, at least
  // one and leaving one other; false (skip) when the set has one filter.
  static bool SetPrimaries(const FilterSet& set, Measurement* m) {
    if (set.filters.size() < 2) return false;
    m->num_primary = std::max<uint32_t>(1, static_cast<uint32_t>(m->skew_filters * set.filters.size()));
    if (m->num_primary >= set.filters.size()) m->num_primary = static_cast<uint32_t>(set.filters.size()) - 1;
    return true;
  }

  // The huge mode's one filter of huge_keys keys.
  Status BuildHugeFilter(bool want_huge, FilterSet* set) const {
    Status s = CheckMemory(HugeModeMemory(policy_, cfg_.huge_keys), "--huge_keys " + std::to_string(cfg_.huge_keys));
    if (!s.ok()) return s;
    std::vector<uint64_t> hashes;
    std::vector<std::string> blobs(1);
    Random32 rng(cfg_.seed);
    const uint32_t id = rng.Next();
    s = BuildOne(policy_, id, static_cast<uint32_t>(cfg_.huge_keys), cfg_.key_size, &hashes, &blobs[0], set);
    if (!s.ok()) return s;
    std::vector<uint64_t>().swap(hashes);
    set->ids.push_back(id);
    set->keys.push_back(static_cast<uint32_t>(cfg_.huge_keys));
    set->total_keys = cfg_.huge_keys;
    return Materialise(policy_, blobs, want_huge, cfg_.query_path == "object", set);
  }

 private:
  const SpeedConfig& cfg_;
  const FilterPolicy& policy_;
  const Emit& emit_;
  bool translation_probed_ = false;
  uint64_t translation_page_bytes_ = 0;  // 0 = could not be measured
};

bool Has(const std::vector<SpeedMode>& modes, SpeedMode mode) {
  return std::find(modes.begin(), modes.end(), mode) != modes.end();
}

// The order of a run: build; per mix single, random, random_pipelined (per
// depth); batched (per batch size, prepared then unprepared, one filter then
// random filters); skewed (50% of queries to 1% of filters, 80% to 20%);
// then huge (one query at a time, then per batch size).
SpeedPlan PlanSpeedRun(const SpeedConfig& cfg) {
  SpeedPlan plan;
  plan.build_record = Has(cfg.modes, SpeedMode::kBuild);
  for (QueryMix mix : cfg.mixes) {
    if (Has(cfg.modes, SpeedMode::kSingle)) plan.working_set.push_back({SpeedMode::kSingle, mix, Pick::kSingle, false});
    if (Has(cfg.modes, SpeedMode::kRandom)) plan.working_set.push_back({SpeedMode::kRandom, mix, Pick::kRandom, true});
    if (Has(cfg.modes, SpeedMode::kRandomPipelined)) {
      for (int depth : cfg.pipeline_depths) {
        Measurement m{SpeedMode::kRandomPipelined, mix, Pick::kRandom, true};
        m.pipelined = true;
        m.pipeline_depth = depth;
        plan.working_set.push_back(m);
      }
    }
  }
  if (Has(cfg.modes, SpeedMode::kBatched)) {
    for (int b : cfg.batch_sizes) {
      for (bool prepared : {true, false}) {
        for (Pick pick : {Pick::kSingle, Pick::kRandom}) {
          Measurement m{SpeedMode::kBatched, QueryMix::kMixed, pick, pick == Pick::kRandom};
          m.batch = b;
          m.prepared = prepared;
          plan.working_set.push_back(m);
        }
      }
    }
  }
  if (Has(cfg.modes, SpeedMode::kSkewed)) {
    for (auto [share, part] : {std::pair<double, double>{0.5, 0.01}, {0.8, 0.2}}) {
      Measurement m{SpeedMode::kSkewed, QueryMix::kMixed, Pick::kSkewed, true};
      m.primary_threshold = static_cast<uint32_t>(share * 4294967295.0);
      m.skew_filters = part;
      plan.working_set.push_back(m);
    }
  }
  if (Has(cfg.modes, SpeedMode::kHuge)) {
    Measurement m{SpeedMode::kHuge, QueryMix::kMixed, Pick::kSingle, true};
    plan.huge.push_back(m);
    for (int b : cfg.batch_sizes) {
      m.batch = b;
      m.prepared = true;
      plan.huge.push_back(m);
    }
  }
  return plan;
}

constexpr std::pair<SpeedMode, const char*> kModeNames[] = {
    {SpeedMode::kBuild, "build"},     {SpeedMode::kSingle, "single"},
    {SpeedMode::kRandom, "random"},   {SpeedMode::kRandomPipelined, "random_pipelined"},
    {SpeedMode::kBatched, "batched"}, {SpeedMode::kSkewed, "skewed"},
    {SpeedMode::kHuge, "huge"}};
constexpr std::pair<QueryMix, const char*> kMixNames[] = {
    {QueryMix::kInside, "inside"}, {QueryMix::kOutside, "outside"}, {QueryMix::kMixed, "mixed"}};

template <class E, size_t N>
const char* NameOf(const std::pair<E, const char*> (&names)[N], E value) {
  for (const auto& [e, name] : names) {
    if (e == value) return name;
  }
  return "?";
}

template <class E, size_t N>
std::vector<E> Named(const std::pair<E, const char*> (&names)[N], const std::vector<std::string>& wanted) {
  std::vector<E> out;
  for (const std::string& w : wanted) {
    for (const auto& [e, name] : names) {
      if (w == name) out.push_back(e);
    }
  }
  return out;
}

template <class E, size_t N>
std::vector<std::string> AllNames(const std::pair<E, const char*> (&names)[N]) {
  std::vector<std::string> out;
  for (const auto& [e, name] : names) out.push_back(name);
  return out;
}

}  // namespace

const char* SpeedModeName(SpeedMode mode) { return NameOf(kModeNames, mode); }
const char* QueryMixName(QueryMix mix) { return NameOf(kMixNames, mix); }
std::vector<std::string> SpeedModeNames() { return AllNames(kModeNames); }
std::vector<std::string> QueryMixNames() { return AllNames(kMixNames); }
std::vector<SpeedMode> SpeedModesNamed(const std::vector<std::string>& names) { return Named(kModeNames, names); }
std::vector<QueryMix> QueryMixesNamed(const std::vector<std::string>& names) { return Named(kMixNames, names); }

uint64_t HugeModeMemory(const FilterPolicy& policy, uint64_t keys) {
  return keys * 8 * 3 + policy.BuildTemporaryBytes(static_cast<size_t>(keys));
}

Status RunSpeed(const SpeedConfig& config, const Emit& emit) {
  std::unique_ptr<FilterPolicy> policy;
  Status s = NewFilterPolicy(config.filter_spec, &policy);
  if (!s.ok()) return Status::InvalidArgument("--filter: " + s.message());
  for (int b : config.batch_sizes) {
    if (b < 2 || b > 64) {
      return Status::InvalidArgument("--batch_sizes: " + std::to_string(b) + " is not allowed; batch sizes are 2..64");
    }
  }
  SpeedConfig cfg = config;
  if (cfg.working_set_bytes == 0) {
    cfg.working_set_bytes = std::max<uint64_t>(4 * LastLevelCacheBytes(), uint64_t{64} << 20);
  }
  SpeedRun run(cfg, *policy, emit);
  return run.Run(PlanSpeedRun(cfg));
}

}  // namespace filterlab::sim
