// One case of the end-to-end filter vectors (full_filter_e2e.json,
// ribbon_filter.json): complete serialized filters that RocksDB built from
// generated keys. The keys: splitmix64 seeded with the case's `seed`; key i
// has 8 + (i mod 25) bytes, ceil(len/8) generator outputs little-endian,
// truncated; num_keys are added, the next 1000 are queries.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "filters/vectors/vector_check.h"

namespace filterlab {

// Builds `spec` from the case's keys (NewFilterPolicy + BuildFilterFromKeys),
// serializes it, reads it back with OpenFilter and compares the fields both
// kinds have: first_key_hex, first_key_xxph3, filter_len_with_trailer,
// trailer_hex, filter_sha256, filter_first128_hex, false_negatives,
// query_positives, query_first64, and the built and read-back filters'
// agreement. Mismatches go to r->detail. Returns whether all matched; sets
// *bytes (the serialized filter) and *first_key for a kind's own fields.
bool CheckE2eFilterCase(const nlohmann::json& c, const std::string& spec, VectorCaseResult* r, std::string* bytes,
                        std::string* first_key);

}  // namespace filterlab
