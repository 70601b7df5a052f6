// The FilterPolicy adapter inside a real RocksDB (librocksdb): our filters in
// its tables across flushes, compactions and reopening, answering Get and
// MultiGet correctly, with RocksDB's own filter tickers giving FP rates
// within the filters' models; and RocksDB's own formats written through the
// adapter byte for byte as RocksDB's policies write them.
#include "rocksdb_adapter/filter_policy_adapter.h"

#include <gtest/gtest.h>
#include <rocksdb/db.h>
#include <rocksdb/options.h>
#include <rocksdb/slice_transform.h>
#include <rocksdb/sst_file_writer.h>
#include <rocksdb/statistics.h>
#include <rocksdb/table.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "common/test_scale.h"
#include "filters/filter_test_util.h"
#include "filters/fp_tolerance.h"
#include "filters/registry.h"

namespace filterlab::rocksdb_adapter {
namespace {

std::string KeyOf(uint64_t i) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "key%010llu", static_cast<unsigned long long>(i));
  return buf;
}

std::shared_ptr<const rocksdb::FilterPolicy> MustAdapter(const std::string& spec, bool cross_check = false) {
  std::shared_ptr<const FilterPolicy> policy = testing_util::MustPolicy(spec);
  std::shared_ptr<const rocksdb::FilterPolicy> out;
  AdapterOptions options;
  options.cross_check_native = cross_check;
  const Status s = NewAdapterPolicy(policy, options, &out);
  EXPECT_TRUE(s.ok()) << spec << ": " << s.ToString();
  return out;
}

rocksdb::Options DbOptions(std::shared_ptr<const rocksdb::FilterPolicy> filter, int format_version = 5,
                           bool partitioned = false) {
  rocksdb::BlockBasedTableOptions t;
  t.filter_policy = std::move(filter);
  t.format_version = format_version;
  t.whole_key_filtering = true;
  t.optimize_filters_for_memory = false;  // sizes from bits/key alone, as our policies compute them
  if (partitioned) {
    t.partition_filters = true;
    t.index_type = rocksdb::BlockBasedTableOptions::kTwoLevelIndexSearch;
    t.metadata_block_size = 1024;  // several partitions even for small tables
  }
  rocksdb::Options o;
  o.create_if_missing = true;
  o.table_factory.reset(rocksdb::NewBlockBasedTableFactory(t));
  o.compression = rocksdb::kNoCompression;
  o.disable_auto_compactions = true;
  o.target_file_size_base = 1ull << 30;  // a full compaction writes one table
  o.statistics = rocksdb::CreateDBStatistics();
  return o;
}

std::string TempDir(const std::string& what) {
  return ::testing::TempDir() + "/filterlab_adapter_" + what + "_" + std::to_string(::getpid());
}

struct Tickers {
  uint64_t useful, positive, true_positive;
};
Tickers Read(const rocksdb::Statistics& s) {
  return {s.getTickerCount(rocksdb::BLOOM_FILTER_USEFUL), s.getTickerCount(rocksdb::BLOOM_FILTER_FULL_POSITIVE),
          s.getTickerCount(rocksdb::BLOOM_FILTER_FULL_TRUE_POSITIVE)};
}

// Every present key (even numbers below 2n) found with its value, every
// absent one (odd) not, by Get and by MultiGet.
void ExpectAllAnswersRight(rocksdb::DB* db, uint64_t n, const std::string& when) {
  SCOPED_TRACE(when);
  std::string value;
  for (uint64_t i = 0; i < 2 * n; ++i) {
    const rocksdb::Status s = db->Get(rocksdb::ReadOptions(), KeyOf(i), &value);
    if (i % 2 == 0) {
      ASSERT_TRUE(s.ok()) << KeyOf(i) << ": " << s.ToString();
      ASSERT_EQ(value, "v" + KeyOf(i));
    } else {
      ASSERT_TRUE(s.IsNotFound()) << KeyOf(i) << ": " << s.ToString();
    }
  }
  constexpr size_t kBatch = 32;
  std::vector<std::string> keys(kBatch);
  std::vector<rocksdb::Slice> slices(kBatch);
  std::vector<rocksdb::PinnableSlice> values(kBatch);
  std::vector<rocksdb::Status> statuses(kBatch);
  for (uint64_t start = 0; start < 2 * n; start += kBatch) {
    const size_t m = std::min<uint64_t>(kBatch, 2 * n - start);
    for (size_t j = 0; j < m; ++j) {
      keys[j] = KeyOf(start + j);
      slices[j] = keys[j];
      values[j].Reset();
    }
    db->MultiGet(rocksdb::ReadOptions(), db->DefaultColumnFamily(), m, slices.data(), values.data(), statuses.data());
    for (size_t j = 0; j < m; ++j) {
      if ((start + j) % 2 == 0) {
        ASSERT_TRUE(statuses[j].ok()) << keys[j] << ": " << statuses[j].ToString();
        ASSERT_EQ(values[j].ToString(), "v" + keys[j]);
      } else {
        ASSERT_TRUE(statuses[j].IsNotFound()) << keys[j] << ": " << statuses[j].ToString();
      }
    }
  }
}

struct FpCount {
  uint64_t checked = 0;  // filter consultations for absent keys
  uint64_t false_positives = 0;
};

// Absent keys only (odd, inside the table's key range), through Get or
// MultiGet, read back from RocksDB's tickers.
FpCount AbsentKeyFp(rocksdb::DB* db, rocksdb::Statistics* stats, uint64_t n, bool multiget) {
  const Tickers before = Read(*stats);
  std::string value;
  if (!multiget) {
    for (uint64_t i = 0; i + 1 < n; ++i) {
      EXPECT_TRUE(db->Get(rocksdb::ReadOptions(), KeyOf(2 * i + 1), &value).IsNotFound());
    }
  } else {
    constexpr size_t kBatch = 64;
    std::vector<std::string> keys(kBatch);
    std::vector<rocksdb::Slice> slices(kBatch);
    std::vector<rocksdb::PinnableSlice> values(kBatch);
    std::vector<rocksdb::Status> statuses(kBatch);
    for (uint64_t start = 0; start + 1 < n; start += kBatch) {
      const size_t m = std::min<uint64_t>(kBatch, n - 1 - start);
      for (size_t j = 0; j < m; ++j) {
        keys[j] = KeyOf(2 * (start + j) + 1);
        slices[j] = keys[j];
        values[j].Reset();
      }
      db->MultiGet(rocksdb::ReadOptions(), db->DefaultColumnFamily(), m, slices.data(), values.data(), statuses.data());
      for (size_t j = 0; j < m; ++j) EXPECT_TRUE(statuses[j].IsNotFound());
    }
  }
  const Tickers after = Read(*stats);
  FpCount c;
  const uint64_t useful = after.useful - before.useful;
  const uint64_t positive = after.positive - before.positive;
  EXPECT_EQ(after.true_positive, before.true_positive) << "absent keys counted as true positives";
  c.checked = useful + positive;
  c.false_positives = positive;
  return c;
}

// The filters of the end-to-end list, none of which RocksDB has.
const char* const kAdaptedSpecs[] = {
    "binary_fuse:arity=4,fingerprint=8",     "xor:fingerprint=8",           "sbbf:bpk=10",
    "worm:variant=cache_mul64_block,bpk=10", "ribbon:bpk=10,homogeneous=1",
};

// Keys in three flushes (overlapping L0 tables: every lookup consults every
// table's filter), then one compaction into a single table; answers checked
// at each stage and after reopening with another adapter spec (the blocks
// name their own filters). FP from RocksDB's tickers against the model of
// the single compacted table: Q absent keys each consult its filter once.
TEST(FilterPolicyAdapter, EveryAdaptedFilterAnswersRightInRocksDbAndMeetsItsModel) {
  const uint64_t n = SanitizerScaled(60000, 10);
  for (const char* spec : kAdaptedSpecs) {
    SCOPED_TRACE(spec);
    const std::string dir = TempDir("e2e");
    std::shared_ptr<const rocksdb::FilterPolicy> adapter = MustAdapter(spec);
    rocksdb::Options options = DbOptions(adapter);
    ASSERT_TRUE(rocksdb::DestroyDB(dir, options).ok());
    rocksdb::DB* raw = nullptr;
    ASSERT_TRUE(rocksdb::DB::Open(options, dir, &raw).ok());
    std::unique_ptr<rocksdb::DB> db(raw);
    // Three flushes of interleaved thirds, so each L0 table spans the key range.
    for (uint64_t part = 0; part < 3; ++part) {
      for (uint64_t i = part; i < n; i += 3) {
        ASSERT_TRUE(db->Put(rocksdb::WriteOptions(), KeyOf(2 * i), "v" + KeyOf(2 * i)).ok());
      }
      ASSERT_TRUE(db->Flush(rocksdb::FlushOptions()).ok());
    }
    ExpectAllAnswersRight(db.get(), n, "three L0 tables");
    const AdapterStats* stats = StatsOf(*adapter);
    ASSERT_NE(stats, nullptr);
    EXPECT_EQ(stats->filters_built.load(), 3u);
    EXPECT_EQ(stats->entries_added.load(), n);

    rocksdb::CompactRangeOptions compact;
    compact.bottommost_level_compaction = rocksdb::BottommostLevelCompaction::kForce;
    ASSERT_TRUE(db->CompactRange(compact, nullptr, nullptr).ok());
    std::vector<rocksdb::LiveFileMetaData> files;
    db->GetLiveFilesMetaData(&files);
    ASSERT_EQ(files.size(), 1u);
    ExpectAllAnswersRight(db.get(), n, "compacted");

    std::shared_ptr<const FilterPolicy> ours = testing_util::MustPolicy(spec);
    const double model = ours->ModelFpRate(n);
    const FpAllowedRange allowed = AllowedFpRange(model, n - 1, FpModelKindOf(*ours));
    FpCount get = AbsentKeyFp(db.get(), options.statistics.get(), n, /*multiget=*/false);
    FpCount mget = AbsentKeyFp(db.get(), options.statistics.get(), n, /*multiget=*/true);
    for (const auto& [what, c] : {std::pair{"Get", get}, std::pair{"MultiGet", mget}}) {
      ASSERT_EQ(c.checked, n - 1) << what << ": every absent key consults the one table's filter once";
      const double fp = static_cast<double>(c.false_positives) / static_cast<double>(c.checked);
      const double z = (fp - model) / BinomialSigma(model, c.checked);
      EXPECT_GE(fp, allowed.low) << what << " FP " << fp << " model " << model << " z " << z << " (" << allowed.rule
                                 << ")";
      EXPECT_LE(fp, allowed.high) << what << " FP " << fp << " model " << model << " z " << z << " (" << allowed.rule
                                  << ")";
      std::printf("[ adapter ] %-40s %-8s n=%llu FP %.6f model %.6f z %+.2f\n", spec, what,
                  static_cast<unsigned long long>(n), fp, model, z);
    }
    // The filter answers the same keys, so the batched and single paths agree exactly.
    EXPECT_EQ(get.false_positives, mget.false_positives);

    // Reopen with another adapter spec: the table's block says what it holds.
    db.reset();
    rocksdb::Options reopened = DbOptions(MustAdapter("standard:bpk=4"));
    reopened.create_if_missing = false;
    ASSERT_TRUE(rocksdb::DB::Open(reopened, dir, &raw).ok());
    db.reset(raw);
    ExpectAllAnswersRight(db.get(), n, "reopened with standard:bpk=4");
    const FpCount again = AbsentKeyFp(db.get(), reopened.statistics.get(), n, false);
    EXPECT_EQ(again.checked, get.checked);
    EXPECT_EQ(again.false_positives, get.false_positives) << "the reopened DB must query the filter it wrote";
    db.reset();
    ASSERT_TRUE(rocksdb::DestroyDB(dir, options).ok());
  }
}

// RocksDB's own formats through the adapter are RocksDB's tables: a DB
// written by RocksDB's policy reads through the adapter, and one written by
// the adapter through RocksDB's policy, with the very same answers (equal
// BLOOM_FILTER_USEFUL counts over the same absent keys) as the writer's.
TEST(FilterPolicyAdapter, RocksDbAndTheAdapterReadEachOthersTables) {
  const uint64_t n = SanitizerScaled(30000, 10);
  for (const char* spec : {"fastlocal:bpk=10", "legacy:bpk=10", "ribbon:bpk=10"}) {
    int format_version = 5;
    std::shared_ptr<const rocksdb::FilterPolicy> native =
        RocksDbNativeEquivalent(*testing_util::MustPolicy(spec), &format_version);
    ASSERT_NE(native, nullptr);
    std::shared_ptr<const rocksdb::FilterPolicy> adapter = MustAdapter(spec);
    for (const bool native_writes : {true, false}) {
      SCOPED_TRACE(std::string(spec) + (native_writes ? ": RocksDB writes" : ": the adapter writes"));
      const std::string dir = TempDir("cross");
      rocksdb::Options writer = DbOptions(native_writes ? native : adapter, format_version);
      ASSERT_TRUE(rocksdb::DestroyDB(dir, writer).ok());
      rocksdb::DB* raw = nullptr;
      ASSERT_TRUE(rocksdb::DB::Open(writer, dir, &raw).ok());
      std::unique_ptr<rocksdb::DB> db(raw);
      for (uint64_t i = 0; i < n; ++i)
        ASSERT_TRUE(db->Put(rocksdb::WriteOptions(), KeyOf(2 * i), "v" + KeyOf(2 * i)).ok());
      ASSERT_TRUE(db->Flush(rocksdb::FlushOptions()).ok());
      const FpCount written = AbsentKeyFp(db.get(), writer.statistics.get(), n, false);
      db.reset();
      rocksdb::Options reader = DbOptions(native_writes ? adapter : native, format_version);
      ASSERT_TRUE(rocksdb::DB::Open(reader, dir, &raw).ok());
      db.reset(raw);
      ExpectAllAnswersRight(db.get(), n, "read by the other");
      const FpCount read = AbsentKeyFp(db.get(), reader.statistics.get(), n, false);
      EXPECT_EQ(read.checked, n - 1) << "the other policy must find the table's filter";
      EXPECT_EQ(read.false_positives, written.false_positives);
      EXPECT_EQ(read.checked, written.checked);
      db.reset();
      ASSERT_TRUE(rocksdb::DestroyDB(dir, writer).ok());
    }
  }
}

// Writes `n` even keys into an SST with the given table options; returns the
// adapter's stats when it is one.
void WriteSst(const rocksdb::Options& options, const std::string& path, uint64_t n) {
  rocksdb::SstFileWriter writer(rocksdb::EnvOptions(), options);
  ASSERT_TRUE(writer.Open(path).ok());
  for (uint64_t i = 0; i < n; ++i) ASSERT_TRUE(writer.Put(KeyOf(2 * i), "v").ok());
  const rocksdb::Status s = writer.Finish();
  ASSERT_TRUE(s.ok()) << s.ToString();
}

// RocksDB's own formats through the adapter with the cross-check on: each
// filter is built by both and compared byte for byte (a difference fails
// the write). Full and partitioned, whole-key and with a prefix extractor.
TEST(FilterPolicyAdapter, NativeFormatsThroughTheAdapterAreRocksDbsOwnBytes) {
  const uint64_t n = SanitizerScaled(40000, 10);
  for (const char* spec : {"fastlocal:bpk=10", "fastlocal:bpk=7.5", "legacy:bpk=10", "ribbon:bpk=10"}) {
    for (const bool partitioned : {false, true}) {
      for (const bool prefix : {false, true}) {
        SCOPED_TRACE(std::string(spec) + (partitioned ? " partitioned" : " full") + (prefix ? " prefix" : ""));
        std::shared_ptr<const rocksdb::FilterPolicy> adapter = MustAdapter(spec, /*cross_check=*/true);
        int format_version = 5;
        ASSERT_NE(RocksDbNativeEquivalent(*testing_util::MustPolicy(spec), &format_version), nullptr);
        rocksdb::Options options = DbOptions(adapter, format_version, partitioned);
        if (prefix) options.prefix_extractor.reset(rocksdb::NewFixedPrefixTransform(8));
        const std::string path = TempDir("native") + ".sst";
        WriteSst(options, path, n);
        const AdapterStats* stats = StatsOf(*adapter);
        EXPECT_GE(stats->cross_checked.load(), partitioned ? 2u : 1u);
        EXPECT_EQ(stats->cross_check_identical.load(), stats->cross_checked.load());
        EXPECT_EQ(stats->cross_checked.load(), stats->filters_built.load());
        std::remove(path.c_str());
      }
    }
  }
}

// A cross-check that cannot hold fails the write: fastlocal:bpk=10 through
// the adapter compared with RocksDB's policy at 9 bits/key.
TEST(FilterPolicyAdapter, CrossCheckFailsTheWriteOnDifferentBytes) {
  std::shared_ptr<const rocksdb::FilterPolicy> adapter;
  AdapterOptions options;
  options.cross_check_with.reset(rocksdb::NewBloomFilterPolicy(9));
  ASSERT_TRUE(NewAdapterPolicy(testing_util::MustPolicy("fastlocal:bpk=10"), options, &adapter).ok());
  const std::string path = TempDir("mismatch") + ".sst";
  rocksdb::SstFileWriter writer(rocksdb::EnvOptions(), DbOptions(adapter));
  ASSERT_TRUE(writer.Open(path).ok());
  for (uint64_t i = 0; i < 1000; ++i) ASSERT_TRUE(writer.Put(KeyOf(i), "v").ok());
  const rocksdb::Status s = writer.Finish();
  EXPECT_TRUE(s.IsCorruption()) << s.ToString();
  EXPECT_NE(s.ToString().find("cross-check failed"), std::string::npos) << s.ToString();
  EXPECT_EQ(StatsOf(*adapter)->cross_check_identical.load(), 0u);
  std::remove(path.c_str());
}

TEST(FilterPolicyAdapter, CrossCheckRejectsSpecsRocksDbCannotBuild) {
  std::shared_ptr<const rocksdb::FilterPolicy> out;
  AdapterOptions options;
  options.cross_check_native = true;
  for (const char* spec : {"fastlocal:bpk=10,probes=3", "ribbon:bpk=10,homogeneous=1", "sbbf:bpk=10"}) {
    const Status s = NewAdapterPolicy(testing_util::MustPolicy(spec), options, &out);
    EXPECT_TRUE(s.IsInvalidArgument()) << spec;
    EXPECT_NE(s.message().find("fastlocal:bpk=B"), std::string::npos) << s.message();
  }
  const Status s = NewAdapterPolicy(testing_util::MustPolicy("dynamic:bpk=10"), AdapterOptions(), &out);
  EXPECT_TRUE(s.IsInvalidArgument());
  EXPECT_NE(s.message().find("memtable filter"), std::string::npos) << s.message();
}

}  // namespace
}  // namespace filterlab::rocksdb_adapter
