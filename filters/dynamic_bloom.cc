#include "filters/dynamic_bloom.h"

#include <algorithm>
#include <bit>
#include <cstring>

#include "filters/bits_per_key.h"
#include "filters/fp_model.h"
#include "filters/registry.h"
#include "filters/trailer.h"
#include "hashing/fastrange.h"
#include "hashing/legacy_hash.h"
#include "hashing/remix.h"
#include "hashing/xxh3.h"

namespace filterlab {
namespace {

// Bits of the remixed stream each word consumes (two 6-bit positions).
constexpr int kStreamBitsPerWord = 12;

bool IsAllowedProbes(int num_probes) {
  return std::find(std::begin(DynamicBloom::kAllowedProbes), std::end(DynamicBloom::kAllowedProbes), num_probes) !=
         std::end(DynamicBloom::kAllowedProbes);
}

// Parses "probes" against the allowed set; the message names the set.
Status GetProbes(FilterSpec& spec, int* num_probes) {
  std::string text;
  Status s = spec.GetChoice("probes", "6", {"1", "2", "4", "6", "8", "10"}, &text);
  if (s.ok()) *num_probes = std::stoi(text);
  return s;
}

}  // namespace

int DynamicBloom::BlockWords(int num_probes) {
  return static_cast<int>(std::bit_ceil(static_cast<unsigned>(DoubleProbes(num_probes))));
}

size_t DynamicBloom::LenWords(uint64_t total_bits, int num_probes) {
  const uint64_t block_words = static_cast<uint64_t>(BlockWords(num_probes));
  const uint64_t block_bits = 64 * block_words;
  return static_cast<size_t>((total_bits + block_bits - 1) / block_bits * block_words);
}

Status DynamicBloom::Create(uint64_t total_bits, int num_probes, HashWidth hash_width,
                            std::unique_ptr<DynamicBloom>* out) {
  if (!IsAllowedProbes(num_probes)) {
    return Status::InvalidArgument("dynamic filter: num_probes=" + std::to_string(num_probes) +
                                   " is not allowed; num_probes must be one of " + kAllowedProbesText +
                                   " (two bits per word, at most five words per key)");
  }
  if (total_bits == 0 || total_bits > kMaxTotalBits) {
    return Status::InvalidArgument("dynamic filter: total_bits=" + std::to_string(total_bits) +
                                   " is not allowed; total_bits must be in [1, 2^37]");
  }
  if (hash_width != HashWidth::k32 && hash_width != HashWidth::k64) {
    return Status::InvalidArgument("dynamic filter: hash width must be 32 or 64");
  }
  out->reset(new DynamicBloom(total_bits, num_probes, hash_width));
  return Status::OK();
}

namespace {

// Where a hash lands: its first word a and the remixed bit stream.
struct Location {
  size_t word;
  uint64_t stream;
};

// hash=32 (RocksDB): both the word and the bit stream come from the same 32
// bits. FastRange32 reads mostly the top bits of h32, and the later words'
// bit pairs (stream bits 36..59) depend on those top bits too, so word and
// bits are mildly correlated; that is RocksDB's format and we keep it.
//
// hash=64 (filterlab): the word is FastRange64 of the whole hash, which is
// decided by the high half (the low half only carries into it, moving the
// pick to the adjacent word for a fraction < kLen / 2^32 of hashes), and the
// bit stream is the same golden-ratio remix applied to the low half only.
// Remixing the whole 64-bit hash instead would not do: bit j of a product
// depends on bits 0..j of its input, so stream bits up to 59 would depend on
// the very top bits that chose the word. With disjoint halves, word and bits
// are independent, and two keys collide completely only if they agree on the
// word and on all 32 low bits: about n / (kLen 2^32), negligible, so no
// fingerprint term. The stream still has 32 bits of entropy feeding <= 60
// bits of positions, which costs nothing measurable (positions of different
// keys stay independent; only a key's own pairs are linked).
//
// A template on the width so the view's query (below) does not branch on it;
// kLen < 2^32 (kMaxTotalBits) as FastRange32 needs.
static_assert(DynamicBloom::kMaxTotalBits / 64 < (uint64_t{1} << 32));
template <HashWidth kWidth>
Location Locate(uint64_t hash, size_t len_words) {
  const uint32_t low = Lower32(hash);
  const size_t word = kWidth == HashWidth::k32 ? FastRange32(low, static_cast<uint32_t>(len_words))
                                               : static_cast<size_t>(FastRange64(hash, len_words));
  return Location{word, kGoldenRatio64 * low};
}
Location Locate(HashWidth width, uint64_t hash, size_t len_words) {
  return width == HashWidth::k32 ? Locate<HashWidth::k32>(hash, len_words) : Locate<HashWidth::k64>(hash, len_words);
}

// A word of a live filter: relaxed loads, as adds may run concurrently (see
// AddConcurrently for why no stronger order is needed). A word of an opened
// (read-only) filter: a plain load of bytes nobody writes. On x86-64 both are
// one mov; the split keeps atomics off memory that is no std::atomic object.
inline uint64_t LoadWord(const std::atomic<uint64_t>& word) { return word.load(std::memory_order_relaxed); }
inline uint64_t LoadWord(const uint64_t& word) { return word; }

template <class Word>
bool ProbeAll(const Word* words, Location loc, int double_probes) {
  uint64_t stream = loc.stream;
  for (int i = 0; i < double_probes; ++i) {
    const uint64_t mask = DynamicBloom::PairMask(stream);
    if ((LoadWord(words[loc.word ^ static_cast<size_t>(i)]) & mask) != mask) return false;
    stream = RotateRight64(stream, kStreamBitsPerWord);
  }
  return true;
}

// The FilterView of a DynamicBloom (and the object's own query path): data =
// the words (Word = std::atomic<uint64_t>: the live words of a DynamicBloom;
// uint64_t: an opened filter's), param = kLen | D << 32, ops chosen by word
// type and hash width.
constexpr uint64_t ViewParam(size_t len_words, int double_probes) {
  return uint64_t{len_words} | uint64_t(static_cast<uint8_t>(double_probes)) << 32;
}
template <class Word>
const Word* ViewWords(const FilterView& view) {
  return static_cast<const Word*>(view.data);
}
template <HashWidth kWidth>
Location ViewLocate(const FilterView& view, uint64_t hash) {
  return Locate<kWidth>(hash, static_cast<uint32_t>(view.param));
}
inline int ViewDoubleProbes(const FilterView& view) { return static_cast<uint8_t>(view.param >> 32); }

template <HashWidth kWidth, class Word>
bool ViewMayContain(const FilterView& view, uint64_t hash) {
  return ProbeAll(ViewWords<Word>(view), ViewLocate<kWidth>(view, hash), ViewDoubleProbes(view));
}

template <HashWidth kWidth, class Word>
void ViewPrefetch(const FilterView& view, uint64_t hash) {
  __builtin_prefetch(ViewWords<Word>(view) + ViewLocate<kWidth>(view, hash).word, /*rw=*/0, /*locality=*/3);
}

template <HashWidth kWidth, class Word>
void ViewMayContainBatch(const FilterView& view, const uint64_t* hashes, size_t n, bool* results) {
  // All D words of a key share one cache line, so one prefetch per key
  // suffices. Chunks bound the stack use and keep the prefetched lines from
  // being evicted before they are probed.
  constexpr size_t kChunk = 32;
  const Word* words = ViewWords<Word>(view);
  const int double_probes = ViewDoubleProbes(view);
  Location locs[kChunk];
  for (size_t start = 0; start < n; start += kChunk) {
    const size_t len = std::min(kChunk, n - start);
    for (size_t j = 0; j < len; ++j) {
      locs[j] = ViewLocate<kWidth>(view, hashes[start + j]);
      __builtin_prefetch(words + locs[j].word, /*rw=*/0, /*locality=*/3);
    }
    for (size_t j = 0; j < len; ++j) results[start + j] = ProbeAll(words, locs[j], double_probes);
  }
}

template <HashWidth kWidth, class Word>
constexpr FilterView::Ops kViewOps{&ViewMayContain<kWidth, Word>, &ViewPrefetch<kWidth, Word>,
                                   &ViewMayContainBatch<kWidth, Word>};

template <class Word>
FilterView MakeView(const Word* words, size_t len_words, int double_probes, HashWidth width) {
  return FilterView{width == HashWidth::k32 ? &kViewOps<HashWidth::k32, Word> : &kViewOps<HashWidth::k64, Word>, words,
                    ViewParam(len_words, double_probes)};
}

// "dynamic:hash=32,probes=6,total_bits=N,words=K" (DynamicBloom::Describe).
std::string DescribeDynamic(HashWidth width, int num_probes, uint64_t total_bits, size_t len_words) {
  return "dynamic:hash=" + HashWidthText(width) + ",probes=" + std::to_string(num_probes) +
         ",total_bits=" + std::to_string(total_bits) + ",words=" + std::to_string(len_words);
}

// What OpenFilter makes of a serialized DynamicBloom: the query side only
// (SupportsAdd() is false), answering bit for bit as the filter serialized.
// Read-only because it reads the serialized words in place where they are
// 64-byte aligned (the caller's bytes, which OpenFilter never changes), so
// the speed harness queries it in the memory it chose (a huge-page arena)
// like every other variant; no caller adds to an opened filter (the memtable
// builds its own with Create). Bytes not on a 64-byte boundary are copied
// into an owned aligned array instead: at 8-byte alignment the loads would be
// valid, but a key's aligned block of W words could straddle two cache lines
// (two misses instead of one), which a copy avoids.
class OpenedDynamicBloom final : public Filter {
 public:
  OpenedDynamicBloom(Slice data, uint64_t total_bits, int num_probes, HashWidth hash_width)
      : total_bits_(total_bits),
        num_probes_(num_probes),
        hash_width_(hash_width),
        len_words_(data.size() / 8),
        owned_(IsAlignedTo(data.data(), kCacheLineBytes) ? 0 : len_words_),
        words_(owned_.size() == 0 ? reinterpret_cast<const uint64_t*>(data.data()) : owned_.data()),
        view_(MakeView(words_, len_words_, DynamicBloom::DoubleProbes(num_probes), hash_width)) {
    if (owned_.size() != 0) std::memcpy(owned_.data(), data.data(), data.size());
  }

  bool MayContain(uint64_t hash) const override { return view_.MayContain(hash); }
  void MayContainBatch(const uint64_t* hashes, size_t n, bool* results) const override {
    view_.MayContainBatch(hashes, n, results);
  }
  void Prefetch(uint64_t hash) const override { view_.Prefetch(hash); }
  // data = the words read (the caller's bytes or the copy), param as above.
  FilterView View() const override { return view_; }
  size_t DataBytes() const override { return len_words_ * sizeof(uint64_t); }
  void Serialize(std::string* out) const override {
    AppendWithFilterlabTrailer(Slice(reinterpret_cast<const char*>(words_), DataBytes()), Describe(), out);
  }
  std::string Describe() const override { return DescribeDynamic(hash_width_, num_probes_, total_bits_, len_words_); }
  HashWidth hash_width() const override { return hash_width_; }

 private:
  uint64_t total_bits_;
  int num_probes_;
  HashWidth hash_width_;
  size_t len_words_;
  CacheAlignedArray<uint64_t> owned_;  // the copy; empty when reading the caller's bytes
  const uint64_t* words_;
  FilterView view_;  // after words_: it points at them
};

}  // namespace

DynamicBloom::DynamicBloom(uint64_t total_bits, int num_probes, HashWidth hash_width)
    : total_bits_(total_bits),
      num_probes_(num_probes),
      double_probes_(DoubleProbes(num_probes)),
      hash_width_(hash_width),
      words_(LenWords(total_bits, num_probes)),
      view_(MakeView(words_.data(), words_.size(), double_probes_, hash_width_)) {}

void DynamicBloom::Add(uint64_t hash) {
  // Single writer: a relaxed load and store instead of an atomic
  // read-modify-write (cheaper; a concurrent reader sees either value).
  const Location loc = Locate(hash_width_, hash, words_.size());
  uint64_t stream = loc.stream;
  for (int i = 0; i < double_probes_; ++i) {
    std::atomic<uint64_t>& word = words_[loc.word ^ static_cast<size_t>(i)];
    word.store(word.load(std::memory_order_relaxed) | PairMask(stream), std::memory_order_relaxed);
    stream = RotateRight64(stream, kStreamBitsPerWord);
  }
}

void DynamicBloom::AddConcurrently(uint64_t hash) {
  // Many writers: fetch_or cannot lose another writer's bits. It is skipped
  // when the bits are already set (common once the filter fills), which
  // avoids dirtying a shared cache line. Relaxed order: the memtable
  // publishes entries through its sequence numbers, not through the filter.
  const Location loc = Locate(hash_width_, hash, words_.size());
  uint64_t stream = loc.stream;
  for (int i = 0; i < double_probes_; ++i) {
    const uint64_t mask = PairMask(stream);
    std::atomic<uint64_t>& word = words_[loc.word ^ static_cast<size_t>(i)];
    if ((word.load(std::memory_order_relaxed) & mask) != mask) word.fetch_or(mask, std::memory_order_relaxed);
    stream = RotateRight64(stream, kStreamBitsPerWord);
  }
}

void DynamicBloom::AppendData(std::string* out) const {
  // The host is little-endian (CMake refuses others), so a word's bytes in
  // memory are already its little-endian encoding.
  const size_t start = out->size();
  out->resize(start + DataBytes());
  for (size_t i = 0; i < words_.size(); ++i) {
    const uint64_t w = Word(i);
    std::memcpy(out->data() + start + 8 * i, &w, 8);
  }
}

std::string DynamicBloom::Describe() const {
  return DescribeDynamic(hash_width_, num_probes_, total_bits_, words_.size());
}

void DynamicBloom::Serialize(std::string* out) const {
  std::string data;
  AppendData(&data);
  AppendWithFilterlabTrailer(data, Describe(), out);
}

Status DynamicBloom::OpenLayout(FilterSpec& layout, Slice data, std::unique_ptr<Filter>* out) {
  for (const char* key : {"hash", "probes", "total_bits", "words"}) {
    if (!layout.Has(key)) {
      return Status::Corruption("dynamic filter layout '" + layout.text() + "' lacks '" + key +
                                "' (expected hash, probes, total_bits, words)");
    }
  }
  HashWidth hash_width;
  int num_probes = 0;
  long long total_bits = 0;
  long long words = 0;
  Status s = layout.GetHashWidth(HashWidth::k32, {HashWidth::k32, HashWidth::k64}, &hash_width);
  if (s.ok()) s = GetProbes(layout, &num_probes);
  if (s.ok()) s = layout.GetInt("total_bits", 1LL, 1LL, static_cast<long long>(kMaxTotalBits), &total_bits);
  if (s.ok()) s = layout.GetInt("words", 1LL, 1LL, static_cast<long long>(kMaxTotalBits / 64 + 8), &words);
  if (s.ok()) s = layout.Finish({"hash", "probes", "total_bits", "words"});
  if (!s.ok()) return Status::Corruption("dynamic filter layout: " + s.message());
  const size_t expected_words = LenWords(static_cast<uint64_t>(total_bits), num_probes);
  if (static_cast<size_t>(words) != expected_words) {
    return Status::Corruption("dynamic filter layout '" + layout.text() + "': total_bits=" +
                              std::to_string(total_bits) + " with probes=" + std::to_string(num_probes) + " means " +
                              std::to_string(expected_words) + " words, not " + std::to_string(words));
  }
  if (data.size() != expected_words * 8) {
    return Status::Corruption("dynamic filter data is " + std::to_string(data.size()) + " bytes; layout '" +
                              layout.text() + "' needs " + std::to_string(expected_words * 8));
  }
  *out = std::make_unique<OpenedDynamicBloom>(data, static_cast<uint64_t>(total_bits), num_probes, hash_width);
  return Status::OK();
}

namespace {

// The hash=32 model's largest relative error measured (model_accuracy:
// 1000 filters of 10^6 keys, 10^9 queries per point; measured / model
// 0.9988, 0.9952, 0.9871, 0.9829 at 6, 10, 16, 24 bits/key), rounded up.
constexpr double kDynamicHash32ModelError = 0.018;

// Spec: dynamic:bpk=B[,probes=6][,hash=32|64].
class DynamicBloomPolicy final : public FilterPolicy {
 public:
  DynamicBloomPolicy(uint64_t millibits_per_key, int num_probes, HashWidth hash_width)
      : millibits_per_key_(millibits_per_key), num_probes_(num_probes), hash_width_(hash_width) {
    spec_ = "dynamic:bpk=" + FormatNumber(bits_per_key()) + ",probes=" + std::to_string(num_probes) +
            ",hash=" + HashWidthText(hash_width);
  }

  const std::string& spec() const override { return spec_; }
  std::string_view variant() const override { return "dynamic"; }
  HashWidth hash_width() const override { return hash_width_; }
  double bits_per_key() const override { return static_cast<double>(millibits_per_key_) / 1000.0; }
  // As configured; 1 behaves as 2 (one double probe).
  std::optional<int> num_probes() const override { return num_probes_; }

  // hash=32 is RocksDB's memtable hash (BloomHash, seed 0xbc9f1d34), so our
  // memtable filter matches RocksDB's bit for bit; hash=64 is XXH3_64.
  uint64_t HashKey(Slice key) const override {
    return hash_width_ == HashWidth::k32 ? BloomHash32(key.data(), key.size()) : XXH3_64(key.data(), key.size());
  }

  bool is_dynamic() const override { return true; }

  // Sized by keys: total_bits = ceil(expected_keys * bpk) (at least 1). The
  // engine's memtable instead sizes it as RocksDB does, from a byte budget:
  // total_bits = 8 * u32(write_buffer_size * memtable_prefix_bloom_size_ratio)
  // with the ratio clamped to [0, 0.25], whatever the number of keys that
  // end up in it; it calls DynamicBloom::Create with those bits directly.
  Status NewDynamic(size_t expected_keys, std::unique_ptr<Filter>* out) const override {
    std::unique_ptr<DynamicBloom> filter;
    Status s = NewSized(expected_keys, &filter);
    if (s.ok()) *out = std::move(filter);
    return s;
  }

  Status Build(const uint64_t* hashes, size_t n, std::unique_ptr<Filter>* out) const override {
    std::unique_ptr<DynamicBloom> filter;
    Status s = NewSized(n, &filter);
    if (!s.ok()) return s;
    for (size_t i = 0; i < n; ++i) filter->Add(hashes[i]);
    *out = std::move(filter);
    return Status::OK();
  }

  // TwoPerWordPoissonFpRate at the actual bits after block rounding (see
  // dynamic_bloom.h) per distinct hash the keys leave, with the matches of
  // equal hashes.
  double ModelFpRate(size_t n) const override {
    if (n == 0) return 0.0;
    const double bits = 64.0 * static_cast<double>(DynamicBloom::LenWords(TotalBits(n), num_probes_));
    return fpmodel::NarrowHashFpRate(static_cast<double>(n), static_cast<int>(hash_width_), [&](double distinct) {
      return fpmodel::TwoPerWordPoissonFpRate(bits / distinct, DynamicBloom::DoubleProbes(num_probes_),
                                              DynamicBloom::BlockWords(num_probes_));
    });
  }

 private:
  uint64_t TotalBits(size_t keys) const { return std::max<uint64_t>(1, BitsForKeys(keys, millibits_per_key_)); }

  Status NewSized(size_t keys, std::unique_ptr<DynamicBloom>* out) const {
    const uint64_t total_bits = TotalBits(keys);
    if (total_bits > DynamicBloom::kMaxTotalBits) {
      return Status::InvalidArgument("filter spec '" + spec_ + "': " + std::to_string(keys) + " keys need " +
                                     std::to_string(total_bits) +
                                     " bits, above the dynamic filter's limit of "
                                     "2^37 bits (16 GiB)");
    }
    return DynamicBloom::Create(total_bits, num_probes_, hash_width_, out);
  }

  uint64_t millibits_per_key_;
  int num_probes_;
  HashWidth hash_width_;
  std::string spec_;
};

Status CreateDynamicBloomPolicy(FilterSpec& spec, std::unique_ptr<FilterPolicy>* out) {
  double bits_per_key = 0;
  int num_probes = 0;
  HashWidth hash_width;
  Status s = spec.GetDouble("bpk", 10.0, 0.5, 100.0, &bits_per_key);
  if (s.ok()) s = GetProbes(spec, &num_probes);
  if (s.ok()) s = spec.GetHashWidth(HashWidth::k32, {HashWidth::k32, HashWidth::k64}, &hash_width);
  if (s.ok()) s = spec.Finish({"bpk", "probes", "hash"});
  if (!s.ok()) return s;
  *out = std::make_unique<DynamicBloomPolicy>(MillibitsPerKey(bits_per_key), num_probes, hash_width);
  return Status::OK();
}

// hash=64 keeps the exact kind; hash=32 (RocksDB's) is an approximation:
// see "FP rate" in dynamic_bloom.h for the lattice of 32-bit hashes that the
// ideal-hashing model leaves out and the largest error measured.
FpModelKind DynamicModelKind(const FilterPolicy& policy) {
  return policy.hash_width() == HashWidth::k32 ? FpModelKind::kApproximation : FpModelKind::kExact;
}

}  // namespace

FILTERLAB_REGISTER_FILTER(FilterVariant{
    "dynamic",
    "RocksDB's memtable DynamicBloom (2019): two bits in each of probes/2 words of one cache line; "
    "supports concurrent adds",
    "bpk=0.5..100 (default 10) probes=1|2|4|6|8|10 (default 6, 1 acts as 2) hash=32|64 (default 32, RocksDB's)",
    &CreateDynamicBloomPolicy,
    &DynamicBloom::OpenLayout,
    nullptr,
    {"dynamic:bpk=10", "dynamic:bpk=10,hash=64"},
    FpModelKind::kExact,
    &DynamicModelKind,
    /*has_probes=*/true,
    /*fp_model_max_relative_error=*/kDynamicHash32ModelError});

}  // namespace filterlab
