// Tests specific to "dynamic_old" (the DynamicBloom before RocksDB's 2019
// rewrite, dynamic_old_bloom.cc): its bits are the shared legacy probe
// sequences' (legacy_bloom.h, which RocksDB's vectors check) over the sizes
// the old DynamicBloom used; Add, AddConcurrently and Build set the same bits;
// the serialized form opens with the same answers. The generic checks (no
// false negatives, FP against the model, round trips, spec errors) are in
// filter_property_test.cc and sim/fp_registry_test.cc.
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "common/aligned_array.h"
#include "filters/filter_test_util.h"
#include "filters/legacy_bloom.h"
#include "filters/registry.h"

namespace filterlab {
namespace {

using testing_util::MustPolicy;

using testing_util::TestHashes;

// The data bytes of a serialized filter (everything before its trailer).
std::string DataOf(const Filter& f) { return f.Serialize().substr(0, f.DataBytes()); }

std::unique_ptr<Filter> Dynamic(const FilterPolicy& p, size_t keys) {
  std::unique_ptr<Filter> f;
  EXPECT_TRUE(p.NewDynamic(keys, &f).ok());
  return f;
}

TEST(DynamicOldBloomTest, SizesAreWholeBytesOrAnOddNumberOfLines) {
  // 1000 keys at 10 bits/key: 10000 bits = 1250 bytes without locality;
  // 19.5 lines -> 20 -> 21 (odd) lines with it. 1024 keys: 20 lines -> 21.
  EXPECT_EQ(Dynamic(*MustPolicy("dynamic_old:bpk=10"), 1000)->DataBytes(), 1250u);
  EXPECT_EQ(Dynamic(*MustPolicy("dynamic_old:bpk=10,locality=1"), 1000)->DataBytes(), 21u * 64);
  EXPECT_EQ(Dynamic(*MustPolicy("dynamic_old:bpk=10,locality=1"), 1024)->DataBytes(), 21u * 64);
  EXPECT_EQ(Dynamic(*MustPolicy("dynamic_old:bpk=10,locality=1"), 1100)->DataBytes(), 23u * 64);
  EXPECT_EQ(Dynamic(*MustPolicy("dynamic_old:bpk=10,probes=3"), 3)->DataBytes(), 4u);  // 30 bits -> 4 bytes
}

TEST(DynamicOldBloomTest, BitsAreTheLegacyProbeSequences) {
  const auto hashes = TestHashes(11, 3000, HashWidth::k32);
  for (int locality : {0, 1}) {
    auto p = MustPolicy("dynamic_old:bpk=10,probes=6,locality=" + std::to_string(locality));
    auto f = Dynamic(*p, hashes.size());
    for (uint64_t h : hashes) f->Add(h);
    const size_t bytes = f->DataBytes();
    std::vector<uint8_t> expected(bytes, 0);
    for (uint64_t h : hashes) {
      const auto h32 = static_cast<uint32_t>(h);
      if (locality == 0) {
        legacy::NoLocalityAdd(h32, static_cast<uint32_t>(bytes * 8), 6, expected.data());
      } else {
        const auto lines = static_cast<uint32_t>(bytes / 64);
        legacy::AddToLine<true>(h32, 6, legacy::kLog2LineBytes,
                                expected.data() + legacy::LineOffset<true>(h32, lines, legacy::kLog2LineBytes));
      }
    }
    EXPECT_EQ(DataOf(*f), std::string(expected.begin(), expected.end())) << "locality=" << locality;
  }
}

TEST(DynamicOldBloomTest, AddAddConcurrentlyAndBuildSetTheSameBits) {
  const auto hashes = TestHashes(12, 20000, HashWidth::k32);
  for (const char* spec : {"dynamic_old:bpk=10", "dynamic_old:bpk=10,locality=1"}) {
    auto p = MustPolicy(spec);
    auto serial = Dynamic(*p, hashes.size());
    for (uint64_t h : hashes) serial->Add(h);
    auto parallel = Dynamic(*p, hashes.size());
    std::thread other([&] {
      for (size_t i = 1; i < hashes.size(); i += 2) parallel->AddConcurrently(hashes[i]);
    });
    for (size_t i = 0; i < hashes.size(); i += 2) parallel->AddConcurrently(hashes[i]);
    other.join();
    auto built = testing_util::MustBuild(*p, hashes);
    EXPECT_EQ(DataOf(*parallel), DataOf(*serial)) << spec;
    EXPECT_EQ(DataOf(*built), DataOf(*serial)) << spec;
    for (uint64_t h : hashes) ASSERT_TRUE(parallel->MayContain(h)) << spec;
  }
}

TEST(DynamicOldBloomTest, OpenedFilterAnswersAsTheLiveOne) {
  const auto hashes = TestHashes(13, 5000, HashWidth::k32);
  for (const char* spec : {"dynamic_old:bpk=10", "dynamic_old:bpk=7,probes=4,locality=1"}) {
    auto f = testing_util::MustBuild(*MustPolicy(spec), hashes);
    const std::string bytes = f->Serialize();
    std::unique_ptr<Filter> opened;
    ASSERT_TRUE(OpenFilter(bytes, &opened).ok()) << spec;
    EXPECT_FALSE(opened->SupportsAdd());
    EXPECT_EQ(opened->Describe(), f->Describe());
    for (uint64_t h : TestHashes(14, 20000, HashWidth::k32)) ASSERT_EQ(opened->MayContain(h), f->MayContain(h)) << spec;
  }
}

TEST(DynamicOldBloomTest, SpecErrorsNameWhatIsAllowed) {
  std::unique_ptr<FilterPolicy> p;
  Status s = NewFilterPolicy("dynamic_old:bpk=10,locality=2", &p);
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message().find("locality"), std::string::npos) << s.message();
  s = NewFilterPolicy("dynamic_old:bpk=10,hash=64", &p);
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message().find("hash"), std::string::npos) << s.message();
}

}  // namespace
}  // namespace filterlab
