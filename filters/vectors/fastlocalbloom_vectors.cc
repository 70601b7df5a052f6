// Reference vectors for FastLocalBloom (fastlocalbloom.json, made by RocksDB's
// FastLocalBloomImpl): a bit array of len_bytes gets 1000 splitmix64 hashes
// (h1 = low, h2 = high 32 bits) with num_probes probes, then answers 1000
// fresh ones. Built through the production pipeline (fastlocal::AddAll) and
// queried through the filter (single and batched); the scalar query is also
// held against the compiled-in one (AVX2 where available) on every hash.
#include <string>
#include <vector>

#include "common/aligned_array.h"
#include "filters/fast_local_bloom.h"
#include "filters/vectors/bloom_array_case.h"
#include "filters/vectors/vector_check.h"

namespace filterlab {
namespace {

bool DetectFastLocalBloom(const nlohmann::json& doc) {
  const auto& cases = doc.at("cases");
  return cases.is_array() && !cases.empty() && cases[0].contains("first_add_cache_line") &&
         cases[0].contains("first_add_bitpos");
}

void CheckFastLocalBloomCase(const nlohmann::json& c, VectorCaseResult* r) {
  const auto len_bytes = RequireField(c, "len_bytes").get<uint32_t>();
  const auto num_probes = RequireField(c, "num_probes").get<int>();
  r->name += " (len_bytes=" + std::to_string(len_bytes) + ", num_probes=" + std::to_string(num_probes) + ")";
  if (len_bytes == 0 || len_bytes % fastlocal::kLineBytes != 0 || num_probes < 1 ||
      num_probes > fastlocal::kMaxProbes) {
    r->detail = "case has len_bytes/num_probes outside what FastLocalBloom supports";
    return;
  }
  const BloomArrayCaseHashes hashes = GenerateCaseHashes(c);
  CacheAlignedArray<uint8_t> bits(len_bytes);
  fastlocal::AddAll(hashes.added.data(), hashes.added.size(), HashWidth::k64, len_bytes, num_probes, bits.data());
  const Slice data(bits.data(), len_bytes);
  auto filter = fastlocal::NewFastLocalBloomView(data, num_probes, HashWidth::k64);

  bool ok = true;
  BloomArrayOutcome outcome;
  ok &= QueryBloomArrayCase(*filter, hashes, &outcome, &r->detail);
  ok &= ExpectBloomArrayFields(c, data, outcome, hashes, 16, &r->detail);

  size_t scalar_mismatches = 0;
  for (const auto* v : {&hashes.added, &hashes.queries}) {
    for (uint64_t h : *v) {
      const auto s = fastlocal::Split(h, HashWidth::k64);
      const uint8_t* line = bits.data() + fastlocal::LineOffset(s.line_hash, len_bytes);
      scalar_mismatches += fastlocal::MayMatchLineScalar(s.probe_hash, num_probes, line) !=
                           fastlocal::MayMatchLine(s.probe_hash, num_probes, line);
    }
  }
  ok &= ExpectEqual("scalar vs compiled-in query mismatches", 0, scalar_mismatches, &r->detail);

  if (!hashes.added.empty()) {
    const auto s = fastlocal::Split(hashes.added[0], HashWidth::k64);
    ok &= ExpectEqual("first_add_cache_line", RequireField(c, "first_add_cache_line").get<uint64_t>(),
                      fastlocal::LineOffset(s.line_hash, len_bytes) / fastlocal::kLineBytes, &r->detail);
    std::vector<uint64_t> bitpos;
    uint32_t x = s.probe_hash;
    for (int i = 0; i < num_probes; ++i, x *= kGoldenRatio32) bitpos.push_back(x >> 23);
    ok &= ExpectEqual("first_add_bitpos", RequireField(c, "first_add_bitpos").dump(), nlohmann::json(bitpos).dump(),
                      &r->detail);
  }
  r->passed = ok;
}

void CheckFastLocalBloomFile(const nlohmann::json& doc, std::vector<VectorCaseResult>* results) {
  ForEachCase(doc, &CheckFastLocalBloomCase, results);
}

}  // namespace

FILTERLAB_REGISTER_VECTOR_KIND(VectorKind{"fastlocalbloom", &DetectFastLocalBloom, &CheckFastLocalBloomFile});

}  // namespace filterlab
