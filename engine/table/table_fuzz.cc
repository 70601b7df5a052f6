// libFuzzer target over the table reader, the block decoder and the filter
// reader: whatever the bytes, opening and reading must give a Status (OK or
// Corruption), never a crash, an out-of-bounds read or undefined behaviour;
// and a table we build ourselves must read back exactly what went in.
//
// The first input byte picks a mode, the rest is its payload:
//   0  round trip: the payload is split into entries and options; they are
//      built into a table, which must open and return every entry through
//      Get, MultiGet and the iterator (this reaches the code behind the
//      checksums, which random bytes never get past);
//   1  raw table bytes through TableReader::Open, Get, MultiGet and a scan;
//   2  raw block contents (no checksum in the way) decoded with both key
//      orders: full scan, Seek and SeekForGet at keys taken from the payload;
//   3  raw filter bytes through OpenFilter, then queries;
//   4  a stored compressed block: the next byte is its compression type, the
//      rest its bytes, through UncompressBlock (Corruption or the announced
//      size, no crash; this reaches the decompressors without a checksum in
//      the way);
//   5  raw range-filter bytes through OpenRangeFilter, then range queries.
// Round trips with flag bit 7 also build a range filter (the next byte picks
// a registered range variant's example spec) and check that no seek range
// holding a stored key is ruled out by it (TableReader::SeekMayMatch); tables
// of mode 1 are asked seek queries too, so range-filter blocks of damaged
// tables are opened and queried.
// Built only with clang (-DFILTERLAB_FUZZ=ON, see ./filterlab fuzz); seeds
// come from table_fuzz_seeds_main.cc.
#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "common/slice.h"
#include "common/status.h"
#include "engine/memtable/internal_key.h"
#include "engine/table/block.h"
#include "engine/table/compression.h"
#include "engine/table/table_builder.h"
#include "engine/table/table_reader.h"
#include "engine/util/file.h"
#include "filters/filter.h"
#include "filters/range/range_filter.h"
#include "filters/registry.h"

namespace filterlab::engine {
namespace {

// Consumes the payload front to back; past the end it yields zeros.
class ByteReader {
 public:
  ByteReader(const uint8_t* data, size_t size) : data_(data), size_(size) {}
  uint8_t Byte() { return pos_ < size_ ? data_[pos_++] : 0; }
  std::string Bytes(size_t n) {
    n = std::min(n, size_ - pos_);
    std::string out(reinterpret_cast<const char*>(data_ + pos_), n);
    pos_ += n;
    return out;
  }
  bool empty() const { return pos_ >= size_; }

 private:
  const uint8_t* data_;
  size_t size_;
  size_t pos_ = 0;
};

void Crash(const char* what, const std::string& detail) {
  fprintf(stderr, "table_fuzz: %s: %s\n", what, detail.c_str());
  abort();
}

// Reads everything a reader offers; errors are fine, crashes are not.
void Exercise(const TableReader& table, const std::vector<std::string>& probes) {
  for (const std::string& user_key : probes) {
    LookupKey lk(user_key, kMaxSequenceNumber);
    LookupResult r;
    table.Get(lk.internal_key(), &r);
  }
  std::vector<LookupKey> lks;
  for (const std::string& k : probes) lks.emplace_back(k, kMaxSequenceNumber);
  std::vector<Slice> targets;
  for (const LookupKey& lk : lks) targets.push_back(lk.internal_key());
  std::vector<LookupResult> results(targets.size());
  table.MultiGet(targets.data(), targets.size(), results.data());
  auto it = table.NewIterator();
  for (it->SeekToFirst(); it->Valid(); it->Next()) {
  }
  // Seek queries between consecutive probes (the range filter, the prefix entries).
  for (size_t i = 0; i + 1 < probes.size(); ++i) {
    const Slice lo(probes[i]), hi(probes[i + 1]);
    SeekQuery q;
    q.lo = lo;
    q.hi = &hi;
    table.SeekMayMatch(q);
  }
}

// Every registered range variant's first example spec, as policies.
const std::vector<std::shared_ptr<const RangeFilterPolicy>>& RangePolicies() {
  static const std::vector<std::shared_ptr<const RangeFilterPolicy>> policies = [] {
    std::vector<std::shared_ptr<const RangeFilterPolicy>> out;
    for (const RangeFilterVariant* v : RegisteredRangeFilterVariants()) {
      std::unique_ptr<RangeFilterPolicy> p;
      if (v->examples.empty() || !NewRangeFilterPolicy(v->examples.front(), &p).ok()) std::abort();
      out.push_back(std::move(p));
    }
    return out;
  }();
  return policies;
}

void RoundTrip(ByteReader& in) {
  TableOptions o;
  const uint8_t flags = in.Byte();
  o.block_size = 64 + 64 * (in.Byte() % 64);
  o.restart_interval = 1 + in.Byte() % 32;
  o.use_hash_index = flags & 1;
  o.hash_util_ratio = (flags & 2) ? 0.75 : 1.0;
  static const std::vector<std::shared_ptr<const FilterPolicy>> kPolicies = [] {
    std::vector<std::shared_ptr<const FilterPolicy>> policies = {nullptr};
    for (const char* spec : {"fastlocal:bpk=10", "legacy:bpk=10", "standard:bpk=8,hash=64"}) {
      std::unique_ptr<FilterPolicy> p;
      if (!NewFilterPolicy(spec, &p).ok()) std::abort();
      policies.push_back(std::move(p));
    }
    return policies;
  }();
  o.filter_policy = kPolicies[(flags >> 2) % 4];
  o.checksum_type = (flags & 16) ? ChecksumType::kXXH3 : ChecksumType::kCRC32C;
  // Bits 5-6: data-block compression (3 = none as 0).
  const uint8_t compression = (flags >> 5) & 3;
  o.compression = compression == 1   ? CompressionType::kLZ4
                  : compression == 2 ? CompressionType::kZSTD
                                     : CompressionType::kNone;
  // Bit 7: a range filter, the next byte picking the variant.
  if (flags & 128) {
    const auto& policies = RangePolicies();
    if (!policies.empty()) o.range_filter_policy = policies[in.Byte() % policies.size()];
  }

  // Entries: length-prefixed user keys and values; each key gets one or two
  // versions (a newer deletion or value on top).
  std::map<std::string, std::string> model;  // user key -> newest value ("" + deleted set)
  std::map<std::string, bool> deleted;
  while (!in.empty() && model.size() + deleted.size() < 400) {
    std::string key = in.Bytes(in.Byte() % 40);
    std::string value = in.Bytes(in.Byte() % 64);
    const bool del = in.Byte() % 5 == 0;
    if (model.count(key) || deleted.count(key)) continue;
    if (del) {
      deleted[key] = true;
    } else {
      model[key] = value;
    }
  }
  std::vector<std::pair<std::string, std::string>> entries;  // internal key, value
  std::map<std::string, bool> all;
  for (const auto& [k, v] : model) all[k] = false;
  for (const auto& [k, d] : deleted) all[k] = true;
  SequenceNumber seq = 1000;
  for (const auto& [k, is_deleted] : all) {
    std::string ikey;
    AppendInternalKey(&ikey, k, seq--, is_deleted ? kTypeDeletion : kTypeValue);
    entries.emplace_back(ikey, is_deleted ? std::string() : model[k]);
  }

  std::string bytes;
  {
    auto sink = NewStringSink(&bytes);
    std::unique_ptr<TableBuilder> builder;
    Status s = TableBuilder::Open(o, sink.get(), &builder);
    if (!s.ok()) Crash("builder open", s.ToString());
    for (const auto& [ikey, value] : entries) {
      s = builder->Add(ikey, value);
      if (!s.ok()) Crash("add", s.ToString());
    }
    s = builder->Finish();
    if (!s.ok()) Crash("finish", s.ToString());
  }
  std::unique_ptr<TableReader> table;
  Status s = TableReader::Open(TableReaderOptions(), NewStringFile(bytes, "fuzz.sst"), &table);
  if (!s.ok()) Crash("open of a table we built", s.ToString());

  std::vector<LookupKey> lks;
  for (const auto& [k, is_deleted] : all) lks.emplace_back(k, kMaxSequenceNumber);
  lks.emplace_back(std::string("\xff\xff\xff-absent", 10), kMaxSequenceNumber);
  std::vector<Slice> targets;
  for (const LookupKey& lk : lks) targets.push_back(lk.internal_key());
  std::vector<LookupResult> batch(targets.size());
  table->MultiGet(targets.data(), targets.size(), batch.data());
  size_t i = 0;
  for (const auto& [k, is_deleted] : all) {
    LookupResult single;
    s = table->Get(targets[i], &single);
    if (!s.ok()) Crash("get", s.ToString());
    if (!single.found) Crash("get lost a key", k);
    ParsedInternalKey parsed;
    if (!ParseInternalKey(single.internal_key, &parsed).ok()) Crash("get returned a bad key", k);
    if ((parsed.type == kTypeDeletion) != is_deleted) Crash("get returned the wrong type", k);
    if (!is_deleted && single.value != model[k]) Crash("get returned the wrong value", k);
    if (!batch[i].status.ok() || batch[i].found != single.found || batch[i].value != single.value ||
        batch[i].internal_key != single.internal_key) {
      Crash("multiget disagrees with get", k);
    }
    ++i;
  }
  auto it = table->NewIterator();
  size_t n = 0;
  for (it->SeekToFirst(); it->Valid(); it->Next(), ++n) {
    if (n >= entries.size() || it->key() != Slice(entries[n].first) || it->value() != Slice(entries[n].second)) {
      Crash("iterator order", std::to_string(n));
    }
  }
  if (!it->status().ok() || n != entries.size()) Crash("iterator end", it->status().ToString());

  // No seek range holding a stored key may be ruled out: [k, k] (the end
  // k ‖ 0x00) for every key, and [a, b) from each key to a later one.
  std::vector<std::string> keys;
  for (const auto& [k, is_deleted] : all) keys.push_back(k);
  for (size_t a = 0; a < keys.size(); ++a) {
    const std::string end = keys[a] + std::string(1, '\0');
    const Slice hi(end);
    SeekQuery q;
    q.lo = keys[a];
    q.hi = &hi;
    if (table->SeekMayMatch(q).combined() == LookupResult::Filter::kNegative) Crash("range filter lost a key", keys[a]);
    const size_t b = a + 1 + (a * 7) % 5;
    if (b < keys.size()) {
      const Slice wide(keys[b]);
      q.hi = &wide;
      if (table->SeekMayMatch(q).combined() == LookupResult::Filter::kNegative) {
        Crash("range filter lost a range", keys[a] + ".." + keys[b]);
      }
    }
  }
}

void RawTable(ByteReader& in, size_t size) {
  std::string bytes = in.Bytes(size);
  std::vector<std::string> probes;
  for (size_t i = 0; i + 4 <= bytes.size() && probes.size() < 8; i += 1 + bytes.size() / 8) {
    probes.push_back(bytes.substr(i, 4));
  }
  std::unique_ptr<TableReader> table;
  if (TableReader::Open(TableReaderOptions(), NewStringFile(bytes, "fuzz.sst"), &table).ok()) {
    Exercise(*table, probes);
  }
}

void RawRangeFilter(ByteReader& in, size_t size) {
  const std::string bytes = in.Bytes(size);
  std::unique_ptr<RangeFilter> filter;
  if (!OpenRangeFilter(Slice(bytes), &filter).ok() || filter == nullptr) return;
  uint64_t x = 0x9e3779b97f4a7c15ULL;
  for (int i = 0; i < 16; ++i) {
    x = x * 6364136223846793005ULL + 1442695040888963407ULL;
    const uint64_t lo = x >> (i % 64), hi = lo + (x & 0xffff);
    if (hi >= lo) filter->MayContainRange(lo, hi);
    const std::string a = EncodeBigEndian64(lo), b = EncodeBigEndian64(hi >= lo ? hi : lo);
    filter->MayContainBytesRange(a, b);
  }
}

void RawBlock(ByteReader& in, size_t size) {
  const uint8_t num_probes = in.Byte() % 8;
  std::vector<std::string> probes;
  for (uint8_t i = 0; i < num_probes; ++i) probes.push_back(in.Bytes(in.Byte() % 24));
  const std::string contents = in.Bytes(size);
  for (KeyOrder order : {KeyOrder::kBytewise, KeyOrder::kInternal}) {
    std::unique_ptr<Block> block;
    if (!Block::Open(contents, "fuzz block", order, &block).ok()) continue;
    BlockIter scan(block.get());
    for (scan.SeekToFirst(); scan.Valid(); scan.Next()) {
    }
    for (const std::string& p : probes) {
      std::string target;
      if (order == KeyOrder::kInternal) {
        AppendInternalKey(&target, p, kMaxSequenceNumber, kValueTypeForSeek);
      } else {
        target = p;
      }
      BlockIter seek(block.get());
      seek.Seek(target);
      if (seek.Valid()) seek.Next();
      BlockIter get(block.get());
      get.SeekForGet(target);
    }
  }
}

void RawFilter(ByteReader& in, size_t size) {
  const std::string bytes = in.Bytes(size);
  std::unique_ptr<Filter> filter;
  if (!OpenFilter(Slice(bytes), &filter).ok() || filter == nullptr) return;
  uint64_t hashes[16];
  bool out[16];
  for (int i = 0; i < 16; ++i) hashes[i] = 0x9E3779B97F4A7C15ull * (i + 1);
  for (int i = 0; i < 16; ++i) filter->MayContain(hashes[i]);
  filter->MayContainBatch(hashes, 16, out);
}

void RawCompressedBlock(ByteReader& in) {
  const uint8_t type = in.Byte();
  const std::string stored = in.Bytes(1 << 20);
  std::string raw;
  const Status s = UncompressBlock(type, stored, "fuzzed block", &raw);
  if (s.ok() && raw.size() > kMaxUncompressedBlock) Crash("UncompressBlock", "output over the limit");
  if (!s.ok() && !s.IsCorruption()) Crash("UncompressBlock", s.ToString());
}

}  // namespace
}  // namespace filterlab::engine

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace filterlab::engine;
  if (size == 0) return 0;
  ByteReader in(data + 1, size - 1);
  // Six modes (mode 4 was unreachable while this took the byte modulo 4).
  switch (data[0] % 6) {
    case 0: RoundTrip(in); break;
    case 1: RawTable(in, size - 1); break;
    case 2: RawBlock(in, size - 1); break;
    case 3: RawFilter(in, size - 1); break;
    case 4: RawCompressedBlock(in); break;
    case 5: RawRangeFilter(in, size - 1); break;
  }
  return 0;
}
