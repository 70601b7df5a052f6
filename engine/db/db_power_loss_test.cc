// Power-loss test over FaultInjectionEnv (engine/util/fault_injection_env.h):
// writer threads write batches with random sync=true/false while a reader
// reads; at a random moment the filesystem goes down (the crash), the DB is
// torn down, every unsynced byte may be lost (each file keeps a random
// prefix of its unsynced bytes; in half the rounds unsynced directory
// entries are undone too), and the DB reopens in the default recovery mode.
// Checked every round: Open succeeds; per writer, the recovered keys equal
// the state after exactly its first k batches (so no batch is half there),
// with k at least the batches up to its last write acknowledged with
// sync=true and at most the batches it attempted. Also: an injected fsync or
// write error makes the DB read-only with the reason, and nothing
// acknowledged is lost across it.
//
// 30 rounds by default; FILTERLAB_SOAK_SECONDS=S runs rounds for S seconds
// and prints a summary line (./filterlab soak).
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "engine/db/db.h"
#include "engine/db/db_test_util.h"
#include "engine/db/write_batch.h"
#include "engine/util/fault_injection_env.h"
#include "engine/util/random.h"

namespace filterlab::engine {
namespace {

using Model = std::map<std::string, std::string>;

constexpr int kPowerLossKeysPerWriter = 120;

Options PowerLossOptions(Env* env) {
  Options o = test::SmallOptions();
  o.env = env;
  o.disable_data_sync = false;  // what a deployment runs: the syncs are what is tested
  return o;
}

// One batch a writer attempted: its puts (value "" = delete) and whether
// it was acknowledged with sync=true.
struct Batch {
  std::vector<std::pair<std::string, std::string>> ops;
  bool sync = false;
  bool acked = false;
};

std::string WriterKey(int writer, uint32_t k) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "w%02d.k%04u", writer, k);
  return buf;
}

struct Totals {
  uint64_t rounds = 0, acked = 0, acked_synced = 0, checked_keys = 0, lost = 0, dir_drops = 0;
  uint64_t unsynced_bytes_dropped = 0;
};

class PowerLoss {
 public:
  PowerLoss(const std::string& path, uint32_t seed) : path_(path), rnd_(seed) {}

  // One round with `writers` writer threads and one reader; false with a
  // gtest failure recorded if a check failed.
  void Round(int writers, Totals* totals) {
    std::unique_ptr<DB> db;
    Status s = DB::Open(PowerLossOptions(&env_), path_, &db);
    ASSERT_TRUE(s.ok()) << "round " << totals->rounds << ": " << s.ToString();
    std::vector<std::vector<Batch>> batches(writers);
    std::atomic<bool> stop{false};
    std::vector<std::thread> threads;
    for (int w = 0; w < writers; ++w) {
      const uint32_t seed = rnd_.Next();
      threads.emplace_back([&, w, seed] {
        Random r(seed);
        while (!stop.load(std::memory_order_relaxed)) {
          Batch b;
          WriteBatch wb;
          const int n = 1 + static_cast<int>(r.Uniform(3));
          for (int j = 0; j < n; ++j) {
            const std::string key = WriterKey(w, r.Uniform(kPowerLossKeysPerWriter));
            if (r.OneIn(6)) {
              wb.Delete(key);
              b.ops.emplace_back(key, "");
            } else {
              const std::string value = "r" + std::to_string(round_) + ".b" + std::to_string(batches[w].size()) + "." +
                                        std::to_string(j) + std::string(r.Uniform(300), 'x');
              wb.Put(key, value);
              b.ops.emplace_back(key, value);
            }
          }
          b.sync = r.OneIn(3);
          batches[w].push_back(b);  // attempted before it is written
          WriteOptions wo;
          wo.sync = b.sync;
          if (!db->Write(wo, &wb).ok()) break;  // the filesystem went down
          batches[w].back().acked = true;
        }
      });
    }
    const uint32_t reader_seed = rnd_.Next();  // drawn here: rnd_ is the main thread's
    std::thread reader([&, reader_seed] {
      Random r(reader_seed);
      std::string v;
      while (!stop.load(std::memory_order_relaxed)) {
        const Status g = db->Get(
            ReadOptions(), WriterKey(static_cast<int>(r.Uniform(writers)), r.Uniform(kPowerLossKeysPerWriter)), &v);
        if (!g.ok() && !g.IsNotFound()) break;  // a table read may fail once the filesystem is down
      }
    });
    std::this_thread::sleep_for(std::chrono::microseconds(rnd_.Uniform(30000)));
    env_.SetFilesystemActive(false);  // the power goes
    stop.store(true);
    for (auto& t : threads) t.join();
    reader.join();
    db.reset();
    const bool drop_dir = rnd_.OneIn(2);
    s = env_.PowerLoss(&rnd_, drop_dir);
    ASSERT_TRUE(s.ok()) << s.ToString();
    env_.SetFilesystemActive(true);
    totals->dir_drops += drop_dir;

    s = DB::Open(PowerLossOptions(&env_), path_, &db);
    ASSERT_TRUE(s.ok()) << "round " << totals->rounds << ": Open after a power loss failed: " << s.ToString();
    Model recovered;
    for (const auto& [k, v] : test::ScanAll(db.get())) recovered[k] = v;
    ASSERT_TRUE(db->Close().ok());
    for (int w = 0; w < writers; ++w) {
      CheckWriter(w, batches[w], recovered, totals);
      if (::testing::Test::HasFatalFailure()) return;
    }
    ++totals->rounds;
    ++round_;
    totals->unsynced_bytes_dropped = env_.unsynced_bytes_dropped();
  }

  FaultInjectionEnv* env() { return &env_; }

 private:
  // The writer's keys must be its model after exactly k batches, k between
  // its last synced acknowledgement and its attempts.
  void CheckWriter(int w, const std::vector<Batch>& batches, const Model& recovered, Totals* totals) {
    const std::string prefix = WriterKey(w, 0).substr(0, 4);
    Model mine;
    for (auto it = recovered.lower_bound(prefix); it != recovered.end() && it->first.rfind(prefix, 0) == 0; ++it) {
      mine.insert(*it);
    }
    Model& state = models_[w];
    size_t required = 0;
    for (size_t i = 0; i < batches.size(); ++i) {
      if (batches[i].acked) ++totals->acked;
      if (batches[i].acked && batches[i].sync) {
        required = i + 1;
        ++totals->acked_synced;
      }
    }
    Model m = state;
    int match = state == mine ? 0 : -1;
    for (size_t i = 0; i < batches.size(); ++i) {
      for (const auto& [k, v] : batches[i].ops) {
        if (v.empty()) {
          m.erase(k);
        } else {
          m[k] = v;
        }
      }
      if (m == mine) match = static_cast<int>(i + 1);
    }
    totals->checked_keys += mine.size();
    if (match < static_cast<int>(required)) ++totals->lost;
    ASSERT_GE(match, 0) << "round " << round_ << " writer " << w
                        << ": the recovered keys are not the state after any whole number of its batches";
    ASSERT_GE(match, static_cast<int>(required))
        << "round " << round_ << " writer " << w << ": batches acknowledged with sync=true are missing (recovered "
        << match << " of " << required << " required)";
    state = mine;
  }

  const std::string path_;
  Random rnd_;
  FaultInjectionEnv env_;
  std::map<int, Model> models_;
  int round_ = 0;
};

void RunRounds(int writers, int default_rounds, const char* label) {
  test::ScratchDir dir(true);
  PowerLoss pl(dir.db(), 20260125 + writers);
  Totals t;
  const double soak = test::SoakSeconds();
  const auto start = std::chrono::steady_clock::now();
  auto elapsed = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(); };
  while (soak > 0 ? elapsed() < soak : t.rounds < static_cast<uint64_t>(default_rounds)) {
    pl.Round(writers, &t);
    if (::testing::Test::HasFatalFailure()) break;
  }
  std::printf(
      "SOAK power-loss %s: power_losses=%llu acked_writes=%llu acked_synced=%llu keys_checked=%llu "
      "unsynced_bytes_dropped=%llu dir_entry_drops=%llu losses=%llu\n",
      label, static_cast<unsigned long long>(t.rounds), static_cast<unsigned long long>(t.acked),
      static_cast<unsigned long long>(t.acked_synced), static_cast<unsigned long long>(t.checked_keys),
      static_cast<unsigned long long>(t.unsynced_bytes_dropped), static_cast<unsigned long long>(t.dir_drops),
      static_cast<unsigned long long>(t.lost));
  EXPECT_EQ(t.lost, 0u);
  EXPECT_GT(t.acked_synced, t.rounds);      // the crashes interrupted real work
  EXPECT_GT(t.unsynced_bytes_dropped, 0u);  // and cost unsynced bytes: the test can see a missing sync
}

TEST(DBPowerLoss, OneWriterSurvivesPowerLoss) { RunRounds(1, 30, "1 writer"); }

TEST(DBPowerLoss, ConcurrentWritersSurvivePowerLoss) { RunRounds(4, 30, "4 writers"); }

// A failed fdatasync of the WAL: the write reports it, the DB turns
// read-only saying why (no retry as if nothing happened), reads go on, and
// a reopen has every write acknowledged before it.
TEST(DBPowerLoss, FailedSyncMakesTheDbReadOnly) {
  for (bool fail_append : {false, true}) {
    SCOPED_TRACE(fail_append ? "append" : "sync");
    test::ScratchDir dir(true);
    FaultInjectionEnv env;
    std::unique_ptr<DB> db;
    ASSERT_TRUE(DB::Open(PowerLossOptions(&env), dir.db(), &db).ok());
    WriteOptions sync;
    sync.sync = true;
    for (int i = 0; i < 50; ++i) ASSERT_TRUE(db->Put(sync, test::Key(i), "v").ok());
    if (fail_append) {
      env.FailNextAppends(1);
    } else {
      env.FailNextSyncs(1);
    }
    Status s = db->Put(sync, test::Key(50), "v");
    ASSERT_TRUE(s.IsIOError()) << s.ToString();
    EXPECT_NE(s.message().find("read-only"), std::string::npos) << s.ToString();
    EXPECT_NE(s.message().find("injected"), std::string::npos) << s.ToString();
    // Sticky: the next write fails the same way though the disk works again.
    s = db->Put(sync, test::Key(51), "v");
    EXPECT_TRUE(s.IsIOError()) << s.ToString();
    EXPECT_NE(s.message().find("read-only"), std::string::npos) << s.ToString();
    EXPECT_TRUE(db->Flush(true).IsIOError());
    std::string v;
    EXPECT_TRUE(db->Get(ReadOptions(), test::Key(7), &v).ok());
    db.reset();
    Random rnd(7);
    ASSERT_TRUE(env.PowerLoss(&rnd, true).ok());
    ASSERT_TRUE(DB::Open(PowerLossOptions(&env), dir.db(), &db).ok());
    for (int i = 0; i < 50; ++i) EXPECT_TRUE(db->Get(ReadOptions(), test::Key(i), &v).ok()) << i;
    EXPECT_TRUE(db->Get(ReadOptions(), test::Key(51), &v).IsNotFound());
  }
}

// A failed sync of a table or the manifest during a flush stops writes the same way.
TEST(DBPowerLoss, FailedFlushSyncMakesTheDbReadOnly) {
  test::ScratchDir dir(true);
  FaultInjectionEnv env;
  std::unique_ptr<DB> db;
  ASSERT_TRUE(DB::Open(PowerLossOptions(&env), dir.db(), &db).ok());
  for (int i = 0; i < 20; ++i) ASSERT_TRUE(db->Put(WriteOptions(), test::Key(i), "v").ok());
  env.FailNextSyncs(1);  // the old WAL's sync at the switch, or the table's
  Status s = db->Flush(true);
  EXPECT_TRUE(s.IsIOError()) << s.ToString();
  s = db->Put(WriteOptions(), test::Key(99), "v");
  EXPECT_TRUE(s.IsIOError()) << s.ToString();
  EXPECT_NE(s.message().find("read-only"), std::string::npos) << s.ToString();
}

}  // namespace
}  // namespace filterlab::engine
