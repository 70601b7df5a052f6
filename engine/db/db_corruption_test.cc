// Damaged files: a torn or corrupted WAL tail is dropped with a warning, the
// writes before it survive and the log is kept in lost/ (db_recovery_test.cc
// tries every damage under every WalRecoveryMode); a damaged table, manifest
// or CURRENT makes Open fail with a Corruption naming the file, and leaves
// every file in the directory exactly as it was; a torn last manifest edit
// is dropped and reported.
#include <gtest/gtest.h>

#include <algorithm>
#include <mutex>
#include <string>
#include <vector>

#include "engine/db/db.h"
#include "engine/db/db_test_util.h"

namespace filterlab::engine {
namespace {

using test::Key;
using test::ScratchDir;
using test::Value;

// The DB's log lines; the sink is called from background threads too.
struct Captured {
  std::mutex mu;
  std::vector<std::string> lines;
  void Add(const std::string& line) {
    std::lock_guard<std::mutex> l(mu);
    lines.push_back(line);
  }
  void Clear() {
    std::lock_guard<std::mutex> l(mu);
    lines.clear();
  }
};

Options CorruptionOptions(Captured* log) {
  Options o = test::SmallOptions();
  o.write_buffer_size = 1 << 20;  // keep test writes in one memtable / one WAL
  o.info_log = [log](const std::string& line) { log->Add(line); };
  return o;
}

std::vector<std::string> FilesOfType(const std::string& dir, DbFileType want) {
  std::vector<std::string> names, out;
  EXPECT_TRUE(Env::Default()->GetChildren(dir, &names).ok());
  for (const auto& n : names) {
    uint64_t number;
    if (ParseDbFileName(n, &number) == want) out.push_back(dir + "/" + n);
  }
  std::sort(out.begin(), out.end());
  return out;
}

void Rewrite(const std::string& path, const std::function<void(std::string*)>& edit) {
  std::string contents;
  ASSERT_TRUE(ReadFileToString(Env::Default(), path, &contents).ok());
  edit(&contents);
  ASSERT_TRUE(WriteStringToFile(Env::Default(), path, contents, true).ok());
}

// Writes keys 0..n-1 and closes; they stay in the WAL only.
void WriteAndClose(const Options& o, const std::string& path, int n) {
  std::unique_ptr<DB> db;
  ASSERT_TRUE(DB::Open(o, path, &db).ok());
  for (int i = 0; i < n; ++i) ASSERT_TRUE(db->Put(WriteOptions(), Key(i), Value(i, 0)).ok());
  ASSERT_TRUE(db->Close().ok());
}

int CountPresent(DB* db, int n) {
  int present = 0;
  std::string v;
  for (int i = 0; i < n; ++i) {
    Status s = db->Get(ReadOptions(), Key(i), &v);
    if (s.ok()) {
      EXPECT_EQ(v, Value(i, 0));
      ++present;
    } else {
      EXPECT_TRUE(s.IsNotFound()) << s.ToString();
    }
  }
  return present;
}

bool AnyLineContains(Captured& log, const std::string& a, const std::string& b) {
  std::lock_guard<std::mutex> l(log.mu);
  for (const auto& l : log.lines) {
    if (l.find(a) != std::string::npos && l.find(b) != std::string::npos) return true;
  }
  return false;
}

TEST(DBCorruption, TornWalTailIsDroppedWithAWarning) {
  const int n = 100;
  // Cut the last record short, flip a byte in it, or append garbage.
  for (int mode = 0; mode < 3; ++mode) {
    SCOPED_TRACE(mode);
    ScratchDir dir;
    Captured log;
    const Options o = CorruptionOptions(&log);
    WriteAndClose(o, dir.db(), n);
    const auto logs = FilesOfType(dir.db(), DbFileType::kLog);
    ASSERT_EQ(logs.size(), 1u);
    Rewrite(logs[0], [&](std::string* c) {
      if (mode == 0) c->resize(c->size() - 3);
      if (mode == 1) (*c)[c->size() - 5] ^= 0x40;
      if (mode == 2) c->append("\x13\x00\x00\x00garbage", 11);
    });
    std::unique_ptr<DB> db;
    ASSERT_TRUE(DB::Open(o, dir.db(), &db).ok());
    const int present = CountPresent(db.get(), n);
    EXPECT_EQ(present, mode == 2 ? n : n - 1);  // exactly the damaged last write is lost
    if (mode != 2) {
      std::string v;
      EXPECT_TRUE(db->Get(ReadOptions(), Key(n - 1), &v).IsNotFound());
    }
    EXPECT_TRUE(AnyLineContains(log, "WARNING", "dropped"));
    const RecoveryStats r = db->GetStats().recovery;
    EXPECT_EQ(r.wal_damaged_regions, 1u);
    EXPECT_GT(r.wal_bytes_dropped, 0u);
    EXPECT_EQ(r.files_moved_to_lost, 1u);
    EXPECT_TRUE(Env::Default()->FileExists(LostDirName(dir.db()) + logs[0].substr(logs[0].rfind('/'))));
    std::string text;
    ASSERT_TRUE(db->GetProperty("filterlab.recovery-stats", &text));
    EXPECT_NE(text.find("wal_damaged_regions=1 "), std::string::npos) << text;
    // The recovered state is durable: a second reopen sees the same and warns no more.
    db.reset();
    log.Clear();
    ASSERT_TRUE(DB::Open(o, dir.db(), &db).ok());
    EXPECT_EQ(CountPresent(db.get(), n), present);
    EXPECT_FALSE(AnyLineContains(log, "WARNING", "dropped"));
  }
}

// A one-block WAL damaged in the middle: the reader drops the rest of the
// block, so everything from the damaged record on is dropped (a damaged
// tail), never a later record without its predecessors.
TEST(DBCorruption, WalDamageInTheLastBlockKeepsAPrefix) {
  ScratchDir dir;
  Captured log;
  const Options o = CorruptionOptions(&log);
  const int n = 100;
  WriteAndClose(o, dir.db(), n);
  const auto logs = FilesOfType(dir.db(), DbFileType::kLog);
  ASSERT_EQ(logs.size(), 1u);
  Rewrite(logs[0], [](std::string* c) { (*c)[c->size() / 2] ^= 0x01; });
  std::unique_ptr<DB> db;
  ASSERT_TRUE(DB::Open(o, dir.db(), &db).ok());
  const int present = CountPresent(db.get(), n);
  EXPECT_GT(present, 0);
  EXPECT_LT(present, n);
  std::string v;
  for (int i = 0; i < n; ++i) EXPECT_EQ(db->Get(ReadOptions(), Key(i), &v).ok(), i < present) << i;
  EXPECT_TRUE(AnyLineContains(log, "WARNING", "dropped"));
  EXPECT_EQ(db->GetStats().recovery.files_moved_to_lost, 1u);
}

// Small memtables, so MakeTableDb spreads data over several tables.
Options TableDbOptions(Captured* log) {
  Options o = CorruptionOptions(log);
  o.write_buffer_size = 16 << 10;
  return o;
}

// A database with data in tables at several levels, closed.
void MakeTableDb(const Options& o, const std::string& path) {
  std::unique_ptr<DB> db;
  ASSERT_TRUE(DB::Open(o, path, &db).ok());
  for (int i = 0; i < 3000; ++i) ASSERT_TRUE(db->Put(WriteOptions(), Key(i), Value(i, 0)).ok());
  ASSERT_TRUE(db->CompactRange(nullptr, nullptr).ok());
  for (int i = 0; i < 3000; i += 7) ASSERT_TRUE(db->Put(WriteOptions(), Key(i), Value(i, 0)).ok());
  ASSERT_TRUE(db->Flush(true).ok());
  ASSERT_TRUE(db->Close().ok());
}

void ExpectOpenFailsUntouched(const Options& o, const std::string& path, const std::string& needle) {
  const auto before = test::DirContents(path);
  std::unique_ptr<DB> db;
  Status s = DB::Open(o, path, &db);
  EXPECT_TRUE(s.IsCorruption()) << s.ToString();
  EXPECT_NE(s.message().find(needle), std::string::npos) << s.ToString();
  EXPECT_FALSE(db);
  EXPECT_TRUE(before == test::DirContents(path)) << "Open changed the directory";
}

TEST(DBCorruption, DamagedTableFailsOpenWithoutChangingFiles) {
  Captured log;
  const Options o = TableDbOptions(&log);
  // Footer, the metaindex/index region near the end, and a truncated file.
  for (int mode = 0; mode < 3; ++mode) {
    SCOPED_TRACE(mode);
    ScratchDir dir;
    MakeTableDb(o, dir.db());
    const auto tables = FilesOfType(dir.db(), DbFileType::kTable);
    ASSERT_GE(tables.size(), 2u);
    const std::string victim = tables[tables.size() / 2];
    Rewrite(victim, [&](std::string* c) {
      if (mode == 0) (*c)[c->size() - 10] ^= 0x20;
      if (mode == 1) (*c)[c->size() - 80] ^= 0x20;
      if (mode == 2) c->resize(c->size() - 1);
    });
    ExpectOpenFailsUntouched(o, dir.db(), victim.substr(victim.rfind('/') + 1));
  }
}

TEST(DBCorruption, DamagedDataBlock) {
  Captured log;
  const Options o = TableDbOptions(&log);
  ScratchDir dir;
  MakeTableDb(o, dir.db());
  const auto tables = FilesOfType(dir.db(), DbFileType::kTable);
  ASSERT_FALSE(tables.empty());
  Rewrite(tables[0], [](std::string* c) { (*c)[20] ^= 0x01; });  // inside the first data block
  // With paranoid_checks Open verifies every block and refuses.
  Options paranoid = o;
  paranoid.paranoid_checks = true;
  ExpectOpenFailsUntouched(paranoid, dir.db(), "data block");
  // Without, Open succeeds and reads of that block report the corruption
  // instead of returning wrong data; other keys still read fine.
  std::unique_ptr<DB> db;
  ASSERT_TRUE(DB::Open(o, dir.db(), &db).ok());
  int corrupt = 0, ok = 0;
  std::string v;
  for (int i = 0; i < 3000; ++i) {
    Status s = db->Get(ReadOptions(), Key(i), &v);
    if (s.IsCorruption()) {
      ++corrupt;
    } else {
      ASSERT_TRUE(s.ok()) << s.ToString();
      ASSERT_EQ(v, Value(i, 0));
      ++ok;
    }
  }
  EXPECT_GT(corrupt, 0);
  EXPECT_GT(ok, 0);
  auto it = db->NewIterator(ReadOptions());
  int scanned = 0;
  for (it->SeekToFirst(); it->Valid(); it->Next()) ++scanned;
  EXPECT_TRUE(it->status().IsCorruption()) << it->status().ToString();
}

TEST(DBCorruption, DamagedManifestOrCurrentFailsOpenWithoutChangingFiles) {
  Captured log;
  const Options o = TableDbOptions(&log);
  for (int mode : {0, 3, 4}) {
    SCOPED_TRACE(mode);
    ScratchDir dir;
    MakeTableDb(o, dir.db());
    const auto manifests = FilesOfType(dir.db(), DbFileType::kManifest);
    ASSERT_EQ(manifests.size(), 1u);
    std::string needle = "MANIFEST";
    if (mode == 0) Rewrite(manifests[0], [](std::string* c) { (*c)[c->size() / 2] ^= 0x04; });
    if (mode == 3) {
      Rewrite(CurrentFileName(dir.db()), [](std::string* c) { *c = "garbage"; });
      needle = "CURRENT";
    }
    if (mode == 4) {
      ASSERT_TRUE(Env::Default()->RemoveFile(CurrentFileName(dir.db())).ok());
      needle = "no CURRENT";
    }
    ExpectOpenFailsUntouched(o, dir.db(), needle);
  }
}

// A manifest whose last edit is cut short (what a crash during the append
// leaves) or followed by a stray byte opens without that edit, says so, and
// keeps any table the dropped edit named in lost/. The last edit is the
// final flush's (no background compaction after it): a crash can tear only
// an edit still being appended, and a compaction's inputs are deleted only
// once its edit is durable, so tearing a finished compaction's edit after
// its inputs are gone would model no crash.
TEST(DBCorruption, TornManifestTailIsDroppedAndReported) {
  Captured log;
  Options o = TableDbOptions(&log);
  o.disable_auto_compactions = true;
  for (int mode = 0; mode < 2; ++mode) {
    SCOPED_TRACE(mode);
    ScratchDir dir;
    MakeTableDb(o, dir.db());
    const auto manifests = FilesOfType(dir.db(), DbFileType::kManifest);
    ASSERT_EQ(manifests.size(), 1u);
    Rewrite(manifests[0], [&](std::string* c) {
      if (mode == 0) c->resize(c->size() - 1);
      if (mode == 1) c->append("x");
    });
    std::unique_ptr<DB> db;
    ASSERT_TRUE(DB::Open(o, dir.db(), &db).ok());
    const RecoveryStats r = db->GetStats().recovery;
    EXPECT_GT(r.manifest_bytes_dropped, 0u);
    // The last flush's table at least (with a dropped tail every table the
    // manifest does not name is kept).
    if (mode == 0) {
      EXPECT_GE(r.files_moved_to_lost, 1u);
    }
    EXPECT_TRUE(AnyLineContains(log, "WARNING", "torn last edit dropped"));
    // Every key is still there: the dropped flush only rewrote values held by older tables.
    std::string v;
    for (int i = 0; i < 3000; ++i) ASSERT_TRUE(db->Get(ReadOptions(), Key(i), &v).ok()) << i;
  }
}

TEST(DBCorruption, MissingTableFailsOpen) {
  Captured log;
  const Options o = TableDbOptions(&log);
  ScratchDir dir;
  MakeTableDb(o, dir.db());
  const auto tables = FilesOfType(dir.db(), DbFileType::kTable);
  ASSERT_FALSE(tables.empty());
  ASSERT_TRUE(Env::Default()->RemoveFile(tables.back()).ok());
  ExpectOpenFailsUntouched(o, dir.db(), "cannot be opened");
}

}  // namespace
}  // namespace filterlab::engine
