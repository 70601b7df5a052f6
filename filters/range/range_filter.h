// The one interface every range filter implements (beside Filter /
// FilterPolicy in filters/filter.h, registered in the same registry,
// filters/registry.h), so the simulator, the tools and the engine never
// special-case a range variant.
//
// A range filter answers "may the key set hold a key in [lo, hi]?" (both ends
// inclusive): false means certainly none, true means maybe. It is built from
// the sorted, de-duplicated keys themselves, not from hashes, because a range
// query needs their order.
//
// Key types. Every filter answers both kinds of query:
//   - uint64 keys (MayContainRange): the integer filters' native type; a
//     byte-string variant sees a uint64 key as its 8 big-endian bytes
//     (EncodeBigEndian64), so byte order equals numeric order;
//   - byte strings in bytewise order (MayContainBytesRange): the native type
//     of the byte-string variants (SuRF, prefix Bloom); an integer variant
//     maps a string through OrderPreservingUint64 (its first 8 bytes,
//     big-endian, zero-padded). That map never decreases in bytewise order,
//     so a key inside [lo, hi] maps inside [map(lo), map(hi)]: no false
//     negative, only the resolution of the first 8 bytes.
// The registration (RangeFilterVariant::key_types) states which are native.
//
// Serialized form (range_serialization.h): the variant's bytes, a checksum
// and filterlab's trailer (trailer.h) naming the layout, so
// OpenRangeFilter() rebuilds the query side from the bytes alone and any
// damaged byte gives Corruption.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "common/slice.h"
#include "common/status.h"

namespace filterlab {

// The key types a range variant builds from natively (a bit set).
enum RangeKeyTypes : unsigned {
  kRangeKeysUint64 = 1,  // 64-bit unsigned integers, numeric order
  kRangeKeysBytes = 2,   // byte strings, bytewise (memcmp) order
};
// "uint64", "bytes" or "uint64,bytes" (listings, records).
std::string RangeKeyTypesName(unsigned types);

// The 8 big-endian bytes of `key` (byte order = numeric order).
std::string EncodeBigEndian64(uint64_t key);
inline void EncodeBigEndian64(uint64_t key, char out[8]) {
  for (int i = 0; i < 8; ++i) out[i] = static_cast<char>(key >> (56 - 8 * i));
}
// The first 8 bytes of `key` as a big-endian number, missing bytes zero: the
// map integer variants apply to byte strings. Non-decreasing in bytewise
// order, and the inverse of EncodeBigEndian64 on 8-byte strings.
uint64_t OrderPreservingUint64(Slice key);

class RangeFilter {
 public:
  virtual ~RangeFilter() = default;

  // Precondition lo <= hi (CheckedMayContainRange refuses hi < lo). False
  // means no key in [lo, hi] was built in; true means there may be one.
  virtual bool MayContainRange(uint64_t lo, uint64_t hi) const = 0;
  // The point query: MayContainRange(key, key) unless the variant has a
  // cheaper path with the same guarantee (never false for a built key).
  virtual bool MayContain(uint64_t key) const { return MayContainRange(key, key); }

  // Byte-string keys, bytewise order; precondition lo <= hi. The default maps
  // both ends through OrderPreservingUint64 (integer variants); byte-string
  // variants override it.
  virtual bool MayContainBytesRange(Slice lo, Slice hi) const;
  virtual bool MayContainBytes(Slice key) const { return MayContainBytesRange(key, key); }

  // The query with its argument checked: InvalidArgument naming both ends
  // when hi < lo, else OK with *may_contain set.
  Status CheckedMayContainRange(uint64_t lo, uint64_t hi, bool* may_contain) const;
  Status CheckedMayContainBytesRange(Slice lo, Slice hi, bool* may_contain) const;

  // Dynamic variants (Memento) accept keys after construction and delete
  // them; the others are immutable once built and return false, as does
  // every filter OpenRangeFilter returns. Static ones return NotSupported.
  virtual bool SupportsInsert() const { return false; }
  virtual bool SupportsDelete() const { return false; }
  // May grow the filter (expansion).
  virtual Status Insert(uint64_t key);
  // Removes one earlier insert (or built key) of `key`: a key inserted twice
  // stays after one delete. NotFound, nothing changed, when the filter holds
  // nothing that `key` could be. Only keys that were inserted may be
  // deleted: a filter cannot tell a key never inserted from a stored key it
  // collides with, and deleting it would remove that key (a false negative
  // for it afterwards), as in every quotient or cuckoo filter.
  virtual Status Delete(uint64_t key);

  // The model's (or bound's) probability that the empty range [lo, hi] is
  // answered true by this filter, given the sorted keys it was built from:
  // the realized parameters (sizes after rounding, distinct prefixes or
  // hashes) and, for models that depend on where a query falls (prefix
  // Bloom: a query inside a stored prefix always matches), the keys near
  // it. NaN when the variant has no model (kind empirical). The keys must be
  // the ones the filter was built from.
  virtual double QueryModelFp(const uint64_t* sorted_keys, size_t n, uint64_t lo, uint64_t hi) const;

  // Distinct keys the filter holds (what bits per key is counted over).
  virtual uint64_t num_keys() const = 0;
  // Bytes of filter data as held in memory and serialized (without the
  // checksum and trailer): what the filter really spends.
  virtual size_t DataBytes() const = 0;
  double BitsPerKey() const {
    return num_keys() == 0 ? 0.0 : 8.0 * static_cast<double>(DataBytes()) / static_cast<double>(num_keys());
  }

  // Appends the serialized filter (data + checksum + trailer) to *out.
  virtual void Serialize(std::string* out) const = 0;
  std::string Serialize() const {
    std::string s;
    Serialize(&s);
    return s;
  }

  // Canonical description of this filter's layout (every parameter its
  // reader needs), e.g. "grafite:keys=1000,universe=...". Stored in the trailer.
  virtual std::string Describe() const = 0;
};

class RangeFilterPolicy {
 public:
  virtual ~RangeFilterPolicy() = default;

  // Canonical spec with every parameter resolved; parsing it gives an equal policy.
  virtual const std::string& spec() const = 0;
  virtual std::string_view variant() const = 0;
  // The registration's key types (RangeKeyTypes bits).
  virtual unsigned key_types() const = 0;
  // Requested bits per key; NaN for a variant sized by other parameters
  // (SuRF: the trie and the suffix bits). The built filter's BitsPerKey() is
  // what it spends.
  virtual double bits_per_key() const = 0;

  // Builds from n keys sorted ascending without repeats (InvalidArgument
  // otherwise, naming the first offending position).
  virtual Status Build(const uint64_t* sorted_keys, size_t n, std::unique_ptr<RangeFilter>* out) const = 0;
  // The same from byte strings in bytewise order without repeats. The
  // default maps them through OrderPreservingUint64, drops the repeats that
  // leaves, and calls Build; byte-string variants override it.
  virtual Status BuildBytes(const Slice* sorted_keys, size_t n, std::unique_ptr<RangeFilter>* out) const;

  // Dynamic variants only: an empty filter expecting about `expected_keys`
  // inserts (it may expand beyond).
  virtual bool is_dynamic() const { return false; }
  virtual Status NewDynamic(uint64_t expected_keys, std::unique_ptr<RangeFilter>* out) const;

  // The model's (or bound's; the registration states which,
  // RangeFilterVariant::fp_model) probability that an empty range of
  // `range_len` values (>= 1) is answered true, for n keys and a query whose
  // position is independent of the keys. NaN when the variant has no model
  // (kind empirical: the report says so).
  virtual double ModelFpRate(uint64_t n, uint64_t range_len) const = 0;
  // (RangeFilter::QueryModelFp gives it for one query and one built filter.)

  // Peak bytes Build allocates for n keys, the filter included (an
  // estimate from the parameters, not a measurement), so callers refuse a
  // build that cannot fit before starting it.
  virtual uint64_t BuildMemoryBytes(uint64_t n) const = 0;
};

// Spec string -> policy, through the registry (filters/registry.h). Unknown
// variants (a point filter's name included), unknown keys and impossible
// values give InvalidArgument naming the problem and what is allowed.
Status NewRangeFilterPolicy(std::string_view spec, std::unique_ptr<RangeFilterPolicy>* out);

// Rebuilds a range filter's query side from serialized bytes alone. The
// returned filter may read `bytes` in place: they must outlive it and not
// change. Truncated or damaged bytes, an unknown layout or a layout that
// does not match the data give Corruption naming what is wrong.
Status OpenRangeFilter(Slice bytes, std::unique_ptr<RangeFilter>* out);

// InvalidArgument naming the first position where keys are not strictly
// ascending, else OK (what Build checks).
Status CheckSortedUnique(const uint64_t* keys, size_t n);
Status CheckSortedUnique(const Slice* keys, size_t n);

}  // namespace filterlab
