// The benchmarks of lsmbench, each a loop over Engine calls shaped as in
// RocksDB's db_bench (see engine/README.md for the exact definitions):
//   fills      fillseq, fillrandom, filluniquerandom, overwrite: --num writes in
//              batches of --batch_size (whole batches only, as db_bench: W=30000
//              writes 990000 of 10^6)
//   reads      readrandom, readmissing, readseq, seekrandom (+ --seek_nexts),
//              multireadrandom (--batch_size keys per MultiGet, once per
//              --multiread_stride x --multiread_batched pair),
//              readwhilewriting (readrandom beside a writer thread)
//   estimates  approximatememtablestats: random ranges of true width --batch_size
//   upkeep     flush, compact, waitforcompaction, stats
// Timing covers the loop only (wall time, and the CPU time of the benchmark
// threads, which on a shared machine shows what the loop cost when it ran);
// with --histogram each call is also timed on its own (per call: a MultiGet
// of a batch or a write batch is one sample).
//
// Threads (--threads N, db_bench's): every benchmark but the upkeep ones runs
// its loop on N threads that start together, each with its own key stream
// (thread 0's is the single-thread stream; the others derive from it). A
// read benchmark's threads each do the full --reads; a fill's threads share
// its --num writes (thread i writes batches [iB/N, (i+1)B/N) of the B
// batches), so the database holds the same keys whatever N. The result
// adds the threads' operations, bytes and CPU time; its wall time is the
// slowest thread's; per-thread rates go to thread_ops_per_sec.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include "engine/bench/bench_config.h"
#include "engine/bench/bench_keys.h"
#include "engine/bench/distribution.h"
#include "engine/bench/engine.h"

namespace filterlab::lsmbench {

struct BenchResult {
  std::string name;
  uint64_t ops = 0;  // timed operations: entries written, keys read, seeks, estimates
  double seconds = 0;
  double cpu_seconds = 0;  // CPU time of the benchmark thread over the same loop
  uint64_t bytes = 0;      // key + value bytes moved (MB/s in the text line; 0 = not shown)
  bool reports_found = false;
  uint64_t found = 0;
  Distribution latency;  // micros per call, with --histogram
  // Appended to the db_bench line to tell passes of one benchmark apart
  // (multireadrandom's "[stride=16 batched=false]" when it runs several).
  std::string variant;
  // Printed after the db_bench line (e.g. approximatememtablestats' distribution).
  std::string extra_text;
  // Benchmark-specific JSON fields.
  JsonRecord fields = JsonRecord::object();
};

// Fill benchmarks that start from an empty database in db_bench (the driver
// reopens a fresh one before them).
bool NeedsFreshDb(const std::string& benchmark);
bool IsFill(const std::string& benchmark);

class BenchRunner {
 public:
  explicit BenchRunner(const BenchConfig& config);
  // A runner for `config` (an allocation pass's) that goes on from where
  // `before` is: its next benchmark draws the key streams `before`'s next
  // would, so every pass started from one runner reads the same keys.
  BenchRunner(const BenchConfig& config, const BenchRunner& before)
      : config_(config),
        streams_used_(before.streams_used_),
        last_fill_entries_(before.last_fill_entries_),
        key_values_(before.key_values_),
        key_format_(before.key_format_) {}

  // Runs benchmark `name`; multireadrandom runs its first variant only (the
  // driver calls RunMultiRead once per MultiReadVariants entry instead).
  Status Run(const std::string& name, Engine* engine, BenchResult* result);
  // One multireadrandom pass; its record's stride and multiread_batched
  // fields are the variant's.
  Status RunMultiRead(Engine* engine, const MultiReadVariant& variant, BenchResult* result);

 private:
  enum class Order { kSequential, kRandom, kUniqueRandom };
  Status Fill(Engine* engine, Order order, BenchResult* r);
  Status ReadRandom(Engine* engine, bool missing, BenchResult* r);
  Status ReadSeq(Engine* engine, BenchResult* r);
  Status SeekRandom(Engine* engine, BenchResult* r);
  Status SeekEmpty(Engine* engine, BenchResult* r);
  Status ScanRange(Engine* engine, BenchResult* r);
  // The iterator options of the config (bound: the Slice seeks update, or null).
  IteratorOptions IterOptions(const Slice* bound) const;
  // Key value of key number k, and the number of stored values <= v.
  uint64_t ValueOf(uint64_t k) const { return key_values_ ? (*key_values_)[k] : k; }
  uint64_t ValuesUpTo(uint64_t v) const;
  // The exclusive upper bound admitting exactly the keys with value <= v:
  // the key of v followed by a 0 byte.
  void BoundAfterValue(uint64_t v, std::string* out) const;
  Status ReadWhileWriting(Engine* engine, BenchResult* r);
  Status ApproximateMemTableStats(Engine* engine, BenchResult* r);
  Status TimeOnce(Engine* engine, const std::string& name, BenchResult* r);
  Status Stats(Engine* engine, BenchResult* r);

  // One benchmark thread: its index (0..threads-1) and ready(), which it
  // calls right before its timed loop and which returns once every thread
  // of the benchmark has called it.
  struct Worker {
    int index = 0;
    std::function<void()> ready;
  };
  // Runs body on --threads threads (the calling thread alone for 1), each
  // into a BenchResult of its own, and merges those into *r; the first
  // failing thread's error is returned.
  Status RunThreads(const std::function<Status(const Worker&, BenchResult*)>& body, BenchResult* r);

  // Seed of the generator for the i-th use of `purpose` in this run.
  uint64_t StreamSeed(uint64_t purpose);

  const BenchConfig& config_;
  uint64_t streams_used_ = 0;
  // Entries the last fill wrote (approximatememtablestats checks the
  // memtable holds them).
  uint64_t last_fill_entries_ = 0;
  // Loads the --key_source values on first use (null: the key number is the value).
  Status PrepareKeys();
  // --key_source values (null: the key number is the value) and the key layout.
  std::shared_ptr<const std::vector<uint64_t>> key_values_;
  KeyFormat key_format_;
};

}  // namespace filterlab::lsmbench
