#include "engine/util/prefix_extractor.h"

#include <gtest/gtest.h>

namespace filterlab::engine {
namespace {

std::shared_ptr<const PrefixExtractor> Make(const std::string& spec) {
  std::shared_ptr<const PrefixExtractor> p;
  EXPECT_TRUE(PrefixExtractorFromSpec(spec, &p).ok()) << spec;
  return p;
}

TEST(PrefixExtractorTest, FixedTakesExactlyNBytesAndRefusesShorterKeys) {
  auto p = Make("fixed:3");
  EXPECT_EQ(p->Name(), "fixed:3");
  EXPECT_TRUE(p->InDomain("abc"));
  EXPECT_TRUE(p->InDomain("abcdef"));
  EXPECT_FALSE(p->InDomain("ab"));
  EXPECT_EQ(p->Transform("abcdef").ToString(), "abc");
  EXPECT_TRUE(p->FullLength("abc"));
}

TEST(PrefixExtractorTest, CappedTakesAtMostNBytesOfAnyKey) {
  auto p = Make("capped:3");
  EXPECT_EQ(p->Name(), "capped:3");
  EXPECT_TRUE(p->InDomain(""));
  EXPECT_TRUE(p->InDomain("a"));
  EXPECT_EQ(p->Transform("a").ToString(), "a");
  EXPECT_EQ(p->Transform("abcdef").ToString(), "abc");
  EXPECT_FALSE(p->FullLength("ab"));
  EXPECT_TRUE(p->FullLength("abc"));
}

TEST(PrefixExtractorTest, NoneIsNullAndBadSpecsAreRefusedByName) {
  std::shared_ptr<const PrefixExtractor> p = std::make_shared<PrefixExtractor>(PrefixExtractor::Kind::kFixed, 1);
  ASSERT_TRUE(PrefixExtractorFromSpec("none", &p).ok());
  EXPECT_EQ(p, nullptr);
  EXPECT_EQ(PrefixExtractorLabel(nullptr), "none");
  for (const char* bad : {"", "fixed", "fixed:", "fixed:0", "fixed:01", "fixed:1025", "capped:-1", "capped:x", "hash:4",
                          "fixed:4 ", "Fixed:4"}) {
    Status s = PrefixExtractorFromSpec(bad, &p);
    EXPECT_TRUE(s.IsInvalidArgument()) << bad;
    EXPECT_NE(s.message().find("fixed:N, capped:N"), std::string::npos) << s.ToString();
  }
}

TEST(PrefixExtractorTest, PrefixSuccessorIsTheFirstStringPastThePrefix) {
  std::string out;
  ASSERT_TRUE(PrefixSuccessor("ab", &out));
  EXPECT_EQ(out, "ac");
  ASSERT_TRUE(PrefixSuccessor(std::string("a\xff\xff", 3), &out));
  EXPECT_EQ(out, "b");
  EXPECT_FALSE(PrefixSuccessor(std::string("\xff\xff", 2), &out));
  EXPECT_FALSE(PrefixSuccessor("", &out));
  // Every string starting with the prefix sorts below the successor, and
  // the successor does not start with it.
  ASSERT_TRUE(PrefixSuccessor(std::string("a\xff", 2), &out));
  EXPECT_LT(Slice(std::string("a\xff\xff\xff", 4)).compare(Slice(out)), 0);
  EXPECT_EQ(out, "b");
}

}  // namespace
}  // namespace filterlab::engine
