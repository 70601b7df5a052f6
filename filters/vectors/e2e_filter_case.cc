// The end-to-end filter vectors' common check (e2e_filter_case.h).
#include "filters/vectors/e2e_filter_case.h"

#include <algorithm>
#include <cstdio>
#include <memory>
#include <vector>

#include "filters/filter.h"
#include "hashing/xxh3.h"

namespace filterlab {
namespace {

std::string Hex64(uint64_t v) {
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(v));
  return buf;
}

}  // namespace

bool CheckE2eFilterCase(const nlohmann::json& c, const std::string& spec, VectorCaseResult* r, std::string* bytes,
                        std::string* first_key) {
  const auto num_keys = RequireField(c, "num_keys").get<size_t>();
  constexpr size_t kQueries = 1000;
  const std::vector<std::string> keys =
      GenerateReferenceKeys(RequireField(c, "seed").get<uint64_t>(), num_keys + kQueries);
  std::vector<Slice> added(keys.begin(), keys.begin() + static_cast<std::ptrdiff_t>(num_keys));
  *first_key = keys[0];

  std::unique_ptr<FilterPolicy> policy;
  Status s = NewFilterPolicy(spec, &policy);
  std::unique_ptr<Filter> built;
  if (s.ok()) s = BuildFilterFromKeys(*policy, added.data(), added.size(), &built);
  if (!s.ok()) {
    r->detail = spec + ": " + s.ToString();
    return false;
  }
  *bytes = built->Serialize();
  std::unique_ptr<Filter> reader;
  s = OpenFilter(*bytes, &reader);
  if (!s.ok()) {
    r->detail = "OpenFilter of the built filter: " + s.ToString();
    return false;
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
                    Hex64(XXPH3_64(k0.data(), k0.size())), d);
  ok &= ExpectEqual("filter_len_with_trailer", RequireField(c, "filter_len_with_trailer").get<uint64_t>(),
                    bytes->size(), d);
  const size_t trailer_at = bytes->size() >= 5 ? bytes->size() - 5 : 0;
  ok &= ExpectEqual("trailer_hex", RequireField(c, "trailer_hex").get<std::string>(),
                    HexEncode(bytes->data() + trailer_at, bytes->size() - trailer_at), d);
  ok &= ExpectEqual("filter_sha256", RequireField(c, "filter_sha256").get<std::string>(),
                    Sha256Hex(bytes->data(), bytes->size()), d);
  ok &= ExpectEqual("filter_first128_hex", RequireField(c, "filter_first128_hex").get<std::string>(),
                    HexEncode(bytes->data(), std::min<size_t>(128, bytes->size())), d);
  ok &= ExpectEqual("false_negatives", RequireField(c, "false_negatives").get<uint64_t>(), false_negatives, d);
  ok &= ExpectEqual("query_positives", RequireField(c, "query_positives").get<uint64_t>(), positives, d);
  ok &= ExpectEqual("query_first64", RequireField(c, "query_first64").get<std::string>(), first64, d);
  ok &= ExpectEqual("built vs read-back filter disagreements", 0, built_reader_disagreements, d);
  return ok;
}

}  // namespace filterlab
