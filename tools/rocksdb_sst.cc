// Reading the filters of RocksDB block-based SST files (rocksdb_sst.h).
#include "tools/rocksdb_sst.h"

#include <xxhash.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <fstream>
#include <iterator>

#include "engine/util/coding.h"
#include "engine/util/crc32c.h"
#include "filters/fp_model.h"
#include "filters/registry.h"
#include "filters/ribbon/ribbon_solution.h"

namespace filterlab::rocksdb_sst {
namespace {

using engine::DecodeFixed32;
using engine::DecodeFixed64;
using engine::GetVarint32Ptr;
using engine::GetVarint64;
using engine::PutVarint64;

// table/format.h: the magic numbers of block-based tables (legacy: format_version 0).
constexpr uint64_t kBlockBasedTableMagic = 0x88e241b785f4cff7ull;
constexpr uint64_t kLegacyBlockBasedTableMagic = 0xdb4775248b80fb57ull;
constexpr uint64_t kPlainTableMagic = 0x8242229663bf9564ull;
constexpr uint64_t kLegacyPlainTableMagic = 0x4f3418eb7a8f13b8ull;
constexpr uint64_t kCuckooTableMagic = 0x926789d0c5f17873ull;
// Footer sizes: legacy = two padded handles (40) + magic; newer = checksum
// type byte + 40 + format_version + magic.
constexpr size_t kHandlesBytes = 40;
constexpr size_t kLegacyFooterBytes = kHandlesBytes + 8;
constexpr size_t kFooterBytes = 1 + kHandlesBytes + 4 + 8;
constexpr size_t kBlockTrailerBytes = 5;                      // compression type + fixed32 checksum
constexpr char kExtendedMagic[4] = {0x3e, 0x00, 0x7a, 0x00};  // format_version >= 6
constexpr uint32_t kMaxFormatVersion = 7;

enum ChecksumType { kNoChecksum = 0, kCRC32c = 1, kxxHash = 2, kxxHash64 = 3, kXXH3 = 4 };

std::string Hex(uint64_t v) {
  char buf[24];
  std::snprintf(buf, sizeof(buf), "0x%llx", static_cast<unsigned long long>(v));
  return buf;
}

// table/format.cc ComputeBuiltinChecksum over data[0, n): what a block
// trailer stores for the block and its compression byte (n = size + 1).
uint32_t BuiltinChecksum(int type, const char* data, size_t n) {
  switch (type) {
    case kCRC32c: return engine::crc32c::Mask(engine::crc32c::Value(data, n));
    case kxxHash: return XXH32(data, n, 0);
    case kxxHash64: return static_cast<uint32_t>(XXH64(data, n, 0));
    case kXXH3: {
      if (n == 0) return 0;
      // XXH3 of all but the last byte, the last byte mixed in by one
      // multiply (RocksDB's ModifyChecksumForLastByte).
      const uint32_t v = static_cast<uint32_t>(XXH3_64bits(data, n - 1));
      return v ^ (static_cast<uint32_t>(static_cast<uint8_t>(data[n - 1])) * 0x6b9083d9u);
    }
    default: return 0;
  }
}

// format_version >= 6: stored checksums are offset by a function of the
// file's base context and the block's offset (table/format.h
// ChecksumModifierForContext), so a block copied elsewhere fails.
uint32_t ContextModifier(uint32_t base, uint64_t offset) {
  if (base == 0) return 0;
  return base ^ (static_cast<uint32_t>(offset) + static_cast<uint32_t>(offset >> 32));
}

bool DecodeHandle(Slice* in, BlockHandle* h) { return GetVarint64(in, &h->offset) && GetVarint64(in, &h->size); }

bool StartsWith(const std::string& s, const char* prefix) { return s.rfind(prefix, 0) == 0; }

}  // namespace

Status SstFile::Open(const std::string& path, std::unique_ptr<SstFile>* out) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Status::IOError(path + ": cannot open");
  std::string contents((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (in.bad()) return Status::IOError(path + ": read error");
  return OpenBytes(path, std::move(contents), out);
}

Status SstFile::OpenBytes(std::string name, std::string contents, std::unique_ptr<SstFile>* out,
                          bool verify_checksums) {
  std::unique_ptr<SstFile> f(new SstFile());
  f->verify_checksums_ = verify_checksums;
  f->name_ = std::move(name);
  f->file_ = std::move(contents);
  Status s = f->Load();
  if (!s.ok()) return s;
  *out = std::move(f);
  return Status::OK();
}

Status SstFile::ReadBlock(const BlockHandle& h, const std::string& what, std::string* contents) const {
  const uint64_t size = file_.size();
  if (h.offset > size || h.size > size - h.offset || kBlockTrailerBytes > size - h.offset - h.size) {
    return Status::Corruption(name_ + ": " + what + " block at offset " + std::to_string(h.offset) + ", size " +
                              std::to_string(h.size) + " (+" + std::to_string(kBlockTrailerBytes) +
                              " trailer) lies past the end of the " + std::to_string(size) + "-byte file");
  }
  const char* p = file_.data() + h.offset;
  const auto compression = static_cast<uint8_t>(p[h.size]);
  if (checksum_type_ != kNoChecksum && verify_checksums_) {
    const uint32_t stored = DecodeFixed32(p + h.size + 1) - ContextModifier(base_context_checksum_, h.offset);
    const uint32_t computed = BuiltinChecksum(checksum_type_, p, h.size + 1);
    if (stored != computed) {
      return Status::Corruption(name_ + ": " + what + " block at offset " + std::to_string(h.offset) +
                                ": checksum mismatch (stored " + Hex(stored) + ", computed " + Hex(computed) +
                                ", checksum type " + std::to_string(checksum_type_) + ")");
    }
  }
  if (compression != 0) {
    return Status::NotSupported(name_ + ": " + what + " block at offset " + std::to_string(h.offset) +
                                " is compressed (type " + std::to_string(compression) +
                                "); RocksDB writes meta and filter blocks uncompressed, and this reader reads no "
                                "other");
  }
  contents->assign(p, h.size);
  return Status::OK();
}

Status SstFile::ParseBlock(const std::string& block, const std::string& what, bool value_delta,
                           std::vector<std::pair<std::string, std::string>>* entries) const {
  entries->clear();
  auto bad = [&](const std::string& why) { return Status::Corruption(name_ + ": " + what + " block: " + why); };
  if (block.size() < 4) return bad("shorter than its restart count (" + std::to_string(block.size()) + " bytes)");
  // The last word: restart count; its top bit flags a data-block hash
  // index (data blocks only), masked off here.
  const uint32_t num_restarts = DecodeFixed32(block.data() + block.size() - 4) & 0x7fffffffu;
  if (num_restarts == 0 || (block.size() - 4) / 4 < num_restarts) {
    return bad(std::to_string(num_restarts) + " restart points do not fit in " + std::to_string(block.size()) +
               " bytes");
  }
  const char* p = block.data();
  const char* limit = block.data() + block.size() - 4 - 4 * uint64_t{num_restarts};
  std::string key;
  BlockHandle prev;
  while (p < limit) {
    uint32_t shared = 0, non_shared = 0, value_len = 0;
    p = GetVarint32Ptr(p, limit, &shared);
    if (p != nullptr) p = GetVarint32Ptr(p, limit, &non_shared);
    if (p != nullptr && !value_delta) p = GetVarint32Ptr(p, limit, &value_len);
    if (p == nullptr) return bad("truncated entry header at entry " + std::to_string(entries->size()));
    if (shared > key.size()) {
      return bad("entry " + std::to_string(entries->size()) + " shares " + std::to_string(shared) + " bytes with a " +
                 std::to_string(key.size()) + "-byte previous key");
    }
    if (non_shared > static_cast<size_t>(limit - p)) return bad("entry key runs past the entries");
    key.resize(shared);
    key.append(p, non_shared);
    p += non_shared;
    std::string value;
    if (!value_delta) {
      if (value_len > static_cast<size_t>(limit - p)) return bad("entry value runs past the entries");
      value.assign(p, value_len);
      p += value_len;
    } else {
      // Index values: a block handle, in full at restarts (and wherever
      // the key shares nothing), else the size change from the previous
      // handle, whose block this one follows (table/format.cc IndexValue).
      Slice rest(p, static_cast<size_t>(limit - p));
      BlockHandle h;
      if (shared == 0) {
        if (!DecodeHandle(&rest, &h)) return bad("truncated block handle at entry " + std::to_string(entries->size()));
      } else {
        uint64_t zigzag = 0;
        if (!GetVarint64(&rest, &zigzag))
          return bad("truncated handle delta at entry " + std::to_string(entries->size()));
        const int64_t delta = static_cast<int64_t>(zigzag >> 1) ^ -static_cast<int64_t>(zigzag & 1);
        h.offset = prev.offset + prev.size + kBlockTrailerBytes;
        h.size = prev.size + static_cast<uint64_t>(delta);
      }
      prev = h;
      std::string encoded;
      PutVarint64(&encoded, h.offset);
      PutVarint64(&encoded, h.size);
      value = std::move(encoded);
      p = rest.data();
    }
    entries->emplace_back(key, std::move(value));
  }
  return Status::OK();
}

Status SstFile::ParseProperties(const std::string& block) {
  std::vector<std::pair<std::string, std::string>> entries;
  Status s = ParseBlock(block, "properties", false, &entries);
  if (!s.ok()) return s;
  for (auto& [k, v] : entries) properties_[k] = std::move(v);
  return Status::OK();
}

bool SstFile::PropertyInt(const std::string& name, uint64_t* v) const {
  const auto it = properties_.find(name);
  if (it == properties_.end()) return false;
  Slice in(it->second);
  return GetVarint64(&in, v) && in.empty();
}

std::string SstFile::PropertyString(const std::string& name) const {
  const auto it = properties_.find(name);
  return it == properties_.end() ? std::string() : it->second;
}

Status SstFile::Load() {
  const uint64_t size = file_.size();
  if (size < kLegacyFooterBytes) {
    return Status::Corruption(name_ + ": " + std::to_string(size) + " bytes is too short for an SST file (its footer " +
                              "alone is at least " + std::to_string(kLegacyFooterBytes) + ")");
  }
  const char* end = file_.data() + size;
  const uint64_t magic = DecodeFixed64(end - 8);
  Slice handles;
  if (magic == kLegacyBlockBasedTableMagic) {
    format_version_ = 0;
    checksum_type_ = kCRC32c;
    handles = Slice(end - kLegacyFooterBytes, kHandlesBytes);
  } else if (magic == kBlockBasedTableMagic) {
    if (size < kFooterBytes) return Status::Corruption(name_ + ": too short for a block-based table footer");
    const char* footer = end - kFooterBytes;
    format_version_ = DecodeFixed32(end - 12);
    checksum_type_ = static_cast<uint8_t>(footer[0]);
    if (format_version_ < 1 || format_version_ > kMaxFormatVersion) {
      return Status::NotSupported(name_ + ": format_version " + std::to_string(format_version_) +
                                  " (this reader knows block-based tables 0.." + std::to_string(kMaxFormatVersion) +
                                  ")");
    }
    if (checksum_type_ > kXXH3) {
      return Status::Corruption(name_ + ": unknown checksum type " + std::to_string(checksum_type_) +
                                " (known: 0 none, 1 crc32c, 2 xxHash, 3 xxHash64, 4 XXH3)");
    }
    if (format_version_ >= 6) {
      // [checksum type][extended magic][footer checksum][base context
      // checksum][metaindex size][24 reserved][format_version][magic]; the
      // metaindex ends where the footer starts (table/format.cc Footer).
      if (std::memcmp(footer + 1, kExtendedMagic, 4) != 0) {
        return Status::Corruption(name_ + ": format_version " + std::to_string(format_version_) +
                                  " footer lacks its extended magic");
      }
      const uint32_t stored = DecodeFixed32(footer + 5);
      base_context_checksum_ = DecodeFixed32(footer + 9);
      const uint32_t metaindex_size = DecodeFixed32(footer + 13);
      if (checksum_type_ != kNoChecksum && verify_checksums_) {
        std::string copy(footer, kFooterBytes);
        std::memset(&copy[5], 0, 4);
        const uint64_t footer_offset = size - kFooterBytes;
        const uint32_t computed = BuiltinChecksum(checksum_type_, copy.data(), copy.size()) +
                                  ContextModifier(base_context_checksum_, footer_offset);
        if (computed != stored) return Status::Corruption(name_ + ": footer checksum mismatch");
      }
      const uint64_t metaindex_end = size - kFooterBytes - kBlockTrailerBytes;
      if (size < kFooterBytes + kBlockTrailerBytes || metaindex_size > metaindex_end) {
        return Status::Corruption(name_ + ": metaindex of " + std::to_string(metaindex_size) +
                                  " bytes would start before the file does");
      }
      return LoadMeta(BlockHandle{metaindex_end - metaindex_size, metaindex_size});
    }
    handles = Slice(footer + 1, kHandlesBytes);
  } else if (magic == kPlainTableMagic || magic == kLegacyPlainTableMagic || magic == kCuckooTableMagic) {
    return Status::NotSupported(name_ + ": a RocksDB " + (magic == kCuckooTableMagic ? "cuckoo" : "plain") +
                                " table (magic " + Hex(magic) + "); only block-based tables have these filters");
  } else {
    return Status::Corruption(name_ + ": not a RocksDB SST file: bad magic " + Hex(magic) +
                              " in its last 8 bytes (block-based tables end with " + Hex(kBlockBasedTableMagic) + ")");
  }

  BlockHandle metaindex;
  if (!DecodeHandle(&handles, &metaindex))
    return Status::Corruption(name_ + ": footer's metaindex handle is malformed");
  return LoadMeta(metaindex);
}

Status SstFile::LoadMeta(const BlockHandle& metaindex) {
  std::string metaindex_block;
  Status s = ReadBlock(metaindex, "metaindex", &metaindex_block);
  if (!s.ok()) return s;
  std::vector<std::pair<std::string, std::string>> meta;
  s = ParseBlock(metaindex_block, "metaindex", false, &meta);
  if (!s.ok()) return s;
  BlockHandle filter_handle;
  bool partitioned = false, have_filter = false;
  for (const auto& [key, value] : meta) {
    Slice v(value);
    BlockHandle h;
    if (key == "rocksdb.properties") {
      if (!DecodeHandle(&v, &h)) return Status::Corruption(name_ + ": bad properties handle in the metaindex");
      std::string props;
      s = ReadBlock(h, "properties", &props);
      if (s.ok()) s = ParseProperties(props);
      if (!s.ok()) return s;
    } else if (StartsWith(key, "fullfilter.") || StartsWith(key, "partitionedfilter.")) {
      if (!DecodeHandle(&v, &h)) return Status::Corruption(name_ + ": bad filter handle for '" + key + "'");
      partitioned = StartsWith(key, "partitionedfilter.");
      filter_policy_name_ = key.substr(key.find('.') + 1);
      filter_handle = h;
      have_filter = true;
    } else if (StartsWith(key, "filter.")) {
      return Status::NotSupported(name_ + ": block-based filter '" + key +
                                  "' (RocksDB's pre-7.0 per-data-block format); this reader reads full and "
                                  "partitioned filters");
    }
  }
  if (!have_filter) return Status::OK();
  return LoadFilters(filter_handle, partitioned);
}

Status SstFile::LoadFilters(const BlockHandle& handle, bool partitioned) {
  // How Get consults the filter (table/block_based/block_based_table_reader.cc):
  // whole keys unless the table was written without whole-key filtering,
  // then prefixes under the table's extractor.
  whole_key_filtering_ = PropertyString("rocksdb.block.based.table.whole.key.filtering") != "0";
  prefix_extractor_ = PropertyString("rocksdb.prefix.extractor.name");
  if (prefix_extractor_ == "nullptr") prefix_extractor_.clear();
  if (!whole_key_filtering_) {
    for (const auto& [prefix, capped] : {std::pair{"rocksdb.FixedPrefix.", false}, {"rocksdb.CappedPrefix.", true}}) {
      if (StartsWith(prefix_extractor_, prefix)) {
        const std::string n = prefix_extractor_.substr(std::strlen(prefix));
        if (!n.empty() && n.size() < 6 && std::all_of(n.begin(), n.end(), ::isdigit)) {
          prefix_length_ = std::stoul(n);
          prefix_capped_ = capped;
        }
      }
    }
    if (prefix_length_ == 0) {
      return Status::NotSupported(name_ + ": the filter holds prefixes of extractor '" + prefix_extractor_ +
                                  "'; this reader knows rocksdb.FixedPrefix.N and rocksdb.CappedPrefix.N");
    }
  }
  uint64_t v = 0;
  index_key_is_user_key_ = PropertyInt("rocksdb.index.key.is.user.key", &v) && v != 0;
  index_value_delta_ = PropertyInt("rocksdb.index.value.is.delta.encoded", &v) && v != 0;

  filter_kind_ = partitioned ? "partitioned" : "full";
  std::vector<std::pair<BlockHandle, std::string>> blocks;
  if (!partitioned) {
    blocks.emplace_back(handle, std::string());
  } else {
    std::string index;
    Status s = ReadBlock(handle, "partitioned filter index", &index);
    if (!s.ok()) return s;
    std::vector<std::pair<std::string, std::string>> entries;
    s = ParseBlock(index, "partitioned filter index", index_value_delta_, &entries);
    if (!s.ok()) return s;
    if (entries.empty()) return Status::Corruption(name_ + ": partitioned filter index has no partitions");
    for (auto& [key, value] : entries) {
      Slice in(value);
      BlockHandle h;
      if (!DecodeHandle(&in, &h)) return Status::Corruption(name_ + ": bad partition handle in the filter index");
      std::string user_key = key;
      if (!index_key_is_user_key_) {
        if (user_key.size() < 8) return Status::Corruption(name_ + ": filter index key shorter than its 8-byte seqno");
        user_key.resize(user_key.size() - 8);
      }
      if (!blocks.empty() && user_key < blocks.back().second) {
        return Status::Corruption(name_ + ": filter index keys out of order");
      }
      blocks.emplace_back(h, std::move(user_key));
    }
  }
  filters_.resize(blocks.size());
  for (size_t i = 0; i < blocks.size(); ++i) {
    FilterBlock& fb = filters_[i];
    fb.handle = blocks[i].first;
    fb.separator = std::move(blocks[i].second);
    const std::string what = partitioned ? "filter partition " + std::to_string(i) : std::string("filter");
    Status s = ReadBlock(fb.handle, what, &fb.bytes);
    if (!s.ok()) return s;
    s = OpenKeyedFilter(fb.bytes, &fb.filter);
    if (!s.ok()) return Status::Corruption(name_ + ": " + what + ": " + s.message());
  }
  return Status::OK();
}

bool SstFile::PrefixOf(Slice user_key, Slice* prefix) const {
  if (prefix_capped_) {
    *prefix = Slice(user_key.data(), std::min(user_key.size(), prefix_length_));
    return true;
  }
  if (user_key.size() < prefix_length_) return false;  // outside FixedPrefix's domain
  *prefix = Slice(user_key.data(), prefix_length_);
  return true;
}

const FilterBlock* SstFile::FilterFor(Slice user_key) const {
  if (filters_.empty()) return nullptr;
  if (filters_.size() == 1 && filters_[0].separator.empty()) return &filters_[0];
  // The first partition whose separator is >= the key; past the last, the
  // last (PartitionedFilterBlockReader::GetFilterPartitionHandle).
  const auto it = std::lower_bound(filters_.begin(), filters_.end(), user_key,
                                   [](const FilterBlock& b, Slice key) { return Slice(b.separator).compare(key) < 0; });
  return it == filters_.end() ? &filters_.back() : &*it;
}

bool SstFile::FilterApplies(Slice user_key) const {
  if (filters_.empty()) return false;
  Slice prefix;
  return whole_key_filtering_ || PrefixOf(user_key, &prefix);
}

bool SstFile::KeyMayMatch(Slice user_key) const {
  if (!FilterApplies(user_key)) return true;
  const FilterBlock* block = FilterFor(user_key);
  if (whole_key_filtering_) return block->filter.KeyMayMatch(user_key);
  Slice prefix;
  PrefixOf(user_key, &prefix);
  return block->filter.KeyMayMatch(prefix);
}

double BlockModelFpRate(const FilterBlock& block, uint64_t entries, std::string* description) {
  const std::string& kind = block.filter.spec;
  const Slice bytes(block.bytes);
  const double n = static_cast<double>(entries);
  if (entries == 0) {
    *description = "no entries";
    return 0;
  }
  if (kind == "rocksdb:legacy") {
    // [bits][probes byte][fixed32 lines], lines of len/lines bytes.
    const int probes = static_cast<uint8_t>(bytes[bytes.size() - 5]);
    const double lines = DecodeFixed32(bytes.data() + bytes.size() - 4);
    *description = "legacy Bloom line model (fpmodel::LegacyLineFpRate)";
    return fpmodel::NarrowHashFpRate(
        n, 32, [&](double distinct) { return fpmodel::LegacyLineFpRate(lines, distinct, probes); });
  }
  if (kind == "rocksdb:fastlocal") {
    // [bits][-1][sub-impl 0][probes in the low 5 bits][2 reserved]
    const int probes = static_cast<uint8_t>(bytes[bytes.size() - 3]) & 0x1f;
    const double bits = 8.0 * static_cast<double>(bytes.size() - 5);
    *description = "FastLocalBloom cache-local model (fpmodel::CacheLocalIdealFpRate, 512-bit lines)";
    return fpmodel::NarrowHashFpRate(
        n, 64, [&](double distinct) { return fpmodel::CacheLocalIdealFpRate(bits / distinct, probes, 512); });
  }
  if (kind == "rocksdb:ribbon") {
    // [solution][-2][seed][fixed24 blocks]: 2^-columns mixed over blocks.
    const uint8_t* t = bytes.udata() + bytes.size() - 3;
    const uint32_t blocks = uint32_t{t[0]} | uint32_t{t[1]} << 8 | uint32_t{t[2]} << 16;
    *description = "Ribbon interleaved-columns model (2^-columns over its blocks)";
    if (blocks < 2) return 1.0;
    return ribbon::InterleavedLayout::For(blocks, bytes.size() - 5).FpRate() + n * std::ldexp(1.0, -64);
  }
  if (kind == "rocksdb:always_false") {
    *description = "always-false filter";
    return 0;
  }
  if (kind == "rocksdb:always_true") {
    *description = "always-true filter";
    return 1;
  }
  // An adapter block: its spec's model.
  *description = "the model of " + kind;
  double fp = 1;
  if (!ModelFpRateAt(*block.filter.hasher, entries, &fp).ok()) {
    *description += " (no value at " + std::to_string(entries) + " keys)";
    return NAN;
  }
  return fp;
}

}  // namespace filterlab::rocksdb_sst
