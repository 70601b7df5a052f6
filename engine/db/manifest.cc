#include "engine/db/manifest.h"

#include <algorithm>

#include "engine/db/db_files.h"
#include "engine/db/log_reader.h"
#include "engine/util/coding.h"

namespace filterlab::engine {
namespace {

constexpr char kMagic[] = "filterlab-edit-1";
constexpr uint32_t kMaxLevels = 64;

}  // namespace

VersionEdit VersionEdit::Snapshot(const ManifestState& state) {
  VersionEdit e;
  e.num_levels = static_cast<uint32_t>(state.version->num_levels());
  e.log_number = state.log_number;
  e.next_file_number = state.next_file_number;
  e.last_sequence = state.last_sequence;
  for (int level = 0; level < state.version->num_levels(); ++level) {
    for (const auto& f : state.version->files(level)) e.added.emplace_back(level, f);
  }
  return e;
}

std::string VersionEdit::Encode() const {
  std::string out;
  PutLengthPrefixedSlice(&out, kMagic);
  PutVarint32(&out, num_levels);
  PutVarint64(&out, log_number);
  PutVarint64(&out, next_file_number);
  PutVarint64(&out, last_sequence);
  PutVarint64(&out, deleted.size());
  for (const auto& [level, number] : deleted) {
    PutVarint32(&out, static_cast<uint32_t>(level));
    PutVarint64(&out, number);
  }
  PutVarint64(&out, added.size());
  for (const auto& [level, f] : added) {
    PutVarint32(&out, static_cast<uint32_t>(level));
    PutVarint64(&out, f->number);
    PutVarint64(&out, f->file_size);
    PutLengthPrefixedSlice(&out, f->smallest);
    PutLengthPrefixedSlice(&out, f->largest);
    PutVarint64(&out, f->smallest_seq);
    PutVarint64(&out, f->largest_seq);
  }
  return out;
}

std::string VersionEdit::Decode(const Slice& payload) {
  Slice in = payload;
  Slice magic;
  if (!GetLengthPrefixedSlice(&in, &magic) || magic != Slice(kMagic)) {
    return "does not start with the format tag '" + std::string(kMagic) + "'";
  }
  *this = VersionEdit();
  uint64_t count = 0;
  if (!GetVarint32(&in, &num_levels) || !GetVarint64(&in, &log_number) || !GetVarint64(&in, &next_file_number) ||
      !GetVarint64(&in, &last_sequence) || !GetVarint64(&in, &count)) {
    return "truncated header fields";
  }
  if (num_levels < 1 || num_levels > kMaxLevels) {
    return "num_levels " + std::to_string(num_levels) + " out of range 1.." + std::to_string(kMaxLevels);
  }
  if (last_sequence > kMaxSequenceNumber) return "last_sequence beyond 2^56-1";
  if (count > in.size()) return "deleted count " + std::to_string(count) + " exceeds the record";
  for (uint64_t i = 0; i < count; ++i) {
    uint32_t level = 0;
    uint64_t number = 0;
    if (!GetVarint32(&in, &level) || !GetVarint64(&in, &number)) {
      return "deleted entry " + std::to_string(i) + " of " + std::to_string(count) + " is truncated";
    }
    if (level >= num_levels) return "deleted table " + std::to_string(number) + " at level " + std::to_string(level);
    deleted.emplace_back(static_cast<int>(level), number);
  }
  if (!GetVarint64(&in, &count)) return "truncated added count";
  if (count > in.size()) return "added count " + std::to_string(count) + " exceeds the record";
  for (uint64_t i = 0; i < count; ++i) {
    auto f = std::make_shared<FileMetaData>();
    uint32_t level = 0;
    Slice smallest, largest;
    if (!GetVarint32(&in, &level) || !GetVarint64(&in, &f->number) || !GetVarint64(&in, &f->file_size) ||
        !GetLengthPrefixedSlice(&in, &smallest) || !GetLengthPrefixedSlice(&in, &largest) ||
        !GetVarint64(&in, &f->smallest_seq) || !GetVarint64(&in, &f->largest_seq)) {
      return "added entry " + std::to_string(i) + " of " + std::to_string(count) + " is truncated";
    }
    if (level >= num_levels) {
      return "table " + std::to_string(f->number) + " at level " + std::to_string(level) + " but only " +
             std::to_string(num_levels) + " levels";
    }
    if (f->number >= next_file_number) {
      return "table number " + std::to_string(f->number) + " is not below next_file_number " +
             std::to_string(next_file_number);
    }
    f->smallest = smallest.ToString();
    f->largest = largest.ToString();
    added.emplace_back(static_cast<int>(level), std::move(f));
  }
  if (!in.empty()) return std::to_string(in.size()) + " unexpected bytes after the table list";
  return "";
}

std::string VersionEdit::ApplyTo(ManifestState* state) const {
  if (state->version && state->version->num_levels() != static_cast<int>(num_levels)) {
    return "edit for " + std::to_string(num_levels) + " levels in a manifest of " +
           std::to_string(state->version->num_levels());
  }
  auto v = state->version ? std::make_shared<Version>(*state->version)
                          : std::make_shared<Version>(static_cast<int>(num_levels));
  for (const auto& [level, number] : deleted) {
    FileList& files = v->mutable_files(level);
    auto it = std::find_if(files.begin(), files.end(), [n = number](const auto& f) { return f->number == n; });
    if (it == files.end()) {
      return "deletes table " + std::to_string(number) + " which is not at level " + std::to_string(level);
    }
    files.erase(it);
  }
  for (const auto& [level, f] : added) {
    for (int l = 0; l < v->num_levels(); ++l) {
      for (const auto& g : v->files(l)) {
        if (g->number == f->number) return "adds table " + std::to_string(f->number) + " twice";
      }
    }
    v->mutable_files(level).push_back(f);
  }
  v->SortLevels();
  std::string problem = v->CheckInvariants();
  if (!problem.empty()) return problem;
  state->log_number = log_number;
  state->next_file_number = next_file_number;
  state->last_sequence = last_sequence;
  state->version = std::move(v);
  return "";
}

Status ManifestWriter::Create(Env* env, const std::string& dir, uint64_t number, const ManifestState& state, bool sync,
                              std::unique_ptr<ManifestWriter>* out) {
  const std::string name = ManifestFileName(dir, number);
  std::unique_ptr<WritableFile> file;
  Status s = env->NewWritableFile(name, &file);
  if (!s.ok()) return s;
  std::unique_ptr<ManifestWriter> w(new ManifestWriter(std::make_unique<log::Writer>(std::move(file)), number, sync));
  s = w->Append(VersionEdit::Snapshot(state));
  if (!s.ok()) return s;
  w->snapshot_bytes_ = w->log_->bytes_written();
  const std::string tmp = CurrentFileName(dir) + ".tmp";
  s = WriteStringToFile(env, tmp, name.substr(dir.size() + 1) + "\n", sync);
  if (s.ok()) s = env->RenameFile(tmp, CurrentFileName(dir));
  if (s.ok() && sync) s = env->SyncDir(dir);
  if (s.ok()) *out = std::move(w);
  return s;
}

Status ManifestWriter::Append(const VersionEdit& edit) {
  Status s = log_->AddRecord(edit.Encode());
  if (s.ok() && sync_) s = log_->Sync();
  return s;
}

bool ManifestWriter::WantsRewrite() const {
  const uint64_t edits = log_->bytes_written() - snapshot_bytes_;
  return edits > 2 * snapshot_bytes_ && edits > (uint64_t{64} << 10);
}

Status ReadManifest(Env* env, const std::string& dir, ManifestState* state, uint64_t* manifest_number,
                    ManifestReport* report) {
  *report = ManifestReport();
  const std::string current_name = CurrentFileName(dir);
  if (!env->FileExists(current_name)) return Status::NotFound(current_name + " does not exist");
  std::string current;
  Status s = ReadFileToString(env, current_name, &current);
  if (!s.ok()) return s;
  uint64_t number = 0;
  if (current.empty() || current.back() != '\n' ||
      ParseDbFileName(current.substr(0, current.size() - 1), &number) != DbFileType::kManifest) {
    return Status::Corruption(current_name + " does not hold a manifest name and a newline (got " +
                              std::to_string(current.size()) + " bytes)");
  }
  const std::string name = ManifestFileName(dir, number);
  std::string contents;
  s = ReadFileToString(env, name, &contents);
  if (!s.ok()) return Status::Corruption("manifest named by CURRENT cannot be read: " + s.ToString());
  log::Reader reader(std::move(contents), name);
  ManifestState st;
  Slice record;
  std::string problem;  // the first edit that did not decode or apply
  uint64_t problem_at = 0;
  uint64_t after_problem = 0;  // intact edits after the first problem
  size_t damages_seen = 0;
  while (reader.ReadRecord(&record)) {
    if (problem.empty() && reader.damages().size() > damages_seen) {
      const log::Damage& d = reader.damages()[damages_seen];
      problem = "damaged: " + reader.Describe(d);
      problem_at = d.offset;
    }
    damages_seen = reader.damages().size();
    if (!problem.empty()) {
      ++after_problem;
      continue;
    }
    VersionEdit edit;
    std::string why = edit.Decode(record);
    if (why.empty()) why = edit.ApplyTo(&st);
    if (!why.empty()) {
      problem =
          "edit " + std::to_string(report->edits) + " at offset " + std::to_string(reader.record_offset()) + ": " + why;
      problem_at = reader.record_offset();
      continue;
    }
    ++report->edits;
  }
  if (problem.empty() && reader.damages().size() > damages_seen) {
    const log::Damage& d = reader.damages()[damages_seen];
    if (!d.incomplete_tail) {
      problem = "damaged: " + reader.Describe(d);
      problem_at = d.offset;
    } else {
      report->dropped_bytes = d.bytes;
      report->dropped = "torn last edit dropped: " + reader.Describe(d);
    }
  }
  for (const log::Damage& d : reader.damages()) after_problem += d.intact_fragments;  // behind a damaged length
  if (!problem.empty()) {
    return Status::Corruption("manifest " + name + " at offset " + std::to_string(problem_at) + ": " + problem + "; " +
                              std::to_string(after_problem) + " intact edit(s) follow it");
  }
  if (report->edits == 0) return Status::Corruption("manifest " + name + " holds no intact edit");
  *state = std::move(st);
  *manifest_number = number;
  return Status::OK();
}

}  // namespace filterlab::engine
