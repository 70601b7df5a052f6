// The one interface every filter variant implements, so the simulator, the
// benchmarks and the engine never special-case a variant (in the manner of
// fastfilter_cpp).
//
// Filters consume hashes, not keys: a FilterPolicy (one configuration, made by
// the registry from a spec string such as "fastlocal:bpk=10") turns a key into
// the hash its filters want (HashKey) and builds filters from hashes. A 32-bit
// variant uses the low 32 bits of the uint64_t it is given and ignores the
// rest, so the simulator can feed every variant the same synthetic stream.
//
// Serialized form: the filter bits followed by a trailer that names the
// variant and every parameter a reader needs, so OpenFilter() rebuilds the
// right query code from the bytes alone (RocksDB's own formats keep their
// RocksDB trailers, bit-exact; filterlab's variants use trailer.h).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "common/slice.h"
#include "common/status.h"

namespace filterlab {

enum class HashWidth : int { k32 = 32, k64 = 64 };

// "32" or "64", as specs and layouts write a hash width (hash=32).
inline std::string HashWidthText(HashWidth w) { return std::to_string(static_cast<int>(w)); }

// A query handle copied out of a Filter (Filter::View): what MayContain and
// Prefetch read, held by value, so a caller with many filters keeps the
// handles in its own compact array and queries without reading the Filter
// object. Over many cold filters that removes one dependent cache miss per
// query (handle -> line instead of pointer -> object -> line), and a caller
// pipelining queries across filters can prefetch a line from the handle
// alone. Valid as long as the filter (and any bytes it views) lives. The
// meaning of `data` and `param` is the variant's; the default view of a
// variant that does not provide one points at the object and calls its
// virtual MayContain / Prefetch, so every filter has one.
struct FilterView {
  struct Ops {
    bool (*may_contain)(const FilterView& view, uint64_t hash);
    void (*prefetch)(const FilterView& view, uint64_t hash);
    void (*may_contain_batch)(const FilterView& view, const uint64_t* hashes, size_t n, bool* results);
  };
  const Ops* ops;
  const void* data;
  uint64_t param;

  // Exactly Filter::MayContain / Filter::Prefetch / Filter::MayContainBatch
  // of the filter viewed.
  bool MayContain(uint64_t hash) const { return ops->may_contain(*this, hash); }
  void Prefetch(uint64_t hash) const { ops->prefetch(*this, hash); }
  void MayContainBatch(const uint64_t* hashes, size_t n, bool* results) const {
    ops->may_contain_batch(*this, hashes, n, results);
  }
};

// The Prefetch of a view whose query reads no memory (a filter of no keys, a
// Ribbon filter of no result columns). tests/test_prefetch_kept.py accepts a
// prefetch of this name as empty by design.
inline void EmptyPrefetch(const FilterView&, uint64_t) {}

// The whole view of a filter of no keys: every answer false, no memory read.
inline bool EmptyMayContain(const FilterView&, uint64_t) { return false; }
inline void EmptyMayContainBatch(const FilterView&, const uint64_t*, size_t n, bool* results) {
  for (size_t i = 0; i < n; ++i) results[i] = false;
}
inline constexpr FilterView::Ops kEmptyViewOps{&EmptyMayContain, &EmptyPrefetch, &EmptyMayContainBatch};

class Filter {
 public:
  virtual ~Filter() = default;

  // False means the hash was certainly never added; true means it may have been.
  virtual bool MayContain(uint64_t hash) const = 0;

  // results[i] = MayContain(hashes[i]) for i < n. Variants override this with a
  // path that prefetches the whole batch's cache lines before probing. Must
  // give exactly the answers of MayContain.
  virtual void MayContainBatch(const uint64_t* hashes, size_t n, bool* results) const;

  // A hint that MayContain(hash) follows soon: starts loading the memory that
  // query will read, without waiting for it. Lets a caller pipeline queries
  // across filters (prefetch for query i + D while answering query i) where
  // MayContainBatch cannot, because each query goes to a different filter.
  // The default does nothing; cache-local variants prefetch their one line.
  virtual void Prefetch(uint64_t /*hash*/) const {}

  // A handle answering exactly as MayContain, Prefetch and MayContainBatch
  // (see FilterView).
  // The default calls this object's virtual methods; variants whose query
  // state fits the handle override it so queries skip the object.
  virtual FilterView View() const;

  // Dynamic variants (DynamicBloom) accept adds after construction; the others
  // are immutable once built and return false here, as does every filter
  // OpenFilter returns (it may read its caller's bytes).
  virtual bool SupportsAdd() const { return false; }
  // Precondition: SupportsAdd(). Single writer; readers may run concurrently
  // only where the variant says so.
  virtual void Add(uint64_t hash);
  // Precondition: SupportsAdd(). Safe with other AddConcurrently and MayContain
  // calls from any threads.
  virtual void AddConcurrently(uint64_t hash);

  // Bytes of filter data (the bit array), without any trailer. Bits per key
  // reported by the tools is 8 * DataBytes() / keys.
  virtual size_t DataBytes() const = 0;

  // Appends the serialized filter (data + trailer) to *out.
  virtual void Serialize(std::string* out) const = 0;
  std::string Serialize() const {
    std::string s;
    Serialize(&s);
    return s;
  }

  // Canonical description of this filter's layout, e.g.
  // "fastlocal:hash=64,probes=6,bytes=1280". Stable; used in trailers and logs.
  virtual std::string Describe() const = 0;

  virtual HashWidth hash_width() const = 0;
};

class FilterPolicy {
 public:
  virtual ~FilterPolicy() = default;

  // Canonical spec string with every parameter resolved, e.g.
  // "fastlocal:bpk=10,probes=6,hash=64". Parsing it gives an equal policy.
  virtual const std::string& spec() const = 0;
  // The variant name, e.g. "fastlocal" or "worm".
  virtual std::string_view variant() const = 0;
  virtual HashWidth hash_width() const = 0;
  // Requested bits per key (the built filter's actual bits/key can be larger
  // after rounding to whole cache lines or words).
  virtual double bits_per_key() const = 0;
  // Bit probes per key, for the variants that have such a count (their
  // registration says has_probes: the Bloom layouts). An XOR or Ribbon
  // filter has none and keeps this default.
  virtual std::optional<int> num_probes() const { return std::nullopt; }

  // The hash this policy's filters consume for a key (zero-extended when 32
  // bits wide). Each variant documents which hash function it uses.
  virtual uint64_t HashKey(Slice key) const = 0;
  // out[i] = HashKey(keys[i]) for i < n. The default calls HashKey per key;
  // a variant whose hash vectorises across keys (legacy's BloomHash32)
  // overrides it, so a caller with many keys in hand (a build) hashes them
  // at that speed.
  virtual void HashKeys(const Slice* keys, size_t n, uint64_t* out) const;

  // Builds a filter holding `n` hashes (each counts as one entry for sizing;
  // the caller removes duplicates if it wants them removed).
  virtual Status Build(const uint64_t* hashes, size_t n, std::unique_ptr<Filter>* out) const = 0;

  // Dynamic variants only: an empty filter sized for `expected_keys` adds.
  virtual bool is_dynamic() const { return false; }
  virtual Status NewDynamic(size_t expected_keys, std::unique_ptr<Filter>* out) const;

  // The variant's analytic FP rate for a filter built from n distinct hashes
  // by Build (the model is stated beside each variant's code).
  virtual double ModelFpRate(size_t n) const = 0;

  // Peak bytes Build allocates for n hashes besides the hashes and the
  // filter it returns (Ribbon's banding, a peeling's hypergraph), so callers
  // can refuse a build that cannot fit. Layouts that set bits in their own
  // array need none.
  virtual uint64_t BuildTemporaryBytes(size_t /*n*/) const { return 0; }
};

// Builds a policy from a spec string "variant:key=value,key=value". Unknown
// variants, unknown keys and impossible values give InvalidArgument with a
// message naming the problem and what is allowed.
Status NewFilterPolicy(std::string_view spec, std::unique_ptr<FilterPolicy>* out);

// Rebuilds a filter's query side from serialized bytes alone: the returned
// filter answers exactly as the one serialized, and is read-only
// (SupportsAdd() is false, for dynamic variants too). Contract, for every
// variant: the filter may read `bytes` in place, so they must outlive it and
// its views and must not change meanwhile. Every variant does read them in
// place where their address allows, so a caller chooses the memory queries
// touch (the simulator's huge-page arenas) by where it puts the bytes:
// fastlocal, legacy and legacy_block always (byte reads; fastlocal has a
// path for unaligned lines); standard when they are 8-byte aligned (one word per
// probe); sbbf when 32-byte aligned (its blocks' aligned AVX2 loads); dynamic
// and worm when 64-byte aligned, as their built arrays are (blocks inside one
// cache line; the SIMD scheme's aligned loads). Bytes
// less aligned than that are copied into an owned aligned array, with the
// same answers. Truncated or corrupt bytes and unknown trailers give
// Corruption naming what is wrong.
Status OpenFilter(Slice bytes, std::unique_ptr<Filter>* out);

// Hashes keys with the policy, drops a hash equal to the immediately preceding
// one (as RocksDB's builders do, so repeated keys in sorted input count once),
// and builds. The convenience path for tests, tools and the engine.
Status BuildFilterFromKeys(const FilterPolicy& policy, const Slice* keys, size_t n, std::unique_ptr<Filter>* out);

}  // namespace filterlab
