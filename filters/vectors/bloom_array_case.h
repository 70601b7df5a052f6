// The shape shared by the RocksDB bit-array vector files (fastlocalbloom,
// legacy_locality_bloom, legacy_no_locality_bloom): a case seeds splitmix64,
// adds the first num_added outputs to a bit array, queries the next
// num_queries, and records the array (SHA-256, first 128 bytes, popcount,
// full hex when small) and the answers. These helpers generate the hashes,
// run the queries through a Filter both one at a time and batched, and compare
// every common field a case gives.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "common/slice.h"
#include "filters/filter.h"

namespace filterlab {

struct BloomArrayCaseHashes {
  std::vector<uint64_t> added;  // full 64-bit generator outputs
  std::vector<uint64_t> queries;
};

// Generates the case's added and query hashes from its seed, num_added and num_queries.
BloomArrayCaseHashes GenerateCaseHashes(const nlohmann::json& c);

struct BloomArrayOutcome {
  uint64_t false_negatives = 0;
  uint64_t query_positives = 0;
  std::string query_first64;
};

// Asks `filter` about every added and query hash, once through MayContain and
// once through MayContainBatch. A disagreement between the two is reported
// in *detail and makes the return false.
bool QueryBloomArrayCase(const Filter& filter, const BloomArrayCaseHashes& hashes, BloomArrayOutcome* out,
                         std::string* detail);

// Compares false_negatives, query_positives, query_first64, data_sha256,
// data_first128_hex, data_popcount and (when the case has it) data_full_hex;
// also first_add_hash against the first added hash printed with
// `first_hash_hex_digits` hex digits (8 for 32-bit variants, 16 for 64-bit).
bool ExpectBloomArrayFields(const nlohmann::json& c, Slice data, const BloomArrayOutcome& outcome,
                            const BloomArrayCaseHashes& hashes, int first_hash_hex_digits, std::string* detail);

}  // namespace filterlab
