// SkipList: the memtable's ordered index (RocksDB's memtable/inlineskiplist.h; the
// range estimate of PR #13047).
//
// Inline keys: each node is ONE arena allocation holding its next pointers
// followed by the key's bytes,
//   [next[h−1] … next[1] next[0]] [key bytes …]
//                                 ^ the node's address
// so the key a search compares sits right after the level-0 pointer, in the
// same cache line(s) as the node, and a step of a search costs one cache miss
// rather than two (node, then a separately allocated key). The writer asks
// for a node with AllocateKey(n), writes the key into the n bytes it gets,
// then Insert()s that pointer. Keys are opaque bytes; the list never needs
// their length (the comparator knows the format).
//
// Comparator: a copyable object with
//   using DecodedKey = …;                 // a search key in a cheap-to-compare form
//   DecodedKey Decode(const char* stored) const;
//   int operator()(const char* stored, const DecodedKey& key) const;  // three-way
// Searches decode their target once and compare every visited node's bytes
// against it, so only the stored side is parsed per step.
//
// Concurrency: one writer, many readers, no locks on the read path. A node is
// fully built (key and its own next pointers) before the writer publishes it
// with a release store into its predecessors' next pointers; readers follow
// next pointers with acquire loads, so whoever sees a node sees its contents.
// Nodes are never removed or modified after publication (the arena frees
// them all at once), so a reader can never hold a dangling pointer. The
// current maximum height is a relaxed atomic: a reader that sees a new,
// larger height before the head's pointers at that level are set just finds
// null there and drops a level.
//
// Shape: branching factor 4 and maximum height 12 (RocksDB's defaults). A
// node reaches height k+1 from k with probability 1/4 (Lehmer RNG output
// below (2^31−1)/4), so level k holds ~N/4^k nodes and a search visits
// ~B/2 nodes per level, ~2·log4(N) in all. Height 12 suits up to ~4^12 = 16M
// entries per memtable without degrading. A node's height is drawn when
// AllocateKey makes it (one draw per key, in insertion order).
//
// Range counts: ApproximateNumEntries(start, end) is the algorithm of
// RocksDB PR #13047 (§2.3): walk down the levels counting in-range nodes at
// each level from the tightest bounds found so far, and stop counting at the
// first (highest) level k whose count c_k is at least (k−1)·B + 10, then
// answer c_k·B^k. Level k keeps each entry independently with probability
// B^−k, so c_k is ~Binomial(n, B^−k): a count of ≥ ~40 samples has relative
// spread ≈ 1/√c_k ≈ 15–20%, while stopping high keeps the cost at about
// two point lookups. A count below 10 at level 1 sends the walk to level 0,
// where it is exact; any scaled answer is ≥ 10·4 = 40. So: exact for true
// counts ≤ 9 (and 10 unless all ten nodes are tall, p ≈ 4^−10), ≥ 40 for
// true counts ≥ 40, over-estimates only for 11..39.
// ApproximateNumEntriesOld is the algorithm it replaced (§2.4): estimate
// each end's rank by summing steps ×B^level on the way down, and subtract;
// the two noisy ranks make small ranges unreliable. Kept for comparison.
#pragma once

#include <algorithm>
#include <atomic>
#include <cassert>
#include <cstddef>
#include <cstdint>
#include <new>

#include "engine/util/arena.h"
#include "engine/util/random.h"

namespace filterlab::engine {

template <class Comparator>
class SkipList {
 private:
  struct Node;  // declared ahead for Iterator (clang resolves its use there eagerly)

 public:
  using DecodedKey = typename Comparator::DecodedKey;
  static constexpr int kMaxHeight = 12;
  static constexpr int kBranching = 4;
  static constexpr uint32_t kDefaultSeed = 0xdeadbeef;

  // Nodes live in *arena, which must outlive the list.
  SkipList(Comparator cmp, Arena* arena, uint32_t seed = kDefaultSeed);
  SkipList(const SkipList&) = delete;
  SkipList& operator=(const SkipList&) = delete;

  // Writer only. A new, unpublished node with room for key_bytes of key
  // (uninitialised); write the key there, then Insert(the returned pointer)
  // before the next AllocateKey.
  char* AllocateKey(size_t key_bytes);
  // Writer only. Publishes the node AllocateKey returned as `key`.
  // Precondition: no key comparing equal is already present.
  void Insert(const char* key);
  bool Contains(const DecodedKey& key) const;

  // Estimated number of keys k with start <= k < end (new algorithm, §2.3).
  uint64_t ApproximateNumEntries(const DecodedKey& start, const DecodedKey& end) const;
  // The replaced estimate (§2.4): max(0, rank(end) − rank(start)).
  uint64_t ApproximateNumEntriesOld(const DecodedKey& start, const DecodedKey& end) const;
  // §2.4's rank estimate: about the number of keys < key.
  uint64_t EstimateRank(const DecodedKey& key) const;

  // Highest node so far (1 when empty).
  int max_height() const { return max_height_.load(std::memory_order_relaxed); }

  // Iteration; valid only while the list lives. Any thread.
  class Iterator {
   public:
    explicit Iterator(const SkipList* list) : list_(list) {}
    bool Valid() const { return node_ != nullptr; }
    // The stored key bytes. Precondition: Valid().
    const char* key() const {
      assert(Valid());
      return node_->key();
    }
    void Next() {
      assert(Valid());
      node_ = node_->Next(0);
    }
    // O(log n): searches from the head for the last node before this one.
    void Prev() {
      assert(Valid());
      node_ = list_->FindLessThan(list_->compare_.Decode(node_->key()));
      if (node_ == list_->head_) node_ = nullptr;
    }
    // First key >= target.
    void Seek(const DecodedKey& target) { node_ = list_->FindGreaterOrEqual(target, nullptr); }
    // Last key <= target.
    void SeekForPrev(const DecodedKey& target) {
      Seek(target);
      if (!Valid()) {
        SeekToLast();
      } else if (list_->compare_(node_->key(), target) > 0) {
        Prev();
      }
    }
    void SeekToFirst() { node_ = list_->head_->Next(0); }
    void SeekToLast() {
      node_ = list_->FindLast();
      if (node_ == list_->head_) node_ = nullptr;
    }

   private:
    const SkipList* list_;
    const typename SkipList::Node* node_ = nullptr;
  };

  // out[i] = the stored bytes of the first key >= keys[i] (nullptr if none),
  // for i < n, searched in lockstep: every search of a chunk of up to
  // kLockstepChunk keys takes one step per round, and each step prefetches
  // the node its search compares next, so the chunk's searches wait for
  // their cache misses together instead of one after another. A lone search
  // stalls on each of its ~2·log4(N) dependent node misses; here a round
  // issues up to kLockstepChunk independent misses and a search's next
  // compare comes a whole round after its prefetch. Keys in any order
  // (duplicates too). Any thread.
  static constexpr size_t kLockstepChunk = 32;
  void SeekBatch(const DecodedKey* keys, size_t n, const char** out) const;

 private:
  using Link = std::atomic<Node*>;
  // A Node is never constructed: a Node* is the address of the key bytes,
  // with next[level] stored (level + 1) links below it.
  struct Node {
    Node() = delete;
    const char* key() const { return reinterpret_cast<const char*>(this); }
    Link* link(int level) { return reinterpret_cast<Link*>(this) - (level + 1); }
    const Link* link(int level) const { return reinterpret_cast<const Link*>(this) - (level + 1); }

    Node* Next(int level) const { return link(level)->load(std::memory_order_acquire); }
    void SetNext(int level, Node* x) { link(level)->store(x, std::memory_order_release); }
    // Before publication only the writer can see the node: no ordering needed.
    Node* NextRelaxed(int level) const { return link(level)->load(std::memory_order_relaxed); }
    void SetNextRelaxed(int level, Node* x) { link(level)->store(x, std::memory_order_relaxed); }
  };
  static_assert(alignof(Link) <= Arena::kAlign, "arena alignment too small for next pointers");
  static_assert(sizeof(Link) == sizeof(Node*), "links must be plain pointers in size");

  Node* NewNode(size_t key_bytes, int height);
  int RandomHeight();
  bool KeyIsAfterNode(const DecodedKey& key, const Node* n) const {
    return n != nullptr && compare_(n->key(), key) < 0;
  }
  // While a search compares x's successor at `level`, the node it visits
  // next is either that successor's successor (step right) or x's successor
  // one level down (step down), whose address is already in x's links:
  // prefetching the latter overlaps its cache miss with the comparison, so
  // each step down is (nearly) free. A step right loses nothing.
  static void PrefetchBelow(const Node* x, int level) {
    if (level > 0) {
      const Node* below = x->Next(level - 1);
      if (below != nullptr) __builtin_prefetch(below);
    }
  }
  // The lines a search reads at node n on `level`: its key (compared) and
  // its link there (followed when the search steps onto n). The address is
  // computed, not loaded, so this adds no miss of its own.
  static void PrefetchNode(const Node* n, int level) {
    __builtin_prefetch(n);
    __builtin_prefetch(n->link(level));
  }
  // First node >= key; fills prev[level] with the last node < key per level.
  Node* FindGreaterOrEqual(const DecodedKey& key, Node** prev) const;
  // The search from node x (< key) at `level` down to level 0: the first node
  // >= key; prev[l] (if prev) gets the last node < key at each level passed.
  Node* DescendFrom(const DecodedKey& key, Node* x, int level, Node** prev) const;
  // Last node < key, or head_.
  Node* FindLessThan(const DecodedKey& key) const;
  // Last node, or head_ when empty.
  Node* FindLast() const;

  Comparator const compare_;
  Arena* const arena_;
  Node* const head_;
  std::atomic<int> max_height_{1};
  Random rnd_;  // writer only
  // Writer only: the node AllocateKey made and Insert will publish.
  Node* pending_ = nullptr;
  int pending_height_ = 0;
};

template <class Comparator>
SkipList<Comparator>::SkipList(Comparator cmp, Arena* arena, uint32_t seed)
    : compare_(cmp), arena_(arena), head_(NewNode(0, kMaxHeight)), rnd_(seed) {}

template <class Comparator>
typename SkipList<Comparator>::Node* SkipList<Comparator>::NewNode(size_t key_bytes, int height) {
  // Links first (aligned, as the arena block is), then the key: the node's
  // address is just past its last link. A zero-length key still gets one
  // byte so the node address is inside the allocation.
  const size_t links_bytes = sizeof(Link) * static_cast<size_t>(height);
  char* mem = arena_->AllocateAligned(links_bytes + (key_bytes > 0 ? key_bytes : 1));
  Link* links = reinterpret_cast<Link*>(mem);
  for (int i = 0; i < height; ++i) new (&links[i]) Link(nullptr);
  return reinterpret_cast<Node*>(mem + links_bytes);
}

template <class Comparator>
char* SkipList<Comparator>::AllocateKey(size_t key_bytes) {
  assert(pending_ == nullptr && "AllocateKey twice without Insert");
  pending_height_ = RandomHeight();
  pending_ = NewNode(key_bytes, pending_height_);
  return reinterpret_cast<char*>(pending_);
}

template <class Comparator>
int SkipList<Comparator>::RandomHeight() {
  // Grow with probability 1/4 per level: Next() is uniform on [1, 2^31−2].
  constexpr uint32_t kScaledInverseBranching = (Random::kMaxNext + 1) / kBranching;
  int height = 1;
  while (height < kMaxHeight && rnd_.Next() < kScaledInverseBranching) ++height;
  return height;
}

template <class Comparator>
typename SkipList<Comparator>::Node* SkipList<Comparator>::FindGreaterOrEqual(const DecodedKey& key,
                                                                              Node** prev) const {
  return DescendFrom(key, head_, max_height() - 1, prev);
}

template <class Comparator>
typename SkipList<Comparator>::Node* SkipList<Comparator>::DescendFrom(const DecodedKey& key, Node* x, int level,
                                                                       Node** prev) const {
  while (true) {
    Node* next = x->Next(level);
    PrefetchBelow(x, level);
    if (KeyIsAfterNode(key, next)) {
      x = next;
    } else {
      if (prev != nullptr) prev[level] = x;
      if (level == 0) return next;
      --level;
    }
  }
}

template <class Comparator>
void SkipList<Comparator>::SeekBatch(const DecodedKey* keys, size_t n, const char** out) const {
  // One search's state: x < its key at `level`; next = x's successor there,
  // already prefetched, is what the search compares in the coming round.
  struct Search {
    Node* x;
    Node* next;
    int level;
  };
  Search search[kLockstepChunk];
  uint8_t active[kLockstepChunk];  // the unfinished searches, in batch order
  for (size_t base = 0; base < n; base += kLockstepChunk) {
    const size_t m = std::min(kLockstepChunk, n - base);
    const int top = max_height() - 1;
    Node* const first = head_->Next(top);
    if (first != nullptr) PrefetchNode(first, top);
    for (size_t i = 0; i < m; ++i) {
      search[i] = {head_, first, top};
      active[i] = static_cast<uint8_t>(i);
    }
    size_t live = m;
    while (live > 0) {
      size_t kept = 0;
      for (size_t k = 0; k < live; ++k) {
        const uint8_t i = active[k];
        Search& q = search[i];
        if (KeyIsAfterNode(keys[base + i], q.next)) {
          q.x = q.next;  // step right
        } else if (q.level == 0) {
          out[base + i] = q.next == nullptr ? nullptr : q.next->key();
          continue;  // done: drops out of the round
        } else {
          --q.level;  // step down
        }
        q.next = q.x->Next(q.level);
        if (q.next != nullptr) PrefetchNode(q.next, q.level);
        active[kept++] = i;
      }
      live = kept;
    }
  }
}

template <class Comparator>
typename SkipList<Comparator>::Node* SkipList<Comparator>::FindLessThan(const DecodedKey& key) const {
  Node* x = head_;
  int level = max_height() - 1;
  while (true) {
    Node* next = x->Next(level);
    if (next != nullptr && compare_(next->key(), key) < 0) {
      x = next;
    } else {
      if (level == 0) return x;
      --level;
    }
  }
}

template <class Comparator>
typename SkipList<Comparator>::Node* SkipList<Comparator>::FindLast() const {
  Node* x = head_;
  int level = max_height() - 1;
  while (true) {
    Node* next = x->Next(level);
    if (next != nullptr) {
      x = next;
    } else {
      if (level == 0) return x;
      --level;
    }
  }
}

template <class Comparator>
void SkipList<Comparator>::Insert(const char* key) {
  assert(pending_ != nullptr && key == pending_->key() && "Insert takes the pointer AllocateKey returned");
  Node* const node = pending_;
  const int height = pending_height_;
  pending_ = nullptr;

  Node* prev[kMaxHeight];
  const DecodedKey decoded = compare_.Decode(key);
  Node* x = FindGreaterOrEqual(decoded, prev);
  assert(x == nullptr || compare_(x->key(), decoded) != 0);
  (void)x;

  const int old_max = max_height();
  if (height > old_max) {
    for (int i = old_max; i < height; ++i) prev[i] = head_;
    // Readers that see the new height early find null at the head's new
    // levels, which is a correct (empty) level for them.
    max_height_.store(height, std::memory_order_relaxed);
  }

  for (int i = 0; i < height; ++i) {
    node->SetNextRelaxed(i, prev[i]->NextRelaxed(i));
    prev[i]->SetNext(i, node);  // publication
  }
}

template <class Comparator>
bool SkipList<Comparator>::Contains(const DecodedKey& key) const {
  Node* x = FindGreaterOrEqual(key, nullptr);
  return x != nullptr && compare_(x->key(), key) == 0;
}

template <class Comparator>
uint64_t SkipList<Comparator>::ApproximateNumEntries(const DecodedKey& start, const DecodedKey& end) const {
  const Node* lb = head_;    // last node known to be < start
  const Node* ub = nullptr;  // first node known to be >= end (null = end of list)
  uint64_t count = 0;
  for (int level = max_height() - 1; level >= 0; --level) {
    const uint64_t needed = static_cast<uint64_t>(level) * kBranching + 10;
    if (count >= needed) {
      // The level above already had enough samples: scale instead of walking.
      count *= kBranching;
      continue;
    }
    count = 0;
    const Node* next = lb->Next(level);
    while (next != ub && compare_(next->key(), start) < 0) {
      lb = next;
      next = lb->Next(level);
    }
    while (next != ub && compare_(next->key(), end) < 0) {
      ++count;
      next = next->Next(level);
    }
    ub = next;  // unchanged if we stopped at ub; otherwise a node >= end
  }
  return count;
}

template <class Comparator>
uint64_t SkipList<Comparator>::EstimateRank(const DecodedKey& key) const {
  const Node* x = head_;
  int level = max_height() - 1;
  uint64_t count = 0;
  while (true) {
    const Node* next = x->Next(level);
    if (next == nullptr || compare_(next->key(), key) >= 0) {
      if (level == 0) return count;
      // Each step at the next lower level is worth 1/B of a step here.
      count *= kBranching;
      --level;
    } else {
      x = next;
      ++count;
    }
  }
}

template <class Comparator>
uint64_t SkipList<Comparator>::ApproximateNumEntriesOld(const DecodedKey& start, const DecodedKey& end) const {
  const uint64_t end_rank = EstimateRank(end);
  const uint64_t start_rank = EstimateRank(start);
  return end_rank > start_rank ? end_rank - start_rank : 0;
}

}  // namespace filterlab::engine
