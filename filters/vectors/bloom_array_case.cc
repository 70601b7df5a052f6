#include "filters/vectors/bloom_array_case.h"

#include <algorithm>
#include <bit>
#include <cstdio>
#include <memory>

#include "filters/vectors/vector_check.h"
#include "hashing/remix.h"

namespace filterlab {

BloomArrayCaseHashes GenerateCaseHashes(const nlohmann::json& c) {
  BloomArrayCaseHashes h;
  SplitMix64 gen(RequireField(c, "seed").get<uint64_t>());
  h.added.resize(RequireField(c, "num_added").get<size_t>());
  h.queries.resize(RequireField(c, "num_queries").get<size_t>());
  for (auto& x : h.added) x = gen.Next();
  for (auto& x : h.queries) x = gen.Next();
  return h;
}

bool QueryBloomArrayCase(const Filter& filter, const BloomArrayCaseHashes& hashes, BloomArrayOutcome* out,
                         std::string* detail) {
  bool consistent = true;
  auto ask = [&](const std::vector<uint64_t>& v, std::vector<bool>* answers) {
    std::unique_ptr<bool[]> batched(new bool[v.size()]);
    filter.MayContainBatch(v.data(), v.size(), batched.get());
    answers->resize(v.size());
    for (size_t i = 0; i < v.size(); ++i) {
      (*answers)[i] = filter.MayContain(v[i]);
      if ((*answers)[i] != batched[i] && consistent) {
        consistent = false;
        *detail += "MayContainBatch disagrees with MayContain for hash " + std::to_string(v[i]) + "; ";
      }
    }
  };
  std::vector<bool> answers;
  ask(hashes.added, &answers);
  out->false_negatives = static_cast<uint64_t>(std::count(answers.begin(), answers.end(), false));
  ask(hashes.queries, &answers);
  out->query_positives = static_cast<uint64_t>(std::count(answers.begin(), answers.end(), true));
  out->query_first64.clear();
  for (size_t i = 0; i < std::min<size_t>(64, answers.size()); ++i) out->query_first64 += answers[i] ? '1' : '0';
  return consistent;
}

bool ExpectBloomArrayFields(const nlohmann::json& c, Slice data, const BloomArrayOutcome& outcome,
                            const BloomArrayCaseHashes& hashes, int first_hash_hex_digits, std::string* detail) {
  uint64_t popcount = 0;
  for (size_t i = 0; i < data.size(); ++i) popcount += std::popcount(static_cast<uint8_t>(data[i]));
  std::string first_hash;
  if (!hashes.added.empty()) {
    const uint64_t h = first_hash_hex_digits >= 16 ? hashes.added[0] : Lower32(hashes.added[0]);
    char buf[17];
    std::snprintf(buf, sizeof buf, "%0*llx", first_hash_hex_digits, static_cast<unsigned long long>(h));
    first_hash = buf;
  }
  bool ok = true;
  ok &= ExpectEqual("len_bytes", RequireField(c, "len_bytes").get<uint64_t>(), data.size(), detail);
  ok &= ExpectEqual("first_add_hash", RequireField(c, "first_add_hash").get<std::string>(), first_hash, detail);
  ok &= ExpectEqual("false_negatives", RequireField(c, "false_negatives").get<uint64_t>(), outcome.false_negatives,
                    detail);
  ok &= ExpectEqual("query_positives", RequireField(c, "query_positives").get<uint64_t>(), outcome.query_positives,
                    detail);
  ok &=
      ExpectEqual("query_first64", RequireField(c, "query_first64").get<std::string>(), outcome.query_first64, detail);
  ok &= ExpectEqual("data_sha256", RequireField(c, "data_sha256").get<std::string>(),
                    Sha256Hex(data.data(), data.size()), detail);
  ok &= ExpectEqual("data_first128_hex", RequireField(c, "data_first128_hex").get<std::string>(),
                    HexEncode(data.data(), std::min<size_t>(128, data.size())), detail);
  ok &= ExpectEqual("data_popcount", RequireField(c, "data_popcount").get<uint64_t>(), popcount, detail);
  if (c.contains("data_full_hex")) {
    ok &= ExpectEqual("data_full_hex", c.at("data_full_hex").get<std::string>(), HexEncode(data.data(), data.size()),
                      detail);
  }
  return ok;
}

}  // namespace filterlab
