// The stored form of filters kept outside our tables (keyed_filter.h):
// RocksDB's formats bare, every other filter with its spec; both reopen to a
// filter answering as the one built, and damage is named.
#include "filters/keyed_filter.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <string>
#include <vector>

#include "filters/filter_test_util.h"

namespace filterlab {
namespace {

std::string KeyOf(uint64_t i) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "key%010llu", static_cast<unsigned long long>(i));
  return buf;
}

TEST(KeyedFilter, NativeBareOthersWithSpecAndDamageNamed) {
  for (const char* spec : {"fastlocal:bpk=10", "legacy:bpk=10", "ribbon:bpk=10", "fastlocal:bpk=10,hash=32",
                           "ribbon:bpk=10,homogeneous=1", "xor:fingerprint=8", "sbbf:bpk=10", "standard:bpk=10"}) {
    SCOPED_TRACE(spec);
    auto policy = testing_util::MustPolicy(spec);
    std::vector<std::string> keys;
    for (int i = 0; i < 3000; ++i) keys.push_back(KeyOf(static_cast<uint64_t>(2 * i)));
    std::vector<Slice> slices(keys.begin(), keys.end());
    std::unique_ptr<Filter> filter;
    ASSERT_TRUE(BuildFilterFromKeys(*policy, slices.data(), slices.size(), &filter).ok());
    std::string stored;
    const bool native = StoresNativeRocksDbFormat(*policy);
    AppendKeyedFilter(*policy, native, *filter, &stored);
    EXPECT_EQ(native, std::string(spec) == "fastlocal:bpk=10" || std::string(spec) == "legacy:bpk=10" ||
                          std::string(spec) == "ribbon:bpk=10");
    EXPECT_EQ(stored == filter->Serialize(), native);
    KeyedFilter keyed;
    ASSERT_TRUE(OpenKeyedFilter(stored, &keyed).ok());
    if (!native) {
      EXPECT_EQ(keyed.spec, policy->spec());
    }
    for (const std::string& k : keys) ASSERT_TRUE(keyed.KeyMayMatch(k));
    for (int i = 0; i < 3000; ++i) {
      const std::string absent = KeyOf(static_cast<uint64_t>(2 * i + 1));
      ASSERT_EQ(keyed.KeyMayMatch(absent), filter->MayContain(policy->HashKey(absent)));
    }
    if (!native) {
      std::string bad = stored;
      bad[bad.size() - 5] = static_cast<char>(0x7f);  // spec length now larger than the block
      EXPECT_TRUE(OpenKeyedFilter(bad, &keyed).IsCorruption());
      bad = stored;
      bad[bad.size() - 8 - policy->spec().size()] = '\x01';  // a byte of the spec
      const Status s = OpenKeyedFilter(bad, &keyed);
      EXPECT_TRUE(s.IsCorruption()) << s.ToString();
    }
  }
}

}  // namespace
}  // namespace filterlab
