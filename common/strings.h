// Text helpers every layer shares: cutting a flag's or a spec's list into its
// entries, trimming them, and printing a number the shortest exact way (the
// canonical spec strings and every "allowed: a..b" message use it).
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace filterlab {

// The pieces of `text` between separators, in order and untrimmed: "a,,b"
// gives {"a", "", "b"} and "" gives {""}, so a caller sees every empty entry
// and can name it in its error.
std::vector<std::string> Split(std::string_view text, char separator);

// `s` without leading and trailing blanks and tabs.
std::string_view Trim(std::string_view s);

// Shortest decimal text that parses back to exactly `v`, in plain notation
// where that is no longer (10 -> "10", not "1e+01").
std::string FormatNumber(double v);

}  // namespace filterlab
