// End-to-end reference vectors (full_filter_e2e.json, made by librocksdb
// 7.8.3's BloomFilterPolicy): complete serialized filters, trailer included,
// built from keys. format_version 5 is "fastlocal:bpk=B" (XXPH3 key hash),
// format_version 4 is "legacy:bpk=B" (BloomHash32). Each case is built with
// NewFilterPolicy + BuildFilterFromKeys, serialized and compared byte for
// byte; then read back with OpenFilter(bytes) and the reader's answers to the
// added and query keys are compared (and must equal the built filter's).
#include <algorithm>
#include <cstddef>
#include <cstdio>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "filters/filter.h"
#include "filters/filter_spec.h"
#include "filters/vectors/vector_check.h"
#include "hashing/legacy_hash.h"
#include "hashing/xxh3.h"

namespace filterlab {
namespace {

bool DetectFullFilterE2e(const nlohmann::json& doc) {
  const auto& cases = doc.at("cases");
  return cases.is_array() && !cases.empty() && cases[0].contains("format_version") &&
         cases[0].contains("filter_len_with_trailer");
}

std::string HexOf(uint64_t v, int digits) {
  char buf[17];
  std::snprintf(buf, sizeof buf, "%0*llx", digits, static_cast<unsigned long long>(v));
  return buf;
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

  constexpr size_t kQueries = 1000;
  const std::vector<std::string> keys = GenerateReferenceKeys(RequireField(c, "seed").get<uint64_t>(), num_keys + kQueries);
  std::vector<Slice> added(keys.begin(), keys.begin() + static_cast<std::ptrdiff_t>(num_keys));

  std::unique_ptr<FilterPolicy> policy;
  Status s = NewFilterPolicy(spec, &policy);
  std::unique_ptr<Filter> built;
  if (s.ok()) s = BuildFilterFromKeys(*policy, added.data(), added.size(), &built);
  if (!s.ok()) {
    r->detail = spec + ": " + s.ToString();
    return;
  }
  const std::string bytes = built->Serialize();
  std::unique_ptr<Filter> reader;
  s = OpenFilter(bytes, &reader);
  if (!s.ok()) {
    r->detail = "OpenFilter of the built filter: " + s.ToString();
    return;
  }

  size_t false_negatives = 0;
  size_t built_reader_disagreements = 0;
  size_t positives = 0;
  std::string first64;
  for (size_t i = 0; i < keys.size(); ++i) {
    const uint64_t h = policy->HashKey(keys[i]);
    const bool may = reader->MayContain(h);
    built_reader_disagreements += may != built->MayContain(h);
    if (i < num_keys) {
      false_negatives += may ? 0 : 1;
    } else {
      positives += may ? 1 : 0;
      if (i - num_keys < 64) first64 += may ? '1' : '0';
    }
  }

  bool ok = true;
  std::string* d = &r->detail;
  if (!keys.empty()) {
    const std::string& k0 = keys[0];
    ok &= ExpectEqual("first_key_hex", RequireField(c, "first_key_hex").get<std::string>(),
                      HexEncode(k0.data(), k0.size()), d);
    ok &= ExpectEqual("first_key_xxph3", RequireField(c, "first_key_xxph3").get<std::string>(),
                      HexOf(XXPH3_64(k0.data(), k0.size()), 16), d);
    ok &= ExpectEqual("first_key_bloomhash32", RequireField(c, "first_key_bloomhash32").get<std::string>(),
                      HexOf(BloomHash32(k0.data(), k0.size()), 8), d);
  }
  ok &= ExpectEqual("filter_len_with_trailer", RequireField(c, "filter_len_with_trailer").get<uint64_t>(),
                    bytes.size(), d);
  const size_t trailer_at = bytes.size() >= 5 ? bytes.size() - 5 : 0;
  ok &= ExpectEqual("trailer_hex", RequireField(c, "trailer_hex").get<std::string>(),
                    HexEncode(bytes.data() + trailer_at, bytes.size() - trailer_at), d);
  ok &= ExpectEqual("filter_sha256", RequireField(c, "filter_sha256").get<std::string>(),
                    Sha256Hex(bytes.data(), bytes.size()), d);
  ok &= ExpectEqual("filter_first128_hex", RequireField(c, "filter_first128_hex").get<std::string>(),
                    HexEncode(bytes.data(), std::min<size_t>(128, bytes.size())), d);
  if (c.contains("filter_full_hex")) {
    ok &= ExpectEqual("filter_full_hex", c.at("filter_full_hex").get<std::string>(),
                      HexEncode(bytes.data(), bytes.size()), d);
  }
  ok &= ExpectEqual("false_negatives", RequireField(c, "false_negatives").get<uint64_t>(), false_negatives, d);
  ok &= ExpectEqual("query_positives", RequireField(c, "query_positives").get<uint64_t>(), positives, d);
  ok &= ExpectEqual("query_first64", RequireField(c, "query_first64").get<std::string>(), first64, d);
  ok &= ExpectEqual("built vs read-back filter disagreements", 0, built_reader_disagreements, d);
  r->passed = ok;
}

void CheckFullFilterFile(const nlohmann::json& doc, std::vector<VectorCaseResult>* results) {
  ForEachCase(doc, &CheckFullFilterCase, results);
}

}  // namespace

FILTERLAB_REGISTER_VECTOR_KIND(VectorKind{"full_filter_e2e", &DetectFullFilterE2e, &CheckFullFilterFile});

}  // namespace filterlab
