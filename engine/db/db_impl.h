// DBImpl: the implementation of DB (db.h). Threads and locks:
//
//   queue_mu_       the queue of waiting writers (group commit, below).
//   write_mu_       held by the writer at the head of the queue (the leader)
//                   while it appends its group to the WAL, syncs once and
//                   inserts into the memtable, and by the switch to a new
//                   memtable/WAL, so the memtable has one writer as it requires.
//   compaction_mu_  one compaction at a time (background thread or
//                   CompactRange).
//   manifest_mu_    one version change at a time (flush or compaction
//                   install): base version → new version → manifest → install.
//   mu_             the shared state below; held only briefly. Get and
//                   MultiGet do not take it: they read the published
//                   SuperVersion inside a ReadGate guard (below); iterators
//                   take references under it.
// Lock order: write_mu_ → mu_; compaction_mu_ → manifest_mu_ → mu_;
// write_mu_ → queue_mu_ (queue_mu_ is innermost: nothing is taken under it).
//
// Group commit: a writer enqueues itself and waits until it is at the head
// or a leader has done its write. The leader takes the queued writers behind
// it (up to kMaxGroupBytes), appends each batch as its own WAL record, calls
// fdatasync once if any of them asked for sync, inserts the batches, and
// wakes them with the one status. Writers arriving meanwhile queue up for
// the next group, so N synced writers share one fdatasync per round.
//
// Durability errors are sticky: a failed WAL append or sync, manifest edit,
// table write or directory sync sets bg_error_ and the DB stays read-only
// (reads work, writes return the error saying why) until reopened.
//
// Two background threads: the flush thread writes the oldest immutable
// memtable to a level-0 table; the compaction thread runs leveled
// compaction while a level is over its target (L0: file count ≥ trigger;
// L1+: bytes ≥ max_bytes_for_level_base × multiplier^(L−1)).
//
// Reads without shared writes: every change of mem_, imm_ or current_
// publishes a new SuperVersion (the three together) through an atomic pointer
// (InstallSuperVersion, under mu_). Get and MultiGet enter read_gate_ (a lock
// on their own thread slot, engine/util/read_gate.h), load the pointer and
// search without taking a reference; the installer waits out the guards open
// at the swap (ReadGate::Synchronize) before the old SuperVersion can go, so
// nothing a reader uses is freed under it. Guards never take mu_. The read
// path's statistics are per-thread-slot counters (StripedCounters), so two
// readers write no cache line in common.
//
// Visibility: a writer inserts its batch into the memtable and only then
// publishes the batch's last sequence number (release store); readers read
// it (acquire) as their snapshot and ignore newer entries, so a batch is seen
// whole or not at all.
#pragma once

#include <atomic>
#include <condition_variable>
#include <deque>
#include <list>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "engine/db/db.h"
#include "engine/db/db_files.h"
#include "engine/db/internal_iterator.h"
#include "engine/db/log_writer.h"
#include "engine/db/manifest.h"
#include "engine/db/table_cache.h"
#include "engine/db/version.h"
#include "engine/memtable/memtable.h"
#include "engine/table/block_cache.h"
#include "engine/util/read_gate.h"
#include "engine/util/thread_slot.h"

namespace filterlab::engine {

class DBImpl final : public DB {
 public:
  DBImpl(const Options& options, const std::string& path);
  ~DBImpl() override;

  // Everything Open does after construction: lock, recover, start threads.
  Status OpenImpl();

  Status Put(const WriteOptions& options, const Slice& key, const Slice& value) override;
  Status Delete(const WriteOptions& options, const Slice& key) override;
  Status Write(const WriteOptions& options, WriteBatch* batch) override;
  Status Get(const ReadOptions& options, const Slice& key, std::string* value) override;
  void MultiGet(const ReadOptions& options, const std::vector<Slice>& keys, std::vector<std::string>* values,
                std::vector<Status>* statuses) override;
  std::unique_ptr<Iterator> NewIterator(const ReadOptions& options) override;
  const Snapshot* GetSnapshot() override;
  void ReleaseSnapshot(const Snapshot* snapshot) override;
  Status Flush(bool wait) override;
  Status CompactRange(const Slice* begin, const Slice* end) override;
  Status WaitForCompaction() override;
  Status RewriteFilters(uint64_t* rewritten) override;
  void GetApproximateMemTableStats(const Slice& start, const Slice& limit, uint64_t* count, uint64_t* bytes) override;
  DbStats GetStats() override;
  bool GetProperty(const std::string& name, std::string* value) override;
  void ResetFilterStats() override;
  Status Close() override;

 private:
  struct ImmMemTable {
    std::shared_ptr<MemTable> mem;
    uint64_t log_number;  // the WAL holding its writes
  };
  // What a read needs, captured under mu_ in one step.
  struct ReadView {
    std::shared_ptr<const MemTable> mem;
    std::vector<std::shared_ptr<const MemTable>> imm;  // newest first
    std::shared_ptr<const Version> version;
    SequenceNumber sequence = 0;
  };
  struct Compaction {
    int level = 0;  // inputs[0] from here, inputs[1] and outputs at level + 1
    FileList inputs[2];
    bool trivial_move = false;  // one file, nothing to merge with: just relink it one level down
    // Rewrite inputs[0] (one table, inputs[1] empty) at its own level (RewriteFilters).
    bool in_place = false;
    // Set: the filter of the outputs, decided by whoever built the job (RewriteFilters).
    std::shared_ptr<const FilterPolicy> output_filter;
    std::shared_ptr<const Version> input_version;  // the version the inputs were picked from
    int output_level() const { return in_place ? level : level + 1; }
  };
  // The memtables and version a read searches, replaced as a whole.
  struct SuperVersion {
    std::shared_ptr<const MemTable> mem;
    std::vector<std::shared_ptr<const MemTable>> imm;  // newest first
    std::shared_ptr<const Version> version;
  };
  // The tickers of db_tickers.h, per thread slot (thread_slot.h): DB-wide,
  // and one set per level.
  using TickerCounters = StripedCounters<kNumTickers>;
  using LevelTickerCounters = StripedCounters<kNumLevelTickers>;
  void RecordTick(Ticker t, uint64_t n = 1) { tickers_.Add(static_cast<size_t>(t), n); }
  void RecordLevelTick(int level, LevelTicker t, uint64_t n = 1) {
    level_tickers_[static_cast<size_t>(level)]->Add(static_cast<size_t>(t), n);
  }
  // Counts iterators' per-table seeks in the level tickers (internal_iterator.h).
  class LevelSeekRecorder final : public SeekRecorder {
   public:
    explicit LevelSeekRecorder(DBImpl* db) : db_(db) {}
    void RecordTableSeek(int level, const TableReader::SeekFilterAnswer& answer, bool useful) override;

   private:
    DBImpl* const db_;
  };

  void Log(const std::string& message, bool warning);
  // A failed background flush or compaction (`job`): keeps the first error in
  // bg_error_, which stops writes, and logs it. Called with mu_ held via `l`.
  void RecordBackgroundError(const Status& s, const char* job, std::unique_lock<std::mutex>* l);

  // Open helpers, the phases of Recover in order.
  Status Recover();
  // Reads the manifest (or, for a new database, checks the directory holds
  // none of a database's files); *names lists the directory.
  Status ReadDbState(ManifestState* state, std::vector<std::string>* names, ManifestReport* report);
  // The manifest's files in a version of options_.num_levels levels, every
  // table opened (and verified with paranoid_checks) and its filter noted.
  Status OpenLiveTables(const Version& manifest_version, std::shared_ptr<Version>* version);
  // Replays the WALs under options_.wal_recovery_mode; *damaged lists the
  // logs to move to lost/ once Open succeeds; recovery_ says what was dropped.
  Status ReplayLogs(const std::vector<uint64_t>& logs, std::vector<std::shared_ptr<MemTable>>* recovered,
                    SequenceNumber* last_sequence, std::vector<uint64_t>* damaged);
  // Keeps `name` (a bare name in dir_) in lost/: a copy (logs, which the
  // old manifest may still need) or the file itself (tables no manifest
  // names); synced.
  Status KeepInLost(const std::string& name, bool copy);
  // Writes the memtables rebuilt from the WALs to level-0 tables of `version`.
  Status WriteRecoveredTables(const std::vector<std::shared_ptr<MemTable>>& recovered, Version* version);
  // Starts the first memtable and WAL and writes a manifest naming `version`.
  Status StartFromRecoveredState(const std::shared_ptr<Version>& version, SequenceNumber last_sequence);
  Status NewMemTable(std::shared_ptr<MemTable>* out) const;
  Status NewLogFile(uint64_t number, std::unique_ptr<log::Writer>* out) const;
  // Requires mu_: a durability error makes the DB read-only (first error kept).
  void SetStickyError(const Status& s);

  // Write path. MakeRoomForWrite requires write_mu_ and (through l) mu_.
  struct Writer;
  // The leader's work for the group starting at `leader`; *last_writer is
  // the last queued writer it took.
  Status WriteGroup(Writer* leader, Writer** last_writer);
  Status MakeRoomForWrite(std::unique_lock<std::mutex>& l, bool force);

  ReadView GetReadView(const ReadOptions& options);
  // Requires mu_: publishes mem_, imm_ and current_ as the SuperVersion
  // reads use, waits until no reader can still use the previous one, and
  // drops it.
  void InstallSuperVersion();
  // Inside a read_gate_ guard: the published SuperVersion (valid until the
  // guard closes) and the snapshot sequence of `options`.
  const SuperVersion& CurrentSuperVersion() const { return *super_ptr_.load(std::memory_order_acquire); }
  SequenceNumber ReadSequence(const ReadOptions& options) const;
  // Get inside a guard, without counting the call (MultiGet of one key uses it too).
  Status GetImpl(const SuperVersion& sv, SequenceNumber sequence, const Slice& key, std::string* value);
  // MultiGet's phases for one sorted batch (MultiGetBatch in db_impl.cc):
  // memtables (each taking the pending keys as one MemTable::MultiGet),
  // then level 0 file by file, then each sorted level, each table handed
  // the group of pending keys inside its range at once.
  struct MultiGetBatch;
  void MultiGetInGuard(const SuperVersion& sv, SequenceNumber sequence, const std::vector<Slice>& keys,
                       std::vector<std::string>* values, std::vector<Status>* statuses);
  void MultiGetFromMemTables(const SuperVersion& sv, MultiGetBatch* batch);
  void MultiGetFromLevel0(const FileList& files, MultiGetBatch* batch);
  void MultiGetFromSortedLevel(const Version& version, int level, MultiGetBatch* batch);
  // Looks the batch's current group up in `file`; decided keys are marked.
  void MultiGetGroup(int level, const FileMetaData& file, MultiGetBatch* batch);
  // One table lookup with its filter statistics counted at `level`.
  Status LookupInTable(int level, const FileMetaData& file, const Slice& internal_key, LookupResult* result);
  void CountFilter(int level, const LookupResult& result);

  // Background work.
  void FlushThread();
  void CompactionThread();
  Status FlushOldestImm();
  // Writes the entries of `it` (from its first) to table `number` built for
  // `level`; *meta describes the result (file_size 0: no entries).
  Status WriteTable(InternalIterator* it, int level, uint64_t number, FileMetaData* meta);
  // Installs current + (files removed, files added at `add_level`) as the new
  // current version and persists it (requires manifest_mu_, not mu_).
  // With flushed_imm the oldest immutable memtable leaves imm_ in the same
  // step and the manifest's log number moves past its WAL.
  Status InstallVersion(const std::vector<const FileList*>& removed, int add_level, const FileList& added,
                        bool flushed_imm);
  bool NeedsCompaction(const Version& v) const;
  // Requires mu_. Null when no level is over its target.
  std::unique_ptr<Compaction> PickCompaction();
  // Requires mu_. The compaction of the files of `level` overlapping [begin, end].
  std::unique_ptr<Compaction> ManualCompaction(int level, const Slice* begin, const Slice* end);
  void SetupOtherInputs(Compaction* c);
  // RunCompaction's phases: a trivial move only relinks; otherwise merge the
  // inputs, write the surviving entries to new files, install and count.
  // It takes the compaction and drops it (with the input version it holds)
  // before deleting the obsolete files: while that version lives its input
  // tables count as live, and they would stay on disk, with their readers'
  // pinned index and filter blocks in the block cache, until the next job.
  struct CompactionOutput;
  Status RunCompaction(std::unique_ptr<Compaction> c);
  Status RewriteFiltersPass(uint64_t* rewritten);  // one pass of RewriteFilters; *rewritten: tables
  Status RunTrivialMove(const Compaction& c);
  std::unique_ptr<InternalIterator> NewCompactionInput(const Compaction& c, uint64_t* bytes_read);
  Status WriteCompactionOutputs(const Compaction& c, InternalIterator* input, CompactionOutput* out);
  Status InstallCompaction(const Compaction& c, const CompactionOutput& out);
  void RecordCompaction(const Compaction& c, uint64_t bytes_read, const CompactionOutput& out);
  SequenceNumber SmallestSnapshot();
  uint64_t MaxBytesForLevel(int level) const;
  void DeleteObsoleteFiles();
  Status WaitForFlushes();
  uint64_t NewFileNumber();  // under mu_

  const Options options_;
  Env* const env_;
  const std::string dir_;
  FileLock* lock_ = nullptr;
  std::unique_ptr<BlockCache> block_cache_;
  std::unique_ptr<TableCache> table_cache_;

  std::mutex queue_mu_;
  std::deque<Writer*> writers_;  // guarded by queue_mu_; head = leader
  std::mutex write_mu_;
  std::mutex compaction_mu_;
  std::mutex manifest_mu_;
  std::mutex delete_mu_;  // one DeleteObsoleteFiles pass at a time
  std::mutex mu_;
  std::condition_variable cv_;  // any state change background work or waiters care about

  // Guarded by mu_ (writers also read mem_ / log_ under write_mu_ alone).
  std::shared_ptr<MemTable> mem_;
  uint64_t mem_log_number_ = 0;
  std::unique_ptr<log::Writer> log_;
  bool log_dir_synced_ = false;               // the WAL's directory entry is durable (synced before its first sync)
  std::unique_ptr<ManifestWriter> manifest_;  // guarded by manifest_mu_
  std::deque<ImmMemTable> imm_;               // oldest first
  std::shared_ptr<const Version> current_;
  std::list<std::weak_ptr<const Version>> live_versions_;
  std::shared_ptr<const SuperVersion> super_;            // of mem_, imm_, current_ (InstallSuperVersion)
  std::atomic<const SuperVersion*> super_ptr_{nullptr};  // super_.get(), for readers
  ReadGate read_gate_;
  uint64_t next_file_number_ = 2;
  uint64_t log_number_ = 0;  // oldest WAL still needed (persisted in the manifest)
  uint64_t manifest_number_ = 0;
  std::multiset<SequenceNumber> snapshots_;
  std::set<uint64_t> pending_outputs_;
  std::vector<std::string> compact_pointer_;  // per level: largest user key of the last compaction
  Status bg_error_;
  bool flush_running_ = false;
  bool compaction_running_ = false;
  bool shutting_down_ = false;
  bool opened_ = false;
  bool closed_ = false;
  std::atomic<bool> abort_compaction_{false};
  std::atomic<SequenceNumber> last_sequence_{0};

  std::thread flush_thread_;
  std::thread compaction_thread_;

  std::vector<std::unique_ptr<LevelTickerCounters>> level_tickers_;  // one per level
  TickerCounters tickers_;
  LevelSeekRecorder seek_recorder_{this};
  RecoveryStats recovery_;  // written by Open only
};

}  // namespace filterlab::engine
