// Stored filters with the hash of their keys (keyed_filter.h).
#include "filters/keyed_filter.h"

#include <cstring>

#include "filters/trailer.h"

namespace filterlab {
namespace {

constexpr size_t kMagicBytes = sizeof(kKeyedFilterMagic);
constexpr size_t kFixedBytes = 4 + kMagicBytes;  // fixed32 spec length + magic
// RocksDB's full-filter metadata: the last 5 bytes, the first of them a
// signed marker (table/block_based/filter_policy.cc, GetBuiltinFilterBitsReader).
constexpr size_t kRocksDbMetadataBytes = 5;

bool HasKeyedMagic(Slice bytes) {
  return bytes.size() >= kMagicBytes &&
         std::memcmp(bytes.data() + bytes.size() - kMagicBytes, kKeyedFilterMagic, kMagicBytes) == 0;
}

// The stand-in policy whose HashKey is a RocksDB format's key hash, and the
// format's name; NotFound for bytes in no RocksDB format we know.
Status NativeHasher(Slice bytes, std::string* spec, std::string* hasher_spec) {
  if (bytes.size() <= kRocksDbMetadataBytes) {
    *spec = "rocksdb:always_false";
    *hasher_spec = "fastlocal:bpk=10";  // never consulted: every answer is false
    return Status::OK();
  }
  const auto marker = static_cast<int8_t>(bytes[bytes.size() - kRocksDbMetadataBytes]);
  if (marker == -1 || marker == -2) {
    *spec = marker == -1 ? "rocksdb:fastlocal" : "rocksdb:ribbon";
    *hasher_spec = "fastlocal:bpk=10";  // XXPH3-64 of the key, as GetSliceHash64
  } else if (marker == 0) {
    *spec = "rocksdb:always_true";
    *hasher_spec = "fastlocal:bpk=10";
  } else if (marker > 0) {
    *spec = "rocksdb:legacy";
    *hasher_spec = "legacy:bpk=10";  // BloomHash32
  } else {
    return Status::NotFound("marker " + std::to_string(marker));
  }
  return Status::OK();
}

}  // namespace

bool StoresNativeRocksDbFormat(const FilterPolicy& policy) {
  const std::string_view v = policy.variant();
  if (v != "fastlocal" && v != "legacy" && v != "ribbon") return false;
  // A filter of a few keys shows the serialized form; RocksDB's formats carry
  // no filterlab trailer (hash=32 fastlocal and homogeneous Ribbon do).
  const uint64_t hashes[3] = {0x9e3779b97f4a7c15ull, 0xbf58476d1ce4e5b9ull, 0x94d049bb133111ebull};
  std::unique_ptr<Filter> probe;
  if (!policy.Build(hashes, 3, &probe).ok()) return false;
  const std::string bytes = probe->Serialize();
  if (HasFilterlabTrailer(bytes)) return false;
  std::string spec, hasher_spec;
  if (!NativeHasher(bytes, &spec, &hasher_spec).ok()) return false;
  std::unique_ptr<FilterPolicy> hasher;
  if (!NewFilterPolicy(hasher_spec, &hasher).ok()) return false;
  for (const char* key : {"", "a", "key0000000001", "a longer key than a cache line's worth of bytes, to be sure"}) {
    if (hasher->HashKey(key) != policy.HashKey(key)) return false;
  }
  return true;
}

void AppendKeyedFilter(const FilterPolicy& policy, bool native, const Filter& filter, std::string* out) {
  filter.Serialize(out);
  if (native) return;
  const std::string& spec = policy.spec();
  out->append(spec);
  const uint32_t n = static_cast<uint32_t>(spec.size());
  const char len[4] = {static_cast<char>(n), static_cast<char>(n >> 8), static_cast<char>(n >> 16),
                       static_cast<char>(n >> 24)};
  out->append(len, 4);
  out->append(kKeyedFilterMagic, kMagicBytes);
}

Status OpenKeyedFilter(Slice bytes, KeyedFilter* out) {
  *out = KeyedFilter{};
  std::string hasher_spec;
  Slice filter_bytes = bytes;
  if (HasKeyedMagic(bytes)) {
    if (bytes.size() < kFixedBytes) {
      return Status::Corruption("keyed filter truncated: " + std::to_string(bytes.size()) + " bytes, at least " +
                                std::to_string(kFixedBytes) + " needed for its spec length and magic 'FLS1'");
    }
    const uint8_t* len = bytes.udata() + bytes.size() - kFixedBytes;
    const uint64_t spec_len =
        uint64_t{len[0]} | uint64_t{len[1]} << 8 | uint64_t{len[2]} << 16 | uint64_t{len[3]} << 24;
    if (spec_len > bytes.size() - kFixedBytes) {
      return Status::Corruption("keyed filter says its spec is " + std::to_string(spec_len) + " bytes, but only " +
                                std::to_string(bytes.size() - kFixedBytes) + " precede its length");
    }
    const size_t filter_len = bytes.size() - kFixedBytes - spec_len;
    const std::string spec(bytes.data() + filter_len, spec_len);
    for (size_t i = 0; i < spec.size(); ++i) {
      if (spec[i] < 0x20 || spec[i] > 0x7e) {
        return Status::Corruption("keyed filter spec has a non-printable byte at offset " + std::to_string(i));
      }
    }
    out->spec = spec;
    hasher_spec = spec;
    filter_bytes = Slice(bytes.data(), filter_len);
  } else {
    Status s = NativeHasher(bytes, &out->spec, &hasher_spec);
    if (!s.ok()) {
      return Status::Corruption("filter block is neither a RocksDB filter (unknown marker byte: " + s.message() +
                                "; known: -1 FastLocalBloom, -2 Ribbon, 0 always-true, 1..30 legacy Bloom probes) "
                                "nor a filterlab filter with its spec (magic 'FLS1')");
    }
  }
  Status s = NewFilterPolicy(hasher_spec, &out->hasher);
  if (!s.ok()) return Status::Corruption("keyed filter spec '" + hasher_spec + "' cannot be used: " + s.message());
  s = OpenFilter(filter_bytes, &out->filter);
  if (!s.ok()) return s;
  if (out->filter->hash_width() != out->hasher->hash_width()) {
    return Status::Corruption("keyed filter spec '" + hasher_spec + "' hashes to " +
                              HashWidthText(out->hasher->hash_width()) + " bits, but its filter (" +
                              out->filter->Describe() + ") was built over " + HashWidthText(out->filter->hash_width()) +
                              "-bit hashes");
  }
  return Status::OK();
}

}  // namespace filterlab
