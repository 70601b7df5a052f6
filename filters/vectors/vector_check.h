// Checking reference test-vector files (testdata/vectors/*.json, produced
// by RocksDB's own code; testdata/README.md). A file's kind is recognised from its
// contents, not its name, so any file in the same format can be checked; each
// kind's checker lives in its own *_vectors.cc and registers itself.
// Used by the GoogleTest suite and by `filterlab verify-vectors`.
#pragma once

#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "common/status.h"
#include "common/unique_name.h"

namespace filterlab {

struct VectorCaseResult {
  std::string name;  // e.g. "case 7 (len_bytes=640, num_probes=6)"
  bool passed = false;
  std::string detail;  // on failure: which field, expected vs actual
};

struct VectorKind {
  const char* name;  // e.g. "fastlocalbloom"
  // True if `doc` is a file of this kind.
  bool (*detect)(const nlohmann::json& doc);
  // Appends one result per case of `doc`.
  void (*check)(const nlohmann::json& doc, std::vector<VectorCaseResult>* results);
};

// Loads and checks one file. Fails (IOError / Corruption / NotSupported) if the
// file cannot be read, is not JSON, or is of no known kind; a case that
// cannot be checked (a missing field) is a failed case, not a crash.
Status CheckVectorFile(const std::string& path, std::string* kind, std::vector<VectorCaseResult>* results);

std::vector<const VectorKind*> RegisteredVectorKinds();

// Helpers for checkers.
// Reads a required field, throwing std::runtime_error naming it if absent or
// of the wrong type (CheckVectorFile turns that into a failed case).
const nlohmann::json& RequireField(const nlohmann::json& obj, const char* field);
std::string HexEncode(const void* data, size_t n);
std::string Sha256Hex(const void* data, size_t n);
uint64_t ParseHex64(const std::string& hex);
// The keys of the files built from generated keys (full_filter_e2e.json,
// ribbon_filter.json, parquet_sbbf.json): splitmix64 seeded with `seed`; key i has
// 8 + (i mod 25) bytes, ceil(len/8) generator outputs little-endian, truncated.
std::vector<std::string> GenerateReferenceKeys(uint64_t seed, size_t count);
// Compares and, on mismatch, appends "field: expected X, got Y; " to *detail.
bool ExpectEqual(const char* field, const std::string& expected, const std::string& actual, std::string* detail);
bool ExpectEqual(const char* field, uint64_t expected, uint64_t actual, std::string* detail);

// Runs check_case(case, &result) for every element of doc[array_field]
// (normally "cases"; fp_model.json calls them "rows"); a case whose check
// throws (e.g. RequireField on a missing field) becomes a failed result
// naming the exception. check_case sets name, passed and detail.
void ForEachCase(const nlohmann::json& doc,
                 const std::function<void(const nlohmann::json&, VectorCaseResult*)>& check_case,
                 std::vector<VectorCaseResult>* results, const char* array_field = "cases");

namespace internal {
struct VectorKindRegistrar {
  explicit VectorKindRegistrar(VectorKind kind);
};
}  // namespace internal

#define FILTERLAB_REGISTER_VECTOR_KIND(...) \
  static ::filterlab::internal::VectorKindRegistrar FILTERLAB_UNIQUE_NAME(filterlab_vector_kind_)(__VA_ARGS__)

}  // namespace filterlab
