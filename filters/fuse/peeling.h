// The construction XOR and binary fuse filters share (Graf & Lemire 2020,
// 2022): every key owns kArity slots of a fingerprint array and the array is
// filled so that the XOR of a key's slots is its fingerprint. That needs an
// order in which each key has a slot no later key touches: found by peeling
// the hypergraph whose vertices are slots and whose edges are keys (take a
// slot only one remaining key touches, remove that key, repeat). If keys are
// left (the 2-core is not empty) the attempt fails and the next one remixes
// every hash with a new seed, which gives a new hypergraph.
//
// Order: a first slot is a multiply-high of the mixed hash, monotone in it,
// and a binary fuse key's other slots lie in the next few segments, so keys
// taken in order of their mixed hashes touch the slot arrays almost
// sequentially (the paper's way to make construction cache-friendly). The
// first attempt puts them in that order by one counting pass over their top
// bits (buckets of ~256 keys); a retry sorts them fully. For XOR filters only
// the first slot gains from it, and the other two slot updates per key are
// misses. So from kPrefetchFromSlots slots up (below, all is cached) the
// counting pass and the assignment prefetch each key's slots 16 keys ahead,
// and the peel of a layout declaring kPeelBreadthFirst (XOR) takes its queue
// first in, first out, so that the keys to peel next are known 16 slots
// ahead and their slots prefetched (last in, first out, as binary fuse and
// small XOR filters are peeled, each key's slots are known only once the
// key before it is out: one miss after another). The order decides which of
// the valid fingerprint arrays is built, never the layout or a stored key's
// answer.
//
// Duplicates: an equal hash given twice touches the same slots twice, so
// those slots never get down to one key and the peel fails; the driver
// removes duplicates (sort + unique) whenever an attempt fails, before the
// next seed, and sizes the next layout for the distinct count. Inputs without
// duplicates (the normal case: 64-bit hashes of distinct keys) never pay for
// the sort unless a seed fails.
//
// A Layout (xor_filter.cc, binary_fuse_filter.cc) provides
//   static constexpr int kArity;
//   size_t num_slots() const;                              // < 2^32
//   void Positions(uint64_t mixed, uint32_t* out) const;   // kArity distinct slots
// and optionally `static constexpr bool kPeelBreadthFirst = true;` (see
// Order); the driver takes a factory (distinct keys, seed) -> Layout.
//
// Temporary memory, per key of n, for a layout of m slots (the fingerprint
// array itself is the output, not counted):
//   8 bytes  the mixed hashes in slot order, reused as the peel order
//   1 byte   which of its slots each key was peeled from
//   13 m/n   per slot: XOR of its keys' mixed hashes (8), key count (1),
//            the queue of slots that have one key left (4)
//   0.03     the counting pass's bucket starts (8 bytes per ~256 keys)
// = 9 + 13 m/n bytes/key: 23.6 for 3-wise binary fuse (m/n ~ 1.125), 23.0
// for 4-wise (1.075), 25.0 for XOR (1.23); the paper states ~24 for fuse.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>

#include "common/aligned_array.h"
#include "common/status.h"
#include "filters/fuse/fuse_hash.h"

namespace filterlab::fuse {

// Seeds tried before giving up. Over 500 random inputs per size from 1 to
// 10^4 keys, 0.4-7% of first seeds fail (up to 18% for 4-wise binary fuse
// at 100 keys), none at 10^5 keys and up, and no input needed more than 4
// seeds (peeled_filter_test.cc, SeedsNeededStayFarBelowTheLimit): 100
// leaves a failure only for inputs no seed can fix.
inline constexpr int kMaxAttempts = 100;

// The key count a layout is sized for at attempt `seed`: the true count for
// the first kSeedsPerSize seeds, then 1% more after each further
// kSeedsPerSize that fail. Some layouts sit so near the peeling threshold
// that no seed peels a given key set (binary fuse 3-wise at 11501 keys:
// 14 segments of 1024 slots, load 0.80, failed for some key sets with all
// 100 seeds); one more segment peels them at once. The layout a filter
// was built with is in its serialized description, so readers never size.
inline constexpr uint32_t kSeedsPerSize = 10;
inline size_t GrownKeys(size_t keys, uint32_t seed) { return keys + keys * (seed / kSeedsPerSize) / 100; }

namespace internal {

// Per slot, the XOR of its keys' mixed hashes and their count. Both arrays
// are cache-line aligned and, from 2 MiB, on transparent huge pages
// (CacheAlignedArray): an XOR filter's slot updates are random over ~9
// bytes per slot, and with 4 KiB pages most would also miss the TLB (XOR8
// at 10^7 keys: ~140 ns/key with them, ~105 on huge pages; binary fuse
// 3-wise ~69 and ~63). Seven slots' XORs and counts packed in one 64-byte
// line (one line per update, not two) measured no faster for XOR with the
// prefetching below and 30% slower for binary fuse, whose peel is local.
class SlotTable {
 public:
  explicit SlotTable(size_t slots) : xors_(slots), counts_(slots) {}

  uint8_t count(uint32_t slot) const { return counts_[slot]; }
  uint64_t xor_of(uint32_t slot) const { return xors_[slot]; }
  // Adds or removes hash h on `slot`; returns the slot's new count.
  uint8_t Add(uint32_t slot, uint64_t h) {
    xors_[slot] ^= h;
    return ++counts_[slot];
  }
  uint8_t Remove(uint32_t slot, uint64_t h) {
    xors_[slot] ^= h;
    return --counts_[slot];
  }
  void Prefetch(uint32_t slot) const {
    __builtin_prefetch(&xors_[slot], 1);
    __builtin_prefetch(&counts_[slot], 1);
  }

 private:
  CacheAlignedArray<uint64_t> xors_;
  CacheAlignedArray<uint8_t> counts_;
};

// A layout with `static constexpr bool kPeelBreadthFirst = true` is peeled
// first in, first out (XOR: a key's slots are far apart, so every slot
// update misses and only a pipeline of prefetches hides them), others last
// in, first out (binary fuse: a key's slots are near its neighbours', and a
// slot just left with one key is still cached when it is peeled next).
template <class Layout>
inline constexpr bool kPeelsBreadthFirst = requires {
  requires Layout::kPeelBreadthFirst;
};

// The prefetching below pays from about this many slots up (2.4 MB of
// slot table, beyond a core's L2): under it every line is cached anyway and
// the plain loops are faster (XOR8 at 10^5 keys: 25 against 34 ns/key with
// the prefetching, binary fuse 3-wise at 10^3 keys: 10 against 16).
inline constexpr size_t kPrefetchFromSlots = size_t{1} << 18;

// Calls visit(i, pos) for i = 0, 1, ..., n - 1 with pos = the slots of the
// hash key_at(i). With `ahead`, they were computed and given to
// prefetch(slot) 16 keys earlier (the counting pass and the assignment:
// most of an XOR filter's slots miss cache, and this keeps 48 of them in
// flight). Stops early, returning false, when visit does.
// (Always inlined: called out of line, its loops reach the caller's state
// through the lambdas' references and small builds lose ~15%.)
template <class Layout, class KeyAt, class Prefetch, class Visit>
[[gnu::always_inline]] inline bool ForEachKeysSlots(const Layout& layout, size_t n, bool ahead, const KeyAt& key_at,
                                                    const Prefetch& prefetch, const Visit& visit) {
  constexpr size_t kAhead = 16;  // a power of two
  uint32_t ring[kAhead][Layout::kArity];
  if (!ahead) {
    for (size_t i = 0; i < n; ++i) {
      layout.Positions(key_at(i), ring[0]);
      if (!visit(i, static_cast<const uint32_t*>(ring[0]))) return false;
    }
    return true;
  }
  auto compute = [&](size_t i) {
    layout.Positions(key_at(i), ring[i % kAhead]);
    for (uint32_t slot : ring[i % kAhead]) prefetch(slot);
  };
  for (size_t i = 0; i < n && i < kAhead; ++i) compute(i);
  for (size_t i = 0; i < n; ++i) {
    if (!visit(i, static_cast<const uint32_t*>(ring[i % kAhead]))) return false;
    if (i + kAhead < n) compute(i + kAhead);
  }
  return true;
}

// One peeling attempt over the mixed hashes keys[0, n). On success returns
// true, keys[k] holds the k-th peeled key's mixed hash and which[k] the index
// (0..kArity-1) of the slot it was peeled from. keys[] is overwritten either
// way (the peel order reuses its memory).
template <class Layout>
bool Peel(const Layout& layout, uint64_t* keys, size_t n, uint8_t* which) {
  constexpr int kArity = Layout::kArity;
  const size_t m = layout.num_slots();
  SlotTable slots(m);
  const bool large = m >= kPrefetchFromSlots;
  std::unique_ptr<uint32_t[]> queue(new uint32_t[m]);

  // The counting pass.
  const bool counted = ForEachKeysSlots(
      layout, n, large, [keys](size_t i) { return keys[i]; }, [&slots](uint32_t slot) { slots.Prefetch(slot); },
      [&](size_t i, const uint32_t* pos) {
        for (int j = 0; j < kArity; ++j) {
          // 255 keys on one slot: only duplicates do that at these loads;
          // the attempt fails and the next removes them.
          if (slots.count(pos[j]) == 255) return false;
          slots.Add(pos[j], keys[i]);
        }
        return true;
      });
  if (!counted) return false;
  // A slot's count only falls, so it reaches 1 at most once: the queue never
  // holds more than m entries.
  size_t queued = 0;
  for (size_t s = 0; s < m; ++s) {
    if (slots.count(static_cast<uint32_t>(s)) == 1) queue[queued++] = static_cast<uint32_t>(s);
  }
  uint32_t pos[kArity], next[kArity];
  size_t peeled = 0;
  // Takes the key left alone on `slot` (if it still is) out of the table
  // and queues the slots that this leaves with one key. Last in, first out,
  // such a slot is peeled next: its key's slots are prefetched at once.
  auto peel_slot = [&](uint32_t slot) {
    if (slots.count(slot) != 1) return;  // its last key left through another slot
    const uint64_t h = slots.xor_of(slot);
    layout.Positions(h, pos);
    int own = 0;
    for (int j = 0; j < kArity; ++j) {
      if (pos[j] == slot) own = j;
    }
    keys[peeled] = h;
    which[peeled] = static_cast<uint8_t>(own);
    ++peeled;
    for (int j = 0; j < kArity; ++j) {
      if (slots.Remove(pos[j], h) != 1) continue;
      queue[queued++] = pos[j];
      if (large && !kPeelsBreadthFirst<Layout>) {
        layout.Positions(slots.xor_of(pos[j]), next);
        for (uint32_t s : next) slots.Prefetch(s);
      }
    }
  };
  if (large && kPeelsBreadthFirst<Layout>) {
    // First in, first out: the slots to peel next are known well ahead, so
    // a pipeline prefetches slot head + 2 kPeelAhead's line, then reads slot
    // head + kPeelAhead's XOR (its key, if one is left) and prefetches that
    // key's slots, kPeelAhead slots before it is peeled.
    constexpr size_t kPeelAhead = 16;
    size_t head = 0;
    while (head < queued) {
      if (head + 2 * kPeelAhead < queued) slots.Prefetch(queue[head + 2 * kPeelAhead]);
      if (head + kPeelAhead < queued) {
        const uint32_t soon = queue[head + kPeelAhead];
        if (slots.count(soon) == 1) {
          layout.Positions(slots.xor_of(soon), next);
          for (uint32_t s : next) slots.Prefetch(s);
        }
      }
      peel_slot(queue[head++]);
    }
  } else {
    while (queued > 0) peel_slot(queue[--queued]);
  }
  return peeled == n;
}

// out[0, n) = the hashes mixed with `seed`, in order of their top bits
// (a counting sort into buckets of ~256 keys on average).
inline void MixInTopBitsOrder(const uint64_t* hashes, size_t n, uint32_t seed, uint64_t* out) {
  int bits = 0;
  while (bits < 22 && (size_t{256} << bits) < n) ++bits;
  if (bits == 0) {
    for (size_t i = 0; i < n; ++i) out[i] = SeededHash(hashes[i], seed);
    return;
  }
  const int shift = 64 - bits;
  std::unique_ptr<size_t[]> start(new size_t[(size_t{1} << bits) + 1]());
  for (size_t i = 0; i < n; ++i) ++start[(SeededHash(hashes[i], seed) >> shift) + 1];
  for (size_t b = 1; b <= (size_t{1} << bits); ++b) start[b] += start[b - 1];
  for (size_t i = 0; i < n; ++i) {
    const uint64_t mixed = SeededHash(hashes[i], seed);
    out[start[mixed >> shift]++] = mixed;
  }
}

// Sorts keys[0, n) and drops repeats; returns the distinct count.
inline size_t SortUnique(uint64_t* keys, size_t n) {
  std::sort(keys, keys + n);
  return static_cast<size_t>(std::unique(keys, keys + n) - keys);
}

}  // namespace internal

// What a successful build gives: the layout, the seed its hashes were remixed
// with, and the fingerprint array.
template <class Layout, class Fingerprint>
struct Peeled {
  Layout layout;
  uint32_t seed = 0;
  size_t distinct_keys = 0;
  CacheAlignedArray<Fingerprint> fingerprints;
};

// Builds from n hashes: peels with seed 0, 1, ... (up to max_attempts),
// removing duplicates after a failure, then assigns fingerprints in reverse
// peel order. `make_layout(distinct_keys, seed)` gives the layout for an
// attempt. Fails (InvalidArgument naming `what`) only if every seed failed.
template <class Fingerprint, class MakeLayout>
Status BuildByPeeling(const uint64_t* hashes, size_t n, const MakeLayout& make_layout, int max_attempts,
                      const std::string& what,
                      Peeled<decltype(make_layout(size_t{0}, uint32_t{0})), Fingerprint>* out) {
  using Layout = decltype(make_layout(size_t{0}, uint32_t{0}));
  constexpr int kArity = Layout::kArity;
  std::unique_ptr<uint64_t[]> keys(new uint64_t[std::max<size_t>(n, 1)]);
  std::unique_ptr<uint8_t[]> which(new uint8_t[std::max<size_t>(n, 1)]);
  size_t distinct = n;
  for (int attempt = 0; attempt < max_attempts; ++attempt) {
    const auto seed = static_cast<uint32_t>(attempt);
    // (The previous attempt overwrote keys[] with its partial peel order.)
    if (attempt == 0) {
      internal::MixInTopBitsOrder(hashes, n, seed, keys.get());
    } else {
      // Mixing is a bijection, so equal mixed hashes are exactly the duplicates.
      for (size_t i = 0; i < n; ++i) keys[i] = SeededHash(hashes[i], seed);
      distinct = internal::SortUnique(keys.get(), n);
    }
    Layout layout = make_layout(distinct, seed);
    if (distinct > 0 && !internal::Peel(layout, keys.get(), distinct, which.get())) continue;

    CacheAlignedArray<Fingerprint> fingerprints(layout.num_slots());
    Fingerprint* f = fingerprints.data();
    // In reverse peel order each key's own slot is touched by no key assigned
    // after it, so setting it last makes the key's XOR come out right.
    const uint64_t* peeled = keys.get() + distinct - 1;  // peeled[-i]: the i-th last
    internal::ForEachKeysSlots(
        layout, distinct, layout.num_slots() >= internal::kPrefetchFromSlots,
        [peeled](size_t i) { return *(peeled - i); }, [f](uint32_t slot) { __builtin_prefetch(f + slot, 1); },
        [&](size_t i, const uint32_t* pos) {
          Fingerprint value = FingerprintOf<Fingerprint>(*(peeled - i));
          for (int j = 0; j < kArity; ++j) value ^= f[pos[j]];  // f[own] is still 0
          f[pos[which[distinct - 1 - i]]] = value;
          return true;
        });
    out->layout = layout;
    out->seed = seed;
    out->distinct_keys = distinct;
    out->fingerprints = std::move(fingerprints);
    return Status::OK();
  }
  return Status::InvalidArgument(what + ": no seed of " + std::to_string(max_attempts) + " peeled " +
                                 std::to_string(distinct) + " distinct hashes (of " + std::to_string(n) +
                                 " given); the layout is too small for them");
}

}  // namespace filterlab::fuse
