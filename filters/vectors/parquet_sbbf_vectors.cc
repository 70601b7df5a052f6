// Parquet split-block Bloom filter vectors (parquet_sbbf.json): the golden
// bitset of apache/parquet-testing's bloom_filter.xxhash.bin and cases built
// from generated keys at given block counts. Each case hashes its keys with
// the "sbbf" policy's HashKey (XXH64, seed 0), builds a filter of exactly the
// case's block count, and compares the bitset (the serialized bytes before
// filterlab's trailer, i.e. what Parquet stores) by SHA-256 and first bytes;
// then reads it back with OpenFilter and compares the reader's answers to the
// added keys (all positive) and the query keys with the vectors'.
#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "filters/filter.h"
#include "filters/split_block_bloom.h"
#include "filters/trailer.h"
#include "filters/vectors/vector_check.h"
#include "hashing/xxh3.h"

namespace filterlab {
namespace {

bool DetectParquetSbbf(const nlohmann::json& doc) {
  const auto& cases = doc.at("cases");
  return cases.is_array() && !cases.empty() && cases[0].contains("num_blocks") && cases[0].contains("bitset_sha256");
}

// Builds from the keys' hashes, checks the bitset's length and SHA-256 and
// that the read-back filter answers as the built one and has every key.
// Returns the read-back filter (null on failure, with *detail set), which
// may read *serialized in place, and the bitset in *bitset.
std::unique_ptr<Filter> BuildAndReadBack(const FilterPolicy& policy, const std::vector<std::string>& added,
                                         const std::vector<std::string>& queries, uint32_t num_blocks,
                                         const nlohmann::json& c, std::string* serialized, std::string* bitset,
                                         bool* ok, std::string* d) {
  std::vector<uint64_t> hashes;
  for (const auto& k : added) hashes.push_back(policy.HashKey(k));
  auto built = sbbf::NewSplitBlockBloom(hashes.data(), hashes.size(), num_blocks);
  *serialized = built->Serialize();
  const std::string& bytes = *serialized;
  Slice data;
  std::string layout;
  Status s = ParseFilterlabTrailer(Slice(bytes.data(), bytes.size()), &data, &layout);
  std::unique_ptr<Filter> reader;
  if (s.ok()) s = OpenFilter(Slice(bytes.data(), bytes.size()), &reader);
  if (!s.ok()) {
    *d += "reading the built filter back: " + s.ToString() + "; ";
    *ok = false;
    return nullptr;
  }
  bitset->assign(data.data(), data.size());
  *ok &= ExpectEqual("bitset_sha256", RequireField(c, "bitset_sha256").get<std::string>(),
                     Sha256Hex(bitset->data(), bitset->size()), d);
  size_t false_negatives = 0, disagreements = 0;
  for (uint64_t h : hashes) false_negatives += !reader->MayContain(h);
  for (const auto& k : queries) {
    const uint64_t h = policy.HashKey(k);
    disagreements += reader->MayContain(h) != built->MayContain(h);
  }
  *ok &= ExpectEqual("false negatives", 0, false_negatives, d);
  *ok &= ExpectEqual("built vs read-back filter disagreements", 0, disagreements, d);
  return reader;
}

void CheckParquetSbbfCase(const nlohmann::json& c, VectorCaseResult* r) {
  std::unique_ptr<FilterPolicy> policy;
  const Status s = NewFilterPolicy("sbbf", &policy);
  if (!s.ok()) {
    r->detail = "sbbf policy: " + s.ToString();
    return;
  }
  const auto num_blocks = RequireField(c, "num_blocks").get<uint64_t>();
  r->name += " (blocks=" + std::to_string(num_blocks);
  if (num_blocks < 1 || num_blocks > (uint64_t{1} << 29)) {
    r->name += ")";
    r->detail = "num_blocks " + std::to_string(num_blocks) + " is outside 1..2^29";
    return;
  }
  const auto blocks = static_cast<uint32_t>(num_blocks);
  bool ok = true;
  std::string* d = &r->detail;
  std::string serialized, bitset;

  if (c.contains("values_utf8")) {  // the golden file: a few values, the whole bitset given
    r->name += ", " + std::to_string(c.at("values_utf8").size()) + " values)";
    const auto values = c.at("values_utf8").get<std::vector<std::string>>();
    auto reader = BuildAndReadBack(*policy, values, {}, blocks, c, &serialized, &bitset, &ok, d);
    if (reader != nullptr) {
      ok &= ExpectEqual("bitset_hex", RequireField(c, "bitset_hex").get<std::string>(),
                        HexEncode(bitset.data(), bitset.size()), d);
    }
    r->passed = ok && reader != nullptr;
    return;
  }

  constexpr size_t kQueries = 1000;
  const auto num_keys = RequireField(c, "num_keys").get<size_t>();
  r->name += ", keys=" + std::to_string(num_keys) + ")";
  const std::vector<std::string> keys =
      GenerateReferenceKeys(RequireField(c, "seed").get<uint64_t>(), num_keys + kQueries);
  const std::vector<std::string> added(keys.begin(), keys.begin() + static_cast<std::ptrdiff_t>(num_keys));
  const std::vector<std::string> queries(keys.begin() + static_cast<std::ptrdiff_t>(num_keys), keys.end());
  auto reader = BuildAndReadBack(*policy, added, queries, blocks, c, &serialized, &bitset, &ok, d);
  if (reader == nullptr) return;

  size_t positives = 0;
  std::string first64;
  for (size_t i = 0; i < queries.size(); ++i) {
    const bool may = reader->MayContain(policy->HashKey(queries[i]));
    positives += may;
    if (i < 64) first64 += may ? '1' : '0';
  }
  const std::string& k0 = keys.at(0);
  ok &= ExpectEqual("first_key_hex", RequireField(c, "first_key_hex").get<std::string>(),
                    HexEncode(k0.data(), k0.size()), d);
  ok &= ExpectEqual("first_key_xxh64", ParseHex64(RequireField(c, "first_key_xxh64").get<std::string>()),
                    XXH64(k0.data(), k0.size(), 0), d);
  ok &= ExpectEqual("first key through the policy's HashKey", XXH64(k0.data(), k0.size(), 0), policy->HashKey(k0), d);
  ok &= ExpectEqual("bitset_len", RequireField(c, "bitset_len").get<uint64_t>(), bitset.size(), d);
  ok &= ExpectEqual("bitset_first128_hex", RequireField(c, "bitset_first128_hex").get<std::string>(),
                    HexEncode(bitset.data(), std::min<size_t>(128, bitset.size())), d);
  ok &= ExpectEqual("query_positives", RequireField(c, "query_positives").get<uint64_t>(), positives, d);
  ok &= ExpectEqual("query_first64", RequireField(c, "query_first64").get<std::string>(), first64, d);
  r->passed = ok;
}

void CheckParquetSbbfFile(const nlohmann::json& doc, std::vector<VectorCaseResult>* results) {
  ForEachCase(doc, &CheckParquetSbbfCase, results);
}

}  // namespace

FILTERLAB_REGISTER_VECTOR_KIND(VectorKind{"parquet_sbbf", &DetectParquetSbbf, &CheckParquetSbbfFile});

}  // namespace filterlab
