#include "common/number_list.h"

#include <cerrno>
#include <cmath>
#include <cstdlib>

#include "common/strings.h"

namespace filterlab {

namespace {
bool ParseOne(const std::string& s, double* out) {
  if (s.empty()) return false;
  errno = 0;
  char* end = nullptr;
  *out = std::strtod(s.c_str(), &end);
  return *end == '\0' && errno == 0 && std::isfinite(*out);
}
}  // namespace

Status ParseNumberList(const std::string& flag, const std::string& text, double min, double max,
                       std::vector<double>* out) {
  out->clear();
  auto bad = [&](const std::string& why) {
    return Status::InvalidArgument("--" + flag + "=" + text + ": " + why +
                                   "; allowed: a list like 6,10,16 or a range first:last:step, values in " +
                                   FormatNumber(min) + ".." + FormatNumber(max));
  };
  if (text.find(':') != std::string::npos) {
    const size_t a = text.find(':'), b = text.find(':', a + 1);
    if (b == std::string::npos) return bad("a range needs first:last:step");
    double first, last, step;
    if (!ParseOne(text.substr(0, a), &first) || !ParseOne(text.substr(a + 1, b - a - 1), &last) ||
        !ParseOne(text.substr(b + 1), &step)) {
      return bad("not numbers");
    }
    if (step <= 0 || last < first) return bad("need step > 0 and last >= first");
    const double count = std::floor((last - first) / step + 1e-9) + 1;
    if (count > 1e6) return bad("more than 10^6 values");
    for (long i = 0; i < static_cast<long>(count); ++i) out->push_back(first + static_cast<double>(i) * step);
  } else {
    for (const std::string& item : Split(text, ',')) {
      double v;
      // (Appending to a named string: GCC 12 gives a false -Wrestrict for "'" + a temporary.)
      if (!ParseOne(item, &v)) return bad(std::string("'").append(item).append("' is not a number"));
      out->push_back(v);
    }
  }
  for (double v : *out) {
    if (v < min || v > max) return bad("value " + FormatNumber(v) + " out of range");
  }
  return Status::OK();
}

}  // namespace filterlab
