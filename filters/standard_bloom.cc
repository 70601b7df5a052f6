#include "filters/standard_bloom.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "filters/bits_per_key.h"
#include "filters/fp_model.h"
#include "filters/registry.h"
#include "filters/trailer.h"
#include "hashing/fastrange.h"
#include "hashing/remix.h"
#include "hashing/xxh3.h"

namespace filterlab {
namespace {

size_t WordsFor(uint64_t num_bits) { return static_cast<size_t>((num_bits + 63) / 64); }

std::string AllowedProbesText() {
  std::string text = "[";  // built by appends: GCC 12 warns falsely (-Wrestrict) on "literal" + string
  text += std::to_string(StandardBloom::kMinProbes) + ", " + std::to_string(StandardBloom::kMaxProbes) + "]";
  return text;
}

// What Create checks (an opened filter's parameters too).
Status CheckParameters(uint64_t num_bits, int num_probes, HashWidth hash_width) {
  using SB = StandardBloom;
  if (num_probes < SB::kMinProbes || num_probes > SB::kMaxProbes) {
    return Status::InvalidArgument("standard filter: num_probes=" + std::to_string(num_probes) +
                                   " is not allowed; num_probes must be an integer in " + AllowedProbesText());
  }
  if (num_bits == 0 || num_bits > SB::kMaxBits) {
    return Status::InvalidArgument("standard filter: num_bits=" + std::to_string(num_bits) +
                                   " is not allowed; num_bits must be in [1, 2^37]");
  }
  if (hash_width != HashWidth::k32 && hash_width != HashWidth::k64) {
    return Status::InvalidArgument("standard filter: hash width must be 32 or 64");
  }
  return Status::OK();
}

}  // namespace

Status StandardBloom::Create(uint64_t num_bits, int num_probes, HashWidth hash_width,
                             std::unique_ptr<StandardBloom>* out) {
  Status s = CheckParameters(num_bits, num_probes, hash_width);
  if (!s.ok()) return s;
  out->reset(new StandardBloom(num_bits, num_probes, hash_width, nullptr));
  return Status::OK();
}

namespace {

// The hash as the probes see it: a 32-bit filter ignores the high half.
template <HashWidth kWidth>
uint64_t Widen(uint64_t hash) {
  return kWidth == HashWidth::k32 ? (hash & 0xffffffffu) : hash;
}
// Probe i of a widened hash in m bits (see standard_bloom.h).
uint64_t ProbeBitOf(uint64_t widened, int i, uint64_t num_bits) { return StandardProbeBit(widened, i, num_bits); }
bool TestBit(const uint64_t* words, uint64_t bit) { return (words[bit >> 6] >> (bit & 63)) & 1; }

// The FilterView of a StandardBloom (and the object's own query path): data =
// the words, param = m | k << 40, ops chosen by hash width so a query does
// not branch on it.
constexpr int kViewProbesShift = 40;
static_assert(StandardBloom::kMaxBits < (uint64_t{1} << kViewProbesShift));
constexpr uint64_t StandardViewParam(uint64_t num_bits, int num_probes) {
  return num_bits | uint64_t(static_cast<uint8_t>(num_probes)) << kViewProbesShift;
}
inline const uint64_t* ViewWords(const FilterView& view) { return static_cast<const uint64_t*>(view.data); }
inline uint64_t ViewBits(const FilterView& view) { return view.param & ((uint64_t{1} << kViewProbesShift) - 1); }
inline int ViewProbes(const FilterView& view) { return static_cast<uint8_t>(view.param >> kViewProbesShift); }

template <HashWidth kWidth>
bool ViewMayContain(const FilterView& view, uint64_t hash) {
  const uint64_t* words = ViewWords(view);
  const uint64_t num_bits = ViewBits(view);
  const int num_probes = ViewProbes(view);
  const uint64_t widened = Widen<kWidth>(hash);
  for (int i = 0; i < num_probes; ++i) {
    if (!TestBit(words, ProbeBitOf(widened, i, num_bits))) return false;
  }
  return true;
}

template <HashWidth kWidth>
void ViewPrefetch(const FilterView& view, uint64_t hash) {
  const uint64_t* words = ViewWords(view);
  const uint64_t num_bits = ViewBits(view);
  const int num_probes = ViewProbes(view);
  const uint64_t widened = Widen<kWidth>(hash);
  for (int i = 0; i < num_probes; ++i) {
    __builtin_prefetch(words + (ProbeBitOf(widened, i, num_bits) >> 6), /*rw=*/0, /*locality=*/3);
  }
}

template <HashWidth kWidth>
void ViewMayContainBatch(const FilterView& view, const uint64_t* hashes, size_t n, bool* results) {
  // Every probe is a separate cache line, so all k of each key are computed
  // and prefetched first (a hit needs them all). Eight keys of up to 30
  // probes keep the positions on the stack and the prefetched lines fresh.
  constexpr size_t kChunk = 8;
  const uint64_t* words = ViewWords(view);
  const uint64_t num_bits = ViewBits(view);
  const int num_probes = ViewProbes(view);
  uint64_t bits[kChunk][StandardBloom::kMaxProbes];
  for (size_t start = 0; start < n; start += kChunk) {
    const size_t len = std::min(kChunk, n - start);
    for (size_t j = 0; j < len; ++j) {
      const uint64_t widened = Widen<kWidth>(hashes[start + j]);
      for (int i = 0; i < num_probes; ++i) {
        bits[j][i] = ProbeBitOf(widened, i, num_bits);
        __builtin_prefetch(words + (bits[j][i] >> 6), /*rw=*/0, /*locality=*/3);
      }
    }
    for (size_t j = 0; j < len; ++j) {
      bool may = true;
      for (int i = 0; i < num_probes && may; ++i) may = TestBit(words, bits[j][i]);
      results[start + j] = may;
    }
  }
}

template <HashWidth kWidth>
constexpr FilterView::Ops kStandardViewOps{&ViewMayContain<kWidth>, &ViewPrefetch<kWidth>,
                                           &ViewMayContainBatch<kWidth>};

FilterView MakeView(const uint64_t* words, uint64_t num_bits, int num_probes, HashWidth width) {
  return FilterView{width == HashWidth::k32 ? &kStandardViewOps<HashWidth::k32> : &kStandardViewOps<HashWidth::k64>,
                    words, StandardViewParam(num_bits, num_probes)};
}

}  // namespace

StandardBloom::StandardBloom(uint64_t num_bits, int num_probes, HashWidth hash_width, const uint64_t* words)
    : num_bits_(num_bits),
      num_probes_(num_probes),
      hash_width_(hash_width),
      owned_(words == nullptr ? WordsFor(num_bits) : 0),
      words_(words == nullptr ? owned_.data() : words),
      view_(MakeView(words_, num_bits_, num_probes_, hash_width_)) {}

uint64_t StandardBloom::ProbeBit(uint64_t hash, int i) const {
  const uint64_t widened = hash_width_ == HashWidth::k32 ? Widen<HashWidth::k32>(hash) : Widen<HashWidth::k64>(hash);
  return ProbeBitOf(widened, i, num_bits_);
}

void StandardBloom::Insert(uint64_t hash) {
  for (int i = 0; i < num_probes_; ++i) {
    const uint64_t bit = ProbeBit(hash, i);
    owned_[bit >> 6] |= uint64_t{1} << (bit & 63);
  }
}

std::string StandardBloom::Describe() const {
  return "standard:hash=" + HashWidthText(hash_width_) + ",probes=" + std::to_string(num_probes_) +
         ",bits=" + std::to_string(num_bits_);
}

void StandardBloom::Serialize(std::string* out) const {
  // Little-endian host (CMake checks), so the words' bytes are their encoding.
  AppendWithFilterlabTrailer(Slice(reinterpret_cast<const char*>(words_), DataBytes()), Describe(), out);
}

Status StandardBloom::OpenLayout(FilterSpec& layout, Slice data, std::unique_ptr<Filter>* out) {
  for (const char* key : {"hash", "probes", "bits"}) {
    if (!layout.Has(key)) {
      return Status::Corruption("standard filter layout '" + layout.text() + "' lacks '" + key +
                                "' (expected hash, probes, bits)");
    }
  }
  HashWidth hash_width;
  int num_probes = 0;
  long long num_bits = 0;
  Status s = layout.GetHashWidth(HashWidth::k64, {HashWidth::k32, HashWidth::k64}, &hash_width);
  if (s.ok()) s = layout.GetInt("probes", 1, kMinProbes, kMaxProbes, &num_probes);
  if (s.ok()) s = layout.GetInt("bits", 1LL, 1LL, static_cast<long long>(kMaxBits), &num_bits);
  if (s.ok()) s = layout.Finish({"hash", "probes", "bits"});
  if (!s.ok()) return Status::Corruption("standard filter layout: " + s.message());
  const size_t words = WordsFor(static_cast<uint64_t>(num_bits));
  if (data.size() != words * 8) {
    return Status::Corruption("standard filter data is " + std::to_string(data.size()) + " bytes; layout '" +
                              layout.text() + "' needs " + std::to_string(words * 8));
  }
  s = CheckParameters(static_cast<uint64_t>(num_bits), num_probes, hash_width);
  if (!s.ok()) return Status::Corruption(s.message());
  // Bits past m are never set by Insert; any there mean damaged bytes.
  uint64_t last_word;
  std::memcpy(&last_word, data.data() + data.size() - 8, 8);
  const int tail_bits = static_cast<int>(num_bits % 64);
  if (tail_bits != 0 && (last_word >> tail_bits) != 0) {
    return Status::Corruption("standard filter data has bits set beyond its " + std::to_string(num_bits) +
                              " bits (corrupted or not a standard filter)");
  }
  std::unique_ptr<StandardBloom> filter;
  if (IsAlignedTo(data.data(), alignof(uint64_t))) {  // in place (see standard_bloom.h)
    filter.reset(new StandardBloom(static_cast<uint64_t>(num_bits), num_probes, hash_width,
                                   reinterpret_cast<const uint64_t*>(data.data())));
  } else {  // the fallback: an owned copy
    filter.reset(new StandardBloom(static_cast<uint64_t>(num_bits), num_probes, hash_width, nullptr));
    std::memcpy(filter->owned_.data(), data.data(), data.size());
  }
  *out = std::move(filter);
  return Status::OK();
}

namespace {

// Spec: standard:bpk=B[,probes=K][,hash=64|32].
class StandardBloomPolicy final : public FilterPolicy {
 public:
  StandardBloomPolicy(uint64_t millibits_per_key, int num_probes, HashWidth hash_width)
      : millibits_per_key_(millibits_per_key), num_probes_(num_probes), hash_width_(hash_width) {
    spec_ = "standard:bpk=" + FormatNumber(bits_per_key()) + ",probes=" + std::to_string(num_probes) +
            ",hash=" + HashWidthText(hash_width);
  }

  const std::string& spec() const override { return spec_; }
  std::string_view variant() const override { return "standard"; }
  HashWidth hash_width() const override { return hash_width_; }
  double bits_per_key() const override { return static_cast<double>(millibits_per_key_) / 1000.0; }
  std::optional<int> num_probes() const override { return num_probes_; }

  // XXH3_64; the 32-bit form keeps its low 32 bits.
  uint64_t HashKey(Slice key) const override {
    const uint64_t h = XXH3_64(key.data(), key.size());
    return hash_width_ == HashWidth::k32 ? Lower32(h) : h;
  }

  Status Build(const uint64_t* hashes, size_t n, std::unique_ptr<Filter>* out) const override {
    const uint64_t num_bits = NumBits(n);
    if (num_bits > StandardBloom::kMaxBits) {
      return Status::InvalidArgument("filter spec '" + spec_ + "': " + std::to_string(n) + " keys need " +
                                     std::to_string(num_bits) +
                                     " bits, above the standard filter's limit of "
                                     "2^37 bits (16 GiB)");
    }
    std::unique_ptr<StandardBloom> filter;
    Status s = StandardBloom::Create(num_bits, num_probes_, hash_width_, &filter);
    if (!s.ok()) return s;
    for (size_t i = 0; i < n; ++i) filter->Insert(hashes[i]);
    *out = std::move(filter);
    return Status::OK();
  }

  // StandardFpRateExact with the filter's exact m (see standard_bloom.h) for
  // the distinct hashes the keys leave, with the matches of equal hashes.
  double ModelFpRate(size_t n) const override {
    if (n == 0) return 0.0;
    const double m = static_cast<double>(NumBits(n));
    return fpmodel::NarrowHashFpRate(static_cast<double>(n), static_cast<int>(hash_width_), [&](double distinct) {
      return fpmodel::StandardFpRateExact(m, distinct, num_probes_);
    });
  }

 private:
  // m = ceil(n * bpk), at least 1 so an empty filter is well formed.
  uint64_t NumBits(size_t n) const { return std::max<uint64_t>(1, BitsForKeys(n, millibits_per_key_)); }

  uint64_t millibits_per_key_;
  int num_probes_;
  HashWidth hash_width_;
  std::string spec_;
};

Status CreateStandardBloomPolicy(FilterSpec& spec, std::unique_ptr<FilterPolicy>* out) {
  double bits_per_key = 0;
  Status s = spec.GetDouble("bpk", 10.0, 0.5, 100.0, &bits_per_key);
  if (!s.ok()) return s;
  const uint64_t millibits = MillibitsPerKey(bits_per_key);
  // FP-optimal k = b ln 2, clamped to the allowed range (see standard_bloom.h).
  const int default_probes =
      static_cast<int>(std::clamp<long>(std::lround(static_cast<double>(millibits) / 1000.0 * std::log(2.0)),
                                        StandardBloom::kMinProbes, StandardBloom::kMaxProbes));
  int num_probes = 0;
  HashWidth hash_width;
  s = spec.GetInt("probes", default_probes, StandardBloom::kMinProbes, StandardBloom::kMaxProbes, &num_probes);
  if (s.ok()) s = spec.GetHashWidth(HashWidth::k64, {HashWidth::k64, HashWidth::k32}, &hash_width);
  if (s.ok()) s = spec.Finish({"bpk", "probes", "hash"});
  if (!s.ok()) return s;
  *out = std::make_unique<StandardBloomPolicy>(millibits, num_probes, hash_width);
  return Status::OK();
}

}  // namespace

FILTERLAB_REGISTER_FILTER(FilterVariant{
    "standard",
    "Textbook Bloom filter: k independent probes anywhere in exactly ceil(n*bpk) bits (the FP baseline)",
    "bpk=0.5..100 (default 10) probes=1..30 (default round(bpk*ln2)) hash=64|32 (default 64)",
    &CreateStandardBloomPolicy,
    &StandardBloom::OpenLayout,
    nullptr,
    {"standard:bpk=10", "standard:bpk=10,hash=32"},
    FpModelKind::kExact,
    nullptr,
    /*has_probes=*/true});

}  // namespace filterlab
