// SkipList: the memtable's ordered index (spec lsm-features.md §2.2–2.4).
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
// entries per memtable without degrading.
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

#include <atomic>
#include <cassert>
#include <cstdint>
#include <new>

#include "engine/util/arena.h"
#include "engine/util/random.h"

namespace filterlab::engine {

// Comparator: a copyable object with int operator()(const Key&, const Key&)
// const giving a three-way comparison.
template <typename Key, class Comparator>
class SkipList {
 private:
  struct Node;  // declared ahead for Iterator (clang resolves its use there eagerly)

 public:
  static constexpr int kMaxHeight = 12;
  static constexpr int kBranching = 4;
  static constexpr uint32_t kDefaultSeed = 0xdeadbeef;

  // Nodes live in *arena, which must outlive the list.
  SkipList(Comparator cmp, Arena* arena, uint32_t seed = kDefaultSeed);
  SkipList(const SkipList&) = delete;
  SkipList& operator=(const SkipList&) = delete;

  // Writer only. Precondition: no key comparing equal is already present.
  void Insert(const Key& key);
  bool Contains(const Key& key) const;

  // Estimated number of keys k with start <= k < end (new algorithm, §2.3).
  uint64_t ApproximateNumEntries(const Key& start, const Key& end) const;
  // The replaced estimate (§2.4): max(0, rank(end) − rank(start)).
  uint64_t ApproximateNumEntriesOld(const Key& start, const Key& end) const;
  // §2.4's rank estimate: about the number of keys < key.
  uint64_t EstimateRank(const Key& key) const;

  // Highest node so far (1 when empty).
  int max_height() const { return max_height_.load(std::memory_order_relaxed); }

  // Iteration; valid only while the list lives. Any thread.
  class Iterator {
   public:
    explicit Iterator(const SkipList* list) : list_(list) {}
    bool Valid() const { return node_ != nullptr; }
    // Precondition: Valid().
    const Key& key() const {
      assert(Valid());
      return node_->key;
    }
    void Next() {
      assert(Valid());
      node_ = node_->Next(0);
    }
    // O(log n): searches from the head for the last node before this one.
    void Prev() {
      assert(Valid());
      node_ = list_->FindLessThan(node_->key);
      if (node_ == list_->head_) node_ = nullptr;
    }
    // First key >= target.
    void Seek(const Key& target) { node_ = list_->FindGreaterOrEqual(target, nullptr); }
    // Last key <= target.
    void SeekForPrev(const Key& target) {
      Seek(target);
      if (!Valid()) {
        SeekToLast();
      } else if (list_->compare_(node_->key, target) > 0) {
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

 private:
  struct Node {
    explicit Node(const Key& k) : key(k) {}
    Key key;

    // The `height` next pointers are laid out right after the Node.
    std::atomic<Node*>* links() { return reinterpret_cast<std::atomic<Node*>*>(this + 1); }
    const std::atomic<Node*>* links() const { return reinterpret_cast<const std::atomic<Node*>*>(this + 1); }

    Node* Next(int level) const { return links()[level].load(std::memory_order_acquire); }
    void SetNext(int level, Node* x) { links()[level].store(x, std::memory_order_release); }
    // Before publication only the writer can see the node: no ordering needed.
    Node* NextRelaxed(int level) const { return links()[level].load(std::memory_order_relaxed); }
    void SetNextRelaxed(int level, Node* x) { links()[level].store(x, std::memory_order_relaxed); }
  };
  static_assert(alignof(Node) <= Arena::kAlign, "arena alignment too small for nodes");
  static_assert(sizeof(Node) % alignof(std::atomic<Node*>) == 0, "links after a Node would be misaligned");

  Node* NewNode(const Key& key, int height);
  int RandomHeight();
  bool KeyIsAfterNode(const Key& key, const Node* n) const {
    return n != nullptr && compare_(n->key, key) < 0;
  }
  // First node >= key; fills prev[level] with the last node < key per level.
  Node* FindGreaterOrEqual(const Key& key, Node** prev) const;
  // Last node < key, or head_.
  Node* FindLessThan(const Key& key) const;
  // Last node, or head_ when empty.
  Node* FindLast() const;

  Comparator const compare_;
  Arena* const arena_;
  Node* const head_;
  std::atomic<int> max_height_{1};
  Random rnd_;  // writer only
};

template <typename Key, class Comparator>
SkipList<Key, Comparator>::SkipList(Comparator cmp, Arena* arena, uint32_t seed)
    : compare_(cmp), arena_(arena), head_(NewNode(Key(), kMaxHeight)), rnd_(seed) {
  for (int i = 0; i < kMaxHeight; ++i) head_->SetNextRelaxed(i, nullptr);
}

template <typename Key, class Comparator>
typename SkipList<Key, Comparator>::Node* SkipList<Key, Comparator>::NewNode(const Key& key, int height) {
  char* mem = arena_->AllocateAligned(sizeof(Node) + sizeof(std::atomic<Node*>) * height);
  Node* node = new (mem) Node(key);
  for (int i = 0; i < height; ++i) new (&node->links()[i]) std::atomic<Node*>(nullptr);
  return node;
}

template <typename Key, class Comparator>
int SkipList<Key, Comparator>::RandomHeight() {
  // Grow with probability 1/4 per level: Next() is uniform on [1, 2^31−2].
  constexpr uint32_t kScaledInverseBranching = (Random::kMaxNext + 1) / kBranching;
  int height = 1;
  while (height < kMaxHeight && rnd_.Next() < kScaledInverseBranching) ++height;
  return height;
}

template <typename Key, class Comparator>
typename SkipList<Key, Comparator>::Node* SkipList<Key, Comparator>::FindGreaterOrEqual(const Key& key,
                                                                                       Node** prev) const {
  Node* x = head_;
  int level = max_height() - 1;
  while (true) {
    Node* next = x->Next(level);
    if (KeyIsAfterNode(key, next)) {
      x = next;
    } else {
      if (prev != nullptr) prev[level] = x;
      if (level == 0) return next;
      --level;
    }
  }
}

template <typename Key, class Comparator>
typename SkipList<Key, Comparator>::Node* SkipList<Key, Comparator>::FindLessThan(const Key& key) const {
  Node* x = head_;
  int level = max_height() - 1;
  while (true) {
    Node* next = x->Next(level);
    if (next != nullptr && compare_(next->key, key) < 0) {
      x = next;
    } else {
      if (level == 0) return x;
      --level;
    }
  }
}

template <typename Key, class Comparator>
typename SkipList<Key, Comparator>::Node* SkipList<Key, Comparator>::FindLast() const {
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

template <typename Key, class Comparator>
void SkipList<Key, Comparator>::Insert(const Key& key) {
  Node* prev[kMaxHeight];
  Node* x = FindGreaterOrEqual(key, prev);
  assert(x == nullptr || compare_(key, x->key) != 0);
  (void)x;

  const int height = RandomHeight();
  const int old_max = max_height();
  if (height > old_max) {
    for (int i = old_max; i < height; ++i) prev[i] = head_;
    // Readers that see the new height early find null at the head's new
    // levels, which is a correct (empty) level for them.
    max_height_.store(height, std::memory_order_relaxed);
  }

  Node* node = NewNode(key, height);
  for (int i = 0; i < height; ++i) {
    node->SetNextRelaxed(i, prev[i]->NextRelaxed(i));
    prev[i]->SetNext(i, node);  // publication
  }
}

template <typename Key, class Comparator>
bool SkipList<Key, Comparator>::Contains(const Key& key) const {
  Node* x = FindGreaterOrEqual(key, nullptr);
  return x != nullptr && compare_(key, x->key) == 0;
}

template <typename Key, class Comparator>
uint64_t SkipList<Key, Comparator>::ApproximateNumEntries(const Key& start, const Key& end) const {
  const Node* lb = head_;        // last node known to be < start
  const Node* ub = nullptr;      // first node known to be >= end (null = end of list)
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
    while (next != ub && compare_(next->key, start) < 0) {
      lb = next;
      next = lb->Next(level);
    }
    while (next != ub && compare_(next->key, end) < 0) {
      ++count;
      next = next->Next(level);
    }
    ub = next;  // unchanged if we stopped at ub; otherwise a node >= end
  }
  return count;
}

template <typename Key, class Comparator>
uint64_t SkipList<Key, Comparator>::EstimateRank(const Key& key) const {
  const Node* x = head_;
  int level = max_height() - 1;
  uint64_t count = 0;
  while (true) {
    const Node* next = x->Next(level);
    if (next == nullptr || compare_(next->key, key) >= 0) {
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

template <typename Key, class Comparator>
uint64_t SkipList<Key, Comparator>::ApproximateNumEntriesOld(const Key& start, const Key& end) const {
  const uint64_t end_rank = EstimateRank(end);
  const uint64_t start_rank = EstimateRank(start);
  return end_rank > start_rank ? end_rank - start_rank : 0;
}

}  // namespace filterlab::engine
