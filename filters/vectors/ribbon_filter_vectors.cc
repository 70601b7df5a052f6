// Reference vectors of RocksDB's Ribbon filter policy (ribbon_filter.json,
// made by NewRibbonFilterPolicy(B) with format_version 5): complete
// serialized filters built from keys, the Standard128Ribbon ones (trailer -2)
// and the small ones RocksDB builds as FastLocalBloom (trailer -1). Each case
// is built with "ribbon:bpk=B" + BuildFilterFromKeys, serialized and compared
// byte for byte; then read back with OpenFilter(bytes), and the reader's
// answers to the added keys (no false negatives) and to 1000 more keys
// (positives, first 64 answers) are compared, as is their agreement with the
// built filter. The keys are those of full_filter_e2e.json (e2e_keys.h).
#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "filters/filter.h"
#include "filters/filter_spec.h"
#include "filters/vectors/e2e_keys.h"
#include "filters/vectors/vector_check.h"
#include "hashing/xxh3.h"

namespace filterlab {
namespace {

bool DetectRibbonFilter(const nlohmann::json& doc) {
  return doc.contains("kind") && doc.at("kind").is_string() && doc.at("kind").get<std::string>() == "ribbon_filter";
}

void CheckRibbonCase(const nlohmann::json& c, VectorCaseResult* r) {
  const double bits_per_key = RequireField(c, "bits_per_key").get<double>();
  const auto num_keys = RequireField(c, "num_keys").get<size_t>();
  const std::string spec = "ribbon:bpk=" + FormatNumber(bits_per_key);
  r->name += " (" + spec + ", keys=" + std::to_string(num_keys) + ")";

  constexpr size_t kQueries = 1000;
  const std::vector<std::string> keys = GenerateE2eKeys(RequireField(c, "seed").get<uint64_t>(), num_keys + kQueries);
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
  const std::string& k0 = keys[0];
  ok &= ExpectEqual("first_key_hex", RequireField(c, "first_key_hex").get<std::string>(),
                    HexEncode(k0.data(), k0.size()), d);
  ok &= ExpectEqual("first_key_xxph3", RequireField(c, "first_key_xxph3").get<std::string>(),
                    HexDigits(XXPH3_64(k0.data(), k0.size()), 16), d);
  ok &= ExpectEqual("filter_len_with_trailer", RequireField(c, "filter_len_with_trailer").get<uint64_t>(),
                    bytes.size(), d);
  const size_t trailer_at = bytes.size() >= 5 ? bytes.size() - 5 : 0;
  ok &= ExpectEqual("trailer_hex", RequireField(c, "trailer_hex").get<std::string>(),
                    HexEncode(bytes.data() + trailer_at, bytes.size() - trailer_at), d);
  ok &= ExpectEqual("filter_sha256", RequireField(c, "filter_sha256").get<std::string>(),
                    Sha256Hex(bytes.data(), bytes.size()), d);
  ok &= ExpectEqual("filter_first128_hex", RequireField(c, "filter_first128_hex").get<std::string>(),
                    HexEncode(bytes.data(), std::min<size_t>(128, bytes.size())), d);
  ok &= ExpectEqual("false_negatives", RequireField(c, "false_negatives").get<uint64_t>(), false_negatives, d);
  ok &= ExpectEqual("query_positives", RequireField(c, "query_positives").get<uint64_t>(), positives, d);
  ok &= ExpectEqual("query_first64", RequireField(c, "query_first64").get<std::string>(), first64, d);
  ok &= ExpectEqual("built vs read-back filter disagreements", 0, built_reader_disagreements, d);
  r->passed = ok;
}

void CheckRibbonFile(const nlohmann::json& doc, std::vector<VectorCaseResult>* results) {
  ForEachCase(doc, &CheckRibbonCase, results);
}

}  // namespace

FILTERLAB_REGISTER_VECTOR_KIND(VectorKind{"ribbon_filter", &DetectRibbonFilter, &CheckRibbonFile});

}  // namespace filterlab
