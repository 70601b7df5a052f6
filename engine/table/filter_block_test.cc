#include "engine/table/filter_block.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "filters/filter.h"
#include "filters/registry.h"
#include "hashing/remix.h"

namespace filterlab::engine {
namespace {

std::shared_ptr<const FilterPolicy> Policy(const std::string& spec) {
  std::unique_ptr<FilterPolicy> p;
  Status s = NewFilterPolicy(spec, &p);
  EXPECT_TRUE(s.ok()) << spec << ": " << s.ToString();
  return std::shared_ptr<const FilterPolicy>(std::move(p));
}

std::vector<std::string> Keys(size_t n, uint64_t seed) {
  SplitMix64 rng(seed);
  std::vector<std::string> keys(n);
  for (auto& k : keys) {
    k.resize(1 + rng.Next() % 40);
    rng.FillBytes(k.data(), k.size());
  }
  return keys;
}

// Every registered variant builds a filter block whose reader answers like
// the filter itself: no false negatives, batch answers equal single ones,
// and repeated keys (several versions) are counted once.
TEST(FilterBlock, EveryRegisteredSpecRoundTrips) {
  const auto specs = AllExampleSpecs();
  ASSERT_FALSE(specs.empty());
  const auto keys = Keys(3000, 1);
  const auto others = Keys(3000, 2);
  for (const auto& spec : specs) {
    SCOPED_TRACE(spec);
    auto policy = Policy(spec);
    ASSERT_TRUE(policy);
    FilterBlockBuilder builder(policy);
    for (const auto& k : keys) {
      builder.AddKey(k);
      builder.AddKey(k);  // a second version of the same user key
    }
    EXPECT_EQ(builder.num_hashes(), keys.size());
    std::string contents;
    ASSERT_TRUE(builder.Finish(&contents).ok());
    std::unique_ptr<FilterBlockReader> reader;
    Status s = FilterBlockReader::Open(contents, policy, "filter block", &reader);
    ASSERT_TRUE(s.ok()) << s.ToString();
    EXPECT_EQ(reader->size(), contents.size());
    for (const auto& k : keys) ASSERT_TRUE(reader->KeyMayMatch(k));
    std::vector<Slice> probe;
    for (size_t i = 0; i < others.size(); ++i) probe.push_back(i % 2 ? Slice(others[i]) : Slice(keys[i]));
    std::unique_ptr<bool[]> batch(new bool[probe.size()]);
    reader->KeysMayMatch(probe.data(), probe.size(), batch.get());
    size_t false_positives = 0;
    for (size_t i = 0; i < probe.size(); ++i) {
      ASSERT_EQ(batch[i], reader->KeyMayMatch(probe[i])) << i;
      if (i % 2) false_positives += batch[i];
    }
    // Sanity only (FP rates are the filters' own tests): at 10 bits/key no
    // variant lets more than a quarter of absent keys through.
    EXPECT_LT(false_positives, others.size() / 2 / 4);
  }
}

TEST(FilterBlock, ReaderRejectsGarbageAndAMismatchedHashWidth) {
  std::unique_ptr<FilterBlockReader> reader;
  Status s =
      FilterBlockReader::Open("definitely not a filter", Policy("fastlocal:bpk=10"), "filter block at 7", &reader);
  EXPECT_TRUE(s.IsCorruption());
  EXPECT_NE(s.message().find("filter block at 7"), std::string::npos) << s.ToString();

  auto wide = Policy("fastlocal:bpk=10");
  FilterBlockBuilder builder(wide);
  builder.AddKey("a");
  std::string contents;
  ASSERT_TRUE(builder.Finish(&contents).ok());
  s = FilterBlockReader::Open(contents, Policy("legacy:bpk=10"), "filter block at 7", &reader);
  EXPECT_TRUE(s.IsCorruption());
  EXPECT_NE(s.message().find("-bit hashes"), std::string::npos) << s.ToString();
}

}  // namespace
}  // namespace filterlab::engine
