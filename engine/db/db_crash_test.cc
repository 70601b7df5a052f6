// Crash test: a forked child runs two writer threads (disjoint keys, sync=
// true) and a reader thread, and reports every acknowledged write through a
// pipe; the parent SIGKILLs it at a random moment (often in the middle of a
// flush or compaction, given the tiny memtables), reopens the DB and checks
// that every acknowledged write is there, that each writer's one write in
// flight is either fully there or absent, and that nothing else appears.
// 20 rounds by default; FILTERLAB_LONG_CRASH_TEST=N runs N rounds,
// FILTERLAB_SOAK_SECONDS=S rounds for S seconds, and a summary line is
// printed (./filterlab soak).
#include <fcntl.h>
#include <gtest/gtest.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "engine/db/db.h"
#include "engine/db/db_test_util.h"
#include "hashing/remix.h"

namespace filterlab::engine {
namespace {

using test::Key;
using test::ScratchDir;

constexpr uint64_t kKeySpace = 1500;
constexpr int kCrashWriters = 2;

// Writer t's i-th operation in round r, computable by the parent too.
struct Op {
  std::string key;
  bool is_delete = false;
  std::string value;
};

Op OpFor(int round, int t, uint64_t i) {
  const uint64_t h = Mix64((static_cast<uint64_t>(round) << 32) ^ (static_cast<uint64_t>(t) << 60) ^ i);
  Op op;
  op.key = "t" + std::to_string(t) + Key(h % kKeySpace);
  op.is_delete = (h >> 20) % 8 == 0;
  if (!op.is_delete) {
    op.value = "r" + std::to_string(round) + "t" + std::to_string(t) + "i" + std::to_string(i) + ":";
    // Mostly small values, sometimes 64 KiB ones that span WAL pages and blocks.
    const size_t len = (h >> 32) % 64 == 0 ? 65536 : 10 + (h >> 40) % 200;
    op.value.resize(len, static_cast<char>('a' + h % 26));
  }
  return op;
}

Options CrashOptions() {
  Options o = test::SmallOptions();
  o.disable_data_sync = false;  // the configuration a real deployment runs
  return o;
}

[[noreturn]] void ChildWriter(const std::string& path, int round, int fd) {
  std::unique_ptr<DB> db;
  Status s = DB::Open(CrashOptions(), path, &db);
  if (!s.ok()) {
    const std::string msg = "E " + s.ToString() + "\n";
    (void)!::write(fd, msg.data(), msg.size());
    ::_exit(1);
  }
  // A reader beside the writers; the kill ends all three.
  std::thread reader([&] {
    std::string v;
    for (uint64_t i = 0;; ++i) {
      const Status g = db->Get(ReadOptions(), OpFor(round, static_cast<int>(i % kCrashWriters), i).key, &v);
      if (!g.ok() && !g.IsNotFound()) {
        const std::string msg = "E reader: " + g.ToString() + "\n";
        (void)!::write(fd, msg.data(), msg.size());
        ::_exit(1);
      }
    }
  });
  std::vector<std::thread> writers;
  for (int t = 0; t < kCrashWriters; ++t) {
    writers.emplace_back([&, t] {
      WriteOptions wo;
      wo.sync = true;
      for (uint64_t i = 0;; ++i) {
        const Op op = OpFor(round, t, i);
        const Status w = op.is_delete ? db->Delete(wo, op.key) : db->Put(wo, op.key, op.value);
        if (!w.ok()) {
          const std::string msg = "E " + w.ToString() + "\n";
          (void)!::write(fd, msg.data(), msg.size());
          ::_exit(1);
        }
        // One write() of a short line is atomic on a pipe: the parent sees whole lines.
        const std::string ack = "A " + std::to_string(t) + " " + std::to_string(i) + "\n";
        if (::write(fd, ack.data(), ack.size()) != static_cast<ssize_t>(ack.size())) ::_exit(1);
      }
    });
  }
  reader.join();  // never returns: the parent kills the process
  ::_exit(1);
}

int Rounds() {
  const char* env = std::getenv("FILTERLAB_LONG_CRASH_TEST");
  if (env != nullptr && std::atoi(env) > 0) return std::atoi(env);
  return 20;
}

TEST(DBCrash, AcknowledgedSyncedWritesSurviveKill9) {
  ScratchDir dir;
  const std::string path = dir.db();
  std::map<std::string, std::string> model;  // state after all acknowledged writes
  std::mt19937_64 rng(20240607);
  const int rounds = Rounds();
  const double soak = test::SoakSeconds();
  const auto start = std::chrono::steady_clock::now();
  auto more = [&](int round) {
    if (soak <= 0) return round < rounds;
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() < soak;
  };
  uint64_t total_acked = 0, keys_checked = 0;
  int rounds_with_inflight_present = 0;
  int round = 0;
  for (; more(round); ++round) {
    int fds[2];
    ASSERT_EQ(::pipe(fds), 0);
    const pid_t pid = ::fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      ::close(fds[0]);
      ChildWriter(path, round, fds[1]);
    }
    ::close(fds[1]);
    // Kill after a random number of acknowledgements plus a random delay.
    const uint64_t kill_after = rng() % 120;
    const int extra_us = static_cast<int>(rng() % 3000);
    std::string buf;
    uint64_t acked_total = 0;
    std::vector<uint64_t> acked(kCrashWriters, 0);
    std::string child_error;
    bool killed = false;
    auto consume_lines = [&] {
      size_t pos;
      while ((pos = buf.find('\n')) != std::string::npos) {
        const std::string line = buf.substr(0, pos);
        buf.erase(0, pos + 1);
        if (line.rfind("A ", 0) == 0) {
          const size_t space = line.find(' ', 2);
          const int t = std::stoi(line.substr(2, space - 2));
          ASSERT_TRUE(t >= 0 && t < kCrashWriters) << line;
          ASSERT_EQ(std::stoull(line.substr(space + 1)), acked[t]);  // in order, none missing
          ++acked_total;
          const Op op = OpFor(round, t, acked[t]++);
          if (op.is_delete) {
            model.erase(op.key);
          } else {
            model[op.key] = op.value;
          }
        } else {
          child_error = line;
        }
      }
    };
    char chunk[4096];
    while (true) {
      if (!killed && acked_total >= kill_after) {
        ::usleep(static_cast<useconds_t>(extra_us));
        ::kill(pid, SIGKILL);
        killed = true;
      }
      struct pollfd p = {fds[0], POLLIN, 0};
      const int ready = ::poll(&p, 1, 20000);
      ASSERT_GT(ready, 0) << "child wrote nothing for 20 s (round " << round << ")";
      const ssize_t n = ::read(fds[0], chunk, sizeof(chunk));
      if (n <= 0) break;  // EOF: the child is gone and every ack is read
      buf.append(chunk, static_cast<size_t>(n));
      consume_lines();
      ASSERT_TRUE(child_error.empty()) << child_error;
    }
    ::close(fds[0]);
    int wstatus = 0;
    ASSERT_EQ(::waitpid(pid, &wstatus, 0), pid);
    ASSERT_TRUE(WIFSIGNALED(wstatus)) << "child exited on its own: " << child_error;
    total_acked += acked_total;

    // Reopen: acknowledged writes are all there; each writer's write in
    // flight (its op number acked[t]) is there entirely or not at all;
    // nothing else appears.
    std::unique_ptr<DB> db;
    Options o = CrashOptions();
    o.create_if_missing = true;
    Status s = DB::Open(o, path, &db);
    ASSERT_TRUE(s.ok()) << "round " << round << ": " << s.ToString();
    std::string got;
    for (int t = 0; t < kCrashWriters; ++t) {
      const Op inflight = OpFor(round, t, acked[t]);
      s = db->Get(ReadOptions(), inflight.key, &got);
      ASSERT_TRUE(s.ok() || s.IsNotFound()) << s.ToString();
      const bool applied = inflight.is_delete ? s.IsNotFound() : (s.ok() && got == inflight.value);
      auto it = model.find(inflight.key);
      const bool unchanged = it == model.end() ? s.IsNotFound() : (s.ok() && got == it->second);
      ASSERT_TRUE(applied || unchanged) << "round " << round << ": in-flight key " << inflight.key
                                        << " holds a value that was never written";
      if (applied && !unchanged) {
        ++rounds_with_inflight_present;
        if (inflight.is_delete) {
          model.erase(inflight.key);
        } else {
          model[inflight.key] = inflight.value;
        }
      }
    }
    const auto scanned = test::ScanAll(db.get());
    const std::vector<std::pair<std::string, std::string>> expected(model.begin(), model.end());
    ASSERT_EQ(scanned.size(), expected.size()) << "round " << round;
    for (size_t i = 0; i < expected.size(); ++i) {
      ASSERT_EQ(scanned[i].first, expected[i].first) << "round " << round;
      ASSERT_TRUE(scanned[i].second == expected[i].second) << "round " << round << " key " << expected[i].first;
    }
    for (const auto& [k, v] : model) {
      ASSERT_TRUE(db->Get(ReadOptions(), k, &got).ok()) << k;
      ASSERT_TRUE(got == v) << k;
    }
    keys_checked += model.size();
  }
  // Reached only when every round passed: no acknowledged write was lost.
  std::printf("SOAK kill-9: kills=%d acked_writes=%llu keys_checked=%llu inflight_writes_present=%d losses=0\n", round,
              static_cast<unsigned long long>(total_acked), static_cast<unsigned long long>(keys_checked),
              rounds_with_inflight_present);
  // The kills must have interrupted real work.
  EXPECT_GT(total_acked, static_cast<uint64_t>(round) * 10);
  RecordProperty("acknowledged_writes", std::to_string(total_acked));
  RecordProperty("rounds_with_inflight_write_present", std::to_string(rounds_with_inflight_present));
}

}  // namespace
}  // namespace filterlab::engine
