// The query side of a speed run (sim/speed.h): the queries of a measurement
// in filter_bench's order of generator calls (QuerySource), and the loops
// that ask them, one at a time, pipelined or in batches, each in a timed
// form and a dry form that does everything but the filter call, so that
// gross - dry is the filter's cost. Each loop returns the counts it saw
// (Tally): the dry and timed runs of one source see the same queries.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "common/slice.h"
#include "filters/filter.h"
#include "sim/keygen.h"
#include "sim/mt19937.h"
#include "sim/speed_plan.h"
#include "sim/speed_working_set.h"

namespace filterlab::sim {

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

// The next `queries` queries of `source` in the plan's loop: one at a time,
// pipelined in groups of plan.pipeline_depth, or batches of plan.batch (a
// multiple of which `queries` must be). Called once per round on the same
// source, so the rounds of a measurement together ask exactly the queries
// one call would. kDry: the dry run (no filter call, `hash & 1` instead).
template <bool kDry>
Tally RunQueries(QuerySource& source, const Measurement& plan, uint64_t queries);

extern template Tally RunQueries<false>(QuerySource&, const Measurement&, uint64_t);
extern template Tally RunQueries<true>(QuerySource&, const Measurement&, uint64_t);

}  // namespace filterlab::sim
