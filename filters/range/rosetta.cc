// Rosetta: Luo, Chatterjee, Ketsetsidis, Dayan, Qin, Idreos, "Rosetta: A
// Robust Space-Time Optimized Range Filter for Key-Value Stores" (SIGMOD
// 2020). Variant "rosetta:bpk=B,range=L".
//
// What it is. A hierarchy of Bloom filters over the dyadic prefixes of the
// keys: level j (j = 0 .. H, H = ceil(log2 L)) holds every distinct j-bit
// suffix-free prefix key >> j, i.e. the dyadic intervals of 2^j values that
// hold a key. A range [lo, hi] is cut into its canonical dyadic intervals of
// at most 2^H values (the segment-tree decomposition: about 2 per level up
// to H, more for ranges longer than 2^H), and each is "doubted" (paper,
// Section 3.2): an interval at level j is negative when level j's filter
// says its prefix is absent; otherwise its two halves at level j - 1 are
// doubted, down to level 0, the keys themselves. A point query is a level-0
// lookup. Each level is a FastLocalBloom array (local_bloom_bits.h) hashed
// with Mix64(prefix + (j + 1) * golden ratio), one-to-one per level.
//
// Memory split (paper, Section 4; the authors' calc_dst): each level's
// effective FP rate R_j, the chance that doubting an empty level-j interval
// ends positive, is made inversely proportional to how often queries start
// an interval at level j (q_j, the expected count of level-j intervals in the
// decomposition of a length-L range at a uniform position, computed here
// over 4096 fixed alignments), R_j = 1/(c q_j), with c as large as the
// budget B n bits allows (bisection). Doubting gives the recurrence
//   R_0 = p_0,   R_j = p_j (1 - (1 - R_{j-1})^2),
// so level j's Bloom FP rate is p_j = R_j / (R_{j-1} (2 - R_{j-1})), costing
// n_j 1.44 log2(1/p_j) bits for its n_j distinct prefixes (no filter when
// p_j >= 1). For ranges of length L the q_j are about 1 at every level, so
// every R_j is equal: the upper levels get p_j ~ 1/2 (about 1.44 bits per
// prefix each) and the keys' level the rest, which is why Rosetta is strong on
// short ranges and weak on long ones.
//
// FP model (kind exact: the paper's recurrence, with this filter's realized
// p_j from the FastLocalBloom line mixture): an empty query decomposing
// into intervals at levels h_1..h_m is positive with probability
//   1 - prod_i (1 - R_{h_i}).
// Empty intervals have empty halves, so the recurrence holds wherever the
// query lies: Rosetta's FPR does not depend on correlation. (Doubting stops
// at 2^16 filter probes per query, and ranges of more than 4096 top-level
// intervals are answered true; both only shorten the work of long queries
// and can only add positives.)
#include <algorithm>
#include <bit>
#include <climits>
#include <cmath>
#include <string>
#include <vector>

#include "common/aligned_array.h"
#include "filters/filter_spec.h"
#include "filters/range/local_bloom_bits.h"
#include "filters/range/range_filter.h"
#include "filters/range/range_serialization.h"
#include "filters/registry.h"
#include "hashing/remix.h"

namespace filterlab {
namespace {

constexpr char kVariantName[] = "rosetta";
constexpr int kMaxHeight = 40;
constexpr uint64_t kMaxTopIntervals = 4096;
constexpr int kProbeBudget = 1 << 16;
constexpr int kAlignmentSamples = 4096;

inline uint64_t LevelHash(uint64_t prefix, int level) {
  return Mix64(prefix + static_cast<uint64_t>(level + 1) * kGoldenRatio64);
}

int HeightFor(uint64_t range) { return range <= 1 ? 0 : 64 - std::countl_zero(range - 1); }

// Calls visit(prefix, level) for each canonical dyadic interval of [lo, hi]
// of at most 2^height values, left to right, until visit returns true (then
// returns true). False if none did. Ranges needing more than
// kMaxTopIntervals intervals are not cut: *too_long is set.
template <typename Visit>
bool ForEachDyadic(uint64_t lo, uint64_t hi, int height, bool* too_long, Visit visit) {
  *too_long = height < 64 && ((hi - lo) >> height) > kMaxTopIntervals;
  if (*too_long) return true;
  while (true) {
    int j = lo == 0 ? height : std::min(height, std::countr_zero(lo));
    while (j > 0 && hi - lo < (uint64_t{1} << j) - 1) --j;
    if (visit(lo >> j, j)) return true;
    const uint64_t last = lo + ((uint64_t{1} << j) - 1);
    if (last >= hi) return false;
    lo = last + 1;
  }
}

// One level's array: where it starts in the data, its size and probes.
struct Level {
  uint64_t prefixes = 0;
  uint64_t bytes = 0;
  int probes = 1;
  uint64_t offset = 0;
};

// Expected intervals per level for a range of `len` values at a uniform
// position (the q_j of the memory split), over fixed alignments.
std::vector<double> IntervalsPerLevel(uint64_t len, int height) {
  std::vector<double> q(height + 1, 0.0);
  SplitMix64 rng(0x205E77A);
  for (int i = 0; i < kAlignmentSamples; ++i) {
    uint64_t lo = rng.Next();
    if (lo > UINT64_MAX - (len - 1)) lo -= len;
    bool too_long = false;
    ForEachDyadic(lo, lo + (len - 1), height, &too_long, [&](uint64_t, int j) {
      q[j] += 1;
      return false;
    });
  }
  for (auto& x : q) x /= kAlignmentSamples;
  return q;
}

// The paper's split of `budget_bits` over levels with `prefixes[j]`
// distinct prefixes for queries with interval counts q: bits per level.
std::vector<double> SplitMemory(const std::vector<uint64_t>& prefixes, const std::vector<double>& q,
                                double budget_bits) {
  const size_t levels = prefixes.size();
  auto bits_for = [&](double c, std::vector<double>* bits) {
    double total = 0, r_below = 0;
    for (size_t j = 0; j < levels; ++j) {
      double p = 1.0;
      if (q[j] > 0) {
        const double target = std::min(1.0, 1.0 / (c * q[j]));
        p = j == 0 ? target : std::min(1.0, target / (r_below * (2 - r_below)));
      }
      p = std::max(p, 1e-12);
      const double b = p >= 1.0 ? 0.0 : static_cast<double>(prefixes[j]) * 1.44 * std::log2(1 / p);
      if (bits != nullptr) (*bits)[j] = b;
      total += b;
      r_below = j == 0 ? p : p * (1 - (1 - r_below) * (1 - r_below));
    }
    return total;
  };
  double lo = 1e-6, hi = 1e15;
  for (int i = 0; i < 200 && hi / lo > 1 + 1e-9; ++i) {
    const double mid = std::sqrt(lo * hi);
    (bits_for(mid, nullptr) <= budget_bits ? lo : hi) = mid;
  }
  std::vector<double> bits(levels, 0.0);
  bits_for(lo, &bits);
  return bits;
}

// R_j for each level from the levels' realized Bloom FP rates.
std::vector<double> EffectiveRates(const std::vector<Level>& levels) {
  std::vector<double> r(levels.size());
  for (size_t j = 0; j < levels.size(); ++j) {
    const double p = local_bloom::FpRate(levels[j].bytes, levels[j].prefixes, levels[j].probes);
    r[j] = j == 0 ? p : p * (1 - (1 - r[j - 1]) * (1 - r[j - 1]));
  }
  return r;
}

double QueryFp(const std::vector<double>& rates, int height, uint64_t lo, uint64_t hi) {
  double negative = 1.0;
  bool too_long = false;
  ForEachDyadic(lo, hi, height, &too_long, [&](uint64_t, int j) {
    negative *= 1 - rates[j];
    return false;
  });
  return too_long ? 1.0 : 1 - negative;
}

class RosettaFilter final : public RangeFilter {
 public:
  RosettaFilter(uint64_t keys, uint64_t range, std::vector<Level> levels, CacheAlignedArray<uint8_t> owned)
      : keys_(keys), range_(range), levels_(std::move(levels)), owned_(std::move(owned)) {
    data_ = owned_.data();
    bytes_ = owned_.size();
    rates_ = EffectiveRates(levels_);
  }
  RosettaFilter(uint64_t keys, uint64_t range, std::vector<Level> levels, Slice data)
      : keys_(keys), range_(range), levels_(std::move(levels)), data_(data.udata()), bytes_(data.size()) {
    rates_ = EffectiveRates(levels_);
  }

  int height() const { return static_cast<int>(levels_.size()) - 1; }

  bool MayContainRange(uint64_t lo, uint64_t hi) const override {
    if (keys_ == 0) return false;
    int budget = kProbeBudget;
    bool too_long = false;
    const bool positive =
        ForEachDyadic(lo, hi, height(), &too_long, [&](uint64_t prefix, int j) { return Doubt(prefix, j, &budget); });
    return positive || too_long || budget <= 0;
  }
  bool MayContain(uint64_t key) const override { return keys_ != 0 && Probe(key, 0); }

  double QueryModelFp(const uint64_t*, size_t, uint64_t lo, uint64_t hi) const override {
    if (keys_ == 0) return 0.0;
    return QueryFp(rates_, height(), lo, hi);
  }

  uint64_t num_keys() const override { return keys_; }
  size_t DataBytes() const override { return bytes_; }
  void Serialize(std::string* out) const override { AppendRangeFilterBytes(Slice(data_, bytes_), Describe(), out); }
  std::string Describe() const override {
    std::string s = std::string(kVariantName) + ":keys=" + std::to_string(keys_) + ",range=" + std::to_string(range_);
    for (size_t j = 0; j < levels_.size(); ++j) {
      const std::string l = std::to_string(j);
      s += ",n" + l + "=" + std::to_string(levels_[j].prefixes) + ",b" + l + "=" + std::to_string(levels_[j].bytes) +
           ",k" + l + "=" + std::to_string(levels_[j].probes);
    }
    return s;
  }

 private:
  bool Probe(uint64_t prefix, int j) const {
    const Level& level = levels_[j];
    if (level.bytes == 0) return level.prefixes != 0;
    return local_bloom::MayContain(data_ + level.offset, level.bytes, level.probes, LevelHash(prefix, j));
  }
  bool Doubt(uint64_t prefix, int j, int* budget) const {
    if (--*budget <= 0) return true;
    if (!Probe(prefix, j)) return false;
    if (j == 0) return true;
    return Doubt(prefix << 1, j - 1, budget) || Doubt((prefix << 1) | 1, j - 1, budget);
  }

  uint64_t keys_;
  uint64_t range_;
  std::vector<Level> levels_;
  std::vector<double> rates_;  // R_j, the model's effective rate per level
  CacheAlignedArray<uint8_t> owned_;
  const uint8_t* data_ = nullptr;
  size_t bytes_ = 0;
};

// Lays the levels out one after another (each a whole number of lines).
uint64_t AssignOffsets(std::vector<Level>* levels) {
  uint64_t offset = 0;
  for (Level& l : *levels) {
    l.offset = offset;
    offset += l.bytes;
  }
  return offset;
}

class RosettaPolicy final : public RangeFilterPolicy {
 public:
  RosettaPolicy(double bpk, uint64_t range)
      : bpk_(bpk),
        range_(range),
        height_(HeightFor(range)),
        spec_(std::string(kVariantName) + ":bpk=" + FormatNumber(bpk) + ",range=" + std::to_string(range)) {}

  const std::string& spec() const override { return spec_; }
  std::string_view variant() const override { return kVariantName; }
  unsigned key_types() const override { return kRangeKeysUint64; }
  double bits_per_key() const override { return bpk_; }

  // Levels sized by the memory split for these prefix counts.
  std::vector<Level> Plan(const std::vector<uint64_t>& prefixes, uint64_t n) const {
    const std::vector<double> bits =
        SplitMemory(prefixes, IntervalsPerLevel(range_, height_), bpk_ * static_cast<double>(n));
    std::vector<Level> levels(prefixes.size());
    for (size_t j = 0; j < levels.size(); ++j) {
      levels[j].prefixes = prefixes[j];
      levels[j].bytes = prefixes[j] == 0 ? 0 : local_bloom::BytesForBits(bits[j]);
      levels[j].probes = local_bloom::ProbesFor(levels[j].bytes, prefixes[j]);
    }
    AssignOffsets(&levels);
    return levels;
  }

  Status Build(const uint64_t* keys, size_t n, std::unique_ptr<RangeFilter>* out) const override {
    Status s = CheckSortedUnique(keys, n);
    if (!s.ok()) return s;
    std::vector<uint64_t> prefixes(height_ + 1, 0);
    for (int j = 0; j <= height_; ++j) {
      for (size_t i = 0; i < n; ++i) prefixes[j] += i == 0 || (keys[i] >> j) != (keys[i - 1] >> j);
    }
    std::vector<Level> levels = Plan(prefixes, n);
    const uint64_t total = AssignOffsets(&levels);
    CacheAlignedArray<uint8_t> data(total);
    std::vector<uint64_t> hashes;
    hashes.reserve(n);
    for (int j = 0; j <= height_; ++j) {
      if (levels[j].bytes == 0) continue;
      hashes.clear();
      for (size_t i = 0; i < n; ++i) {
        if (i == 0 || (keys[i] >> j) != (keys[i - 1] >> j)) hashes.push_back(LevelHash(keys[i] >> j, j));
      }
      local_bloom::AddAll(hashes.data(), hashes.size(), levels[j].bytes, levels[j].probes,
                          data.data() + levels[j].offset);
    }
    *out = std::make_unique<RosettaFilter>(n, range_, std::move(levels), std::move(data));
    return Status::OK();
  }

  // Uniform keys: every level holds about n distinct prefixes (n 2^H << 2^64).
  double ModelFpRate(uint64_t n, uint64_t range_len) const override {
    if (n == 0) return 0.0;
    const std::vector<Level> levels = Plan(std::vector<uint64_t>(height_ + 1, n), n);
    const std::vector<double> rates = EffectiveRates(levels);
    SplitMix64 rng(0x3D0DE1);
    double sum = 0;
    for (int i = 0; i < kAlignmentSamples; ++i) {
      uint64_t lo = rng.Next();
      if (lo > UINT64_MAX - (range_len - 1)) lo -= range_len;
      sum += QueryFp(rates, height_, lo, lo + (range_len - 1));
    }
    return sum / kAlignmentSamples;
  }

  uint64_t BuildMemoryBytes(uint64_t n) const override {
    return n * 8 + static_cast<uint64_t>(static_cast<double>(n) * bpk_ / 8) + 64 * (height_ + 1);
  }

 private:
  double bpk_;
  uint64_t range_;
  int height_;
  std::string spec_;
};

Status Create(FilterSpec& spec, std::unique_ptr<RangeFilterPolicy>* out) {
  double bpk = 0;
  long long range = 0;
  Status s = spec.GetDouble("bpk", 16.0, 1.0, 100.0, &bpk);
  if (s.ok()) s = spec.GetInt("range", 1LL << 10, 1LL, 1LL << kMaxHeight, &range);
  if (s.ok()) s = spec.Finish({"bpk", "range"});
  if (!s.ok()) return s;
  *out = std::make_unique<RosettaPolicy>(bpk, static_cast<uint64_t>(range));
  return Status::OK();
}

// Layout "rosetta:keys=N,range=L,n0=..,b0=..,k0=..,...,nH=..,bH=..,kH=..".
Status OpenLayout(FilterSpec& layout, Slice data, std::unique_ptr<RangeFilter>* out) {
  long long keys = 0, range = 0;
  Status s = layout.GetInt("keys", 0LL, 0LL, LLONG_MAX, &keys);
  if (s.ok()) s = layout.GetInt("range", 1LL, 1LL, 1LL << kMaxHeight, &range);
  if (!s.ok()) return Status::Corruption(s.message());
  const int height = HeightFor(static_cast<uint64_t>(range));
  std::vector<Level> levels(height + 1);
  std::vector<std::string> names = {"keys", "range"};
  for (int j = 0; j <= height; ++j) {
    const std::string l = std::to_string(j);
    for (const char* p : {"n", "b", "k"}) {
      names.push_back(p + l);
      if (!layout.Has(names.back())) {
        return Status::Corruption("rosetta layout '" + layout.text() + "' lacks '" + names.back() + "'");
      }
    }
    long long prefixes = 0, bytes = 0;
    int probes = 0;
    s = layout.GetInt("n" + l, 0LL, 0LL, keys, &prefixes);
    if (s.ok()) s = layout.GetInt("b" + l, 0LL, 0LL, static_cast<long long>(fastlocal::kMaxDataBytes), &bytes);
    if (s.ok()) s = layout.GetInt("k" + l, 1, fastlocal::kMinProbes, fastlocal::kMaxProbes, &probes);
    if (!s.ok()) return Status::Corruption(s.message());
    if (bytes % fastlocal::kLineBytes != 0 || (prefixes == 0 && bytes != 0) || (keys != 0 && prefixes == 0)) {
      return Status::Corruption("rosetta layout '" + layout.text() + "': level " + l + " has " +
                                std::to_string(prefixes) + " prefixes in " + std::to_string(bytes) +
                                " bytes (whole 64-byte lines, and a level of a non-empty set has prefixes)");
    }
    levels[j].prefixes = static_cast<uint64_t>(prefixes);
    levels[j].bytes = static_cast<uint64_t>(bytes);
    levels[j].probes = probes;
  }
  std::vector<std::string_view> allowed(names.begin(), names.end());
  for (const auto& [key, value] : layout.Params()) {
    if (std::find(allowed.begin(), allowed.end(), key) == allowed.end()) {
      return Status::Corruption("rosetta layout '" + layout.text() + "' has unknown parameter '" + key + "'");
    }
  }
  const uint64_t total = AssignOffsets(&levels);
  if (total != data.size()) {
    return Status::Corruption("rosetta layout '" + layout.text() + "' needs " + std::to_string(total) +
                              " data bytes but the filter has " + std::to_string(data.size()));
  }
  *out = std::make_unique<RosettaFilter>(static_cast<uint64_t>(keys), static_cast<uint64_t>(range), std::move(levels),
                                         data);
  return Status::OK();
}

FILTERLAB_REGISTER_RANGE_FILTER(RangeFilterVariant{
    kVariantName,
    "Rosetta (Luo et al., SIGMOD 2020): one Bloom filter per dyadic level up to log2(range), queries doubted down "
    "to the keys, memory split across levels as the paper's model directs",
    "bpk=1..100 (bits per key, default 16) range=1..2^40 (the range length memory is split for, default 1024)",
    &Create,
    &OpenLayout,
    {"rosetta:bpk=16,range=64", "rosetta:bpk=20,range=1"},
    kRangeKeysUint64,
    FpModelKind::kExact,
    /*dynamic=*/false});

}  // namespace
}  // namespace filterlab
