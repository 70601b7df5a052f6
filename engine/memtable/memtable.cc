#include "engine/memtable/memtable.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include "engine/util/coding.h"
#include "engine/util/prefix_extractor.h"

namespace filterlab::engine {
namespace {

// Entries were written by Add, so their varints are well formed; the limit
// only bounds the parse.
Slice DecodeLengthPrefixed(const char* p) {
  uint32_t len = 0;
  const char* q = GetVarint32Ptr(p, p + kMaxVarint32Bytes, &len);
  return Slice(q, len);
}

Slice EntryValue(const Slice& internal_key) { return DecodeLengthPrefixed(internal_key.data() + internal_key.size()); }

constexpr double kMaxBloomRatio = 0.25;

}  // namespace

Status MemTableBloomBits(size_t write_buffer_size, double ratio, uint64_t* total_bits) {
  if (!(ratio >= 0.0)) {  // also rejects NaN
    return Status::InvalidArgument("memtable bloom_size_ratio " + std::to_string(ratio) +
                                   " is not allowed: use a number in [0, 0.25] (0 disables the memtable Bloom; "
                                   "larger values are clamped to 0.25)");
  }
  ratio = std::min(ratio, kMaxBloomRatio);
  const double bytes = std::floor(static_cast<double>(write_buffer_size) * ratio);
  if (bytes > static_cast<double>(std::numeric_limits<uint32_t>::max())) {
    return Status::InvalidArgument("memtable Bloom of write_buffer_size " + std::to_string(write_buffer_size) +
                                   " x ratio " + std::to_string(ratio) +
                                   " needs more than 4 GiB; the byte count must fit in 32 bits");
  }
  *total_bits = uint64_t{static_cast<uint32_t>(bytes)} * 8;
  return Status::OK();
}

std::shared_ptr<const FilterPolicy> DefaultMemTableBloomPolicy() {
  static const std::shared_ptr<const FilterPolicy> policy = [] {
    std::unique_ptr<FilterPolicy> p;
    return NewFilterPolicy("dynamic:bpk=8,probes=6,hash=32", &p).ok()
               ? std::shared_ptr<const FilterPolicy>(std::move(p))
               : nullptr;
  }();
  return policy;
}

Status MemTable::Create(const MemTableOptions& options, std::unique_ptr<MemTable>* out) {
  if (options.write_buffer_size == 0) {
    return Status::InvalidArgument("memtable write_buffer_size is 0; it must be at least 1 byte");
  }
  uint64_t total_bits = 0;
  Status s = MemTableBloomBits(options.write_buffer_size, options.bloom_size_ratio, &total_bits);
  if (!s.ok()) return s;
  const FilterPolicy* policy = options.bloom_policy.get();
  std::unique_ptr<Filter> bloom;
  if (total_bits > 0 && policy != nullptr) {
    if (!policy->is_dynamic()) {
      return Status::InvalidArgument("memtable bloom_policy '" + policy->spec() + "' is variant '" +
                                     std::string(policy->variant()) +
                                     "', which cannot take adds; use a dynamic variant such as 'dynamic:bpk=8'");
    }
    const auto expected_keys = static_cast<size_t>(std::ceil(static_cast<double>(total_bits) / policy->bits_per_key()));
    s = policy->NewDynamic(expected_keys, &bloom);
    if (!s.ok()) return Status::InvalidArgument("memtable Bloom: " + s.message());
  }
  out->reset(new MemTable(options, std::move(bloom)));
  return Status::OK();
}

MemTable::MemTable(const MemTableOptions& options, std::unique_ptr<Filter> bloom)
    : options_(options),
      arena_(options.huge_page_arena && options.write_buffer_size >= MemTableOptions::kHugePageArenaMinBuffer),
      list_(MemTableEntryComparator(), &arena_),
      bloom_(std::move(bloom)) {}

MemTable::~MemTable() = default;

void MemTable::Add(SequenceNumber seq, ValueType type, const Slice& user_key, const Slice& value) {
  const size_t ikey_len = user_key.size() + kInternalKeyTrailerBytes;
  const size_t encoded_len = VarintLength(ikey_len) + ikey_len + VarintLength(value.size()) + value.size();
  // The entry lives inline in its skip-list node (one allocation, one cache miss per search step).
  char* buf = list_.AllocateKey(encoded_len);
  char* p = EncodeVarint32(buf, static_cast<uint32_t>(ikey_len));
  std::memcpy(p, user_key.data(), user_key.size());
  p += user_key.size();
  EncodeFixed64(p, PackSequenceAndType(seq, type));
  p += kInternalKeyTrailerBytes;
  p = EncodeVarint32(p, static_cast<uint32_t>(value.size()));
  if (!value.empty()) std::memcpy(p, value.data(), value.size());
  list_.Insert(buf);
  if (bloom_) {
    if (options_.whole_key_filtering) bloom_->AddConcurrently(options_.bloom_policy->HashKey(user_key));
    const PrefixExtractor* prefix = options_.prefix_extractor.get();
    if (prefix != nullptr && prefix->InDomain(user_key)) {
      bloom_->AddConcurrently(options_.bloom_policy->HashKey(prefix->Transform(user_key)));
    }
  }
  num_entries_.fetch_add(1, std::memory_order_relaxed);
  data_size_.fetch_add(encoded_len, std::memory_order_relaxed);
}

bool MemTable::PointProbe(const Slice& user_key, Slice* probe) const {
  if (!bloom_) return false;
  if (options_.whole_key_filtering) {
    *probe = user_key;
    return true;
  }
  const PrefixExtractor* prefix = options_.prefix_extractor.get();
  if (prefix == nullptr || !prefix->InDomain(user_key)) return false;
  *probe = prefix->Transform(user_key);
  return true;
}

bool MemTable::PrefixMayMatch(const Slice& prefix) const {
  if (!bloom_ || options_.prefix_extractor == nullptr) return true;
  const bool may = bloom_->MayContain(options_.bloom_policy->HashKey(prefix));
  bloom_counters_.Add(may ? 2 : 3);
  return may;
}

MemTable::GetResult MemTable::Get(const LookupKey& key, std::string* value) const {
  Slice probe;
  if (PointProbe(key.user_key(), &probe)) {
    if (!bloom_->MayContain(options_.bloom_policy->HashKey(probe))) {
      bloom_counters_.Add(0);
      return GetResult::kNotFound;
    }
    bloom_counters_.Add(1);
  }
  MemTableList::Iterator it(&list_);
  it.Seek(MemTableSearchKey(key.internal_key()));
  return Resolve(it.Valid() ? it.key() : nullptr, key, value);
}

MemTable::GetResult MemTable::Resolve(const char* entry, const LookupKey& key, std::string* value) {
  if (entry == nullptr) return GetResult::kNotFound;
  const Slice ikey = DecodeEntryKey(entry);
  if (ExtractUserKey(ikey) != key.user_key()) return GetResult::kNotFound;
  switch (static_cast<ValueType>(ExtractTrailer(ikey) & 0xff)) {
    case kTypeValue:
    case kTypeMerge: {
      const Slice v = EntryValue(ikey);
      value->assign(v.data(), v.size());
      return (ExtractTrailer(ikey) & 0xff) == kTypeValue ? GetResult::kFound : GetResult::kMerge;
    }
    case kTypeDeletion:
    case kTypeSingleDeletion: return GetResult::kDeleted;
    default:
      // Range deletions are not point entries; the DB layer handles them.
      return GetResult::kNotFound;
  }
}

void MemTable::MultiGet(const LookupKey* const* keys, size_t n, std::string* const* values, GetResult* results) const {
  constexpr size_t kChunk = MemTableList::kLockstepChunk;
  uint64_t hashes[kChunk];
  bool may[kChunk];
  MemTableSearchKey targets[kChunk];
  const char* entries[kChunk];
  uint8_t searched[kChunk];  // chunk positions of the keys the filter passed
  for (size_t base = 0; base < n; base += kChunk) {
    const size_t m = std::min(kChunk, n - base);
    size_t probed = m;
    if (bloom_ && options_.whole_key_filtering) {
      for (size_t i = 0; i < m; ++i) hashes[i] = options_.bloom_policy->HashKey(keys[base + i]->user_key());
      bloom_->MayContainBatch(hashes, m, may);
    } else {
      // Prefixes only: keys outside the extractor's domain pass unprobed.
      probed = 0;
      for (size_t i = 0; i < m; ++i) {
        Slice probe;
        may[i] = true;
        if (PointProbe(keys[base + i]->user_key(), &probe)) {
          may[i] = bloom_->MayContain(options_.bloom_policy->HashKey(probe));
          ++probed;
        }
      }
    }
    size_t passed = 0;
    for (size_t i = 0; i < m; ++i) {
      if (may[i]) {
        targets[passed] = MemTableSearchKey(keys[base + i]->internal_key());
        searched[passed++] = static_cast<uint8_t>(i);
      } else {
        results[base + i] = GetResult::kNotFound;
      }
    }
    if (probed > 0) {
      bloom_counters_.Add(0, m - passed);
      bloom_counters_.Add(1, passed - (m - probed));
    }
    if (passed == 0) continue;
    list_.SeekBatch(targets, passed, entries);
    for (size_t k = 0; k < passed; ++k) {
      const size_t i = base + searched[k];
      results[i] = Resolve(entries[k], *keys[i], values[i]);
    }
  }
}

MemTable::RangeStats MemTable::ApproximateStats(const Slice& start, const Slice& limit) const {
  const LookupKey lo(start, kMaxSequenceNumber), hi(limit, kMaxSequenceNumber);
  const uint64_t n = num_entries();
  uint64_t count =
      options_.approx_algorithm == ApproxAlgorithm::kNew
          ? list_.ApproximateNumEntries(MemTableSearchKey(lo.internal_key()), MemTableSearchKey(hi.internal_key()))
          : list_.ApproximateNumEntriesOld(MemTableSearchKey(lo.internal_key()), MemTableSearchKey(hi.internal_key()));
  if (count == 0 || n == 0) return {};
  count = std::min(count, n);
  return {count, count * (data_size() / n)};
}

size_t MemTable::ApproximateMemoryUsage() const { return arena_.MemoryUsage() + (bloom_ ? bloom_->DataBytes() : 0); }

void MemTable::Iterator::Seek(const Slice& internal_key) { it_.Seek(MemTableSearchKey(internal_key)); }

Slice MemTable::Iterator::key() const { return DecodeEntryKey(it_.key()); }

Slice MemTable::Iterator::value() const { return EntryValue(DecodeEntryKey(it_.key())); }

}  // namespace filterlab::engine
