// DBImpl's background work: flushing immutable memtables to level-0 tables,
// picking and running leveled compactions, installing each result as a new
// version (manifest.h) and deleting the files no live version needs.
#include <algorithm>
#include <cmath>

#include "engine/db/db_impl.h"
#include "engine/db/level_filters.h"
#include "engine/db/manifest.h"
#include "engine/table/table_builder.h"

namespace filterlab::engine {
namespace {

// fdatasyncs before closing: a table must be durable before a manifest names it.
class SyncOnCloseFile final : public WritableFile {
 public:
  SyncOnCloseFile(std::unique_ptr<WritableFile> base, bool sync) : base_(std::move(base)), sync_(sync) {}
  Status Append(const Slice& data) override { return base_->Append(data); }
  Status Sync() override { return base_->Sync(); }
  Status Close() override {
    Status s = sync_ ? base_->Sync() : Status::OK();
    Status c = base_->Close();
    return s.ok() ? c : s;
  }

 private:
  std::unique_ptr<WritableFile> base_;
  const bool sync_;
};

// One table being written, with the metadata the manifest needs.
class TableOutput {
 public:
  Status Open(Env* env, const std::string& path, const TableOptions& options, uint64_t number, bool sync) {
    path_ = path;
    meta_.number = number;
    std::unique_ptr<WritableFile> file;
    Status s = env->NewWritableFile(path, &file);
    if (!s.ok()) return s;
    file_ = std::make_unique<SyncOnCloseFile>(std::move(file), sync);
    return TableBuilder::Open(options, file_.get(), &builder_);
  }
  Status Add(const Slice& key, const Slice& value) {
    ParsedInternalKey p;
    Status s = ParseInternalKey(key, &p);
    if (!s.ok()) return s;
    if (entries_ == 0) {
      meta_.smallest = key.ToString();
      meta_.smallest_seq = meta_.largest_seq = p.sequence;
    }
    meta_.largest.assign(key.data(), key.size());
    meta_.smallest_seq = std::min(meta_.smallest_seq, p.sequence);
    meta_.largest_seq = std::max(meta_.largest_seq, p.sequence);
    ++entries_;
    return builder_->Add(key, value);
  }
  uint64_t entries() const { return entries_; }
  uint64_t FileSize() const { return builder_->FileSize(); }
  Slice last_user_key() const { return ExtractUserKey(meta_.largest); }
  // Finishes, syncs and closes the table; *out describes it.
  Status Finish(std::shared_ptr<FileMetaData>* out) {
    Status s = builder_->Finish();
    if (!s.ok()) return s;
    meta_.file_size = builder_->FileSize();
    NoteTableFilter(builder_->properties(), &meta_);
    *out = std::make_shared<FileMetaData>(meta_);
    return Status::OK();
  }

 private:
  std::string path_;
  std::unique_ptr<WritableFile> file_;
  std::unique_ptr<TableBuilder> builder_;
  FileMetaData meta_;
  uint64_t entries_ = 0;
};

}  // namespace

Status DBImpl::WriteTable(InternalIterator* it, int level, uint64_t number, FileMetaData* meta) {
  const std::string path = TableFileName(dir_, number);
  TableOptions table_options = options_.TableOptionsForLevel(level);
  if (options_.filter_allocation) {
    // The allocation counts the run's entries, needed before the table is
    // opened: a first pass over the iterator (a memtable, in memory).
    uint64_t entries = 0;
    std::string smallest, largest;
    for (; it->Valid(); it->Next()) {
      if (entries++ == 0) smallest = ExtractUserKey(it->key()).ToString();
      largest.assign(ExtractUserKey(it->key()).data(), ExtractUserKey(it->key()).size());
    }
    it->SeekToFirst();
    std::shared_ptr<const Version> current;
    {
      std::lock_guard<std::mutex> l(mu_);
      current = current_;
    }
    OutputJob job;
    job.level = level;
    job.entries = entries;
    job.smallest = smallest;
    job.largest = largest;
    Status s = FilterPolicyForOutput(options_, *current, job, &table_options.filter_policy);
    if (!s.ok()) return s;
  }
  TableOutput out;
  Status s = out.Open(env_, path, table_options, number, !options_.disable_data_sync);
  for (; s.ok() && it->Valid(); it->Next()) s = out.Add(it->key(), it->value());
  if (s.ok()) s = it->status();
  std::shared_ptr<FileMetaData> result;
  if (s.ok() && out.entries() > 0) s = out.Finish(&result);
  if (!s.ok() || out.entries() == 0) {
    env_->RemoveFile(path);
    *meta = FileMetaData();
    return s;
  }
  *meta = *result;
  return Status::OK();
}

// ---------------------------------------------------------------------------------------------
// Versions and obsolete files

Status DBImpl::InstallVersion(const std::vector<const FileList*>& removed, int add_level, const FileList& added,
                              bool flushed_imm) {
  std::shared_ptr<Version> v;
  VersionEdit edit;
  ManifestState state;
  uint64_t new_manifest = 0;  // nonzero: this change starts a new manifest
  {
    std::lock_guard<std::mutex> l(mu_);
    if (!bg_error_.ok()) return bg_error_;  // the manifest may be torn: append nothing more
    v = std::make_shared<Version>(*current_);
    std::set<uint64_t> gone;
    for (const FileList* list : removed) {
      for (const auto& f : *list) gone.insert(f->number);
    }
    for (int level = 0; level < v->num_levels(); ++level) {
      FileList& files = v->mutable_files(level);
      for (const auto& f : files) {
        if (gone.count(f->number) > 0) edit.deleted.emplace_back(level, f->number);
      }
      files.erase(std::remove_if(files.begin(), files.end(), [&](const auto& f) { return gone.count(f->number) > 0; }),
                  files.end());
    }
    for (const auto& f : added) {
      v->mutable_files(add_level).push_back(f);
      edit.added.emplace_back(add_level, f);
    }
    v->SortLevels();
    const std::string problem = v->CheckInvariants();
    if (!problem.empty()) return Status::Corruption("internal error, new version is invalid: " + problem);
    state.log_number = log_number_;
    if (flushed_imm) state.log_number = imm_.size() > 1 ? imm_[1].log_number : mem_log_number_;
    if (manifest_->WantsRewrite()) {
      new_manifest = NewFileNumber();
      pending_outputs_.insert(new_manifest);  // DeleteObsoleteFiles must not take it for an old one
    }
    state.next_file_number = next_file_number_;
    state.last_sequence = last_sequence_.load(std::memory_order_acquire);
    state.version = v;
  }
  edit.num_levels = static_cast<uint32_t>(v->num_levels());
  edit.log_number = state.log_number;
  edit.next_file_number = state.next_file_number;
  edit.last_sequence = state.last_sequence;
  const bool sync = !options_.disable_data_sync;
  Status s;
  std::unique_ptr<ManifestWriter> rewritten;
  if (new_manifest != 0) {
    s = ManifestWriter::Create(env_, dir_, new_manifest, state, sync, &rewritten);
  } else {
    // The new tables' directory entries must be durable before an edit names them.
    if (sync && !added.empty()) s = env_->SyncDir(dir_);
    if (s.ok()) s = manifest_->Append(edit);
  }
  uint64_t old_manifest = 0;
  {
    std::lock_guard<std::mutex> l(mu_);
    if (new_manifest != 0) pending_outputs_.erase(new_manifest);
    if (!s.ok()) {
      SetStickyError(s);
      return bg_error_;
    }
    current_ = v;
    live_versions_.push_back(current_);
    if (flushed_imm) imm_.pop_front();
    InstallSuperVersion();
    log_number_ = state.log_number;
    if (new_manifest != 0) {
      old_manifest = manifest_number_;
      manifest_number_ = new_manifest;
    }
    cv_.notify_all();
  }
  if (rewritten) {
    manifest_->Close();
    manifest_ = std::move(rewritten);
    env_->RemoveFile(ManifestFileName(dir_, old_manifest));
  }
  return Status::OK();
}

void DBImpl::DeleteObsoleteFiles() {
  std::lock_guard<std::mutex> d(delete_mu_);
  std::set<uint64_t> live;
  uint64_t min_log = 0, manifest = 0, max_number = 0;
  {
    std::lock_guard<std::mutex> l(mu_);
    // After a failed write of the manifest the on-disk state is uncertain: keep everything.
    if (!bg_error_.ok()) return;
    for (auto it = live_versions_.begin(); it != live_versions_.end();) {
      if (auto v = it->lock()) {
        for (int level = 0; level < v->num_levels(); ++level) {
          for (const auto& f : v->files(level)) live.insert(f->number);
        }
        ++it;
      } else {
        it = live_versions_.erase(it);
      }
    }
    live.insert(pending_outputs_.begin(), pending_outputs_.end());
    min_log = log_number_;
    manifest = manifest_number_;
    max_number = next_file_number_;
  }
  std::vector<std::string> names;
  if (!env_->GetChildren(dir_, &names).ok()) return;
  bool removed = false;
  for (const auto& name : names) {
    uint64_t number = 0;
    const DbFileType type = ParseDbFileName(name, &number);
    bool remove = false;
    if (type == DbFileType::kTable) {
      remove = number < max_number && live.count(number) == 0;
      if (remove) table_cache_->Evict(number);
    } else if (type == DbFileType::kLog) {
      remove = number < min_log;
    } else if (type == DbFileType::kManifest) {
      remove = number < max_number && number != manifest && live.count(number) == 0;
    }
    if (remove) removed = env_->RemoveFile(dir_ + "/" + name).ok() || removed;
  }
  // Removals are made durable too, so that after a crash the directory
  // matches the manifest (an undone removal would only cost space). A
  // failed directory sync is a durability error like any other: sticky.
  if (removed && !options_.disable_data_sync) {
    Status s = env_->SyncDir(dir_);
    if (!s.ok()) {
      std::lock_guard<std::mutex> l(mu_);
      SetStickyError(s);
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Flush

void DBImpl::FlushThread() {
  std::unique_lock<std::mutex> l(mu_);
  while (true) {
    cv_.wait(l, [this] { return shutting_down_ || (!imm_.empty() && bg_error_.ok()); });
    if (shutting_down_) break;
    flush_running_ = true;
    l.unlock();
    Status s = FlushOldestImm();
    l.lock();
    flush_running_ = false;
    RecordBackgroundError(s, "flush", &l);
    cv_.notify_all();
  }
}

Status DBImpl::FlushOldestImm() {
  std::shared_ptr<MemTable> mem;
  uint64_t number = 0;
  {
    std::lock_guard<std::mutex> l(mu_);
    if (imm_.empty()) return Status::OK();
    mem = imm_.front().mem;
    number = NewFileNumber();
    pending_outputs_.insert(number);
  }
  auto meta = std::make_shared<FileMetaData>();
  auto it = NewMemTableIterator(mem);
  it->SeekToFirst();
  Status s = WriteTable(it.get(), 0, number, meta.get());
  if (s.ok()) {
    std::lock_guard<std::mutex> m(manifest_mu_);
    FileList added;
    if (meta->file_size > 0) added.push_back(meta);
    s = InstallVersion({}, 0, added, true);
  }
  {
    std::lock_guard<std::mutex> l(mu_);
    pending_outputs_.erase(number);
  }
  if (s.ok()) {
    RecordTick(Ticker::kFlushes);
    RecordTick(Ticker::kFlushBytes, meta->file_size);
    Log("flushed memtable of " + std::to_string(mem->num_entries()) + " entries to table " + std::to_string(number) +
            " (" + std::to_string(meta->file_size) + " bytes)",
        false);
    DeleteObsoleteFiles();
  }
  return s;
}

Status DBImpl::Flush(bool wait) {
  {
    std::lock_guard<std::mutex> w(write_mu_);
    std::unique_lock<std::mutex> l(mu_);
    if (!opened_ || closed_ || shutting_down_) return Status::InvalidArgument("the DB is closed");
    Status s = MakeRoomForWrite(l, true);
    if (!s.ok()) return s;
  }
  return wait ? WaitForFlushes() : Status::OK();
}

Status DBImpl::WaitForFlushes() {
  std::unique_lock<std::mutex> l(mu_);
  cv_.wait(l, [this] { return imm_.empty() || !bg_error_.ok() || shutting_down_; });
  if (!bg_error_.ok()) return bg_error_;
  return shutting_down_ && !imm_.empty() ? Status::InvalidArgument("the DB is closing") : Status::OK();
}

// ---------------------------------------------------------------------------------------------
// Compaction

uint64_t DBImpl::MaxBytesForLevel(int level) const { return options_.MaxBytesForLevel(level); }

bool DBImpl::NeedsCompaction(const Version& v) const {
  if (options_.disable_auto_compactions) return false;
  if (static_cast<int>(v.files(0).size()) >= options_.level0_file_num_compaction_trigger) return true;
  for (int level = 1; level + 1 < v.num_levels(); ++level) {
    if (v.LevelBytes(level) >= MaxBytesForLevel(level)) return true;
  }
  return false;
}

void DBImpl::SetupOtherInputs(Compaction* c) {
  const Version& v = *c->input_version;
  std::string lo = c->inputs[0].front()->smallest_user_key().ToString();
  std::string hi = c->inputs[0].front()->largest_user_key().ToString();
  for (const auto& f : c->inputs[0]) {
    if (f->smallest_user_key().compare(lo) < 0) lo = f->smallest_user_key().ToString();
    if (f->largest_user_key().compare(hi) > 0) hi = f->largest_user_key().ToString();
  }
  const Slice lo_s(lo), hi_s(hi);
  c->inputs[1] = v.OverlappingFiles(c->level + 1, &lo_s, &hi_s);
  // A moved table keeps its filter, so only a move between levels with the same filter is trivial
  // (under a filter allocation other than uniform, levels get different filters: never).
  const bool allocated =
      options_.filter_allocation && options_.filter_allocation->policy != allocation::AllocationPolicy::kUniform;
  c->trivial_move =
      c->inputs[0].size() == 1 && c->inputs[1].empty() && !allocated &&
      SameFilter(options_.FilterPolicyForLevel(c->level).get(), options_.FilterPolicyForLevel(c->level + 1).get()) &&
      RangeFilterLabel(options_.RangeFilterPolicyForLevel(c->level).get()) ==
          RangeFilterLabel(options_.RangeFilterPolicyForLevel(c->level + 1).get());
  compact_pointer_[c->level] = hi;
}

std::unique_ptr<DBImpl::Compaction> DBImpl::PickCompaction() {
  const Version& v = *current_;
  if (!NeedsCompaction(v)) return nullptr;
  int best_level = -1;
  double best_score = 0;
  for (int level = 0; level + 1 < v.num_levels(); ++level) {
    const double score =
        level == 0
            ? static_cast<double>(v.files(0).size()) / static_cast<double>(options_.level0_file_num_compaction_trigger)
            : static_cast<double>(v.LevelBytes(level)) / static_cast<double>(MaxBytesForLevel(level));
    if (score >= 1 && score > best_score) {
      best_score = score;
      best_level = level;
    }
  }
  if (best_level < 0) return nullptr;
  auto c = std::make_unique<Compaction>();
  c->level = best_level;
  c->input_version = current_;
  const FileList& files = v.files(best_level);
  if (best_level == 0) {
    c->inputs[0] = files;  // every L0 file: they may all overlap
  } else {
    // Round robin through the level's key space.
    size_t pick = 0;
    const std::string& pointer = compact_pointer_[best_level];
    if (!pointer.empty()) {
      while (pick < files.size() && files[pick]->largest_user_key().compare(pointer) <= 0) ++pick;
      if (pick == files.size()) pick = 0;
    }
    c->inputs[0].push_back(files[pick]);
  }
  SetupOtherInputs(c.get());
  return c;
}

std::unique_ptr<DBImpl::Compaction> DBImpl::ManualCompaction(int level, const Slice* begin, const Slice* end) {
  auto c = std::make_unique<Compaction>();
  c->level = level;
  c->input_version = current_;
  c->inputs[0] = current_->OverlappingFiles(level, begin, end);
  if (c->inputs[0].empty()) return nullptr;
  SetupOtherInputs(c.get());
  return c;
}

// What a compaction wrote: its finished files, every file number it took
// (finished or not, for cleanup) and the entries it dropped.
struct DBImpl::CompactionOutput {
  FileList files;
  std::vector<uint64_t> numbers;
  uint64_t dropped = 0;
};

namespace {

// Decides which entries of a compaction's merged input survive. Entries come
// in internal-key order: per user key, newest first.
class EntryFilter {
 public:
  // drop_deletions false: a rewrite in place, which may not know of older
  // versions of a key beside its input (other level-0 tables).
  EntryFilter(SequenceNumber smallest_snapshot, const Version& input_version, int out_level, bool drop_deletions)
      : smallest_snapshot_(smallest_snapshot),
        input_version_(input_version),
        out_level_(out_level),
        drop_deletions_(drop_deletions) {}

  bool Drop(const ParsedInternalKey& p) {
    if (!has_current_ || p.user_key != Slice(current_key_)) {
      current_key_.assign(p.user_key.data(), p.user_key.size());
      has_current_ = true;
      last_seq_for_key_ = UINT64_MAX;  // no newer entry of this key yet
    }
    bool drop = false;
    if (last_seq_for_key_ <= smallest_snapshot_) {
      drop = true;  // shadowed by a newer entry that every reader sees
    } else if (drop_deletions_ && p.type == kTypeDeletion && p.sequence <= smallest_snapshot_ &&
               input_version_.IsBottommostForKey(out_level_, p.user_key)) {
      drop = true;  // nothing older below to hide
    }
    last_seq_for_key_ = p.sequence;
    return drop;
  }

 private:
  const SequenceNumber smallest_snapshot_;
  const Version& input_version_;
  const int out_level_;
  const bool drop_deletions_;
  std::string current_key_;
  bool has_current_ = false;
  SequenceNumber last_seq_for_key_ = 0;
};

}  // namespace

Status DBImpl::RunCompaction(std::unique_ptr<Compaction> owned) {
  const Compaction& c = *owned;
  if (c.trivial_move) return RunTrivialMove(c);
  uint64_t bytes_read = 0;
  std::unique_ptr<InternalIterator> input = NewCompactionInput(c, &bytes_read);
  CompactionOutput out;
  Status s = WriteCompactionOutputs(c, input.get(), &out);
  input.reset();
  if (s.ok()) s = InstallCompaction(c, out);
  {
    std::lock_guard<std::mutex> l(mu_);
    for (uint64_t n : out.numbers) pending_outputs_.erase(n);
  }
  if (!s.ok()) {
    for (uint64_t n : out.numbers) env_->RemoveFile(TableFileName(dir_, n));
    return s;
  }
  RecordCompaction(c, bytes_read, out);
  owned.reset();
  DeleteObsoleteFiles();
  return Status::OK();
}

Status DBImpl::RunTrivialMove(const Compaction& c) {
  std::lock_guard<std::mutex> m(manifest_mu_);
  Status s = InstallVersion({&c.inputs[0]}, c.level + 1, c.inputs[0], false);
  if (s.ok()) RecordTick(Ticker::kTrivialMoves);
  return s;
}

SequenceNumber DBImpl::SmallestSnapshot() {
  std::lock_guard<std::mutex> l(mu_);
  return snapshots_.empty() ? last_sequence_.load(std::memory_order_acquire) : *snapshots_.begin();
}

// The merged entries of every input file; level-0 inputs may overlap, so each is its own child.
std::unique_ptr<InternalIterator> DBImpl::NewCompactionInput(const Compaction& c, uint64_t* bytes_read) {
  std::vector<std::unique_ptr<InternalIterator>> children;
  *bytes_read = 0;
  for (int which = 0; which < 2; ++which) {
    for (const auto& f : c.inputs[which]) *bytes_read += f->file_size;
    if (c.inputs[which].empty()) continue;
    if (which == 0 && c.level == 0) {
      for (const auto& f : c.inputs[0]) children.push_back(NewLevelIterator(table_cache_.get(), FileList{f}));
    } else {
      children.push_back(NewLevelIterator(table_cache_.get(), c.inputs[which]));
    }
  }
  return NewMergingIterator(std::move(children));
}

Status DBImpl::WriteCompactionOutputs(const Compaction& c, InternalIterator* input, CompactionOutput* out) {
  const int out_level = c.output_level();
  TableOptions table_options = options_.TableOptionsForLevel(out_level);
  OutputJob job;
  job.level = out_level;
  job.inputs = {&c.inputs[0], &c.inputs[1]};
  bool first = true;
  for (const auto& inputs : c.inputs) {
    for (const auto& f : inputs) {
      job.entries += f->num_entries;
      if (first || f->smallest_user_key().compare(job.smallest) < 0) job.smallest = f->smallest_user_key();
      if (first || f->largest_user_key().compare(job.largest) > 0) job.largest = f->largest_user_key();
      first = false;
    }
  }
  if (c.output_filter) {
    table_options.filter_policy = c.output_filter;
  } else {
    Status policy_status = FilterPolicyForOutput(options_, *c.input_version, job, &table_options.filter_policy);
    if (!policy_status.ok()) return policy_status;
  }
  EntryFilter entries(SmallestSnapshot(), *c.input_version, out_level, /*drop_deletions=*/!c.in_place);
  std::unique_ptr<TableOutput> table;
  auto finish_table = [&] {
    std::shared_ptr<FileMetaData> meta;
    Status fs = table->Finish(&meta);
    if (fs.ok()) out->files.push_back(meta);
    table.reset();
    return fs;
  };
  Status s;
  for (input->SeekToFirst(); input->Valid(); input->Next()) {
    if (abort_compaction_.load(std::memory_order_relaxed))
      return Status::IOError("compaction stopped: the DB is closing");
    const Slice key = input->key();
    ParsedInternalKey p;
    s = ParseInternalKey(key, &p);
    if (!s.ok()) return s;
    if (entries.Drop(p)) {
      ++out->dropped;
      continue;
    }
    // Cut only between user keys, so a key's versions stay in one file.
    // A rewrite in place writes one table for its one input.
    if (table && !c.in_place && table->FileSize() >= options_.target_file_size &&
        table->last_user_key() != p.user_key) {
      s = finish_table();
      if (!s.ok()) return s;
    }
    if (!table) {
      uint64_t number;
      {
        std::lock_guard<std::mutex> l(mu_);
        number = NewFileNumber();
        pending_outputs_.insert(number);
      }
      out->numbers.push_back(number);
      table = std::make_unique<TableOutput>();
      s = table->Open(env_, TableFileName(dir_, number), table_options, number, !options_.disable_data_sync);
      if (!s.ok()) return s;
    }
    s = table->Add(key, input->value());
    if (!s.ok()) return s;
  }
  s = input->status();
  if (s.ok() && table) s = finish_table();
  return s;
}

Status DBImpl::InstallCompaction(const Compaction& c, const CompactionOutput& out) {
  std::lock_guard<std::mutex> m(manifest_mu_);
  return InstallVersion({&c.inputs[0], &c.inputs[1]}, c.output_level(), out.files, false);
}

void DBImpl::RecordCompaction(const Compaction& c, uint64_t bytes_read, const CompactionOutput& out) {
  uint64_t bytes_written = 0;
  for (const auto& f : out.files) bytes_written += f->file_size;
  RecordTick(Ticker::kCompactions);
  RecordTick(Ticker::kCompactionBytesRead, bytes_read);
  RecordTick(Ticker::kCompactionBytesWritten, bytes_written);
  RecordTick(Ticker::kEntriesDropped, out.dropped);
  Log("compacted " + std::to_string(c.inputs[0].size()) + "+" + std::to_string(c.inputs[1].size()) + " files of L" +
          std::to_string(c.level) + "+L" + std::to_string(c.level + 1) + (c.in_place ? " (a rewrite in place)" : "") +
          " into " + std::to_string(out.files.size()) + " (" + std::to_string(bytes_read) + " -> " +
          std::to_string(bytes_written) + " bytes, " + std::to_string(out.dropped) + " entries dropped)",
      false);
}

void DBImpl::CompactionThread() {
  while (true) {
    {
      std::unique_lock<std::mutex> l(mu_);
      cv_.wait(l, [this] { return shutting_down_ || (bg_error_.ok() && NeedsCompaction(*current_)); });
      if (shutting_down_) break;
      compaction_running_ = true;
    }
    Status s;
    {
      std::lock_guard<std::mutex> c(compaction_mu_);
      std::unique_ptr<Compaction> comp;
      {
        std::lock_guard<std::mutex> l(mu_);
        comp = PickCompaction();
      }
      if (comp) s = RunCompaction(std::move(comp));
    }
    std::unique_lock<std::mutex> l(mu_);
    compaction_running_ = false;
    RecordBackgroundError(s, "compaction", &l);
    cv_.notify_all();
  }
}

void DBImpl::RecordBackgroundError(const Status& s, const char* job, std::unique_lock<std::mutex>* l) {
  if (s.ok() || shutting_down_) return;
  if (bg_error_.ok()) bg_error_ = s;  // the first error stops writes; later ones only log
  l->unlock();
  Log(std::string(job) + " failed, writes are stopped: " + s.ToString(), true);
  l->lock();
}

Status DBImpl::CompactRange(const Slice* begin, const Slice* end) {
  Status s = Flush(true);
  if (!s.ok()) return s;
  std::lock_guard<std::mutex> c(compaction_mu_);
  int max_level_with_files = 1;
  {
    std::lock_guard<std::mutex> l(mu_);
    for (int level = 1; level < current_->num_levels(); ++level) {
      if (!current_->OverlappingFiles(level, begin, end).empty()) max_level_with_files = level;
    }
  }
  for (int level = 0; level < max_level_with_files; ++level) {
    std::unique_ptr<Compaction> comp;
    {
      std::lock_guard<std::mutex> l(mu_);
      if (shutting_down_) return Status::InvalidArgument("the DB is closing");
      if (!bg_error_.ok()) return bg_error_;
      comp = ManualCompaction(level, begin, end);
    }
    if (comp) {
      s = RunCompaction(std::move(comp));
      if (!s.ok()) return s;
    }
  }
  std::lock_guard<std::mutex> l(mu_);
  cv_.notify_all();  // levels changed: the compaction thread may have work
  return Status::OK();
}

Status DBImpl::RewriteFilters(uint64_t* rewritten) {
  if (rewritten != nullptr) *rewritten = 0;
  Status s = Flush(true);
  if (!s.ok() || !options_.filter_allocation) return s.ok() ? WaitForCompaction() : s;
  // A pass can leave the tree unsettled: bigger filters make a level's
  // tables bigger, which may push it past its byte target, and the
  // compaction that follows changes the shape. So: settle, rewrite, and
  // again until a pass finds nothing to rewrite (at most 4 passes: a tree
  // that keeps moving is left as it is, its statistics say what it holds).
  for (int pass = 0; pass < 4; ++pass) {
    s = WaitForCompaction();
    if (!s.ok()) return s;
    uint64_t done = 0;
    s = RewriteFiltersPass(&done);
    if (!s.ok()) return s;
    if (rewritten != nullptr) *rewritten += done;
    if (done == 0) break;
  }
  return WaitForCompaction();
}

Status DBImpl::RewriteFiltersPass(uint64_t* rewritten) {
  // Background compactions wait on compaction_mu_, so the levels change
  // only by flushes (new level-0 tables, which the loop leaves alone) while
  // the tables are rewritten one by one. A rewrite keeps its table's keys
  // and range, so every level's target is what it was when the loop began
  // (a dropped shadowed version moves it by far less than a menu step):
  // one allocation per level.
  std::lock_guard<std::mutex> c(compaction_mu_);
  std::shared_ptr<const Version> start;
  {
    std::lock_guard<std::mutex> l(mu_);
    start = current_;
  }
  Status s;
  for (int level = 0; level < start->num_levels(); ++level) {
    std::shared_ptr<const FilterPolicy> target;
    bool have_target = false;
    for (const auto& f : start->files(level)) {
      std::unique_ptr<Compaction> comp;
      {
        std::lock_guard<std::mutex> l(mu_);
        if (shutting_down_) return Status::InvalidArgument("the DB is closing");
        if (!bg_error_.ok()) return bg_error_;
        comp = std::make_unique<Compaction>();
        comp->level = level;
        comp->in_place = true;
        comp->input_version = current_;
        comp->inputs[0] = {f};
      }
      if (!have_target) {
        OutputJob job;
        job.level = level;
        job.entries = f->num_entries;
        job.smallest = f->smallest_user_key();
        job.largest = f->largest_user_key();
        job.inputs = {&comp->inputs[0]};
        s = FilterPolicyForOutput(options_, *comp->input_version, job, &target);
        if (!s.ok()) return s;
        have_target = true;
      }
      if ((target ? target->spec() : std::string()) == f->filter_spec) continue;
      comp->output_filter = target;
      s = RunCompaction(std::move(comp));
      if (!s.ok()) return s;
      ++*rewritten;
    }
  }
  // `start` kept the rewritten tables' old files live through the pass.
  start.reset();
  DeleteObsoleteFiles();
  std::lock_guard<std::mutex> l(mu_);
  cv_.notify_all();  // levels changed: the compaction thread may have work
  return Status::OK();
}

Status DBImpl::WaitForCompaction() {
  std::unique_lock<std::mutex> l(mu_);
  cv_.wait(l, [this] {
    return !bg_error_.ok() || shutting_down_ ||
           (imm_.empty() && !flush_running_ && !compaction_running_ && !NeedsCompaction(*current_));
  });
  return bg_error_;
}

}  // namespace filterlab::engine
