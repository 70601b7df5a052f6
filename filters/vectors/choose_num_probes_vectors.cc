// Reference vectors for the probe-count rules (choose_num_probes.json):
// FastLocalBloom's ChooseNumProbes(millibits) at 1000..60000 step 500 and at
// every threshold, and the legacy filters' ChooseNumProbes(whole bits) at
// 0..100. Each entry is one case. Where the setting is a valid spec it is
// also checked through the policy (NewFilterPolicy("fastlocal:bpk=m/1000")
// etc.), which exercises RocksDB's bits/key to millibits conversion too.
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "filters/fast_local_bloom.h"
#include "filters/filter.h"
#include "filters/filter_spec.h"
#include "filters/legacy_bloom.h"
#include "filters/vectors/vector_check.h"

namespace filterlab {
namespace {

bool DetectChooseNumProbes(const nlohmann::json& doc) {
  return doc.contains("data") && doc.at("data").contains("fastlocal_step500") && doc.at("data").contains("legacy");
}

// Probes of the policy made from `spec`, or -1 with the reason in *detail.
int PolicyProbes(const std::string& spec, std::string* detail) {
  std::unique_ptr<FilterPolicy> policy;
  Status s = NewFilterPolicy(spec, &policy);
  if (!s.ok()) {
    *detail += spec + ": " + s.ToString() + "; ";
    return -1;
  }
  if (!policy->num_probes()) {
    *detail += spec + ": the variant has no probe count; ";
    return -1;
  }
  return *policy->num_probes();
}

void CheckGroup(const nlohmann::json& entries, const std::string& group, bool fastlocal,
                std::vector<VectorCaseResult>* results) {
  if (!entries.is_array()) throw std::runtime_error("data." + group + " is not an array");
  for (const auto& e : entries) {
    VectorCaseResult r;
    try {
      const int setting = e.at(0).get<int>();
      const int expected = e.at(1).get<int>();
      r.name = group + " " + (fastlocal ? "millibits=" : "bits=") + std::to_string(setting);
      bool ok = ExpectEqual(
          "ChooseNumProbes", static_cast<uint64_t>(expected),
          static_cast<uint64_t>(fastlocal ? fastlocal::ChooseNumProbes(setting) : legacy::ChooseNumProbes(setting)),
          &r.detail);
      // The policies take bits/key in 0.5..100 (legacy: whole bits from it).
      const double bpk = fastlocal ? setting / 1000.0 : setting;
      if (bpk >= 1.0 && bpk <= 100.0) {
        const std::string spec = std::string(fastlocal ? "fastlocal" : "legacy") + ":bpk=" + FormatNumber(bpk);
        ok &= ExpectEqual(("probes of " + spec).c_str(), static_cast<uint64_t>(expected),
                          static_cast<uint64_t>(PolicyProbes(spec, &r.detail)), &r.detail);
      }
      r.passed = ok;
    } catch (const std::exception& ex) {
      r.passed = false;
      r.detail += std::string("cannot check: ") + ex.what();
    }
    results->push_back(std::move(r));
  }
}

void CheckChooseNumProbesFile(const nlohmann::json& doc, std::vector<VectorCaseResult>* results) {
  const auto& data = RequireField(doc, "data");
  CheckGroup(RequireField(data, "fastlocal_step500"), "fastlocal_step500", true, results);
  CheckGroup(RequireField(data, "fastlocal_boundaries"), "fastlocal_boundaries", true, results);
  CheckGroup(RequireField(data, "legacy"), "legacy", false, results);
}

}  // namespace

FILTERLAB_REGISTER_VECTOR_KIND(VectorKind{"choose_num_probes", &DetectChooseNumProbes, &CheckChooseNumProbesFile});

}  // namespace filterlab
