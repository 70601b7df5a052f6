#include "common/flags.h"

#include <gtest/gtest.h>

#include <vector>

#include "common/number_list.h"

namespace filterlab {
namespace {

struct Args {
  explicit Args(std::vector<std::string> a) : strings(std::move(a)) {
    for (auto& s : strings) ptrs.push_back(s.data());
  }
  int argc() { return static_cast<int>(ptrs.size()); }
  char** argv() { return ptrs.data(); }
  std::vector<std::string> strings;
  std::vector<char*> ptrs;
};

class FlagSetTest : public ::testing::Test {
 protected:
  FlagSetTest() : flags("fp", "test") {
    flags.Int("keys", 10, 1, 1000, "keys", &keys);
    flags.Double("ratio", 0.4, 0, 1, "ratio", &ratio);
    flags.Choice("mode", "a", {"a", "b"}, "mode", &mode);
    flags.List("filter", "spec", &specs);
    flags.Bool("quick", "quick", &quick);
  }
  Status Parse(std::vector<std::string> a) {
    Args args(std::move(a));
    return flags.Parse(args.argc(), args.argv());
  }
  FlagSet flags;
  long long keys = 0;
  double ratio = 0;
  std::string mode;
  std::vector<std::string> specs;
  bool quick = false;
};

TEST_F(FlagSetTest, DefaultsAndValues) {
  ASSERT_TRUE(Parse({}).ok());
  EXPECT_EQ(keys, 10);
  EXPECT_EQ(mode, "a");
  EXPECT_FALSE(quick);
  ASSERT_TRUE(Parse({"--keys", "1e2", "--ratio=0.5", "--mode", "b", "--filter", "x", "--filter=y", "--quick"}).ok());
  EXPECT_EQ(keys, 100);
  EXPECT_EQ(ratio, 0.5);
  EXPECT_EQ(mode, "b");
  EXPECT_EQ(specs, (std::vector<std::string>{"x", "y"}));
  EXPECT_TRUE(quick);
  EXPECT_TRUE(flags.WasSet("keys"));
}

TEST_F(FlagSetTest, ErrorsNameFlagValueAndAllowed) {
  Status s = Parse({"--keys", "0"});
  ASSERT_TRUE(s.IsInvalidArgument());
  EXPECT_NE(s.message().find("--keys=0"), std::string::npos) << s.message();
  EXPECT_NE(s.message().find("1..1000"), std::string::npos) << s.message();
  s = Parse({"--keys", "12abc"});
  EXPECT_NE(s.message().find("not an integer"), std::string::npos) << s.message();
  s = Parse({"--mode", "c"});
  EXPECT_NE(s.message().find("a|b"), std::string::npos) << s.message();
  s = Parse({"--ratio", "nan"});
  EXPECT_TRUE(s.IsInvalidArgument());
  s = Parse({"--nosuch", "1"});
  EXPECT_NE(s.message().find("unknown flag '--nosuch'"), std::string::npos) << s.message();
  EXPECT_NE(s.message().find("--keys"), std::string::npos) << s.message();
  s = Parse({"--keys"});
  EXPECT_NE(s.message().find("needs a value"), std::string::npos) << s.message();
  s = Parse({"--keys", "5", "--keys", "6"});
  EXPECT_NE(s.message().find("given twice"), std::string::npos) << s.message();
}

TEST_F(FlagSetTest, HelpListsEveryFlag) {
  ASSERT_TRUE(Parse({"--help"}).ok());
  EXPECT_TRUE(flags.help_requested());
  const std::string h = flags.Help();
  for (const char* f : {"--keys", "--ratio", "--mode", "--filter", "--quick"}) {
    EXPECT_NE(h.find(f), std::string::npos) << f;
  }
}

TEST(NumberList, ListsAndRanges) {
  std::vector<double> v;
  ASSERT_TRUE(ParseNumberList("bpk", "6,10,16", 0, 100, &v).ok());
  EXPECT_EQ(v, (std::vector<double>{6, 10, 16}));
  ASSERT_TRUE(ParseNumberList("bpk", "1:3:0.5", 0, 100, &v).ok());
  EXPECT_EQ(v, (std::vector<double>{1, 1.5, 2, 2.5, 3}));
  Status s = ParseNumberList("bpk", "1:3", 0, 100, &v);
  EXPECT_NE(s.message().find("--bpk=1:3"), std::string::npos) << s.message();
  s = ParseNumberList("bpk", "200", 0, 100, &v);
  EXPECT_NE(s.message().find("out of range"), std::string::npos) << s.message();
}

}  // namespace
}  // namespace filterlab
