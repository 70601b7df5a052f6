// DBImpl: open and recovery, the write path, the read paths (Get, batched
// MultiGet, iterators), snapshots, properties and close. Flush and
// compaction live in db_compaction.cc.
#include "engine/db/db_impl.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <map>

#include <unistd.h>

#include "engine/db/db_iter.h"
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

// Keys per MultiGet batch (spec §3.1 MAX_BATCH_SIZE).
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
  Status s = CheckIsDirectoryOrMissing(path);
  if (!s.ok() || !PathExists(path)) return s;
  FileLock* lock = nullptr;
  s = FileLock::Acquire(LockFileName(path), &lock);
  if (!s.ok()) return s;
  std::vector<std::string> names;
  s = ListDir(path, &names);
  for (const auto& name : names) {
    uint64_t number = 0;
    const DbFileType type = ParseDbFileName(name, &number);
    if (s.ok() && type != DbFileType::kOther && type != DbFileType::kLock) s = RemoveFile(path + "/" + name);
  }
  lock->Unlock();
  if (s.ok()) {
    RemoveFile(LockFileName(path));
    ::rmdir(path.c_str());
  }
  return s;
}

DBImpl::DBImpl(const Options& options, const std::string& path) : options_(options), dir_(path) {
  if (options_.block_cache_bytes > 0) block_cache_ = std::make_unique<BlockCache>(options_.block_cache_bytes);
  table_cache_ = std::make_unique<TableCache>(dir_, block_cache_.get(), static_cast<size_t>(options_.max_open_files));
  for (int l = 0; l < options_.num_levels; ++l) filter_stats_.push_back(std::make_unique<LevelFilterStats>());
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
  MemTableOptions mo;
  mo.write_buffer_size = options_.write_buffer_size;
  mo.bloom_size_ratio = options_.memtable_filter_spec.empty() ? 0.0 : options_.memtable_filter_bits_ratio;
  if (!options_.memtable_filter_spec.empty()) mo.bloom_spec = options_.memtable_filter_spec;
  mo.approx_algorithm = options_.approx_algorithm;
  std::unique_ptr<MemTable> mem;
  Status s = MemTable::Create(mo, &mem);
  if (s.ok()) *out = std::move(mem);
  return s;
}

Status DBImpl::NewLogFile(uint64_t number, std::unique_ptr<log::Writer>* out) const {
  std::unique_ptr<WritableFile> file;
  Status s = NewPosixWritableFile(LogFileName(dir_, number), &file);
  if (s.ok()) *out = std::make_unique<log::Writer>(std::move(file));
  return s;
}

uint64_t DBImpl::NewFileNumber() { return next_file_number_++; }

// ---------------------------------------------------------------------------------------------
// Open and recovery

Status DBImpl::OpenImpl() {
  Status s = CheckIsDirectoryOrMissing(dir_);
  if (!s.ok()) return s;
  if (!PathExists(dir_)) {
    if (!options_.create_if_missing) {
      return Status::NotFound("DB directory " + dir_ + " does not exist (set create_if_missing to create it)");
    }
    s = CreateDir(dir_);
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
// manifest is read and every live table opened (and with paranoid_checks
// fully verified) before the first file is written.
Status DBImpl::Recover() {
  ManifestState state;
  uint64_t old_manifest = 0;
  Status s = ReadManifest(dir_, &state, &old_manifest);
  const bool is_new = s.IsNotFound();
  std::vector<std::string> names;
  Status ls = ListDir(dir_, &names);
  if (!ls.ok()) return ls;
  if (is_new) {
    for (const auto& name : names) {
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
    state.version = std::make_shared<Version>(options_.num_levels);
    state.next_file_number = 2;
  } else if (!s.ok()) {
    return s;
  } else if (options_.error_if_exists) {
    return Status::InvalidArgument("database " + dir_ + " already exists and error_if_exists is set");
  }

  // The configured number of levels must hold every file.
  auto version = std::make_shared<Version>(options_.num_levels);
  for (int l = 0; l < state.version->num_levels(); ++l) {
    if (state.version->files(l).empty()) continue;
    if (l >= options_.num_levels) {
      return Status::InvalidArgument("database " + dir_ + " has files at level " + std::to_string(l) +
                                     " but options.num_levels is " + std::to_string(options_.num_levels));
    }
    version->mutable_files(l) = state.version->files(l);
  }

  // Open every live table: size, footer, meta blocks, index and filter are verified.
  for (int l = 0; l < version->num_levels(); ++l) {
    for (const auto& f : version->files(l)) {
      std::shared_ptr<const TableReader> table;
      s = table_cache_->Get(f->number, f->file_size, &table);
      if (!s.ok()) return s;
      if (options_.paranoid_checks) {
        s = table->ForEachDataBlock([](const BlockHandle&, const Block&) { return Status::OK(); });
        if (!s.ok()) return s;
      }
    }
  }

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
  s = ReplayLogs(logs, &recovered, &last_sequence);
  if (!s.ok()) return s;

  // From here on the directory changes.
  for (const auto& name : names) {
    uint64_t number = 0;
    if (ParseDbFileName(name, &number) == DbFileType::kTemp) RemoveFile(dir_ + "/" + name);
  }
  next_file_number_ = std::max(state.next_file_number, max_number + 1);
  current_ = version;
  for (const auto& mem : recovered) {
    const uint64_t number = NewFileNumber();
    auto meta = std::make_shared<FileMetaData>();
    auto it = NewMemTableIterator(mem);
    it->SeekToFirst();
    s = WriteTable(it.get(), 0, number, meta.get());
    if (!s.ok()) return s;
    if (meta->file_size > 0) {
      version->mutable_files(0).push_back(meta);
      Log("recovery: wrote " + std::to_string(mem->num_entries()) + " logged entries to table " +
              std::to_string(number),
          false);
    }
  }
  version->SortLevels();
  s = NewMemTable(&mem_);
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
  s = WriteManifest(dir_, manifest_number_, out, !options_.disable_data_sync);
  if (!s.ok()) return s;
  current_ = version;
  live_versions_.push_back(current_);
  DeleteObsoleteFiles();
  return Status::OK();
}

Status DBImpl::ReplayLogs(const std::vector<uint64_t>& logs, std::vector<std::shared_ptr<MemTable>>* recovered,
                          SequenceNumber* last_sequence) {
  std::shared_ptr<MemTable> mem;
  for (size_t i = 0; i < logs.size(); ++i) {
    const std::string name = LogFileName(dir_, logs[i]);
    std::string contents;
    Status s = ReadFileToString(name, &contents);
    if (!s.ok()) return s;
    log::Reader reader(std::move(contents), name);
    Slice record;
    uint64_t records = 0;
    while (reader.ReadRecord(&record)) {
      WriteBatch batch;
      s = WriteBatchInternal::SetContents(&batch, record);
      if (!s.ok()) return Status::Corruption(name + ": record " + std::to_string(records) + ": " + s.message());
      if (!mem) {
        s = NewMemTable(&mem);
        if (!s.ok()) return s;
      }
      s = WriteBatchInternal::InsertInto(batch, mem.get());
      if (!s.ok()) {
        return Status::Corruption(name + ": record " + std::to_string(records) + " passed its checksum but " +
                                  s.message());
      }
      if (batch.Count() > 0) {
        *last_sequence = std::max(*last_sequence, WriteBatchInternal::Sequence(batch) + batch.Count() - 1);
      }
      ++records;
      if (mem->ApproximateMemoryUsage() >= options_.write_buffer_size) {
        recovered->push_back(std::move(mem));
        mem.reset();
      }
    }
    if (!reader.tail_problem().empty()) {
      Log("WAL recovery: " + reader.DescribeTail() + " (kept the " + std::to_string(records) +
              " complete records before it)",
          true);
      if (i + 1 < logs.size()) {
        Log("WAL recovery: ignoring " + std::to_string(logs.size() - i - 1) +
                " later log file(s) so that the recovered writes stay a prefix",
            true);
      }
      break;
    }
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

Status DBImpl::Write(const WriteOptions& options, WriteBatch* batch) {
  if (batch == nullptr) return Status::InvalidArgument("Write: batch is null");
  std::lock_guard<std::mutex> w(write_mu_);
  {
    std::unique_lock<std::mutex> l(mu_);
    if (closed_ || shutting_down_) return ClosedError();
    Status s = MakeRoomForWrite(l, false);
    if (!s.ok()) return s;
  }
  const uint32_t count = batch->Count();
  if (count == 0) return Status::OK();
  const SequenceNumber first = last_sequence_.load(std::memory_order_relaxed) + 1;
  if (first + count - 1 > kMaxSequenceNumber) {
    return Status::NotSupported("sequence numbers exhausted (2^56 - 1 writes)");
  }
  WriteBatchInternal::SetSequence(batch, first);
  Status s = log_->AddRecord(WriteBatchInternal::Contents(*batch));
  if (s.ok() && options.sync) {
    s = log_->Sync();
    counters_.wal_syncs.fetch_add(1, std::memory_order_relaxed);
  }
  if (!s.ok()) {
    // The log may now hold part of the record: refuse further writes rather than
    // let the memtable and the log disagree.
    std::lock_guard<std::mutex> l(mu_);
    if (bg_error_.ok()) bg_error_ = s;
    return s;
  }
  s = WriteBatchInternal::InsertInto(*batch, mem_.get());
  if (!s.ok()) return s;
  last_sequence_.store(first + count - 1, std::memory_order_release);
  counters_.writes.fetch_add(count, std::memory_order_relaxed);
  counters_.write_batches.fetch_add(1, std::memory_order_relaxed);
  counters_.bytes_written.fetch_add(batch->ApproximateSize(), std::memory_order_relaxed);
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
      counters_.slowdowns.fetch_add(1, std::memory_order_relaxed);
      l.lock();
      allow_delay = false;
      continue;
    }
    if (!force && mem_->ApproximateMemoryUsage() < options_.write_buffer_size) return Status::OK();
    if (mem_->num_entries() == 0) return Status::OK();  // nothing to switch
    const bool imm_full = static_cast<int>(imm_.size()) >= options_.max_write_buffer_number - 1;
    if (imm_full || l0_files() >= options_.level0_stop_writes_trigger) {
      const auto start = std::chrono::steady_clock::now();
      counters_.stalls.fetch_add(1, std::memory_order_relaxed);
      cv_.wait(l);
      counters_.stall_micros.fetch_add(static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::microseconds>(
                                                                 std::chrono::steady_clock::now() - start)
                                                                 .count()),
                                       std::memory_order_relaxed);
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
    s = log_->Close();
    if (!s.ok()) {
      bg_error_ = s;
      return s;
    }
    imm_.push_back({mem_, mem_log_number_});
    mem_ = std::move(mem);
    log_ = std::move(log);
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
  v.mem = mem_;
  for (auto it = imm_.rbegin(); it != imm_.rend(); ++it) v.imm.push_back(it->mem);
  v.version = current_;
  v.sequence = options.snapshot != nullptr ? options.snapshot->sequence()
                                           : last_sequence_.load(std::memory_order_acquire);
  return v;
}

void DBImpl::CountFilter(int level, const LookupResult& result) {
  if (result.filter == LookupResult::Filter::kNotChecked) return;
  LevelFilterStats& st = *filter_stats_[level];
  st.checked.fetch_add(1, std::memory_order_relaxed);
  if (result.filter == LookupResult::Filter::kNegative) {
    st.negative.fetch_add(1, std::memory_order_relaxed);
  } else {
    st.positive.fetch_add(1, std::memory_order_relaxed);
    if (result.found) st.true_positive.fetch_add(1, std::memory_order_relaxed);
  }
}

Status DBImpl::LookupInTable(int level, const FileMetaData& file, const Slice& internal_key,
                             LookupResult* result) {
  std::shared_ptr<const TableReader> table;
  Status s = table_cache_->Get(file.number, file.file_size, &table);
  if (!s.ok()) return s;
  counters_.table_lookups.fetch_add(1, std::memory_order_relaxed);
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

// Looks `key` up in a memtable: true if it decided the answer (*s set).
bool MemTableGet(const MemTable& mem, const LookupKey& key, std::string* value, Status* s) {
  switch (mem.Get(key, value)) {
    case MemTable::GetResult::kFound:
      *s = Status::OK();
      return true;
    case MemTable::GetResult::kDeleted:
      *s = Status::NotFound("");
      return true;
    case MemTable::GetResult::kMerge:
      *s = Status::NotSupported("merge operands are not supported");
      return true;
    case MemTable::GetResult::kNotFound:
      break;
  }
  return false;
}

}  // namespace

Status DBImpl::Get(const ReadOptions& options, const Slice& key, std::string* value) {
  if (value == nullptr) return Status::InvalidArgument("Get: value is null");
  counters_.gets.fetch_add(1, std::memory_order_relaxed);
  const ReadView v = GetReadView(options);
  const LookupKey lkey(key, v.sequence);
  Status s;
  if (MemTableGet(*v.mem, lkey, value, &s)) return s;
  for (const auto& imm : v.imm) {
    if (MemTableGet(*imm, lkey, value, &s)) return s;
  }
  const Version& version = *v.version;
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
      LookupResult r;
      s = LookupInTable(level, *files[i], lkey.internal_key(), &r);
      if (!s.ok()) return s;
      if (r.found) return ResolveTableEntry(r, value);
    }
  }
  return Status::NotFound("");
}

// Spec §3: sort the keys, then per batch of 32: memtables, then each level
// once, handing every table the run of pending keys inside its key range
// as one TableReader::MultiGet (whose filter probes the whole group with
// prefetching and whose keys share data-block reads).
void DBImpl::MultiGet(const ReadOptions& options, const std::vector<Slice>& keys,
                      std::vector<std::string>* values, std::vector<Status>* statuses) {
  const size_t n = keys.size();
  values->assign(n, std::string());
  statuses->assign(n, Status::NotFound(""));
  if (n == 0) return;
  counters_.multigets.fetch_add(1, std::memory_order_relaxed);
  counters_.multiget_keys.fetch_add(n, std::memory_order_relaxed);
  const ReadView v = GetReadView(options);
  std::vector<size_t> order(n);
  for (size_t i = 0; i < n; ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return keys[a].compare(keys[b]) < 0; });

  std::vector<LookupKey> lkeys;
  std::vector<size_t> pending, group;
  std::vector<Slice> targets;
  std::vector<LookupResult> results;
  for (size_t start = 0; start < n; start += kMultiGetBatch) {
    const size_t batch = std::min(kMultiGetBatch, n - start);
    lkeys.clear();
    pending.clear();
    // pending holds positions j in this batch (sorted order); lkeys[j] its lookup key.
    for (size_t j = 0; j < batch; ++j) lkeys.emplace_back(keys[order[start + j]], v.sequence);
    for (size_t j = 0; j < batch; ++j) {
      const size_t i = order[start + j];
      Status s;
      bool done = MemTableGet(*v.mem, lkeys[j], &(*values)[i], &s);
      for (size_t m = 0; !done && m < v.imm.size(); ++m) done = MemTableGet(*v.imm[m], lkeys[j], &(*values)[i], &s);
      if (done) {
        (*statuses)[i] = s;
      } else {
        pending.push_back(j);
      }
    }
    // Looks the keys of `group` up in `file`; decided keys leave `pending`.
    std::vector<bool> decided(batch, false);
    auto lookup_group = [&](int level, const FileMetaData& file) {
      if (group.empty()) return;
      std::shared_ptr<const TableReader> table;
      Status s = table_cache_->Get(file.number, file.file_size, &table);
      if (!s.ok()) {
        for (size_t j : group) {
          (*statuses)[order[start + j]] = s;
          decided[j] = true;
        }
        return;
      }
      targets.clear();
      for (size_t j : group) targets.push_back(lkeys[j].internal_key());
      results.assign(group.size(), LookupResult());
      counters_.table_lookups.fetch_add(group.size(), std::memory_order_relaxed);
      table->MultiGet(targets.data(), targets.size(), results.data());
      for (size_t g = 0; g < group.size(); ++g) {
        const size_t j = group[g], i = order[start + j];
        CountFilter(level, results[g]);
        if (!results[g].status.ok()) {
          (*statuses)[i] = results[g].status;
          decided[j] = true;
        } else if (results[g].found) {
          (*statuses)[i] = ResolveTableEntry(results[g], &(*values)[i]);
          decided[j] = true;
        }
      }
    };
    auto drop_decided = [&] {
      size_t kept = 0;
      for (size_t j : pending) {
        if (!decided[j]) pending[kept++] = j;
      }
      pending.resize(kept);
    };
    const Version& version = *v.version;
    for (int level = 0; level < version.num_levels() && !pending.empty(); ++level) {
      const FileList& files = version.files(level);
      if (files.empty()) continue;
      if (level == 0) {
        // Every L0 file, newest first, with the pending keys inside its range.
        for (const auto& f : files) {
          group.clear();
          for (size_t j : pending) {
            if (f->ContainsUserKey(lkeys[j].user_key())) group.push_back(j);
          }
          lookup_group(0, *f);
          drop_decided();
          if (pending.empty()) break;
        }
        continue;
      }
      // Sorted level: consecutive pending keys falling in the same file form one group.
      size_t current_file = files.size();
      group.clear();
      size_t lower = 0;  // keys are sorted, so each search starts where the last ended
      for (size_t j : pending) {
        const Slice uk = lkeys[j].user_key();
        const size_t lo = version.FindFile(level, uk, lower);
        lower = lo;
        if (lo == files.size() || !files[lo]->ContainsUserKey(uk)) continue;
        if (lo != current_file) {
          if (current_file < files.size()) lookup_group(level, *files[current_file]);
          group.clear();
          current_file = lo;
        }
        group.push_back(j);
      }
      if (current_file < files.size()) lookup_group(level, *files[current_file]);
      drop_decided();
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
      children.push_back(NewTableIterator(std::move(table)));
    } else {
      // An iterator that reports the error: a level iterator over this one file.
      children.push_back(NewLevelIterator(table_cache_.get(), FileList{f}));
    }
  }
  for (int level = 1; level < v.version->num_levels(); ++level) {
    if (!v.version->files(level).empty()) {
      children.push_back(NewLevelIterator(table_cache_.get(), v.version->files(level)));
    }
  }
  return NewDBIterator(NewMergingIterator(std::move(children)), v.sequence, v.version);
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

void DBImpl::GetApproximateMemTableStats(const Slice& start, const Slice& limit, uint64_t* count,
                                         uint64_t* bytes) {
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
// Properties

namespace {

bool ParseLevelSuffix(const std::string& name, const std::string& prefix, int num_levels, int* level) {
  if (name.rfind(prefix, 0) != 0 || name.size() == prefix.size() || name.size() > prefix.size() + 3) return false;
  int v = 0;
  for (size_t i = prefix.size(); i < name.size(); ++i) {
    if (name[i] < '0' || name[i] > '9') return false;
    v = v * 10 + (name[i] - '0');
  }
  if (v >= num_levels) return false;
  *level = v;
  return true;
}

uint64_t Load(const std::atomic<uint64_t>& c) { return c.load(std::memory_order_relaxed); }

}  // namespace

bool DBImpl::GetProperty(const std::string& name, std::string* value) {
  const std::string prefix = "filterlab.";
  if (name.rfind(prefix, 0) != 0) return false;
  const std::string what = name.substr(prefix.size());
  std::shared_ptr<const Version> version;
  {
    std::lock_guard<std::mutex> l(mu_);
    version = current_;
  }
  if (!version) return false;
  const int num_levels = version->num_levels();
  int level = 0;
  auto filter_line = [&](int l) {
    const LevelFilterStats& st = *filter_stats_[l];
    const uint64_t checked = Load(st.checked), positive = Load(st.positive), tp = Load(st.true_positive);
    char fp[64];
    const uint64_t absent = checked - tp;
    if (absent > 0) {
      std::snprintf(fp, sizeof(fp), "%.6f", static_cast<double>(positive - tp) / static_cast<double>(absent));
    } else {
      std::snprintf(fp, sizeof(fp), "n/a");
    }
    std::string line = "L";
    line += std::to_string(l);
    line += ": checked=" + std::to_string(checked);
    line += " useful=" + std::to_string(Load(st.negative));
    line += " positive=" + std::to_string(positive);
    line += " true_positive=" + std::to_string(tp);
    line += " fp_rate=";
    line += fp;
    const std::string spec = options_.FilterSpecForLevel(l);
    line += " filter=";
    line += spec.empty() ? std::string("none") : spec;
    return line;
  };
  if (ParseLevelSuffix(what, "num-files-at-level", num_levels, &level)) {
    *value = std::to_string(version->files(level).size());
    return true;
  }
  if (ParseLevelSuffix(what, "bytes-at-level", num_levels, &level)) {
    *value = std::to_string(version->LevelBytes(level));
    return true;
  }
  if (ParseLevelSuffix(what, "filter-stats-level", num_levels, &level)) {
    const LevelFilterStats& st = *filter_stats_[level];
    *value = std::to_string(Load(st.checked)) + " " + std::to_string(Load(st.negative)) + " " +
             std::to_string(Load(st.positive)) + " " + std::to_string(Load(st.true_positive));
    return true;
  }
  std::string levels_files, levels_bytes, filters;
  uint64_t total_bytes = 0;
  for (int l = 0; l < num_levels; ++l) {
    levels_files += (l ? " " : "") + std::to_string(version->files(l).size());
    levels_bytes += (l ? " " : "") + std::to_string(version->LevelBytes(l));
    total_bytes += version->LevelBytes(l);
    filters += filter_line(l) + "\n";
  }
  const std::string summary = "files[" + levels_files + "] bytes[" + levels_bytes + "]";
  std::string mem_filter;
  {
    const ReadView v = GetReadView(ReadOptions());
    uint64_t neg = v.mem->bloom_negatives(), pos = v.mem->bloom_positives();
    for (const auto& imm : v.imm) {
      neg += imm->bloom_negatives();
      pos += imm->bloom_positives();
    }
    mem_filter = "negatives=" + std::to_string(neg) + " positives=" + std::to_string(pos) +
                 " (live memtables only)";
  }
  const std::string cache =
      block_cache_ ? "hits=" + std::to_string(block_cache_->hits()) + " misses=" +
                         std::to_string(block_cache_->misses()) + " usage=" + std::to_string(block_cache_->usage()) +
                         " capacity=" + std::to_string(block_cache_->capacity())
                   : std::string("none");
  uint64_t hash_lookups = 0, hash_collisions = 0, block_reads = 0;
  table_cache_->ForEachOpen([&](uint64_t, const TableReader& t) {
    const TableReaderStats st = t.stats();
    hash_lookups += st.hash_lookups;
    hash_collisions += st.hash_collisions;
    block_reads += st.data_block_reads;
  });
  const std::string hash = "lookups=" + std::to_string(hash_lookups) + " collisions=" +
                           std::to_string(hash_collisions) + " (tables currently open)";
  if (what == "level-summary") {
    *value = summary;
  } else if (what == "filter-stats") {
    *value = filters;
  } else if (what == "memtable-filter-stats") {
    *value = mem_filter;
  } else if (what == "block-cache-stats") {
    *value = cache;
  } else if (what == "hash-index-stats") {
    *value = hash;
  } else if (what == "total-sst-bytes") {
    *value = std::to_string(total_bytes);
  } else if (what == "stats") {
    const Counters& c = counters_;
    *value = "levels: " + summary + "\n" + filters + "memtable filter: " + mem_filter + "\nblock cache: " + cache +
             "\nhash index: " + hash + "\nwrites=" + std::to_string(Load(c.writes)) + " batches=" +
             std::to_string(Load(c.write_batches)) + " bytes=" + std::to_string(Load(c.bytes_written)) +
             " wal_syncs=" + std::to_string(Load(c.wal_syncs)) + " stalls=" + std::to_string(Load(c.stalls)) +
             " stall_micros=" + std::to_string(Load(c.stall_micros)) + " slowdowns=" +
             std::to_string(Load(c.slowdowns)) + "\nflushes=" + std::to_string(Load(c.flushes)) + " flush_bytes=" +
             std::to_string(Load(c.flush_bytes)) + " compactions=" + std::to_string(Load(c.compactions)) +
             " trivial_moves=" + std::to_string(Load(c.trivial_moves)) + " compaction_bytes_read=" +
             std::to_string(Load(c.compaction_bytes_read)) + " compaction_bytes_written=" +
             std::to_string(Load(c.compaction_bytes_written)) + " entries_dropped=" +
             std::to_string(Load(c.entries_dropped)) + "\ngets=" + std::to_string(Load(c.gets)) + " multigets=" +
             std::to_string(Load(c.multigets)) + " multiget_keys=" + std::to_string(Load(c.multiget_keys)) +
             " table_lookups=" + std::to_string(Load(c.table_lookups)) + " data_block_reads(open tables)=" +
             std::to_string(block_reads) + "\n";
  } else {
    return false;
  }
  return true;
}

void DBImpl::ResetFilterStats() {
  for (auto& st : filter_stats_) {
    st->checked.store(0, std::memory_order_relaxed);
    st->negative.store(0, std::memory_order_relaxed);
    st->positive.store(0, std::memory_order_relaxed);
    st->true_positive.store(0, std::memory_order_relaxed);
  }
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
  if (lock_ != nullptr) {
    lock_->Unlock();
    lock_ = nullptr;
  }
  return s;
}

}  // namespace filterlab::engine
