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

TEST_F(FlagSetTest, DashAndUnderscoreAreOneCharacter) {
  FlagSet f("cmd", "");
  long long size = 0;
  f.Int("key-size", 24, 16, 48, "declared with a dash", &size);
  Args a({"--key_size=30"});
  ASSERT_TRUE(f.Parse(a.argc(), a.argv()).ok());
  EXPECT_EQ(size, 30);
  Args b({"--key-size", "31"});
  ASSERT_TRUE(f.Parse(b.argc(), b.argv()).ok());
  EXPECT_EQ(size, 31);
  EXPECT_TRUE(f.WasSet("key-size"));
  EXPECT_EQ(f.Description()["flags"][0]["name"], "key_size");
  Args bad({"--key_size=99"});
  const Status s = f.Parse(bad.argc(), bad.argv());
  EXPECT_NE(s.message().find("--key_size=99"), std::string::npos) << s.message();
}

TEST_F(FlagSetTest, ChoiceListTakesDistinctKnownEntries) {
  FlagSet f("cmd", "");
  std::vector<std::string> chosen;
  f.ChoiceList("benchmarks", "a,b", {"a", "b", "c"}, "which", &chosen);
  Args none({});
  ASSERT_TRUE(f.Parse(none.argc(), none.argv()).ok());
  EXPECT_EQ(chosen, (std::vector<std::string>{"a", "b"}));
  Args some({"--benchmarks=c,a"});
  ASSERT_TRUE(f.Parse(some.argc(), some.argv()).ok());
  EXPECT_EQ(chosen, (std::vector<std::string>{"c", "a"}));
  for (const char* bad : {"--benchmarks=a,x", "--benchmarks=a,a", "--benchmarks="}) {
    Args b({bad});
    const Status s = f.Parse(b.argc(), b.argv());
    ASSERT_TRUE(s.IsInvalidArgument()) << bad;
    EXPECT_NE(s.message().find("a|b|c"), std::string::npos) << s.message();
  }
}

TEST_F(FlagSetTest, ChoiceListMayAllowRepeats) {
  FlagSet f("cmd", "");
  std::vector<std::string> chosen;
  f.ChoiceList("benchmarks", "a", {"a", "b"}, "which", &chosen, FlagSet::Repeats::kAllowed);
  Args some({"--benchmarks=a,b,a"});
  ASSERT_TRUE(f.Parse(some.argc(), some.argv()).ok());
  EXPECT_EQ(chosen, (std::vector<std::string>{"a", "b", "a"}));
  EXPECT_TRUE(f.Description()["flags"][0]["repeats"].get<bool>());
  Args bad({"--benchmarks=a,c"});
  EXPECT_TRUE(f.Parse(bad.argc(), bad.argv()).IsInvalidArgument());
}

TEST_F(FlagSetTest, DescribeListsFlagsWithTypesRangesAndFields) {
  flags.Field("positives", "int", "outside queries answered positive");
  flags.Field("fp_rate", "number?", "positives / queries; null without queries");
  ASSERT_TRUE(Parse({"--describe"}).ok());
  std::string out;
  ASSERT_TRUE(flags.Answered(&out));
  const auto d = nlohmann::ordered_json::parse(out);
  EXPECT_EQ(d["command"], "fp");
  ASSERT_EQ(d["flags"].size(), 5u);
  EXPECT_EQ(d["flags"][0]["name"], "keys");
  EXPECT_EQ(d["flags"][0]["type"], "int");
  EXPECT_EQ(d["flags"][0]["default"], 10);
  EXPECT_EQ(d["flags"][0]["min"], 1);
  EXPECT_EQ(d["flags"][0]["max"], 1000);
  EXPECT_EQ(d["flags"][1]["type"], "number");
  EXPECT_EQ(d["flags"][1]["default"], 0.4);
  EXPECT_EQ(d["flags"][2]["choices"], (std::vector<std::string>{"a", "b"}));
  EXPECT_TRUE(d["flags"][3]["repeatable"].get<bool>());
  EXPECT_EQ(d["flags"][4]["type"], "bool");
  EXPECT_EQ(d["flags"][4]["default"], false);
  ASSERT_EQ(d["fields"].size(), 2u);
  EXPECT_EQ(d["fields"][1]["type"], "number");
  EXPECT_TRUE(d["fields"][1]["nullable"].get<bool>());

  EXPECT_TRUE(CheckRecordFields({{"positives", 3}, {"fp_rate", nullptr}}, d).ok());
  EXPECT_TRUE(CheckRecordFields({{"positives", 3}, {"fp_rate", 0.5}}, d).ok());
  Status s = CheckRecordFields({{"positives", 3}, {"extra", 1}}, d);
  EXPECT_NE(s.message().find("'extra' is not declared"), std::string::npos) << s.message();
  s = CheckRecordFields({{"positives", 0.5}}, d);
  EXPECT_NE(s.message().find("declared type int"), std::string::npos) << s.message();
  s = CheckRecordFields({{"positives", nullptr}}, d);
  EXPECT_NE(s.message().find("not declared nullable"), std::string::npos) << s.message();
}

TEST_F(FlagSetTest, MisdeclaredFieldTypeShowsInTheDescription) {
  flags.Field("x", "float", "not a type of the contract");
  EXPECT_EQ(flags.Description()["fields"][0]["type"], "invalid:float");
}

TEST_F(FlagSetTest, CheckParsesEverythingAndSaysRunNothing) {
  ASSERT_TRUE(Parse({"--check", "--keys", "20"}).ok());
  EXPECT_TRUE(flags.check_only());
  EXPECT_EQ(keys, 20);
  std::string out;
  EXPECT_FALSE(flags.Answered(&out));
  EXPECT_TRUE(Parse({"--check", "--keys", "0"}).IsInvalidArgument());
  ASSERT_TRUE(Parse({"--keys", "20"}).ok());
  EXPECT_FALSE(flags.check_only());
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
