// The workers' only output format (filterlab-sim, lsmbench): one JSON object per line on stdout,
// carrying every parameter that produced the measurement (the contract with
// the Python runner). Field order is kept as inserted, for readable lines.
#pragma once

#include <cstdio>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

namespace filterlab {

using JsonRecord = nlohmann::ordered_json;

// A record value that may be absent (e.g. FilterPolicy::num_probes() of a
// variant without probes): the value, or null.
template <class T>
JsonRecord JsonOrNull(const std::optional<T>& value) {
  return value ? JsonRecord(*value) : JsonRecord(nullptr);
}

// Writes `record` as one line and flushes, so partial sweeps keep their lines.
inline void EmitRecord(const JsonRecord& record, FILE* out = stdout) {
  const std::string line = record.dump();
  std::fwrite(line.data(), 1, line.size(), out);
  std::fputc('\n', out);
  std::fflush(out);
}

}  // namespace filterlab
