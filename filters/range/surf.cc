// SuRF: the Succinct Range Filter of Zhang, Lim, Leis, Andersen, Kaminsky,
// Keeton, Pavlo, "SuRF: Practical Range Query Filtering with Fast Succinct
// Tries" (SIGMOD 2018). Variant "surf:suffix=none|hash|real,bits=S[,dense=R]".
//
// What it is. A trie over the byte-string keys (a uint64 key is its 8
// big-endian bytes), cut below each key's shortest prefix that tells it apart
// from its neighbours (paper, Section 3.1: SuRF-Base stores the minimum-length
// prefixes), then encoded level by level. LOUDS-Sparse (Section 2.3): per
// edge its label byte (S-Labels), whether it continues to a child
// (S-HasChild) and whether it starts a node (S-LOUDS). A node's child is
// node rank1(S-HasChild, pos) and node k starts at select1(S-LOUDS, k), so the
// sparse trie costs 10 bits per edge plus the rank and select samples. A node where
// a key ends while longer keys continue carries an is-prefix-key bit (the
// paper's terminator label). Each stored key (leaf or prefix key) may carry
// S suffix bits (Section 3.2): hash (S bits of XXH3 of the whole key: point
// queries lose a factor 2^-S of their false positives, ranges nothing) or
// real (the S key bits after the stored prefix: both point and range queries
// can tell apart keys sharing the prefix down to those bits).
//
// LOUDS-DS (Section 2, LOUDS-Dense and LOUDS-DS): the top levels are
// LOUDS-Dense, the rest LOUDS-Sparse, both numbering nodes in level order
// (root 0), so the dense part is simply nodes 0..dense_nodes-1 and the move
// from a dense node into the sparse part is a node number >= dense_nodes. A
// dense node n has 256 label bits (D-Labels: label b present) and 256
// has-child bits (D-HasChild: edge b continues), stored together in the 64
// bytes of words 8n..8n+7 (one cache line per node; the paper keeps them as
// two bitmaps), and one word of rank counts: label and has-child bits
// before node n (DenseView; a query reads every 4th node's counts, copied
// out when the filter is built or opened). Along edge (n, b), at bit
// p = 256n + b:
//   child node      = rank1(D-HasChild, p)                (the root is 0)
//   leaf number     = rank1(D-Labels, p) - 1 - rank1(D-HasChild, p)
//   next label >= b = the first one of D-Labels in [p, 256n + 256)
// and from a sparse edge at label index i:
//   child node      = dense_child_edges + rank1(S-HasChild, i)
//   leaf number     = dense leaves + i - rank1(S-HasChild, i - 1)
// is-prefix-key keeps one bit per node over both parts. A sparse node's
// labels are searched 16 at a time with SSE2 (the paper's optimizations use
// SIMD label search too); a dense node needs no search at all.
//
// Cost. A dense node: 9 words + the is-prefix-key bit = 577 bits whatever
// its fan-out; a sparse edge: 10 bits + 6.25% rank counts and select
// samples. Dense is the smaller encoding once a node has more than about 55
// edges, and a step through it reads one line (and up to 3 lines before it,
// loaded alongside on the same page) against a select sample, a LOUDS word,
// the labels and a has-child word for a sparse step.
//
// Cut rule. Level c joins the dense part while R * (dense bits of levels
// < c) < 10 * (sparse edges of levels >= c), 577 bits per dense node, R =
// 64 (the paper's ratio; spec option dense=R, dense=0 for LOUDS-Sparse
// only), and at most 2^24 dense nodes (the counts are 32-bit). The test is
// on the levels already dense, as in the reference builder
// (SuRFBuilder::determineCutoffLevel), so the cut lands one level below the
// paper's inequality size(dense) * R <= size(sparse): for 10^7 uniform
// 64-bit keys levels 0-2 go dense (65793 nodes, 3.8 bits/key), and level 2,
// whose 65536 nodes hold 7.5 * 10^6 edges, costs less dense than sparse
// (7.5 bits/key). Answers do not depend on the cut. Serialized layout
// version 2 (the "version" field) appends the dense words after the
// suffixes; version 1, LOUDS-Sparse only, still opens.
//
// Range query (Section 3.3, the iterator's moveToKeyGreaterThan): descend
// along lo as far as the trie allows and find the first stored prefix P
// whose key may be >= lo; the range may hold a key when P may be <= hi.
// A stored prefix that is itself a prefix of lo (the key continues beyond
// what the trie kept) is ambiguous: taken as >= lo unless real suffix bits
// show the key below lo. Likewise against hi.
//
// FP model (kind empirical): the paper gives the FPR of hashed suffixes for
// point queries (2^-S over the keys whose prefix a query shares, Section
// 3.2) and argues the range behaviour from the key distribution; no model of
// the range FPR for a workload, so none is stated. A correlated query whose
// left end lies just above a key shares that key's stored prefix and is a
// false positive: the failure Grafite's paper shows.
#include <algorithm>
#include <bit>
#include <climits>
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#if defined(__SSE2__)
#include <immintrin.h>
#endif

#include "common/aligned_array.h"
#include "filters/filter_spec.h"
#include "filters/range/range_filter.h"
#include "filters/range/range_serialization.h"
#include "filters/range/select_in_word.h"
#include "filters/registry.h"
#include "hashing/xxh3.h"

namespace filterlab::surf {
namespace {

constexpr char kVariantName[] = "surf";
enum class Suffix : int { kNone = 0, kHash = 1, kReal = 2 };
constexpr int kLayoutVersion = 2;                   // 2: LOUDS-Dense top levels; 1: LOUDS-Sparse only (still read)
constexpr int kDefaultDenseRatio = 64;              // the paper's R (Section 3.1)
constexpr uint64_t kDenseBitsPerNode = 9 * 64 + 1;  // labels, has-child, counts; is-prefix-key
constexpr uint64_t kSparseBitsPerEdge = 8 + 1 + 1;  // label, has-child, LOUDS
const char* SuffixName(Suffix s) { return s == Suffix::kNone ? "none" : s == Suffix::kHash ? "hash" : "real"; }

inline uint64_t LoadWord(const uint8_t* p, uint64_t i) {
  uint64_t w;
  std::memcpy(&w, p + 8 * i, 8);
  return w;
}

// A bit vector over little-endian words with rank1 (a uint32 count before
// each 512-bit block: 6.25%) and select1 (the position of every 64th one,
// a uint32 each), all in one word array so it serializes as it is.
struct RankSelectShape {
  uint64_t bits = 0;
  uint64_t ones = 0;
  uint64_t Words() const { return (bits + 63) / 64; }
  uint64_t Blocks() const { return Words() / 8 + 1; }         // counts, one uint32 each
  uint64_t Samples() const { return (ones + 63) / 64; }       // uint32 each
  uint64_t CountWords() const { return (Blocks() + 1) / 2; }  // packed two per word
  uint64_t SampleWords() const { return (Samples() + 1) / 2; }
  uint64_t TotalWords() const { return Words() + CountWords() + SampleWords(); }
};

void AppendRankSelect(const std::vector<bool>& bits, std::vector<uint64_t>* out, RankSelectShape* shape) {
  shape->bits = bits.size();
  shape->ones = static_cast<uint64_t>(std::count(bits.begin(), bits.end(), true));
  const size_t base = out->size();
  out->resize(base + shape->TotalWords(), 0);
  uint64_t* words = out->data() + base;
  for (size_t i = 0; i < bits.size(); ++i) {
    if (bits[i]) words[i / 64] |= uint64_t{1} << (i % 64);
  }
  auto put32 = [](uint64_t* area, uint64_t i, uint64_t v) { area[i / 2] |= (v & 0xffffffffULL) << (32 * (i % 2)); };
  uint64_t* counts = words + shape->Words();
  uint64_t sum = 0;
  for (uint64_t b = 0; b < shape->Blocks(); ++b) {
    put32(counts, b, sum);
    for (uint64_t w = 8 * b; w < 8 * b + 8 && w < shape->Words(); ++w) sum += std::popcount(words[w]);
  }
  uint64_t* samples = counts + shape->CountWords();
  uint64_t one = 0;
  for (size_t i = 0; i < bits.size(); ++i) {
    if (!bits[i]) continue;
    if (one % 64 == 0) put32(samples, one / 64, i);
    ++one;
  }
}

class RankSelectView {
 public:
  RankSelectView() = default;
  RankSelectView(RankSelectShape shape, const uint8_t* data) : s_(shape), data_(data) {}
  const RankSelectShape& shape() const { return s_; }
  bool Get(uint64_t i) const { return (LoadWord(data_, i / 64) >> (i % 64)) & 1; }
  uint64_t Word(uint64_t w) const { return LoadWord(data_, w); }
  // Starts loading what Get(i) and Rank1(i) read: bit i's word and its block count.
  void Prefetch(uint64_t i) const {
    __builtin_prefetch(data_ + 8 * (i / 64));
    __builtin_prefetch(data_ + 8 * (s_.Words() + i / 512 / 2));
  }
  // Ones in [0, i] (i < bits): the block's count plus at most 8 popcounts.
  uint64_t Rank1(uint64_t i) const {
    const uint64_t w = i / 64;
    uint64_t r = Count(w / 8);
    for (uint64_t k = w / 8 * 8; k < w; ++k) r += std::popcount(LoadWord(data_, k));
    const uint64_t last = LoadWord(data_, w);
    const int b = static_cast<int>(i % 64);
    r += std::popcount(b == 63 ? last : last & ((uint64_t{2} << b) - 1));
    return r;
  }
  // Position of the k-th one (0-based, k < ones): up to 4 words from the
  // sample of every 64th one; beyond, the sample names a 512-bit block, a
  // binary search over the block counts up to the next sample's block finds
  // the block holding it, then at most 8 words.
  uint64_t Select1(uint64_t k) const {
    const uint64_t sample = k / 64;
    const uint64_t from = Get32(s_.Words() + s_.CountWords(), sample);
    {  // where ones are dense (the sample is near), a few words from the sample
      uint64_t left = k % 64, w = from / 64;
      uint64_t word = LoadWord(data_, w) & (~uint64_t{0} << (from % 64));
      for (int i = 0; i < 4; ++i) {
        const auto c = static_cast<uint64_t>(std::popcount(word));
        if (left < c) return w * 64 + static_cast<uint64_t>(SelectInWord(word, left));
        left -= c;
        if (++w >= s_.Words()) return s_.bits;  // inconsistent data; Validate refuses it
        word = LoadWord(data_, w);
      }
    }
    uint64_t b = from / 512;
    uint64_t top = sample + 1 < s_.Samples() ? Get32(s_.Words() + s_.CountWords(), sample + 1) / 512 : s_.Blocks() - 1;
    top = std::min(top, s_.Blocks() - 1);
    while (b < top) {  // the last block in [b, top] whose count is <= k
      const uint64_t mid = (b + top + 1) / 2;
      if (Count(mid) <= k) {
        b = mid;
      } else {
        top = mid - 1;
      }
    }
    uint64_t left = k - std::min(k, Count(b));
    for (uint64_t w = 8 * b; w < s_.Words(); ++w) {
      const uint64_t word = LoadWord(data_, w);
      const auto c = static_cast<uint64_t>(std::popcount(word));
      if (left < c) return w * 64 + static_cast<uint64_t>(SelectInWord(word, left));
      left -= c;
    }
    return s_.bits;  // inconsistent data; Validate refuses it
  }
  // The first one at or after i, or bits when there is none.
  uint64_t NextOne(uint64_t i) const {
    if (i >= s_.bits) return s_.bits;
    uint64_t w = i / 64;
    uint64_t word = LoadWord(data_, w) & (~uint64_t{0} << (i % 64));
    while (word == 0) {
      if (++w >= s_.Words()) return s_.bits;
      word = LoadWord(data_, w);
    }
    return std::min(s_.bits, w * 64 + static_cast<uint64_t>(std::countr_zero(word)));
  }
  Status Validate(const char* what) const {
    std::vector<uint64_t> words;
    std::vector<bool> bits(s_.bits);
    for (uint64_t i = 0; i < s_.bits; ++i) bits[i] = Get(i);
    RankSelectShape again;
    AppendRankSelect(bits, &words, &again);
    if (again.ones != s_.ones || std::memcmp(words.data(), data_, 8 * words.size()) != 0) {
      return Status::Corruption(std::string("surf: the ") + what +
                                " bit vector's ones, rank counts or select samples do not match its bits");
    }
    return Status::OK();
  }

 private:
  uint64_t Count(uint64_t block) const { return Get32(s_.Words(), block); }
  uint64_t Get32(uint64_t word_base, uint64_t i) const {
    return (LoadWord(data_, word_base + i / 2) >> (32 * (i % 2))) & 0xffffffffULL;
  }
  RankSelectShape s_;
  const uint8_t* data_ = nullptr;
};

// A stack on the caller's stack while it is short (a query's path is as deep
// as its key: 8 levels for uint64 keys), on the heap beyond: queries allocate
// nothing.
template <typename T>
class PathStack {
 public:
  PathStack() = default;
  PathStack(const PathStack&) = delete;
  PathStack& operator=(const PathStack&) = delete;
  void push_back(T v) {
    if (size_ == cap_) Grow();
    data()[size_++] = v;
  }
  void pop_back() { --size_; }
  T back() const { return data()[size_ - 1]; }
  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  void clear() { size_ = 0; }
  void truncate(size_t n) { size_ = std::min(size_, n); }
  T* data() { return heap_.empty() ? inline_ : heap_.data(); }
  const T* data() const { return heap_.empty() ? inline_ : heap_.data(); }

 private:
  void Grow() {
    std::vector<T> bigger(2 * cap_);
    std::copy(data(), data() + size_, bigger.begin());
    heap_.swap(bigger);
    cap_ *= 2;
  }
  static constexpr size_t kInline = 32;
  T inline_[kInline];
  std::vector<T> heap_;
  size_t size_ = 0, cap_ = kInline;
};

// The LOUDS-Dense nodes: node n's 256 label bits (D-Labels) and 256
// has-child bits (D-HasChild) share the 64 bytes of words 8n..8n+7, so one
// cache line serves a node; after all nodes, one word per node counts the
// label bits (low half) and has-child bits (high half) before it. A query
// ranks from the count of the node's group of kGroupNodes (copied out, see
// CopyGroupCounts) plus the popcounts of the group's lines up to the node.
class DenseView {
 public:
  static constexpr uint64_t kMaxNodes = uint64_t{1} << 24;  // counts stay below 2^32
  static uint64_t Words(uint64_t nodes) { return 9 * nodes; }
  DenseView() = default;
  DenseView(uint64_t nodes, const uint8_t* data) : nodes_(nodes), data_(data) {}
  uint64_t LabelWord(uint64_t node, uint64_t k) const { return LoadWord(data_, 8 * node + k); }
  uint64_t ChildWord(uint64_t node, uint64_t k) const { return LoadWord(data_, 8 * node + 4 + k); }
  uint64_t Counts(uint64_t node) const { return LoadWord(data_, 8 * nodes_ + node); }
  // Starts loading everything a step through the node reads: its line and
  // the lines before it in its group.
  void Prefetch(uint64_t node) const {
    for (uint64_t m = node / kGroupNodes * kGroupNodes; m <= node; ++m) __builtin_prefetch(data_ + 64 * m);
  }
  // The count words of every kGroupNodes-th node, copied out of the data
  // when the view is made (2 bytes a node in memory, 2.8% of the dense
  // part's 72 bytes; not in DataBytes, the serialized filter is unchanged):
  // a rank reads this small array, which stays in cache and in the TLB, and
  // the lines of the node and of the (at most 3) nodes before it in its
  // group, 256 contiguous bytes, so on the node's own page unless the group
  // crosses a page boundary. The node's own count word is a second random
  // load per dense step, on a page of its own (the count words lie after
  // all the lines); the group's extra lines are contiguous with the node's
  // and load in parallel with it. Tried and slower: two words per group
  // giving every node's counts (4 bytes a node in memory, one line per
  // dense step): 1.04-1.14x the query time of this layout, correlated
  // queries at 4 and 8 real suffix bits, 10^7 keys (sim rangespeed, both
  // layouts in one process, 15 interleaved rounds, Zen 3); the twice larger
  // copy competes for L2 with the sparse part's rank and select samples.
  static constexpr uint64_t kGroupNodes = 4;
  void CopyGroupCounts() {
    group_counts_.clear();
    for (uint64_t n = 0; n < nodes_; n += kGroupNodes) group_counts_.push_back(Counts(n));
  }
  // Bit p = 256 * node + label.
  bool HasChild(uint64_t p) const { return (ChildWord(p / 256, p % 256 / 64) >> (p % 64)) & 1; }
  // Ones in [0, p] of D-Labels, of D-HasChild.
  uint64_t RankLabels(uint64_t p) const { return Rank(p, 0, 0); }
  uint64_t RankChildren(uint64_t p) const { return Rank(p, 4, 32); }

  // Fills the count words after the bitmaps.
  static void FillCounts(uint64_t nodes, uint64_t* words) {
    uint64_t labels = 0, children = 0;
    for (uint64_t n = 0; n < nodes; ++n) {
      words[8 * nodes + n] = labels | (children << 32);
      for (uint64_t k = 0; k < 4; ++k) {
        labels += static_cast<uint64_t>(std::popcount(words[8 * n + k]));
        children += static_cast<uint64_t>(std::popcount(words[8 * n + 4 + k]));
      }
    }
  }
  // A node has a label, a has-child bit only where it has a label, and the
  // counts match the bits and the layout's totals.
  Status Validate(uint64_t edges, uint64_t child_edges) const {
    uint64_t labels = 0, children = 0;
    for (uint64_t n = 0; n < nodes_; ++n) {
      const std::string where = "surf: dense node " + std::to_string(n);
      if (Counts(n) != (labels | (children << 32))) return Status::Corruption(where + ": its rank counts are wrong");
      uint64_t any = 0;
      for (uint64_t k = 0; k < 4; ++k) {
        any |= LabelWord(n, k);
        if (ChildWord(n, k) & ~LabelWord(n, k)) return Status::Corruption(where + " has a child bit without a label");
        labels += static_cast<uint64_t>(std::popcount(LabelWord(n, k)));
        children += static_cast<uint64_t>(std::popcount(ChildWord(n, k)));
      }
      if (any == 0) return Status::Corruption(where + " has no label");
    }
    if (labels != edges || children != child_edges) {
      return Status::Corruption("surf: the dense nodes hold " + std::to_string(labels) + " labels and " +
                                std::to_string(children) + " child edges; the layout says " + std::to_string(edges) +
                                " and " + std::to_string(child_edges));
    }
    return Status::OK();
  }

 private:
  uint64_t Rank(uint64_t p, uint64_t first_word, int shift) const {
    const uint64_t node = p / 256, k_end = p % 256 / 64;
    uint64_t r = (group_counts_[node / kGroupNodes] >> shift) & 0xffffffffULL;
    for (uint64_t m = node / kGroupNodes * kGroupNodes; m < node; ++m) {
      for (uint64_t k = 0; k < 4; ++k)
        r += static_cast<uint64_t>(std::popcount(LoadWord(data_, 8 * m + first_word + k)));
    }
    for (uint64_t k = 0; k < k_end; ++k)
      r += static_cast<uint64_t>(std::popcount(LoadWord(data_, 8 * node + first_word + k)));
    const uint64_t last = LoadWord(data_, 8 * node + first_word + k_end);
    const int b = static_cast<int>(p % 64);
    return r + static_cast<uint64_t>(std::popcount(b == 63 ? last : last & ((uint64_t{2} << b) - 1)));
  }
  uint64_t nodes_ = 0;
  const uint8_t* data_ = nullptr;
  std::vector<uint64_t> group_counts_;
};

// Everything a reader needs besides the words (the layout). edges, nodes
// and child_edges count the LOUDS-Sparse part; the dense_* fields the
// LOUDS-Dense part (0 in layout version 1, which had no dense part);
// prefix_keys counts over all nodes.
struct SurfShape {
  uint64_t keys = 0;
  Suffix suffix = Suffix::kNone;
  int suffix_bits = 0;
  uint64_t edges = 0;        // sparse labels
  uint64_t nodes = 0;        // sparse LOUDS ones
  uint64_t child_edges = 0;  // sparse has-child ones
  uint64_t prefix_keys = 0;  // is-prefix-key ones (over all nodes)
  uint64_t dense_nodes = 0;  // the first nodes in level order, 256 label and 256 has-child bits each
  uint64_t dense_edges = 0;  // dense label ones
  uint64_t dense_child_edges = 0;
  uint64_t AllEdges() const { return dense_edges + edges; }
  uint64_t AllNodes() const { return dense_nodes + nodes; }
  uint64_t AllChildEdges() const { return dense_child_edges + child_edges; }
  uint64_t DenseLeaves() const { return dense_edges - dense_child_edges; }
  uint64_t Leaves() const { return AllEdges() - AllChildEdges(); }
  uint64_t LabelWords() const { return (edges + 7) / 8; }
  uint64_t Stored() const { return Leaves() + prefix_keys; }  // keys with a suffix
  uint64_t SuffixWords() const { return (Stored() * static_cast<uint64_t>(suffix_bits) + 63) / 64; }
  RankSelectShape HasChild() const { return {edges, child_edges}; }
  RankSelectShape Louds() const { return {edges, nodes}; }
  // One bit per node; the root exists even without edges (it may hold the empty key).
  RankSelectShape PrefixKey() const { return {std::max<uint64_t>(AllNodes(), 1), prefix_keys}; }
  uint64_t DenseWords() const { return DenseView::Words(dense_nodes); }
  uint64_t TotalWords() const {
    return LabelWords() + HasChild().TotalWords() + Louds().TotalWords() + PrefixKey().TotalWords() + SuffixWords() +
           DenseWords();
  }
};

// The S suffix bits of a key whose first `depth` bytes the trie stores.
uint64_t SuffixOf(Slice key, size_t depth, Suffix suffix, int bits) {
  if (bits == 0 || suffix == Suffix::kNone) return 0;
  if (suffix == Suffix::kHash) return XXH3_64(key.data(), key.size()) >> (64 - bits);
  uint64_t v = 0;  // real: the next `bits` bits after the prefix, zero past the key's end
  for (int i = 0; i < 8; ++i) {
    const size_t at = depth + static_cast<size_t>(i);
    v = (v << 8) | (at < key.size() ? key.udata()[at] : 0);
  }
  return v >> (64 - bits);
}

class SurfFilter final : public RangeFilter {
 public:
  // A filter the policy builds keeps its words in a copy placed so that the dense
  // part starts on a cache line: a dense node is then one line, not two
  // (and the second line's miss would come after the first's, since which
  // word a step reads next depends on the label word). A copy of 2 MiB or
  // more is also offered transparent huge pages (CacheAlignedArray). The
  // serialized bytes are the same either way; a filter opened in place
  // reads them where they lie.
  SurfFilter(SurfShape shape, const std::vector<uint64_t>& words, int version)
      : shape_(shape), version_(version), owned_(words.size() + kWordsPerLine - 1) {
    const uint64_t dense_at = shape.TotalWords() - shape.DenseWords();
    uint64_t* start = owned_.data() + (kWordsPerLine - dense_at % kWordsPerLine) % kWordsPerLine;
    std::copy(words.begin(), words.end(), start);
    Init(reinterpret_cast<const uint8_t*>(start), words.size() * 8);
  }
  SurfFilter(SurfShape shape, Slice data, int version) : shape_(shape), version_(version) {
    Init(data.udata(), data.size());
  }

  Status Validate() const {
    Status s = has_child_.Validate("has-child");
    if (s.ok()) s = louds_.Validate("LOUDS");
    if (s.ok()) s = prefix_key_.Validate("prefix-key");
    if (s.ok()) s = dense_.Validate(shape_.dense_edges, shape_.dense_child_edges);
    if (s.ok() && shape_.edges > 0 && !louds_.Get(0)) s = Status::Corruption("surf: the first edge starts no node");
    // Every has-child edge points at a node that exists (child numbers 1..nodes-1).
    if (s.ok() && shape_.AllChildEdges() + 1 != shape_.AllNodes() && shape_.AllEdges() > 0) {
      s = Status::Corruption("surf: " + std::to_string(shape_.AllChildEdges()) + " child edges for " +
                             std::to_string(shape_.AllNodes()) + " nodes (a trie has one node more than child edges)");
    }
    return s;
  }

  bool MayContainRange(uint64_t lo, uint64_t hi) const override {
    char a[8], b[8];
    EncodeBigEndian64(lo, a);
    EncodeBigEndian64(hi, b);
    return MayContainBytesRange(Slice(a, 8), Slice(b, 8));
  }
  bool MayContain(uint64_t key) const override {
    char a[8];
    EncodeBigEndian64(key, a);
    return MayContainBytes(Slice(a, 8));
  }

  bool MayContainBytes(Slice key) const override {
    if (shape_.keys == 0) return false;
    if (shape_.AllEdges() == 0) return key.empty() && SuffixMatches(StoredIndexOfPrefixKey(0), key, 0);  // only ""
    uint64_t node = 0;
    for (size_t d = 0;; ++d) {
      if (d == key.size()) return IsPrefixKey(node) && SuffixMatches(StoredIndexOfPrefixKey(node), key, d);
      const uint8_t want = key.udata()[d];
      uint64_t pos;
      if (!FirstAtLeast(node, want, &pos) || LabelAt(node, pos) != want) return false;
      if (!HasChild(node, pos)) return SuffixMatches(StoredIndexOfLeaf(node, pos), key, d + 1);
      node = Child(node, pos);
    }
  }

  bool MayContainBytesRange(Slice lo, Slice hi) const override {
    if (shape_.keys == 0) return false;
    if (lo.compare(hi) == 0) return MayContainBytes(lo);
    if (shape_.AllEdges() == 0) return lo.empty();  // only the empty key, which only a range from "" holds
    Candidate c;
    if (!SeekAtLeast(lo, &c)) return false;
    return MayBeAtMost(c, hi);
  }

  double QueryModelFp(const uint64_t*, size_t, uint64_t, uint64_t) const override { return std::nan(""); }
  uint64_t num_keys() const override { return shape_.keys; }
  size_t DataBytes() const override { return bytes_; }
  void Serialize(std::string* out) const override { AppendRangeFilterBytes(Slice(data_, bytes_), Describe(), out); }
  std::string Describe() const override {
    std::string d = std::string(kVariantName) + ":keys=" + std::to_string(shape_.keys) +
                    ",suffix=" + SuffixName(shape_.suffix) + ",bits=" + std::to_string(shape_.suffix_bits) +
                    ",edges=" + std::to_string(shape_.edges) + ",nodes=" + std::to_string(shape_.nodes) +
                    ",child_edges=" + std::to_string(shape_.child_edges) +
                    ",prefix_keys=" + std::to_string(shape_.prefix_keys);
    if (version_ >= 2) {
      d += ",version=" + std::to_string(version_) + ",dense_nodes=" + std::to_string(shape_.dense_nodes) +
           ",dense_edges=" + std::to_string(shape_.dense_edges) +
           ",dense_child_edges=" + std::to_string(shape_.dense_child_edges);
    }
    return d;
  }

 private:
  // The first stored key that may be >= lo: its path bytes, whether the key
  // ends exactly there (a prefix key) or continues (a leaf), and its suffix.
  struct Candidate {
    PathStack<char> path;
    bool exact = false;
    uint64_t stored = 0;  // index of its suffix
  };

  void Init(const uint8_t* data, size_t bytes) {
    data_ = data;
    bytes_ = bytes;
    uint64_t w = shape_.LabelWords();
    has_child_ = RankSelectView(shape_.HasChild(), data + 8 * w);
    w += shape_.HasChild().TotalWords();
    louds_ = RankSelectView(shape_.Louds(), data + 8 * w);
    w += shape_.Louds().TotalWords();
    prefix_key_ = RankSelectView(shape_.PrefixKey(), data + 8 * w);
    w += shape_.PrefixKey().TotalWords();
    suffix_at_ = w;
    w += shape_.SuffixWords();
    dense_ = DenseView(shape_.dense_nodes, data + 8 * w);
    dense_.CopyGroupCounts();
  }

  // Nodes are numbered in level order, the root 0; the first dense_nodes are
  // dense. An edge is named by its node and a position: in a dense node the
  // bit 256 * node + label, in a sparse node the index of its label.
  bool IsDense(uint64_t node) const { return node < shape_.dense_nodes; }
  uint8_t LabelAt(uint64_t node, uint64_t pos) const {
    return IsDense(node) ? static_cast<uint8_t>(pos & 255) : data_[pos];
  }
  bool HasChild(uint64_t node, uint64_t pos) const {
    return IsDense(node) ? dense_.HasChild(pos) : has_child_.Get(pos);
  }
  // Whether a key ends at the node; not read at all when no key is a proper
  // prefix of another (fixed-length keys): one cache miss less per descent.
  bool IsPrefixKey(uint64_t node) const { return shape_.prefix_keys != 0 && prefix_key_.Get(node); }
  // A node's child is node 1 + (has-child edges before it in level order).
  uint64_t Child(uint64_t node, uint64_t pos) const {
    return IsDense(node) ? dense_.RankChildren(pos) : shape_.dense_child_edges + has_child_.Rank1(pos);
  }
  // The first edge of `node` whose label is >= byte; false when it has none.
  bool FirstAtLeast(uint64_t node, unsigned byte, uint64_t* pos) const {
    if (IsDense(node)) {
      // The node's line and its counts load together (the counts are read
      // only for a child or leaf number, after the label is found).
      dense_.Prefetch(node);
      uint64_t k = byte / 64;
      uint64_t word = dense_.LabelWord(node, k) & (~uint64_t{0} << (byte % 64));
      while (word == 0) {
        if (++k == 4) return false;
        word = dense_.LabelWord(node, k);
      }
      *pos = 256 * node + 64 * k + static_cast<uint64_t>(std::countr_zero(word));
      return true;
    }
    const uint64_t start = louds_.Select1(node - shape_.dense_nodes);
    has_child_.Prefetch(start);                      // read once the label is found
    const uint64_t end = louds_.NextOne(start + 1);  // the next node's start, or edges
    *pos = SearchLabels(start, end, static_cast<uint8_t>(byte));
    return *pos < end;
  }
  // The edge after *pos in the same node; false at the node's last edge.
  bool NextInNode(uint64_t node, uint64_t* pos) const {
    if (IsDense(node)) {
      const unsigned label = static_cast<unsigned>(*pos & 255);
      return label < 255 && FirstAtLeast(node, label + 1, pos);
    }
    const uint64_t next = *pos + 1;
    if (next >= shape_.edges || louds_.Get(next)) return false;
    *pos = next;
    return true;
  }
  // The first label in [start, end) that is >= byte, or end: 16 labels per
  // step with SSE2 (unsigned a >= b is max(a, b) == a), as SuRF searches a
  // node's labels with SIMD.
  uint64_t SearchLabels(uint64_t start, uint64_t end, uint8_t byte) const {
    uint64_t p = start;
#ifdef __SSE2__
    const __m128i want = _mm_set1_epi8(static_cast<char>(byte));
    while (p < end && p + 16 <= bytes_) {  // a load may read past the node, never past the data
      const __m128i x = _mm_loadu_si128(reinterpret_cast<const __m128i*>(data_ + p));
      auto mask = static_cast<uint32_t>(_mm_movemask_epi8(_mm_cmpeq_epi8(_mm_max_epu8(x, want), x)));
      if (end - p < 16) mask &= (uint32_t{1} << (end - p)) - 1;
      if (mask != 0) return p + static_cast<uint64_t>(std::countr_zero(mask));
      p += 16;
    }
#endif
    while (p < end && data_[p] < byte) ++p;
    return std::min(p, end);
  }
  // Stored keys are numbered: leaves in level order (the dense ones, then the
  // sparse ones), then prefix keys by node.
  uint64_t StoredIndexOfLeaf(uint64_t node, uint64_t pos) const {
    if (IsDense(node)) return dense_.RankLabels(pos) - 1 - dense_.RankChildren(pos);
    return shape_.DenseLeaves() + pos - (pos == 0 ? 0 : has_child_.Rank1(pos - 1));
  }
  uint64_t StoredIndexOfPrefixKey(uint64_t node) const {
    return shape_.Leaves() + (node == 0 ? 0 : prefix_key_.Rank1(node - 1));
  }
  uint64_t SuffixAt(uint64_t stored) const {
    const int bits = shape_.suffix_bits;
    if (bits == 0) return 0;
    const uint64_t bit = stored * static_cast<uint64_t>(bits);
    const uint64_t w = bit / 64, b = bit % 64;
    uint64_t v = LoadWord(data_, suffix_at_ + w) >> b;
    if (b + static_cast<uint64_t>(bits) > 64) v |= LoadWord(data_, suffix_at_ + w + 1) << (64 - b);
    return bits == 64 ? v : v & ((uint64_t{1} << bits) - 1);
  }
  // Point query: whether the stored suffix agrees with the key's.
  bool SuffixMatches(uint64_t stored, Slice key, size_t depth) const {
    if (shape_.suffix == Suffix::kNone || shape_.suffix_bits == 0) return true;
    return SuffixAt(stored) == SuffixOf(key, depth, shape_.suffix, shape_.suffix_bits);
  }
  // Real suffix of `key` after depth bytes compared with a stored one: -1, 0, 1 (0 when undecided).
  int CompareRealSuffix(uint64_t stored, Slice key, size_t depth) const {
    if (shape_.suffix != Suffix::kReal || shape_.suffix_bits == 0) return 0;
    const uint64_t mine = SuffixAt(stored), theirs = SuffixOf(key, depth, Suffix::kReal, shape_.suffix_bits);
    return mine < theirs ? -1 : mine > theirs ? 1 : 0;
  }

  // The candidate for the edge (node, pos) whose label is already on c->path:
  // the leaf itself, or the leftmost stored key below its child.
  bool TakeEdge(uint64_t node, uint64_t pos, Candidate* c) const {
    while (HasChild(node, pos)) {
      node = Child(node, pos);
      if (IsPrefixKey(node)) {  // the key ending at this node is the smallest below it
        c->exact = true;
        c->stored = StoredIndexOfPrefixKey(node);
        return true;
      }
      if (!FirstAtLeast(node, 0, &pos)) return false;  // a node without edges: Validate refuses it
      c->path.push_back(static_cast<char>(LabelAt(node, pos)));
    }
    c->exact = false;
    c->stored = StoredIndexOfLeaf(node, pos);
    return true;
  }

  bool SeekAtLeast(Slice lo, Candidate* c) const {
    // Per level of the path taken: its node, and the edge followed from it.
    PathStack<uint64_t> node_of, edge;
    uint64_t node = 0;
    c->path.clear();
    uint64_t pos = 0;
    bool has_next;  // whether pos names the edge to continue from when lo's path ends
    for (size_t d = 0;; ++d) {
      if (d == lo.size()) {  // every key below here is >= lo
        if (IsPrefixKey(node)) {
          c->exact = true;
          c->stored = StoredIndexOfPrefixKey(node);
          return true;
        }
        if (!FirstAtLeast(node, 0, &pos)) return false;
        c->path.push_back(static_cast<char>(LabelAt(node, pos)));
        return TakeEdge(node, pos, c);
      }
      const uint8_t want = lo.udata()[d];
      node_of.push_back(node);
      has_next = FirstAtLeast(node, want, &pos);  // the first label >= lo's byte
      if (!has_next || LabelAt(node, pos) != want) break;
      if (HasChild(node, pos)) {
        c->path.push_back(static_cast<char>(want));
        edge.push_back(pos);
        node = Child(node, pos);
        continue;
      }
      // A leaf whose stored prefix is a prefix of lo: the key may be below lo.
      // Its suffix's load is this query's largest stall, yet prefetching it
      // from an estimate of the leaf's number (dense: the group's leaves
      // from the copied counts; sparse: the block's has-child count) made
      // correlated queries 1.02-1.07x slower (same set-up as the dense
      // counts above): queries overlap in the core, so an extra line
      // costs more than a shorter chain gains.
      c->path.push_back(static_cast<char>(want));
      c->exact = false;
      c->stored = StoredIndexOfLeaf(node, pos);
      if (CompareRealSuffix(c->stored, lo, d + 1) >= 0) return true;
      has_next = NextInNode(node, &pos);  // the key is below lo: the next stored key after it
      break;
    }
    // Move right: from pos in the deepest node, else up the path.
    while (true) {
      if (has_next) {
        node = node_of.back();
        c->path.truncate(node_of.size() - 1);
        c->path.push_back(static_cast<char>(LabelAt(node, pos)));
        return TakeEdge(node, pos, c);
      }
      node_of.pop_back();
      if (node_of.empty()) return false;
      pos = edge.back();  // the edge taken in the parent
      edge.pop_back();
      has_next = NextInNode(node_of.back(), &pos);
    }
  }

  bool MayBeAtMost(const Candidate& c, Slice hi) const {
    const size_t n = std::min(c.path.size(), hi.size());
    const int cmp = std::memcmp(c.path.data(), hi.data(), n);
    if (cmp != 0) return cmp < 0;
    if (c.path.size() > hi.size()) return false;  // hi is a proper prefix of every key here: they are > hi
    if (c.exact) return true;                     // the key is the path, a prefix of hi
    return CompareRealSuffix(c.stored, hi, c.path.size()) <= 0;
  }

  SurfShape shape_;
  int version_;
  static constexpr uint64_t kWordsPerLine = kCacheLineBytes / 8;
  CacheAlignedArray<uint64_t> owned_;  // empty when viewing the caller's bytes
  const uint8_t* data_ = nullptr;
  size_t bytes_ = 0;
  RankSelectView has_child_, louds_, prefix_key_;
  DenseView dense_;
  uint64_t suffix_at_ = 0;
};

size_t CommonPrefix(Slice a, Slice b) {
  const size_t n = std::min(a.size(), b.size());
  size_t i = 0;
  while (i < n && a[i] == b[i]) ++i;
  return i;
}

class SurfPolicy final : public RangeFilterPolicy {
 public:
  SurfPolicy(Suffix suffix, int bits, int dense_ratio)
      : suffix_(suffix),
        bits_(suffix == Suffix::kNone ? 0 : bits),
        dense_ratio_(dense_ratio),
        spec_(std::string(kVariantName) + ":suffix=" + SuffixName(suffix) + ",bits=" + std::to_string(bits_) +
              (dense_ratio == kDefaultDenseRatio ? "" : ",dense=" + std::to_string(dense_ratio))) {}

  const std::string& spec() const override { return spec_; }
  std::string_view variant() const override { return kVariantName; }
  unsigned key_types() const override { return kRangeKeysBytes | kRangeKeysUint64; }
  double bits_per_key() const override { return std::nan(""); }

  Status Build(const uint64_t* keys, size_t n, std::unique_ptr<RangeFilter>* out) const override {
    Status s = CheckSortedUnique(keys, n);
    if (!s.ok()) return s;
    std::string bytes(8 * n, '\0');
    std::vector<Slice> slices(n);
    for (size_t i = 0; i < n; ++i) {
      EncodeBigEndian64(keys[i], bytes.data() + 8 * i);
      slices[i] = Slice(bytes.data() + 8 * i, 8);
    }
    return BuildSorted(slices.data(), n, out);
  }
  Status BuildBytes(const Slice* keys, size_t n, std::unique_ptr<RangeFilter>* out) const override {
    Status s = CheckSortedUnique(keys, n);
    if (!s.ok()) return s;
    return BuildSorted(keys, n, out);
  }

  double ModelFpRate(uint64_t, uint64_t) const override { return std::nan(""); }
  uint64_t BuildMemoryBytes(uint64_t n) const override {
    // The keys' bytes (8 per uint64 key), stored lengths, the level lists, then the filter (~2-3 bytes a key).
    return n * (8 + 16 + 24 + 4) + static_cast<uint64_t>(n) * static_cast<uint64_t>(bits_) / 8 + 4096;
  }

 private:
  Status BuildSorted(const Slice* keys, size_t n, std::unique_ptr<RangeFilter>* out) const {
    SurfShape shape;
    shape.keys = n;
    shape.suffix = suffix_;
    shape.suffix_bits = bits_;
    // Stored depth of each key: one byte past where it parts from its neighbours (SuRF-Base).
    std::vector<uint32_t> depth(n);
    size_t max_depth = 0;
    for (size_t i = 0; i < n; ++i) {
      size_t keep = 0;
      if (i > 0) keep = std::max(keep, CommonPrefix(keys[i - 1], keys[i]));
      if (i + 1 < n) keep = std::max(keep, CommonPrefix(keys[i], keys[i + 1]));
      depth[i] = static_cast<uint32_t>(std::min(keys[i].size(), keep + 1));
      max_depth = std::max<size_t>(max_depth, depth[i]);
    }
    // Level by level in key order (= BFS order of the trie's nodes). An edge
    // at level d is a distinct (d+1)-byte prefix of the keys stored deeper
    // than d; it has a child when one of them is stored deeper than d + 1,
    // and then at most one key ends exactly there (a prefix key of the child).
    std::vector<uint8_t> labels;
    std::vector<bool> has_child, louds, prefix_key;
    std::vector<uint64_t> prefix_suffixes;               // in node order
    prefix_key.push_back(n > 0 && keys[0].size() == 0);  // the root: the empty key
    if (prefix_key.back()) prefix_suffixes.push_back(SuffixOf(keys[0], 0, suffix_, bits_));
    std::vector<std::pair<uint32_t, size_t>> leaves;  // (level, key) of each leaf edge
    std::vector<size_t> level_begin;                  // the first edge of each level, then the end
    for (size_t d = 0; d < max_depth; ++d) {
      level_begin.push_back(labels.size());
      size_t last = SIZE_MAX;           // previous key with an edge at this level
      size_t ends_at_child = SIZE_MAX;  // the current edge's key that ends at its child, if any
      auto close_edge = [&] {
        if (labels.empty() || last == SIZE_MAX || !has_child.back()) return;
        prefix_key.push_back(ends_at_child != SIZE_MAX);
        if (ends_at_child != SIZE_MAX) prefix_suffixes.push_back(SuffixOf(keys[ends_at_child], d + 1, suffix_, bits_));
      };
      for (size_t i = 0; i < n; ++i) {
        if (depth[i] <= d) continue;
        const Slice k = keys[i];
        const bool same_edge = last != SIZE_MAX && CommonPrefix(keys[last], k) >= d + 1;
        if (!same_edge) {
          close_edge();
          ends_at_child = SIZE_MAX;
          labels.push_back(k.udata()[d]);
          louds.push_back(last == SIZE_MAX || CommonPrefix(keys[last], k) < d);
          has_child.push_back(false);
        }
        if (depth[i] > d + 1) {
          has_child.back() = true;
        } else if (k.size() == d + 1 && i + 1 < n && depth[i + 1] > d + 1 && CommonPrefix(k, keys[i + 1]) == d + 1) {
          ends_at_child = i;  // k is a prefix of the next key: it ends at the child node
        } else {
          leaves.push_back({static_cast<uint32_t>(d), i});
        }
        last = i;
      }
      close_edge();
    }
    // Suffixes: leaves in edge order (level, then key), then prefix keys in node order.
    std::vector<uint64_t> suffixes;
    suffixes.reserve(leaves.size() + prefix_suffixes.size());
    std::stable_sort(leaves.begin(), leaves.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    for (const auto& [level, i] : leaves) suffixes.push_back(SuffixOf(keys[i], level + 1, suffix_, bits_));
    suffixes.insert(suffixes.end(), prefix_suffixes.begin(), prefix_suffixes.end());
    level_begin.push_back(labels.size());
    // The dense levels: LOUDS-Dense bitmaps for the nodes of levels < cut, in
    // the same level order, so node numbers and suffix order do not change.
    const size_t cut = DenseLevels(louds, level_begin);
    const size_t dense_end = level_begin[cut];  // edges in dense nodes
    const auto dense_nodes = static_cast<uint64_t>(std::count(louds.begin(), louds.begin() + dense_end, true));
    std::vector<uint64_t> dense(DenseView::Words(dense_nodes), 0);
    uint64_t dense_child_edges = 0;
    for (size_t i = 0, node = 0; i < dense_end; ++i) {
      if (louds[i] && i > 0) ++node;
      dense[8 * node + labels[i] / 64] |= uint64_t{1} << (labels[i] % 64);
      if (has_child[i]) dense[8 * node + 4 + labels[i] / 64] |= uint64_t{1} << (labels[i] % 64);
      dense_child_edges += has_child[i];
    }
    DenseView::FillCounts(dense_nodes, dense.data());
    labels.erase(labels.begin(), labels.begin() + dense_end);
    has_child.erase(has_child.begin(), has_child.begin() + dense_end);
    louds.erase(louds.begin(), louds.begin() + dense_end);
    shape.dense_nodes = dense_nodes;
    shape.dense_edges = dense_end;
    shape.dense_child_edges = dense_child_edges;
    shape.edges = labels.size();
    shape.nodes = static_cast<uint64_t>(std::count(louds.begin(), louds.end(), true));
    shape.child_edges = static_cast<uint64_t>(std::count(has_child.begin(), has_child.end(), true));
    shape.prefix_keys = static_cast<uint64_t>(std::count(prefix_key.begin(), prefix_key.end(), true));
    if (suffixes.size() != shape.Stored()) {
      return Status::Corruption("surf: internal error: " + std::to_string(suffixes.size()) + " suffixes for " +
                                std::to_string(shape.Stored()) + " stored keys");
    }
    std::vector<uint64_t> words((labels.size() + 7) / 8, 0);
    if (!labels.empty()) std::memcpy(words.data(), labels.data(), labels.size());
    RankSelectShape rs;
    AppendRankSelect(has_child, &words, &rs);
    AppendRankSelect(louds, &words, &rs);
    if (prefix_key.size() != shape.PrefixKey().bits) {
      return Status::Corruption("surf: internal error: " + std::to_string(prefix_key.size()) + " prefix-key bits for " +
                                std::to_string(shape.PrefixKey().bits) + " nodes");
    }
    AppendRankSelect(prefix_key, &words, &rs);
    const size_t suffix_base = words.size();
    words.resize(suffix_base + shape.SuffixWords(), 0);
    for (size_t i = 0; i < suffixes.size() && bits_ > 0; ++i) {
      const uint64_t bit = i * static_cast<uint64_t>(bits_);
      const uint64_t w = bit / 64, b = bit % 64;
      words[suffix_base + w] |= suffixes[i] << b;
      if (b + static_cast<uint64_t>(bits_) > 64) words[suffix_base + w + 1] |= suffixes[i] >> (64 - b);
    }
    words.insert(words.end(), dense.begin(), dense.end());
    if (words.size() != shape.TotalWords()) {
      return Status::Corruption("surf: internal error: " + std::to_string(words.size()) + " words for a layout of " +
                                std::to_string(shape.TotalWords()));
    }
    // The lists go before the filter copies the words, so the copy does not
    // raise the build's peak memory.
    decltype(leaves)().swap(leaves);
    decltype(suffixes)().swap(suffixes);
    decltype(depth)().swap(depth);
    decltype(dense)().swap(dense);
    *out = std::make_unique<SurfFilter>(shape, words, kLayoutVersion);
    return Status::OK();
  }

  // The number of top levels stored LOUDS-Dense (see the header comment):
  // level `cut` joins the dense levels while the dense levels above it,
  // times R, are smaller than the sparse encoding of it and all below.
  size_t DenseLevels(const std::vector<bool>& louds, const std::vector<size_t>& level_begin) const {
    if (dense_ratio_ == 0) return 0;
    const size_t levels = level_begin.size() - 1, all_edges = level_begin.back();
    size_t cut = 0;
    uint64_t dense_bits = 0, dense_nodes = 0;
    while (cut < levels &&
           static_cast<uint64_t>(dense_ratio_) * dense_bits < kSparseBitsPerEdge * (all_edges - level_begin[cut])) {
      const auto nodes =
          static_cast<uint64_t>(std::count(louds.begin() + static_cast<ptrdiff_t>(level_begin[cut]),
                                           louds.begin() + static_cast<ptrdiff_t>(level_begin[cut + 1]), true));
      if (dense_nodes + nodes > DenseView::kMaxNodes) break;
      dense_nodes += nodes;
      dense_bits += kDenseBitsPerNode * nodes;
      ++cut;
    }
    return cut;
  }

  Suffix suffix_;
  int bits_;
  int dense_ratio_;
  std::string spec_;
};

Status Create(FilterSpec& spec, std::unique_ptr<RangeFilterPolicy>* out) {
  std::string suffix;
  int bits = 0;
  Status s = spec.GetChoice("suffix", "hash", {"none", "hash", "real"}, &suffix);
  int dense = kDefaultDenseRatio;
  if (s.ok()) s = spec.GetInt("bits", 8, 0, 64, &bits);
  if (s.ok()) s = spec.GetInt("dense", kDefaultDenseRatio, 0, 1 << 20, &dense);
  if (s.ok()) s = spec.Finish({"suffix", "bits", "dense"});
  if (!s.ok()) return s;
  const Suffix kind = suffix == "none" ? Suffix::kNone : suffix == "hash" ? Suffix::kHash : Suffix::kReal;
  *out = std::make_unique<SurfPolicy>(kind, bits, dense);
  return Status::OK();
}

Status OpenLayout(FilterSpec& layout, Slice data, std::unique_ptr<RangeFilter>* out) {
  // Version 1 (no "version" field): LOUDS-Sparse only. Version 2 adds the
  // LOUDS-Dense part, its words after the suffixes.
  int version = 1;
  Status s = layout.Has("version") ? layout.GetInt("version", 1, 1, kLayoutVersion, &version) : Status::OK();
  if (!s.ok()) {
    return Status::Corruption("surf layout '" + layout.text() + "': " + s.message() +
                              " (this build reads versions 1 to " + std::to_string(kLayoutVersion) + ")");
  }
  std::vector<const char*> fields = {"keys", "suffix", "bits", "edges", "nodes", "child_edges", "prefix_keys"};
  if (version >= 2) fields.insert(fields.end(), {"version", "dense_nodes", "dense_edges", "dense_child_edges"});
  for (const char* key : fields) {
    if (!layout.Has(key)) return Status::Corruption("surf layout '" + layout.text() + "' lacks '" + key + "'");
  }
  std::string suffix;
  int bits = 0;
  long long keys = 0, edges = 0, nodes = 0, child = 0, prefix = 0, dnodes = 0, dedges = 0, dchild = 0;
  s = layout.GetInt("keys", 0LL, 0LL, LLONG_MAX, &keys);
  if (s.ok()) s = layout.GetChoice("suffix", "none", {"none", "hash", "real"}, &suffix);
  if (s.ok()) s = layout.GetInt("bits", 0, 0, 64, &bits);
  if (s.ok()) s = layout.GetInt("edges", 0LL, 0LL, 1LL << 40, &edges);
  if (s.ok()) s = layout.GetInt("nodes", 0LL, 0LL, edges, &nodes);
  if (s.ok()) s = layout.GetInt("child_edges", 0LL, 0LL, edges, &child);
  if (s.ok()) s = layout.GetInt("prefix_keys", 0LL, 0LL, keys, &prefix);
  if (s.ok() && version >= 2) {
    s = layout.GetInt("dense_nodes", 0LL, 0LL, static_cast<long long>(DenseView::kMaxNodes), &dnodes);
    if (s.ok()) s = layout.GetInt("dense_edges", 0LL, 0LL, 256 * dnodes, &dedges);
    if (s.ok()) s = layout.GetInt("dense_child_edges", 0LL, 0LL, dedges, &dchild);
  }
  if (s.ok() && version >= 2) {
    s = layout.Finish({"keys", "suffix", "bits", "edges", "nodes", "child_edges", "prefix_keys", "version",
                       "dense_nodes", "dense_edges", "dense_child_edges"});
  } else if (s.ok()) {
    s = layout.Finish({"keys", "suffix", "bits", "edges", "nodes", "child_edges", "prefix_keys"});
  }
  if (!s.ok()) return Status::Corruption(s.message());
  SurfShape shape;
  shape.keys = static_cast<uint64_t>(keys);
  shape.suffix = suffix == "none" ? Suffix::kNone : suffix == "hash" ? Suffix::kHash : Suffix::kReal;
  shape.suffix_bits = bits;
  shape.edges = static_cast<uint64_t>(edges);
  shape.nodes = static_cast<uint64_t>(nodes);
  shape.child_edges = static_cast<uint64_t>(child);
  shape.prefix_keys = static_cast<uint64_t>(prefix);
  shape.dense_nodes = static_cast<uint64_t>(dnodes);
  shape.dense_edges = static_cast<uint64_t>(dedges);
  shape.dense_child_edges = static_cast<uint64_t>(dchild);
  if (shape.Stored() != shape.keys || (shape.edges > 0 && shape.nodes == 0) ||
      (shape.AllEdges() > 0 && shape.dense_nodes == 0 && shape.edges == 0)) {
    return Status::Corruption("surf layout '" + layout.text() + "': " + std::to_string(shape.Stored()) +
                              " stored keys (leaf edges + prefix keys) for " + std::to_string(keys) +
                              " keys, or edges without the nodes holding them");
  }
  if (data.size() != shape.TotalWords() * 8) {
    return Status::Corruption("surf layout '" + layout.text() + "' needs " + std::to_string(shape.TotalWords() * 8) +
                              " data bytes but the filter has " + std::to_string(data.size()));
  }
  auto f = std::make_unique<SurfFilter>(shape, data, version);
  s = f->Validate();
  if (!s.ok()) return s;
  *out = std::move(f);
  return Status::OK();
}

FILTERLAB_REGISTER_RANGE_FILTER(RangeFilterVariant{
    kVariantName,
    "SuRF (Zhang et al., SIGMOD 2018): fast succinct trie (LOUDS-Dense top levels, LOUDS-Sparse below) of the keys' "
    "distinguishing prefixes with hashed or real suffix bits; byte-string keys",
    "suffix=none|hash|real (default hash) bits=0..64 (suffix bits per key, default 8) dense=R (0..2^20, default 64: "
    "dense levels while their size * R <= the sparse size below; 0 = LOUDS-Sparse only)",
    &Create,
    &OpenLayout,
    {"surf:suffix=hash,bits=4", "surf:suffix=real,bits=8", "surf:suffix=none,bits=0", "surf:suffix=real,bits=8,dense=1",
     "surf:suffix=hash,bits=4,dense=0"},
    kRangeKeysBytes | kRangeKeysUint64,
    FpModelKind::kEmpirical,
    /*dynamic=*/false});

}  // namespace
}  // namespace filterlab::surf
