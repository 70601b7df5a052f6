// PrefixExtractor: the key prefix a prefix filter holds and a prefix seek
// stays within (RocksDB's SliceTransform, include/rocksdb/slice_transform.h:
// NewFixedPrefixTransform / NewCappedPrefixTransform). Named by spec strings:
//   fixed:N   the first N bytes; keys shorter than N are outside the domain
//             (no prefix: such keys never enter a prefix filter, and a seek
//             to one is never filtered by prefix);
//   capped:N  the first min(N, length) bytes; every key is in the domain,
//             and a key shorter than N is its own prefix;
//   none      no extractor (nullptr), the one spelling of "no prefix".
// The canonical spec (Name()) is what a table records, so a reader knows
// which extractor built its prefix entries; two extractors are the same
// exactly when their names are.
#pragma once

#include <cstddef>
#include <memory>
#include <string>

#include "common/slice.h"
#include "common/status.h"

namespace filterlab::engine {

class PrefixExtractor {
 public:
  enum class Kind { kFixed, kCapped };

  PrefixExtractor(Kind kind, size_t length) : kind_(kind), length_(length) {}

  // "fixed:N" or "capped:N".
  std::string Name() const;
  Kind kind() const { return kind_; }
  size_t length() const { return length_; }

  // Whether `key` has a prefix (fixed: at least N bytes; capped: always).
  bool InDomain(const Slice& key) const { return kind_ == Kind::kCapped || key.size() >= length_; }
  // The prefix of an in-domain key (a view into `key`).
  Slice Transform(const Slice& key) const { return Slice(key.data(), key.size() < length_ ? key.size() : length_); }
  // Whether the prefix of `key` has the extractor's full length N, so that
  // every key starting with it has this same prefix (true for fixed keys in
  // the domain; for capped, keys of at least N bytes). A capped key shorter
  // than N is its own prefix: of the keys starting with it, only itself.
  bool FullLength(const Slice& key) const { return key.size() >= length_; }

 private:
  Kind kind_;
  size_t length_;
};

// Parses "fixed:N" / "capped:N" (N in 1..1024) or "none" (*out = nullptr);
// InvalidArgument naming the spec and what is allowed otherwise.
Status PrefixExtractorFromSpec(const std::string& spec, std::shared_ptr<const PrefixExtractor>* out);
// The canonical spec of `extractor`, or "none" for nullptr.
std::string PrefixExtractorLabel(const PrefixExtractor* extractor);

// The smallest byte string greater than every string that starts with
// `prefix` (drop trailing 0xff bytes, then add one to the last byte); false
// when there is none (empty, or all 0xff), i.e. the prefix's keys run to
// the end of the key space.
bool PrefixSuccessor(const Slice& prefix, std::string* out);

}  // namespace filterlab::engine
