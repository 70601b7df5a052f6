// Round trips of random data sets through TableBuilder and TableReader: Get,
// MultiGet and the iterator against a sorted-vector model, for every
// registered filter spec and none, with and without the data-block hash
// index, both checksum types and with and without a block cache.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdio>
#include <string>
#include <thread>
#include <vector>

#include "common/test_scale.h"
#include "engine/table/block_cache.h"
#include "engine/table/compression.h"
#include "engine/table/table_builder.h"
#include "engine/table/table_reader.h"
#include "engine/table/table_test_util.h"
#include "filters/registry.h"

namespace filterlab::engine {
namespace {

using testing::BuildTable;
using testing::DataSetOptions;
using testing::Entry;
using testing::LookupTarget;
using testing::ModelGet;
using testing::OpenTable;
using testing::PolicyOrNone;
using testing::RandomEntries;

void ExpectAnswer(const std::vector<Entry>& model, const Slice& target, const LookupResult& r,
                  const std::string& where) {
  ASSERT_TRUE(r.status.ok()) << where << ": " << r.status.ToString();
  const Entry* want = ModelGet(model, target);
  ASSERT_EQ(r.found, want != nullptr) << where;
  if (want) {
    ASSERT_EQ(r.internal_key, want->ikey) << where;
    ASSERT_EQ(r.value, want->value) << where;
  }
}

// A missing user key: longer than any stored key of 1..24 bytes would be
// rare, so mark it with a prefix byte sequence the generator cannot make
// often, then check against the model anyway.
std::string MissingKey(SplitMix64& rng) {
  std::string k(1 + rng.Next() % 30, '\0');
  rng.FillBytes(k.data(), k.size());
  return k;
}

struct VerifyOptions {
  size_t get_stride = 1;  // Get every stride-th user key (1 = all)
  size_t seeks = 300;
  size_t missing = 300;
  size_t batches = 20;
  size_t batch_size = 64;
};

// Checks every read path of `table` against `model`.
void Verify(const TableReader& table, const std::vector<Entry>& model, uint64_t seed, const VerifyOptions& vo = {}) {
  SplitMix64 rng(seed);
  // The full scan.
  auto it = table.NewIterator();
  size_t i = 0;
  for (it->SeekToFirst(); it->Valid(); it->Next(), ++i) {
    ASSERT_LT(i, model.size());
    ASSERT_EQ(it->key(), Slice(model[i].ikey)) << "entry " << i;
    ASSERT_EQ(it->value(), Slice(model[i].value)) << "entry " << i;
  }
  ASSERT_TRUE(it->status().ok()) << it->status().ToString();
  ASSERT_EQ(i, model.size());

  // Seeks to existing keys, to lookup targets before them and to missing keys.
  for (size_t s = 0; s < vo.seeks && !model.empty(); ++s) {
    const Entry& e = model[rng.Next() % model.size()];
    std::string target;
    switch (rng.Next() % 3) {
      case 0: target = e.ikey; break;
      case 1: target = LookupTarget(ExtractUserKey(e.ikey), kMaxSequenceNumber); break;
      default: target = LookupTarget(MissingKey(rng), rng.Next() % 3000);
    }
    it->Seek(target);
    auto want = std::lower_bound(model.begin(), model.end(), Slice(target),
                                 [](const Entry& m, const Slice& t) { return CompareInternalKeys(m.ikey, t) < 0; });
    ASSERT_TRUE(it->status().ok()) << it->status().ToString();
    if (want == model.end()) {
      ASSERT_FALSE(it->Valid());
    } else {
      ASSERT_TRUE(it->Valid());
      ASSERT_EQ(it->key(), Slice(want->ikey));
      // Next continues in order.
      it->Next();
      if (want + 1 == model.end()) {
        ASSERT_FALSE(it->Valid());
      } else {
        ASSERT_TRUE(it->Valid());
        ASSERT_EQ(it->key(), Slice((want + 1)->ikey));
      }
    }
  }

  // Get: newest version, each older version by its own snapshot, and a
  // snapshot older than every version.
  std::vector<std::string> targets;
  LookupResult r;
  size_t user_key_index = 0;
  for (size_t j = 0; j < model.size(); ++j) {
    const Slice uk = ExtractUserKey(model[j].ikey);
    const bool first_version = j == 0 || ExtractUserKey(model[j - 1].ikey) != uk;
    if (first_version) ++user_key_index;
    if (user_key_index % vo.get_stride != 0) continue;
    if (first_version) {
      targets.push_back(LookupTarget(uk, kMaxSequenceNumber));
      table.Get(targets.back(), &r);
      ExpectAnswer(model, targets.back(), r, "Get newest");
    }
    const uint64_t seq = ExtractTrailer(model[j].ikey) >> 8;
    targets.push_back(LookupTarget(uk, seq));
    table.Get(targets.back(), &r);
    ExpectAnswer(model, targets.back(), r, "Get at the version's own sequence");
    targets.push_back(LookupTarget(uk, seq - 1));
    table.Get(targets.back(), &r);
    ExpectAnswer(model, targets.back(), r, "Get just below the version");
  }
  for (size_t m = 0; m < vo.missing; ++m) {
    targets.push_back(LookupTarget(MissingKey(rng), kMaxSequenceNumber));
    table.Get(targets.back(), &r);
    ExpectAnswer(model, targets.back(), r, "Get missing");
  }

  // MultiGet: shuffled batches of the targets above, with duplicates.
  for (size_t b = 0; b < vo.batches && !targets.empty(); ++b) {
    std::vector<Slice> batch(vo.batch_size);
    for (auto& t : batch) t = targets[rng.Next() % targets.size()];
    if (vo.batch_size > 1) batch[1] = batch[0];
    std::vector<LookupResult> results(batch.size());
    table.MultiGet(batch.data(), batch.size(), results.data());
    for (size_t k = 0; k < batch.size(); ++k) ExpectAnswer(model, batch[k], results[k], "MultiGet");
  }
  // One batch of everything, in order.
  if (targets.size() <= 20000) {
    std::vector<Slice> all(targets.begin(), targets.end());
    std::vector<LookupResult> results(all.size());
    table.MultiGet(all.data(), all.size(), results.data());
    for (size_t k = 0; k < all.size(); ++k) ExpectAnswer(model, all[k], results[k], "MultiGet all");
  }
}

std::vector<std::string> SpecsAndNone() {
  std::vector<std::string> specs = AllExampleSpecs();
  specs.insert(specs.begin(), "");
  return specs;
}

TEST(Table, RoundTripEverySpecHashSettingAndSmallSize) {
  uint64_t seed = 1;
  size_t tables = 0;
  for (size_t n : {size_t{0}, size_t{1}, SanitizerScaled(1000, 5)}) {
    DataSetOptions d;
    d.num_user_keys = n;
    const auto model = RandomEntries(d, n + 17);
    for (const auto& spec : SpecsAndNone()) {
      for (bool hash : {false, true}) {
        SCOPED_TRACE("n=" + std::to_string(n) + " spec='" + spec + "' hash=" + std::to_string(hash));
        TableOptions o;
        o.filter_policy = PolicyOrNone(spec);
        o.use_hash_index = hash;
        o.checksum_type = (seed % 2) ? ChecksumType::kXXH3 : ChecksumType::kCRC32C;
        TableProperties props;
        const std::string bytes = BuildTable(o, model, &props);
        BlockCache cache(64 * 1024, 2);  // declared first: it must outlive the reader
        std::unique_ptr<TableReader> table;
        Status s = OpenTable(bytes, "t.sst", &table, seed % 3 == 0 ? &cache : nullptr);
        ASSERT_TRUE(s.ok()) << s.ToString();
        EXPECT_EQ(table->properties().num_entries, model.size());
        EXPECT_EQ(table->properties().filter_spec, props.filter_spec);
        EXPECT_EQ(table->has_filter(), !spec.empty() && n > 0);
        EXPECT_EQ(table->properties().hash_index, hash);
        if (hash && n > 0) {
          EXPECT_GT(table->properties().num_hash_index_blocks, 0u);
        }
        if (!hash) {
          EXPECT_EQ(table->properties().num_hash_index_blocks, 0u);
        }
        Verify(*table, model, ++seed);
        if (::testing::Test::HasFatalFailure()) return;
        ++tables;
      }
    }
  }
  EXPECT_GT(tables, 6u);
}

TEST(Table, RoundTripHundredThousandKeys) {
  DataSetOptions d;
  d.num_user_keys = SanitizerScaled(100000);
  d.long_key_one_in = 64;  // ~1,500 keys of up to 2000 bytes among mostly short ones
  const auto model = RandomEntries(d, 99);
  for (bool hash : {false, true}) {
    for (const char* spec : {"", "fastlocal:bpk=10"}) {
      SCOPED_TRACE(std::string("spec='") + spec + "' hash=" + std::to_string(hash));
      TableOptions o;
      o.filter_policy = PolicyOrNone(spec);
      o.use_hash_index = hash;
      TableProperties props;
      const std::string bytes = BuildTable(o, model, &props);
      // A quarter of the table, in 2 shards: data blocks miss and evict. (A
      // block larger than a shard's budget is never kept, so a small cache
      // with many shards would re-read the big index on every lookup.)
      // Declared before the reader, which it must outlive.
      BlockCache cache(bytes.size() / 4, 1);
      std::unique_ptr<TableReader> table;
      ASSERT_GT(bytes.size() / 8, props.index_size);
      ASSERT_TRUE(OpenTable(bytes, "big.sst", &table, hash ? &cache : nullptr).ok());
      VerifyOptions vo;
      vo.get_stride = 10;
      Verify(*table, model, 5, vo);
      if (::testing::Test::HasFatalFailure()) return;
    }
  }
}

TEST(Table, RoundTripMillionKeysSampled) {
  DataSetOptions d;
  d.num_user_keys = SanitizerScaled(1000000);
  d.max_key_len = 16;
  d.max_versions = 1;
  d.max_value_len = 8;
  const auto model = RandomEntries(d, 1234);
  TableOptions o;
  o.filter_policy = PolicyOrNone("fastlocal:bpk=10");
  o.use_hash_index = true;
  TableProperties props;
  const std::string bytes = BuildTable(o, model, &props);
  EXPECT_EQ(props.num_entries, d.num_user_keys);
  EXPECT_EQ(props.num_filter_keys, d.num_user_keys);
  std::unique_ptr<TableReader> table;
  ASSERT_TRUE(OpenTable(bytes, "million.sst", &table).ok());
  VerifyOptions vo;
  vo.get_stride = 50;  // 20,000 keys × 3 lookups; the scan covers every entry
  vo.batches = 50;
  vo.batch_size = 500;
  Verify(*table, model, 77, vo);
}

TEST(Table, PosixFileRoundTrip) {
  DataSetOptions d;
  d.num_user_keys = 2000;
  const auto model = RandomEntries(d, 3);
  char path[] = "/tmp/filterlab_table_test_XXXXXX";
  const int fd = mkstemp(path);
  ASSERT_GE(fd, 0);
  close(fd);
  {
    std::unique_ptr<WritableFile> file;
    ASSERT_TRUE(NewPosixWritableFile(path, &file).ok());
    TableOptions o;
    o.filter_policy = PolicyOrNone("legacy:bpk=10");
    o.use_hash_index = true;
    std::unique_ptr<TableBuilder> builder;
    ASSERT_TRUE(TableBuilder::Open(o, file.get(), &builder).ok());
    for (const auto& e : model) ASSERT_TRUE(builder->Add(e.ikey, e.value).ok());
    ASSERT_TRUE(builder->Finish().ok());
  }
  std::unique_ptr<RandomAccessFile> file;
  ASSERT_TRUE(NewPosixRandomAccessFile(path, &file).ok());
  std::unique_ptr<TableReader> table;
  Status s = TableReader::Open({}, std::move(file), &table);
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ(table->file_name(), path);
  Verify(*table, model, 4);
  std::remove(path);
}

// Single-version keys, all present, in one shuffled batch: every data block
// is fetched exactly once, where a loop of Gets fetches one block per key.
TEST(Table, MultiGetFetchesEachSharedBlockOnce) {
  DataSetOptions d;
  d.num_user_keys = 5000;
  d.max_versions = 1;
  d.max_key_len = 24;
  const auto model = RandomEntries(d, 8);
  TableOptions o;
  o.filter_policy = PolicyOrNone("fastlocal:bpk=10");
  const std::string bytes = BuildTable(o, model);
  std::unique_ptr<TableReader> table;
  ASSERT_TRUE(OpenTable(bytes, "t.sst", &table).ok());
  std::vector<std::string> targets;
  for (const auto& e : model) targets.push_back(LookupTarget(ExtractUserKey(e.ikey), kMaxSequenceNumber));
  SplitMix64 rng(5);
  for (size_t i = targets.size() - 1; i > 0; --i) std::swap(targets[i], targets[rng.Next() % (i + 1)]);
  std::vector<Slice> batch(targets.begin(), targets.end());
  std::vector<LookupResult> results(batch.size());
  table->MultiGet(batch.data(), batch.size(), results.data());
  for (size_t i = 0; i < batch.size(); ++i) ASSERT_TRUE(results[i].found) << i;
  const TableReaderStats after_batch = table->stats();
  const uint64_t blocks = table->properties().num_data_blocks;
  EXPECT_GT(blocks, 10u);
  EXPECT_EQ(after_batch.data_block_fetches, blocks);
  EXPECT_EQ(after_batch.data_block_reads, blocks);  // no cache: each fetch is a file read
  EXPECT_EQ(after_batch.filter_checks, batch.size());
  EXPECT_EQ(after_batch.filter_negatives, 0u);  // no false negatives
  LookupResult r;
  for (const auto& t : batch) table->Get(t, &r);
  EXPECT_EQ(table->stats().data_block_fetches - after_batch.data_block_fetches, batch.size());
}

// The filter is consulted first: absent keys rarely reach a data block.
// Tolerance: negatives >= m(1 − p) − 4σ with p the policy's model FP rate and
// σ = sqrt(m p (1 − p)), a binomial 4-sigma bound.
TEST(Table, FilterSkipsAbsentKeys) {
  DataSetOptions d;
  d.num_user_keys = SanitizerScaled(10000, 5);  // the 4-sigma bound below follows the sizes
  d.max_versions = 1;
  const auto model = RandomEntries(d, 9);
  for (const auto& spec : AllExampleSpecs()) {
    SCOPED_TRACE(spec);
    TableOptions o;
    o.filter_policy = PolicyOrNone(spec);
    const std::string bytes = BuildTable(o, model);
    std::unique_ptr<TableReader> table;
    ASSERT_TRUE(OpenTable(bytes, "t.sst", &table).ok());
    std::unique_ptr<FilterPolicy> policy;
    ASSERT_TRUE(NewFilterPolicy(spec, &policy).ok());
    const double p = policy->ModelFpRate(model.size());
    SplitMix64 rng(10);
    const size_t m = SanitizerScaled(20000, 5);
    LookupResult r;
    size_t absent = 0;
    for (size_t i = 0; i < m; ++i) {
      const std::string t = LookupTarget(MissingKey(rng), kMaxSequenceNumber);
      if (ModelGet(model, t)) continue;
      ++absent;
      table->Get(t, &r);
      ASSERT_FALSE(r.found);
    }
    const TableReaderStats st = table->stats();
    EXPECT_EQ(st.filter_checks, absent);
    const double expected = absent * (1 - p);
    const double sigma = std::sqrt(absent * p * (1 - p));
    EXPECT_GE(static_cast<double>(st.filter_negatives), expected - 4 * sigma - 1)
        << "model FP rate " << p << ", measured " << 1 - double(st.filter_negatives) / absent;
    // Only filter positives reach the data blocks: one block each, or two
    // when the key sorts past a block's last key and SeekForGet must look
    // at the next block (single-version keys never need a third).
    EXPECT_LE(st.data_block_fetches, 2 * (absent - st.filter_negatives));
    // Every lookup was of an absent key, so every data block fetched (and,
    // without a cache, read) was the cost of a false positive.
    if (!spec.empty()) {
      EXPECT_EQ(st.fp_data_block_fetches, st.data_block_fetches);
      EXPECT_EQ(st.fp_data_block_reads, st.data_block_reads);
      EXPECT_EQ(st.data_block_reads, st.data_block_fetches);  // no cache: each fetch is a read
      EXPECT_EQ(st.data_bytes_read > 0, st.data_block_reads > 0);
    }
  }
}

// Tables whose data blocks are compressed read back exactly, are smaller
// when their values compress (values of 8 distinct byte patterns here), and
// are never larger than without compression (random values: blocks that
// do not shrink by 1/8 stay raw).
TEST(Table, RoundTripCompressed) {
  for (bool compressible : {true, false}) {
    DataSetOptions d;
    d.num_user_keys = SanitizerScaled(3000, 5);
    d.max_value_len = 200;
    auto model = RandomEntries(d, compressible ? 21 : 22);
    if (compressible) {
      for (auto& e : model) {
        for (size_t i = 0; i < e.value.size(); ++i) e.value[i] = "abcdefgh"[(i / 16 + e.value.size()) % 8];
      }
    }
    TableOptions raw_options;
    const size_t raw_size = BuildTable(raw_options, model).size();
    for (CompressionType c : {CompressionType::kLZ4, CompressionType::kZSTD}) {
      SCOPED_TRACE(std::string(CompressionTypeName(c)) + (compressible ? " compressible" : " random"));
      TableOptions o;
      o.compression = c;
      o.filter_policy = PolicyOrNone("fastlocal:bpk=10");
      o.checksum_type = c == CompressionType::kLZ4 ? ChecksumType::kCRC32C : ChecksumType::kXXH3;
      const std::string bytes = BuildTable(o, model);
      TableOptions same_without = o;
      same_without.compression = CompressionType::kNone;
      const size_t uncompressed = BuildTable(same_without, model).size();
      if (compressible) {
        EXPECT_LT(bytes.size(), uncompressed * 3 / 4) << "raw " << raw_size;
      } else {
        EXPECT_LE(bytes.size(), uncompressed);  // a block that would not shrink is stored raw
      }
      BlockCache cache(256 * 1024, 2);
      for (BlockCache* with : {static_cast<BlockCache*>(nullptr), &cache}) {
        std::unique_ptr<TableReader> table;
        Status s = OpenTable(bytes, "t.sst", &table, with);
        ASSERT_TRUE(s.ok()) << s.ToString();
        Verify(*table, model, compressible ? 31 : 32);
      }
    }
  }
}

TEST(Table, BlockCacheServesRepeatedReads) {
  DataSetOptions d;
  d.num_user_keys = 3000;
  const auto model = RandomEntries(d, 12);
  TableOptions o;
  o.filter_policy = PolicyOrNone("fastlocal:bpk=10");
  const std::string bytes = BuildTable(o, model);
  BlockCache cache(64 << 20);
  std::unique_ptr<TableReader> table;
  ASSERT_TRUE(OpenTable(bytes, "t.sst", &table, &cache).ok());
  auto scan = [&] {
    auto it = table->NewIterator();
    size_t n = 0;
    for (it->SeekToFirst(); it->Valid(); it->Next()) ++n;
    EXPECT_EQ(n, model.size());
  };
  scan();
  const uint64_t blocks = table->properties().num_data_blocks;
  EXPECT_EQ(table->stats().data_block_reads, blocks);
  const uint64_t misses = cache.misses();
  scan();
  EXPECT_EQ(table->stats().data_block_reads, blocks) << "second scan must come from the cache";
  EXPECT_EQ(cache.misses(), misses);
  LookupResult r;
  const uint64_t hits = cache.hits();
  table->Get(model[0].ikey, &r);
  EXPECT_TRUE(r.found);
  // The data block is the one hit: the filter and index are pinned in the
  // reader (cached as pinned entries, counted in usage below, not looked up).
  EXPECT_EQ(cache.hits() - hits, 1u);
  EXPECT_GE(cache.usage(), bytes.size() - 2000) << "every block is cached";
  EXPECT_LE(cache.usage(), bytes.size());
}

// Several threads read one table through a small shared cache (evictions
// race with lookups). Run under TSan (build-engine-tsan) for the locking.
TEST(Table, ConcurrentReadersShareTheCache) {
  DataSetOptions d;
  d.num_user_keys = 4000;
  d.max_key_len = 100;
  const auto model = RandomEntries(d, 14);
  TableOptions o;
  o.filter_policy = PolicyOrNone("fastlocal:bpk=10");
  o.use_hash_index = true;
  const std::string bytes = BuildTable(o, model);
  BlockCache cache(bytes.size() / 4, 2);
  std::unique_ptr<TableReader> table;
  ASSERT_TRUE(OpenTable(bytes, "t.sst", &table, &cache).ok());
  std::atomic<int> wrong{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      SplitMix64 rng(200 + t);
      LookupResult r;
      for (int i = 0; i < 2000; ++i) {
        const Entry& e = model[rng.Next() % model.size()];
        table->Get(e.ikey, &r);
        if (!r.status.ok() || !r.found || r.value != e.value) wrong.fetch_add(1);
        if (i % 1000 == 0) {
          auto it = table->NewIterator();
          size_t n = 0;
          for (it->SeekToFirst(); it->Valid(); it->Next()) ++n;
          if (n != model.size() || !it->status().ok()) wrong.fetch_add(1);
        }
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(wrong.load(), 0);
  EXPECT_GT(cache.hits(), 0u);
  EXPECT_GT(cache.misses(), 0u);
  EXPECT_LE(cache.usage(), cache.capacity());
}

TEST(Table, HashIndexAnswersPointLookups) {
  DataSetOptions d;
  d.num_user_keys = 20000;
  d.max_versions = 1;
  d.max_key_len = 16;
  const auto model = RandomEntries(d, 13);
  for (double util : {1.0, 0.75}) {
    TableOptions o;
    o.use_hash_index = true;
    o.hash_util_ratio = util;
    const std::string bytes = BuildTable(o, model);
    std::unique_ptr<TableReader> table;
    ASSERT_TRUE(OpenTable(bytes, "t.sst", &table).ok());
    EXPECT_EQ(table->properties().num_hash_index_blocks, table->properties().num_data_blocks);
    LookupResult r;
    for (const auto& e : model) {
      table->Get(e.ikey, &r);
      ASSERT_TRUE(r.found);
    }
    const TableReaderStats st = table->stats();
    EXPECT_EQ(st.hash_lookups, model.size());
    // The fallback ratio depends on keys per block (RocksDB's data-block hash index blog post, 2018): with ~100
    // keys per 4 KiB block and restart interval 16 the model gives about
    // 0.5; far from 0 and from 1 either way.
    const double fallback = double(st.hash_collisions) / st.hash_lookups;
    EXPECT_GT(fallback, 0.2) << util;
    EXPECT_LT(fallback, 0.8) << util;
    std::printf("[ info ] util %.2f: hash fallback ratio %.3f over %zu lookups\n", util, fallback, model.size());
  }
}

TEST(TableBuilder, RejectsBadInputAndOptions) {
  std::string out;
  auto sink = NewStringSink(&out);
  std::unique_ptr<TableBuilder> b;
  Status s;
  for (double util : {0.0, -1.0, std::nan(""), 1e300}) {
    TableOptions bad;
    bad.hash_util_ratio = util;
    s = TableBuilder::Open(bad, sink.get(), &b);
    EXPECT_TRUE(s.IsInvalidArgument() && s.message().find("hash_util_ratio") != std::string::npos) << util;
  }
  TableOptions bad;
  bad.restart_interval = 0;
  EXPECT_TRUE(TableBuilder::Open(bad, sink.get(), &b).IsInvalidArgument());
  bad = TableOptions();
  bad.block_size = 0;
  EXPECT_TRUE(TableBuilder::Open(bad, sink.get(), &b).IsInvalidArgument());

  ASSERT_TRUE(TableBuilder::Open(TableOptions(), sink.get(), &b).ok());
  EXPECT_TRUE(b->Add("short", "v").IsInvalidArgument());
  // (user key, seq 5, kTypeValue) encodes as key ‖ 01 05 00 00 00 00 00 00.
  const std::string k1 = std::string("b") + std::string("\x01\x05\x00\x00\x00\x00\x00\x00", 8);
  const std::string k0 = std::string("a") + std::string("\x01\x05\x00\x00\x00\x00\x00\x00", 8);
  ASSERT_TRUE(b->Add(k1, "v").ok());
  s = b->Add(k0, "v");
  EXPECT_TRUE(s.IsInvalidArgument());
  EXPECT_NE(s.message().find("not greater"), std::string::npos) << s.ToString();
  EXPECT_TRUE(b->Add(k1, "v").IsInvalidArgument()) << "equal keys are out of order too";
  std::string bad_type = std::string("c") + std::string("\x03\x05\x00\x00\x00\x00\x00\x00", 8);
  EXPECT_TRUE(b->Add(bad_type, "v").IsInvalidArgument());
  ASSERT_TRUE(b->Finish().ok());
  EXPECT_FALSE(b->Finish().ok());
}

}  // namespace
}  // namespace filterlab::engine
