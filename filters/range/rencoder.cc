// REncoder: Wang, Zhou, Yang, Ma, Shi, Fan, Wang, Li, Wang, "REncoder: A
// Space-Time Efficient Range Filter with Local Encoder" (ICDE 2023). Variant
// "rencoder:bpk=B[,hashes=K][,levels=S][,rows=shared|partitioned]
// [,align=bit|word]".
//
// What it is. A Range Bloom Filter (RBF, the paper's structure): one array of
// m = B n bits holding the nodes of the keys' binary trie (depth t, 1..64,
// is the key's t-bit prefix x >> (64 - t)). The trie is cut into groups of 4
// depths; group g (depths 4g+1 .. 4g+4) of a key is a "local encoder", a
// complete binary tree of 2 + 4 + 8 + 16 = 30 nodes under the key's 4g-bit
// prefix, as bits 2..31 of a 32-bit word (node of relative depth d and
// relative prefix r at bit 2^d + r, the heap order). The 4g-bit prefix (with
// g) is hashed to K bit positions of the array; the group's word is OR-ed in
// at each (an unaligned 32-bit window), and read back as the AND of the K
// windows. So one memory access per hash answers 4 trie depths, and a range
// query that walks down the trie reads each word once (it keeps the last
// word per group). K = 3, as the authors' code (REncoder's src/main.cpp).
//
// Where the words go (rows=, align=). By default (rows=shared, align=bit)
// each of the K windows starts at any bit of the whole array. The authors'
// RBF (REncoder's src/RBF.h in its 32-bit form: Grafite's bench_rencoder
// defines USE_SIMD after including it, so the 512-bit form is not what that
// benchmark runs) differs in two ways, both selectable: rows=partitioned gives
// probe i its own row of m/K bits (a partitioned Bloom filter), and
// align=word puts the word into one whole aligned 32-bit word of the row,
// rotated left by 5 hash bits, instead of across two. With both, FP equals
// the authors' code's within sampling error, and the defaults measure
// fewer false positives at the same bits (10^7 uniform keys, 12-20
// bits/key, ranges 2^5 and 2^10: paper/results/range_filters_peers and the
// report's range section). Why, as we understand it: an aligned word shares
// all 32 bits with the same few other words, so the node bits one walk reads
// are set or clear together; windows at any offset mix many neighbours.
//
// Stored levels. Only the S bottom depths (65 - S .. 64) are stored; nodes
// above answer yes. levels=S fixes S; levels=0 (default) is the paper's
// self-adaptive insertion: depths are added one at a time
// from the keys upward until the share of 1 bits reaches 0.435 (the
// authors' Insert_SelfAdapt stops when 0.5 - fill < 0.065): their
// heuristic for an array about half full, as an optimal Bloom filter is.
//
// Query. [lo, hi] is walked down the trie from the nodes
// of the first stored depth it overlaps (those above all answer yes): a node
// outside the range is skipped, a stored node whose bit is 0 is
// negative, a leaf (depth 64) whose bit is 1 is positive; otherwise both
// children are visited. That checks the stored part of the common prefix of
// lo and hi, then of the two border paths, and "doubts" every node inside
// the range down to the keys, as the paper's RangeQuery and doubt do. A real
// key sets every stored node on its path, so no false negative. A range
// covering more than 4096 nodes of the first stored depth is answered yes
// unwalked, and a walk stops at 2^16 nodes and answers yes (as Rosetta here
// caps its top intervals and probes); both can only add positives.
//
// FP model kind: empirical. The paper's analysis treats every
// node bit as an independent Bloom probe at the array's fill; here the K
// windows of different words overlap at arbitrary bit offsets, the nodes of
// one word share its K positions (so their errors are correlated), and the
// fill after self-adaptive insertion depends on how many prefixes the keys
// share. That analysis is neither exact nor a bound for this layout, so
// ModelFpRate is NaN and FP is measured (filterlab-sim rangefp).
//
// Serialized data: the m-bit array (m a multiple of 64, at least 128, and
// at least 64 K partitioned; a probe's row is the array, or bits
// [i r, (i + 1) r) for r = m / K rounded down to 64; windows start at 0 ..
// r - 64 in it, so an 8-byte read never leaves the row), bytes
// little-endian. Layout "rencoder:format=2,keys=N,bits=M,hashes=K,levels=S,
// rows=shared|partitioned,align=bit|word" (S the stored depths,
// self-adapted or not); format 1, which had no rows or align (shared, bit),
// still opens.
#include <algorithm>
#include <bit>
#include <climits>
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "common/aligned_array.h"
#include "filters/filter_spec.h"
#include "filters/range/range_filter.h"
#include "filters/range/range_serialization.h"
#include "filters/registry.h"
#include "hashing/fastrange.h"
#include "hashing/remix.h"

namespace filterlab::rencoder {
namespace {

constexpr char kVariantName[] = "rencoder";
constexpr int kFormatVersion = 2;  // 1: rows=shared,align=bit implied (still read)
constexpr int kDepthsPerGroup = 4;
constexpr int kGroups = 64 / kDepthsPerGroup;
constexpr int kMaxHashes = 8;
constexpr int kProbeBudget = 1 << 16;
constexpr uint64_t kMaxTopNodes = 4096;
constexpr uint64_t kMinBits = 128;
// Self-adaptive insertion stops at this share of 1 bits (authors' code: 0.5 - 0.065).
constexpr double kSelfAdaptFill = 0.435;

// The t-bit prefix of key (t = 0..64).
inline uint64_t PrefixAt(uint64_t key, int t) { return t == 0 ? 0 : key >> (64 - t); }

// A node at depth t >= 1 with t-bit prefix p: its group, the group's
// locating prefix (depth 4g) and its bit in the group's 32-bit word.
struct NodeSlot {
  int group;
  uint64_t locator;
  uint32_t bit;
};
inline NodeSlot SlotOf(int t, uint64_t p) {
  const int g = (t - 1) / kDepthsPerGroup;
  const int d = t - kDepthsPerGroup * g;  // 1..4
  const uint32_t relative = static_cast<uint32_t>(p & ((uint64_t{1} << d) - 1));
  return {g, p >> d, uint32_t{1} << ((1u << d) | relative)};
}

// Where the K probes of a locator's word go: the array's size, the probes'
// rows and alignment (file comment).
struct Geometry {
  uint64_t bits = 0;
  int hashes = 3;
  bool partitioned = false;
  bool word_aligned = false;
  // Bits one probe ranges over: the array, or its row (a multiple of 64).
  uint64_t RowBits() const { return partitioned ? bits / static_cast<uint64_t>(hashes) / 64 * 64 : bits; }
  // Bits any probe reaches: the array, or its K rows (the bits past them stay 0).
  uint64_t ReachedBits() const { return partitioned ? RowBits() * static_cast<uint64_t>(hashes) : bits; }
  uint64_t MinBits() const {
    return std::max<uint64_t>(kMinBits, partitioned ? 64 * static_cast<uint64_t>(hashes) : 0);
  }
};

// Probe i of group g's locator: where its window starts and, for an aligned
// word, by how much the group's word is rotated there.
struct Probe {
  uint64_t start;
  int rotate;
};
inline Probe ProbeOf(const Geometry& geo, uint64_t locator, int g, int i) {
  const uint64_t h = Mix64(Mix64(locator + static_cast<uint64_t>(g + 1) * kGoldenRatio64) +
                           static_cast<uint64_t>(i) * 0xD6E8FEB86659FD93ULL);
  const uint64_t row = geo.RowBits();
  const uint64_t base = geo.partitioned ? static_cast<uint64_t>(i) * row : 0;
  if (geo.word_aligned) return {base + 32 * FastRange64(h, row / 32), static_cast<int>(h & 31)};
  return {base + FastRange64(h, row - 63), 0};
}

inline uint64_t Load64(const uint8_t* p) {
  uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = (v << 8) | p[i];
  return v;
}
inline void Store64(uint8_t* p, uint64_t v) {
  for (int i = 0; i < 8; ++i) p[i] = static_cast<uint8_t>(v >> (8 * i));
}
inline uint32_t Load32(const uint8_t* p) {
  return uint32_t{p[0]} | uint32_t{p[1]} << 8 | uint32_t{p[2]} << 16 | uint32_t{p[3]} << 24;
}
inline void Store32(uint8_t* p, uint32_t v) {
  for (int i = 0; i < 4; ++i) p[i] = static_cast<uint8_t>(v >> (8 * i));
}

// The AND of group g's K windows for this locator.
inline uint32_t ReadWord(const uint8_t* data, const Geometry& geo, int g, uint64_t locator) {
  uint32_t word = ~uint32_t{0};
  for (int i = 0; i < geo.hashes && word != 0; ++i) {
    const Probe p = ProbeOf(geo, locator, g, i);
    word &= geo.word_aligned ? std::rotr(Load32(data + p.start / 8), p.rotate)
                             : static_cast<uint32_t>(Load64(data + p.start / 8) >> (p.start % 8));
  }
  return word;
}

inline void OrWord(uint8_t* data, const Geometry& geo, int g, uint64_t locator, uint32_t word) {
  for (int i = 0; i < geo.hashes; ++i) {
    const Probe p = ProbeOf(geo, locator, g, i);
    uint8_t* at = data + p.start / 8;
    if (geo.word_aligned) {
      Store32(at, Load32(at) | std::rotl(word, p.rotate));
    } else {
      Store64(at, Load64(at) | (uint64_t{word} << (p.start % 8)));
    }
  }
}

const char* RowsName(bool partitioned) { return partitioned ? "partitioned" : "shared"; }
const char* AlignName(bool word_aligned) { return word_aligned ? "word" : "bit"; }

// rows= and align= of a spec or a layout.
Status GetGeometryChoices(FilterSpec& spec, Geometry* geo) {
  std::string rows, align;
  Status s = spec.GetChoice("rows", "shared", {"shared", "partitioned"}, &rows);
  if (s.ok()) s = spec.GetChoice("align", "bit", {"bit", "word"}, &align);
  geo->partitioned = rows == "partitioned";
  geo->word_aligned = align == "word";
  return s;
}

class REncoderFilter final : public RangeFilter {
 public:
  REncoderFilter(uint64_t keys, Geometry geo, int levels, CacheAlignedArray<uint8_t> owned)
      : keys_(keys), geo_(geo), levels_(levels), owned_(std::move(owned)) {
    data_ = owned_.data();
  }
  REncoderFilter(uint64_t keys, Geometry geo, int levels, Slice data)
      : keys_(keys), geo_(geo), levels_(levels), data_(data.udata()) {}

  bool MayContainRange(uint64_t lo, uint64_t hi) const override {
    if (keys_ == 0) return false;
    // More than kMaxTopNodes nodes at the first stored depth: answered yes
    // unwalked (file comment); such a node holds 2^(levels - 1) values.
    if (((hi - lo) >> (levels_ - 1)) > kMaxTopNodes) return true;
    // Nodes above the first stored depth answer yes: start at its nodes.
    Walk walk{lo, hi, kProbeBudget, {}};
    const int first_depth = 65 - levels_;
    const uint64_t last = hi >> (levels_ - 1);
    for (uint64_t p = lo >> (levels_ - 1);; ++p) {
      if (Visit(first_depth, p, &walk)) return true;
      if (p == last) return false;
    }
  }

  uint64_t num_keys() const override { return keys_; }
  size_t DataBytes() const override { return static_cast<size_t>(geo_.bits / 8); }
  void Serialize(std::string* out) const override {
    AppendRangeFilterBytes(Slice(data_, DataBytes()), Describe(), out);
  }
  std::string Describe() const override {
    return std::string(kVariantName) + ":format=" + std::to_string(kFormatVersion) + ",keys=" + std::to_string(keys_) +
           ",bits=" + std::to_string(geo_.bits) + ",hashes=" + std::to_string(geo_.hashes) +
           ",levels=" + std::to_string(levels_) + ",rows=" + RowsName(geo_.partitioned) +
           ",align=" + AlignName(geo_.word_aligned);
  }

 private:
  struct CachedWord {
    bool valid = false;
    uint64_t locator = 0;
    uint32_t word = 0;
  };
  struct Walk {
    uint64_t lo, hi;
    int budget;
    CachedWord cache[kGroups];
  };

  bool NodeBit(int t, uint64_t p, Walk* walk) const {
    const NodeSlot s = SlotOf(t, p);
    CachedWord& c = walk->cache[s.group];
    if (!c.valid || c.locator != s.locator) {
      c = {true, s.locator, ReadWord(data_, geo_, s.group, s.locator)};
    }
    return (c.word & s.bit) != 0;
  }

  // Node of stored depth t and prefix p (values [p << (64 - t), .. + 2^(64-t) - 1]).
  bool Visit(int t, uint64_t p, Walk* walk) const {
    const uint64_t first = p << (64 - t);
    const uint64_t last = first + ((uint64_t{1} << (64 - t)) - 1);
    if (last < walk->lo || first > walk->hi) return false;
    if (--walk->budget <= 0) return true;
    if (!NodeBit(t, p, walk)) return false;  // t is a stored depth
    if (t == 64) return true;
    return Visit(t + 1, p << 1, walk) || Visit(t + 1, (p << 1) | 1, walk);
  }

  uint64_t keys_;
  Geometry geo_;
  int levels_;
  CacheAlignedArray<uint8_t> owned_;
  const uint8_t* data_ = nullptr;
};

uint64_t BitsFor(double bpk, uint64_t n, const Geometry& geo) {
  const double want = std::ceil(bpk * static_cast<double>(n) / 64) * 64;
  return std::max<uint64_t>(geo.MinBits(), static_cast<uint64_t>(want));
}

// ORs depths [from, to] (within one group g) of every key into the array,
// one word per distinct locator (the keys are sorted, so equal locators
// are adjacent).
void InsertDepths(const uint64_t* keys, size_t n, int g, int from, int to, const Geometry& geo, uint8_t* data) {
  size_t i = 0;
  while (i < n) {
    const uint64_t locator = PrefixAt(keys[i], kDepthsPerGroup * g);
    uint32_t word = 0;
    for (; i < n && PrefixAt(keys[i], kDepthsPerGroup * g) == locator; ++i) {
      for (int t = from; t <= to; ++t) word |= SlotOf(t, PrefixAt(keys[i], t)).bit;
    }
    OrWord(data, geo, g, locator, word);
  }
}

// Share of 1 bits where probes go. The authors' code measures its first row
// only; the rows fill alike.
double FillOf(const uint8_t* data, const Geometry& geo) {
  const uint64_t bits = geo.ReachedBits();
  uint64_t ones = 0;
  for (uint64_t b = 0; b < bits / 8; b += 8) ones += std::popcount(Load64(data + b));
  return static_cast<double>(ones) / static_cast<double>(bits);
}

class REncoderPolicy final : public RangeFilterPolicy {
 public:
  // The geometry's bits are set per build.
  REncoderPolicy(double bpk, Geometry geo, int levels)
      : bpk_(bpk),
        geo_(geo),
        levels_(levels),
        spec_(std::string(kVariantName) + ":bpk=" + FormatNumber(bpk) + ",hashes=" + std::to_string(geo.hashes) +
              ",levels=" + std::to_string(levels) + (geo.partitioned ? ",rows=partitioned" : "") +
              (geo.word_aligned ? ",align=word" : "")) {}

  const std::string& spec() const override { return spec_; }
  std::string_view variant() const override { return kVariantName; }
  unsigned key_types() const override { return kRangeKeysUint64; }
  double bits_per_key() const override { return bpk_; }

  Status Build(const uint64_t* keys, size_t n, std::unique_ptr<RangeFilter>* out) const override {
    Status s = CheckSortedUnique(keys, n);
    if (!s.ok()) return s;
    if (n == 0) {
      Geometry none = geo_;
      none.bits = 0;
      *out = std::make_unique<REncoderFilter>(0, none, 0, CacheAlignedArray<uint8_t>(0));
      return Status::OK();
    }
    Geometry geo = geo_;
    geo.bits = BitsFor(bpk_, n, geo_);
    CacheAlignedArray<uint8_t> data(geo.bits / 8);
    std::memset(data.data(), 0, data.size());
    int stored = 0;
    if (levels_ > 0) {
      stored = levels_;
      const int first = 65 - levels_;
      for (int g = (first - 1) / kDepthsPerGroup; g < kGroups; ++g) {
        const int from = std::max(first, kDepthsPerGroup * g + 1);
        InsertDepths(keys, n, g, from, kDepthsPerGroup * g + kDepthsPerGroup, geo, data.data());
      }
    } else {
      // Self-adaptive: one depth at a time from the keys upward (file comment).
      for (int t = 64; t >= 1; --t) {
        InsertDepths(keys, n, (t - 1) / kDepthsPerGroup, t, t, geo, data.data());
        ++stored;
        if (FillOf(data.data(), geo) >= kSelfAdaptFill) break;
      }
    }
    *out = std::make_unique<REncoderFilter>(n, geo, stored, std::move(data));
    return Status::OK();
  }

  double ModelFpRate(uint64_t, uint64_t) const override { return std::nan(""); }

  uint64_t BuildMemoryBytes(uint64_t n) const override { return BitsFor(bpk_, n, geo_) / 8 + 64; }

 private:
  double bpk_;
  Geometry geo_;
  int levels_;
  std::string spec_;
};

Status Create(FilterSpec& spec, std::unique_ptr<RangeFilterPolicy>* out) {
  double bpk = 0;
  int levels = 0;
  Geometry geo;
  Status s = spec.GetDouble("bpk", 16.0, 1.0, 100.0, &bpk);
  if (s.ok()) s = spec.GetInt("hashes", 3, 1, kMaxHashes, &geo.hashes);
  if (s.ok()) s = spec.GetInt("levels", 0, 0, 64, &levels);
  if (s.ok()) s = GetGeometryChoices(spec, &geo);
  if (s.ok()) s = spec.Finish({"bpk", "hashes", "levels", "rows", "align"});
  if (!s.ok()) return s;
  *out = std::make_unique<REncoderPolicy>(bpk, geo, levels);
  return Status::OK();
}

Status OpenLayout(FilterSpec& layout, Slice data, std::unique_ptr<RangeFilter>* out) {
  long long format = 0, keys = 0, bits = 0;
  int levels = 0;
  Geometry geo;
  if (!layout.Has("format")) {
    return Status::Corruption("rencoder layout '" + layout.text() +
                              "' lacks 'format' (this reader reads formats 1 and " + std::to_string(kFormatVersion) +
                              ")");
  }
  Status s = layout.GetInt("format", 0LL, 0LL, LLONG_MAX, &format);
  if (s.ok() && format != 1 && format != kFormatVersion) {
    return Status::Corruption("rencoder layout '" + layout.text() + "' has format " + std::to_string(format) +
                              "; this reader reads formats 1 and " + std::to_string(kFormatVersion));
  }
  std::vector<std::string> fields = {"keys", "bits", "hashes", "levels"};
  if (format == kFormatVersion) fields.insert(fields.end(), {"rows", "align"});
  for (const std::string& name : fields) {
    if (s.ok() && !layout.Has(name)) {
      return Status::Corruption("rencoder layout '" + layout.text() + "' lacks '" + name + "'");
    }
  }
  if (s.ok()) s = layout.GetInt("keys", 0LL, 0LL, LLONG_MAX, &keys);
  if (s.ok()) s = layout.GetInt("bits", 0LL, 0LL, LLONG_MAX, &bits);
  if (s.ok()) s = layout.GetInt("hashes", 1, 1, kMaxHashes, &geo.hashes);
  if (s.ok()) s = layout.GetInt("levels", 0, 0, 64, &levels);
  if (s.ok() && format == kFormatVersion) s = GetGeometryChoices(layout, &geo);
  if (s.ok()) {
    s = format == kFormatVersion ? layout.Finish({"format", "keys", "bits", "hashes", "levels", "rows", "align"})
                                 : layout.Finish({"format", "keys", "bits", "hashes", "levels"});
  }
  if (!s.ok()) return Status::Corruption(s.message());
  const bool empty = keys == 0;
  const bool shape_ok = empty ? (bits == 0 && levels == 0)
                              : (bits >= static_cast<long long>(geo.MinBits()) && bits % 64 == 0 && levels >= 1);
  if (!shape_ok) {
    return Status::Corruption("rencoder layout '" + layout.text() +
                              "': a non-empty filter needs bits a multiple of 64, at least 128 (and 64 per hash "
                              "with rows=partitioned), and levels 1..64; an empty one bits=0 and levels=0");
  }
  geo.bits = static_cast<uint64_t>(bits);
  if (static_cast<uint64_t>(bits) / 8 != data.size()) {
    return Status::Corruption("rencoder layout '" + layout.text() + "' needs " + std::to_string(bits / 8) +
                              " data bytes but the filter has " + std::to_string(data.size()));
  }
  *out = std::make_unique<REncoderFilter>(static_cast<uint64_t>(keys), geo, levels, data);
  return Status::OK();
}

FILTERLAB_REGISTER_RANGE_FILTER(RangeFilterVariant{
    kVariantName,
    "REncoder (Wang et al., ICDE 2023): the keys' trie nodes in one Range Bloom Filter, 4 trie depths per local "
    "encoder word located by hashing the prefix above them, queries walked down the trie",
    "bpk=1..100 (bits per key, default 16) hashes=1..8 (positions per word, default 3 as the authors' code) "
    "levels=0..64 (bottom trie depths stored; 0, the default, adds depths from the keys up until 43.5% of the bits "
    "are set, the paper's self-adaptive insertion) rows=shared|partitioned (default shared: every probe anywhere in "
    "the array; partitioned: probe i in row i, as the authors' RBF) align=bit|word (default bit: a word's window "
    "starts at any bit; word: one aligned 32-bit word, rotated, as the authors' RBF)",
    &Create,
    &OpenLayout,
    {"rencoder:bpk=16", "rencoder:bpk=20,hashes=2,levels=12", "rencoder:bpk=12,rows=partitioned,align=word"},
    kRangeKeysUint64,
    FpModelKind::kEmpirical,
    /*dynamic=*/false});

}  // namespace
}  // namespace filterlab::rencoder
