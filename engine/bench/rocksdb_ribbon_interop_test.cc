// Ribbon filters between RocksDB and us, through a real RocksDB SST file.
//
// Our table format is our own (engine/table/format.h: own footer, framing
// and metaindex), not RocksDB's block-based table, so neither engine opens
// the other's files; what they share is the full-filter block. The proof is
// at that level, with the RocksDB library lsmbench links (librocksdb-dev):
// RocksDB's SstFileWriter writes keys with NewRibbonFilterPolicy(B, -1)
// uncompressed; the filter our ribbon:bpk=B policy builds from the same keys
// (XXPH3 hashes in the writer's key order) must occur byte for byte in that
// file, trailer included (-2 Ribbon, or -1 FastLocalBloom for the small
// filter RocksDB hands to Bloom). Those bytes, taken from RocksDB's file,
// then open with our reader and answer every key; and RocksDB, having
// ingested the file, answers through that very filter block: its filter
// rejects absent keys at our model's rate. Skipped without librocksdb.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <memory>
#include <string>
#include <vector>

#include "filters/filter.h"
#include "filters/filter_test_util.h"

#ifdef FILTERLAB_HAVE_ROCKSDB
#include <rocksdb/db.h>
#include <rocksdb/filter_policy.h>
#include <rocksdb/options.h>
#include <rocksdb/sst_file_writer.h>
#include <rocksdb/statistics.h>
#include <rocksdb/table.h>
#endif

namespace filterlab {
namespace {

#ifdef FILTERLAB_HAVE_ROCKSDB

std::string KeyOf(uint64_t i) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "key%010llu", static_cast<unsigned long long>(i));
  return buf;
}

rocksdb::Options RibbonOptions(double bpk) {
  rocksdb::BlockBasedTableOptions t;
  t.filter_policy.reset(rocksdb::NewRibbonFilterPolicy(bpk, /*bloom_before_level=*/-1));
  t.format_version = 5;
  t.whole_key_filtering = true;
  rocksdb::Options o;
  o.table_factory.reset(rocksdb::NewBlockBasedTableFactory(t));
  o.compression = rocksdb::kNoCompression;
  return o;
}

std::string ReadWholeFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

struct Case {
  double bpk;
  uint64_t keys;
  uint8_t marker;  // 0xfe Ribbon, 0xff FastLocalBloom
};

// Even numbers are added, so odd ones are absent keys inside the file's
// key range (where RocksDB consults the filter).
TEST(RocksDbRibbonInterop, SstFilterBlockIsOurFilterAndBothReadersUseIt) {
  const std::string dir = ::testing::TempDir() + "/filterlab_ribbon_interop_" + std::to_string(::getpid());
  for (const Case& c : {Case{10, 30000, 0xfe}, Case{7, 4000, 0xfe}, Case{16, 20000, 0xfe}, Case{10, 60, 0xff}}) {
    SCOPED_TRACE("bpk=" + std::to_string(c.bpk) + " keys=" + std::to_string(c.keys));
    const rocksdb::Options options = RibbonOptions(c.bpk);
    ASSERT_TRUE(rocksdb::DestroyDB(dir, options).ok());
    const std::string sst = dir + ".sst";
    {
      rocksdb::SstFileWriter writer(rocksdb::EnvOptions(), options);
      ASSERT_TRUE(writer.Open(sst).ok());
      for (uint64_t i = 0; i < c.keys; ++i) ASSERT_TRUE(writer.Put(KeyOf(2 * i), "v").ok());
      ASSERT_TRUE(writer.Finish().ok());
    }
    const std::string file = ReadWholeFile(sst);
    ASSERT_FALSE(file.empty());

    auto policy = testing_util::MustPolicy("ribbon:bpk=" + std::to_string(c.bpk));
    std::vector<uint64_t> hashes;
    for (uint64_t i = 0; i < c.keys; ++i) hashes.push_back(policy->HashKey(KeyOf(2 * i)));
    const std::string ours = testing_util::MustBuild(*policy, hashes)->Serialize();
    ASSERT_GE(ours.size(), 5u);
    EXPECT_EQ(static_cast<uint8_t>(ours[ours.size() - 5]), c.marker);
    const size_t at = file.find(ours);
    ASSERT_NE(at, std::string::npos) << "RocksDB's SST (" << file.size() << " bytes) does not contain our "
                                     << ours.size() << "-byte filter";

    // Our reader on RocksDB's bytes.
    std::unique_ptr<Filter> read;
    ASSERT_TRUE(OpenFilter(Slice(file.data() + at, ours.size()), &read).ok());
    for (uint64_t h : hashes) ASSERT_TRUE(read->MayContain(h));

    // RocksDB's reader on the same block, via a DB that ingested the file.
    rocksdb::Options db_options = options;
    db_options.create_if_missing = true;
    db_options.statistics = rocksdb::CreateDBStatistics();
    rocksdb::DB* raw = nullptr;
    ASSERT_TRUE(rocksdb::DB::Open(db_options, dir, &raw).ok());
    std::unique_ptr<rocksdb::DB> db(raw);
    ASSERT_TRUE(db->IngestExternalFile({sst}, rocksdb::IngestExternalFileOptions()).ok());
    std::string value;
    for (uint64_t i = 0; i < c.keys; i += 7) ASSERT_TRUE(db->Get(rocksdb::ReadOptions(), KeyOf(2 * i), &value).ok());
    const uint64_t useful_before = db_options.statistics->getTickerCount(rocksdb::BLOOM_FILTER_USEFUL);
    uint64_t absent = 0, ours_negative = 0;
    for (uint64_t i = 0; i + 1 < c.keys; ++i) {
      const std::string k = KeyOf(2 * i + 1);
      ASSERT_TRUE(db->Get(rocksdb::ReadOptions(), k, &value).IsNotFound());
      ++absent;
      ours_negative += read->MayContain(policy->HashKey(k)) ? 0 : 1;
    }
    const uint64_t rocks_negative = db_options.statistics->getTickerCount(rocksdb::BLOOM_FILTER_USEFUL) - useful_before;
    // The same bytes and the same hash: the two readers must agree on every
    // absent key, so their negative counts are equal, not merely close.
    EXPECT_EQ(rocks_negative, ours_negative);
    // And both reject at the model's rate. Tolerance: 4 binomial sigmas of
    // the model FP over `absent` queries (the keys are fixed, so this is
    // one draw; 4 sigma makes a false alarm ~1e-4).
    const double p = policy->ModelFpRate(c.keys);
    const double expected = absent * (1 - p);
    const double sigma = std::sqrt(absent * p * (1 - p));
    EXPECT_NEAR(static_cast<double>(ours_negative), expected, 4 * sigma + 1) << "model FP " << p;
    db.reset();
    ASSERT_TRUE(rocksdb::DestroyDB(dir, options).ok());
    std::remove(sst.c_str());
  }
}

#else

TEST(RocksDbRibbonInterop, SstFilterBlockIsOurFilterAndBothReadersUseIt) {
  GTEST_SKIP() << "lsmbench was built without librocksdb (pkg-config rocksdb not found)";
}

#endif

}  // namespace
}  // namespace filterlab
