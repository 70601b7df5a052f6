// The RocksDB FilterPolicy adapter (filter_policy_adapter.h).
//
// Cost on the read path, beyond RocksDB's own: one virtual HashKey call per
// key (RocksDB's built-in reader hashes inline) and the query through the
// filter's view (one indirect call; FastLocal's answers from the view's word
// of parameters and the cache line, as RocksDB's FastLocalBloomBitsReader).
// Batched MayMatch (MultiGet) hashes the whole batch and queries it with the
// filter's prefetching MayContainBatch, as RocksDB's readers prefetch theirs.
#include "rocksdb_adapter/filter_policy_adapter.h"

#include <rocksdb/table.h>

#include <cstring>
#include <vector>

#include "filters/keyed_filter.h"
#include "filters/rocksdb_native_filter.h"
#include "rocksdb_adapter/filter_bits_abi.h"

namespace filterlab::rocksdb_adapter {
namespace {

Slice FromRocks(const rocksdb::Slice& s) { return Slice(s.data(), s.size()); }

class AdapterBitsBuilder final : public rocksdb::FilterBitsBuilder {
 public:
  AdapterBitsBuilder(const FilterPolicy* policy, bool native_format, AdapterStats* stats,
                     rocksdb::FilterBitsBuilder* native)
      : policy_(policy), native_format_(native_format), stats_(stats), native_(native) {}

  void AddKey(const rocksdb::Slice& key) override {
    AddHashOnce(policy_->HashKey(FromRocks(key)));
    if (native_) native_->AddKey(key);
  }

#if FILTERLAB_ROCKSDB_AT_LEAST(9, 6)
  // A key and its prefix. Each is dropped when it repeats what was added
  // just before: a prefix equal to the previous prefix, to the previous key
  // or to its own key; a key equal to the previous key or prefix. The prefix
  // goes first, so the last hash held is always the last key's.
  void AddKeyAndAlt(const rocksdb::Slice& key, const rocksdb::Slice& alt) override {
    const uint64_t key_hash = policy_->HashKey(FromRocks(key));
    const uint64_t alt_hash = policy_->HashKey(FromRocks(alt));
    const bool have_prev_key = !hashes_.empty();
    const uint64_t prev_key = have_prev_key ? hashes_.back() : 0;
    const bool repeats_alt = have_prev_alt_ && alt_hash == prev_alt_;
    if (!repeats_alt && alt_hash != key_hash && !(have_prev_key && alt_hash == prev_key)) hashes_.push_back(alt_hash);
    const bool key_repeats = (have_prev_key && key_hash == prev_key) || (have_prev_alt_ && key_hash == prev_alt_);
    prev_alt_ = alt_hash;
    have_prev_alt_ = true;
    if (!key_repeats) hashes_.push_back(key_hash);
    if (native_) native_->AddKeyAndAlt(key, alt);
  }
#endif

  size_t EstimateEntriesAdded() override { return hashes_.size(); }

  rocksdb::Slice Finish(std::unique_ptr<const char[]>* buf) override {
    rocksdb::Status status;
    return Finish(buf, &status);
  }

  rocksdb::Slice Finish(std::unique_ptr<const char[]>* buf, rocksdb::Status* status) override {
    std::string block;
    std::unique_ptr<Filter> filter;
    Status s = policy_->Build(hashes_.data(), hashes_.size(), &filter);
    if (s.ok()) AppendKeyedFilter(*policy_, native_format_, *filter, &block);
    stats_->filters_built.fetch_add(1, std::memory_order_relaxed);
    stats_->entries_added.fetch_add(hashes_.size(), std::memory_order_relaxed);
    hashes_.clear();
#if FILTERLAB_ROCKSDB_AT_LEAST(9, 6)
    have_prev_alt_ = false;
#endif
    if (s.ok() && native_ != nullptr) s = CrossCheck(block);
    if (!s.ok()) {
      if (status != nullptr)
        *status = rocksdb::Status::Corruption("filterlab adapter (" + policy_->spec() + ")", s.ToString());
      buf->reset();
      return rocksdb::Slice();
    }
    char* bytes = new char[block.size()];
    std::memcpy(bytes, block.data(), block.size());
    buf->reset(bytes);
    return rocksdb::Slice(bytes, block.size());
  }

  // What RocksDB's partitioned filters cut partitions by: keys whose filter
  // fits in `bytes`, at the policy's bits per key (its requested bits; the
  // built filter may round up to whole lines or words).
  size_t ApproximateNumEntries(size_t bytes) override {
    const double bpk = policy_->bits_per_key() > 0 ? policy_->bits_per_key() : 10;
    return static_cast<size_t>(static_cast<double>(bytes) * 8 / bpk);
  }

#if FILTERLAB_ROCKSDB_AT_LEAST(10, 9)
  size_t CalculateSpace(size_t num_entries) override {
    const double bpk = policy_->bits_per_key() > 0 ? policy_->bits_per_key() : 10;
    return static_cast<size_t>(static_cast<double>(num_entries) * bpk / 8) + 5;
  }
  double EstimatedFpRate(size_t num_entries, size_t /*bytes*/) override { return policy_->ModelFpRate(num_entries); }
#endif

 private:
  void AddHashOnce(uint64_t h) {
    if (hashes_.empty() || hashes_.back() != h) hashes_.push_back(h);
  }

  // RocksDB's own builder got the same calls: its bytes must be ours.
  Status CrossCheck(const std::string& ours) {
    std::unique_ptr<const char[]> native_buf;
    rocksdb::Status native_status;
    const rocksdb::Slice native = native_->Finish(&native_buf, &native_status);
    stats_->cross_checked.fetch_add(1, std::memory_order_relaxed);
    if (!native_status.ok()) return Status::Corruption("RocksDB's own builder failed: " + native_status.ToString());
    if (native.size() != ours.size() || std::memcmp(native.data(), ours.data(), ours.size()) != 0) {
      size_t first = 0;
      while (first < ours.size() && first < native.size() && ours[first] == native.data()[first]) ++first;
      return Status::Corruption("cross-check failed: RocksDB's own policy wrote " + std::to_string(native.size()) +
                                " filter bytes, the adapter " + std::to_string(ours.size()) +
                                "; first difference at byte " + std::to_string(first));
    }
    stats_->cross_check_identical.fetch_add(1, std::memory_order_relaxed);
    return Status::OK();
  }

  const FilterPolicy* policy_;
  const bool native_format_;  // StoresNativeRocksDbFormat(*policy_)
  AdapterStats* stats_;
  std::unique_ptr<rocksdb::FilterBitsBuilder> native_;
  std::vector<uint64_t> hashes_;
#if FILTERLAB_ROCKSDB_AT_LEAST(9, 6)
  uint64_t prev_alt_ = 0;  // AddKeyAndAlt's last prefix hash
  bool have_prev_alt_ = false;
#endif
};

class AdapterBitsReader final : public rocksdb::FilterBitsReader {
 public:
  explicit AdapterBitsReader(KeyedFilter keyed) : keyed_(std::move(keyed)), view_(keyed_.filter->View()) {}

  bool MayMatch(const rocksdb::Slice& key) override { return view_.MayContain(keyed_.hasher->HashKey(FromRocks(key))); }

  void MayMatch(int num_keys, rocksdb::Slice** keys, bool* may_match) override {
    constexpr int kChunk = 64;
    uint64_t hashes[kChunk];
    for (int start = 0; start < num_keys; start += kChunk) {
      const int n = num_keys - start < kChunk ? num_keys - start : kChunk;
      for (int i = 0; i < n; ++i) hashes[i] = keyed_.hasher->HashKey(FromRocks(*keys[start + i]));
      view_.MayContainBatch(hashes, static_cast<size_t>(n), may_match + start);
    }
  }

 private:
  KeyedFilter keyed_;
  FilterView view_;
};

// A block RocksDB hands us that does not open (damaged on disk, or written by
// a filterlab without the variant): every key may match, so lookups stay
// correct and only the filter's benefit is lost, as RocksDB does for filter
// blocks it cannot parse (its reserved markers read as always-true).
class MatchAllReader final : public rocksdb::FilterBitsReader {
 public:
  bool MayMatch(const rocksdb::Slice&) override { return true; }
  void MayMatch(int num_keys, rocksdb::Slice**, bool* may_match) override {
    for (int i = 0; i < num_keys; ++i) may_match[i] = true;
  }
};

class AdapterPolicy final : public rocksdb::FilterPolicy {
 public:
  // (Inside this class FilterPolicy is RocksDB's, so ours is named in full.)
  AdapterPolicy(std::shared_ptr<const filterlab::FilterPolicy> policy,
                std::shared_ptr<const rocksdb::FilterPolicy> native)
      : policy_(std::move(policy)),
        native_format_(StoresNativeRocksDbFormat(*policy_)),
        native_(std::move(native)),
        name_(std::string("filterlab:") + policy_->spec()) {}

  const char* Name() const override { return name_.c_str(); }
  const char* CompatibilityName() const override {
    return native_format_ ? kRocksDbBuiltinCompatibilityName : kAdapterCompatibilityName;
  }

  rocksdb::FilterBitsBuilder* GetBuilderWithContext(const rocksdb::FilterBuildingContext& context) const override {
    rocksdb::FilterBitsBuilder* native = nullptr;
    if (native_) {
      native = native_->GetBuilderWithContext(context);
      if (native == nullptr) return nullptr;  // RocksDB would write no filter here; neither do we
    }
    return new AdapterBitsBuilder(policy_.get(), native_format_, &stats_, native);
  }

  rocksdb::FilterBitsReader* GetFilterBitsReader(const rocksdb::Slice& contents) const override {
    KeyedFilter keyed;
    if (!OpenKeyedFilter(FromRocks(contents), &keyed).ok()) return new MatchAllReader();
    stats_.readers_opened.fetch_add(1, std::memory_order_relaxed);
    return new AdapterBitsReader(std::move(keyed));
  }

  AdapterStats& stats() const { return stats_; }

 private:
  std::shared_ptr<const filterlab::FilterPolicy> policy_;
  const bool native_format_;
  std::shared_ptr<const rocksdb::FilterPolicy> native_;  // cross_check_native only
  std::string name_;
  mutable AdapterStats stats_;
};

}  // namespace

std::shared_ptr<const rocksdb::FilterPolicy> RocksDbNativeEquivalent(const FilterPolicy& policy, int* format_version) {
  const RocksDbNativeFilter native = RocksDbNativeFilterOf(policy);
  if (format_version != nullptr) *format_version = native.format_version;
  switch (native.kind) {
    case RocksDbNativeFilter::kFastLocalBloom:
    case RocksDbNativeFilter::kLegacyBloom:
      return std::shared_ptr<const rocksdb::FilterPolicy>(rocksdb::NewBloomFilterPolicy(native.bits_per_key));
    case RocksDbNativeFilter::kRibbon:
      return std::shared_ptr<const rocksdb::FilterPolicy>(
          rocksdb::NewRibbonFilterPolicy(native.bits_per_key, /*bloom_before_level=*/-1));
    case RocksDbNativeFilter::kNone: break;
  }
  return nullptr;
}

Status NewAdapterPolicy(std::shared_ptr<const FilterPolicy> policy, const AdapterOptions& options,
                        std::shared_ptr<const rocksdb::FilterPolicy>* out) {
  out->reset();
  if (policy == nullptr) return Status::InvalidArgument("filterlab adapter: no filter policy given");
  if (policy->is_dynamic()) {
    return Status::InvalidArgument("filterlab adapter: " + policy->spec() +
                                   " is a memtable filter (dynamic); table filters are built from all keys at once");
  }
  std::shared_ptr<const rocksdb::FilterPolicy> native;
  if (options.cross_check_with != nullptr) {
    native = options.cross_check_with;
  } else if (options.cross_check_native) {
    native = RocksDbNativeEquivalent(*policy, nullptr);
    if (native == nullptr) {
      return Status::InvalidArgument("filterlab adapter: cannot cross-check " + policy->spec() +
                                     " with RocksDB's own policy: RocksDB writes only fastlocal:bpk=B, legacy:bpk=B "
                                     "and ribbon:bpk=B natively");
    }
  }
  *out = std::make_shared<AdapterPolicy>(std::move(policy), std::move(native));
  return Status::OK();
}

const AdapterStats* StatsOf(const rocksdb::FilterPolicy& policy) {
  const auto* adapter = dynamic_cast<const AdapterPolicy*>(&policy);
  return adapter == nullptr ? nullptr : &adapter->stats();
}

}  // namespace filterlab::rocksdb_adapter
