#include "filters/filter_spec.h"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace filterlab {
namespace {

bool IsName(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s) {
    const bool ok =
        (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-' || c == '.';
    if (!ok) return false;
  }
  return true;
}

std::string JoinAllowed(std::initializer_list<std::string_view> allowed) {
  std::string s;
  for (auto a : allowed) {
    if (!s.empty()) s += ", ";
    s += a;
  }
  return s;
}

}  // namespace

Status FilterSpec::Parse(std::string_view text, FilterSpec* out) {
  *out = FilterSpec();
  out->text_ = std::string(Trim(text));
  std::string_view rest = out->text_;
  const size_t colon = rest.find(':');
  std::string_view variant = Trim(rest.substr(0, colon));
  if (variant.empty()) {
    return Status::InvalidArgument("filter spec '" + out->text_ +
                                   "': missing variant name (expected variant[:key=value,...], "
                                   "e.g. fastlocal:bpk=10; see `filterlab list-filters`)");
  }
  if (!IsName(variant)) {
    return Status::InvalidArgument("filter spec '" + out->text_ + "': variant name '" + std::string(variant) +
                                   "' may only contain letters, digits, '_', '-' and '.'");
  }
  out->variant_ = std::string(variant);
  if (colon == std::string_view::npos) return Status::OK();
  rest.remove_prefix(colon + 1);
  if (Trim(rest).empty()) return Status::OK();
  for (const std::string& entry : Split(rest, ',')) {
    std::string_view item = Trim(entry);
    const size_t eq = item.find('=');
    if (eq == std::string_view::npos) {
      return Status::InvalidArgument("filter spec '" + out->text_ + "': parameter '" + std::string(item) +
                                     "' is not of the form key=value");
    }
    std::string_view key = Trim(item.substr(0, eq));
    std::string_view value = Trim(item.substr(eq + 1));
    if (!IsName(key)) {
      return Status::InvalidArgument("filter spec '" + out->text_ + "': bad parameter name '" + std::string(key) + "'");
    }
    if (value.empty()) {
      return Status::InvalidArgument("filter spec '" + out->text_ + "': parameter '" + std::string(key) +
                                     "' has no value");
    }
    if (out->Find(key) != nullptr) {
      return Status::InvalidArgument("filter spec '" + out->text_ + "': parameter '" + std::string(key) +
                                     "' given twice");
    }
    out->params_.push_back(Param{std::string(key), std::string(value)});
  }
  return Status::OK();
}

const FilterSpec::Param* FilterSpec::Find(std::string_view key) const {
  for (const auto& p : params_) {
    if (p.key == key) return &p;
  }
  return nullptr;
}

bool FilterSpec::Has(std::string_view key) const { return Find(key) != nullptr; }

Status FilterSpec::Bad(const Param& p, std::string_view allowed) const {
  return Status::InvalidArgument("filter spec '" + text_ + "': " + p.key + "=" + p.value + " is not allowed; " + p.key +
                                 " must be " + std::string(allowed));
}

Status FilterSpec::GetDouble(std::string_view key, double def, double min, double max, double* out) {
  const Param* p = Find(key);
  if (p == nullptr) {
    *out = def;
    return Status::OK();
  }
  p->used = true;
  const std::string allowed = "a number in [" + FormatNumber(min) + ", " + FormatNumber(max) + "]";
  char* end = nullptr;
  const double v = std::strtod(p->value.c_str(), &end);
  if (end == p->value.c_str() || *end != '\0' || !std::isfinite(v) || v < min || v > max) {
    return Bad(*p, allowed);
  }
  *out = v;
  return Status::OK();
}

Status FilterSpec::GetInt(std::string_view key, long long def, long long min, long long max, long long* out) {
  const Param* p = Find(key);
  if (p == nullptr) {
    *out = def;
    return Status::OK();
  }
  p->used = true;
  const std::string allowed = "an integer in [" + std::to_string(min) + ", " + std::to_string(max) + "]";
  long long v = 0;
  const char* first = p->value.data();
  const char* last = first + p->value.size();
  auto [ptr, ec] = std::from_chars(first, last, v);
  if (ec != std::errc() || ptr != last || v < min || v > max) return Bad(*p, allowed);
  *out = v;
  return Status::OK();
}

Status FilterSpec::GetInt(std::string_view key, int def, int min, int max, int* out) {
  long long v = 0;
  Status s = GetInt(key, static_cast<long long>(def), static_cast<long long>(min), static_cast<long long>(max), &v);
  if (s.ok()) *out = static_cast<int>(v);
  return s;
}

Status FilterSpec::GetChoice(std::string_view key, std::string_view def,
                             std::initializer_list<std::string_view> allowed, std::string* out) {
  const Param* p = Find(key);
  if (p == nullptr) {
    *out = std::string(def);
    return Status::OK();
  }
  p->used = true;
  for (auto a : allowed) {
    if (p->value == a) {
      *out = p->value;
      return Status::OK();
    }
  }
  return Bad(*p, "one of: " + JoinAllowed(allowed));
}

Status FilterSpec::GetHashWidth(HashWidth def, std::initializer_list<HashWidth> allowed, HashWidth* out) {
  const Param* p = Find("hash");
  if (p == nullptr) {
    *out = def;
    return Status::OK();
  }
  p->used = true;
  std::string allowed_text;
  for (HashWidth w : allowed) {
    if (!allowed_text.empty()) allowed_text += " or ";
    allowed_text += HashWidthText(w);
    if (p->value == HashWidthText(w)) {
      *out = w;
      return Status::OK();
    }
  }
  return Bad(*p, allowed_text + " (bits of key hash this variant can consume)");
}

bool FilterSpec::GetRaw(std::string_view key, std::string* out) {
  const Param* p = Find(key);
  if (p == nullptr) return false;
  p->used = true;
  *out = p->value;
  return true;
}

Status FilterSpec::Finish(std::initializer_list<std::string_view> allowed_keys) const {
  accepted_keys_.assign(allowed_keys.begin(), allowed_keys.end());
  for (const auto& p : params_) {
    if (!p.used) {
      return Status::InvalidArgument("filter spec '" + text_ + "': unknown parameter '" + p.key + "' for variant " +
                                     variant_ + "; allowed: " + JoinAllowed(allowed_keys));
    }
  }
  return Status::OK();
}

std::string FilterSpec::WithParam(std::string_view key, std::string_view value) const {
  std::string out = variant_;
  bool replaced = false;
  char sep = ':';
  for (const auto& p : params_) {
    out += sep;
    out += p.key;
    out += '=';
    if (p.key == key) {
      out += value;
      replaced = true;
    } else {
      out += p.value;
    }
    sep = ',';
  }
  if (!replaced) {
    out += sep;
    out += key;
    out += '=';
    out += value;
  }
  return out;
}

}  // namespace filterlab
