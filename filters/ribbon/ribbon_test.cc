// Standard128Ribbon: RocksDB's vectors by name, the native reader's checks
// of damaged bytes, the fp= form, and the specs it refuses.
#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "filters/filter.h"
#include "filters/registry.h"
#include "filters/vectors/vector_check.h"
#include "hashing/remix.h"

namespace filterlab {
namespace {

std::vector<uint64_t> RandomHashes(uint64_t seed, size_t n) {
  SplitMix64 gen(seed);
  std::vector<uint64_t> h(n);
  for (auto& v : h) v = gen.Next();
  return h;
}

std::unique_ptr<FilterPolicy> Policy(const std::string& spec) {
  std::unique_ptr<FilterPolicy> p;
  const Status s = NewFilterPolicy(spec, &p);
  EXPECT_TRUE(s.ok()) << spec << ": " << s.ToString();
  return p;
}

TEST(Ribbon, RocksDbVectorsEveryCase) {
  const std::string path = std::string(FILTERLAB_REFERENCE_DIR) + "/../vectors-modern/ribbon_filter.json";
  std::string kind;
  std::vector<VectorCaseResult> results;
  const Status s = CheckVectorFile(path, &kind, &results);
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ(kind, "ribbon_filter");
  EXPECT_EQ(results.size(), 90u);
  for (const auto& r : results) EXPECT_TRUE(r.passed) << r.name << ": " << r.detail;
}

TEST(Ribbon, SerializedFormHasRibbonTrailerAndReadsBack) {
  auto policy = Policy("ribbon:bpk=10");
  const auto hashes = RandomHashes(1, 5000);
  std::unique_ptr<Filter> built;
  ASSERT_TRUE(policy->Build(hashes.data(), hashes.size(), &built).ok());
  const std::string bytes = built->Serialize();
  ASSERT_GE(bytes.size(), 5u);
  EXPECT_EQ(static_cast<uint8_t>(bytes[bytes.size() - 5]), 0xfe);
  EXPECT_EQ((bytes.size() - 5) % 16, 0u);
  EXPECT_EQ(built->DataBytes(), bytes.size() - 5);
  std::unique_ptr<Filter> read;
  ASSERT_TRUE(OpenFilter(bytes, &read).ok());
  EXPECT_EQ(read->Describe(), built->Describe());
  for (uint64_t h : hashes) ASSERT_TRUE(read->MayContain(h));
  const auto others = RandomHashes(2, 10000);
  for (uint64_t h : others) ASSERT_EQ(read->MayContain(h), built->MayContain(h));
}

TEST(Ribbon, SmallFiltersAreFastLocalBloomAsInRocksDb) {
  auto policy = Policy("ribbon:bpk=10");
  const auto hashes = RandomHashes(3, 50);
  std::unique_ptr<Filter> built;
  ASSERT_TRUE(policy->Build(hashes.data(), hashes.size(), &built).ok());
  const std::string bytes = built->Serialize();
  EXPECT_EQ(static_cast<uint8_t>(bytes[bytes.size() - 5]), 0xff);
}

TEST(Ribbon, NativeReaderRefusesDamagedBytes) {
  auto policy = Policy("ribbon:bpk=10");
  const auto hashes = RandomHashes(4, 3000);
  std::unique_ptr<Filter> built;
  ASSERT_TRUE(policy->Build(hashes.data(), hashes.size(), &built).ok());
  const std::string good = built->Serialize();
  std::unique_ptr<Filter> read;

  std::string cut = good.substr(3);  // data no longer whole 16-byte segments
  Status s = OpenFilter(cut, &read);
  EXPECT_TRUE(s.IsCorruption()) << s.ToString();

  std::string one_block = good;
  one_block[good.size() - 3] = 1;
  one_block[good.size() - 2] = 0;
  one_block[good.size() - 1] = 0;
  s = OpenFilter(one_block, &read);
  EXPECT_TRUE(s.IsCorruption()) << s.ToString();
  EXPECT_NE(s.message().find("blocks"), std::string::npos) << s.ToString();

  // 2 blocks cannot hold more than 32 columns (1024 bytes) of solution.
  std::string too_long = std::string(2048, '\0') + good.substr(good.size() - 5);
  too_long[too_long.size() - 3] = 2;
  too_long[too_long.size() - 2] = 0;
  too_long[too_long.size() - 1] = 0;
  s = OpenFilter(too_long, &read);
  EXPECT_TRUE(s.IsCorruption()) << s.ToString();
}

// The fp= form: FP within its model. 20000 keys, 400000 other hashes at
// fp=0.01: ~4000 expected positives (sd ~63); 6 sd of tolerance keeps a
// correct filter from failing (fixed seeds, so the outcome is fixed anyway)
// while a filter one column off (2x or 0.5x) fails by > 60 sd.
TEST(Ribbon, FpFormMeetsItsModel) {
  auto policy = Policy("ribbon:fp=0.01");
  EXPECT_EQ(policy->spec(), "ribbon:fp=0.01");
  const auto hashes = RandomHashes(5, 20000);
  std::unique_ptr<Filter> built;
  ASSERT_TRUE(policy->Build(hashes.data(), hashes.size(), &built).ok());
  for (uint64_t h : hashes) ASSERT_TRUE(built->MayContain(h));
  const auto others = RandomHashes(6, 400000);
  size_t positives = 0;
  for (uint64_t h : others) positives += built->MayContain(h) ? 1 : 0;
  const double expected = policy->ModelFpRate(hashes.size()) * others.size();
  EXPECT_NEAR(expected, 4000, 40);  // the model aims at the target
  EXPECT_NEAR(static_cast<double>(positives), expected, 6 * std::sqrt(expected));
}

TEST(Ribbon, RegisteredWithoutProbes) {
  const FilterVariant* v = FindFilterVariant("ribbon");
  ASSERT_NE(v, nullptr);
  EXPECT_FALSE(v->has_probes);
  EXPECT_FALSE(Policy("ribbon:bpk=7")->num_probes().has_value());
}

TEST(Ribbon, RefusesBadSpecs) {
  std::unique_ptr<FilterPolicy> p;
  for (const char* spec : {"ribbon:bpk=10,fp=0.01", "ribbon:fp=0", "ribbon:fp=1", "ribbon:bpk=0.4", "ribbon:probes=6"}) {
    const Status s = NewFilterPolicy(spec, &p);
    EXPECT_TRUE(s.IsInvalidArgument()) << spec << ": " << s.ToString();
  }
}

}  // namespace
}  // namespace filterlab
