// rocksdb-adapter-overhead: what the FilterPolicy adapter costs RocksDB's
// reads, measured on one database in one process. The database is filled
// once through the adapter with fastlocal:bpk=10 and the cross-check on (every
// filter byte for byte RocksDB's own) and compacted; then it is opened twice
// read-only, once with RocksDB's own policy (NewBloomFilterPolicy(10)) and once
// with the adapter: the same tables and filter bytes, each with its own block
// cache, warmed by a full scan. The two handles then take turns, chunk by chunk
// (A B B A ...), on the same random keys: Get of present keys, Get of absent
// keys (every one asks the filter), and MultiGet of 32 keys. Taking turns at
// this grain means load from other processes lands on both alike; the ratio
// of each chunk pair and their median are what to read. Each chunk is timed
// by the wall clock and by the thread's CPU clock (CLOCK_THREAD_CPUTIME_ID):
// on a shared machine the CPU clock leaves out the time the thread waited
// for a core, which the wall clock adds to whichever handle was preempted.
//   rocksdb-adapter-overhead [--keys N] [--chunks C] [--chunk_ops K] [--dir D]
#include <rocksdb/cache.h>
#include <rocksdb/db.h>
#include <rocksdb/filter_policy.h>
#include <rocksdb/iterator.h>
#include <rocksdb/options.h>
#include <rocksdb/table.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "filters/filter.h"
#include "rocksdb_adapter/filter_policy_adapter.h"

namespace {

using filterlab::rocksdb_adapter::AdapterOptions;
using filterlab::rocksdb_adapter::NewAdapterPolicy;
using filterlab::rocksdb_adapter::StatsOf;

std::string Key(uint64_t i) {
  char buf[24];
  std::snprintf(buf, sizeof(buf), "%016llx", static_cast<unsigned long long>(i * 0x9e3779b97f4a7c15ull));
  return buf;
}

rocksdb::Options OptionsWith(std::shared_ptr<const rocksdb::FilterPolicy> filter) {
  rocksdb::BlockBasedTableOptions t;
  t.filter_policy = std::move(filter);
  t.format_version = 5;
  t.optimize_filters_for_memory = false;
  t.block_cache = rocksdb::NewLRUCache(size_t{1} << 30);
  t.cache_index_and_filter_blocks = true;
  t.metadata_cache_options.unpartitioned_pinning = rocksdb::PinningTier::kAll;
  rocksdb::Options o;
  o.table_factory.reset(rocksdb::NewBlockBasedTableFactory(t));
  o.compression = rocksdb::kNoCompression;
  o.write_buffer_size = 16 << 20;
  return o;
}

void Die(const std::string& what, const rocksdb::Status& s) {
  std::fprintf(stderr, "rocksdb-adapter-overhead: %s: %s\n", what.c_str(), s.ToString().c_str());
  std::exit(1);
}

double ThreadCpuNanos() {
  timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) * 1e9 + static_cast<double>(ts.tv_nsec);
}

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  uint64_t keys = 1000000, chunks = 40, chunk_ops = 20000;
  std::string dir = "/tmp/filterlab_adapter_overhead";
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto num = [&](const char* flag, uint64_t* v) {
      const std::string p = std::string(flag) + "=";
      if (a.rfind(p, 0) != 0) return false;
      *v = std::strtoull(a.c_str() + p.size(), nullptr, 10);
      return *v > 0;
    };
    if (num("--keys", &keys) || num("--chunks", &chunks) || num("--chunk_ops", &chunk_ops)) continue;
    if (a.rfind("--dir=", 0) == 0) {
      dir = a.substr(6);
      continue;
    }
    std::fprintf(stderr, "usage: rocksdb-adapter-overhead [--keys=N] [--chunks=C] [--chunk_ops=K] [--dir=D]\n");
    return 2;
  }

  // Fill through the adapter, cross-checked against RocksDB's own builder.
  std::unique_ptr<filterlab::FilterPolicy> ours;
  if (!filterlab::NewFilterPolicy("fastlocal:bpk=10", &ours).ok()) return 1;
  std::shared_ptr<const filterlab::FilterPolicy> policy(std::move(ours));
  std::shared_ptr<const rocksdb::FilterPolicy> checked_adapter, adapter;
  AdapterOptions check;
  check.cross_check_native = true;
  if (!NewAdapterPolicy(policy, check, &checked_adapter).ok() ||
      !NewAdapterPolicy(policy, AdapterOptions(), &adapter).ok()) {
    return 1;
  }
  {
    rocksdb::Options o = OptionsWith(checked_adapter);
    o.create_if_missing = true;
    rocksdb::DestroyDB(dir, o);
    rocksdb::DB* raw = nullptr;
    rocksdb::Status s = rocksdb::DB::Open(o, dir, &raw);
    if (!s.ok()) Die("open " + dir, s);
    std::unique_ptr<rocksdb::DB> db(raw);
    const std::string value(100, 'v');
    for (uint64_t i = 0; i < keys && s.ok(); ++i) s = db->Put(rocksdb::WriteOptions(), Key(2 * i), value);
    if (s.ok()) s = db->Flush(rocksdb::FlushOptions());
    rocksdb::CompactRangeOptions c;
    c.bottommost_level_compaction = rocksdb::BottommostLevelCompaction::kForce;
    if (s.ok()) s = db->CompactRange(c, nullptr, nullptr);
    if (!s.ok()) Die("fill", s);
    const auto* st = StatsOf(*checked_adapter);
    std::printf(
        "fill: %llu keys; %llu filters built through the adapter, %llu cross-checked, %llu identical to "
        "RocksDB's own bytes\n",
        static_cast<unsigned long long>(keys), static_cast<unsigned long long>(st->filters_built.load()),
        static_cast<unsigned long long>(st->cross_checked.load()),
        static_cast<unsigned long long>(st->cross_check_identical.load()));
    if (st->cross_checked.load() == 0 || st->cross_checked.load() != st->cross_check_identical.load()) return 1;
  }

  // Two read-only handles on the same files.
  std::unique_ptr<rocksdb::DB> dbs[2];
  const char* names[2] = {"RocksDB's policy", "adapter"};
  std::shared_ptr<const rocksdb::FilterPolicy> policies[2] = {
      std::shared_ptr<const rocksdb::FilterPolicy>(rocksdb::NewBloomFilterPolicy(10)), adapter};
  for (int h = 0; h < 2; ++h) {
    rocksdb::DB* raw = nullptr;
    rocksdb::Status s = rocksdb::DB::OpenForReadOnly(OptionsWith(policies[h]), dir, &raw);
    if (!s.ok()) Die(std::string("open read-only for ") + names[h], s);
    dbs[h].reset(raw);
    std::unique_ptr<rocksdb::Iterator> it(dbs[h]->NewIterator(rocksdb::ReadOptions()));
    uint64_t n = 0;
    for (it->SeekToFirst(); it->Valid(); it->Next()) ++n;  // warms the block cache
    if (n != keys) {
      std::fprintf(stderr, "rocksdb-adapter-overhead: %s sees %llu keys, expected %llu\n", names[h],
                   static_cast<unsigned long long>(n), static_cast<unsigned long long>(keys));
      return 1;
    }
  }

  enum Bench { kGetPresent, kGetAbsent, kMultiGet32, kBenches };
  const char* bench_names[kBenches] = {"Get present", "Get absent", "MultiGet 32"};
  std::vector<double> ns[kBenches][2], cpu_ns[kBenches][2];
  std::vector<double> ratios[kBenches], cpu_ratios[kBenches];
  uint64_t found[kBenches][2] = {};
  std::mt19937_64 rng(301);
  std::vector<std::string> chunk_keys(chunk_ops);
  std::vector<rocksdb::Slice> slices(32);
  std::vector<rocksdb::PinnableSlice> values(32);
  std::vector<rocksdb::Status> statuses(32);
  std::string value;
  for (uint64_t c = 0; c < chunks; ++c) {
    for (int b = 0; b < kBenches; ++b) {
      for (auto& k : chunk_keys) {
        const uint64_t i = rng() % keys;
        k = Key(b == kGetAbsent ? 2 * i + 1 : 2 * i);
      }
      double t[2], cpu[2];
      const int order[2] = {static_cast<int>(c % 2), static_cast<int>(1 - c % 2)};  // A B, then B A
      for (int h : order) {
        rocksdb::DB* db = dbs[h].get();
        const auto start = std::chrono::steady_clock::now();
        const double cpu_start = ThreadCpuNanos();
        if (b != kMultiGet32) {
          for (const auto& k : chunk_keys) found[b][h] += db->Get(rocksdb::ReadOptions(), k, &value).ok() ? 1 : 0;
        } else {
          for (size_t j = 0; j + 32 <= chunk_keys.size(); j += 32) {
            for (size_t q = 0; q < 32; ++q) slices[q] = chunk_keys[j + q];
            db->MultiGet(rocksdb::ReadOptions(), db->DefaultColumnFamily(), 32, slices.data(), values.data(),
                         statuses.data());
            for (size_t q = 0; q < 32; ++q) {
              found[b][h] += statuses[q].ok() ? 1 : 0;
              values[q].Reset();
            }
          }
        }
        cpu[h] = (ThreadCpuNanos() - cpu_start) / static_cast<double>(chunk_ops);
        t[h] = std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - start).count() /
               static_cast<double>(chunk_ops);
        ns[b][h].push_back(t[h]);
        cpu_ns[b][h].push_back(cpu[h]);
      }
      ratios[b].push_back(t[1] / t[0]);
      cpu_ratios[b].push_back(cpu[1] / cpu[0]);
    }
  }
  std::printf("%llu chunks of %llu ops each, the handles taking turns; medians over chunks, adapter / RocksDB\n",
              static_cast<unsigned long long>(chunks), static_cast<unsigned long long>(chunk_ops));
  std::printf("%-12s %-6s %14s %14s %8s %18s\n", "benchmark", "clock", "RocksDB ns/op", "adapter ns/op", "ratio",
              "chunk ratios IQR");
  for (int b = 0; b < kBenches; ++b) {
    for (const bool use_cpu : {false, true}) {
      std::vector<double> r = use_cpu ? cpu_ratios[b] : ratios[b];
      std::sort(r.begin(), r.end());
      const auto& v = use_cpu ? cpu_ns[b] : ns[b];
      std::printf("%-12s %-6s %14.1f %14.1f %8.4f %8.4f..%-8.4f\n", bench_names[b], use_cpu ? "cpu" : "wall",
                  Median(v[0]), Median(v[1]), Median(r), r[r.size() / 4], r[3 * r.size() / 4]);
    }
    std::printf("%-12s found %llu / %llu\n", bench_names[b], static_cast<unsigned long long>(found[b][0]),
                static_cast<unsigned long long>(found[b][1]));
    if (found[b][0] != found[b][1]) {
      std::fprintf(stderr, "rocksdb-adapter-overhead: the two handles found different keys\n");
      return 1;
    }
  }
  dbs[0].reset();
  dbs[1].reset();
  rocksdb::DestroyDB(dir, rocksdb::Options());
  return 0;
}
