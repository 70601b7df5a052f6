#include "engine/bench/benchmarks.h"

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <numeric>
#include <thread>
#include <utility>
#include <vector>

#include "engine/bench/bench_keys.h"
#include "hashing/remix.h"
#include "common/timer.h"

namespace filterlab::lsmbench {
namespace {



// Wall and benchmark-thread CPU time of one benchmark's loop. On a shared
// machine the CPU figure shows what the loop cost when it ran.
class LoopTimer {
 public:
  LoopTimer() : wall_start_(Clock::now()), cpu_start_(ThreadCpuSeconds()) {}
  void Stop(BenchResult* r) const {
    r->seconds = SecondsSince(wall_start_);
    r->cpu_seconds = ThreadCpuSeconds() - cpu_start_;
  }

 private:
  Clock::time_point wall_start_;
  double cpu_start_;
};

// Times the loop as a whole and, with --histogram, each call.
class CallTimer {
 public:
  CallTimer(bool per_call, Distribution* latency) : per_call_(per_call), latency_(latency) {}
  void Begin() {
    if (per_call_) call_start_ = Clock::now();
  }
  void End() {
    if (per_call_) latency_->Add(SecondsSince(call_start_) * 1e6);
  }

 private:
  bool per_call_;
  Distribution* latency_;
  Clock::time_point call_start_;
};

// The engine's error with the benchmark named, keeping its kind.
Status Check(const Status& s, const std::string& benchmark) {
  if (s.ok()) return s;
  const std::string msg = "lsmbench: " + benchmark + ": " + s.message();
  switch (s.code()) {
    case Status::Code::kInvalidArgument:
      return Status::InvalidArgument(msg);
    case Status::Code::kNotSupported:
      return Status::NotSupported(msg);
    case Status::Code::kCorruption:
      return Status::Corruption(msg);
    case Status::Code::kNotFound:
      return Status::NotFound(msg);
    case Status::Code::kBusy:
      return Status::Busy(msg);
    default:
      return Status::IOError(msg);
  }
}

}  // namespace

bool IsFill(const std::string& b) {
  return b == "fillseq" || b == "fillrandom" || b == "filluniquerandom" || b == "overwrite";
}

bool NeedsFreshDb(const std::string& b) { return b == "fillseq" || b == "fillrandom" || b == "filluniquerandom"; }

uint64_t BenchRunner::StreamSeed(uint64_t purpose) {
  // Every benchmark in a run draws a new stream, so "readrandom,readrandom"
  // reads different keys, yet the whole run is reproducible from --seed.
  return Mix64(config_.seed * kGoldenRatio64 + Mix64(purpose) + ++streams_used_);
}

Status BenchRunner::Run(const std::string& name, Engine* engine, BenchResult* r) {
  r->name = name;
  if (name == "fillseq") return Fill(engine, Order::kSequential, r);
  if (name == "fillrandom" || name == "overwrite") return Fill(engine, Order::kRandom, r);
  if (name == "filluniquerandom") return Fill(engine, Order::kUniqueRandom, r);
  if (name == "readrandom") return ReadRandom(engine, false, r);
  if (name == "readmissing") return ReadRandom(engine, true, r);
  if (name == "readseq") return ReadSeq(engine, r);
  if (name == "seekrandom") return SeekRandom(engine, r);
  if (name == "multireadrandom") return RunMultiRead(engine, MultiReadVariants(config_).front(), r);
  if (name == "readwhilewriting") return ReadWhileWriting(engine, r);
  if (name == "approximatememtablestats") return ApproximateMemTableStats(engine, r);
  if (name == "flush" || name == "compact" || name == "waitforcompaction") return TimeOnce(engine, name, r);
  if (name == "stats") return Stats(engine, r);
  return Status::InvalidArgument("lsmbench: unknown benchmark '" + name + "'");
}

Status BenchRunner::Fill(Engine* engine, Order order, BenchResult* r) {
  const uint64_t num = static_cast<uint64_t>(config_.num);
  const uint64_t batch = static_cast<uint64_t>(config_.batch_size);
  // db_bench writes whole batches only.
  const uint64_t entries = num / batch * batch;
  KeyRandom rng(StreamSeed(1));
  ValueSource values(StreamSeed(2), static_cast<size_t>(config_.value_size));
  std::vector<uint64_t> permutation;
  if (order == Order::kUniqueRandom) {
    permutation.resize(num);
    std::iota(permutation.begin(), permutation.end(), uint64_t{0});
    for (uint64_t i = num - 1; i > 0; --i) std::swap(permutation[i], permutation[rng.Uniform(i + 1)]);
  }
  const size_t key_size = static_cast<size_t>(config_.key_size);
  std::string key_storage(static_cast<size_t>(batch) * key_size, '\0');
  std::vector<std::pair<Slice, Slice>> puts(static_cast<size_t>(batch));
  CallTimer timer(config_.histogram, &r->latency);

  const LoopTimer loop;
  for (uint64_t done = 0; done < entries; done += batch) {
    for (uint64_t j = 0; j < batch; ++j) {
      const uint64_t i = done + j;
      const uint64_t k = order == Order::kSequential ? i
                         : order == Order::kRandom   ? rng.Uniform(num)
                                                     : permutation[i];
      char* key = key_storage.data() + j * key_size;
      FormatKey(k, key_size, key);
      puts[j] = {Slice(key, key_size), values.Next()};
    }
    timer.Begin();
    Status s = batch == 1 ? engine->Put(puts[0].first, puts[0].second) : engine->WriteBatch(puts);
    timer.End();
    if (!s.ok()) return Check(s, r->name);
  }
  loop.Stop(r);
  r->ops = entries;
  r->bytes = entries * static_cast<uint64_t>(config_.key_size + config_.value_size);
  r->fields["entries_written"] = entries;
  last_fill_entries_ = entries;
  return Status::OK();
}

Status BenchRunner::ReadRandom(Engine* engine, bool missing, BenchResult* r) {
  const uint64_t num = static_cast<uint64_t>(config_.num);
  const uint64_t reads = static_cast<uint64_t>(config_.reads);
  KeyRandom rng(StreamSeed(3));
  // db_bench's readmissing: one more '0' than stored keys have.
  KeyBuffer keys(static_cast<size_t>(config_.key_size) + (missing ? 1 : 0));
  std::string value;
  uint64_t found = 0;
  CallTimer timer(config_.histogram, &r->latency);

  const LoopTimer loop;
  for (uint64_t i = 0; i < reads; ++i) {
    const Slice key = keys.Make(rng.Uniform(num));
    bool hit = false;
    timer.Begin();
    Status s = engine->Get(key, &value, &hit);
    timer.End();
    if (!s.ok()) return Check(s, r->name);
    found += hit ? 1 : 0;
  }
  loop.Stop(r);
  r->ops = reads;
  r->reports_found = true;
  r->found = found;
  return Status::OK();
}

Status BenchRunner::ReadSeq(Engine* engine, BenchResult* r) {
  const uint64_t reads = static_cast<uint64_t>(config_.reads);
  uint64_t n = 0, bytes = 0;
  const LoopTimer loop;
  std::unique_ptr<EngineIterator> it = engine->NewIterator();
  for (it->SeekToFirst(); n < reads && it->Valid(); it->Next()) {
    bytes += it->key().size() + it->value().size();
    ++n;
  }
  loop.Stop(r);
  Status s = it->status();
  if (!s.ok()) return Check(s, r->name);
  r->ops = n;
  r->bytes = bytes;
  r->reports_found = true;
  r->found = n;
  return Status::OK();
}

Status BenchRunner::SeekRandom(Engine* engine, BenchResult* r) {
  const uint64_t num = static_cast<uint64_t>(config_.num);
  const uint64_t reads = static_cast<uint64_t>(config_.reads);
  KeyRandom rng(StreamSeed(4));
  KeyBuffer keys(static_cast<size_t>(config_.key_size));
  uint64_t found = 0, nexts = 0;
  CallTimer timer(config_.histogram, &r->latency);
  // One iterator for the whole loop, as db_bench does without --max_scan_distance.
  std::unique_ptr<EngineIterator> it = engine->NewIterator();

  const LoopTimer loop;
  for (uint64_t i = 0; i < reads; ++i) {
    const Slice key = keys.Make(rng.Uniform(num));
    timer.Begin();
    it->Seek(key);
    if (it->Valid() && it->key() == key) ++found;
    for (int64_t j = 0; j < config_.seek_nexts && it->Valid(); ++j) {
      it->Next();
      ++nexts;
    }
    timer.End();
  }
  loop.Stop(r);
  Status s = it->status();
  if (!s.ok()) return Check(s, r->name);
  r->ops = reads;
  r->reports_found = true;
  r->found = found;
  r->fields["seek_nexts"] = config_.seek_nexts;
  r->fields["nexts_done"] = nexts;
  return Status::OK();
}

Status BenchRunner::RunMultiRead(Engine* engine, const MultiReadVariant& variant, BenchResult* r) {
  r->name = "multireadrandom";
  const uint64_t num = static_cast<uint64_t>(config_.num);
  const uint64_t batch = static_cast<uint64_t>(config_.batch_size);
  const uint64_t stride = static_cast<uint64_t>(variant.stride);
  // Whole batches covering --reads keys (at least one batch).
  const uint64_t batches = std::max<uint64_t>(1, (static_cast<uint64_t>(config_.reads) + batch - 1) / batch);
  // Each pass draws its own stream (as two readrandom in one run do), so a
  // pass's keys depend on --seed and its place in the run.
  KeyRandom rng(StreamSeed(5));
  const size_t key_size = static_cast<size_t>(config_.key_size);
  std::string key_storage(static_cast<size_t>(batch) * key_size, '\0');
  std::vector<Slice> keys(static_cast<size_t>(batch));
  std::vector<std::string> values;
  uint64_t found = 0;
  CallTimer timer(config_.histogram, &r->latency);

  const LoopTimer loop;
  for (uint64_t b = 0; b < batches; ++b) {
    uint64_t first = rng.Uniform(num);
    // db_bench: a strided batch that would run past the key space starts
    // early enough to fit (the config checked batch x stride <= num).
    if (stride > 0 && first + (batch - 1) * stride >= num) first = num - batch * stride;
    for (uint64_t j = 0; j < batch; ++j) {
      const uint64_t k = stride > 0 ? first + j * stride : (j == 0 ? first : rng.Uniform(num));
      char* key = key_storage.data() + j * key_size;
      FormatKey(k, key_size, key);
      keys[j] = Slice(key, key_size);
    }
    uint64_t hits = 0;
    Status s;
    timer.Begin();
    if (variant.batched) {
      s = engine->MultiGet(keys, &values, &hits);
    } else {
      values.resize(keys.size());
      for (size_t j = 0; s.ok() && j < keys.size(); ++j) {
        bool hit = false;
        s = engine->Get(keys[j], &values[j], &hit);
        hits += hit ? 1 : 0;
      }
    }
    timer.End();
    if (!s.ok()) return Check(s, r->name);
    found += hits;
  }
  loop.Stop(r);
  r->ops = batches * batch;
  r->reports_found = true;
  r->found = found;
  r->fields["batches"] = batches;
  // These override the config's first values, which MakeRecord writes.
  r->fields["stride"] = variant.stride;
  r->fields["multiread_batched"] = variant.batched;
  if (config_.multiread_strides.size() * config_.multiread_batched.size() > 1) {
    r->variant = "[stride=" + std::to_string(variant.stride) + " batched=" + (variant.batched ? "true" : "false") + "]";
  }
  return Status::OK();
}

Status BenchRunner::ReadWhileWriting(Engine* engine, BenchResult* r) {
  // One writer thread puts random keys until the reader finishes; only the
  // reader is timed (db_bench reports the readers of readwhilewriting).
  std::atomic<bool> stop{false};
  std::atomic<uint64_t> writes{0};
  Status writer_status;
  const uint64_t writer_seed = StreamSeed(6);
  std::thread writer([&] {
    KeyRandom rng(writer_seed);
    ValueSource values(writer_seed ^ 1, static_cast<size_t>(config_.value_size));
    KeyBuffer keys(static_cast<size_t>(config_.key_size));
    while (!stop.load(std::memory_order_relaxed)) {
      Status s = engine->Put(keys.Make(rng.Uniform(static_cast<uint64_t>(config_.num))), values.Next());
      if (!s.ok()) {
        writer_status = s;
        return;
      }
      writes.fetch_add(1, std::memory_order_relaxed);
    }
  });
  Status s = ReadRandom(engine, false, r);
  stop.store(true);
  writer.join();
  if (!s.ok()) return s;
  if (!writer_status.ok()) return Check(writer_status, "readwhilewriting (writer)");
  r->fields["writes_during"] = writes.load();
  return Status::OK();
}

Status BenchRunner::ApproximateMemTableStats(Engine* engine, BenchResult* r) {
  const uint64_t num = static_cast<uint64_t>(config_.num);
  const uint64_t width = static_cast<uint64_t>(config_.batch_size);
  const uint64_t reads = static_cast<uint64_t>(config_.reads);
  if (last_fill_entries_ == 0) {
    return Status::InvalidArgument(
        "lsmbench: approximatememtablestats needs a fill earlier in the same run, e.g. "
        "--benchmarks=filluniquerandom,approximatememtablestats");
  }
  const uint64_t table_bytes = engine->TableBytes();
  if (table_bytes > 0) {
    std::fprintf(stderr,
                 "lsmbench: warning: %llu bytes were flushed to tables, so the memtables no longer hold every key "
                 "and the estimates undercount (raise --write_buffer_mb)\n",
                 static_cast<unsigned long long>(table_bytes));
  }
  KeyRandom rng(StreamSeed(7));
  const size_t key_size = static_cast<size_t>(config_.key_size);
  KeyBuffer start_key(key_size), limit_key(key_size);
  Distribution counts;
  counts.Reserve(static_cast<size_t>(reads));
  CallTimer timer(config_.histogram, &r->latency);

  const LoopTimer loop;
  for (uint64_t i = 0; i < reads; ++i) {
    const uint64_t first = rng.Uniform(num - width);
    uint64_t count = 0, bytes = 0;
    timer.Begin();
    Status s = engine->ApproximateMemTableStats(start_key.Make(first), limit_key.Make(first + width), &count, &bytes);
    timer.End();
    if (!s.ok()) return Check(s, r->name);
    counts.Add(static_cast<double>(count));
  }
  loop.Stop(r);
  r->ops = reads;

  const double mean = counts.mean();
  r->fields["expected"] = width;
  r->fields["count"] = counts.count();
  r->fields["mean"] = mean;
  r->fields["stddev"] = counts.stddev();
  r->fields["stddev_pct"] = 100.0 * counts.stddev() / static_cast<double>(width);
  r->fields["min"] = counts.min();
  r->fields["p50"] = counts.Percentile(50);
  r->fields["p75"] = counts.Percentile(75);
  r->fields["p99"] = counts.Percentile(99);
  r->fields["p99_9"] = counts.Percentile(99.9);
  r->fields["max"] = counts.max();
  r->fields["zero_fraction"] = counts.FractionEqual(0);
  r->fields["approx_algorithm"] = config_.approx_algorithm;
  r->fields["histogram"] = counts.Buckets();
  r->fields["table_bytes"] = table_bytes;
  char head[160];
  std::snprintf(head, sizeof head, "Reported entry count stats (expected %llu, %s algorithm):\n",
                static_cast<unsigned long long>(width), config_.approx_algorithm.c_str());
  r->extra_text = head + counts.ToString();
  return Status::OK();
}

Status BenchRunner::TimeOnce(Engine* engine, const std::string& name, BenchResult* r) {
  const LoopTimer loop;
  Status s = name == "flush" ? engine->Flush() : name == "compact" ? engine->CompactAll() : engine->WaitForCompaction();
  loop.Stop(r);
  if (!s.ok()) return Check(s, name);
  r->ops = 1;
  return Status::OK();
}

Status BenchRunner::Stats(Engine* engine, BenchResult* r) {
  r->extra_text = engine->StatsText();
  r->fields["stats"] = r->extra_text;
  r->fields["table_bytes"] = engine->TableBytes();
  return Status::OK();
}

}  // namespace filterlab::lsmbench
