// Our SST filter reader (tools/rocksdb_sst.h) on SST files librocksdb wrote
// with each of RocksDB's filters (legacy Bloom, FastLocalBloom, Ribbon), full
// and partitioned, whole-key and prefix, and with adapter filters: it
// identifies each filter and answers exactly as RocksDB's own reader for
// every present key and 10^5 absent ones. RocksDB's answer per key is read
// from its BLOOM_FILTER_USEFUL ticker around a Get on a DB that ingested the
// file (one file, so each Get consults that file's filter once).
#include <gtest/gtest.h>
#include <rocksdb/db.h>
#include <rocksdb/statistics.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <memory>
#include <string>

#include "common/test_scale.h"
#include "filters/fp_tolerance.h"
#include "rocksdb_adapter/sst_writer.h"
#include "tools/rocksdb_sst.h"

namespace filterlab::rocksdb_adapter {
namespace {

struct Case {
  std::string filter;
  bool partitioned;
  int prefix_length;
  std::string expect_format;  // FilterBlock::filter.spec of every block
};

std::string Name(const Case& c) {
  return c.filter + (c.partitioned ? " partitioned" : " full") +
         (c.prefix_length > 0 ? " prefix" + std::to_string(c.prefix_length) : " whole-key");
}

class SstFiltersTest : public ::testing::TestWithParam<Case> {};

TEST_P(SstFiltersTest, IdentifiesTheFilterAndAgreesWithRocksDbOnEveryQuery) {
  const Case& c = GetParam();
  SstSpec spec;
  spec.filter = c.filter;
  spec.partitioned = c.partitioned;
  spec.prefix_length = c.prefix_length;
  spec.stride = c.prefix_length > 0 ? 10000 : 1;
  const uint64_t absent = SanitizerScaled(100000, 20);
  spec.keys = absent + 1;
  const std::string dir = ::testing::TempDir() + "/filterlab_sst_filters_" + std::to_string(::getpid());
  const std::string path = dir + ".sst";
  ASSERT_TRUE(WriteSst(spec, path).ok());

  std::unique_ptr<rocksdb_sst::SstFile> f;
  const Status s = rocksdb_sst::SstFile::Open(path, &f);
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ(f->format_version(), c.filter == "legacy:bpk=10" ? 4u : 5u);
  EXPECT_EQ(f->filter_kind(), c.partitioned ? "partitioned" : "full");
  ASSERT_FALSE(f->filters().empty());
  if (c.partitioned) {
    EXPECT_GT(f->filters().size(), 2u);
  }
  for (const auto& block : f->filters()) EXPECT_EQ(block.filter.spec, c.expect_format);
  EXPECT_EQ(f->whole_key_filtering(), c.prefix_length == 0);
  uint64_t entries = 0;
  ASSERT_TRUE(f->PropertyInt("rocksdb.num.filter_entries", &entries));
  if (c.prefix_length == 0) {
    EXPECT_EQ(entries, spec.keys);
  } else {
    // One prefix per key, plus what RocksDB adds at partition edges (a
    // partition also holds the next partition's first key and prefix,
    // counted again there).
    EXPECT_GE(entries, spec.keys);
    EXPECT_LE(entries, spec.keys + 2 * f->filters().size() + 1);
  }

  // RocksDB's reader, through a DB holding only this file.
  rocksdb::Options options;
  ASSERT_TRUE(SstOptionsFor(spec, &options).ok());
  options.create_if_missing = true;
  options.statistics = rocksdb::CreateDBStatistics();
  ASSERT_TRUE(rocksdb::DestroyDB(dir, options).ok());
  rocksdb::DB* raw = nullptr;
  ASSERT_TRUE(rocksdb::DB::Open(options, dir, &raw).ok());
  std::unique_ptr<rocksdb::DB> db(raw);
  ASSERT_TRUE(db->IngestExternalFile({path}, rocksdb::IngestExternalFileOptions()).ok());
  rocksdb::Statistics& stats = *options.statistics;

  uint64_t agree = 0, disagree = 0, ours_negative = 0;
  std::string value;
  auto ask = [&](const std::string& key, bool present) {
    const uint64_t before = stats.getTickerCount(rocksdb::BLOOM_FILTER_USEFUL);
    const rocksdb::Status gs = db->Get(rocksdb::ReadOptions(), key, &value);
    ASSERT_TRUE(present ? gs.ok() : gs.IsNotFound()) << key << ": " << gs.ToString();
    const bool rocks_match = stats.getTickerCount(rocksdb::BLOOM_FILTER_USEFUL) == before;
    const bool ours_match = f->KeyMayMatch(key);
    (rocks_match == ours_match ? agree : disagree)++;
    if (!present && !ours_match) ++ours_negative;
    if (present) {
      ASSERT_TRUE(ours_match) << "false negative for present key " << key;
    }
  };
  for (uint64_t i = 0; i < spec.keys; ++i) ask(PresentKey(spec, i), true);
  for (uint64_t i = 0; i < absent; ++i) ask(AbsentKey(spec, i), false);
  EXPECT_EQ(disagree, 0u) << agree << " queries agreed";
  EXPECT_EQ(agree, spec.keys + absent);
  std::printf("[ sst ] %-52s %llu of %llu queries agree; absent keys passed %.5f\n", Name(c).c_str(),
              static_cast<unsigned long long>(agree), static_cast<unsigned long long>(agree + disagree),
              1.0 - static_cast<double>(ours_negative) / static_cast<double>(absent));

  // The model of a full filter, against the absent keys (each has its own
  // key or prefix): 4 sigma + the model kind's allowance (fp_tolerance.h).
  if (!c.partitioned) {
    std::string model_text;
    const double model = rocksdb_sst::BlockModelFpRate(f->filters()[0], entries, &model_text);
    const double fp = 1.0 - static_cast<double>(ours_negative) / static_cast<double>(absent);
    const FpAllowedRange allowed = AllowedFpRange(model, absent, FpModelKind::kExact);
    EXPECT_GE(fp, allowed.low) << model_text << " model " << model;
    EXPECT_LE(fp, allowed.high) << model_text << " model " << model;
  }
  db.reset();
  ASSERT_TRUE(rocksdb::DestroyDB(dir, options).ok());
  std::remove(path.c_str());
}

INSTANTIATE_TEST_SUITE_P(RocksDbFilters, SstFiltersTest,
                         ::testing::Values(Case{"fastlocal:bpk=10", false, 0, "rocksdb:fastlocal"},
                                           Case{"fastlocal:bpk=10", true, 0, "rocksdb:fastlocal"},
                                           Case{"fastlocal:bpk=10", false, 10, "rocksdb:fastlocal"},
                                           Case{"fastlocal:bpk=10", true, 10, "rocksdb:fastlocal"},
                                           Case{"legacy:bpk=10", false, 0, "rocksdb:legacy"},
                                           Case{"legacy:bpk=10", true, 0, "rocksdb:legacy"},
                                           Case{"legacy:bpk=10", false, 10, "rocksdb:legacy"},
                                           Case{"legacy:bpk=10", true, 10, "rocksdb:legacy"},
                                           Case{"ribbon:bpk=10", false, 0, "rocksdb:ribbon"},
                                           Case{"ribbon:bpk=10", true, 0, "rocksdb:ribbon"},
                                           Case{"ribbon:bpk=10", false, 10, "rocksdb:ribbon"},
                                           Case{"ribbon:bpk=10", true, 10, "rocksdb:ribbon"},
                                           Case{"adapter:xor:fingerprint=8", false, 0, "xor:fingerprint=8,hash=64"},
                                           Case{"adapter:sbbf:bpk=10", true, 10, "sbbf:bpk=10,hash=64"}),
                         [](const ::testing::TestParamInfo<Case>& info) {
                           std::string n = Name(info.param);
                           for (char& ch : n) {
                             if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
                           }
                           return n;
                         });

// Damaged files: every truncation and a flipped byte in each block get a
// named error (Corruption / NotSupported), never a crash or a silent read.
TEST(SstFilters, DamagedFilesGetNamedErrors) {
  SstSpec spec;
  spec.keys = 2000;
  spec.partitioned = true;
  const std::string path = ::testing::TempDir() + "/filterlab_sst_damaged_" + std::to_string(::getpid()) + ".sst";
  ASSERT_TRUE(WriteSst(spec, path).ok());
  std::unique_ptr<rocksdb_sst::SstFile> f;
  ASSERT_TRUE(rocksdb_sst::SstFile::Open(path, &f).ok());
  std::string bytes;
  {
    FILE* in = std::fopen(path.c_str(), "rb");
    ASSERT_NE(in, nullptr);
    char buf[4096];
    for (size_t n; (n = std::fread(buf, 1, sizeof buf, in)) > 0;) bytes.append(buf, n);
    std::fclose(in);
  }
  Status s = rocksdb_sst::SstFile::OpenBytes("t", bytes.substr(0, 20), &f);
  EXPECT_TRUE(s.IsCorruption());
  EXPECT_NE(s.message().find("too short"), std::string::npos) << s.ToString();
  s = rocksdb_sst::SstFile::OpenBytes("t", bytes.substr(0, bytes.size() - 1), &f);
  EXPECT_NE(s.message().find("bad magic"), std::string::npos) << s.ToString();
  s = rocksdb_sst::SstFile::OpenBytes("t", std::string(4096, 'x'), &f);
  EXPECT_NE(s.message().find("not a RocksDB SST file"), std::string::npos) << s.ToString();
  // A flipped bit in every filter block (checksummed: XXH3) is caught.
  ASSERT_TRUE(rocksdb_sst::SstFile::OpenBytes("t", bytes, &f).ok());
  const uint64_t first = f->filters().front().handle.offset;
  std::string damaged = bytes;
  damaged[first + 3] ^= 0x10;
  s = rocksdb_sst::SstFile::OpenBytes("t", damaged, &f);
  EXPECT_TRUE(s.IsCorruption());
  EXPECT_NE(s.message().find("checksum mismatch"), std::string::npos) << s.ToString();
  EXPECT_NE(s.message().find("filter partition 0"), std::string::npos) << s.ToString();
  // Every truncation point: an error, never a crash.
  size_t errors = 0;
  for (size_t len = 0; len < bytes.size(); len += 7) {
    errors += rocksdb_sst::SstFile::OpenBytes("t", bytes.substr(0, len), &f).ok() ? 0 : 1;
  }
  EXPECT_EQ(errors, (bytes.size() + 6) / 7);
  std::remove(path.c_str());
}

}  // namespace
}  // namespace filterlab::rocksdb_adapter
