// Parsing grids given on the command line: "6,10,16" (a list) or
// "1:60:0.5" (first:last:step, inclusive, computed as first + i*step so no
// error accumulates). Errors name the flag and the accepted forms.
#pragma once

#include <string>
#include <vector>

#include "common/status.h"

namespace filterlab {

Status ParseNumberList(const std::string& flag, const std::string& text, double min, double max,
                       std::vector<double>* out);

}  // namespace filterlab
