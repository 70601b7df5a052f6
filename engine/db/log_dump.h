// Text dumps of a WAL and of a manifest for the `ldb` tool
// (engine/tools/ldb_main.cc): every record in order with its offset, every
// damaged range where it lies, and a summary saying what Open would make of
// the damage (how many intact records follow the first damaged range).
#pragma once

#include <string>

namespace filterlab::engine {

struct LogDumpSummary {
  uint64_t records = 0;  // intact records
  uint64_t damaged_regions = 0;
  uint64_t damaged_bytes = 0;
  uint64_t records_after_damage = 0;  // intact records after the first damaged range
  bool bad_payload = false;           // a record passed its checksum but did not decode
};

// `contents` is the whole file, `name` labels it. With values, WAL puts show
// their values (escaped) instead of only their sizes.
std::string DumpWal(const std::string& contents, const std::string& name, bool values, LogDumpSummary* summary);
std::string DumpManifest(const std::string& contents, const std::string& name, LogDumpSummary* summary);

}  // namespace filterlab::engine
