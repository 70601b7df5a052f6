// Reference vectors for RocksDB's DynamicBloom (dynamic_bloom.json, made by
// RocksDB's util/dynamic_bloom.cc): for each case a filter of total_bits and
// num_probes gets 1000 splitmix64 hashes (low 32 bits) by AddHash or
// AddHashConcurrently, then answers 1000 fresh ones (single and batched).
// Every recorded field is compared: the kLen words (little-endian) by
// SHA-256, prefix, popcount and full hex, kLen itself, the generator's first
// hash, and the query answers.
#include <memory>
#include <string>
#include <vector>

#include "filters/dynamic_bloom.h"
#include "filters/vectors/bloom_array_case.h"
#include "filters/vectors/vector_check.h"

namespace filterlab {
namespace {

bool DetectDynamicBloom(const nlohmann::json& doc) {
  const auto& cases = doc.at("cases");
  return cases.is_array() && !cases.empty() && cases[0].contains("add_concurrently") &&
         cases[0].contains("len_words") && cases[0].contains("total_bits");
}

void CheckDynamicBloomCase(const nlohmann::json& c, VectorCaseResult* r) {
  const auto total_bits = RequireField(c, "total_bits").get<uint64_t>();
  const auto num_probes = RequireField(c, "num_probes").get<int>();
  const bool concurrently = RequireField(c, "add_concurrently").get<bool>();
  r->name += " (total_bits=" + std::to_string(total_bits) + ", num_probes=" + std::to_string(num_probes) +
             (concurrently ? ", AddHashConcurrently)" : ", AddHash)");

  std::unique_ptr<DynamicBloom> filter;
  Status s = DynamicBloom::Create(total_bits, num_probes, HashWidth::k32, &filter);
  if (!s.ok()) {
    r->detail = s.ToString();
    return;
  }
  // Full generator outputs; the 32-bit filter reads their low 32 bits, as
  // RocksDB's AddHash(uint32_t) received them.
  const BloomArrayCaseHashes hashes = GenerateCaseHashes(c);
  for (uint64_t h : hashes.added) concurrently ? filter->AddConcurrently(h) : filter->Add(h);

  std::string data;
  filter->AppendData(&data);
  bool ok = true;
  BloomArrayOutcome outcome;
  ok &= QueryBloomArrayCase(*filter, hashes, &outcome, &r->detail);
  ok &= ExpectBloomArrayFields(c, data, outcome, hashes, 8, &r->detail);
  ok &= ExpectEqual("len_words", RequireField(c, "len_words").get<uint64_t>(), filter->len_words(), &r->detail);
  r->passed = ok;
}

void CheckDynamicBloomFile(const nlohmann::json& doc, std::vector<VectorCaseResult>* results) {
  ForEachCase(doc, &CheckDynamicBloomCase, results);
}

}  // namespace

FILTERLAB_REGISTER_VECTOR_KIND(VectorKind{"dynamic_bloom", &DetectDynamicBloom, &CheckDynamicBloomFile});

}  // namespace filterlab
