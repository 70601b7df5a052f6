// FilterSpec: a parsed spec string "variant:key=value,key=value" and the
// validated reading of its parameters. Every getter checks type and range and
// marks the key as used, so Finish() can reject keys no getter asked for. All
// messages name the spec, the key, the value and what is allowed.
#pragma once

#include <initializer_list>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/status.h"
#include "common/strings.h"
#include "filters/filter.h"

namespace filterlab {

class FilterSpec {
 public:
  // Syntax: variant[:key=value[,key=value]...]. Whitespace around names and
  // values is ignored; keys are case-sensitive; a key may appear once.
  static Status Parse(std::string_view text, FilterSpec* out);

  const std::string& variant() const { return variant_; }
  const std::string& text() const { return text_; }
  bool Has(std::string_view key) const;

  // Reads `key` as a finite number in [min, max]; `def` when absent.
  Status GetDouble(std::string_view key, double def, double min, double max, double* out);
  // Reads `key` as an integer in [min, max]; `def` when absent.
  Status GetInt(std::string_view key, long long def, long long min, long long max, long long* out);
  Status GetInt(std::string_view key, int def, int min, int max, int* out);
  // Reads `key` as one of `allowed`; `def` when absent.
  Status GetChoice(std::string_view key, std::string_view def, std::initializer_list<std::string_view> allowed,
                   std::string* out);
  // Reads "hash" as 32 or 64 (restricted to `allowed`); `def` when absent.
  Status GetHashWidth(HashWidth def, std::initializer_list<HashWidth> allowed, HashWidth* out);
  // The raw value of `key` if present (marks it used).
  bool GetRaw(std::string_view key, std::string* out);

  // Fails if any key was never read, naming it and the keys this variant takes.
  // Records `allowed_keys` (accepted_keys()) either way.
  Status Finish(std::initializer_list<std::string_view> allowed_keys) const;
  // The keys the variant's parser accepts, as it declared them to Finish
  // (empty before Finish): what a caller may set on this variant's specs.
  const std::vector<std::string>& accepted_keys() const { return accepted_keys_; }

  // This spec's text with `key` set to `value` (replaced in place if present,
  // appended otherwise), for tools and tests that derive a spec from another
  // (e.g. another bits/key or hash width). The result is not validated.
  std::string WithParam(std::string_view key, std::string_view value) const;

  // The key=value pairs in the order written, values as text (for
  // `filterlab-tool check-spec`, which hands the parsed spec to the runner).
  std::vector<std::pair<std::string, std::string>> Params() const {
    std::vector<std::pair<std::string, std::string>> out;
    for (const Param& p : params_) out.emplace_back(p.key, p.value);
    return out;
  }

 private:
  mutable std::vector<std::string> accepted_keys_;
  struct Param {
    std::string key;
    std::string value;
    mutable bool used = false;
  };
  const Param* Find(std::string_view key) const;
  Status Bad(const Param& p, std::string_view allowed) const;

  std::string text_;
  std::string variant_;
  std::vector<Param> params_;
};

}  // namespace filterlab
