// Concurrency (also run under TSan: the suite name matches the
// "Concurren" pattern of ./filterlab's TSan stage): writers, readers using
// Get, MultiGet, iterators and snapshots, and explicit flushes and
// compactions all at once, with tiny memtables so the background flush and
// compaction threads are busy throughout. Readers check that what they see
// is well formed and never goes back in time. And group commit: synced
// writers from several threads share WAL syncs, and every acknowledged
// write survives a power loss.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <map>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "engine/db/db.h"
#include "engine/db/db_test_util.h"
#include "engine/util/fault_injection_env.h"
#include "engine/util/prefix_extractor.h"
#include "engine/util/random.h"

namespace filterlab::engine {
namespace {

using test::ScratchDir;

constexpr int kWriters = 2;
constexpr int kKeysPerWriter = 200;

std::string WKey(int writer, int k) {
  std::string key = "w";
  key += std::to_string(writer);
  key += '-';
  key += test::Key(k);
  return key;
}
std::string WValue(int writer, int k, uint64_t version) {
  return WKey(writer, k) + "@" + std::to_string(version) + std::string(k % 50, '.');
}
// The version in a value written by WValue for this key, or -1 if malformed.
int64_t VersionOf(const std::string& key, const std::string& value) {
  if (value.compare(0, key.size() + 1, key + "@") != 0) return -1;
  size_t end = value.find('.', key.size() + 1);
  return std::stoll(value.substr(key.size() + 1, end == std::string::npos ? std::string::npos : end - key.size() - 1));
}

// With rewrite_filters, the maintenance thread also rewrites tables for the
// filter allocation (DB::RewriteFilters) while the others read and write.
void WritersReadersFlushesAndCompactions(const Options& o, bool rewrite_filters) {
  ScratchDir dir;
  std::unique_ptr<DB> db;
  ASSERT_TRUE(DB::Open(o, dir.db(), &db).ok());
  const int writes_per_writer = 6000 / test::kScale;
  std::atomic<bool> done{false};
  std::atomic<int> errors{0};
  std::vector<std::thread> threads;
  for (int w = 0; w < kWriters; ++w) {
    threads.emplace_back([&, w] {
      std::mt19937 rng(w);
      for (int i = 1; i <= writes_per_writer; ++i) {
        const int k = static_cast<int>(rng() % kKeysPerWriter);
        Status s;
        if (i % 10 == 0) {
          WriteBatch b;  // a batch touching two keys
          b.Put(WKey(w, k), WValue(w, k, i));
          b.Put(WKey(w, (k + 1) % kKeysPerWriter), WValue(w, (k + 1) % kKeysPerWriter, i));
          s = db->Write(WriteOptions(), &b);
        } else {
          s = db->Put(WriteOptions(), WKey(w, k), WValue(w, k, i));
        }
        if (!s.ok()) errors++;
      }
    });
  }
  for (int r = 0; r < 2; ++r) {
    threads.emplace_back([&, r] {
      std::mt19937 rng(100 + r);
      std::map<std::string, int64_t> last_seen;
      auto check = [&](const std::string& key, const Status& s, const std::string& v) {
        if (s.IsNotFound()) {
          if (last_seen.count(key)) errors++;  // a key never disappears once seen
          return;
        }
        if (!s.ok()) {
          errors++;
          return;
        }
        const int64_t version = VersionOf(key, v);
        if (version < 0 || version < last_seen[key]) errors++;
        last_seen[key] = version;
      };
      while (!done.load()) {
        const int w = static_cast<int>(rng() % kWriters);
        const int mode = static_cast<int>(rng() % 10);
        if (mode < 5) {
          const std::string key = WKey(w, static_cast<int>(rng() % kKeysPerWriter));
          std::string v;
          Status s = db->Get(ReadOptions(), key, &v);
          check(key, s, v);
        } else if (mode < 8) {
          std::vector<std::string> owned;
          for (int i = 0; i < 24; ++i) owned.push_back(WKey(w, static_cast<int>(rng() % kKeysPerWriter)));
          std::vector<Slice> keys(owned.begin(), owned.end());
          std::vector<std::string> values;
          std::vector<Status> statuses;
          db->MultiGet(ReadOptions(), keys, &values, &statuses);
          for (size_t i = 0; i < keys.size(); ++i) check(owned[i], statuses[i], values[i]);
        } else if (mode == 8) {
          // A snapshot reads the same value twice, whatever happens in between.
          const Snapshot* snap = db->GetSnapshot();
          ReadOptions ro;
          ro.snapshot = snap;
          const std::string key = WKey(w, static_cast<int>(rng() % kKeysPerWriter));
          std::string a, b;
          Status sa = db->Get(ro, key, &a);
          std::this_thread::yield();
          Status sb = db->Get(ro, key, &b);
          if (sa.code() != sb.code() || a != b) errors++;
          db->ReleaseSnapshot(snap);
        } else {
          auto it = db->NewIterator(ReadOptions());
          std::string prev;
          int n = 0;
          for (it->Seek(WKey(w, static_cast<int>(rng() % kKeysPerWriter))); it->Valid() && n < 50; it->Next(), ++n) {
            const std::string key = it->key().ToString();
            if (n > 0 && key <= prev) errors++;
            if (VersionOf(key, it->value().ToString()) < 0) errors++;
            prev = key;
          }
          if (!it->status().ok()) errors++;
        }
      }
    });
  }
  threads.emplace_back([&] {
    int round = 0;
    while (!done.load()) {
      const int step = round++ % 3;
      Status s = step == 0                      ? db->Flush(false)
                 : step == 2 && rewrite_filters ? db->RewriteFilters(nullptr)
                                                : db->CompactRange(nullptr, nullptr);
      if (!s.ok()) errors++;
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
  });
  for (int w = 0; w < kWriters; ++w) threads[w].join();
  done.store(true);
  for (size_t t = kWriters; t < threads.size(); ++t) threads[t].join();
  EXPECT_EQ(errors.load(), 0);
  ASSERT_TRUE(db->WaitForCompaction().ok());

  // The final state is each key's last write.
  std::map<std::string, std::string> expected;
  for (int w = 0; w < kWriters; ++w) {
    std::mt19937 rng(w);
    for (int i = 1; i <= writes_per_writer; ++i) {
      const int k = static_cast<int>(rng() % kKeysPerWriter);
      expected[WKey(w, k)] = WValue(w, k, i);
      if (i % 10 == 0) expected[WKey(w, (k + 1) % kKeysPerWriter)] = WValue(w, (k + 1) % kKeysPerWriter, i);
    }
  }
  const auto scanned = test::ScanAll(db.get());
  const std::vector<std::pair<std::string, std::string>> want(expected.begin(), expected.end());
  EXPECT_TRUE(scanned == want);
  std::string stats;
  ASSERT_TRUE(db->GetProperty("filterlab.stats", &stats));
  EXPECT_EQ(stats.find("flushes=0 "), std::string::npos) << stats;
}

// Readers while the table cache, capped at 10 open tables, evicts readers
// from under them and compactions install new versions and delete the old
// tables: every Get and MultiGet finds each key with its one value (the
// DB's ReadGate keeps an evicted reader, and a superseded memtable/version
// set, alive until the lookups that found it have finished), and the read
// counters, kept per thread slot, add up to exactly the calls made.
TEST(ConcurrentDB, ReadersAcrossTableEvictionsAndCompactions) {
  ScratchDir dir;
  Options o = test::SmallOptions();
  o.max_open_files = 10;
  o.disable_auto_compactions = true;
  o.level0_slowdown_writes_trigger = 1000;
  o.level0_stop_writes_trigger = 1000;
  std::unique_ptr<DB> db;
  ASSERT_TRUE(DB::Open(o, dir.db(), &db).ok());
  const int tables = 30;
  const int keys_per_table = 100;
  const int keys = tables * keys_per_table;
  for (int t = 0; t < tables; ++t) {
    // Table t holds keys t, t + 30, t + 60, ...: every lookup range spans
    // all the level-0 tables, so readers keep opening (and evicting) them.
    for (int j = 0; j < keys_per_table; ++j) {
      const int k = t + j * tables;
      ASSERT_TRUE(db->Put(WriteOptions(), test::Key(k), test::Value(k, 1)).ok());
    }
    ASSERT_TRUE(db->Flush(true).ok());
  }
  const int readers = 3;
  const int rounds = 3000 / test::kScale;
  std::atomic<int> errors{0};
  std::atomic<uint64_t> gets{0}, multigets{0}, multiget_keys{0};
  std::atomic<int> running{readers};
  std::vector<std::thread> threads;
  for (int r = 0; r < readers; ++r) {
    threads.emplace_back([&, r] {
      std::mt19937 rng(300 + r);
      for (int i = 0; i < rounds; ++i) {
        if (i % 4 != 3) {
          const int k = static_cast<int>(rng() % keys);
          std::string v;
          Status s = db->Get(ReadOptions(), test::Key(k), &v);
          if (!s.ok() || v != test::Value(k, 1)) errors++;
          gets++;
        } else {
          std::vector<std::string> owned;
          for (int j = 0; j < 16; ++j) owned.push_back(test::Key(rng() % keys));
          std::vector<Slice> batch(owned.begin(), owned.end());
          std::vector<std::string> values;
          std::vector<Status> statuses;
          db->MultiGet(ReadOptions(), batch, &values, &statuses);
          for (size_t j = 0; j < owned.size(); ++j) {
            const int k = std::stoi(owned[j].substr(3));
            if (!statuses[j].ok() || values[j] != test::Value(k, 1)) errors++;
          }
          multigets++;
          multiget_keys += owned.size();
        }
      }
      running--;
    });
  }
  threads.emplace_back([&] {
    // Compactions while the readers run: each installs a version and
    // deletes (evicting from the table cache) the tables it replaced.
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
    if (!db->CompactRange(nullptr, nullptr).ok()) errors++;
    for (int t = 0; t < 5 && running.load() > 0; ++t) {
      const int k = t * 7;
      if (!db->Put(WriteOptions(), test::Key(k), test::Value(k, 1)).ok() || !db->Flush(true).ok() ||
          !db->CompactRange(nullptr, nullptr).ok()) {
        errors++;
      }
    }
  });
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(errors.load(), 0);
  const DbTickers c = db->GetStats().counters;
  EXPECT_EQ(c[Ticker::kGets], gets.load());
  EXPECT_EQ(c[Ticker::kMultiGets], multigets.load());
  EXPECT_EQ(c[Ticker::kMultiGetKeys], multiget_keys.load());
}

TEST(ConcurrentDB, WritersReadersFlushesAndCompactions) {
  Options o = test::SmallOptions();
  o.memtable_filter_policy = test::Policy("dynamic:bpk=8,probes=6,hash=32");
  WritersReadersFlushesAndCompactions(o, false);
}

// The filter allocation is computed by flushes, compactions and rewrites on
// their own threads from the version they start from; reads never consult
// it (each table keeps the filter it was written with).
TEST(ConcurrentDB, FilterAllocationRecomputedUnderReadersAndWriters) {
  Options o = test::SmallOptions();
  o.filter_policy = test::Policy("fastlocal:bpk=10");
  o.filter_allocation = Options::FilterAllocation{allocation::AllocationPolicy::kOptimal, 5, 0};
  WritersReadersFlushesAndCompactions(o, true);
}

// Seeks with prefix filters and upper bounds while a writer adds keys and
// the maintenance thread flushes and compacts: the keys loaded before the
// readers start are never deleted, so every bounded or prefix seek must
// return each of them in its range, in order, and only keys of its range
// with well-formed values (a table skipped by a filter that held one of
// them, or a skip decided on a table being replaced, would show here).
TEST(ConcurrentDB, PrefixAndBoundedSeeksWhileTablesFlushAndCompact) {
  ScratchDir dir;
  Options o = test::SmallOptions();
  Status s = PrefixExtractorFromSpec("fixed:5", &o.prefix_extractor);
  ASSERT_TRUE(s.ok());
  o.memtable_filter_policy = test::Policy("dynamic:bpk=8,probes=6,hash=32");
  std::unique_ptr<DB> db;
  ASSERT_TRUE(DB::Open(o, dir.db(), &db).ok());
  // Keys "pNNN-MMMM": prefix "pNNN-" (fixed:5). Even M are loaded first.
  auto key = [](int p, int m) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "p%03d-%04d", p, m);
    return std::string(buf);
  };
  constexpr int kPrefixes = 40, kPerPrefix = 40;
  for (int p = 0; p < kPrefixes; ++p) {
    for (int m = 0; m < kPerPrefix; m += 2) ASSERT_TRUE(db->Put(WriteOptions(), key(p, m), key(p, m) + "=v").ok());
  }
  ASSERT_TRUE(db->Flush(true).ok());
  std::atomic<bool> done{false};
  std::atomic<int> errors{0};
  std::thread writer([&] {
    Random rnd(5);
    for (int i = 0; i < 4000 / test::kScale && errors == 0; ++i) {
      const int p = static_cast<int>(rnd.Uniform(kPrefixes)), m = 1 + 2 * static_cast<int>(rnd.Uniform(kPerPrefix / 2));
      if (!db->Put(WriteOptions(), key(p, m), key(p, m) + "=v").ok()) errors++;
    }
    done = true;
  });
  std::thread maintenance([&] {
    while (!done && errors == 0) {
      if (!db->Flush(true).ok() || !db->CompactRange(nullptr, nullptr).ok()) errors++;
    }
  });
  std::vector<std::thread> readers;
  for (int r = 0; r < 2; ++r) {
    readers.emplace_back([&, r] {
      Random rnd(100 + r);
      while (!done && errors == 0) {
        const int p = static_cast<int>(rnd.Uniform(kPrefixes + 5));  // some prefixes absent
        const int lo = static_cast<int>(rnd.Uniform(kPerPrefix)), hi = lo + static_cast<int>(rnd.Uniform(12));
        ReadOptions ro;
        const std::string bound = key(p, hi);
        Slice ub(bound);
        if (rnd.OneIn(2)) {
          ro.iterate_upper_bound = &ub;
        } else {
          ro.prefix_same_as_start = true;
        }
        auto it = db->NewIterator(ro);
        int expect_m = lo + (lo % 2);  // the first loaded key at or after lo
        const int end = ro.iterate_upper_bound != nullptr ? hi : kPerPrefix;
        std::string last;
        for (it->Seek(key(p, lo)); it->Valid(); it->Next()) {
          const std::string k = it->key().ToString();
          if (k <= last || it->value().ToString() != k + "=v" || k < key(p, lo) ||
              (ro.iterate_upper_bound != nullptr && k >= bound) || k.compare(0, 5, key(p, 0).substr(0, 5)) != 0) {
            errors++;
            break;
          }
          last = k;
          // Every loaded (even) key below this one must have been returned.
          const int m = std::stoi(k.substr(5));
          if (p < kPrefixes && m > expect_m && expect_m < end) {
            errors++;
            break;
          }
          if (m == expect_m) expect_m += 2;
        }
        if (!it->status().ok() || (p < kPrefixes && expect_m < std::min(end, kPerPrefix))) errors++;
      }
    });
  }
  writer.join();
  maintenance.join();
  for (std::thread& t : readers) t.join();
  EXPECT_EQ(errors.load(), 0);
}

// Eight threads of synced writes over a disk whose sync takes 2 ms: a
// writer that arrives during a sync waits for the next group, so the groups
// hold several writers each and the syncs number far fewer than the writes
// (bound: half; with 8 writers and syncs that long the groups average close
// to 7, so the bound holds under TSan's slowdown too). Every write is
// acknowledged synced, so all survive a power loss that drops every
// unsynced byte and directory entry.
TEST(ConcurrentDB, GroupCommitSharesSyncsAndLosesNothing) {
  ScratchDir dir(true);
  FaultInjectionEnv env;
  env.SetSyncDelayMicros(2000);
  Options o = test::SmallOptions();
  o.env = &env;
  o.disable_data_sync = false;
  o.write_buffer_size = 1 << 20;
  std::unique_ptr<DB> db;
  ASSERT_TRUE(DB::Open(o, dir.db(), &db).ok());
  constexpr int kThreads = 8, kPerThread = 50;
  std::vector<std::thread> threads;
  std::atomic<int> failures{0};
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      WriteOptions wo;
      wo.sync = true;
      for (int i = 0; i < kPerThread; ++i) {
        if (!db->Put(wo, WKey(t, i), WValue(t, i, 1)).ok()) failures.fetch_add(1);
      }
    });
  }
  for (auto& th : threads) th.join();
  ASSERT_EQ(failures.load(), 0);
  const DbTickers c = db->GetStats().counters;
  EXPECT_EQ(c[Ticker::kWriteBatches], static_cast<uint64_t>(kThreads * kPerThread));
  EXPECT_EQ(c[Ticker::kWalSyncs], c[Ticker::kWriteGroups]);  // one sync per group, every group synced
  EXPECT_LE(c[Ticker::kWalSyncs], static_cast<uint64_t>(kThreads * kPerThread / 2))
      << "groups of " << double(c[Ticker::kWriteBatches]) / double(c[Ticker::kWriteGroups]) << " writers on average";
  env.SetFilesystemActive(false);
  db.reset();
  env.SetFilesystemActive(true);
  Random rnd(11);
  ASSERT_TRUE(env.PowerLoss(&rnd, true).ok());
  env.SetSyncDelayMicros(0);
  ASSERT_TRUE(DB::Open(o, dir.db(), &db).ok());
  std::string v;
  for (int t = 0; t < kThreads; ++t) {
    for (int i = 0; i < kPerThread; ++i) {
      ASSERT_TRUE(db->Get(ReadOptions(), WKey(t, i), &v).ok()) << t << " " << i;
      EXPECT_EQ(v, WValue(t, i, 1));
    }
  }
}

}  // namespace
}  // namespace filterlab::engine
