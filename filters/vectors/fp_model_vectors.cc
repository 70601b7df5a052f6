// Reference vectors for RocksDB's FP-rate formulas (fp_model.json, BloomMath
// and the EstimatedFpRate functions of util/bloom_impl.h, printed with %.17g).
// Row kinds: "grid" (standard and two-point cache-local rates over b x k x
// block bits), "fingerprint", "indep_sum", and "estimated" (whole-filter
// estimates for fastlocal and legacy, with the sizes and probe counts
// RocksDB's policy derives from bits/key). Every field of every row is
// recomputed; a field this checker does not know fails the row, so nothing in
// the file can go unchecked silently.
//
// Rates are compared with a relative tolerance of 1e-12, not exactly: they
// come from exp, pow and sqrt, which glibc (where the file was made) and
// other libms may round differently in the last ulp, and a couple of ulps of
// input difference are amplified by pow(x, k) to ~k ulps. 1e-12 (about 4500
// ulps) is far above that and far below any formula mistake. Sizes and probe
// counts are integers and compared exactly.
#include <cmath>
#include <cstdio>
#include <set>
#include <stdexcept>
#include <string>

#include "filters/fast_local_bloom.h"
#include "filters/fp_model.h"
#include "filters/legacy_bloom.h"
#include "filters/rocksdb_bits_per_key.h"
#include "filters/vectors/vector_check.h"

namespace filterlab {
namespace {

constexpr double kRelativeTolerance = 1e-12;

std::string Number(double v) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}

bool ExpectNear(const char* field, double expected, double actual, std::string* detail) {
  if (expected == actual || std::fabs(actual - expected) <= kRelativeTolerance * std::fabs(expected)) return true;
  *detail += std::string(field) + ": expected " + Number(expected) + ", got " + Number(actual) +
             " (relative tolerance " + Number(kRelativeTolerance) + "); ";
  return false;
}

// Fails the row if it carries a field outside `known`: a field nobody checks
// would otherwise pass unnoticed.
void RequireOnlyFields(const nlohmann::json& row, const std::set<std::string>& known) {
  for (const auto& [field, value] : row.items()) {
    if (!known.count(field)) throw std::runtime_error("field '" + field + "' is not checked by the fp_model checker");
  }
}

double Double(const nlohmann::json& row, const char* field) { return RequireField(row, field).get<double>(); }
int Int(const nlohmann::json& row, const char* field) { return RequireField(row, field).get<int>(); }

bool CheckGridRow(const nlohmann::json& row, VectorCaseResult* r) {
  RequireOnlyFields(row, {"kind", "bits_per_key", "num_probes", "standard", "cache_local_256", "cache_local_512",
                          "cache_local_1024"});
  const double b = Double(row, "bits_per_key");
  const int k = Int(row, "num_probes");
  r->name += " (grid b=" + Number(b) + " k=" + std::to_string(k) + ")";
  std::string* d = &r->detail;
  bool ok = ExpectNear("standard", Double(row, "standard"), fpmodel::StandardFpRate(b, k), d);
  ok &= ExpectNear("cache_local_256", Double(row, "cache_local_256"), fpmodel::CacheLocalFpRate(b, k, 256), d);
  ok &= ExpectNear("cache_local_512", Double(row, "cache_local_512"), fpmodel::CacheLocalFpRate(b, k, 512), d);
  ok &= ExpectNear("cache_local_1024", Double(row, "cache_local_1024"), fpmodel::CacheLocalFpRate(b, k, 1024), d);
  return ok;
}

bool CheckFingerprintRow(const nlohmann::json& row, VectorCaseResult* r) {
  RequireOnlyFields(row, {"kind", "keys", "fingerprint_bits", "fp"});
  const double keys = Double(row, "keys");
  const int bits = Int(row, "fingerprint_bits");
  r->name += " (fingerprint keys=" + Number(keys) + " bits=" + std::to_string(bits) + ")";
  return ExpectNear("fp", Double(row, "fp"), fpmodel::FingerprintFpRate(keys, bits), &r->detail);
}

bool CheckIndependentSumRow(const nlohmann::json& row, VectorCaseResult* r) {
  RequireOnlyFields(row, {"kind", "rate1", "rate2", "sum"});
  const double p1 = Double(row, "rate1");
  const double p2 = Double(row, "rate2");
  r->name += " (indep_sum " + Number(p1) + ", " + Number(p2) + ")";
  return ExpectNear("sum", Double(row, "sum"), fpmodel::IndependentProbabilitySum(p1, p2), &r->detail);
}

// Sizes and probe counts come from the variants' own sizing code (the same
// functions the fastlocal and legacy policies use), so a sizing mistake there
// shows up here as well. As the file notes, its legacy rows reuse the
// fastlocal byte count rather than the legacy sizing.
bool CheckEstimatedRow(const nlohmann::json& row, VectorCaseResult* r) {
  RequireOnlyFields(
      row, {"kind", "keys", "bits_per_key", "fastlocal_bytes", "fastlocal_num_probes", "fastlocal_est_fp_hash64",
            "fastlocal_est_fp_hash32", "legacy_bytes", "legacy_num_probes", "legacy_locality_est_fp"});
  const auto keys = RequireField(row, "keys").get<uint64_t>();
  const double bits_per_key = Double(row, "bits_per_key");
  r->name += " (estimated keys=" + std::to_string(keys) + " b=" + Number(bits_per_key) + ")";
  if (keys == 0) throw std::runtime_error("keys = 0 (allowed: >= 1)");
  const int millibits = rocksdb_bpk::MillibitsPerKey(bits_per_key);
  const uint32_t bytes = fastlocal::DataBytesForKeys(keys, millibits);
  const int fastlocal_probes = fastlocal::ChooseNumProbes(millibits);
  const int legacy_probes = legacy::ChooseNumProbes(rocksdb_bpk::WholeBitsPerKey(millibits));
  const double n = static_cast<double>(keys);

  std::string* d = &r->detail;
  bool ok = ExpectEqual("fastlocal_bytes", RequireField(row, "fastlocal_bytes").get<uint64_t>(), bytes, d);
  ok &= ExpectEqual("fastlocal_num_probes", RequireField(row, "fastlocal_num_probes").get<uint64_t>(),
                    static_cast<uint64_t>(fastlocal_probes), d);
  ok &= ExpectEqual("legacy_bytes", RequireField(row, "legacy_bytes").get<uint64_t>(), bytes, d);
  ok &= ExpectEqual("legacy_num_probes", RequireField(row, "legacy_num_probes").get<uint64_t>(),
                    static_cast<uint64_t>(legacy_probes), d);
  ok &= ExpectNear("fastlocal_est_fp_hash64", Double(row, "fastlocal_est_fp_hash64"),
                   fpmodel::FastLocalEstimatedFpRate(n, bytes, fastlocal_probes, 64), d);
  ok &= ExpectNear("fastlocal_est_fp_hash32", Double(row, "fastlocal_est_fp_hash32"),
                   fpmodel::FastLocalEstimatedFpRate(n, bytes, fastlocal_probes, 32), d);
  ok &= ExpectNear("legacy_locality_est_fp", Double(row, "legacy_locality_est_fp"),
                   fpmodel::LegacyLocalityEstimatedFpRate(n, bytes, legacy_probes), d);
  return ok;
}

void CheckFpModelRow(const nlohmann::json& row, VectorCaseResult* r) {
  const auto kind = RequireField(row, "kind").get<std::string>();
  if (kind == "grid") {
    r->passed = CheckGridRow(row, r);
  } else if (kind == "fingerprint") {
    r->passed = CheckFingerprintRow(row, r);
  } else if (kind == "indep_sum") {
    r->passed = CheckIndependentSumRow(row, r);
  } else if (kind == "estimated") {
    r->passed = CheckEstimatedRow(row, r);
  } else {
    throw std::runtime_error("unknown row kind '" + kind + "' (known: grid, fingerprint, indep_sum, estimated)");
  }
}

bool DetectFpModel(const nlohmann::json& doc) {
  const auto& rows = doc.at("rows");
  return doc.contains("formulas") && rows.is_array() && !rows.empty() && rows[0].contains("kind");
}

void CheckFpModel(const nlohmann::json& doc, std::vector<VectorCaseResult>* results) {
  ForEachCase(doc, CheckFpModelRow, results, "rows");
}

}  // namespace

FILTERLAB_REGISTER_VECTOR_KIND(VectorKind{"fp_model", DetectFpModel, CheckFpModel});

}  // namespace filterlab
