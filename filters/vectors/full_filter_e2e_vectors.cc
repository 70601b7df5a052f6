// End-to-end reference vectors (full_filter_e2e.json, made by librocksdb
// 7.8.3's BloomFilterPolicy): complete serialized filters, trailer included,
// built from keys. format_version 5 is "fastlocal:bpk=B" (XXPH3 key hash),
// format_version 4 is "legacy:bpk=B" (BloomHash32). Each case is built with
// NewFilterPolicy + BuildFilterFromKeys, serialized and compared byte for
// byte; then read back with OpenFilter(bytes) and the reader's answers to the
// added and query keys are compared (and must equal the built filter's):
// e2e_filter_case.h, plus this kind's first_key_bloomhash32 and, where
// present, filter_full_hex.
#include <cstdio>
#include <string>
#include <vector>

#include "filters/filter_spec.h"
#include "filters/vectors/e2e_filter_case.h"
#include "filters/vectors/vector_check.h"
#include "hashing/legacy_hash.h"

namespace filterlab {
namespace {

bool DetectFullFilterE2e(const nlohmann::json& doc) {
  const auto& cases = doc.at("cases");
  return cases.is_array() && !cases.empty() && cases[0].contains("format_version") &&
         cases[0].contains("filter_len_with_trailer");
}

void CheckFullFilterCase(const nlohmann::json& c, VectorCaseResult* r) {
  const int format_version = RequireField(c, "format_version").get<int>();
  const double bits_per_key = RequireField(c, "bits_per_key").get<double>();
  const auto num_keys = RequireField(c, "num_keys").get<size_t>();
  const char* variant = format_version >= 5 ? "fastlocal" : "legacy";
  const std::string spec = std::string(variant) + ":bpk=" + FormatNumber(bits_per_key);
  r->name += " (" + spec + ", keys=" + std::to_string(num_keys) + ")";
  if (format_version < 2 || format_version > 5) {
    r->detail = "format_version " + std::to_string(format_version) + " is not a full filter (2..5)";
    return;
  }
  std::string bytes, k0;
  bool ok = CheckE2eFilterCase(c, spec, r, &bytes, &k0);
  if (bytes.empty() && !ok) return;  // not built
  char hash32[9];
  std::snprintf(hash32, sizeof hash32, "%08x", BloomHash32(k0.data(), k0.size()));
  ok &= ExpectEqual("first_key_bloomhash32", RequireField(c, "first_key_bloomhash32").get<std::string>(), hash32,
                    &r->detail);
  if (c.contains("filter_full_hex")) {
    ok &= ExpectEqual("filter_full_hex", c.at("filter_full_hex").get<std::string>(),
                      HexEncode(bytes.data(), bytes.size()), &r->detail);
  }
  r->passed = ok;
}

void CheckFullFilterFile(const nlohmann::json& doc, std::vector<VectorCaseResult>* results) {
  ForEachCase(doc, &CheckFullFilterCase, results);
}

}  // namespace

FILTERLAB_REGISTER_VECTOR_KIND(VectorKind{"full_filter_e2e", &DetectFullFilterE2e, &CheckFullFilterFile});

}  // namespace filterlab
