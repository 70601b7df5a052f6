// Reference vectors of RocksDB's Ribbon filter policy (ribbon_filter.json,
// made by NewRibbonFilterPolicy(B) with format_version 5): complete
// serialized filters built from keys, the Standard128Ribbon ones (trailer -2)
// and the small ones RocksDB builds as FastLocalBloom (trailer -1). Each case
// is built as "ribbon:bpk=B" and checked byte for byte and by its reader's
// answers (e2e_filter_case.h; the keys are those of full_filter_e2e.json).
#include <string>
#include <vector>

#include "filters/filter_spec.h"
#include "filters/vectors/e2e_filter_case.h"
#include "filters/vectors/vector_check.h"

namespace filterlab {
namespace {

bool DetectRibbonFilter(const nlohmann::json& doc) {
  return doc.contains("kind") && doc.at("kind").is_string() && doc.at("kind").get<std::string>() == "ribbon_filter";
}

void CheckRibbonCase(const nlohmann::json& c, VectorCaseResult* r) {
  const std::string spec = "ribbon:bpk=" + FormatNumber(RequireField(c, "bits_per_key").get<double>());
  r->name += " (" + spec + ", keys=" + std::to_string(RequireField(c, "num_keys").get<size_t>()) + ")";
  std::string bytes, first_key;
  r->passed = CheckE2eFilterCase(c, spec, r, &bytes, &first_key);
}

void CheckRibbonFile(const nlohmann::json& doc, std::vector<VectorCaseResult>* results) {
  ForEachCase(doc, &CheckRibbonCase, results);
}

}  // namespace

FILTERLAB_REGISTER_VECTOR_KIND(VectorKind{"ribbon_filter", &DetectRibbonFilter, &CheckRibbonFile});

}  // namespace filterlab
