#include "engine/db/log_dump.h"

#include <cinttypes>
#include <cstdio>
#include <functional>

#include "engine/db/log_reader.h"
#include "engine/db/manifest.h"
#include "engine/db/write_batch.h"

namespace filterlab::engine {
namespace {

std::string Escape(const Slice& s, size_t limit = 64) {
  std::string out;
  for (size_t i = 0; i < s.size() && i < limit; ++i) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c >= 0x20 && c < 0x7f && c != '\\' && c != '\'') {
      out.push_back(static_cast<char>(c));
    } else {
      char buf[8];
      std::snprintf(buf, sizeof(buf), "\\x%02x", c);
      out += buf;
    }
  }
  if (s.size() > limit) out += "...";
  return out;
}

std::string U(uint64_t v) { return std::to_string(v); }

// Reads every record of `contents`, printing damage where it lies; `record`
// describes one intact record ("" ok, else the decode problem in *line).
std::string Dump(const std::string& contents, const std::string& name, const char* what,
                 const std::function<bool(const Slice&, std::string*)>& record, LogDumpSummary* summary) {
  *summary = LogDumpSummary();
  log::Reader reader(contents, name);
  std::string out = name + ": " + U(contents.size()) + " bytes\n";
  size_t damages_seen = 0;
  auto print_damage = [&] {
    for (; damages_seen < reader.damages().size(); ++damages_seen) {
      const log::Damage& d = reader.damages()[damages_seen];
      out += "DAMAGED offset " + U(d.offset) + ", " + U(d.bytes) + " bytes" +
             (d.incomplete_tail ? " (torn tail)" : "") + ": " + d.reason + "\n";
      ++summary->damaged_regions;
      summary->damaged_bytes += d.bytes;
    }
  };
  Slice rec;
  while (reader.ReadRecord(&rec)) {
    print_damage();
    if (summary->damaged_regions > 0) ++summary->records_after_damage;
    std::string line;
    if (!record(rec, &line)) summary->bad_payload = true;
    out += "offset " + U(reader.record_offset()) + ": " + line + "\n";
    ++summary->records;
  }
  print_damage();
  out += U(summary->records) + " intact " + what + "(s)";
  if (summary->damaged_regions == 0) {
    out += ", no damage\n";
  } else {
    out += ", " + U(summary->damaged_regions) + " damaged range(s) of " + U(summary->damaged_bytes) + " bytes; " +
           U(summary->records_after_damage) + " intact " + what + "(s) after the first" +
           (summary->records_after_damage == 0 ? " (a damaged tail)\n" : "\n");
  }
  return out;
}

class Printer final : public WriteBatch::Handler {
 public:
  Printer(std::string* out, bool values) : out_(out), values_(values) {}
  void Put(const Slice& key, const Slice& value) override {
    out_->append("\n  PUT '").append(Escape(key)).append("' ");
    if (values_) {
      out_->append("'").append(Escape(value)).append("'");
    } else {
      out_->append(U(value.size())).append(" bytes");
    }
  }
  void Delete(const Slice& key) override { *out_ += "\n  DELETE '" + Escape(key) + "'"; }

 private:
  std::string* out_;
  const bool values_;
};

std::string FileLine(int level, const FileMetaData& f) {
  std::string line = "L";
  line.append(std::to_string(level)).append(" #").append(U(f.number)).append(" (").append(U(f.file_size));
  line.append(" bytes, '").append(Escape(ExtractUserKey(f.smallest))).append("' .. '");
  line.append(Escape(ExtractUserKey(f.largest))).append("', seq ").append(U(f.smallest_seq)).append("..");
  line.append(U(f.largest_seq)).append(")");
  return line;
}

}  // namespace

std::string DumpWal(const std::string& contents, const std::string& name, bool values, LogDumpSummary* summary) {
  return Dump(
      contents, name, "record",
      [&](const Slice& rec, std::string* line) {
        WriteBatch batch;
        Status s = WriteBatchInternal::SetContents(&batch, rec);
        if (s.ok()) {
          *line = "batch seq " + U(WriteBatchInternal::Sequence(batch)) + ", " + U(batch.Count()) + " op(s)";
          Printer p(line, values);
          s = batch.Iterate(&p);
        }
        if (!s.ok()) *line += " BAD PAYLOAD (checksum ok): " + s.message();
        return s.ok();
      },
      summary);
}

std::string DumpManifest(const std::string& contents, const std::string& name, LogDumpSummary* summary) {
  ManifestState state;
  std::string out = Dump(
      contents, name, "edit",
      [&](const Slice& rec, std::string* line) {
        VersionEdit edit;
        std::string problem = edit.Decode(rec);
        if (problem.empty()) {
          *line = "edit: levels " + U(edit.num_levels) + ", log_number " + U(edit.log_number) + ", next_file_number " +
                  U(edit.next_file_number) + ", last_sequence " + U(edit.last_sequence);
          for (const auto& [level, number] : edit.deleted)
            *line += "\n  - L" + std::to_string(level) + " #" + U(number);
          for (const auto& [level, f] : edit.added) *line += "\n  + " + FileLine(level, *f);
          problem = edit.ApplyTo(&state);
          if (!problem.empty()) problem = "does not apply: " + problem;
        }
        if (!problem.empty()) *line += " BAD EDIT: " + problem;
        return problem.empty();
      },
      summary);
  if (state.version) {
    out += "state after the intact edits: log_number " + U(state.log_number) + ", next_file_number " +
           U(state.next_file_number) + ", last_sequence " + U(state.last_sequence) + "\n";
    for (int level = 0; level < state.version->num_levels(); ++level) {
      for (const auto& f : state.version->files(level)) out += "  " + FileLine(level, *f) + "\n";
    }
  }
  return out;
}

}  // namespace filterlab::engine
