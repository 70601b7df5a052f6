// libFuzzer target over the log reader (log_reader.h), WAL batch decoding,
// the manifest's edit decoding and application, and the ldb dumps: whatever
// the bytes, reading gives intact records and damage reports (never a crash,
// an out-of-bounds read or undefined behaviour), and a log we write
// ourselves reads back exactly, then with one byte damaged loses only
// records (never alters one).
//
// The first input byte picks a mode:
//   0  round trip: the rest is cut into records (lengths from the input, up
//      to 3 blocks each so fragments and padding are reached), written as a
//      log, read back (must be equal, no damage), then one byte picked by the
//      input is flipped and every record read must be one that was written,
//      in order;
//   1  raw log bytes: every record as a WAL batch and as a version edit, the
//      damage reports checked for order and bounds, both dumps rendered.
// Built only with clang (-DFILTERLAB_FUZZ=ON, see ./filterlab fuzz).
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "engine/db/log_dump.h"
#include "engine/db/log_format.h"
#include "engine/db/log_reader.h"
#include "engine/db/log_writer.h"
#include "engine/db/manifest.h"
#include "engine/db/write_batch.h"

namespace filterlab::engine {
namespace {

void Crash(const char* what, const std::string& detail) {
  std::fprintf(stderr, "log_fuzz: %s: %s\n", what, detail.c_str());
  std::abort();
}

class NullHandler final : public WriteBatch::Handler {
 public:
  void Put(const Slice&, const Slice&) override {}
  void Delete(const Slice&) override {}
};

// Reads all of `log`; checks the damage reports are ordered, disjoint and inside the file.
std::vector<std::string> ReadAll(const std::string& log, bool decode) {
  log::Reader reader(log, "fuzz.log");
  std::vector<std::string> out;
  Slice rec;
  ManifestState state;
  while (reader.ReadRecord(&rec)) {
    if (reader.record_offset() >= log.size()) Crash("record offset", std::to_string(reader.record_offset()));
    out.push_back(rec.ToString());
    if (!decode) continue;
    WriteBatch b;
    if (WriteBatchInternal::SetContents(&b, rec).ok()) {
      NullHandler h;
      (void)b.Iterate(&h);
    }
    VersionEdit e;
    if (e.Decode(rec).empty()) (void)e.ApplyTo(&state);
  }
  uint64_t end = 0;
  for (const log::Damage& d : reader.damages()) {
    if (d.offset < end || d.bytes == 0 || d.offset + d.bytes > log.size()) {
      Crash("damage range", reader.Describe(d) + " after " + std::to_string(end));
    }
    end = d.offset + d.bytes;
  }
  return out;
}

void RoundTrip(const uint8_t* data, size_t size) {
  std::vector<std::string> records;
  size_t pos = 0;
  while (pos + 2 <= size) {
    const size_t want =
        (static_cast<size_t>(data[pos]) | (static_cast<size_t>(data[pos + 1]) << 8)) * 3 % (3 * log::kBlockSize);
    pos += 2;
    std::string r;
    for (size_t i = 0; i < want; ++i) r.push_back(static_cast<char>(pos < size ? data[pos + i % (size - pos)] : 'x'));
    records.push_back(std::move(r));
    pos += std::min(want, size - pos);
  }
  std::string log;
  for (const auto& r : records) log::AppendRecord(&log, r);
  if (ReadAll(log, false) != records) Crash("round trip", std::to_string(records.size()) + " records");
  if (log.empty()) return;
  const size_t at = (size > 0 ? data[0] * 2654435761u : 0) % log.size();
  log[at] = static_cast<char>(log[at] ^ (size > 1 ? (data[1] | 1) : 1));
  size_t k = 0;
  for (const std::string& got : ReadAll(log, false)) {
    while (k < records.size() && records[k] != got) ++k;
    if (k == records.size()) Crash("damaged log yielded a record never written, or out of order", std::to_string(at));
    ++k;
  }
}

}  // namespace
}  // namespace filterlab::engine

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace filterlab::engine;
  if (size == 0) return 0;
  if (data[0] % 2 == 0) {
    RoundTrip(data + 1, size - 1);
  } else {
    const std::string log(reinterpret_cast<const char*>(data + 1), size - 1);
    ReadAll(log, true);
    LogDumpSummary s;
    (void)DumpWal(log, "fuzz.log", true, &s);
    (void)DumpManifest(log, "fuzz.manifest", &s);
  }
  return 0;
}
