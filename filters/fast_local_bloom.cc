// FastLocalBloom filter, policy, readers and registration (math and format in
// fast_local_bloom.h).
#include "filters/fast_local_bloom.h"

#include <algorithm>
#include <cstring>
#include <string>
#include <utility>

#include "common/aligned_array.h"
#include "filters/filter_spec.h"
#include "filters/fp_model.h"
#include "filters/policy_open.h"
#include "filters/registry.h"
#include "filters/rocksdb_bits_per_key.h"
#include "filters/trailer.h"
#include "hashing/xxh3.h"

namespace filterlab::fastlocal {

int ChooseNumProbes(int millibits_per_key) {
  // RocksDB's measured optima for 512-bit lines. Fewer probes than the
  // non-local optimum (0.69 * bits/key) because the probes of all keys of a
  // line compete for 512 bits whose load varies line to line. 14001, 22001
  // and 25501 are nudged so that common settings stay within one AVX2 round
  // (k <= 8) or two (k <= 16). The formula above 25501 really does give 11
  // for 25502..27999 (a dip below the 12 of 22002..25501); it is RocksDB's
  // behaviour and choose_num_probes.json records it.
  const int m = millibits_per_key;
  if (m <= 2080) return 1;
  if (m <= 3580) return 2;
  if (m <= 5100) return 3;
  if (m <= 6640) return 4;
  if (m <= 8300) return 5;
  if (m <= 10070) return 6;
  if (m <= 11720) return 7;
  if (m <= 14001) return 8;
  if (m <= 16050) return 9;
  if (m <= 18300) return 10;
  if (m <= 22001) return 11;
  if (m <= 25501) return 12;
  if (m > 50000) return 24;  // three AVX2 rounds at most
  return (m - 1) / 2000 - 1;
}

uint32_t DataBytesForKeys(uint64_t num_keys, int millibits_per_key) {
  const uint64_t mbpk = static_cast<uint64_t>(std::max(millibits_per_key, 1));
  // ceil(n * mbpk / 8000), capped as RocksDB caps it (also keeps n * mbpk from overflowing).
  const bool huge = num_keys > (UINT64_MAX - 7999) / mbpk;
  const uint64_t raw = huge ? kMaxDataBytes : std::min<uint64_t>((num_keys * mbpk + 7999) / 8000, kMaxDataBytes);
  return static_cast<uint32_t>((raw + kLineBytes - 1) / kLineBytes * kLineBytes);
}

std::vector<std::string> KernelChoices() {
  std::vector<std::string> out = {"auto", "scalar"};
#if defined(FILTERLAB_FASTLOCAL_AVX2)
  out.push_back("avx2");
#endif
#if defined(FILTERLAB_FASTLOCAL_AVX512)
  out.push_back("avx512");
#endif
  return out;
}

ProbePlan PlanProbes(int num_probes, KernelChoice choice) {
  switch (choice) {
    case KernelChoice::kScalar: return ProbePlan{ProbeKernel::kScalar, 0};
    case KernelChoice::kAvx2: return ProbePlan{ProbeKernel::kAvx2, 0};
    case KernelChoice::kAuto:
    case KernelChoice::kAvx512: break;
  }
  return PlanProbes(num_probes);
}

namespace {

bool IsLineAligned(const void* p) { return reinterpret_cast<uintptr_t>(p) % kLineBytes == 0; }

// AddToLine with the line seen as eight little-endian u64 words: bit b of the
// line (byte b / 8, bit b % 8) is bit b % 64 of word b / 64 on a
// little-endian host (CMake checks), so a probe costs one OR into memory and
// a shift instead of a byte read-modify-write with two masks: ~6 instructions
// per probe instead of ~9. Same bits as AddToLine.
template <int kFixedProbes>
inline void AddToLineWords(uint32_t h2, int num_probes, uint8_t* line) {
  const int probes = kFixedProbes > 0 ? kFixedProbes : num_probes;
  uint32_t x = h2;
  for (int i = 0; i < probes; ++i) {
    const uint32_t bit = x >> 23;
    uint8_t* word_at = line + (bit >> 6) * 8;
    uint64_t word;
    std::memcpy(&word, word_at, 8);
    word |= uint64_t{1} << (bit & 63);
    std::memcpy(word_at, &word, 8);
    x *= kGoldenRatio32;
  }
}

// kFixedProbes > 0: the probe loop is fully unrolled for that count (the
// common ChooseNumProbes results); 0: any count. kAligned: every line starts
// a hardware cache line, so one prefetch per line suffices. (It is a template
// parameter, not a runtime flag, because GCC 12 at -O1 and above deleted
// every prefetch of this loop when the second one was under `if (!aligned)`:
// the build then ran with no prefetch at all, ~58 ns/key into a 125 MB filter.)
template <int kFixedProbes, bool kAligned>
void AddAllImpl(const uint64_t* hashes, size_t n, HashWidth width, uint32_t len_bytes, int num_probes, uint8_t* data) {
  // Software pipeline: the line of hash i+kDepth is located and prefetched
  // while hash i is added, so kDepth cache misses are in flight instead of
  // one. The line is located again when its hash is added (a multiply and a
  // shift): cheaper than keeping a ring of prepared offsets. Building a
  // 10^8-key filter (125 MB, 2 MiB pages, 2-core VM, key generation
  // included): 2.9 / 2.1-2.5 / 1.8-2.2 s at depth 8 / 16 / 32.
  constexpr size_t kDepth = 32;
  const uint32_t lines = len_bytes >> 6;
  auto line_of = [&](uint64_t hash) { return data + (size_t{FastRange32(Lower32(hash), lines)} << 6); };
  auto prefetch = [&](size_t i) {
    uint8_t* line = line_of(hashes[i]);
    __builtin_prefetch(line, 1, 1);
    if constexpr (!kAligned) __builtin_prefetch(line + 63, 1, 1);  // an unaligned line spans two hardware lines
  };
  for (size_t i = 0; i < std::min(n, kDepth); ++i) prefetch(i);
  for (size_t i = 0; i < n; ++i) {
    if (i + kDepth < n) prefetch(i + kDepth);
    const uint64_t hash = hashes[i];
    AddToLineWords<kFixedProbes>(Split(hash, width).probe_hash, num_probes, line_of(hash));
  }
}

template <int kFixedProbes>
void AddAllForProbes(const uint64_t* hashes, size_t n, HashWidth width, uint32_t len_bytes, int num_probes,
                     uint8_t* data) {
  if (IsLineAligned(data)) return AddAllImpl<kFixedProbes, true>(hashes, n, width, len_bytes, num_probes, data);
  AddAllImpl<kFixedProbes, false>(hashes, n, width, len_bytes, num_probes, data);
}

}  // namespace

void AddAll(const uint64_t* hashes, size_t n, HashWidth width, uint32_t len_bytes, int num_probes, uint8_t* data) {
  switch (num_probes) {
    case 4: return AddAllForProbes<4>(hashes, n, width, len_bytes, num_probes, data);
    case 5: return AddAllForProbes<5>(hashes, n, width, len_bytes, num_probes, data);
    case 6: return AddAllForProbes<6>(hashes, n, width, len_bytes, num_probes, data);
    case 7: return AddAllForProbes<7>(hashes, n, width, len_bytes, num_probes, data);
    case 8: return AddAllForProbes<8>(hashes, n, width, len_bytes, num_probes, data);
    default: return AddAllForProbes<0>(hashes, n, width, len_bytes, num_probes, data);
  }
}

namespace {

constexpr char kVariantName[] = "fastlocal";
constexpr int8_t kNewBloomMarker = -1;
constexpr uint8_t kSubImplFastLocal = 0;

// The FilterView of a FastLocalBloom filter: data = the bit array, param =
// lines | lanes << 32 | num_probes << 48 (ProbePlan). Its ops are chosen per
// hash width, probe kernel and line alignment, and an empty filter gets ops
// that answer false, so a query through the view branches on nothing: it
// locates the line (h1 = the low 32 bits in both widths) and runs the kernel.
constexpr uint64_t ViewParam(uint32_t lines, int num_probes, uint16_t lanes) {
  return uint64_t{lines} | uint64_t{lanes} << 32 | uint64_t(static_cast<uint8_t>(num_probes)) << 48;
}
inline const uint8_t* ViewLine(const FilterView& view, uint64_t hash) {
  const auto lines = static_cast<uint32_t>(view.param);
  return static_cast<const uint8_t*>(view.data) + (size_t{FastRange32(Lower32(hash), lines)} << 6);
}

template <HashWidth kWidth, ProbeKernel kKernel>
bool ViewMayContain(const FilterView& view, uint64_t hash) {
  return MayMatchLinePlanned<kKernel>(Split(hash, kWidth).probe_hash, static_cast<int>(view.param >> 48),
                                      static_cast<uint16_t>(view.param >> 32), ViewLine(view, hash));
}

template <bool kAligned>
void ViewPrefetch(const FilterView& view, uint64_t hash) {
  if constexpr (kAligned) {
    PrefetchAlignedLineForRead(ViewLine(view, hash));
  } else {
    PrefetchLineForRead(ViewLine(view, hash));
  }
}

// Locates and prefetches every line of a chunk, then probes: the misses
// overlap. Chunks of 64 cover any MultiGet batch (RocksDB's is <= 32); more
// prefetches in flight than the core has fill buffers gain nothing. Uses the
// view's planned kernel, so a batch costs no more per query than MayContain
// on a hot filter. (The batch path this replaced, an AVX-512 kernel probing
// two queries' lines per round with the lanes re-derived from num_probes,
// measured 3.15 ns/op net for a hot batch of 16 against 1.4-1.8 now.)
template <HashWidth kWidth, ProbeKernel kKernel, bool kAligned>
void ViewMayContainBatch(const FilterView& view, const uint64_t* hashes, size_t n, bool* results) {
  constexpr size_t kChunk = 64;
  const uint8_t* lines[kChunk];
  const int num_probes = static_cast<int>(view.param >> 48);
  const auto lanes = static_cast<uint16_t>(view.param >> 32);
  for (size_t start = 0; start < n; start += kChunk) {
    const size_t m = std::min(kChunk, n - start);
    for (size_t i = 0; i < m; ++i) {
      lines[i] = ViewLine(view, hashes[start + i]);
      if constexpr (kAligned) {
        PrefetchAlignedLineForRead(lines[i]);
      } else {
        PrefetchLineForRead(lines[i]);
      }
    }
    for (size_t i = 0; i < m; ++i) {
      results[start + i] =
          MayMatchLinePlanned<kKernel>(Split(hashes[start + i], kWidth).probe_hash, num_probes, lanes, lines[i]);
    }
  }
}

template <HashWidth kWidth, ProbeKernel kKernel, bool kAligned>
constexpr FilterView::Ops kViewOps{&ViewMayContain<kWidth, kKernel>, &ViewPrefetch<kAligned>,
                                   &ViewMayContainBatch<kWidth, kKernel, kAligned>};

template <HashWidth kWidth, ProbeKernel kKernel>
const FilterView::Ops* ViewOpsFor(bool aligned) {
  return aligned ? &kViewOps<kWidth, kKernel, true> : &kViewOps<kWidth, kKernel, false>;
}

template <HashWidth kWidth>
const FilterView::Ops* ViewOpsFor(ProbeKernel kernel, bool aligned) {
  switch (kernel) {
    case ProbeKernel::kUpto8: return ViewOpsFor<kWidth, ProbeKernel::kUpto8>(aligned);
    case ProbeKernel::kUpto16: return ViewOpsFor<kWidth, ProbeKernel::kUpto16>(aligned);
    case ProbeKernel::kScalar: return ViewOpsFor<kWidth, ProbeKernel::kScalar>(aligned);
#if defined(FILTERLAB_FASTLOCAL_AVX2)
    case ProbeKernel::kAvx2: return ViewOpsFor<kWidth, ProbeKernel::kAvx2>(aligned);
#else
    case ProbeKernel::kAvx2: break;  // Create refuses kernel=avx2 without AVX2
#endif
    case ProbeKernel::kGeneral: break;
  }
  return ViewOpsFor<kWidth, ProbeKernel::kGeneral>(aligned);
}

FilterView MakeView(const uint8_t* data, uint32_t len_bytes, int num_probes, HashWidth width, KernelChoice kernel) {
  if (len_bytes == 0) return FilterView{&kEmptyViewOps, data, 0};
  const ProbePlan plan = PlanProbes(num_probes, kernel);
  const bool aligned = IsLineAligned(data);
  const FilterView::Ops* ops = width == HashWidth::k64 ? ViewOpsFor<HashWidth::k64>(plan.kernel, aligned)
                                                       : ViewOpsFor<HashWidth::k32>(plan.kernel, aligned);
  return FilterView{ops, data, ViewParam(len_bytes >> 6, num_probes, plan.lanes)};
}

class FastLocalBloomFilter final : public Filter {
 public:
  // A built filter owns its 64-byte-aligned bits.
  // kernel: the query kernel of its view (the spec's kernel=; not serialized).
  FastLocalBloomFilter(CacheAlignedArray<uint8_t> bits, int num_probes, HashWidth width, KernelChoice kernel)
      : owned_(std::move(bits)),
        data_(owned_.data()),
        len_bytes_(static_cast<uint32_t>(owned_.size())),
        num_probes_(num_probes),
        width_(width),
        view_(MakeView(data_, len_bytes_, num_probes_, width_, kernel)) {}
  // An opened filter views bytes its caller keeps alive.
  FastLocalBloomFilter(Slice view, int num_probes, HashWidth width)
      : data_(view.udata()),
        len_bytes_(static_cast<uint32_t>(view.size())),
        num_probes_(num_probes),
        width_(width),
        view_(MakeView(data_, len_bytes_, num_probes_, width_, KernelChoice::kAuto)) {}

  // Through the view's ops (a tail call): one query code path for the object
  // and the view, specialised for this filter's width and probe count.
  bool MayContain(uint64_t hash) const override { return view_.MayContain(hash); }

  // The line MayContain(hash) will read.
  void Prefetch(uint64_t hash) const override { view_.Prefetch(hash); }

  FilterView View() const override { return view_; }

  void MayContainBatch(const uint64_t* hashes, size_t n, bool* results) const override {
    view_.MayContainBatch(hashes, n, results);
  }

  size_t DataBytes() const override { return len_bytes_; }

  void Serialize(std::string* out) const override {
    const char* bytes = reinterpret_cast<const char*>(data_);
    if (width_ == HashWidth::k32) {
      AppendWithFilterlabTrailer(Slice(bytes, len_bytes_), Describe(), out);
      return;
    }
    if (len_bytes_ == 0) return;  // RocksDB writes an empty filter for no keys
    out->append(bytes, len_bytes_);
    const char trailer[kTrailerBytes] = {static_cast<char>(kNewBloomMarker), static_cast<char>(kSubImplFastLocal),
                                         static_cast<char>(num_probes_), 0, 0};
    out->append(trailer, kTrailerBytes);
  }

  std::string Describe() const override {
    return std::string(kVariantName) + ":hash=" + HashWidthText(width_) + ",probes=" + std::to_string(num_probes_) +
           ",bytes=" + std::to_string(len_bytes_);
  }

  HashWidth hash_width() const override { return width_; }

  // Queries through `kernel` from now on (same answers; OpenForPolicy).
  void UseKernel(KernelChoice kernel) { view_ = MakeView(data_, len_bytes_, num_probes_, width_, kernel); }

 private:
  CacheAlignedArray<uint8_t> owned_;
  const uint8_t* data_;
  uint32_t len_bytes_;
  int num_probes_;
  HashWidth width_;
  FilterView view_;
};

class FastLocalBloomPolicy final : public FilterPolicy {
 public:
  // kernel_name: the spec's kernel= text, which names `kernel`.
  FastLocalBloomPolicy(int millibits_per_key, int num_probes, HashWidth width, KernelChoice kernel,
                       const std::string& kernel_name)
      : millibits_per_key_(millibits_per_key), num_probes_(num_probes), width_(width), kernel_(kernel) {
    // kernel= only where it is not auto, so the default's canonical spec is unchanged.
    spec_ = std::string(kVariantName) + ":bpk=" + FormatNumber(bits_per_key()) +
            ",probes=" + std::to_string(num_probes_) + ",hash=" + HashWidthText(width_) +
            (kernel == KernelChoice::kAuto ? "" : ",kernel=" + kernel_name);
  }

  const std::string& spec() const override { return spec_; }
  std::string_view variant() const override { return kVariantName; }
  HashWidth hash_width() const override { return width_; }
  double bits_per_key() const override { return millibits_per_key_ / 1000.0; }
  std::optional<int> num_probes() const override { return num_probes_; }
  KernelChoice kernel() const { return kernel_; }

  // RocksDB's GetSliceHash64 = XXPH3_64 (the XXH3 preview its format is tied to).
  uint64_t HashKey(Slice key) const override {
    const uint64_t h = XXPH3_64(key.data(), key.size());
    return width_ == HashWidth::k64 ? h : Lower32(h);
  }

  Status Build(const uint64_t* hashes, size_t n, std::unique_ptr<Filter>* out) const override {
    CacheAlignedArray<uint8_t> bits(n == 0 ? 0 : DataBytesForKeys(n, millibits_per_key_));
    if (n != 0) AddAll(hashes, n, width_, static_cast<uint32_t>(bits.size()), num_probes_, bits.data());
    *out = std::make_unique<FastLocalBloomFilter>(std::move(bits), num_probes_, width_, kernel_);
    return Status::OK();
  }

  // The 512-bit line mixture for the distinct hashes the keys leave, with the
  // matches of equal hashes (fast_local_bloom.h).
  double ModelFpRate(size_t n) const override {
    if (n == 0) return 0.0;
    const double bits = 8.0 * DataBytesForKeys(n, millibits_per_key_);
    return fpmodel::NarrowHashFpRate(static_cast<double>(n), static_cast<int>(width_), [&](double distinct) {
      return fpmodel::CacheLocalIdealFpRate(bits / distinct, num_probes_, 8 * kLineBytes);
    });
  }

 private:
  int millibits_per_key_;
  int num_probes_;
  HashWidth width_;
  KernelChoice kernel_;
  std::string spec_;
};

Status Create(FilterSpec& spec, std::unique_ptr<FilterPolicy>* out) {
  int millibits = 0;
  Status s = rocksdb_bpk::GetMillibitsPerKey(spec, &millibits);
  if (!s.ok()) return s;
  int probes = 0;
  s = spec.GetInt("probes", ChooseNumProbes(millibits), kMinProbes, kMaxProbes, &probes);
  if (!s.ok()) return s;
  HashWidth width = HashWidth::k64;
  s = spec.GetHashWidth(HashWidth::k64, {HashWidth::k64, HashWidth::k32}, &width);
  if (!s.ok()) return s;
  std::string kernel_name = "auto";
  if (spec.GetRaw("kernel", &kernel_name)) {
    const std::vector<std::string> kernels = KernelChoices();
    if (std::find(kernels.begin(), kernels.end(), kernel_name) == kernels.end()) {
      std::string allowed;
      for (const auto& k : kernels) allowed += (allowed.empty() ? "" : "|") + k;
      return Status::InvalidArgument("fastlocal: kernel=" + kernel_name + " is not allowed; this build allows kernel=" +
                                     allowed + " (the query kernel; avx2 and avx512 only where compiled in)");
    }
  }
  s = spec.Finish({"bpk", "probes", "hash", "kernel"});
  if (!s.ok()) return s;
  const KernelChoice kernel = kernel_name == "scalar"   ? KernelChoice::kScalar
                              : kernel_name == "avx2"   ? KernelChoice::kAvx2
                              : kernel_name == "avx512" ? KernelChoice::kAvx512
                                                        : KernelChoice::kAuto;
  *out = std::make_unique<FastLocalBloomPolicy>(millibits, probes, width, kernel, kernel_name);
  return Status::OK();
}

// Reader for filterlab's trailer (hash=32 filters; hash=64 ones are accepted
// too). Layout: "fastlocal:hash=H,probes=K,bytes=N".
Status OpenLayout(FilterSpec& layout, Slice data, std::unique_ptr<Filter>* out) {
  for (const char* key : {"hash", "probes", "bytes"}) {
    if (!layout.Has(key)) {
      return Status::Corruption("fastlocal layout '" + layout.text() + "' lacks '" + key +
                                "' (expected fastlocal:hash=64|32,probes=1..30,bytes=N)");
    }
  }
  HashWidth width = HashWidth::k64;
  int probes = 0;
  long long bytes = 0;
  Status s = layout.GetHashWidth(HashWidth::k64, {HashWidth::k64, HashWidth::k32}, &width);
  if (s.ok()) s = layout.GetInt("probes", 0, kMinProbes, kMaxProbes, &probes);
  if (s.ok()) s = layout.GetInt("bytes", 0LL, 0LL, static_cast<long long>(kMaxDataBytes), &bytes);
  if (s.ok()) s = layout.Finish({"hash", "probes", "bytes"});
  if (!s.ok()) return Status::Corruption(s.message());
  if (bytes % kLineBytes != 0) {
    return Status::Corruption("fastlocal layout '" + layout.text() + "': bytes=" + std::to_string(bytes) +
                              " is not a multiple of 64 (FastLocalBloom is made of whole 64-byte lines)");
  }
  if (static_cast<size_t>(bytes) != data.size()) {
    return Status::Corruption("fastlocal layout '" + layout.text() + "' says " + std::to_string(bytes) +
                              " data bytes but the filter has " + std::to_string(data.size()) +
                              " (truncated or corrupted)");
  }
  *out = std::make_unique<FastLocalBloomFilter>(data, probes, width);
  return Status::OK();
}

std::string Hex2(uint8_t b) {
  static const char* digits = "0123456789abcdef";
  return std::string("0x") + digits[b >> 4] + digits[b & 15];
}

// RocksDB's native form (§1.8). RocksDB answers "always true" for any trailer
// field it does not understand (a safe fallback for filters from newer
// versions); filterlab is strict instead and reports Corruption naming the
// byte, because here an unexpected value means a bug or damaged bytes.
Status OpenNative(Slice bytes, std::unique_ptr<Filter>* out) {
  if (bytes.size() < kTrailerBytes || static_cast<int8_t>(bytes[bytes.size() - kTrailerBytes]) != kNewBloomMarker) {
    return Status::NotFound("not a FastLocalBloom filter (its trailer starts with byte 0xff)");
  }
  const size_t len = bytes.size() - kTrailerBytes;
  const uint8_t* t = bytes.udata() + len;
  const std::string where = "FastLocalBloom trailer byte at offset ";
  if (t[1] != kSubImplFastLocal) {
    return Status::Corruption(where + std::to_string(len + 1) + " (sub-implementation) is " + Hex2(t[1]) +
                              "; allowed: 0x00 (FastLocalBloom)");
  }
  const int probes = t[2] & 31;
  const int block_size_code = t[2] >> 5;
  if (block_size_code != 0) {
    return Status::Corruption(where + std::to_string(len + 2) + " is " + Hex2(t[2]) + ": block-size bits 5..7 are " +
                              std::to_string(block_size_code) + " (" + std::to_string(64 << block_size_code) +
                              "-byte blocks); allowed: 0 (64-byte blocks)");
  }
  if (probes < kMinProbes || probes > kMaxProbes) {
    return Status::Corruption(where + std::to_string(len + 2) + " is " + Hex2(t[2]) + ": num_probes " +
                              std::to_string(probes) + "; allowed: 1..30");
  }
  if (t[3] != 0 || t[4] != 0) {
    return Status::Corruption(where + std::to_string(len + 3) + ".." + std::to_string(len + 4) + " (reserved) are " +
                              Hex2(t[3]) + " " + Hex2(t[4]) + "; allowed: 0x00 0x00");
  }
  // RocksDB does not check the length itself (it ignores a partial line);
  // every FastLocalBloom it writes is whole lines, so anything else is damage.
  if (len % kLineBytes != 0 || len > kMaxDataBytes) {
    return Status::Corruption("FastLocalBloom data length " + std::to_string(len) +
                              " (filter size minus 5-byte trailer) is not a multiple of 64 up to " +
                              std::to_string(kMaxDataBytes) + "; the filter is truncated or corrupted");
  }
  *out = std::make_unique<FastLocalBloomFilter>(Slice(bytes.data(), len), probes, HashWidth::k64);
  return Status::OK();
}

// OpenFilterFor (policy_open.h): the bytes opened as OpenFilter opens them,
// then queried through the kernel the policy's spec chose.
Status OpenForPolicy(const FilterPolicy& policy, Slice bytes, std::unique_ptr<Filter>* out) {
  std::unique_ptr<Filter> f;
  Status s = OpenFilter(bytes, &f);
  if (!s.ok()) return s;
  const auto* p = dynamic_cast<const FastLocalBloomPolicy*>(&policy);
  if (p != nullptr && p->kernel() != KernelChoice::kAuto) {
    auto* fl = dynamic_cast<FastLocalBloomFilter*>(f.get());
    // An empty filter (no keys) opens as an always-false filter: no kernel to choose.
    if (fl != nullptr) fl->UseKernel(p->kernel());
  }
  *out = std::move(f);
  return Status::OK();
}

const bool kPolicyOpenerRegistered = RegisterPolicyOpener(kVariantName, &OpenForPolicy);

}  // namespace

std::unique_ptr<Filter> NewFastLocalBloomView(Slice data, int num_probes, HashWidth width) {
  return std::make_unique<FastLocalBloomFilter>(data, num_probes, width);
}

// hash=64 (RocksDB's) is exact; hash=32, whose line and probes come from one
// 32-bit value, is an approximation (fast_local_bloom.h, "FP model").
constexpr double kHash32ModelError = 0.003;
FpModelKind FastLocalModelKind(const FilterPolicy& policy) {
  return policy.hash_width() == HashWidth::k32 ? FpModelKind::kApproximation : FpModelKind::kExact;
}

FILTERLAB_REGISTER_FILTER(FilterVariant{
    kVariantName,
    "RocksDB format_version=5 Bloom (FastLocalBloom): one 64-byte line per key, probes by multiply, bit-exact",
    "bpk=0.5..100 (default 10; below 1 raised to 1 as RocksDB does) probes=1..30 (default RocksDB's "
    "ChooseNumProbes) hash=64|32 (default 64 = RocksDB's XXPH3 split; 32 uses filterlab's trailer) "
    "kernel=auto|scalar|avx2|avx512 (the query kernel, same answers; default auto = the fastest compiled in)",
    &Create,
    &OpenLayout,
    &OpenNative,
    {"fastlocal:bpk=10", "fastlocal:bpk=10,hash=32"},
    FpModelKind::kExact,
    &FastLocalModelKind,
    /*has_probes=*/true,
    /*fp_model_max_relative_error=*/kHash32ModelError});

}  // namespace filterlab::fastlocal
