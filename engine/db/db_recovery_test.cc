// Recovery from damaged logs: every single-byte flip and every truncation of
// a WAL and of a manifest of a small test database, opened under each
// WalRecoveryMode. Open either fails with a Corruption naming the file and
// leaves the directory as it was, or opens with exactly the writes the
// damage did not touch (the prefix before it, or for skip mode every intact
// record) and reports what it dropped. Never a silent loss, never a crash.
//
// The WAL offsets tried (flips and cuts): test::DamageOffsets, every header
// byte and block edge and every 61st byte elsewhere (every 488th under the
// sanitizers; bytes inside one payload all break the same checksum);
// FILTERLAB_LONG_RECOVERY_TEST=1 tries
// every offset. The manifest (about 1 KiB) gets every offset always.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "engine/db/db.h"
#include "engine/db/db_test_util.h"
#include "engine/db/log_format.h"
#include "engine/db/log_test_util.h"

namespace filterlab::engine {
namespace {

using test::Key;
using test::ScratchDir;

constexpr int kWalRecords = 48;  // ~1 KiB each: the WAL spans two blocks

std::string BigValue(int i) { return test::Value(i, 0, 1000); }

Options RecoveryOptions(WalRecoveryMode mode) {
  Options o = test::SmallOptions();
  o.write_buffer_size = 4 << 20;  // every write stays in the WAL
  o.wal_recovery_mode = mode;
  return o;
}

using Files = std::map<std::string, std::string>;

void Restore(const std::string& db, const Files& files) {
  ScratchDir::RemoveTree(db);
  ASSERT_TRUE(Env::Default()->CreateDir(db).ok());
  for (const auto& [name, contents] : files) {
    ASSERT_TRUE(WriteStringToFile(Env::Default(), db + "/" + name, contents, false).ok());
  }
}

std::string OnlyFileOfType(const Files& files, DbFileType want) {
  std::string found;
  for (const auto& [name, contents] : files) {
    uint64_t number;
    if (ParseDbFileName(name, &number) == want) {
      EXPECT_TRUE(found.empty()) << "two files of the type: " << found << " " << name;
      found = name;
    }
  }
  return found;
}

bool LongRun() {
  const char* v = std::getenv("FILTERLAB_LONG_RECOVERY_TEST");
  return v != nullptr && *v != '\0' && std::string(v) != "0";
}

// The offsets a damage test tries (see the file comment).
std::vector<uint64_t> Offsets(const std::string& log) { return test::DamageOffsets(log, LongRun() ? 1 : 61); }

// The keys a DB holds among 0..n-1 (values checked).
std::set<int> PresentKeys(DB* db, int n) {
  std::set<int> present;
  std::string v;
  for (int i = 0; i < n; ++i) {
    Status s = db->Get(ReadOptions(), Key(i), &v);
    if (s.ok()) {
      EXPECT_EQ(v, BigValue(i)) << i;
      present.insert(i);
    } else {
      EXPECT_TRUE(s.IsNotFound()) << s.ToString();
    }
  }
  return present;
}

class WalDamage : public ::testing::Test {
 protected:
  void SetUp() override {
    const Options o = RecoveryOptions(WalRecoveryMode::kTolerateCorruptedTailRecords);
    std::unique_ptr<DB> db;
    ASSERT_TRUE(DB::Open(o, dir_.db(), &db).ok());
    for (int i = 0; i < kWalRecords; ++i) ASSERT_TRUE(db->Put(WriteOptions(), Key(i), BigValue(i)).ok());
    ASSERT_TRUE(db->Close().ok());
    db.reset();
    files_ = test::DirContents(dir_.db());
    files_.erase("LOCK");
    log_name_ = OnlyFileOfType(files_, DbFileType::kLog);
    log_ = files_[log_name_];
    frags_ = test::LogFragments(log_);
    ASSERT_GT(log_.size(), log::kBlockSize);  // damage in block 0 has intact records after it
  }

  // Opens the damaged copy under `mode` and checks the outcome against
  // `kept` (the records the damage leaves intact).
  // `hidden`: intact records the reader counts but cannot read (behind a
  // damaged length, test::LossOfFlip); they count as records after the damage.
  void Check(const std::string& damaged, WalRecoveryMode mode, const std::set<int>& kept, bool any_damage,
             const std::string& what, uint64_t hidden = 0) {
    SCOPED_TRACE(what + " mode " + WalRecoveryModeName(mode));
    Files files = files_;
    files[log_name_] = damaged;
    Restore(dir_.db(), files);
    int first_lost = kWalRecords;
    for (int i = 0; i < kWalRecords; ++i) {
      if (kept.count(i) == 0) {
        first_lost = i;
        break;
      }
    }
    int after = static_cast<int>(hidden);  // intact records after the first lost one
    for (int i = first_lost; i < kWalRecords; ++i) after += kept.count(i) > 0;
    const bool refuse = (mode == WalRecoveryMode::kAbsoluteConsistency && any_damage) ||
                        (mode == WalRecoveryMode::kTolerateCorruptedTailRecords && after > 0);
    std::unique_ptr<DB> db;
    const Status s = DB::Open(RecoveryOptions(mode), dir_.db(), &db);
    if (refuse) {
      ASSERT_TRUE(s.IsCorruption()) << s.ToString();
      EXPECT_NE(s.message().find(log_name_), std::string::npos) << s.ToString();
      EXPECT_NE(s.message().find("offset"), std::string::npos) << s.ToString();
      EXPECT_NE(s.message().find(std::to_string(after) + " intact record(s) follow"), std::string::npos)
          << s.ToString();
      Files now = test::DirContents(dir_.db());
      now.erase("LOCK");
      ASSERT_TRUE(now == files) << "a refused Open changed the directory";
      return;
    }
    ASSERT_TRUE(s.ok()) << s.ToString();
    std::set<int> expect;
    for (int i = 0; i < kWalRecords; ++i) {
      const bool prefix = i < first_lost;
      if (mode == WalRecoveryMode::kSkipAnyCorruptedRecords ? kept.count(i) > 0 : prefix) expect.insert(i);
    }
    ASSERT_EQ(PresentKeys(db.get(), kWalRecords), expect);
    const RecoveryStats r = db->GetStats().recovery;
    EXPECT_EQ(r.wal_records_replayed, expect.size());
    if (!any_damage) {
      EXPECT_EQ(r.wal_damaged_regions, 0u);
      EXPECT_EQ(r.files_moved_to_lost, 0u);
      return;
    }
    // Reported, and the damaged log kept.
    EXPECT_GE(r.wal_damaged_regions, 1u);
    EXPECT_GT(r.wal_bytes_dropped, 0u);
    EXPECT_EQ(r.files_moved_to_lost, 1u);
    EXPECT_TRUE(Env::Default()->FileExists(LostDirName(dir_.db()) + "/" + log_name_));
    if (mode == WalRecoveryMode::kPointInTimeRecovery) {
      EXPECT_EQ(r.wal_records_dropped, static_cast<uint64_t>(after));
    }
    if (mode == WalRecoveryMode::kSkipAnyCorruptedRecords) {
      // The lost records with a kept one after them are known by their sequence numbers.
      uint64_t known = 0;
      if (!expect.empty()) {
        for (int i = *expect.begin(); i < *expect.rbegin(); ++i) known += expect.count(i) == 0;
      }
      EXPECT_EQ(r.wal_writes_dropped, known);
    }
    // What was recovered is durable: a reopen finds it with nothing more to drop.
    db.reset();
    ASSERT_TRUE(DB::Open(RecoveryOptions(mode), dir_.db(), &db).ok());
    EXPECT_EQ(PresentKeys(db.get(), kWalRecords), expect);
    EXPECT_EQ(db->GetStats().recovery.wal_damaged_regions, 0u);
  }

  ScratchDir dir_{true};
  Files files_;
  std::string log_name_, log_;
  std::vector<test::FragmentSpan> frags_;
};

constexpr WalRecoveryMode kModes[] = {WalRecoveryMode::kTolerateCorruptedTailRecords,
                                      WalRecoveryMode::kAbsoluteConsistency, WalRecoveryMode::kPointInTimeRecovery,
                                      WalRecoveryMode::kSkipAnyCorruptedRecords};

TEST_F(WalDamage, ByteFlips) {
  for (uint64_t at : Offsets(log_)) {
    if (at == log_.size()) continue;
    std::string bad = log_;
    bad[at] = static_cast<char>(bad[at] ^ 0x10);
    const test::FlipLoss loss = test::LossOfFlip(frags_, at, log_, bad[at]);
    std::set<int> kept;
    for (int i = 0; i < kWalRecords; ++i) {
      if (loss.lost.count(static_cast<size_t>(i)) == 0) kept.insert(i);
    }
    for (WalRecoveryMode mode : kModes) {
      Check(bad, mode, kept, !loss.lost.empty(), "flip at " + std::to_string(at), loss.hidden);
      if (HasFatalFailure()) return;
    }
  }
}

TEST_F(WalDamage, Truncations) {
  std::vector<uint64_t> record_end(kWalRecords, 0), record_start(kWalRecords, 0);
  for (const auto& f : frags_) record_end[f.record] = f.end;
  for (size_t i = frags_.size(); i-- > 0;) record_start[frags_[i].record] = frags_[i].start;
  for (uint64_t len : Offsets(log_)) {
    if (len == log_.size()) continue;
    std::set<int> kept;
    for (int i = 0; i < kWalRecords; ++i) {
      if (record_end[i] <= len) kept.insert(i);
    }
    const int complete = static_cast<int>(kept.size());
    const bool clean = complete < kWalRecords && len <= record_start[complete] &&
                       len >= (complete == 0 ? 0 : record_end[complete - 1]);
    // Absolute consistency and the default on every length; the lossy modes keep the same prefix.
    for (WalRecoveryMode mode :
         {WalRecoveryMode::kTolerateCorruptedTailRecords, WalRecoveryMode::kAbsoluteConsistency}) {
      Check(log_.substr(0, len), mode, kept, !clean, "truncated to " + std::to_string(len));
      if (HasFatalFailure()) return;
    }
    if (len % 7 == 0 || LongRun()) {
      for (WalRecoveryMode mode : {WalRecoveryMode::kPointInTimeRecovery, WalRecoveryMode::kSkipAnyCorruptedRecords}) {
        Check(log_.substr(0, len), mode, kept, !clean, "truncated to " + std::to_string(len));
        if (HasFatalFailure()) return;
      }
    }
  }
}

// A manifest of a snapshot and several edits.
class ManifestDamage : public ::testing::Test {
 protected:
  static constexpr int kKeys = 60;
  void SetUp() override {
    Options o = RecoveryOptions(WalRecoveryMode::kTolerateCorruptedTailRecords);
    o.write_buffer_size = 1 << 20;
    o.disable_auto_compactions = true;
    std::unique_ptr<DB> db;
    ASSERT_TRUE(DB::Open(o, dir_.db(), &db).ok());
    for (int round = 0; round < 4; ++round) {
      for (int i = round * kKeys / 4; i < (round + 1) * kKeys / 4; ++i) {
        ASSERT_TRUE(db->Put(WriteOptions(), Key(i), BigValue(i)).ok());
      }
      ASSERT_TRUE(db->Flush(true).ok());  // one edit per flush
    }
    ASSERT_TRUE(db->Close().ok());
    db.reset();
    files_ = test::DirContents(dir_.db());
    files_.erase("LOCK");
    name_ = OnlyFileOfType(files_, DbFileType::kManifest);
    manifest_ = files_[name_];
    frags_ = test::LogFragments(manifest_);
    ASSERT_EQ(frags_.back().record, 4u);  // snapshot + 4 edits
  }

  // Open of a damaged copy: a Corruption naming the manifest with the
  // directory untouched, or an open DB that reports the dropped bytes
  // whenever a key is missing; and what it has is right.
  // `intact_edits`: the leading records the damage leaves whole (record 0
  // is the snapshot of the empty DB, record j the flush of quarter j - 1).
  void Check(const std::string& damaged, size_t intact_edits, const std::string& what) {
    SCOPED_TRACE(what);
    Files files = files_;
    files[name_] = damaged;
    Restore(dir_.db(), files);
    std::unique_ptr<DB> db;
    const Status s = DB::Open(RecoveryOptions(WalRecoveryMode::kTolerateCorruptedTailRecords), dir_.db(), &db);
    if (!s.ok()) {
      ASSERT_TRUE(s.IsCorruption()) << s.ToString();
      EXPECT_NE(s.message().find(name_), std::string::npos) << s.ToString();
      Files now = test::DirContents(dir_.db());
      now.erase("LOCK");
      ASSERT_TRUE(now == files) << "a refused Open changed the directory";
      ++refused_;
      return;
    }
    const std::set<int> present = PresentKeys(db.get(), kKeys);
    const RecoveryStats r = db->GetStats().recovery;
    const bool reported = r.manifest_bytes_dropped > 0 || r.files_moved_to_lost > 0;
    if (damaged != manifest_) {
      EXPECT_TRUE(reported) << "damage accepted without a report";
      ++opened_lossy_;
    }
    if (!reported) {
      EXPECT_EQ(present.size(), static_cast<size_t>(kKeys));
    }
    // The edits before the damage survive.
    const int flushed_before = intact_edits == 0 ? 0 : static_cast<int>(intact_edits) - 1;
    for (int i = 0; i < flushed_before * kKeys / 4; ++i) EXPECT_TRUE(present.count(i) > 0) << i;
  }

  ScratchDir dir_{true};
  Files files_;
  std::string name_, manifest_;
  std::vector<test::FragmentSpan> frags_;
  int refused_ = 0, opened_lossy_ = 0;
};

TEST_F(ManifestDamage, EveryByteFlip) {
  for (uint64_t at = 0; at < manifest_.size(); ++at) {
    std::string bad = manifest_;
    bad[at] = static_cast<char>(bad[at] ^ 0x10);
    size_t intact = 0;
    for (const auto& f : frags_) {
      if (f.end <= at) intact = f.record + 1;
    }
    Check(bad, intact, "flip at " + std::to_string(at));
    if (HasFatalFailure()) return;
  }
  EXPECT_GT(refused_, 0);
}

TEST_F(ManifestDamage, EveryTruncation) {
  const uint64_t last_edit_start = frags_.back().start;
  for (uint64_t len = 0; len < manifest_.size(); ++len) {
    size_t intact = 0;
    for (const auto& f : frags_) {
      if (f.end <= len) intact = f.record + 1;
    }
    Check(manifest_.substr(0, len), intact, "truncated to " + std::to_string(len));
    if (HasFatalFailure()) return;
  }
  // Cuts inside the snapshot refuse (no intact edit); cuts in the last edit open without it.
  EXPECT_GT(refused_, 0);
  EXPECT_EQ(opened_lossy_, static_cast<int>(manifest_.size() - frags_.front().end));
  EXPECT_GT(manifest_.size(), last_edit_start);
}

}  // namespace
}  // namespace filterlab::engine

namespace filterlab::engine {
namespace {

TEST(WalRecoveryModeOption, NamesNumbersAndBadValues) {
  WalRecoveryMode m = WalRecoveryMode::kTolerateCorruptedTailRecords;
  ASSERT_TRUE(ParseWalRecoveryMode("point_in_time", &m).ok());
  EXPECT_EQ(m, WalRecoveryMode::kPointInTimeRecovery);
  ASSERT_TRUE(ParseWalRecoveryMode("3", &m).ok());  // RocksDB's number
  EXPECT_EQ(m, WalRecoveryMode::kSkipAnyCorruptedRecords);
  for (const char* bad : {"", "4", "pointintime", "-1"}) {
    const Status s = ParseWalRecoveryMode(bad, &m);
    EXPECT_TRUE(s.IsInvalidArgument()) << bad;
    EXPECT_NE(s.message().find("absolute_consistency (1)"), std::string::npos) << s.ToString();
  }
  Options o;
  o.wal_recovery_mode = static_cast<WalRecoveryMode>(7);
  const Status s = o.Validate();
  EXPECT_TRUE(s.IsInvalidArgument());
  EXPECT_NE(s.message().find("wal_recovery_mode = 7"), std::string::npos) << s.ToString();
}

}  // namespace
}  // namespace filterlab::engine
