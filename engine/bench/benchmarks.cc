#include "engine/bench/benchmarks.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <condition_variable>
#include <cstdio>
#include <mutex>
#include <numeric>
#include <thread>
#include <utility>
#include <vector>

#include "common/timer.h"
#include "engine/bench/bench_keys.h"
#include "filters/range/range_workload.h"
#include "hashing/remix.h"

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
    case Status::Code::kInvalidArgument: return Status::InvalidArgument(msg);
    case Status::Code::kNotSupported: return Status::NotSupported(msg);
    case Status::Code::kCorruption: return Status::Corruption(msg);
    case Status::Code::kNotFound: return Status::NotFound(msg);
    case Status::Code::kBusy: return Status::Busy(msg);
    default: return Status::IOError(msg);
  }
}

// The seed of thread t's stream derived from a benchmark's stream seed:
// thread 0 keeps the benchmark's own stream, so --threads=1 draws exactly
// the keys it always did.
uint64_t ThreadSeed(uint64_t stream_seed, int thread) {
  return thread == 0 ? stream_seed : Mix64(stream_seed ^ (static_cast<uint64_t>(thread) * kGoldenRatio64));
}

// Adds one thread's result into the benchmark's: counts (ops, bytes,
// found, CPU seconds, integer fields) add up, latencies merge, and the wall
// time is the slowest thread's (all threads start together, so that is the
// benchmark's elapsed time, as db_bench measures it).
void MergeThreadResult(const BenchResult& t, BenchResult* r) {
  r->ops += t.ops;
  r->bytes += t.bytes;
  r->found += t.found;
  r->reports_found = r->reports_found || t.reports_found;
  r->seconds = std::max(r->seconds, t.seconds);
  r->cpu_seconds += t.cpu_seconds;
  r->latency.Merge(t.latency);
  for (const auto& [key, value] : t.fields.items()) {
    if (value.is_number_integer() && r->fields.contains(key)) {
      r->fields[key] = r->fields[key].get<uint64_t>() + value.get<uint64_t>();
    } else {
      r->fields[key] = value;
    }
  }
}

// Released once every benchmark thread is ready, so their loops start together.
class StartGate {
 public:
  explicit StartGate(int threads) : waiting_(threads) {}
  void ArriveAndWait() {
    std::unique_lock<std::mutex> l(mu_);
    if (--waiting_ == 0) {
      cv_.notify_all();
    } else {
      cv_.wait(l, [this] { return waiting_ == 0; });
    }
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  int waiting_;
};

}  // namespace

BenchRunner::BenchRunner(const BenchConfig& config) : config_(config) {
  key_format_.key_size = static_cast<size_t>(config.key_size);
  if (config.keys_per_prefix > 0) {
    key_format_.prefix_size = static_cast<size_t>(config.prefix_size);
    key_format_.prefixes = std::max<uint64_t>(1, static_cast<uint64_t>(config.num / config.keys_per_prefix));
  }
}

Status BenchRunner::PrepareKeys() {
  if (config_.key_source == "db_bench" || key_values_) return Status::OK();
  // The range-filter workloads' key sets (filters/range/range_workload.h),
  // one implementation for the simulator and lsmbench.
  std::vector<uint64_t> values;
  Status s = workload::MakeKeys(config_.key_source, static_cast<uint64_t>(config_.num), config_.seed, &values);
  if (!s.ok()) return Status::InvalidArgument("lsmbench: --key_source=" + config_.key_source + ": " + s.message());
  if (values.size() < static_cast<size_t>(config_.num)) {
    return Status::InvalidArgument("lsmbench: --key_source=" + config_.key_source + " holds " +
                                   std::to_string(values.size()) +
                                   " distinct keys, fewer than --num=" + std::to_string(config_.num));
  }
  key_values_ = std::make_shared<const std::vector<uint64_t>>(std::move(values));
  key_format_.values = key_values_->data();
  return Status::OK();
}

IteratorOptions BenchRunner::IterOptions(const Slice* bound) const {
  IteratorOptions o;
  o.upper_bound = bound;
  o.prefix_same_as_start = config_.prefix_same_as_start;
  o.total_order_seek = config_.total_order_seek;
  o.auto_prefix_mode = config_.auto_prefix_mode;
  return o;
}

uint64_t BenchRunner::ValuesUpTo(uint64_t v) const {
  if (!key_values_) return std::min<uint64_t>(static_cast<uint64_t>(config_.num), v == ~uint64_t{0} ? v : v + 1);
  return static_cast<uint64_t>(std::upper_bound(key_values_->begin(), key_values_->end(), v) - key_values_->begin());
}

void BenchRunner::BoundAfterValue(uint64_t v, std::string* out) const {
  out->assign(key_format_.key_size + 1, '\0');
  key_format_.FormatValue(v, out->data());
}

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
  Status keys = PrepareKeys();
  if (!keys.ok()) return keys;
  if (name == "fillseq") return Fill(engine, Order::kSequential, r);
  if (name == "fillrandom" || name == "overwrite") return Fill(engine, Order::kRandom, r);
  if (name == "filluniquerandom") return Fill(engine, Order::kUniqueRandom, r);
  if (name == "readrandom") return ReadRandom(engine, false, r);
  if (name == "readmissing") return ReadRandom(engine, true, r);
  if (name == "readseq") return ReadSeq(engine, r);
  if (name == "seekrandom") return SeekRandom(engine, r);
  if (name == "seekempty") return SeekEmpty(engine, r);
  if (name == "scanrange") return ScanRange(engine, r);
  if (name == "multireadrandom") return RunMultiRead(engine, MultiReadVariants(config_).front(), r);
  if (name == "readwhilewriting") return ReadWhileWriting(engine, r);
  if (name == "approximatememtablestats") return ApproximateMemTableStats(engine, r);
  if (name == "flush" || name == "compact" || name == "waitforcompaction" || name == "rewritefilters") {
    return TimeOnce(engine, name, r);
  }
  if (name == "stats") return Stats(engine, r);
  return Status::InvalidArgument("lsmbench: unknown benchmark '" + name + "'");
}

Status BenchRunner::RunThreads(const std::function<Status(const Worker&, BenchResult*)>& body, BenchResult* r) {
  const int n = static_cast<int>(config_.threads);
  std::vector<BenchResult> per_thread(static_cast<size_t>(n));
  std::vector<Status> statuses(static_cast<size_t>(n));
  if (n == 1) {
    statuses[0] = body(Worker{0, [] {}}, &per_thread[0]);
  } else {
    StartGate gate(n);
    std::vector<std::thread> threads;
    for (int t = 0; t < n; ++t) {
      threads.emplace_back([&, t] {
        statuses[static_cast<size_t>(t)] =
            body(Worker{t, [&gate] { gate.ArriveAndWait(); }}, &per_thread[static_cast<size_t>(t)]);
      });
    }
    for (std::thread& thread : threads) thread.join();
  }
  for (const Status& s : statuses) {
    if (!s.ok()) return Check(s, r->name);
  }
  JsonRecord thread_rates = JsonRecord::array();
  for (const BenchResult& t : per_thread) {
    MergeThreadResult(t, r);
    thread_rates.push_back(t.seconds > 0 ? static_cast<double>(t.ops) / t.seconds : 0.0);
  }
  r->fields["threads"] = n;
  r->fields["thread_ops_per_sec"] = std::move(thread_rates);
  return Status::OK();
}

Status BenchRunner::Fill(Engine* engine, Order order, BenchResult* r) {
  const uint64_t num = static_cast<uint64_t>(config_.num);
  const uint64_t batch = static_cast<uint64_t>(config_.batch_size);
  // db_bench writes whole batches only.
  const uint64_t batches = num / batch;
  const uint64_t key_seed = StreamSeed(1);
  const uint64_t value_seed = StreamSeed(2);
  std::vector<uint64_t> permutation;
  if (order == Order::kUniqueRandom) {
    KeyRandom rng(key_seed);
    permutation.resize(num);
    std::iota(permutation.begin(), permutation.end(), uint64_t{0});
    for (uint64_t i = num - 1; i > 0; --i) std::swap(permutation[i], permutation[rng.Uniform(i + 1)]);
  }
  const uint64_t threads = static_cast<uint64_t>(config_.threads);
  Status s = RunThreads(
      [&](const Worker& w, BenchResult* t) -> Status {
        // Thread i writes batches [i B / N, (i+1) B / N): the threads share
        // the --num writes, so fillseq and filluniquerandom write each key once.
        const uint64_t index = static_cast<uint64_t>(w.index);
        const uint64_t first = batches * index / threads, last = batches * (index + 1) / threads;
        KeyRandom rng(ThreadSeed(key_seed, w.index));
        ValueSource values(ThreadSeed(value_seed, w.index), static_cast<size_t>(config_.value_size),
                           config_.compression_ratio);
        const size_t key_size = static_cast<size_t>(config_.key_size);
        std::string key_storage(static_cast<size_t>(batch) * key_size, '\0');
        std::vector<std::pair<Slice, Slice>> puts(static_cast<size_t>(batch));
        CallTimer timer(config_.histogram, &t->latency);
        w.ready();
        const LoopTimer loop;
        for (uint64_t b = first; b < last; ++b) {
          for (uint64_t j = 0; j < batch; ++j) {
            const uint64_t i = b * batch + j;
            const uint64_t k = order == Order::kSequential ? i
                               : order == Order::kRandom   ? rng.Uniform(num)
                                                           : permutation[i];
            char* key = key_storage.data() + j * key_size;
            key_format_.Format(k, key);
            puts[j] = {Slice(key, key_size), values.Next()};
          }
          timer.Begin();
          Status ws = batch == 1 ? engine->Put(puts[0].first, puts[0].second) : engine->WriteBatch(puts);
          timer.End();
          if (!ws.ok()) return ws;
        }
        loop.Stop(t);
        t->ops = (last - first) * batch;
        t->bytes = t->ops * static_cast<uint64_t>(config_.key_size + config_.value_size);
        return Status::OK();
      },
      r);
  if (!s.ok()) return s;
  r->fields["entries_written"] = r->ops;
  last_fill_entries_ = r->ops;
  return Status::OK();
}

Status BenchRunner::ReadRandom(Engine* engine, bool missing, BenchResult* r) {
  const uint64_t num = static_cast<uint64_t>(config_.num);
  const uint64_t reads = static_cast<uint64_t>(config_.reads);
  const uint64_t seed = StreamSeed(3);
  return RunThreads(
      [&](const Worker& w, BenchResult* t) -> Status {
        KeyRandom rng(ThreadSeed(seed, w.index));
        // db_bench's readmissing: one more '0' than stored keys have.
        KeyBuffer keys(missing ? key_format_.Longer() : key_format_);
        std::string value;
        uint64_t found = 0;
        CallTimer timer(config_.histogram, &t->latency);
        w.ready();
        const LoopTimer loop;
        for (uint64_t i = 0; i < reads; ++i) {
          const Slice key = keys.Make(rng.Uniform(num));
          bool hit = false;
          timer.Begin();
          Status s = engine->Get(key, &value, &hit);
          timer.End();
          if (!s.ok()) return s;
          found += hit ? 1 : 0;
        }
        loop.Stop(t);
        t->ops = reads;
        t->reports_found = true;
        t->found = found;
        return Status::OK();
      },
      r);
}

Status BenchRunner::ReadSeq(Engine* engine, BenchResult* r) {
  const uint64_t reads = static_cast<uint64_t>(config_.reads);
  return RunThreads(
      [&](const Worker& w, BenchResult* t) -> Status {
        uint64_t n = 0, bytes = 0;
        w.ready();
        const LoopTimer loop;
        std::unique_ptr<EngineIterator> it = engine->NewIterator(IteratorOptions());
        for (it->SeekToFirst(); n < reads && it->Valid(); it->Next()) {
          bytes += it->key().size() + it->value().size();
          ++n;
        }
        loop.Stop(t);
        if (!it->status().ok()) return it->status();
        t->ops = n;
        t->bytes = bytes;
        t->reports_found = true;
        t->found = n;
        return Status::OK();
      },
      r);
}

Status BenchRunner::SeekRandom(Engine* engine, BenchResult* r) {
  const uint64_t num = static_cast<uint64_t>(config_.num);
  const uint64_t reads = static_cast<uint64_t>(config_.reads);
  const uint64_t distance = static_cast<uint64_t>(config_.max_scan_distance);
  const uint64_t seed = StreamSeed(4);
  Status s = RunThreads(
      [&](const Worker& w, BenchResult* t) -> Status {
        KeyRandom rng(ThreadSeed(seed, w.index));
        KeyBuffer keys(key_format_), bounds(key_format_);
        // Past every key: the bound of a seek whose k + D runs off the key space.
        const std::string beyond(key_format_.key_size + 1, '\xff');
        Slice bound;
        uint64_t found = 0, nexts = 0;
        CallTimer timer(config_.histogram, &t->latency);
        // One iterator per thread for its whole loop, as db_bench does; with
        // --max_scan_distance each seek moves the bound it reads.
        std::unique_ptr<EngineIterator> it = engine->NewIterator(IterOptions(distance > 0 ? &bound : nullptr));
        w.ready();
        const LoopTimer loop;
        for (uint64_t i = 0; i < reads; ++i) {
          const uint64_t k = rng.Uniform(num);
          const Slice key = keys.Make(k);
          if (distance > 0) bound = k + distance < num ? bounds.Make(k + distance) : Slice(beyond);
          timer.Begin();
          it->Seek(key);
          if (it->Valid() && it->key() == key) ++found;
          for (int64_t j = 0; j < config_.seek_nexts && it->Valid(); ++j) {
            it->Next();
            ++nexts;
          }
          timer.End();
        }
        loop.Stop(t);
        if (!it->status().ok()) return it->status();
        t->ops = reads;
        t->reports_found = true;
        t->found = found;
        t->fields["nexts_done"] = nexts;
        return Status::OK();
      },
      r);
  if (!s.ok()) return s;
  r->fields["seek_nexts"] = config_.seek_nexts;
  return Status::OK();
}

Status BenchRunner::SeekEmpty(Engine* engine, BenchResult* r) {
  const std::vector<uint64_t>& values = *key_values_;  // ParseBenchConfig required a key source
  const uint64_t reads = static_cast<uint64_t>(config_.reads);
  const uint64_t len = static_cast<uint64_t>(config_.range_size);
  const uint64_t seed = StreamSeed(8);
  // Every thread's ranges, drawn and checked empty against the stored values
  // before the timed loop (filters/range/range_workload.h: lo uniform, or with
  // --range_correlation d a stored value + U[1, 2^round(30 (1 - d))]).
  const int threads = static_cast<int>(config_.threads);
  std::vector<std::vector<workload::RangeQuery>> ranges(static_cast<size_t>(threads));
  for (int th = 0; th < threads; ++th) {
    Status qs = workload::EmptyRangeQueries(values, len, config_.range_correlation, reads, ThreadSeed(seed, th),
                                            &ranges[static_cast<size_t>(th)]);
    if (!qs.ok()) return Status::InvalidArgument("lsmbench: seekempty: " + qs.message());
  }
  Status s = RunThreads(
      [&](const Worker& w, BenchResult* t) -> Status {
        const std::vector<workload::RangeQuery>& mine = ranges[static_cast<size_t>(w.index)];
        KeyBuffer keys(key_format_);
        std::string bound_bytes;
        Slice bound;
        std::unique_ptr<EngineIterator> it = engine->NewIterator(IterOptions(&bound));
        CallTimer timer(config_.histogram, &t->latency);
        w.ready();
        const LoopTimer loop;
        for (const workload::RangeQuery& q : mine) {
          BoundAfterValue(q.hi, &bound_bytes);
          bound = Slice(bound_bytes);
          const Slice key = keys.MakeValue(q.lo);
          timer.Begin();
          it->Seek(key);
          const bool valid = it->Valid();
          timer.End();
          if (valid) {
            return Status::Corruption("seekempty: the seek to value " + std::to_string(q.lo) + " bounded at value " +
                                      std::to_string(q.hi) +
                                      " returned a key, though no stored key lies in that range");
          }
        }
        loop.Stop(t);
        if (!it->status().ok()) return it->status();
        t->ops = mine.size();
        t->reports_found = true;
        t->found = 0;
        return Status::OK();
      },
      r);
  if (!s.ok()) return s;
  r->fields["range_size"] = config_.range_size;
  r->fields["range_correlation"] = config_.range_correlation;
  return Status::OK();
}

Status BenchRunner::ScanRange(Engine* engine, BenchResult* r) {
  const uint64_t num = static_cast<uint64_t>(config_.num);
  const uint64_t reads = static_cast<uint64_t>(config_.reads);
  const uint64_t len = static_cast<uint64_t>(config_.range_size);
  const uint64_t seed = StreamSeed(9);
  Status s = RunThreads(
      [&](const Worker& w, BenchResult* t) -> Status {
        KeyRandom rng(ThreadSeed(seed, w.index));
        KeyBuffer keys(key_format_);
        std::string bound_bytes;
        Slice bound;
        std::unique_ptr<EngineIterator> it = engine->NewIterator(IterOptions(&bound));
        uint64_t returned = 0, bytes = 0;
        CallTimer timer(config_.histogram, &t->latency);
        w.ready();
        const LoopTimer loop;
        for (uint64_t i = 0; i < reads; ++i) {
          // [value(k), value(k) + len - 1]: non-empty, it holds key k.
          const uint64_t k = rng.Uniform(num);
          const uint64_t lo = ValueOf(k);
          const uint64_t hi = lo > ~uint64_t{0} - (len - 1) ? ~uint64_t{0} : lo + (len - 1);
          BoundAfterValue(hi, &bound_bytes);
          bound = Slice(bound_bytes);
          const Slice key = keys.MakeValue(lo);
          uint64_t n = 0;
          timer.Begin();
          for (it->Seek(key); it->Valid(); it->Next()) {
            bytes += it->key().size() + it->value().size();
            ++n;
          }
          timer.End();
          // The keys of the range: stored values in [lo, hi] (fills may
          // have left out some key numbers: fillrandom repeats keys).
          const uint64_t expected = ValuesUpTo(hi) - k;
          if (n > expected) {
            return Status::Corruption("scanrange: the scan of values [" + std::to_string(lo) + ", " +
                                      std::to_string(hi) + "] returned " + std::to_string(n) + " keys, more than the " +
                                      std::to_string(expected) + " the key set holds");
          }
          returned += n;
        }
        loop.Stop(t);
        if (!it->status().ok()) return it->status();
        t->ops = reads;
        t->bytes = bytes;
        t->fields["keys_returned"] = returned;
        return Status::OK();
      },
      r);
  if (!s.ok()) return s;
  r->fields["range_size"] = config_.range_size;
  return Status::OK();
}

Status BenchRunner::RunMultiRead(Engine* engine, const MultiReadVariant& variant, BenchResult* r) {
  r->name = "multireadrandom";
  const uint64_t num = static_cast<uint64_t>(config_.num);
  const uint64_t batch = static_cast<uint64_t>(config_.batch_size);
  const uint64_t stride = static_cast<uint64_t>(variant.stride);
  // Whole batches covering --reads keys (at least one batch), per thread.
  const uint64_t batches = std::max<uint64_t>(1, (static_cast<uint64_t>(config_.reads) + batch - 1) / batch);
  // Each pass draws its own stream (as two readrandom in one run do), so a
  // pass's keys depend on --seed and its place in the run.
  const uint64_t seed = StreamSeed(5);
  Status s = RunThreads(
      [&](const Worker& w, BenchResult* t) -> Status {
        KeyRandom rng(ThreadSeed(seed, w.index));
        const size_t key_size = static_cast<size_t>(config_.key_size);
        std::string key_storage(static_cast<size_t>(batch) * key_size, '\0');
        std::vector<Slice> keys(static_cast<size_t>(batch));
        std::vector<std::string> values;
        uint64_t found = 0;
        CallTimer timer(config_.histogram, &t->latency);
        w.ready();
        const LoopTimer loop;
        for (uint64_t b = 0; b < batches; ++b) {
          uint64_t first = rng.Uniform(num);
          // db_bench: a strided batch that would run past the key space starts
          // early enough to fit (the config checked batch x stride <= num).
          if (stride > 0 && first + (batch - 1) * stride >= num) first = num - batch * stride;
          for (uint64_t j = 0; j < batch; ++j) {
            const uint64_t k = stride > 0 ? first + j * stride : (j == 0 ? first : rng.Uniform(num));
            char* key = key_storage.data() + j * key_size;
            key_format_.Format(k, key);
            keys[j] = Slice(key, key_size);
          }
          uint64_t hits = 0;
          Status ms;
          timer.Begin();
          if (variant.batched) {
            ms = engine->MultiGet(keys, &values, &hits);
          } else {
            values.resize(keys.size());
            for (size_t j = 0; ms.ok() && j < keys.size(); ++j) {
              bool hit = false;
              ms = engine->Get(keys[j], &values[j], &hit);
              hits += hit ? 1 : 0;
            }
          }
          timer.End();
          if (!ms.ok()) return ms;
          found += hits;
        }
        loop.Stop(t);
        t->ops = batches * batch;
        t->reports_found = true;
        t->found = found;
        t->fields["batches"] = batches;
        return Status::OK();
      },
      r);
  if (!s.ok()) return s;
  // These override the config's first values, which MakeRecord writes.
  r->fields["stride"] = variant.stride;
  r->fields["multiread_batched"] = variant.batched;
  if (config_.multiread_strides.size() * config_.multiread_batched.size() > 1) {
    r->variant = "[stride=" + std::to_string(variant.stride) + " batched=" + (variant.batched ? "true" : "false") + "]";
  }
  return Status::OK();
}

Status BenchRunner::ReadWhileWriting(Engine* engine, BenchResult* r) {
  // One writer thread puts random keys until the --threads readers finish;
  // only the readers are timed (db_bench reports the readers of
  // readwhilewriting).
  std::atomic<bool> stop{false};
  std::atomic<uint64_t> writes{0};
  Status writer_status;
  const uint64_t writer_seed = StreamSeed(6);
  std::thread writer([&] {
    KeyRandom rng(writer_seed);
    ValueSource values(writer_seed ^ 1, static_cast<size_t>(config_.value_size), config_.compression_ratio);
    KeyBuffer keys(key_format_);
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
  const uint64_t seed = StreamSeed(7);
  std::vector<Distribution> thread_counts(static_cast<size_t>(config_.threads));
  Status s = RunThreads(
      [&](const Worker& w, BenchResult* t) -> Status {
        KeyRandom rng(ThreadSeed(seed, w.index));
        KeyBuffer start_key(key_format_), limit_key(key_format_);
        Distribution& counts = thread_counts[static_cast<size_t>(w.index)];
        counts.Reserve(static_cast<size_t>(reads));
        CallTimer timer(config_.histogram, &t->latency);
        w.ready();
        const LoopTimer loop;
        for (uint64_t i = 0; i < reads; ++i) {
          const uint64_t first = rng.Uniform(num - width);
          uint64_t count = 0, bytes = 0;
          timer.Begin();
          Status as =
              engine->ApproximateMemTableStats(start_key.Make(first), limit_key.Make(first + width), &count, &bytes);
          timer.End();
          if (!as.ok()) return as;
          counts.Add(static_cast<double>(count));
        }
        loop.Stop(t);
        t->ops = reads;
        return Status::OK();
      },
      r);
  if (!s.ok()) return s;
  Distribution counts;
  for (const Distribution& d : thread_counts) counts.Merge(d);

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
  uint64_t rewritten = 0;
  Status s = name == "flush"            ? engine->Flush()
             : name == "compact"        ? engine->CompactAll()
             : name == "rewritefilters" ? engine->RewriteFilters(&rewritten)
                                        : engine->WaitForCompaction();
  loop.Stop(r);
  if (!s.ok()) return Check(s, name);
  r->ops = 1;
  if (name == "rewritefilters") r->fields["tables_rewritten"] = rewritten;
  return Status::OK();
}

Status BenchRunner::Stats(Engine* engine, BenchResult* r) {
  r->extra_text = engine->StatsText();
  r->fields["stats"] = r->extra_text;
  r->fields["table_bytes"] = engine->TableBytes();
  return Status::OK();
}

}  // namespace filterlab::lsmbench
