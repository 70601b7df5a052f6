// DynamicBloom: RocksDB's memtable Bloom filter (the 2019 rewrite, PR #5762),
// bit-exact with RocksDB for the 32-bit hash (RocksDB's
// util/dynamic_bloom.h since PR #5762), plus a 64-bit-hash form of the same layout. Unlike the SST filters it
// grows key by key: Add for a single writer, AddConcurrently for many, and
// MayContain safe alongside either.
//
// Layout. The array is kLen 64-bit words, grouped into aligned blocks of W
// words, W = the power of two >= D, where D = num_probes / 2 "double probes"
// (num_probes 1 is rounded up to one double probe, as RocksDB does). A key
// picks one word a (FastRange32 of its 32-bit hash h32 over kLen) and
// touches words a, a^1, ..., a^(D-1): all inside a's aligned block of W <= 8
// words, i.e. inside one 64-byte cache line (the array is 64-byte aligned).
// In each touched word it sets two bits, h & 63 and (h >> 6) & 63, of a
// remixed stream h = 0x9e3779b97f4a7c13 * h32, then rotates h right by 12:
// one multiply yields the 60 bits that five words need. The two bits may
// coincide (probability 1/64), which quietly loses a probe. The hash=64 form
// (filterlab's) takes the word from the whole hash and the stream from its
// low half; see Locate() for why.
//
// Cost: one cache miss per query and per add; D loads and tests of whole
// words (no per-bit address arithmetic). Memtable: 6 probes → 3 words.
//
// FP rate. Keys land on word offsets as independent Poisson counts; a key
// sets two independent, possibly equal, bits in each of its D words. The
// model fpmodel::TwoPerWordPoissonFpRate(b, D, W), b = 64 kLen / n actual
// bits/key, sums that exactly over the counts of the offsets whose words
// overlap the query's. Versus a 512-bit cache-local filter (one probe
// anywhere in the line) the smaller block and the pairing cost about 1.12x
// (published: 0.97% → 1.09% at 10 bits/key, 6 probes; the exact models give
// 0.958% → 1.090%, 1.14x) and about 3% more memory buys it back (the models
// meet at 10.33 bits/key), in exchange for the speed. With the 32-bit hash,
// keys whose 32-bit hashes are equal are indistinguishable: the n keys are
// D = DistinctHashes(n, 32) distinct hashes in the words, and a query whose
// hash is one of them (F = D / 2^32 ≈ n / 2^32) always matches, so the model
// is F + (1 - F) times the above at 64 kLen / D bits per hash
// (fpmodel::NarrowHashFpRate; about 1.1x at 5 million keys).
// hash=64 agrees with measurement to the sampling error (model_accuracy:
// 10^9 queries over 1000 filters of 10^6 keys at 6, 10, 16, 24 bits/key):
// exact. hash=32 is registered as an approximation: its word and its bits
// come from one 32-bit value, a = FastRange32(h32) and word i's pair from
// bits 12i..12i+11 of h32 * golden64, so the ~2^32/kLen hash values of one
// word offset form a lattice, and a query's pair pattern in word a XOR i
// repeats among its offset's other values less often than among independent
// draws (its own value takes one of the few places the lattice has for that
// pattern: the effect fpmodel::LegacyLineFpRate models for the legacy
// line). Fewer stored keys repeat the query's exact pair, so the rate is
// below the model, the more so the emptier the words: measured / model
// 0.9988, 0.9952, 0.9871, 0.9829 at 6, 10, 16, 24 bits/key (the registered
// error, 1.8%, in dynamic_bloom.cc).
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "common/aligned_array.h"
#include "common/status.h"
#include "filters/filter.h"
#include "filters/filter_spec.h"

namespace filterlab {

class DynamicBloom final : public Filter {
 public:
  // The probe counts RocksDB's DynamicBloom accepts: even and at most 10 (five
  // words × 12 bits exhaust one 64-bit remix), or 1, rounded up to 2.
  static constexpr int kAllowedProbes[] = {1, 2, 4, 6, 8, 10};
  static constexpr const char* kAllowedProbesText = "1, 2, 4, 6, 8, 10";
  // 2^37 bits = 16 GiB: far beyond any memtable, and it keeps kLen < 2^32 as
  // the 32-bit hash's FastRange32 requires.
  static constexpr uint64_t kMaxTotalBits = uint64_t{1} << 37;

  // An empty filter of at least `total_bits` bits (rounded up to whole
  // blocks), the way RocksDB's memtable sizes it from a byte budget. Fails
  // with InvalidArgument naming what is allowed if num_probes is not one of
  // kAllowedProbes or total_bits is 0 or above kMaxTotalBits.
  static Status Create(uint64_t total_bits, int num_probes, HashWidth hash_width, std::unique_ptr<DynamicBloom>* out);

  // Reader for the serialized form (registry open_layout): `layout` is the
  // Describe() text from the trailer. Gives a read-only filter (the query
  // side, SupportsAdd() false) with this filter's answers, which reads the
  // words in place where `data` is 64-byte aligned (the caller keeps it
  // alive, as OpenFilter requires) and copies them otherwise (see
  // OpenedDynamicBloom in the .cc). Corruption if layout and data disagree.
  static Status OpenLayout(FilterSpec& layout, Slice data, std::unique_ptr<Filter>* out);

  // kLen for RocksDB's rounding: whole blocks of W words. num_probes must be allowed.
  static size_t LenWords(uint64_t total_bits, int num_probes);
  // D: 64-bit words each key touches.
  static int DoubleProbes(int num_probes) { return (num_probes + (num_probes == 1)) / 2; }
  // W: words per aligned block, the next power of two >= D.
  static int BlockWords(int num_probes);

  // Through the view (one query path for the object and the view).
  bool MayContain(uint64_t hash) const override { return view_.MayContain(hash); }
  void MayContainBatch(const uint64_t* hashes, size_t n, bool* results) const override {
    view_.MayContainBatch(hashes, n, results);
  }
  // The key's one cache line (all its words share it).
  void Prefetch(uint64_t hash) const override { view_.Prefetch(hash); }
  // data = the live word array, so a view taken before adds sees them (with
  // the same relaxed loads as MayContain: safe alongside AddConcurrently);
  // param = kLen | D << 32. Valid while the filter lives.
  FilterView View() const override { return view_; }
  bool SupportsAdd() const override { return true; }
  void Add(uint64_t hash) override;
  void AddConcurrently(uint64_t hash) override;
  size_t DataBytes() const override { return words_.size() * sizeof(uint64_t); }
  void Serialize(std::string* out) const override;
  using Filter::Serialize;
  // "dynamic:hash=32,probes=6,total_bits=N,words=K".
  std::string Describe() const override;
  HashWidth hash_width() const override { return hash_width_; }

  uint64_t total_bits() const { return total_bits_; }
  int num_probes() const { return num_probes_; }
  size_t len_words() const { return words_.size(); }
  // Appends the kLen words as little-endian bytes (the serialized data part).
  void AppendData(std::string* out) const;
  // Reads word i (relaxed), for tests and tools.
  uint64_t Word(size_t i) const { return words_[i].load(std::memory_order_relaxed); }
  // The two-bit mask of the first touched word for `stream`; the next word's
  // mask comes from RotateRight64(stream, 12).
  static uint64_t PairMask(uint64_t stream) {
    return (uint64_t{1} << (stream & 63)) | (uint64_t{1} << ((stream >> 6) & 63));
  }

 private:
  DynamicBloom(uint64_t total_bits, int num_probes, HashWidth hash_width);

  uint64_t total_bits_;
  int num_probes_;
  int double_probes_;
  HashWidth hash_width_;
  CacheAlignedArray<std::atomic<uint64_t>> words_;
  FilterView view_;  // after words_: it points at them
};

}  // namespace filterlab
