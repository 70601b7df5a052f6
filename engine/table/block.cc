#include "engine/table/block.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <vector>

#include "engine/memtable/internal_key.h"
#include "engine/table/block_builder.h"
#include "engine/util/coding.h"

namespace filterlab::engine {

Status Block::Open(std::string contents, std::string name, KeyOrder order, std::unique_ptr<Block>* out) {
  std::unique_ptr<Block> block(new Block(std::move(contents), std::move(name), order));
  Status s = block->Parse();
  if (!s.ok()) return s;
  *out = std::move(block);
  return Status::OK();
}

struct Block::SharedAlloc : Block {
  SharedAlloc(std::string contents, std::string name, KeyOrder order)
      : Block(std::move(contents), std::move(name), order) {}
};

Status Block::OpenShared(std::string contents, std::string name, KeyOrder order, Status (*prepare)(Block*),
                         std::shared_ptr<const Block>* out) {
  auto block = std::make_shared<SharedAlloc>(std::move(contents), std::move(name), order);
  Status s = block->Parse();
  if (s.ok() && prepare != nullptr) s = prepare(block.get());
  if (!s.ok()) return s;
  *out = std::move(block);
  return Status::OK();
}

uint32_t Block::RestartOffset(uint32_t i) const {
  return DecodeFixed32(contents_.data() + restarts_offset_ + 4 * size_t{i});
}

Status Block::Parse() {
  const size_t size = contents_.size();
  if (size < 8) {
    return Status::Corruption(name_ + ": block of " + std::to_string(size) +
                              " bytes is shorter than the minimum of 8 (one restart offset and the footer)");
  }
  const uint32_t footer = DecodeFixed32(contents_.data() + size - 4);
  if (footer & kBlockFooterReservedBits) {
    return Status::Corruption(name_ + ": block footer 0x" + [&] {
      char buf[16];
      std::snprintf(buf, sizeof(buf), "%08x", footer);
      return std::string(buf);
    }() + " sets reserved bits 28-30 (allowed: bit 31 = hash index, bits 0-27 = restart count)");
  }
  num_restarts_ = footer & kBlockMaxRestarts;
  size_t restarts_end = size - 4;
  if (footer & kBlockFooterHashFlag) {
    if (order_ != KeyOrder::kInternal) {
      return Status::Corruption(name_ + ": footer sets the hash-index flag, but only data blocks may have one");
    }
    Status s = hash_index_.Open(Slice(contents_), name_);
    if (!s.ok()) return s;
    restarts_end = hash_index_.map_offset();
    if (num_restarts_ > kHashIndexMaxRestartIndex + 1) {
      return Status::Corruption(name_ + ": block with a hash index has " + std::to_string(num_restarts_) +
                                " restart intervals; the index supports at most 254");
    }
  }
  if (num_restarts_ == 0) return Status::Corruption(name_ + ": block has 0 restart points (at least 1 required)");
  if (size_t{num_restarts_} * 4 > restarts_end) {
    return Status::Corruption(name_ + ": " + std::to_string(num_restarts_) + " restart offsets need " +
                              std::to_string(size_t{num_restarts_} * 4) + " bytes but only " +
                              std::to_string(restarts_end) + " precede the footer");
  }
  restarts_offset_ = restarts_end - 4 * size_t{num_restarts_};
  // Offsets must start at 0, increase strictly and lie inside the entries.
  uint32_t prev = 0;
  for (uint32_t i = 0; i < num_restarts_; ++i) {
    const uint32_t off = RestartOffset(i);
    const bool bad = (i == 0) ? off != 0 : (off <= prev || off >= restarts_offset_);
    if (bad) {
      return Status::Corruption(name_ + ": restart offset " + std::to_string(i) + " is " + std::to_string(off) +
                                "; offsets must start at 0 and increase strictly below the entries' end " +
                                std::to_string(restarts_offset_));
    }
    prev = off;
  }
  if (num_restarts_ > 1 && restarts_offset_ == 0) {
    return Status::Corruption(name_ + ": empty block with " + std::to_string(num_restarts_) + " restart points");
  }
  return Status::OK();
}

namespace {

// Bytes [skip, skip + 8) of `key`, zero-padded, as a big-endian integer: for
// keys sharing their first `skip` bytes, integer order agrees with bytewise
// order (a < b implies Prefix(a) <= Prefix(b)).
uint64_t KeyPrefix(const Slice& key, size_t skip) {
  uint64_t v = 0;
  const size_t n = key.size() > skip ? std::min<size_t>(key.size() - skip, 8) : 0;
  const auto* p = reinterpret_cast<const unsigned char*>(key.data()) + skip;
  for (size_t i = 0; i < n; ++i) v |= uint64_t{p[i]} << (56 - 8 * i);
  return v;
}

// Index of the first a[i] >= t (Strict: > t) in a[0, n), n >= 1; the loop
// has no data-dependent branch (the compiler turns the step into a cmov).
template <bool Strict>
size_t BoundSearch(const uint64_t* a, size_t n, uint64_t t) {
  const uint64_t* base = a;
  while (n > 1) {
    const size_t half = n / 2;
    base = (Strict ? base[half - 1] <= t : base[half - 1] < t) ? base + half : base;
    n -= half;
  }
  return static_cast<size_t>(base - a) + ((Strict ? *base <= t : *base < t) ? 1 : 0);
}

}  // namespace

Status Block::BuildSearchPrefixes() {
  if (restarts_offset_ == 0) return Status::OK();  // an empty block: nothing to search
  BlockIter it(this);
  auto user_part = [&](Slice k) { return order_ == KeyOrder::kInternal ? ExtractUserKey(k) : k; };
  Slice first, last;
  if (!it.DecodeRestartKey(0, &first) || !it.DecodeRestartKey(num_restarts_ - 1, &last)) return it.status();
  // Restart keys are sorted, so what the first and last share, all share.
  const Slice a = user_part(first), b = user_part(last);
  size_t skip = 0;
  while (skip < a.size() && skip < b.size() && a[skip] == b[skip]) ++skip;
  std::vector<uint64_t> prefixes(num_restarts_);
  for (uint32_t i = 0; i < num_restarts_; ++i) {
    Slice k;
    if (!it.DecodeRestartKey(i, &k)) return it.status();
    prefixes[i] = KeyPrefix(user_part(k), skip);
  }
  common_prefix_.assign(a.data(), skip);
  restart_prefixes_ = std::move(prefixes);
  return Status::OK();
}

void Block::SearchRange(const Slice& target, uint32_t* left, uint32_t* right) const {
  const uint32_t n = num_restarts_;
  if (restart_prefixes_.empty()) {
    *left = 0;
    *right = n - 1;
    return;
  }
  const Slice u = order_ == KeyOrder::kInternal ? ExtractUserKey(target) : target;
  const size_t skip = common_prefix_.size();
  const int c = std::memcmp(u.data(), common_prefix_.data(), std::min(u.size(), skip));
  if (c < 0 || (c == 0 && u.size() < skip)) {  // below every restart key
    *left = *right = 0;
    return;
  }
  if (c > 0) {  // above every restart key
    *left = *right = n - 1;
    return;
  }
  const uint64_t t = KeyPrefix(u, skip);
  const uint64_t* p = restart_prefixes_.data();
  const size_t lo = BoundSearch<false>(p, n, t);                             // restarts before lo: key < target
  const size_t hi = lo < n ? lo + BoundSearch<true>(p + lo, n - lo, t) : n;  // from hi: key > target
  *left = lo > 0 ? static_cast<uint32_t>(lo - 1) : 0;
  *right = hi > 0 ? static_cast<uint32_t>(hi - 1) : 0;
}

int BlockIter::Compare(const Slice& a, const Slice& b) const {
  return block_->order_ == KeyOrder::kInternal ? CompareInternalKeys(a, b) : a.compare(b);
}

void BlockIter::SetCorruption(const std::string& what) {
  valid_ = false;
  if (status_.ok()) status_ = Status::Corruption(block_->name_ + ": " + what);
}

void BlockIter::SeekToRestartPoint(uint32_t index) {
  key_size_ = 0;
  value_ = Slice();
  next_offset_ = block_->RestartOffset(index);
}

// Decodes the entry at next_offset_. False at the end of the entries or on corruption.
bool BlockIter::ParseNextEntry() {
  current_ = next_offset_;
  const char* base = block_->contents_.data();
  const size_t limit = block_->restarts_offset_;
  if (current_ >= limit || !status_.ok()) {
    valid_ = false;
    return false;
  }
  uint32_t shared = 0, non_shared = 0, value_len = 0;
  const char* p = base + current_;
  const char* end = base + limit;
  p = GetVarint32Ptr(p, end, &shared);
  if (p != nullptr) p = GetVarint32Ptr(p, end, &non_shared);
  if (p != nullptr) p = GetVarint32Ptr(p, end, &value_len);
  if (p == nullptr) {
    SetCorruption("entry header at offset " + std::to_string(current_) + " is truncated or malformed");
    return false;
  }
  const uint64_t payload = uint64_t{non_shared} + value_len;
  if (payload > static_cast<uint64_t>(end - p)) {
    SetCorruption("entry at offset " + std::to_string(current_) + " needs " + std::to_string(payload) +
                  " bytes of key and value but the entries end after " + std::to_string(end - p));
    return false;
  }
  if (shared > key_size_) {
    SetCorruption("entry at offset " + std::to_string(current_) + " shares " + std::to_string(shared) +
                  " bytes with a previous key of " + std::to_string(key_size_) + " bytes");
    return false;
  }
  if (shared == 0) {
    key_data_ = p;
    key_size_ = non_shared;
  } else {
    AssembleKey(shared, p, non_shared);
  }
  if (block_->order_ == KeyOrder::kInternal && key_size_ < kInternalKeyTrailerBytes) {
    SetCorruption("entry at offset " + std::to_string(current_) + " has a " + std::to_string(key_size_) +
                  "-byte key, shorter than an internal key's 8-byte trailer");
    return false;
  }
  value_ = Slice(p + non_shared, value_len);
  next_offset_ = static_cast<size_t>(p + non_shared + value_len - base);
  valid_ = true;
  return true;
}

void BlockIter::AssembleKey(size_t shared, const char* p, size_t non_shared) {
  const size_t n = shared + non_shared;
  char* dst;
  if (n <= sizeof(key_inline_)) {
    dst = key_inline_;
  } else {
    // Growing the heap buffer keeps its first bytes, where a previous key
    // assembled there already holds the shared prefix.
    const bool prev_in_heap = !key_heap_.empty() && key_data_ == key_heap_.data();
    if (key_heap_.size() < n) key_heap_.resize(n);
    if (prev_in_heap) key_data_ = key_heap_.data();  // (resize may have moved it)
    dst = key_heap_.data();
  }
  // The previous key (in the block or the other buffer) supplies the prefix;
  // in this same buffer it is already in place. A scan assembles every key
  // it passes, so short keys (the common case) are copied in fixed-size
  // moves the compiler inlines as one or two vector loads and stores,
  // rather than two calls into libc's memcpy per entry; the moves may copy
  // bytes past the key's end (more of the entry, never past the block),
  // which the next copy or key_size_ makes irrelevant.
  const auto begin = reinterpret_cast<uintptr_t>(block_->contents_.data());
  const uintptr_t end = begin + block_->contents_.size();
  // Bytes from q to the block's end (0 if q is not in the block).
  auto room = [&](const char* q) {
    const auto at = reinterpret_cast<uintptr_t>(q);
    return at >= begin && at < end ? end - at : 0;
  };
  constexpr size_t kMove = 32;  // covers most keys; prefix + suffix moves fit key_inline_
  static_assert(2 * kMove <= sizeof(key_inline_));
  const bool short_moves = dst == key_inline_ && shared <= kMove;
  if (key_data_ != dst) {
    if (short_moves && room(key_data_) >= kMove) {
      std::memcpy(dst, key_data_, kMove);
    } else {
      std::memcpy(dst, key_data_, shared);
    }
  }
  if (short_moves && non_shared <= kMove && room(p) >= kMove) {
    std::memcpy(dst + shared, p, kMove);
  } else {
    std::memcpy(dst + shared, p, non_shared);
  }
  key_data_ = dst;
  key_size_ = n;
}

bool BlockIter::DecodeRestartKey(uint32_t index, Slice* key) {
  const char* base = block_->contents_.data();
  const size_t off = block_->RestartOffset(index);
  const char* end = base + block_->restarts_offset_;
  uint32_t shared = 0, non_shared = 0, value_len = 0;
  const char* p = GetVarint32Ptr(base + off, end, &shared);
  if (p != nullptr) p = GetVarint32Ptr(p, end, &non_shared);
  if (p != nullptr) p = GetVarint32Ptr(p, end, &value_len);
  if (p == nullptr || shared != 0 || non_shared > static_cast<uint64_t>(end - p) ||
      (block_->order_ == KeyOrder::kInternal && non_shared < kInternalKeyTrailerBytes)) {
    SetCorruption("restart point " + std::to_string(index) + " at offset " + std::to_string(off) +
                  " does not hold a whole, well-formed key");
    return false;
  }
  *key = Slice(p, non_shared);
  return true;
}

void BlockIter::SeekToFirst() {
  if (!status_.ok()) return;
  SeekToRestartPoint(0);
  ParseNextEntry();
}

void BlockIter::Next() {
  if (!valid_) return;
  // A scan of a cold block reads it in order: ask for a few lines ahead, so
  // each entry's line is on its way before the scan reaches it.
  const size_t ahead = next_offset_ + 256;
  if (ahead < block_->restarts_offset_) __builtin_prefetch(block_->contents_.data() + ahead);
  ParseNextEntry();
}

void BlockIter::Seek(const Slice& target) {
  if (!status_.ok()) return;
  if (block_->order_ == KeyOrder::kInternal && target.size() < kInternalKeyTrailerBytes) {
    SetCorruption("seek target of " + std::to_string(target.size()) + " bytes is not an internal key");
    return;
  }
  // Last restart whose key is < target (or == target: exact hit).
  const char* base = block_->contents_.data();
  uint32_t left = 0, right = 0;
  block_->SearchRange(target, &left, &right);
  while (left < right) {
    const uint32_t mid = left + (right - left + 1) / 2;
    // Both places the next probe can be: their key lines load while this
    // one is compared (a binary search over a large index block is
    // otherwise one cache miss after another).
    if (mid - left >= 2) __builtin_prefetch(base + block_->RestartOffset(left + (mid - left) / 2));
    if (right - mid >= 1) __builtin_prefetch(base + block_->RestartOffset(mid + (right - mid + 1) / 2));
    Slice mid_key;
    if (!DecodeRestartKey(mid, &mid_key)) return;
    const int c = Compare(mid_key, target);
    if (c < 0) {
      left = mid;
    } else if (c > 0) {
      right = mid - 1;
    } else {
      left = right = mid;
    }
  }
  SeekFromRestart(left, target);
}

void BlockIter::SeekFromRestart(uint32_t restart, const Slice& target) {
  if (!status_.ok()) return;
  SeekToRestartPoint(restart);
  PrefetchInterval(restart);
  while (ParseNextEntry()) {
    if (Compare(key(), target) >= 0) return;
  }
}

void BlockIter::PrefetchInterval(uint32_t index) const {
  const char* base = block_->contents_.data();
  const size_t begin = block_->RestartOffset(index);
  const size_t end = index + 1 < block_->num_restarts_ ? block_->RestartOffset(index + 1) : block_->restarts_offset_;
  for (size_t off = (begin | 63) + 1; off < end && off < begin + 1024; off += 64) __builtin_prefetch(base + off);
}

bool BlockIter::FindRestarts(const Slice* targets, size_t n, uint32_t* out) {
  if (!status_.ok()) return false;
  // out[i] is the search's left end, right[i] its right end (as in Seek).
  thread_local std::vector<uint32_t> right;
  right.resize(n);
  for (size_t i = 0; i < n; ++i) {
    if (block_->order_ == KeyOrder::kInternal && targets[i].size() < kInternalKeyTrailerBytes) {
      SetCorruption("seek target of " + std::to_string(targets[i].size()) + " bytes is not an internal key");
      return false;
    }
    block_->SearchRange(targets[i], &out[i], &right[i]);
  }
  const char* base = block_->contents_.data();
  for (bool active = n > 0; active;) {
    for (size_t i = 0; i < n; ++i) {
      if (out[i] < right[i]) __builtin_prefetch(base + block_->RestartOffset(out[i] + (right[i] - out[i] + 1) / 2));
    }
    active = false;
    for (size_t i = 0; i < n; ++i) {
      if (out[i] >= right[i]) continue;
      const uint32_t mid = out[i] + (right[i] - out[i] + 1) / 2;
      Slice mid_key;
      if (!DecodeRestartKey(mid, &mid_key)) return false;
      const int c = Compare(mid_key, targets[i]);
      if (c < 0) {
        out[i] = mid;
      } else if (c > 0) {
        right[i] = mid - 1;
      } else {
        out[i] = right[i] = mid;
      }
      active = active || out[i] < right[i];
    }
  }
  return true;
}

bool BlockIter::SeekForGet(const Slice& target) {
  if (!block_->has_hash_index()) {
    last_hash_outcome_ = HashOutcome::kNoIndex;
    Seek(target);
    return true;
  }
  if (!status_.ok()) return true;
  if (target.size() < kInternalKeyTrailerBytes) {
    SetCorruption("point-lookup target of " + std::to_string(target.size()) + " bytes is not an internal key");
    return true;
  }
  const Slice user_key = ExtractUserKey(target);
  uint32_t interval = block_->hash_index_.Lookup(user_key);
  if (interval == kHashIndexCollision) {
    last_hash_outcome_ = HashOutcome::kCollision;
    Seek(target);
    return true;
  }
  if (interval == kHashIndexNoEntry) {
    // The key may still sort into this block's tail and live in the next
    // block; scanning the last interval settles it (DataBlockIter::SeekForGetImpl's fallback in RocksDB).
    last_hash_outcome_ = HashOutcome::kNoEntry;
    interval = block_->num_restarts_ - 1;
  } else {
    last_hash_outcome_ = HashOutcome::kInterval;
    if (interval >= block_->num_restarts_) {
      SetCorruption("hash index bucket names restart interval " + std::to_string(interval) + " of only " +
                    std::to_string(block_->num_restarts_));
      return true;
    }
  }
  const size_t interval_end =
      interval + 1 < block_->num_restarts_ ? block_->RestartOffset(interval + 1) : block_->restarts_offset_;
  SeekToRestartPoint(interval);
  PrefetchInterval(interval);
  while (true) {
    if (!ParseNextEntry()) return true;  // end of block (or corruption): caller checks on
    if (Compare(key(), target) >= 0) break;
    if (current_ >= interval_end) break;  // first entry of the next interval, still < target
  }
  if (ExtractUserKey(key()) != user_key) return false;
  const auto type = static_cast<uint8_t>(ExtractTrailer(key()) & 0xff);
  const bool supported =
      type == kTypeValue || type == kTypeDeletion || type == kTypeSingleDeletion || type == kTypeMerge;
  // A same-user-key entry still before the target (a too-new version that
  // the index should have marked as a collision) or an unsupported type:
  // settle it with an ordinary seek.
  if (!supported || Compare(key(), target) < 0) Seek(target);
  return true;
}

}  // namespace filterlab::engine
