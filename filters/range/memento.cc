// Memento filter: Eslami and Dayan, "Memento Filter: A Fast, Dynamic, and
// Robust Range Filter" (SIGMOD 2025). Variant "memento:bpk=B,range=L".
//
// What it is. The key universe is cut into partitions of R = 2^m values,
// m = ceil(log2 L) for the longest range of interest L. A key x is its
// prefix p = x >> m (which partition) and its memento x mod R (where in
// it). The prefix alone is hashed, as into a quotient filter: h = Mix64(p +
// salt), and the 128-bit product h * N (N canonical slots) gives the
// quotient q = its high word and the fingerprint = the top f bits of its
// low word (Lemire's fastrange; the pair is floor(h N 2^f / 2^64), uniform
// over N 2^f values). Each key is stored as the remainder fingerprint:memento
// (f + m bits) in the run of its quotient (memento_table.h, a
// rank-and-select quotient filter). Runs are sorted by remainder, so the
// keys of one prefix sit together, fingerprint first, mementos ascending:
// the paper's "keepsake box" of a partition (Section 4). Keys whose
// prefixes collide in (quotient, fingerprint) share one box; answers cannot
// tell them apart anyway.
//
// Queries (paper, Section 4.2). A range [lo, hi] of at most R values touches
// one or two partitions: for each touched prefix p the run of q(p) is
// searched for a remainder in [fp(p):a, fp(p):b], [a, b] the part of the
// range inside p's partition. Longer ranges probe every touched prefix, up
// to kMaxProbedPrefixes of them, and are answered true beyond.
//
// Inserts and deletes. Built filters and NewDynamic ones take keys one at
// a time (memento_table.h's Insert: the slots from the insert point to the
// next empty one shift by one) and delete them (Table::Erase: the runs after
// the removed slot move back). Every key takes its own slot, also when two
// distinct keys give the same entry (prefixes colliding in quotient and
// fingerprint, equal mementos) or a key is inserted twice: the table is a
// multiset, so a delete removes one copy and the other key stays (the
// authors' code deletes one key's memento the same way: qf_delete_single in
// github.com/n3slami/Memento_Filter, include/memento.h). Delete of an entry the table
// lacks is refused (NotFound, nothing changed); a key never inserted whose
// entry is there (a false-positive point) would remove another key's entry,
// so, as for every quotient filter, only inserted keys may be deleted. Above
// load 0.95, or when runs reach the last slot, an insert expands the filter;
// deletes never shrink it. A filter opened from bytes is read-only.
// num_keys() counts inserts minus deletes.
//
// Not as the paper: its encoding packs the second and later mementos of a
// box into m-bit fields (the box's first slot keeps the fingerprint); here
// every key takes a full f + m slot. The answers are the same; the space is
// the same when partitions hold one key each (uniform 64-bit keys at any
// practical n), larger when many keys share a partition.
//
// Expansion (paper, Section 5: InfiniFilter's scheme, Dayan, Bercea,
// Reviriego, Pagh, "InfiniFilter: Expanding Filters to Infinity and
// Beyond", SIGMOD 2023: longer fingerprints for newer entries). The spec's expand= picks how a full
// filter doubles N; both rebuild the table in order from its own entries.
// The prefix hash is one bit stream: q0 = hi(h N0), then the bits of
// lo(h N0) (then those of a second mix of h), so after k doublings the
// quotient is q0 2^k plus the stream's first k bits, and the fingerprint
// bits follow them (h N0 2^k: Split's q and f bits for N = N0 2^k).
//   expand=sacrifice: every entry's first fingerprint bit joins its
//   quotient (q' = 2q + bit), every fingerprint is one bit shorter, inserts
//   after it too: k doublings leave f - k bits everywhere, so at load 0.95
//   the FP doubles per doubling; a filter started with f bits takes at most
//   f - 1 of them (then Insert refuses with the reason).
//   expand=infinifilter (default): as sacrifice for the entries present,
//   but the f-bit field keeps its width: from the first doubling on it holds
//   s <= f - 1 bits as 2^s + bits (the highest set bit marks the length,
//   the authors' "expandable" branch of github.com/n3slami/Memento_Filter
//   writes fingerprints the same way, src/memento.c insert_mementos), and
//   inserts after a doubling get f - 1 bits again. Entries of generation g
//   (inserted between doublings g and g + 1) have f - 1 - (k - g) bits after
//   k doublings. An entry with no bit left (void) cannot say which new
//   quotient it belongs to and is copied into both (the authors'
//   qf_resize_malloc does the same); a void copy matches any query of its quotient whose
//   part holds its memento. A query compares each entry of the run (runs
//   hold about one entry at load 0.95) on the entry's own length: its s
//   bits equal the query's first s. A delete removes, of the matching
//   entries with the key's memento, one with the longest fingerprint (the
//   authors' qf_delete_single, include/memento.h of that branch): any key
//   owning that entry also matches the
//   shorter one the deleted key owned, so no present key loses its entry;
//   void copies of deleted keys stay as false positives. Before the first
//   doubling no length mark is needed: a filter that never expanded holds
//   f plain bits and is byte-identical under both schemes (format 2); the
//   first doubling leaves every entry f - 1 bits in both. Not as the
//   authors' code, which reserves the mark bit from the start (f - 1 bits
//   before any doubling at the same slot width).
//   Cost: the same slot width, so N doubles with the same bits per slot;
//   void copies take extra slots (a generation's entries, alpha N / 2^(j+1)
//   of them at doubling j after it went void, double with each doubling:
//   about alpha 2^-(f) N slots per void generation). f >= 2 is needed to
//   expand (one bit is the mark); expansions are bounded by the table's
//   2^40 slots and by the void copies: a doubling that would leave them and
//   the other entries above 3/4 of the load limit is refused (Insert says
//   why), so few fingerprint bits cannot make doubling go on without end.
// memento_test.cc's SacrificeExpansionFpGrowsAsTheBoundSays holds the
// doubling; InfiniFilterFpStaysUnderItsBoundAndGrowsSlowerThanSacrifice runs
// both schemes over the same keys and queries: FP of empty 64-value ranges at
// bpk = 20, range = 64 (f = 10) just before each doubling k, from 4518
// quotients at k = 1, infinifilter / sacrifice:
//   k = 1: 0.00178 / 0.00178, k = 2: 0.00272 / 0.00356, k = 4: 0.00443 /
//   0.01472, k = 6: 0.00655 / 0.05758 (./build/filters_tests
//   --gtest_filter='*GrowsSlowerThanSacrifice'),
// each under its bound. Grown to 262144 uniform keys from 262144 / 2^k
// (FP of 200000 empty 64-value ranges, all within their bounds):
//   k             0        2        4        6        8        10       14
//   infinifilter  0.00089  0.00275  0.00487  0.00654  0.00848  0.00992  0.01373
//   sacrifice     0.00089  0.00353  0.01434  0.05459  0.20380  (refused: 1 bit left)
// (filterlab-sim rangefp --filter memento:bpk=20,range=64 --filter
// memento:bpk=20,range=64,expand=sacrifice --keys 262144 --grow_from G
// --queries 200000 --range_log2 6 --seed 1). Sacrifice's slots narrow by a
// bit per doubling, so it also spends less: 20.6, 18.4, 16.1, 13.8, 11.5
// bits/key at k = 0..8 where InfiniFilter's stay at 20.6 (19.9 at k = 14).
//
// Space. A slot costs f + m + 2.125 bits (2 metadata bits, an 8-bit offset
// per 64 slots: memento_table.h, as the authors' code). At bpk = B the
// build picks the largest f with (f + m + 2.125) / 0.95 <= B, then spends
// the budget on slots: N = floor(B n / (f + m + 2.125)) >= n / 0.95, so the
// load is at most 0.95. The other form, "memento:fingerprint=F,load=A,
// range=L", fixes f = F and N = ceil(n / A) (A at most 0.95): the structure
// the authors' benchmark builds (bench_memento sizes f = round(0.95 B - m -
// 2.125) and about n / 0.95 slots, which can spend a little more than B
// bits per key), so both codes can be compared on one structure.
//
// FP bound (kind upper_bound; the paper's robustness argument, Section 4.3:
// a query of length <= R touches at most 2 partitions, each answered
// falsely only through a fingerprint collision). A touched prefix p whose
// partition holds no key of the range is answered true only if another
// stored prefix p' has (q(p'), fp(p')) = (q(p), fp(p)); with D stored
// prefixes, by the union bound that has probability <= D / (N 2^f) for any
// keys and queries (correlated ones included). Over the t touched prefixes:
//   FPR <= t D / (N 2^f)  ~=  t alpha 2^-f,   t <= 2 for ranges <= R,
// alpha = D/N <= 0.95 the load of prefixes. For uncorrelated queries of
// length l the expected t is 1 + (l - 1)/R. The bound ignores the memento
// test: a colliding box holding one uniform memento matches a part of s
// values with probability s/R, and the parts of a range add up to l, so
// uniform keys (one per partition) measure about D l / (R N 2^f): l/R of
// the one-partition bound (memento_test.cc holds that expectation too).
// Expanded by sacrifice, f is k smaller and N 2^k larger after k
// doublings; the bound is computed from the realized f and N. D is exact
// for a static build and counted as the inserted keys (an upper bound) for
// a dynamic filter at level 0. After InfiniFilter doublings the same union
// bound runs over boxes of each fingerprint length s (D_s, void copies at
// s = 0, each copy in its own quotient): a box of s bits collides with a
// touched prefix with probability 1/(N 2^s), so
//   FPR <= t / N  sum_s D_s 2^-s.
// With D_s counted exactly (kept through inserts and deletes, recounted at
// each doubling and when bytes are opened). Filled to load alpha with
// one key per partition just before doubling k + 1, generation j < k back
// from the newest holds alpha N / 2^(j+1) boxes of f - 1 - j bits and the
// level-0 keys alpha N / 2^k of f - k bits: each adds alpha 2^-f to the
// sum, so FPR <= t alpha 2^-f (k + 1), linear in the doublings (the log
// of the growth), where sacrifice's t alpha 2^(k-f) is exponential: a
// ratio (k + 1) / 2^k (1 at k = 1, 0.11 at k = 6), until void copies
// appear (k >= f): each void generation then adds about alpha 2^-f more.
#include <algorithm>
#include <bit>
#include <climits>
#include <cmath>
#include <string>
#include <vector>

#include "common/strings.h"
#include "filters/filter_spec.h"
#include "filters/range/memento_table.h"
#include "filters/range/radix_sort.h"
#include "filters/range/range_filter.h"
#include "filters/range/range_serialization.h"
#include "filters/registry.h"
#include "hashing/remix.h"

namespace filterlab::memento {
namespace {

using memento::Entry;
using memento::Table;
using memento::TableShape;

constexpr char kVariantName[] = "memento";
constexpr double kMaxLoad = 0.95;
constexpr double kOverheadBitsPerSlot = 2.125;
// memento_table.h's format (the layout's format=): 2 is the interleaved blocks.
constexpr int kTableFormat = 2;
constexpr int kMaxMementoBits = 40;
constexpr int kMaxFingerprintBits = 40;
constexpr uint64_t kMaxProbedPrefixes = 256;
// Layout format of a filter whose slots hold variable-length fingerprints
// (expand=infinifilter after its first expansion); format 2 (kTableFormat)
// is every slot an f-bit fingerprint.
constexpr int kVariableFormat = 3;

// How a full filter grows (the header comment: "Expansion").
enum class ExpandMode { kInfiniFilter, kSacrifice };
const char* ExpandName(ExpandMode mode) { return mode == ExpandMode::kInfiniFilter ? "infinifilter" : "sacrifice"; }

int MementoBitsFor(uint64_t range) { return range <= 1 ? 0 : 64 - std::countl_zero(range - 1); }

// The hash of a prefix, split into quotient and fingerprint.
struct PrefixHash {
  uint64_t salt = 0;
  uint64_t quotients = 1;  // N
  int fingerprint_bits = 1;
  void Split(uint64_t prefix, uint64_t* q, uint64_t* fp) const {
    const unsigned __int128 x = static_cast<unsigned __int128>(Mix64(prefix + salt)) * quotients;
    *q = static_cast<uint64_t>(x >> 64);
    *fp = static_cast<uint64_t>(x) >> (64 - fingerprint_bits);
  }
  // After `level` >= 1 doublings of N0 = N / 2^level quotients: the quotient
  // (the same as Split's: h N = (h N0) 2^level) and the `bits` hash bits
  // that follow it, from the stream of lo(h N0)'s 64 bits followed by the
  // 64 of a second mix of h (so level + bits may pass 64).
  void SplitAt(uint64_t prefix, int level, int bits, uint64_t* q, uint64_t* fp) const {
    const uint64_t h = Mix64(prefix + salt);
    const unsigned __int128 x = static_cast<unsigned __int128>(h) * (quotients >> level);
    const uint64_t lo = static_cast<uint64_t>(x);
    *q = (static_cast<uint64_t>(x >> 64) << level) | (lo >> (64 - level));
    const unsigned __int128 stream = (static_cast<unsigned __int128>(lo) << 64) | Mix64(h ^ kGoldenRatio64);
    *fp = static_cast<uint64_t>((stream << level) >> (128 - bits));
  }
};

uint64_t SaltFor(uint64_t seed) { return Mix64(seed ^ kGoldenRatio64); }

// Whether N quotients and f fingerprint bits fit the 64-bit hash: N 2^f <= 2^63.
bool HashFits(uint64_t quotients, int fingerprint_bits) {
  return 64 - std::countl_zero(quotients) + fingerprint_bits <= 63;
}

// The bound t D / (N 2^f) for t touched prefixes.
double MementoBound(uint64_t prefixes, uint64_t quotients, int fingerprint_bits, double touched) {
  if (prefixes == 0) return 0.0;
  const double per = static_cast<double>(prefixes) / (static_cast<double>(quotients) * std::exp2(fingerprint_bits));
  return std::min(1.0, touched * per);
}

// The bound over generations: t/N sum_s D_s 2^-s, D_s the stored boxes
// whose fingerprints have s bits left (s = 0: void copies).
double GenerationsBound(const std::vector<uint64_t>& boxes, uint64_t quotients, double touched) {
  double per = 0;
  for (size_t s = 0; s < boxes.size(); ++s) per += static_cast<double>(boxes[s]) * std::exp2(-static_cast<double>(s));
  return std::min(1.0, touched * per / static_cast<double>(quotients));
}

// A variable-length fingerprint in an f-bit field: s bits v as
// 2^s + v, so the highest set bit marks the length (0 is no entry).
uint64_t EncodeFingerprint(int length, uint64_t bits) { return (uint64_t{1} << length) | bits; }
int FingerprintLength(uint64_t encoded) { return 63 - std::countl_zero(encoded); }

// The stored boxes per fingerprint length (index s) of a variable-length
// table: runs are sorted, so one box's slots are adjacent.
std::vector<uint64_t> CountBoxes(const Table& table, int memento_bits, int field_bits) {
  std::vector<uint64_t> boxes(static_cast<size_t>(field_bits), 0);
  uint64_t last_q = ~uint64_t{0}, last_code = 0;
  table.ForEach([&](uint64_t q, uint64_t r) {
    const uint64_t code = r >> memento_bits;
    if (q != last_q || code != last_code) {
      if (code != 0) ++boxes[static_cast<size_t>(FingerprintLength(code))];
      last_q = q;
      last_code = code;
    }
  });
  return boxes;
}

class MementoFilter final : public RangeFilter {
 public:
  // level: expansions by InfiniFilter's scheme so far (0 for a filter that
  // never expanded or expands by sacrifice); boxes: per fingerprint length,
  // for level >= 1.
  MementoFilter(uint64_t keys, uint64_t prefixes, int memento_bits, uint64_t seed, PrefixHash hash, Table table,
                bool dynamic, ExpandMode mode, int level = 0, std::vector<uint64_t> boxes = {})
      : keys_(keys),
        prefixes_(prefixes),
        memento_bits_(memento_bits),
        seed_(seed),
        hash_(hash),
        table_(std::move(table)),
        dynamic_(dynamic),
        mode_(mode),
        level_(level),
        boxes_(std::move(boxes)) {}

  bool MayContainRange(uint64_t lo, uint64_t hi) const override {
    if (keys_ == 0) return false;
    const uint64_t mask = MementoMask();
    const uint64_t first = lo >> memento_bits_, last = hi >> memento_bits_;
    if (last - first >= kMaxProbedPrefixes) return true;
    if (first == last) return Probe(first, lo & mask, hi & mask);
    if (Probe(first, lo & mask, mask)) return true;
    for (uint64_t p = first + 1; p < last; ++p) {
      if (Probe(p, 0, mask)) return true;
    }
    return Probe(last, 0, hi & mask);
  }
  bool MayContain(uint64_t key) const override {
    if (keys_ == 0) return false;
    const uint64_t m = key & MementoMask();
    return Probe(key >> memento_bits_, m, m);
  }

  double QueryModelFp(const uint64_t*, size_t, uint64_t lo, uint64_t hi) const override {
    const uint64_t touched = (hi >> memento_bits_) - (lo >> memento_bits_);
    if (touched >= kMaxProbedPrefixes) return keys_ == 0 ? 0.0 : 1.0;
    if (level_ > 0) return GenerationsBound(boxes_, hash_.quotients, static_cast<double>(touched + 1));
    return MementoBound(prefixes_, hash_.quotients, hash_.fingerprint_bits, static_cast<double>(touched + 1));
  }

  bool SupportsInsert() const override { return dynamic_; }
  bool SupportsDelete() const override { return dynamic_; }
  Status Insert(uint64_t key) override {
    if (!dynamic_) return RangeFilter::Insert(key);
    uint64_t q, remainder;
    EntryOf(key, &q, &remainder);
    const double load = static_cast<double>(table_.used_slots() + 1) / static_cast<double>(hash_.quotients);
    if (load > kMaxLoad) {
      Status s = Expand();
      if (!s.ok()) return s;
      return Insert(key);
    }
    // A new box of full length unless the run holds the same fingerprint already.
    const bool new_box = level_ > 0 && !RunHoldsCode(q, remainder >> memento_bits_);
    Status s = table_.Insert(q, remainder);
    if (s.IsNotFound()) {  // runs reached the last slot: more slots at the end, else double
      s = table_.shape().slots < DynamicSlots(hash_.quotients) ? AddSpillSlots() : Expand();
      if (!s.ok()) return s;
      return Insert(key);
    }
    if (!s.ok()) return s;
    ++keys_;
    if (level_ > 0) {
      boxes_[static_cast<size_t>(NewFingerprintBits())] += new_box;
      prefixes_ += new_box;
    } else {
      prefixes_ = keys_;  // an upper bound: inserts do not see which prefixes are new
    }
    return Status::OK();
  }

  Status Delete(uint64_t key) override {
    if (!dynamic_) return RangeFilter::Delete(key);
    uint64_t q, remainder;
    EntryOf(key, &q, &remainder);
    bool last_of_box = false, matched = true;
    if (level_ > 0) {
      remainder = LongestMatch(q, key & MementoMask(), remainder >> memento_bits_, &last_of_box);
      matched = remainder != 0;  // a level >= 1 remainder holds a length mark, never 0
    }
    Status s = matched ? table_.Erase(q, remainder) : Status::NotFound("");
    if (s.IsNotFound()) {
      return Status::NotFound("memento: key " + std::to_string(key) +
                              " is not in the filter (no stored entry matches its prefix's fingerprint and its "
                              "memento); only inserted keys can be deleted");
    }
    if (!s.ok()) return s;
    --keys_;
    if (level_ > 0) {
      boxes_[static_cast<size_t>(FingerprintLength(remainder >> memento_bits_))] -= last_of_box;
      prefixes_ -= last_of_box;
    } else {
      prefixes_ = std::min(prefixes_, keys_);  // still an upper bound on the stored prefixes
    }
    return Status::OK();
  }

  Status Expand() { return mode_ == ExpandMode::kSacrifice ? ExpandBySacrifice() : ExpandByGenerations(); }

  // Doubles N: each entry's top fingerprint bit joins its quotient
  // (q' = 2q + bit, because h 2N = 2 (h N)), so the table is rebuilt in
  // order from its own entries, with one fingerprint bit fewer.
  Status ExpandBySacrifice() {
    if (hash_.fingerprint_bits <= 1) {
      return Status::InvalidArgument("memento: " + std::to_string(table_.used_slots()) +
                                     " keys fill the filter and its fingerprint has 1 bit left: it cannot expand "
                                     "again (build or start it with more bits per key)");
    }
    const int width = table_.shape().width;
    std::vector<Entry> entries;
    entries.reserve(table_.used_slots());
    table_.ForEach([&](uint64_t q, uint64_t r) {
      entries.push_back({2 * q + (r >> (width - 1)), r & ((uint64_t{1} << (width - 1)) - 1)});
    });
    PrefixHash h = hash_;
    h.quotients *= 2;
    h.fingerprint_bits -= 1;
    Table t;
    Status s = Table::Load(h.quotients, width - 1, DynamicSlots(h.quotients), entries, &t);
    if (!s.ok()) return s;
    hash_ = h;
    table_ = std::move(t);
    return Status::OK();
  }

  // Doubles N as InfiniFilter does: each entry's first fingerprint bit
  // joins its quotient as above, the rest stays in a field of the same f
  // bits marked by its length (EncodeFingerprint), and later inserts get
  // f - 1 bits again. An entry with no bit left (void) belongs to either
  // new quotient: it is copied into both.
  Status ExpandByGenerations() {
    const int f = hash_.fingerprint_bits;
    if (f <= 1) {
      return Status::InvalidArgument("memento: " + std::to_string(table_.used_slots()) +
                                     " keys fill the filter and its 1-bit fingerprint field leaves no bit for the "
                                     "length mark expansion needs: it cannot expand (build or start it with more bits "
                                     "per key)");
    }
    const int m = memento_bits_;
    const uint64_t mementos = MementoMask();
    std::vector<Entry> entries;
    entries.reserve(table_.used_slots() + table_.used_slots() / 8);
    table_.ForEach([&](uint64_t q, uint64_t r) {
      const uint64_t code = r >> m, memento = r & mementos;
      // Level 0 holds f plain bits; later levels a length-marked code.
      const int length = level_ == 0 ? f : FingerprintLength(code);
      const uint64_t bits = level_ == 0 ? code : code ^ (uint64_t{1} << length);
      if (length == 0) {
        entries.push_back({2 * q, (uint64_t{1} << m) | memento});
        entries.push_back({2 * q + 1, (uint64_t{1} << m) | memento});
        return;
      }
      const uint64_t rest = bits & ((uint64_t{1} << (length - 1)) - 1);
      entries.push_back({2 * q + (bits >> (length - 1)), (EncodeFingerprint(length - 1, rest) << m) | memento});
    });
    std::sort(entries.begin(), entries.end());
    PrefixHash h = hash_;
    h.quotients *= 2;
    // Void copies double with N, so with few fingerprint bits they could
    // keep the doubled table full and expansion would never end: a doubling
    // must leave the load at most 3/4 of the limit (from 0.95 it leaves
    // 0.475 plus the void copies, about alpha 2^-f of N per void generation).
    if (static_cast<double>(entries.size()) > 0.75 * kMaxLoad * static_cast<double>(h.quotients)) {
      return Status::InvalidArgument(
          "memento: " + std::to_string(keys_) + " keys fill the filter and after " + std::to_string(level_ + 1) +
          " doublings the copies of entries whose " + std::to_string(f) +
          "-bit fingerprints ran out (void) would fill " +
          std::to_string(
              static_cast<int>(100.0 * static_cast<double>(entries.size()) / static_cast<double>(h.quotients))) +
          "% of the doubled filter's quotients (at most " + std::to_string(static_cast<int>(100 * 0.75 * kMaxLoad)) +
          "% allowed): it cannot expand again (start it with more bits per key or for more keys)");
    }
    Table t;
    Status s = Table::Load(h.quotients, table_.shape().width, DynamicSlots(h.quotients), entries, &t);
    if (!s.ok()) return s;
    hash_ = h;
    table_ = std::move(t);
    ++level_;
    boxes_ = CountBoxes(table_, m, f);
    prefixes_ = 0;
    for (uint64_t d : boxes_) prefixes_ += d;
    return Status::OK();
  }

  // A static build's table has no slots to spare past its last run; an
  // insert that needs one gets the dynamic table's spill room.
  Status AddSpillSlots() {
    std::vector<Entry> entries;
    entries.reserve(table_.used_slots());
    table_.ForEach([&](uint64_t q, uint64_t r) { entries.push_back({q, r}); });
    Table t;
    Status s = Table::Load(hash_.quotients, table_.shape().width, DynamicSlots(hash_.quotients), entries, &t);
    if (!s.ok()) return s;
    table_ = std::move(t);
    return Status::OK();
  }

  // Canonical slots plus room for runs to spill past the last quotient.
  static uint64_t DynamicSlots(uint64_t quotients) { return quotients + std::max<uint64_t>(128, quotients / 32); }

  uint64_t num_keys() const override { return keys_; }
  size_t DataBytes() const override { return table_.bytes(); }
  void Serialize(std::string* out) const override {
    AppendRangeFilterBytes(Slice(reinterpret_cast<const char*>(table_.data()), table_.bytes()), Describe(), out);
  }
  std::string Describe() const override {
    std::string out = std::string(kVariantName) + ":keys=" + std::to_string(keys_) +
                      ",prefixes=" + std::to_string(prefixes_) + ",memento=" + std::to_string(memento_bits_) +
                      ",fingerprint=" + std::to_string(hash_.fingerprint_bits) +
                      ",quotients=" + std::to_string(hash_.quotients) +
                      ",slots=" + std::to_string(table_.shape().slots) + ",seed=" + std::to_string(seed_);
    if (level_ > 0) return out + ",expansions=" + std::to_string(level_) + ",format=" + std::to_string(kVariableFormat);
    return out + ",format=" + std::to_string(kTableFormat);
  }

  const Table& table() const { return table_; }

 private:
  uint64_t MementoMask() const { return (uint64_t{1} << memento_bits_) - 1; }
  // Fingerprint bits an insert gets after an InfiniFilter expansion: the
  // field less its length mark.
  int NewFingerprintBits() const { return hash_.fingerprint_bits - 1; }
  // The prefix's quotient and fingerprint as stored now: f plain bits at
  // level 0, the length-marked f - 1 bits after.
  void SplitPrefix(uint64_t prefix, uint64_t* q, uint64_t* code) const {
    if (level_ == 0) return hash_.Split(prefix, q, code);
    uint64_t fp;
    hash_.SplitAt(prefix, level_, NewFingerprintBits(), q, &fp);
    *code = EncodeFingerprint(NewFingerprintBits(), fp);
  }
  // The key's quotient and remainder fingerprint:memento.
  void EntryOf(uint64_t key, uint64_t* q, uint64_t* remainder) const {
    uint64_t code;
    SplitPrefix(key >> memento_bits_, q, &code);
    *remainder = (code << memento_bits_) | (key & MementoMask());
  }
  // Whether q's run holds an entry with fingerprint code `code`.
  bool RunHoldsCode(uint64_t q, uint64_t code) const {
    uint64_t start, end;
    if (!table_.FindRun(q, &start, &end)) return false;
    for (uint64_t i = start; i <= end && i < table_.shape().slots; ++i) {
      if (table_.Remainder(i) >> memento_bits_ == code) return true;
    }
    return false;
  }
  // Whether a stored fingerprint code matches a prefix whose full code is
  // `full` (f - 1 bits): its s bits are the first s bits of the prefix's.
  bool CodeMatches(uint64_t code, uint64_t full) const {
    const int length = FingerprintLength(code);
    const int full_length = NewFingerprintBits();
    return (code ^ (uint64_t{1} << length)) == ((full ^ (uint64_t{1} << full_length)) >> (full_length - length));
  }
  // Level >= 1: the remainder of the entry a delete of (memento, full code)
  // removes from q's run: of those matching, one with the longest
  // fingerprint (InfiniFilter's rule: a shorter entry matching the key also
  // matches whichever key owned the longer one, so no present key loses
  // its entry). 0 when none matches; *last_of_box when no other slot holds
  // its code.
  uint64_t LongestMatch(uint64_t q, uint64_t memento, uint64_t full, bool* last_of_box) const {
    uint64_t start, end, best = 0;
    if (!table_.FindRun(q, &start, &end)) return 0;
    int best_length = -1;
    for (uint64_t i = start; i <= end && i < table_.shape().slots; ++i) {
      const uint64_t r = table_.Remainder(i);
      const uint64_t code = r >> memento_bits_;
      if ((r & MementoMask()) != memento || code == 0 || !CodeMatches(code, full)) continue;
      if (FingerprintLength(code) > best_length) best_length = FingerprintLength(code), best = r;
    }
    if (best == 0) return 0;
    uint64_t same = 0;
    for (uint64_t i = start; i <= end && i < table_.shape().slots; ++i)
      same += table_.Remainder(i) >> memento_bits_ == best >> memento_bits_;
    *last_of_box = same == 1;
    return best;
  }
  bool Probe(uint64_t prefix, uint64_t a, uint64_t b) const {
    if (level_ > 0) [[unlikely]] {
      return ProbeGenerations(prefix, a, b);
    }
    uint64_t q, fp;
    hash_.Split(prefix, &q, &fp);
    const uint64_t base = fp << memento_bits_;
    return table_.AnyInRun(q, base | a, base | b);
  }
  // Level >= 1: fingerprints of several lengths, so every entry of the run
  // is compared (runs hold about one entry at load 0.95). Kept out of line
  // so the level-0 probe (every built filter) stays as small as it was.
  [[gnu::noinline]] bool ProbeGenerations(uint64_t prefix, uint64_t a, uint64_t b) const {
    uint64_t q, code;
    SplitPrefix(prefix, &q, &code);
    uint64_t start, end;
    if (!table_.FindRun(q, &start, &end)) return false;
    if (end >= table_.shape().slots) return true;  // unreachable once validated; never a false negative
    for (uint64_t i = start; i <= end; ++i) {
      const uint64_t r = table_.Remainder(i);
      const uint64_t memento = r & MementoMask();
      if (memento >= a && memento <= b && (r >> memento_bits_) != 0 && CodeMatches(r >> memento_bits_, code)) {
        return true;
      }
    }
    return false;
  }

  uint64_t keys_;
  uint64_t prefixes_;
  int memento_bits_;
  uint64_t seed_;
  PrefixHash hash_;
  Table table_;
  bool dynamic_;
  ExpandMode mode_;
  int level_;
  std::vector<uint64_t> boxes_;
};

class MementoPolicy final : public RangeFilterPolicy {
 public:
  // load > 0: the fixed-structure form (fingerprint=F,load=A): N = ceil(n / load) and bpk is
  // what a slot costs at that load; otherwise N spends bpk (see the header comment).
  MementoPolicy(double bpk, uint64_t range, uint64_t seed, int memento_bits, int fingerprint_bits, double load,
                ExpandMode mode)
      : bpk_(bpk),
        load_(load),
        seed_(seed),
        memento_bits_(memento_bits),
        fingerprint_bits_(fingerprint_bits),
        mode_(mode) {
    spec_ = std::string(kVariantName) + ":";
    if (load > 0) {
      spec_ += "fingerprint=" + std::to_string(fingerprint_bits) + ",load=" + FormatNumber(load);
    } else {
      spec_ += "bpk=" + FormatNumber(bpk);
    }
    spec_ += ",range=" + std::to_string(range);
    if (seed != kDefaultSeed) spec_ += ",seed=" + std::to_string(seed);
    if (mode != ExpandMode::kInfiniFilter) spec_ += std::string(",expand=") + ExpandName(mode);
  }
  static constexpr uint64_t kDefaultSeed = 1;

  const std::string& spec() const override { return spec_; }
  std::string_view variant() const override { return kVariantName; }
  unsigned key_types() const override { return kRangeKeysUint64; }
  double bits_per_key() const override { return bpk_; }
  int memento_bits() const { return memento_bits_; }
  int fingerprint_bits() const { return fingerprint_bits_; }

  // N for n keys: the budget B n spent on slots of f + m + 2.125 bits, or n at the fixed load.
  uint64_t QuotientsFor(uint64_t n) const {
    if (load_ > 0) return std::max<uint64_t>(1, static_cast<uint64_t>(std::ceil(static_cast<double>(n) / load_)));
    const double slot_bits = fingerprint_bits_ + memento_bits_ + kOverheadBitsPerSlot;
    const double want = std::floor(bpk_ * static_cast<double>(n) / slot_bits);
    const double floor_load = std::ceil(static_cast<double>(n) / kMaxLoad);
    return std::max<uint64_t>(1, static_cast<uint64_t>(std::max(want, floor_load)));
  }
  Status CheckSize(uint64_t quotients) const {
    if (quotients > (uint64_t{1} << 38) || !HashFits(quotients, fingerprint_bits_)) {
      return Status::InvalidArgument(spec_ + ": " + std::to_string(quotients) + " quotients with " +
                                     std::to_string(fingerprint_bits_) +
                                     " fingerprint bits do not fit this implementation (at most 2^38 quotients and "
                                     "N 2^f <= 2^63); lower bpk or the key count");
    }
    return Status::OK();
  }

  Status Build(const uint64_t* keys, size_t n, std::unique_ptr<RangeFilter>* out) const override {
    Status s = CheckSortedUnique(keys, n);
    if (!s.ok()) return s;
    PrefixHash hash;
    hash.salt = SaltFor(seed_);
    hash.quotients = QuotientsFor(n);
    hash.fingerprint_bits = fingerprint_bits_;
    s = CheckSize(hash.quotients);
    if (!s.ok()) return s;
    const uint64_t mask = (uint64_t{1} << memento_bits_) - 1;
    const int width = fingerprint_bits_ + memento_bits_;
    uint64_t prefixes = 0;
    auto entry_of = [&](size_t i) {
      const uint64_t p = keys[i] >> memento_bits_;
      prefixes += i == 0 || p != (keys[i - 1] >> memento_bits_);
      uint64_t q, fp;
      hash.Split(p, &q, &fp);
      return Entry{q, (fp << memento_bits_) | (keys[i] & mask)};
    };
    // Equal entries (prefixes colliding in quotient and fingerprint, equal
    // mementos) each keep a slot, so either key can be deleted later.
    Table table;
    if (64 - std::countl_zero(hash.quotients - 1) + width <= 64) {
      // Quotient and remainder packed in one word, radix-sorted (radix_sort.h:
      // a few linear passes where std::sort of 16-byte entries took most of
      // the build).
      std::vector<uint64_t> packed(n);
      for (size_t i = 0; i < n; ++i) {
        const Entry e = entry_of(i);
        packed[i] = (e.quotient << width) | e.remainder;
      }
      RadixSortBelow(&packed, ((hash.quotients - 1) << width) | ((uint64_t{1} << width) - 1));
      const uint64_t rmask = (uint64_t{1} << width) - 1;
      s = Table::LoadFrom(
          hash.quotients, width, hash.quotients, n,
          [&](size_t i) {
            return Entry{packed[i] >> width, packed[i] & rmask};
          },
          &table);
    } else {
      std::vector<Entry> entries(n);
      for (size_t i = 0; i < n; ++i) entries[i] = entry_of(i);
      std::sort(entries.begin(), entries.end());
      s = Table::Load(hash.quotients, width, hash.quotients, entries, &table);
    }
    if (!s.ok()) return Status::InvalidArgument(spec_ + ": " + s.message());
    *out = std::make_unique<MementoFilter>(n, prefixes, memento_bits_, seed_, hash, std::move(table), true, mode_);
    return Status::OK();
  }

  bool is_dynamic() const override { return true; }
  Status NewDynamic(uint64_t expected_keys, std::unique_ptr<RangeFilter>* out) const override {
    PrefixHash hash;
    hash.salt = SaltFor(seed_);
    hash.quotients = QuotientsFor(std::max<uint64_t>(expected_keys, 1));
    hash.fingerprint_bits = fingerprint_bits_;
    Status s = CheckSize(hash.quotients);
    if (!s.ok()) return s;
    Table table;
    s = Table::Load(hash.quotients, fingerprint_bits_ + memento_bits_, MementoFilter::DynamicSlots(hash.quotients), {},
                    &table);
    if (!s.ok()) return s;
    *out = std::make_unique<MementoFilter>(0, 0, memento_bits_, seed_, hash, std::move(table), true, mode_);
    return Status::OK();
  }

  double ModelFpRate(uint64_t n, uint64_t range_len) const override {
    const uint64_t quotients = QuotientsFor(n);
    if (!CheckSize(quotients).ok()) return std::nan("");
    // Expected touched prefixes for a uniform left end: 1 + (l - 1) / R.
    const double touched = 1.0 + static_cast<double>(range_len - 1) / std::exp2(memento_bits_);
    if (touched + 1 >= static_cast<double>(kMaxProbedPrefixes)) return n == 0 ? 0.0 : 1.0;
    return MementoBound(n, quotients, fingerprint_bits_, touched);
  }

  uint64_t BuildMemoryBytes(uint64_t n) const override {
    // The entries (packed words and the radix sort's scratch, or 16-byte
    // entries: 16 bytes a key either way), then the table.
    return n * 16 + static_cast<uint64_t>(static_cast<double>(n) * bpk_ / 8 * 1.02) + 1024;
  }

 private:
  double bpk_;
  double load_;
  uint64_t seed_;
  int memento_bits_;
  int fingerprint_bits_;
  ExpandMode mode_;
  std::string spec_;
};

Status Create(FilterSpec& spec, std::unique_ptr<RangeFilterPolicy>* out) {
  double bpk = 0, load = 0;
  long long range = 0, seed = 0;
  int fixed_fingerprint = 0;
  const bool fixed = spec.Has("fingerprint") || spec.Has("load");
  if (fixed && spec.Has("bpk")) {
    return Status::InvalidArgument("memento spec '" + spec.text() +
                                   "': give bpk=B (the size decides the fingerprint) or fingerprint=F[,load=A] "
                                   "(a fixed structure), not both");
  }
  Status s = fixed ? Status::OK() : spec.GetDouble("bpk", 16.0, 4.0, 64.0, &bpk);
  if (s.ok() && fixed) {
    if (!spec.Has("fingerprint")) {
      return Status::InvalidArgument("memento spec '" + spec.text() + "': load=A needs fingerprint=F beside it");
    }
    s = spec.GetInt("fingerprint", 1, 1, kMaxFingerprintBits, &fixed_fingerprint);
    if (s.ok()) s = spec.GetDouble("load", kMaxLoad, 0.05, kMaxLoad, &load);
  }
  if (s.ok()) s = spec.GetInt("range", 64LL, 1LL, 1LL << kMaxMementoBits, &range);
  if (s.ok()) s = spec.GetInt("seed", static_cast<long long>(MementoPolicy::kDefaultSeed), 0LL, LLONG_MAX, &seed);
  std::string expand;
  if (s.ok()) s = spec.GetChoice("expand", "infinifilter", {"infinifilter", "sacrifice"}, &expand);
  if (s.ok()) s = spec.Finish({"bpk", "fingerprint", "load", "range", "seed", "expand"});
  if (!s.ok()) return s;
  const int m = MementoBitsFor(static_cast<uint64_t>(range));
  const int f = fixed ? fixed_fingerprint
                      : static_cast<int>(
                            std::floor(bpk * kMaxLoad - kOverheadBitsPerSlot - m + 1e-9));  // (f + m + 2.125)/0.95 <= B
  if (f < 1) {
    return Status::InvalidArgument(
        "memento spec '" + spec.text() + "': bpk=" + FormatNumber(bpk) + " leaves no fingerprint bit beside the " +
        std::to_string(m) + " memento bits of range=" + std::to_string(range) + " (a slot costs fingerprint + " +
        std::to_string(m) + " + 2.125 bits at load 0.95); bpk must be at least " +
        FormatNumber(std::ceil((m + 1 + kOverheadBitsPerSlot) / kMaxLoad * 100) / 100) + " at this range");
  }
  const int fingerprint_bits = std::min(f, kMaxFingerprintBits);
  if (fingerprint_bits + m > memento::kMaxWidth) {
    return Status::InvalidArgument(
        "memento spec '" + spec.text() + "': fingerprint " + std::to_string(fingerprint_bits) + " + memento " +
        std::to_string(m) + " bits exceed the 58-bit slot; lower " + (fixed ? "fingerprint" : "bpk") + " or range");
  }
  if (fixed) bpk = (fingerprint_bits + m + kOverheadBitsPerSlot) / load;
  *out = std::make_unique<MementoPolicy>(bpk, static_cast<uint64_t>(range), static_cast<uint64_t>(seed), m,
                                         fingerprint_bits, fixed ? load : 0.0,
                                         expand == "sacrifice" ? ExpandMode::kSacrifice : ExpandMode::kInfiniFilter);
  return Status::OK();
}

// Layout "memento:keys=K,prefixes=D,memento=m,fingerprint=f,quotients=N,slots=S,seed=X,format=2", or after
// InfiniFilter expansions "...,seed=X,expansions=k,format=3" (D: the boxes of every fingerprint length).
Status OpenLayout(FilterSpec& layout, Slice data, std::unique_ptr<RangeFilter>* out) {
  if (!layout.Has("format")) {
    return Status::Corruption("memento layout '" + layout.text() +
                              "' is format 1 (separate bitmap, 16-bit offset and remainder arrays), which this build "
                              "no longer reads (it reads format " +
                              std::to_string(kTableFormat) + ", interleaved blocks); rebuild the filter from its keys");
  }
  static constexpr const char* kKeys[] = {"keys", "prefixes", "memento", "fingerprint", "quotients", "slots", "seed"};
  for (const char* key : kKeys) {
    if (!layout.Has(key)) return Status::Corruption("memento layout '" + layout.text() + "' lacks '" + key + "'");
  }
  int format = 0;
  Status s = layout.GetInt("format", 0, 0, 1000, &format);
  if (s.ok() && format != kTableFormat && format != kVariableFormat) {
    s = Status::Corruption("memento layout '" + layout.text() + "': format " + std::to_string(format) +
                           " is not one this build reads (format " + std::to_string(kTableFormat) +
                           ": f-bit fingerprints, or " + std::to_string(kVariableFormat) +
                           ": fingerprints of several lengths after expansions); rebuild the filter from its keys");
  }
  if (!s.ok()) return Status::Corruption(s.message());
  const bool variable = format == kVariableFormat;
  long long keys = 0, prefixes = 0, quotients = 0, slots = 0, seed = 0;
  int m = 0, f = 0, expansions = 0;
  s = layout.GetInt("keys", 0LL, 0LL, LLONG_MAX, &keys);
  // Format 3 counts boxes, void copies included, which may outnumber the keys.
  if (s.ok()) s = layout.GetInt("prefixes", 0LL, 0LL, variable ? LLONG_MAX : keys, &prefixes);
  if (s.ok()) s = layout.GetInt("memento", 0, 0, kMaxMementoBits, &m);
  if (s.ok()) s = layout.GetInt("fingerprint", 1, variable ? 2 : 1, kMaxFingerprintBits, &f);
  if (s.ok()) s = layout.GetInt("quotients", 1LL, 1LL, 1LL << 40, &quotients);
  if (s.ok()) s = layout.GetInt("slots", 64LL, 64LL, 1LL << 40, &slots);
  if (s.ok()) s = layout.GetInt("seed", 0LL, 0LL, LLONG_MAX, &seed);
  if (s.ok() && variable) {
    if (!layout.Has("expansions")) {
      s = Status::Corruption("memento layout '" + layout.text() + "' is format 3 but lacks 'expansions'");
    } else {
      s = layout.GetInt("expansions", 1, 1, 40, &expansions);
    }
    if (s.ok() && (static_cast<uint64_t>(quotients) & ((uint64_t{1} << expansions) - 1)) != 0) {
      s = Status::InvalidArgument("quotients " + std::to_string(quotients) + " is not a multiple of 2^" +
                                  std::to_string(expansions) + " (N0 doubled at each expansion)");
    }
  }
  if (s.ok()) {
    s = variable
            ? layout.Finish(
                  {"keys", "prefixes", "memento", "fingerprint", "quotients", "slots", "seed", "expansions", "format"})
            : layout.Finish({"keys", "prefixes", "memento", "fingerprint", "quotients", "slots", "seed", "format"});
  }
  if (!s.ok()) return Status::Corruption("memento layout '" + layout.text() + "': " + s.message());
  TableShape shape;
  shape.quotients = static_cast<uint64_t>(quotients);
  shape.slots = static_cast<uint64_t>(slots);
  shape.width = f + m;
  const std::string bad = shape.Check();
  if (!bad.empty() || (!variable && !HashFits(shape.quotients, f))) {
    return Status::Corruption("memento layout '" + layout.text() +
                              "': " + (bad.empty() ? std::string("N 2^f passes 2^63") : bad));
  }
  if (data.size() != shape.TotalBytes()) {
    return Status::Corruption("memento layout '" + layout.text() + "' needs " + std::to_string(shape.TotalBytes()) +
                              " data bytes but the filter has " + std::to_string(data.size()));
  }
  Table table(shape, data.udata());
  s = table.Validate();
  if (!s.ok()) return Status::Corruption(s.message());
  // Format 2: one slot per key. Format 3: at least one (void entries are
  // copied at each expansion), every slot's fingerprint carries its length
  // mark, and the boxes counted are the layout's.
  if (variable ? table.used_slots() < static_cast<uint64_t>(keys) : table.used_slots() != static_cast<uint64_t>(keys)) {
    return Status::Corruption("memento layout '" + layout.text() + "': " + std::to_string(table.used_slots()) +
                              " stored entries for " + std::to_string(keys) + " keys (each key takes " +
                              (variable ? "at least one)" : "one)"));
  }
  std::vector<uint64_t> boxes;
  if (variable) {
    bool unmarked = false;
    table.ForEach([&](uint64_t, uint64_t r) { unmarked |= (r >> m) == 0; });
    if (unmarked) {
      return Status::Corruption("memento layout '" + layout.text() +
                                "': a slot's fingerprint has no length mark (format 3 stores 2^s + the s bits left)");
    }
    boxes = CountBoxes(table, m, f);
    uint64_t counted = 0;
    for (uint64_t d : boxes) counted += d;
    if (counted != static_cast<uint64_t>(prefixes)) {
      return Status::Corruption("memento layout '" + layout.text() + "': the table holds " + std::to_string(counted) +
                                " boxes, the layout says " + std::to_string(prefixes));
    }
  }
  PrefixHash hash;
  hash.salt = SaltFor(static_cast<uint64_t>(seed));
  hash.quotients = shape.quotients;
  hash.fingerprint_bits = f;
  *out = std::make_unique<MementoFilter>(static_cast<uint64_t>(keys), static_cast<uint64_t>(prefixes), m,
                                         static_cast<uint64_t>(seed), hash, std::move(table), false,
                                         ExpandMode::kInfiniFilter, expansions, std::move(boxes));
  return Status::OK();
}

FILTERLAB_REGISTER_RANGE_FILTER(RangeFilterVariant{
    kVariantName,
    "Memento filter (Eslami, Dayan, SIGMOD 2025): prefixes of range-sized partitions hashed into a rank-and-select "
    "quotient filter, each key's memento (low bits) in its prefix's sorted run; inserts, deletes and expansion; "
    "FPR <= t D/(N 2^f) over t touched partitions for any keys and queries",
    "bpk=4..64 (bits per key, default 16; needs (f + m + 2.125)/0.95 <= bpk with f >= 1 fingerprint bits), or "
    "instead of bpk fingerprint=1..40 with load=0.05..0.95 (a fixed structure: f bits, n/load slots) "
    "range=1..2^40 (the longest range of interest: partitions of R = 2^m >= range values, default 64); "
    "seed=0.. (prefix hash, default 1); expand=infinifilter|sacrifice (how a full filter doubles: InfiniFilter's "
    "generations, later inserts keeping long fingerprints, the default; or every fingerprint giving a bit to the "
    "quotient)",
    &Create,
    &OpenLayout,
    {"memento:bpk=16,range=64", "memento:bpk=20,range=1", "memento:fingerprint=7,load=0.95,range=1024",
     "memento:bpk=16,range=64,expand=sacrifice"},
    kRangeKeysUint64,
    FpModelKind::kUpperBound,
    /*dynamic=*/true});

}  // namespace
}  // namespace filterlab::memento
