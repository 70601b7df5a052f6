// DBImpl: open and recovery, the write path, the read paths (Get, batched
// MultiGet, iterators), snapshots, properties and close. Flush and
// compaction live in db_compaction.cc.
#include "engine/db/db_impl.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <map>

#include "engine/db/db_iter.h"
#include "engine/db/level_filters.h"
#include "engine/db/log_reader.h"
#include "engine/db/manifest.h"
#include "engine/db/write_batch.h"

namespace filterlab::engine {
namespace {

class SnapshotImpl final : public Snapshot {
 public:
  explicit SnapshotImpl(SequenceNumber seq) : seq_(seq) {}
  uint64_t sequence() const override { return seq_; }

 private:
  const SequenceNumber seq_;
};

// Keys per MultiGet batch (RocksDB's MultiGetContext::MAX_BATCH_SIZE).
constexpr size_t kMultiGetBatch = 32;

Status ClosedError() { return Status::InvalidArgument("the DB is closed"); }

}  // namespace

Status DB::Open(const Options& options, const std::string& path, std::unique_ptr<DB>* db) {
  db->reset();
  Status s = options.Validate();
  if (!s.ok()) return s;
  if (path.empty()) return Status::InvalidArgument("DB path is empty; give a directory");
  auto impl = std::make_unique<DBImpl>(options, path);
  s = impl->OpenImpl();
  if (!s.ok()) return s;
  *db = std::move(impl);
  return Status::OK();
}

Status DestroyDB(const std::string& path) {
  Env* env = Env::Default();
  Status s = CheckIsDirectoryOrMissing(path);
  if (!s.ok() || !env->FileExists(path)) return s;
  FileLock* lock = nullptr;
  s = FileLock::Acquire(LockFileName(path), &lock);
  if (!s.ok()) return s;
  std::vector<std::string> names;
  s = env->GetChildren(path, &names);
  for (const auto& name : names) {
    uint64_t number = 0;
    const DbFileType type = ParseDbFileName(name, &number);
    if (s.ok() && type != DbFileType::kOther && type != DbFileType::kLock) s = env->RemoveFile(path + "/" + name);
  }
  lock->Unlock();
  if (s.ok()) {
    env->RemoveFile(LockFileName(path));
    ::rmdir(path.c_str());
  }
  return s;
}

DBImpl::DBImpl(const Options& options, const std::string& path)
    : options_(options), env_(options.env != nullptr ? options.env : Env::Default()), dir_(path) {
  if (options_.block_cache_bytes > 0) block_cache_ = std::make_unique<BlockCache>(options_.block_cache_bytes);
  table_cache_ = std::make_unique<TableCache>(dir_, block_cache_.get(), static_cast<size_t>(options_.max_open_files),
                                              options_.use_direct_reads, &read_gate_);
  table_cache_->set_prefix_extractor(options_.prefix_extractor);
  for (int l = 0; l < options_.num_levels; ++l) level_tickers_.push_back(std::make_unique<LevelTickerCounters>());
  compact_pointer_.resize(options_.num_levels);
}

DBImpl::~DBImpl() {
  if (opened_ && !closed_) Close();
  if (lock_ != nullptr) lock_->Unlock();
}

void DBImpl::Log(const std::string& message, bool warning) {
  if (options_.info_log) {
    options_.info_log((warning ? "WARNING: " : "") + message);
  } else if (warning) {
    std::fprintf(stderr, "filterlab db %s: WARNING: %s\n", dir_.c_str(), message.c_str());
  }
}

Status DBImpl::NewMemTable(std::shared_ptr<MemTable>* out) const {
  std::unique_ptr<MemTable> mem;
  Status s = MemTable::Create(options_.MemTableOptionsForDb(), &mem);
  if (s.ok()) *out = std::move(mem);
  return s;
}

Status DBImpl::NewLogFile(uint64_t number, std::unique_ptr<log::Writer>* out) const {
  std::unique_ptr<WritableFile> file;
  Status s = env_->NewWritableFile(LogFileName(dir_, number), &file);
  if (s.ok()) *out = std::make_unique<log::Writer>(std::move(file));
  return s;
}

uint64_t DBImpl::NewFileNumber() { return next_file_number_++; }

void DBImpl::SetStickyError(const Status& s) {
  if (s.ok() || !bg_error_.ok()) return;
  bg_error_ = Status::IOError("the DB is read-only until reopened: " + s.message());
}

// ---------------------------------------------------------------------------------------------
// Open and recovery

Status DBImpl::OpenImpl() {
  Status s = CheckIsDirectoryOrMissing(dir_);
  if (!s.ok()) return s;
  if (!env_->FileExists(dir_)) {
    if (!options_.create_if_missing) {
      return Status::NotFound("DB directory " + dir_ + " does not exist (set create_if_missing to create it)");
    }
    s = env_->CreateDir(dir_);
    if (!s.ok()) return s;
  }
  s = FileLock::Acquire(LockFileName(dir_), &lock_);
  if (!s.ok()) return s;
  s = Recover();
  if (!s.ok()) return s;
  opened_ = true;
  flush_thread_ = std::thread([this] { FlushThread(); });
  compaction_thread_ = std::thread([this] { CompactionThread(); });
  return Status::OK();
}

// Nothing in the directory changes until every check has passed: the
// manifest is read, every live table opened (and with paranoid_checks fully
// verified) and the WALs replayed under the recovery mode before the first
// file is written. Then, before anything else changes, damaged logs are
// copied to lost/ (the originals stay until the new manifest no longer needs
// them and are deleted as obsolete) and tables no manifest names are moved
// there, so a crash or an error at any point of Open loses nothing.
Status DBImpl::Recover() {
  ManifestState state;
  ManifestReport manifest_report;
  std::vector<std::string> names;
  Status s = ReadDbState(&state, &names, &manifest_report);
  if (!s.ok()) return s;
  recovery_.wal_recovery_mode = WalRecoveryModeName(options_.wal_recovery_mode);
  recovery_.manifest_bytes_dropped = manifest_report.dropped_bytes;
  if (!manifest_report.dropped.empty()) {
    Log("manifest recovery: " + manifest_report.dropped + " (tables no version names go to lost/)", true);
  }
  std::shared_ptr<Version> version;
  s = OpenLiveTables(*state.version, &version);
  if (!s.ok()) return s;

  // WALs to replay, and the largest number in use.
  uint64_t max_number = 0;
  std::vector<uint64_t> logs;
  for (const auto& name : names) {
    uint64_t number = 0;
    const DbFileType type = ParseDbFileName(name, &number);
    if (type == DbFileType::kLog || type == DbFileType::kTable || type == DbFileType::kManifest) {
      max_number = std::max(max_number, number);
    }
    if (type == DbFileType::kLog && number >= state.log_number) logs.push_back(number);
  }
  std::sort(logs.begin(), logs.end());
  std::vector<std::shared_ptr<MemTable>> recovered;
  SequenceNumber last_sequence = state.last_sequence;
  std::vector<uint64_t> damaged_logs;
  s = ReplayLogs(logs, &recovered, &last_sequence, &damaged_logs);
  if (!s.ok()) return s;

  // From here on the directory changes.
  for (const auto& name : names) {
    uint64_t number = 0;
    if (ParseDbFileName(name, &number) == DbFileType::kTemp) env_->RemoveFile(dir_ + "/" + name);
  }
  for (uint64_t number : damaged_logs) {
    s = KeepInLost(LogFileName(dir_, number).substr(dir_.size() + 1), /*copy=*/true);
    if (!s.ok()) return s;
  }
  // Tables the manifest does not name: below its next file number they are
  // obsolete (compacted away; deleted below). From it on the manifest never
  // knew them: a flush or compaction cut short by a crash, or edits lost to
  // a truncated manifest, which nothing else would reveal. Those are kept,
  // as is every unnamed table when the manifest's tail was dropped.
  std::set<uint64_t> live;
  for (int level = 0; level < version->num_levels(); ++level) {
    for (const auto& f : version->files(level)) live.insert(f->number);
  }
  for (const auto& name : names) {
    uint64_t number = 0;
    if (ParseDbFileName(name, &number) == DbFileType::kTable && live.count(number) == 0 &&
        (number >= state.next_file_number || manifest_report.dropped_bytes > 0)) {
      s = KeepInLost(name, /*copy=*/false);
      if (!s.ok()) return s;
    }
  }
  next_file_number_ = std::max(state.next_file_number, max_number + 1);
  current_ = version;
  s = WriteRecoveredTables(recovered, version.get());
  if (!s.ok()) return s;
  s = StartFromRecoveredState(version, last_sequence);
  if (!s.ok()) return s;
  DeleteObsoleteFiles();
  return Status::OK();
}

Status DBImpl::KeepInLost(const std::string& name, bool copy) {
  const std::string lost = LostDirName(dir_);
  const bool sync = !options_.disable_data_sync;
  Status s = env_->CreateDir(lost);
  std::string target = lost + "/" + name;
  for (int i = 1; s.ok() && env_->FileExists(target); ++i) target = lost + "/" + name + "." + std::to_string(i);
  if (copy) {
    std::string contents;
    if (s.ok()) s = ReadFileToString(env_, dir_ + "/" + name, &contents);
    if (s.ok()) s = WriteStringToFile(env_, target, contents, sync);
  } else if (s.ok()) {
    s = env_->RenameFile(dir_ + "/" + name, target);
  }
  if (s.ok() && sync) s = env_->SyncDir(lost);
  if (s.ok() && sync && !copy) s = env_->SyncDir(dir_);
  if (!s.ok()) return Status::IOError("could not keep " + name + " in " + lost + ": " + s.message());
  ++recovery_.files_moved_to_lost;
  Log("recovery: kept " + name + " as " + target, true);
  return Status::OK();
}

Status DBImpl::ReadDbState(ManifestState* state, std::vector<std::string>* names, ManifestReport* report) {
  uint64_t old_manifest = 0;
  Status s = ReadManifest(env_, dir_, state, &old_manifest, report);
  const bool is_new = s.IsNotFound();
  Status ls = env_->GetChildren(dir_, names);
  if (!ls.ok()) return ls;
  if (!is_new) {
    if (!s.ok()) return s;
    if (options_.error_if_exists) {
      return Status::InvalidArgument("database " + dir_ + " already exists and error_if_exists is set");
    }
    return Status::OK();
  }
  for (const auto& name : *names) {
    uint64_t number = 0;
    const DbFileType type = ParseDbFileName(name, &number);
    if (type == DbFileType::kTable || type == DbFileType::kManifest) {
      return Status::Corruption(dir_ + " has no CURRENT file but holds database file " + name +
                                " (CURRENT lost?); refusing to start a new database over it");
    }
  }
  if (!options_.create_if_missing) {
    return Status::NotFound("no database in " + dir_ + " (no CURRENT file; set create_if_missing to create one)");
  }
  state->version = std::make_shared<Version>(options_.num_levels);
  state->next_file_number = 2;
  return Status::OK();
}

Status DBImpl::OpenLiveTables(const Version& manifest_version, std::shared_ptr<Version>* version) {
  // The configured number of levels must hold every file.
  for (int l = options_.num_levels; l < manifest_version.num_levels(); ++l) {
    if (!manifest_version.files(l).empty()) {
      return Status::InvalidArgument("database " + dir_ + " has files at level " + std::to_string(l) +
                                     " but options.num_levels is " + std::to_string(options_.num_levels));
    }
  }
  auto v = std::make_shared<Version>(options_.num_levels);
  for (int l = 0; l < manifest_version.num_levels(); ++l) {
    // Opening verifies size, footer, meta blocks, index and filter.
    for (const auto& f : manifest_version.files(l)) {
      std::shared_ptr<const TableReader> table;
      Status s = table_cache_->Get(f->number, f->file_size, &table);
      if (!s.ok()) return s;
      if (options_.paranoid_checks) {
        s = table->ForEachDataBlock([](const BlockHandle&, const Block&) { return Status::OK(); });
        if (!s.ok()) return s;
      }
      auto opened = std::make_shared<FileMetaData>(*f);
      NoteTableFilter(table->properties(), opened.get());
      v->mutable_files(l).push_back(std::move(opened));
    }
  }
  *version = std::move(v);
  return Status::OK();
}

Status DBImpl::WriteRecoveredTables(const std::vector<std::shared_ptr<MemTable>>& recovered, Version* version) {
  for (const auto& mem : recovered) {
    const uint64_t number = NewFileNumber();
    auto meta = std::make_shared<FileMetaData>();
    auto it = NewMemTableIterator(mem);
    it->SeekToFirst();
    Status s = WriteTable(it.get(), 0, number, meta.get());
    if (!s.ok()) return s;
    if (meta->file_size > 0) {
      version->mutable_files(0).push_back(meta);
      Log("recovery: wrote " + std::to_string(mem->num_entries()) + " logged entries to table " +
              std::to_string(number),
          false);
    }
  }
  version->SortLevels();
  return Status::OK();
}

Status DBImpl::StartFromRecoveredState(const std::shared_ptr<Version>& version, SequenceNumber last_sequence) {
  Status s = NewMemTable(&mem_);
  if (!s.ok()) return s;
  mem_log_number_ = NewFileNumber();
  s = NewLogFile(mem_log_number_, &log_);
  if (!s.ok()) return s;
  last_sequence_.store(last_sequence, std::memory_order_release);
  log_number_ = mem_log_number_;
  manifest_number_ = NewFileNumber();
  ManifestState out;
  out.log_number = log_number_;
  out.next_file_number = next_file_number_;
  out.last_sequence = last_sequence;
  out.version = version;
  // Its SyncDir also makes the new WAL's and the recovered tables' entries durable.
  s = ManifestWriter::Create(env_, dir_, manifest_number_, out, !options_.disable_data_sync, &manifest_);
  if (!s.ok()) return s;
  log_dir_synced_ = !options_.disable_data_sync;
  std::lock_guard<std::mutex> l(mu_);
  current_ = version;
  live_versions_.push_back(current_);
  InstallSuperVersion();
  return Status::OK();
}

Status DBImpl::ReplayLogs(const std::vector<uint64_t>& logs, std::vector<std::shared_ptr<MemTable>>* recovered,
                          SequenceNumber* last_sequence, std::vector<uint64_t>* damaged) {
  const WalRecoveryMode mode = options_.wal_recovery_mode;
  RecoveryStats& rs = recovery_;
  std::string first_damage;        // "N bytes at offset X of LOG: reason" of the first damage
  uint64_t records_after = 0;      // intact records after the first damage (this and later logs)
  bool damage_since_last = false;  // damage between the last replayed record and the next
  bool have_last = false;
  SequenceNumber last_replayed = 0;  // last sequence of the last replayed batch
  std::shared_ptr<MemTable> mem;
  for (uint64_t number : logs) {
    const std::string name = LogFileName(dir_, number);
    std::string contents;
    Status s = ReadFileToString(env_, name, &contents);
    if (!s.ok()) return s;
    log::Reader reader(std::move(contents), name);
    bool log_dropped_something = false;
    size_t damages_seen = 0;
    auto note_damage = [&] {
      for (; damages_seen < reader.damages().size(); ++damages_seen) {
        const log::Damage& d = reader.damages()[damages_seen];
        if (first_damage.empty()) first_damage = reader.Describe(d);
        ++rs.wal_damaged_regions;
        rs.wal_bytes_dropped += d.bytes;
        // Intact records behind a damaged length: dropped, and never a tail.
        records_after += d.intact_fragments;
        rs.wal_records_dropped += d.intact_fragments;
        damage_since_last = true;
        log_dropped_something = true;
      }
    };
    Slice record;
    uint64_t records = 0;
    while (reader.ReadRecord(&record)) {
      note_damage();
      const uint64_t at = reader.record_offset();
      if (!first_damage.empty() && mode != WalRecoveryMode::kSkipAnyCorruptedRecords) {
        // Not replayed: counted for the error message or for what point in time drops.
        ++records_after;
        ++rs.wal_records_dropped;
        rs.wal_bytes_dropped += record.size();
        log_dropped_something = true;
        continue;
      }
      const std::string where = name + ": record " + std::to_string(records) + " at offset " + std::to_string(at);
      WriteBatch batch;
      s = WriteBatchInternal::SetContents(&batch, record);
      if (!s.ok()) return Status::Corruption(where + " passed its checksum but " + s.message());
      if (batch.Count() > 0) {
        const SequenceNumber first = WriteBatchInternal::Sequence(batch);
        if (have_last && first != last_replayed + 1) {
          if (!damage_since_last || first <= last_replayed) {
            return Status::Corruption(where + " starts at sequence " + std::to_string(first) +
                                      " but the record before it ended at " + std::to_string(last_replayed) +
                                      (damage_since_last ? "" : " with no damage between (a log is missing?)"));
          }
          rs.wal_writes_dropped += first - last_replayed - 1;
        }
        have_last = true;
        damage_since_last = false;
        last_replayed = first + batch.Count() - 1;
      }
      if (!mem) {
        s = NewMemTable(&mem);
        if (!s.ok()) return s;
      }
      s = WriteBatchInternal::InsertInto(batch, mem.get());
      if (!s.ok()) return Status::Corruption(where + " passed its checksum but " + s.message());
      if (batch.Count() > 0) *last_sequence = std::max(*last_sequence, last_replayed);
      ++records;
      ++rs.wal_records_replayed;
      if (mem->ApproximateMemoryUsage() >= options_.write_buffer_size) {
        recovered->push_back(std::move(mem));
        mem.reset();
      }
    }
    note_damage();
    if (log_dropped_something) damaged->push_back(number);
  }
  if (!first_damage.empty()) {
    const bool tail = records_after == 0;
    if (mode == WalRecoveryMode::kAbsoluteConsistency ||
        (mode == WalRecoveryMode::kTolerateCorruptedTailRecords && !tail)) {
      return Status::Corruption(
          "WAL damaged: " + first_damage + "; " + std::to_string(records_after) +
          " intact record(s) follow it. wal_recovery_mode=" + WalRecoveryModeName(mode) +
          (tail ? " refuses any damage" : " drops only a damaged tail") +
          "; nothing was changed (open with point_in_time to keep the records before the damage, or "
          "skip_any_corrupted_records to keep every intact record)");
    }
    Log("WAL recovery (" + std::string(WalRecoveryModeName(mode)) + "): dropped " + first_damage + "; " +
            std::to_string(rs.wal_damaged_regions) + " damaged region(s), " + std::to_string(rs.wal_bytes_dropped) +
            " bytes and " + std::to_string(rs.wal_records_dropped) + " intact record(s) dropped, " +
            std::to_string(rs.wal_writes_dropped) + " write(s) known lost; the damaged log(s) go to lost/",
        true);
  }
  if (mem && mem->num_entries() > 0) recovered->push_back(std::move(mem));
  return Status::OK();
}

// ---------------------------------------------------------------------------------------------
// Writes

Status DBImpl::Put(const WriteOptions& options, const Slice& key, const Slice& value) {
  WriteBatch batch;
  batch.Put(key, value);
  return Write(options, &batch);
}

Status DBImpl::Delete(const WriteOptions& options, const Slice& key) {
  WriteBatch batch;
  batch.Delete(key);
  return Write(options, &batch);
}

// One waiting Write call (group commit, db_impl.h).
struct DBImpl::Writer {
  WriteBatch* batch;
  bool sync;
  bool done = false;
  Status status;
  std::condition_variable cv;
  Writer(WriteBatch* b, bool s) : batch(b), sync(s) {}
};

namespace {
// A group stops growing at this many batch bytes, so a small synced write
// does not wait behind megabytes of others' appends.
constexpr size_t kMaxGroupBytes = size_t{1} << 20;
}  // namespace

Status DBImpl::Write(const WriteOptions& options, WriteBatch* batch) {
  if (batch == nullptr) return Status::InvalidArgument("Write: batch is null");
  Writer w(batch, options.sync);
  std::unique_lock<std::mutex> q(queue_mu_);
  writers_.push_back(&w);
  w.cv.wait(q, [&] { return w.done || writers_.front() == &w; });
  if (w.done) return w.status;
  q.unlock();
  Writer* last = &w;
  Status s = WriteGroup(&w, &last);
  q.lock();
  while (true) {
    Writer* done = writers_.front();
    writers_.pop_front();
    if (done != &w) {
      done->status = s;
      done->done = true;
      done->cv.notify_one();
    }
    if (done == last) break;
  }
  if (!writers_.empty()) writers_.front()->cv.notify_one();
  return s;
}

Status DBImpl::WriteGroup(Writer* leader, Writer** last_writer) {
  std::lock_guard<std::mutex> wl(write_mu_);
  {
    std::unique_lock<std::mutex> l(mu_);
    if (closed_ || shutting_down_) return ClosedError();
    Status s = MakeRoomForWrite(l, false);
    if (!s.ok()) return s;
  }
  // Take the writers queued behind the leader now; later arrivals wait for the next group.
  std::vector<Writer*> group{leader};
  {
    std::lock_guard<std::mutex> q(queue_mu_);
    size_t bytes = leader->batch->ApproximateSize();
    for (size_t i = 1; i < writers_.size(); ++i) {
      Writer* w = writers_[i];
      bytes += w->batch->ApproximateSize();
      if (bytes > kMaxGroupBytes) break;
      group.push_back(w);
    }
  }
  *last_writer = group.back();
  SequenceNumber next = last_sequence_.load(std::memory_order_relaxed) + 1;
  bool sync = false;
  uint64_t writes = 0, batches = 0, bytes = 0;
  Status s;
  for (Writer* w : group) {
    sync = sync || w->sync;
    const uint32_t count = w->batch->Count();
    if (count == 0) continue;
    if (next + count - 1 > kMaxSequenceNumber) {
      s = Status::NotSupported("sequence numbers exhausted (2^56 - 1 writes)");
      break;
    }
    WriteBatchInternal::SetSequence(w->batch, next);
    s = log_->AddRecord(WriteBatchInternal::Contents(*w->batch));
    if (!s.ok()) break;
    next += count;
    writes += count;
    ++batches;
    bytes += w->batch->ApproximateSize();
  }
  if (s.ok() && sync && batches > 0) {
    // A new WAL's directory entry must be durable before its records can be.
    if (!log_dir_synced_) {
      s = env_->SyncDir(dir_);
      log_dir_synced_ = s.ok();
    }
    if (s.ok()) s = log_->Sync();
    RecordTick(Ticker::kWalSyncs);
  }
  if (!s.ok()) {
    if (s.IsNotSupported()) return s;
    // The log may now hold part of a record or unsynced ones: refuse further
    // writes rather than let the memtable and the log disagree.
    std::lock_guard<std::mutex> l(mu_);
    SetStickyError(s);
    return bg_error_;
  }
  for (Writer* w : group) {
    if (w->batch->Count() == 0) continue;
    s = WriteBatchInternal::InsertInto(*w->batch, mem_.get());
    if (!s.ok()) {
      // The log holds what the memtable lacks (and the sequence is not
      // published): stop writes rather than reuse the sequence numbers.
      std::lock_guard<std::mutex> l(mu_);
      SetStickyError(s);
      return bg_error_;
    }
  }
  last_sequence_.store(next - 1, std::memory_order_release);
  RecordTick(Ticker::kWrites, writes);
  RecordTick(Ticker::kWriteBatches, batches);
  RecordTick(Ticker::kBytesWritten, bytes);
  RecordTick(Ticker::kWriteGroups);
  return Status::OK();
}

Status DBImpl::MakeRoomForWrite(std::unique_lock<std::mutex>& l, bool force) {
  bool allow_delay = !force;
  // Without automatic compactions nothing would ever lower the L0 count: no L0 stalls then.
  const auto l0_files = [this] {
    return options_.disable_auto_compactions ? 0 : static_cast<int>(current_->files(0).size());
  };
  while (true) {
    if (!bg_error_.ok()) return bg_error_;
    if (shutting_down_) return ClosedError();
    if (allow_delay && l0_files() >= options_.level0_slowdown_writes_trigger) {
      // Give compaction a millisecond rather than stall later for seconds.
      l.unlock();
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
      RecordTick(Ticker::kSlowdowns);
      l.lock();
      allow_delay = false;
      continue;
    }
    if (!force && mem_->ApproximateMemoryUsage() < options_.write_buffer_size) return Status::OK();
    if (mem_->num_entries() == 0) return Status::OK();  // nothing to switch
    const bool imm_full = static_cast<int>(imm_.size()) >= options_.max_write_buffer_number - 1;
    if (imm_full || l0_files() >= options_.level0_stop_writes_trigger) {
      const auto start = std::chrono::steady_clock::now();
      RecordTick(Ticker::kStalls);
      cv_.wait(l);
      RecordTick(
          Ticker::kStallMicros,
          static_cast<uint64_t>(
              std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now() - start).count()));
      continue;
    }
    // Switch to a new memtable and WAL.
    std::shared_ptr<MemTable> mem;
    Status s = NewMemTable(&mem);
    if (!s.ok()) return s;
    const uint64_t number = NewFileNumber();
    std::unique_ptr<log::Writer> log;
    s = NewLogFile(number, &log);
    if (!s.ok()) return s;
    // The old log's unsynced tail is made durable first: otherwise a power
    // loss could tear it while synced writes in the new log survive, and
    // the damage would not be a tail.
    if (!options_.disable_data_sync) {
      l.unlock();  // write_mu_ keeps log_ ours; readers need mu_ meanwhile
      s = log_->Sync();
      l.lock();
    }
    if (s.ok()) s = log_->Close();
    if (!s.ok()) {
      SetStickyError(s);
      return bg_error_;
    }
    imm_.push_back({mem_, mem_log_number_});
    mem_ = std::move(mem);
    InstallSuperVersion();
    log_ = std::move(log);
    log_dir_synced_ = false;
    mem_log_number_ = number;
    cv_.notify_all();
    force = false;
  }
}

// ---------------------------------------------------------------------------------------------
// Reads

DBImpl::ReadView DBImpl::GetReadView(const ReadOptions& options) {
  ReadView v;
  std::lock_guard<std::mutex> l(mu_);
  v.mem = super_->mem;
  v.imm = super_->imm;
  v.version = super_->version;
  v.sequence = ReadSequence(options);
  return v;
}

SequenceNumber DBImpl::ReadSequence(const ReadOptions& options) const {
  return options.snapshot != nullptr ? options.snapshot->sequence() : last_sequence_.load(std::memory_order_acquire);
}

void DBImpl::InstallSuperVersion() {
  auto sv = std::make_shared<SuperVersion>();
  sv->mem = mem_;
  for (auto it = imm_.rbegin(); it != imm_.rend(); ++it) sv->imm.push_back(it->mem);
  sv->version = current_;
  std::shared_ptr<const SuperVersion> old = std::exchange(super_, std::move(sv));
  super_ptr_.store(super_.get(), std::memory_order_release);
  // Guards that loaded the old pointer close before it can be freed. They
  // never take mu_, so waiting for them under it cannot deadlock.
  if (old) read_gate_.Synchronize();
}

void DBImpl::CountFilter(int level, const LookupResult& result) {
  RecordLevelTick(level, LevelTicker::kLookups);
  if (result.found) RecordLevelTick(level, LevelTicker::kFound);
  if (result.filter == LookupResult::Filter::kNotChecked) return;
  RecordLevelTick(level, LevelTicker::kFilterChecked);
  if (result.filter == LookupResult::Filter::kNegative) {
    RecordLevelTick(level, LevelTicker::kFilterUseful);
  } else {
    RecordLevelTick(level, LevelTicker::kFilterPositive);
    if (result.found) RecordLevelTick(level, LevelTicker::kFilterTruePositive);
  }
}

Status DBImpl::LookupInTable(int level, const FileMetaData& file, const Slice& internal_key, LookupResult* result) {
  const TableReader* table = nullptr;
  Status s = table_cache_->GetInGuard(file.number, file.file_size, &table);
  if (!s.ok()) return s;
  RecordTick(Ticker::kTableLookups);
  table->Get(internal_key, result);
  CountFilter(level, *result);
  return result->status;
}

namespace {

// The answer a found table entry gives: OK with *value, or NotFound for a deletion.
Status ResolveTableEntry(const LookupResult& r, std::string* value) {
  ParsedInternalKey p;
  Status s = ParseInternalKey(r.internal_key, &p);
  if (!s.ok()) return s;
  if (p.type == kTypeValue) {
    *value = r.value;
    return Status::OK();
  }
  return Status::NotFound("");
}

// True if a memtable's answer decides the lookup (*s set): the key's newest
// visible version is there.
bool MemTableDecides(MemTable::GetResult result, Status* s) {
  switch (result) {
    case MemTable::GetResult::kFound: *s = Status::OK(); return true;
    case MemTable::GetResult::kDeleted: *s = Status::NotFound(""); return true;
    case MemTable::GetResult::kMerge: *s = Status::NotSupported("merge operands are not supported"); return true;
    case MemTable::GetResult::kNotFound: break;
  }
  return false;
}

// Looks `key` up in a memtable: true if it decided the answer (*s set).
bool MemTableGet(const MemTable& mem, const LookupKey& key, std::string* value, Status* s) {
  return MemTableDecides(mem.Get(key, value), s);
}

}  // namespace

Status DBImpl::Get(const ReadOptions& options, const Slice& key, std::string* value) {
  if (value == nullptr) return Status::InvalidArgument("Get: value is null");
  RecordTick(Ticker::kGets);
  Status s;
  {
    ReadGate::Guard guard(&read_gate_);
    s = GetImpl(CurrentSuperVersion(), ReadSequence(options), key, value);
  }
  table_cache_->ReclaimRetired();
  return s;
}

Status DBImpl::GetImpl(const SuperVersion& sv, SequenceNumber sequence, const Slice& key, std::string* value) {
  const LookupKey lkey(key, sequence);
  Status s;
  if (MemTableGet(*sv.mem, lkey, value, &s)) return s;
  for (const auto& imm : sv.imm) {
    if (MemTableGet(*imm, lkey, value, &s)) return s;
  }
  const Version& version = *sv.version;
  for (int level = 0; level < version.num_levels(); ++level) {
    const FileList& files = version.files(level);
    if (files.empty()) continue;
    size_t begin = 0, end = files.size();
    if (level > 0) {
      begin = version.FindFile(level, key);
      end = std::min(begin + 1, files.size());
    }
    for (size_t i = begin; i < end; ++i) {
      if (!files[i]->ContainsUserKey(key)) continue;
      // Reused by the thread's lookups: its strings keep their capacity.
      thread_local LookupResult r;
      s = LookupInTable(level, *files[i], lkey.internal_key(), &r);
      if (!s.ok()) return s;
      if (r.found) return ResolveTableEntry(r, value);
    }
  }
  return Status::NotFound("");
}

// One sorted batch of at most kMultiGetBatch keys of a MultiGet call. The
// vectors are reused from batch to batch.
struct DBImpl::MultiGetBatch {
  const std::vector<size_t>* order = nullptr;  // sorted position -> index into keys
  size_t start = 0;                            // sorted position of the batch's first key
  std::vector<std::string>* values = nullptr;
  std::vector<Status>* statuses = nullptr;
  std::vector<LookupKey> lkeys;  // lkeys[j]: the j-th key of the batch
  std::vector<size_t> pending;   // batch positions j not yet decided, in sorted order
  std::vector<size_t> group;     // the pending keys handed to one table
  std::vector<bool> decided;
  std::vector<Slice> targets;
  std::vector<LookupResult> results;
  // One memtable's MultiGet: the pending keys, their value strings, its answers.
  std::vector<const LookupKey*> mem_keys;
  std::vector<std::string*> mem_values;
  std::vector<MemTable::GetResult> mem_results;

  size_t index(size_t j) const { return (*order)[start + j]; }
  void Decide(size_t j, Status s) {
    (*statuses)[index(j)] = std::move(s);
    decided[j] = true;
  }
  // Removes decided keys from `pending`.
  void DropDecided() {
    size_t kept = 0;
    for (size_t j : pending) {
      if (!decided[j]) pending[kept++] = j;
    }
    pending.resize(kept);
  }
};

// Spec §3: sort the keys, then per batch of 32: memtables, then each level
// once, handing every table the run of pending keys inside its key range
// as one TableReader::MultiGet (whose filter probes the whole group with
// prefetching and whose keys share data-block reads).
void DBImpl::MultiGet(const ReadOptions& options, const std::vector<Slice>& keys, std::vector<std::string>* values,
                      std::vector<Status>* statuses) {
  const size_t n = keys.size();
  // resize + clear rather than assign: the caller's value strings keep
  // their buffers from call to call.
  values->resize(n);
  for (std::string& value : *values) value.clear();
  if (n == 0) {
    statuses->clear();
    return;
  }
  RecordTick(Ticker::kMultiGets);
  RecordTick(Ticker::kMultiGetKeys, n);
  {
    ReadGate::Guard guard(&read_gate_);
    MultiGetInGuard(CurrentSuperVersion(), ReadSequence(options), keys, values, statuses);
  }
  table_cache_->ReclaimRetired();
}

void DBImpl::MultiGetInGuard(const SuperVersion& sv, SequenceNumber sequence, const std::vector<Slice>& keys,
                             std::vector<std::string>* values, std::vector<Status>* statuses) {
  const size_t n = keys.size();
  if (n == 1) {
    // Nothing to batch: a lone key takes Get's path (no sort, no batch
    // state), so MultiGet of one key costs what Get does.
    statuses->resize(1);
    (*statuses)[0] = GetImpl(sv, sequence, keys[0], &(*values)[0]);
    return;
  }
  statuses->assign(n, Status::NotFound(""));
  // The batch state is the calling thread's, reused across calls so a
  // MultiGet allocates nothing once its vectors have grown.
  thread_local MultiGetBatch batch;
  thread_local std::vector<size_t> order;
  order.resize(n);
  for (size_t i = 0; i < n; ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return keys[a].compare(keys[b]) < 0; });

  batch.order = &order;
  batch.values = values;
  batch.statuses = statuses;
  const Version& version = *sv.version;
  for (size_t start = 0; start < n; start += kMultiGetBatch) {
    const size_t size = std::min(kMultiGetBatch, n - start);
    batch.start = start;
    batch.lkeys.clear();
    for (size_t j = 0; j < size; ++j) batch.lkeys.emplace_back(keys[order[start + j]], sequence);
    batch.decided.assign(size, false);
    MultiGetFromMemTables(sv, &batch);
    for (int level = 0; level < version.num_levels() && !batch.pending.empty(); ++level) {
      if (version.files(level).empty()) continue;
      if (level == 0) {
        MultiGetFromLevel0(version.files(0), &batch);
      } else {
        MultiGetFromSortedLevel(version, level, &batch);
      }
    }
  }
}

// Decides the keys the memtables answer; the rest become `pending`. Each
// memtable, newest first, takes the still pending keys as one
// MemTable::MultiGet (its filter probes and skip-list searches batched).
void DBImpl::MultiGetFromMemTables(const SuperVersion& v, MultiGetBatch* batch) {
  batch->pending.clear();
  for (size_t j = 0; j < batch->lkeys.size(); ++j) batch->pending.push_back(j);
  const MemTable* mem = v.mem.get();
  for (size_t m = 0; mem != nullptr && !batch->pending.empty();) {
    const size_t k = batch->pending.size();
    batch->mem_keys.resize(k);
    batch->mem_values.resize(k);
    batch->mem_results.resize(k);
    for (size_t g = 0; g < k; ++g) {
      const size_t j = batch->pending[g];
      batch->mem_keys[g] = &batch->lkeys[j];
      batch->mem_values[g] = &(*batch->values)[batch->index(j)];
    }
    mem->MultiGet(batch->mem_keys.data(), k, batch->mem_values.data(), batch->mem_results.data());
    size_t kept = 0;
    for (size_t g = 0; g < k; ++g) {
      const size_t j = batch->pending[g];
      Status s;
      if (MemTableDecides(batch->mem_results[g], &s)) {
        (*batch->statuses)[batch->index(j)] = std::move(s);
      } else {
        batch->pending[kept++] = j;
      }
    }
    batch->pending.resize(kept);
    mem = m < v.imm.size() ? v.imm[m++].get() : nullptr;
  }
}

// Every L0 file, newest first, with the pending keys inside its range.
void DBImpl::MultiGetFromLevel0(const FileList& files, MultiGetBatch* batch) {
  for (const auto& f : files) {
    batch->group.clear();
    for (size_t j : batch->pending) {
      if (f->ContainsUserKey(batch->lkeys[j].user_key())) batch->group.push_back(j);
    }
    MultiGetGroup(0, *f, batch);
    batch->DropDecided();
    if (batch->pending.empty()) return;
  }
}

// A sorted level: consecutive pending keys falling in the same file form one group.
void DBImpl::MultiGetFromSortedLevel(const Version& version, int level, MultiGetBatch* batch) {
  const FileList& files = version.files(level);
  size_t current_file = files.size();
  batch->group.clear();
  size_t lower = 0;  // keys are sorted, so each search starts where the last ended
  for (size_t j : batch->pending) {
    const Slice uk = batch->lkeys[j].user_key();
    const size_t lo = version.FindFile(level, uk, lower);
    lower = lo;
    if (lo == files.size() || !files[lo]->ContainsUserKey(uk)) continue;
    if (lo != current_file) {
      if (current_file < files.size()) MultiGetGroup(level, *files[current_file], batch);
      batch->group.clear();
      current_file = lo;
    }
    batch->group.push_back(j);
  }
  if (current_file < files.size()) MultiGetGroup(level, *files[current_file], batch);
  batch->DropDecided();
}

void DBImpl::MultiGetGroup(int level, const FileMetaData& file, MultiGetBatch* batch) {
  if (batch->group.empty()) return;
  const TableReader* table = nullptr;
  Status s = table_cache_->GetInGuard(file.number, file.file_size, &table);
  if (!s.ok()) {
    for (size_t j : batch->group) batch->Decide(j, s);
    return;
  }
  batch->targets.clear();
  for (size_t j : batch->group) batch->targets.push_back(batch->lkeys[j].internal_key());
  // TableReader::MultiGet resets each result; resize keeps the strings' capacity.
  if (batch->results.size() < batch->group.size()) batch->results.resize(batch->group.size());
  RecordTick(Ticker::kTableLookups, batch->group.size());
  table->MultiGet(batch->targets.data(), batch->targets.size(), batch->results.data());
  for (size_t g = 0; g < batch->group.size(); ++g) {
    const size_t j = batch->group[g];
    const LookupResult& r = batch->results[g];
    CountFilter(level, r);
    if (!r.status.ok()) {
      batch->Decide(j, r.status);
    } else if (r.found) {
      batch->Decide(j, ResolveTableEntry(r, &(*batch->values)[batch->index(j)]));
    }
  }
}

std::unique_ptr<Iterator> DBImpl::NewIterator(const ReadOptions& options) {
  const ReadView v = GetReadView(options);
  std::vector<std::unique_ptr<InternalIterator>> children;
  children.push_back(NewMemTableIterator(v.mem));
  for (const auto& imm : v.imm) children.push_back(NewMemTableIterator(imm));
  for (const auto& f : v.version->files(0)) {
    std::shared_ptr<const TableReader> table;
    Status s = table_cache_->Get(f->number, f->file_size, &table);
    if (s.ok()) {
      children.push_back(NewTableIterator(std::move(table), 0, &seek_recorder_));
    } else {
      // An iterator that reports the error: a level iterator over this one file.
      children.push_back(NewLevelIterator(table_cache_.get(), FileList{f}, 0, &seek_recorder_));
    }
  }
  for (int level = 1; level < v.version->num_levels(); ++level) {
    if (!v.version->files(level).empty()) {
      children.push_back(NewLevelIterator(table_cache_.get(), v.version->files(level), level, &seek_recorder_));
    }
  }
  return NewDBIterator(NewMergingIterator(std::move(children)), v.sequence, v.version, options,
                       options_.prefix_extractor);
}

void DBImpl::LevelSeekRecorder::RecordTableSeek(int level, const TableReader::SeekFilterAnswer& answer, bool useful) {
  using Filter = LookupResult::Filter;
  if (answer.range == Filter::kNegative) db_->RecordLevelTick(level, LevelTicker::kSeekRangeFiltered);
  if (answer.range == Filter::kPositive) db_->RecordLevelTick(level, LevelTicker::kSeekRangeFilterMatch);
  const Filter filter = answer.combined();
  if (filter == Filter::kNegative) {
    db_->RecordLevelTick(level, LevelTicker::kSeekFiltered);
    return;
  }
  const bool matched = filter == Filter::kPositive;
  if (matched) db_->RecordLevelTick(level, LevelTicker::kSeekFilterMatch);
  db_->RecordLevelTick(level, LevelTicker::kSeekData);
  if (useful) {
    db_->RecordLevelTick(level,
                         matched ? LevelTicker::kSeekDataUsefulFilterMatch : LevelTicker::kSeekDataUsefulNoFilter);
  }
}

const Snapshot* DBImpl::GetSnapshot() {
  std::lock_guard<std::mutex> l(mu_);
  const SequenceNumber seq = last_sequence_.load(std::memory_order_acquire);
  snapshots_.insert(seq);
  return new SnapshotImpl(seq);
}

void DBImpl::ReleaseSnapshot(const Snapshot* snapshot) {
  if (snapshot == nullptr) return;
  {
    std::lock_guard<std::mutex> l(mu_);
    auto it = snapshots_.find(snapshot->sequence());
    if (it != snapshots_.end()) snapshots_.erase(it);
  }
  delete snapshot;
}

void DBImpl::GetApproximateMemTableStats(const Slice& start, const Slice& limit, uint64_t* count, uint64_t* bytes) {
  const ReadView v = GetReadView(ReadOptions());
  MemTable::RangeStats total = v.mem->ApproximateStats(start, limit);
  for (const auto& imm : v.imm) {
    const MemTable::RangeStats st = imm->ApproximateStats(start, limit);
    total.count += st.count;
    total.bytes += st.bytes;
  }
  *count = total.count;
  *bytes = total.bytes;
}

// ---------------------------------------------------------------------------------------------
// Statistics (their text forms, GetProperty, are in db_properties.cc)

namespace {

// The filters a level's tables hold (LevelStats::filter, range_filter): the
// distinct specs in `spec` of its tables; `fallback` when it has none.
std::string LevelFilterLabel(const FileList& files, std::string FileMetaData::*spec_field,
                             const std::string& fallback) {
  std::vector<const std::string*> specs;
  for (const auto& f : files) {
    const std::string& spec = (*f).*spec_field;
    bool seen = false;
    for (const std::string* s : specs) seen = seen || *s == spec;
    if (!seen) specs.push_back(&spec);
  }
  if (specs.empty()) return fallback;
  std::string label;
  for (const std::string* s : specs) label += (label.empty() ? "" : " | ") + (s->empty() ? "none" : *s);
  return label;
}

}  // namespace

DbStats DBImpl::GetStats() {
  DbStats stats;
  const ReadView v = GetReadView(ReadOptions());
  const Version& version = *v.version;
  const std::vector<double> reach = LookupReach(version, OutputJob());
  for (int l = 0; l < version.num_levels(); ++l) {
    LevelStats level;
    level.level = l;
    level.files = version.files(l).size();
    level.bytes = version.LevelBytes(l);
    level.filter = LevelFilterLabel(version.files(l), &FileMetaData::filter_spec,
                                    FilterLabel(options_.FilterPolicyForLevel(l).get()));
    for (size_t t = 0; t < kNumLevelTickers; ++t) level.tickers.values[t] = level_tickers_[l]->Sum(t);
    const LevelFilterSummary summary = SummarizeLevelFilters(l, version.files(l));
    level.entries = summary.entries;
    level.filter_bytes = summary.filter_bytes;
    level.range_filter_bytes = summary.range_filter_bytes;
    level.range_filter = LevelFilterLabel(version.files(l), &FileMetaData::range_filter_spec,
                                          RangeFilterLabel(options_.RangeFilterPolicyForLevel(l).get()));
    level.model_fp = summary.model_fp;
    level.reach = reach[l];
    stats.total_sst_bytes += level.bytes;
    stats.levels.push_back(std::move(level));
  }
  stats.memtable_filter.negatives = v.mem->bloom_negatives();
  stats.memtable_filter.positives = v.mem->bloom_positives();
  stats.memtable_filter.prefix_hits = v.mem->prefix_hits();
  stats.memtable_filter.prefix_misses = v.mem->prefix_misses();
  for (const auto& imm : v.imm) {
    stats.memtable_filter.negatives += imm->bloom_negatives();
    stats.memtable_filter.positives += imm->bloom_positives();
    stats.memtable_filter.prefix_hits += imm->prefix_hits();
    stats.memtable_filter.prefix_misses += imm->prefix_misses();
  }
  if (block_cache_) {
    stats.block_cache =
        BlockCacheStats{block_cache_->hits(), block_cache_->misses(), block_cache_->usage(), block_cache_->capacity()};
  }
  table_cache_->ForEachOpen([&](uint64_t, const TableReader& t) {
    const TableReaderStats st = t.stats();
    stats.hash_index.lookups += st.hash_lookups;
    stats.hash_index.collisions += st.hash_collisions;
    stats.data_block_reads += st.data_block_reads;
  });
  stats.table_reads = table_cache_->TotalStats();
  stats.direct_read_fallbacks = table_cache_->buffered_fallbacks();
  for (size_t t = 0; t < kNumTickers; ++t) stats.counters.values[t] = tickers_.Sum(t);
  stats.recovery = recovery_;
  return stats;
}

void DBImpl::ResetFilterStats() {
  for (auto& st : level_tickers_) st->Reset();
}

// ---------------------------------------------------------------------------------------------
// Close

Status DBImpl::Close() {
  {
    std::lock_guard<std::mutex> l(mu_);
    if (!opened_ || closed_) return ClosedError();
    shutting_down_ = true;
    abort_compaction_.store(true, std::memory_order_relaxed);
    cv_.notify_all();
  }
  if (flush_thread_.joinable()) flush_thread_.join();
  if (compaction_thread_.joinable()) compaction_thread_.join();
  Status s;
  {
    std::lock_guard<std::mutex> w(write_mu_);
    std::lock_guard<std::mutex> l(mu_);
    if (log_) s = log_->Close();
    closed_ = true;
  }
  {
    std::lock_guard<std::mutex> m(manifest_mu_);
    if (manifest_) {
      Status ms = manifest_->Close();
      if (s.ok()) s = ms;
    }
  }
  if (lock_ != nullptr) {
    lock_->Unlock();
    lock_ = nullptr;
  }
  return s;
}

}  // namespace filterlab::engine
