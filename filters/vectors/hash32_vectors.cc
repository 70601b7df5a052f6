// Reference vectors for RocksDB's key hashes (rocksdb_hash32.json, made by
// RocksDB's util/hash.cc and util/xxph3.h plus the system libxxhash): for
// each key length a key is generated from splitmix64, and every hash the file
// records is recomputed — the legacy 32-bit hash with both seeds in use,
// XXPH3 (RocksDB's XXH3 preview) unseeded and seeded, and final XXH3 from the
// library the same two ways (proving the two families really differ on the
// very same bytes). The key bytes themselves are compared too (key_hex), so a
// generator mismatch cannot pass as a hash mismatch or vice versa.
#include <cstdio>
#include <stdexcept>
#include <string>

#include "filters/vectors/vector_check.h"
#include "hashing/legacy_hash.h"
#include "hashing/remix.h"
#include "hashing/xxh3.h"

namespace filterlab {
namespace {

// The seed of the *_seeded fields. The file gives it only inside its field
// descriptions, so Check makes sure those still name this value.
constexpr uint64_t kSeededFieldsSeed = 0x0123456789abcdefULL;
constexpr const char* kSeededFieldsSeedText = "0x0123456789abcdef";
// Longer keys than the file's 4096 bytes are allowed; this only stops a
// corrupt length from allocating gigabytes.
constexpr uint64_t kMaxKeyLength = uint64_t{1} << 20;

std::string HexDigits(uint64_t v, int digits) {
  char buf[17];
  std::snprintf(buf, sizeof buf, "%0*llx", digits, static_cast<unsigned long long>(v));
  return buf;
}

bool DetectHash32(const nlohmann::json& doc) {
  const auto& cases = doc.at("cases");
  return cases.is_array() && !cases.empty() && cases[0].contains("xxph3_64") && cases[0].contains("bloom_hash32");
}

void CheckHash32Case(const nlohmann::json& c, VectorCaseResult* r) {
  const auto len = RequireField(c, "len").get<uint64_t>();
  const auto key_seed = RequireField(c, "seed").get<uint64_t>();
  r->name += " (len=" + std::to_string(len) + ")";
  if (len > kMaxKeyLength) {
    throw std::runtime_error("len " + std::to_string(len) + " is out of range (allowed: 0.." +
                             std::to_string(kMaxKeyLength) + ")");
  }
  std::string key(len, '\0');
  SplitMix64 gen(key_seed);
  gen.FillBytes(key.data(), key.size());
  const char* k = key.data();

  bool ok = true;
  std::string* d = &r->detail;
  auto expect = [&](const char* field, uint64_t actual, int digits) {
    ok &= ExpectEqual(field, RequireField(c, field).get<std::string>(), HexDigits(actual, digits), d);
  };
  ok &= ExpectEqual("key_hex", RequireField(c, "key_hex").get<std::string>(), HexEncode(k, len), d);
  expect("bloom_hash32", BloomHash32(k, len), 8);
  expect("hash32_seed397", LegacyHash32(k, len, kSliceHashSeed), 8);
  expect("xxph3_64", XXPH3_64(k, len), 16);
  expect("xxph3_64_seeded", XXPH3_64(k, len, kSeededFieldsSeed), 16);
  expect("xxh3_64_libxxhash", XXH3_64(k, len), 16);
  expect("xxh3_64_libxxhash_seeded", XXH3_64(k, len, kSeededFieldsSeed), 16);
  r->passed = ok;
}

void CheckHash32(const nlohmann::json& doc, std::vector<VectorCaseResult>* results) {
  const auto& fields = RequireField(doc, "fields");
  for (const char* seeded : {"xxph3_64_seeded", "xxh3_64_libxxhash_seeded"}) {
    const auto description = RequireField(fields, seeded).get<std::string>();
    if (description.find(kSeededFieldsSeedText) == std::string::npos) {
      throw std::runtime_error(std::string("fields.") + seeded + " does not name the seed " + kSeededFieldsSeedText +
                               " this checker uses: '" + description + "'");
    }
  }
  ForEachCase(doc, CheckHash32Case, results);
}

}  // namespace

FILTERLAB_REGISTER_VECTOR_KIND(VectorKind{"rocksdb_hash32", DetectHash32, CheckHash32});

}  // namespace filterlab
