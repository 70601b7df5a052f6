// prefix_bloom: RocksDB's prefix Bloom filter as a range filter. Variant
// "prefix_bloom:prefix=P,bpk=B,whole_key=0|1".
//
// What it is. A fixed-length prefix extractor (RocksDB's
// NewFixedPrefixTransform(P)) maps each key of at least P bytes (its
// "domain") to its first P bytes; the filter is a FastLocalBloom
// (fast_local_bloom.h, the same lines and probes, hashed with XXPH3_64 as
// RocksDB hashes keys) holding every distinct prefix and, with whole_key=1
// (RocksDB's whole_key_filtering), every whole key too. A uint64 key is its 8
// big-endian bytes, so P = 6 buckets uint64 keys by their top 48 bits.
//
// Range rule (RocksDB's BlockBasedTable::PrefixRangeMayMatch with
// IsFilterCompatible, table/block_based/block_based_table_reader.cc): a range
// [lo, hi] is answered by the filter only when lo is in the domain and hi has
// the same P-byte prefix; then every key inside it has that prefix (bytewise
// order keeps a common prefix between its ends), so "prefix absent" proves
// the range empty. Otherwise the answer is true. A point query (lo == hi)
// with whole_key=1 asks for the whole key, as RocksDB's Get does; with
// whole_key=0 it asks for the prefix.
//
// FP model (kind exact, FastLocalBloom's). bpk is the budget per key of the
// key set: m = roundup64(ceil(B n / 8)) bytes hold the E entries (distinct
// prefixes + whole keys), probes k = ChooseNumProbes(1000 B n / E). An entry
// absent from the filter matches with p = CacheLocalIdealFpRate(8m/E, k, 512)
// (the line mixture of fast_local_bloom.h; 64-bit hashes). An empty query is
//   1  when the rule cannot answer it (lo out of domain, or hi's prefix
//      differs: ranges crossing a prefix boundary),
//   1  when its prefix is stored (a key shares it; correlated queries near a
//      key land here, the heuristic's failure the report shows),
//   p  otherwise (and p for a point query with whole_key=1).
// The filter's QueryModelFp evaluates that per query against the sorted keys;
// ModelFpRate(n, L) is the uncorrelated case for uint64 keys spread over
// the universe: the chance L - 1 of the 2^(64-8P) values of a prefix bucket
// reach past its end, plus p for the rest, assuming one entry per key.
#include <algorithm>
#include <climits>
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "common/aligned_array.h"
#include "filters/fast_local_bloom.h"
#include "filters/filter_spec.h"
#include "filters/range/local_bloom_bits.h"
#include "filters/range/range_filter.h"
#include "filters/range/range_serialization.h"
#include "filters/registry.h"
#include "hashing/xxh3.h"

namespace filterlab::prefix_bloom {
namespace {

constexpr char kVariantName[] = "prefix_bloom";
constexpr int kMaxPrefixBytes = 1024;

uint64_t HashBytes(const char* p, size_t n) { return XXPH3_64(p, n); }

// The first `prefix` bytes of a uint64 key's big-endian form (prefix <= 8).
uint64_t HashUint64Prefix(uint64_t key, int prefix) {
  char b[8];
  EncodeBigEndian64(key, b);
  return HashBytes(b, static_cast<size_t>(prefix));
}

// The FastLocalBloom bits and what a query needs to read them.
struct PrefixBloomShape {
  int prefix;
  bool whole_key;
  int probes;
  uint64_t keys;
  uint64_t entries;
};

std::string LayoutOf(const PrefixBloomShape& s, size_t bytes) {
  return std::string(kVariantName) + ":prefix=" + std::to_string(s.prefix) + ",whole_key=" + (s.whole_key ? "1" : "0") +
         ",probes=" + std::to_string(s.probes) + ",keys=" + std::to_string(s.keys) +
         ",entries=" + std::to_string(s.entries) + ",bytes=" + std::to_string(bytes);
}

class PrefixBloomFilter final : public RangeFilter {
 public:
  PrefixBloomFilter(PrefixBloomShape shape, CacheAlignedArray<uint8_t> owned)
      : shape_(shape), owned_(std::move(owned)), data_(owned_.data()), bytes_(owned_.size()) {}
  PrefixBloomFilter(PrefixBloomShape shape, Slice view) : shape_(shape), data_(view.udata()), bytes_(view.size()) {}

  bool MayContainRange(uint64_t lo, uint64_t hi) const override {
    if (lo == hi && shape_.whole_key) return MayContain(lo);
    if (shape_.prefix > 8) return true;       // an 8-byte key is outside the domain
    const int drop = 64 - 8 * shape_.prefix;  // 0..56
    if ((lo >> drop) != (hi >> drop)) return true;
    return Probe(HashUint64Prefix(lo, shape_.prefix));
  }
  bool MayContain(uint64_t key) const override {
    if (shape_.whole_key) {
      char b[8];
      EncodeBigEndian64(key, b);
      return Probe(HashBytes(b, 8));
    }
    if (shape_.prefix > 8) return true;
    return Probe(HashUint64Prefix(key, shape_.prefix));
  }
  bool MayContainBytesRange(Slice lo, Slice hi) const override {
    if (lo.size() == hi.size() && lo.compare(hi) == 0 && shape_.whole_key) return MayContainBytes(lo);
    const auto p = static_cast<size_t>(shape_.prefix);
    if (lo.size() < p || hi.size() < p || std::memcmp(lo.data(), hi.data(), p) != 0) return true;
    return Probe(HashBytes(lo.data(), p));
  }
  bool MayContainBytes(Slice key) const override {
    if (shape_.whole_key) return Probe(HashBytes(key.data(), key.size()));
    const auto p = static_cast<size_t>(shape_.prefix);
    if (key.size() < p) return true;
    return Probe(HashBytes(key.data(), p));
  }

  uint64_t num_keys() const override { return shape_.keys; }
  size_t DataBytes() const override { return bytes_; }
  void Serialize(std::string* out) const override { AppendRangeFilterBytes(Slice(data_, bytes_), Describe(), out); }
  std::string Describe() const override { return LayoutOf(shape_, bytes_); }

  double QueryModelFp(const uint64_t* keys, size_t n, uint64_t lo, uint64_t hi) const override {
    const double p = EntryFpRate();
    if (lo == hi && shape_.whole_key) return p;
    if (shape_.prefix > 8) return 1.0;
    const int drop = 64 - 8 * shape_.prefix;  // 0..56
    const uint64_t bucket_lo = (lo >> drop) << drop;
    const uint64_t bucket_hi = bucket_lo | ((uint64_t{1} << drop) - 1);
    if (hi > bucket_hi) return 1.0;
    const uint64_t* it = std::lower_bound(keys, keys + n, bucket_lo);
    return (it != keys + n && *it <= bucket_hi) ? 1.0 : p;
  }

 private:
  // FastLocalBloom's line mixture for this filter's entries and bits.
  double EntryFpRate() const { return local_bloom::FpRate(bytes_, shape_.entries, shape_.probes); }

  bool Probe(uint64_t hash) const {
    if (bytes_ == 0) return false;  // no entries: no key is in the set's domain
    return local_bloom::MayContain(data_, bytes_, shape_.probes, hash);
  }

  PrefixBloomShape shape_;
  CacheAlignedArray<uint8_t> owned_;
  const uint8_t* data_;
  size_t bytes_;
};

class PrefixBloomPolicy final : public RangeFilterPolicy {
 public:
  PrefixBloomPolicy(int prefix, double bpk, bool whole_key) : prefix_(prefix), bpk_(bpk), whole_key_(whole_key) {
    spec_ = std::string(kVariantName) + ":prefix=" + std::to_string(prefix) + ",bpk=" + FormatNumber(bpk) +
            ",whole_key=" + (whole_key ? "1" : "0");
  }

  const std::string& spec() const override { return spec_; }
  std::string_view variant() const override { return kVariantName; }
  unsigned key_types() const override { return kRangeKeysUint64 | kRangeKeysBytes; }
  double bits_per_key() const override { return bpk_; }

  Status Build(const uint64_t* keys, size_t n, std::unique_ptr<RangeFilter>* out) const override {
    Status s = CheckSortedUnique(keys, n);
    if (!s.ok()) return s;
    std::vector<uint64_t> hashes;
    hashes.reserve(whole_key_ ? 2 * n : n);
    for (size_t i = 0; i < n; ++i) {
      if (prefix_ <= 8) {
        const int drop = 64 - 8 * prefix_;  // 0..56
        if (i == 0 || (keys[i] >> drop) != (keys[i - 1] >> drop)) hashes.push_back(HashUint64Prefix(keys[i], prefix_));
      }
      if (whole_key_) {
        char b[8];
        EncodeBigEndian64(keys[i], b);
        hashes.push_back(HashBytes(b, 8));
      }
    }
    return Finish(n, &hashes, out);
  }

  Status BuildBytes(const Slice* keys, size_t n, std::unique_ptr<RangeFilter>* out) const override {
    Status s = CheckSortedUnique(keys, n);
    if (!s.ok()) return s;
    const auto p = static_cast<size_t>(prefix_);
    std::vector<uint64_t> hashes;
    hashes.reserve(whole_key_ ? 2 * n : n);
    const Slice* last_in_domain = nullptr;
    for (size_t i = 0; i < n; ++i) {
      const Slice& k = keys[i];
      if (k.size() >= p) {
        // Sorted keys: equal prefixes are adjacent among the in-domain keys.
        if (last_in_domain == nullptr || std::memcmp(last_in_domain->data(), k.data(), p) != 0) {
          hashes.push_back(HashBytes(k.data(), p));
        }
        last_in_domain = &k;
      }
      if (whole_key_) hashes.push_back(HashBytes(k.data(), k.size()));
    }
    return Finish(n, &hashes, out);
  }

  double ModelFpRate(uint64_t n, uint64_t range_len) const override {
    if (n == 0) return 0.0;
    const uint64_t entries = whole_key_ ? 2 * n : n;
    const double p = EntryFpRate(n, entries);
    if (range_len == 1 && whole_key_) return p;
    if (prefix_ > 8) return 1.0;
    const double bucket = std::ldexp(1.0, 64 - 8 * prefix_);
    const double crossing = std::min(1.0, static_cast<double>(range_len - 1) / bucket);
    return crossing + (1 - crossing) * p;
  }

  uint64_t BuildMemoryBytes(uint64_t n) const override {
    const uint64_t entries = whole_key_ ? 2 * n : n;
    return entries * sizeof(uint64_t) + DataBytesFor(n);
  }

 private:
  uint64_t DataBytesFor(uint64_t n) const {
    return local_bloom::BytesForBits(std::ceil(bpk_ * static_cast<double>(n)));
  }
  double EntryFpRate(uint64_t n, uint64_t entries) const {
    const uint64_t bytes = DataBytesFor(n);
    return local_bloom::FpRate(bytes, entries, local_bloom::ProbesFor(bytes, entries));
  }

  Status Finish(size_t n, std::vector<uint64_t>* hashes, std::unique_ptr<RangeFilter>* out) const {
    // A key of exactly P bytes adds the same hash as its prefix: count it once.
    hashes->erase(std::unique(hashes->begin(), hashes->end()), hashes->end());
    const uint64_t entries = hashes->size();
    const uint64_t bytes = entries == 0 ? 0 : DataBytesFor(n);
    if (bytes > fastlocal::kMaxDataBytes) {
      return Status::InvalidArgument(spec_ + ": " + std::to_string(n) + " keys need " + std::to_string(bytes) +
                                     " filter bytes, more than FastLocalBloom's " +
                                     std::to_string(fastlocal::kMaxDataBytes));
    }
    PrefixBloomShape shape{prefix_, whole_key_, local_bloom::ProbesFor(bytes, entries), n, entries};
    CacheAlignedArray<uint8_t> bits(bytes);
    if (bytes != 0) {
      local_bloom::AddAll(hashes->data(), hashes->size(), bytes, shape.probes, bits.data());
    }
    *out = std::make_unique<PrefixBloomFilter>(shape, std::move(bits));
    return Status::OK();
  }

  int prefix_;
  double bpk_;
  bool whole_key_;
  std::string spec_;
};

Status Create(FilterSpec& spec, std::unique_ptr<RangeFilterPolicy>* out) {
  int prefix = 0;
  double bpk = 0;
  int whole_key = 0;
  Status s = spec.GetInt("prefix", 6, 1, kMaxPrefixBytes, &prefix);
  if (s.ok()) s = spec.GetDouble("bpk", 10.0, 1.0, 100.0, &bpk);
  if (s.ok()) s = spec.GetInt("whole_key", 0, 0, 1, &whole_key);
  if (s.ok()) s = spec.Finish({"prefix", "bpk", "whole_key"});
  if (!s.ok()) return s;
  *out = std::make_unique<PrefixBloomPolicy>(prefix, bpk, whole_key == 1);
  return Status::OK();
}

// Layout "prefix_bloom:prefix=P,whole_key=W,probes=K,keys=N,entries=E,bytes=M".
Status OpenLayout(FilterSpec& layout, Slice data, std::unique_ptr<RangeFilter>* out) {
  for (const char* key : {"prefix", "whole_key", "probes", "keys", "entries", "bytes"}) {
    if (!layout.Has(key)) return Status::Corruption("prefix_bloom layout '" + layout.text() + "' lacks '" + key + "'");
  }
  int prefix = 0, whole_key = 0, probes = 0;
  long long keys = 0, entries = 0, bytes = 0;
  Status s = layout.GetInt("prefix", 0, 1, kMaxPrefixBytes, &prefix);
  if (s.ok()) s = layout.GetInt("whole_key", 0, 0, 1, &whole_key);
  if (s.ok()) s = layout.GetInt("probes", 0, fastlocal::kMinProbes, fastlocal::kMaxProbes, &probes);
  if (s.ok()) s = layout.GetInt("keys", 0LL, 0LL, LLONG_MAX, &keys);
  if (s.ok()) s = layout.GetInt("entries", 0LL, 0LL, LLONG_MAX, &entries);
  if (s.ok()) s = layout.GetInt("bytes", 0LL, 0LL, static_cast<long long>(fastlocal::kMaxDataBytes), &bytes);
  if (s.ok()) s = layout.Finish({"prefix", "whole_key", "probes", "keys", "entries", "bytes"});
  if (!s.ok()) return Status::Corruption(s.message());
  if (bytes % fastlocal::kLineBytes != 0 || static_cast<size_t>(bytes) != data.size() ||
      (bytes == 0) != (entries == 0)) {
    return Status::Corruption("prefix_bloom layout '" + layout.text() + "' does not match its " +
                              std::to_string(data.size()) +
                              " data bytes (whole 64-byte lines, none exactly when there are no entries)");
  }
  const PrefixBloomShape shape{prefix, whole_key == 1, probes, static_cast<uint64_t>(keys),
                               static_cast<uint64_t>(entries)};
  *out = std::make_unique<PrefixBloomFilter>(shape, data);
  return Status::OK();
}

FILTERLAB_REGISTER_RANGE_FILTER(RangeFilterVariant{
    kVariantName,
    "RocksDB's prefix Bloom on FastLocalBloom bits: a fixed-length prefix extractor, optionally whole keys too; "
    "answers a range only when lo and hi share the prefix (PrefixRangeMayMatch)",
    "prefix=1..1024 (bytes; default 6; a uint64 key is 8 big-endian bytes) bpk=1..100 (bits per key of the key "
    "set, default 10) whole_key=0|1 (default 0: RocksDB's whole_key_filtering)",
    &Create,
    &OpenLayout,
    {"prefix_bloom:prefix=6,bpk=10", "prefix_bloom:prefix=7,bpk=16,whole_key=1"},
    kRangeKeysUint64 | kRangeKeysBytes,
    FpModelKind::kExact,
    /*dynamic=*/false});

}  // namespace
}  // namespace filterlab::prefix_bloom
