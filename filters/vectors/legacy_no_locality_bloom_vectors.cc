// Reference vectors for RocksDB's LegacyNoLocalityBloomImpl
// (legacy_no_locality_bloom.json): a bit array of total_bits gets the low 32
// bits of 1000 splitmix64 hashes, then answers 1000 fresh ones. Built through
// legacy_block's production path and queried through its filter (single and
// batched).
#include <string>
#include <vector>

#include "common/aligned_array.h"
#include "filters/legacy_bloom.h"
#include "filters/vectors/bloom_array_case.h"
#include "filters/vectors/vector_check.h"

namespace filterlab {
namespace {

bool DetectLegacyNoLocalityBloom(const nlohmann::json& doc) {
  const auto& cases = doc.at("cases");
  // dynamic_bloom.json also has total_bits, but its cases carry len_words.
  return cases.is_array() && !cases.empty() && cases[0].contains("total_bits") && !cases[0].contains("len_words") &&
         !cases[0].contains("num_lines");
}

void CheckLegacyNoLocalityBloomCase(const nlohmann::json& c, VectorCaseResult* r) {
  const auto total_bits = RequireField(c, "total_bits").get<uint32_t>();
  const auto num_probes = RequireField(c, "num_probes").get<int>();
  r->name += " (total_bits=" + std::to_string(total_bits) + ", num_probes=" + std::to_string(num_probes) + ")";
  if (total_bits == 0 || total_bits % 8 != 0 || num_probes < 1) {
    r->detail = "case has total_bits/num_probes out of range (total_bits must be a positive multiple of 8)";
    return;
  }
  const BloomArrayCaseHashes hashes = GenerateCaseHashes(c);
  CacheAlignedArray<uint8_t> bits(total_bits / 8);
  legacy::NoLocalityAddAll(hashes.added.data(), hashes.added.size(), total_bits, num_probes, bits.data());
  const Slice data(bits.data(), bits.size());
  auto filter = legacy::NewLegacyBlockBloomView(data, total_bits, num_probes);
  bool ok = true;
  BloomArrayOutcome outcome;
  ok &= QueryBloomArrayCase(*filter, hashes, &outcome, &r->detail);
  ok &= ExpectBloomArrayFields(c, data, outcome, hashes, 8, &r->detail);
  r->passed = ok;
}

void CheckLegacyNoLocalityBloomFile(const nlohmann::json& doc, std::vector<VectorCaseResult>* results) {
  ForEachCase(doc, &CheckLegacyNoLocalityBloomCase, results);
}

}  // namespace

FILTERLAB_REGISTER_VECTOR_KIND(VectorKind{"legacy_no_locality_bloom", &DetectLegacyNoLocalityBloom,
                                          &CheckLegacyNoLocalityBloomFile});

}  // namespace filterlab
