#include "engine/db/manifest.h"

#include "engine/db/db_files.h"
#include "engine/db/log_reader.h"
#include "engine/db/log_writer.h"
#include "engine/util/coding.h"

namespace filterlab::engine {
namespace {

constexpr char kMagic[] = "filterlab-manifest-1";
constexpr uint32_t kMaxLevels = 64;

}  // namespace

std::string ManifestState::Encode() const {
  std::string out;
  PutLengthPrefixedSlice(&out, kMagic);
  PutVarint32(&out, static_cast<uint32_t>(version->num_levels()));
  PutVarint64(&out, log_number);
  PutVarint64(&out, next_file_number);
  PutVarint64(&out, last_sequence);
  PutVarint64(&out, version->TotalFiles());
  for (int level = 0; level < version->num_levels(); ++level) {
    for (const auto& f : version->files(level)) {
      PutVarint32(&out, static_cast<uint32_t>(level));
      PutVarint64(&out, f->number);
      PutVarint64(&out, f->file_size);
      PutLengthPrefixedSlice(&out, f->smallest);
      PutLengthPrefixedSlice(&out, f->largest);
      PutVarint64(&out, f->smallest_seq);
      PutVarint64(&out, f->largest_seq);
    }
  }
  return out;
}

Status ManifestState::Decode(const Slice& payload, const std::string& name, ManifestState* out) {
  auto bad = [&](const std::string& what) { return Status::Corruption("manifest " + name + ": " + what); };
  Slice in = payload;
  Slice magic;
  if (!GetLengthPrefixedSlice(&in, &magic) || magic != Slice(kMagic)) {
    return bad("does not start with the format tag '" + std::string(kMagic) + "'");
  }
  uint32_t num_levels = 0;
  uint64_t num_files = 0;
  ManifestState st;
  if (!GetVarint32(&in, &num_levels) || !GetVarint64(&in, &st.log_number) ||
      !GetVarint64(&in, &st.next_file_number) || !GetVarint64(&in, &st.last_sequence) ||
      !GetVarint64(&in, &num_files)) {
    return bad("truncated header fields");
  }
  if (num_levels < 1 || num_levels > kMaxLevels) {
    return bad("num_levels " + std::to_string(num_levels) + " out of range 1.." + std::to_string(kMaxLevels));
  }
  if (st.last_sequence > kMaxSequenceNumber) return bad("last_sequence beyond 2^56-1");
  st.version = std::make_shared<Version>(static_cast<int>(num_levels));
  for (uint64_t i = 0; i < num_files; ++i) {
    auto f = std::make_shared<FileMetaData>();
    uint32_t level = 0;
    Slice smallest, largest;
    if (!GetVarint32(&in, &level) || !GetVarint64(&in, &f->number) || !GetVarint64(&in, &f->file_size) ||
        !GetLengthPrefixedSlice(&in, &smallest) || !GetLengthPrefixedSlice(&in, &largest) ||
        !GetVarint64(&in, &f->smallest_seq) || !GetVarint64(&in, &f->largest_seq)) {
      return bad("file entry " + std::to_string(i) + " of " + std::to_string(num_files) + " is truncated");
    }
    if (level >= num_levels) {
      return bad("file " + std::to_string(f->number) + " at level " + std::to_string(level) + " but only " +
                 std::to_string(num_levels) + " levels");
    }
    if (f->number >= st.next_file_number) {
      return bad("file number " + std::to_string(f->number) + " is not below next_file_number " +
                 std::to_string(st.next_file_number));
    }
    f->smallest = smallest.ToString();
    f->largest = largest.ToString();
    st.version->mutable_files(static_cast<int>(level)).push_back(std::move(f));
  }
  if (!in.empty()) return bad(std::to_string(in.size()) + " unexpected bytes after the file list");
  st.version->SortLevels();
  const std::string problem = st.version->CheckInvariants();
  if (!problem.empty()) return bad(problem);
  *out = std::move(st);
  return Status::OK();
}

Status WriteManifest(const std::string& dir, uint64_t manifest_number, const ManifestState& state, bool sync) {
  std::string contents;
  log::AppendRecord(&contents, state.Encode());
  const std::string name = ManifestFileName(dir, manifest_number);
  Status s = WriteFile(name, contents, sync);
  if (!s.ok()) return s;
  const std::string base = name.substr(dir.size() + 1);
  const std::string tmp = CurrentFileName(dir) + ".tmp";
  s = WriteFile(tmp, base + "\n", sync);
  if (s.ok()) s = RenameFile(tmp, CurrentFileName(dir));
  if (s.ok() && sync) s = SyncDir(dir);
  return s;
}

Status ReadManifest(const std::string& dir, ManifestState* state, uint64_t* manifest_number) {
  const std::string current_name = CurrentFileName(dir);
  if (!PathExists(current_name)) return Status::NotFound(current_name + " does not exist");
  std::string current;
  Status s = ReadFileToString(current_name, &current);
  if (!s.ok()) return s;
  uint64_t number = 0;
  if (current.empty() || current.back() != '\n' ||
      ParseDbFileName(current.substr(0, current.size() - 1), &number) != DbFileType::kManifest) {
    return Status::Corruption(current_name + " does not hold a manifest name and a newline (got " +
                              std::to_string(current.size()) + " bytes)");
  }
  const std::string name = ManifestFileName(dir, number);
  std::string contents;
  s = ReadFileToString(name, &contents);
  if (!s.ok()) return Status::Corruption("manifest named by CURRENT cannot be read: " + s.ToString());
  log::Reader reader(std::move(contents), name);
  Slice payload;
  if (!reader.ReadRecord(&payload)) {
    return Status::Corruption("manifest " + name + ": " +
                              (reader.tail_problem().empty() ? std::string("empty file") : reader.tail_problem()));
  }
  if (reader.dropped_bytes() != 0) {
    return Status::Corruption("manifest " + name + ": " + std::to_string(reader.dropped_bytes()) +
                              " unexpected bytes after its record");
  }
  s = ManifestState::Decode(payload, name, state);
  if (s.ok()) *manifest_number = number;
  return s;
}

}  // namespace filterlab::engine
