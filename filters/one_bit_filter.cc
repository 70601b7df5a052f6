// OneBit: a bit array with one bit per added hash (a Bloom filter with a
// single probe), the smallest complete variant and the worked example of
// README.md's "Adding a filter variant": this file and its test are all it
// took to reach the simulator, the engine, the runner and the plots.
//
// Why keep it: it is the k = 1 end of every Bloom curve, the point where the
// FP formula has no approximation left in it, and a query reads exactly one
// word, so it shows what further probes buy in FP rate and what they cost.
//
// Layout: m = max(1, ceil(n * bpk)) bits in 64-bit words; a hash h sets bit
// FastRange64(Mix64(h), m). Mix64 (splitmix64's finaliser) spreads 32-bit
// hashes over all 64 bits before the range reduction, so both widths use the
// whole array.
//
// FP rate: after D distinct hashes a given bit is still 0 with probability
// (1 - 1/m)^D, and an absent key is a false positive when its one bit is set:
// fp = 1 - (1 - 1/m)^D, about 1 - e^(-1/bpk) (9.5% at 10 bits/key, against
// 0.8% for 7 probes in the same bits). fpmodel::NarrowHashFpRate evaluates it
// for the distinct hashes n keys leave and adds the matches of equal hashes
// (~n/2^32 at hash=32). The model is exact: it is the probability itself, not
// an approximation of it.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <memory>
#include <string>

#include "common/aligned_array.h"
#include "filters/bits_per_key.h"
#include "filters/filter.h"
#include "filters/fp_model.h"
#include "filters/registry.h"
#include "filters/trailer.h"
#include "hashing/fastrange.h"
#include "hashing/remix.h"
#include "hashing/xxh3.h"

namespace filterlab::onebit {
namespace {

// 2^37 bits = 16 GiB, as the standard filter's limit.
constexpr uint64_t kMaxBits = uint64_t{1} << 37;

size_t WordsFor(uint64_t num_bits) { return static_cast<size_t>((num_bits + 63) / 64); }

template <HashWidth kWidth>
uint64_t BitOf(uint64_t hash, uint64_t num_bits) {
  const uint64_t widened = kWidth == HashWidth::k32 ? (hash & 0xffffffffu) : hash;
  return FastRange64(Mix64(widened), num_bits);
}

// The view: data = the words, param = m. One word read per query.
template <HashWidth kWidth>
bool ViewMayContain(const FilterView& view, uint64_t hash) {
  const uint64_t bit = BitOf<kWidth>(hash, view.param);
  return (static_cast<const uint64_t*>(view.data)[bit >> 6] >> (bit & 63)) & 1;
}
template <HashWidth kWidth>
void ViewPrefetch(const FilterView& view, uint64_t hash) {
  __builtin_prefetch(static_cast<const uint64_t*>(view.data) + (BitOf<kWidth>(hash, view.param) >> 6));
}
// The whole batch's words are requested before any is tested.
template <HashWidth kWidth>
void ViewMayContainBatch(const FilterView& view, const uint64_t* hashes, size_t n, bool* results) {
  for (size_t i = 0; i < n; ++i) ViewPrefetch<kWidth>(view, hashes[i]);
  for (size_t i = 0; i < n; ++i) results[i] = ViewMayContain<kWidth>(view, hashes[i]);
}
template <HashWidth kWidth>
constexpr FilterView::Ops kOps{&ViewMayContain<kWidth>, &ViewPrefetch<kWidth>, &ViewMayContainBatch<kWidth>};

class OneBitFilter final : public Filter {
 public:
  // An owned, zeroed array (words == nullptr), or a view of the caller's words.
  OneBitFilter(uint64_t num_bits, HashWidth width, const uint64_t* words)
      : num_bits_(num_bits),
        width_(width),
        owned_(words == nullptr ? WordsFor(num_bits) : 0),
        words_(words == nullptr ? owned_.data() : words),
        view_{width == HashWidth::k32 ? &kOps<HashWidth::k32> : &kOps<HashWidth::k64>, words_, num_bits} {}

  void Insert(uint64_t hash) {
    const uint64_t bit =
        width_ == HashWidth::k32 ? BitOf<HashWidth::k32>(hash, num_bits_) : BitOf<HashWidth::k64>(hash, num_bits_);
    owned_[bit >> 6] |= uint64_t{1} << (bit & 63);
  }
  uint64_t* owned() { return owned_.data(); }

  bool MayContain(uint64_t hash) const override { return view_.MayContain(hash); }
  void MayContainBatch(const uint64_t* hashes, size_t n, bool* results) const override {
    view_.MayContainBatch(hashes, n, results);
  }
  void Prefetch(uint64_t hash) const override { view_.Prefetch(hash); }
  FilterView View() const override { return view_; }
  size_t DataBytes() const override { return WordsFor(num_bits_) * sizeof(uint64_t); }
  void Serialize(std::string* out) const override {
    AppendWithFilterlabTrailer(Slice(reinterpret_cast<const char*>(words_), DataBytes()), Describe(), out);
  }
  using Filter::Serialize;
  // "onebit:hash=64,bits=M".
  std::string Describe() const override {
    return "onebit:hash=" + HashWidthText(width_) + ",bits=" + std::to_string(num_bits_);
  }
  HashWidth hash_width() const override { return width_; }

 private:
  uint64_t num_bits_;
  HashWidth width_;
  CacheAlignedArray<uint64_t> owned_;  // empty when viewing the caller's bytes
  const uint64_t* words_;
  FilterView view_;
};

// Spec: onebit:bpk=B[,hash=64|32].
class OneBitPolicy final : public FilterPolicy {
 public:
  OneBitPolicy(uint64_t millibits_per_key, HashWidth width) : millibits_per_key_(millibits_per_key), width_(width) {
    spec_ = "onebit:bpk=" + FormatNumber(bits_per_key()) + ",hash=" + HashWidthText(width);
  }

  const std::string& spec() const override { return spec_; }
  std::string_view variant() const override { return "onebit"; }
  HashWidth hash_width() const override { return width_; }
  double bits_per_key() const override { return static_cast<double>(millibits_per_key_) / 1000.0; }

  // XXH3_64; the 32-bit form keeps its low 32 bits.
  uint64_t HashKey(Slice key) const override {
    const uint64_t h = XXH3_64(key.data(), key.size());
    return width_ == HashWidth::k32 ? Lower32(h) : h;
  }

  Status Build(const uint64_t* hashes, size_t n, std::unique_ptr<Filter>* out) const override {
    const uint64_t num_bits = NumBits(n);
    if (num_bits > kMaxBits) {
      return Status::InvalidArgument("filter spec '" + spec_ + "': " + std::to_string(n) + " keys need " +
                                     std::to_string(num_bits) + " bits, above the onebit limit of 2^37 bits");
    }
    auto filter = std::make_unique<OneBitFilter>(num_bits, width_, nullptr);
    for (size_t i = 0; i < n; ++i) filter->Insert(hashes[i]);
    *out = std::move(filter);
    return Status::OK();
  }

  // 1 - (1 - 1/m)^D for D distinct hashes, + equal-hash matches (see top).
  double ModelFpRate(size_t n) const override {
    if (n == 0) return 0.0;
    const double m = static_cast<double>(NumBits(n));
    return fpmodel::NarrowHashFpRate(static_cast<double>(n), static_cast<int>(width_),
                                     [m](double distinct) { return -std::expm1(distinct * std::log1p(-1.0 / m)); });
  }

 private:
  uint64_t NumBits(size_t n) const { return std::max<uint64_t>(1, BitsForKeys(n, millibits_per_key_)); }

  uint64_t millibits_per_key_;
  HashWidth width_;
  std::string spec_;
};

Status CreateOneBitPolicy(FilterSpec& spec, std::unique_ptr<FilterPolicy>* out) {
  double bits_per_key = 0;
  HashWidth width;
  Status s = spec.GetDouble("bpk", 10.0, 0.5, 100.0, &bits_per_key);
  if (s.ok()) s = spec.GetHashWidth(HashWidth::k64, {HashWidth::k64, HashWidth::k32}, &width);
  if (s.ok()) s = spec.Finish({"bpk", "hash"});
  if (!s.ok()) return s;
  *out = std::make_unique<OneBitPolicy>(MillibitsPerKey(bits_per_key), width);
  return Status::OK();
}

// Reads "onebit:hash=W,bits=M" + the words; in place when they are 8-byte
// aligned (a query reads one word), else from an owned copy.
Status OpenOneBitLayout(FilterSpec& layout, Slice data, std::unique_ptr<Filter>* out) {
  for (const char* key : {"hash", "bits"}) {
    if (!layout.Has(key)) {
      return Status::Corruption("onebit filter layout '" + layout.text() + "' lacks '" + key +
                                "' (expected hash, bits)");
    }
  }
  HashWidth width;
  long long num_bits = 0;
  Status s = layout.GetHashWidth(HashWidth::k64, {HashWidth::k32, HashWidth::k64}, &width);
  if (s.ok()) s = layout.GetInt("bits", 1LL, 1LL, static_cast<long long>(kMaxBits), &num_bits);
  if (s.ok()) s = layout.Finish({"hash", "bits"});
  if (!s.ok()) return Status::Corruption("onebit filter layout: " + s.message());
  const size_t words = WordsFor(static_cast<uint64_t>(num_bits));
  if (data.size() != words * 8) {
    return Status::Corruption("onebit filter data is " + std::to_string(data.size()) + " bytes; layout '" +
                              layout.text() + "' needs " + std::to_string(words * 8));
  }
  // Bits past m are never set; any there mean damaged bytes.
  uint64_t last_word;
  std::memcpy(&last_word, data.data() + data.size() - 8, 8);
  const int tail_bits = static_cast<int>(num_bits % 64);
  if (tail_bits != 0 && (last_word >> tail_bits) != 0) {
    return Status::Corruption("onebit filter data has bits set beyond its " + std::to_string(num_bits) + " bits");
  }
  if (IsAlignedTo(data.data(), alignof(uint64_t))) {
    *out = std::make_unique<OneBitFilter>(static_cast<uint64_t>(num_bits), width,
                                          reinterpret_cast<const uint64_t*>(data.data()));
  } else {
    auto copy = std::make_unique<OneBitFilter>(static_cast<uint64_t>(num_bits), width, nullptr);
    std::memcpy(copy->owned(), data.data(), data.size());
    *out = std::move(copy);
  }
  return Status::OK();
}

}  // namespace

FILTERLAB_REGISTER_FILTER(FilterVariant{
    "onebit",
    "One bit per key (a single-probe Bloom filter): the k = 1 baseline, one word read per query",
    "bpk=0.5..100 (default 10) hash=64|32 (default 64)",
    &CreateOneBitPolicy,
    &OpenOneBitLayout,
    nullptr,
    {"onebit:bpk=10", "onebit:bpk=10,hash=32"},
    FpModelKind::kExact,
    nullptr,
    /*has_probes=*/false});

}  // namespace filterlab::onebit
