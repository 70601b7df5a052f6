#include "common/strings.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <limits>

namespace filterlab {
namespace {

using Parts = std::vector<std::string>;

TEST(Split, KeepsEveryEntryIncludingEmptyOnes) {
  EXPECT_EQ(Split("a,b,c", ','), (Parts{"a", "b", "c"}));
  EXPECT_EQ(Split("a,,b", ','), (Parts{"a", "", "b"}));
  EXPECT_EQ(Split(",a,", ','), (Parts{"", "a", ""}));
  EXPECT_EQ(Split("", ','), (Parts{""}));
  EXPECT_EQ(Split("one", ','), (Parts{"one"}));
  EXPECT_EQ(Split("a;b,c", ';'), (Parts{"a", "b,c"}));
  EXPECT_EQ(Split(" a , b ", ','), (Parts{" a ", " b "})) << "Split does not trim";
}

TEST(Trim, RemovesBlanksAndTabsAtBothEnds) {
  EXPECT_EQ(Trim("  a b\t "), "a b");
  EXPECT_EQ(Trim("\t\t"), "");
  EXPECT_EQ(Trim(""), "");
  EXPECT_EQ(Trim("x"), "x");
}

TEST(FormatNumber, IsShortestAndRoundTrips) {
  EXPECT_EQ(FormatNumber(10), "10");
  EXPECT_EQ(FormatNumber(9.55), "9.55");
  EXPECT_EQ(FormatNumber(0.1), "0.1");
  EXPECT_EQ(FormatNumber(-2.5), "-2.5");
  EXPECT_EQ(FormatNumber(1e300), "1e+300");
  for (double v : {1.0 / 3, 6.02214076e23, 5e-324, std::numeric_limits<double>::max(), 10.3, 0.0625}) {
    EXPECT_EQ(std::strtod(FormatNumber(v).c_str(), nullptr), v) << FormatNumber(v);
  }
}

}  // namespace
}  // namespace filterlab
