// ldb's dumps: records with their offsets, damage where it lies, and the
// summary Open's decision rests on (intact records after the first damage).
#include "engine/db/log_dump.h"

#include <gtest/gtest.h>

#include "engine/db/log_format.h"
#include "engine/db/log_writer.h"
#include "engine/db/manifest.h"
#include "engine/db/write_batch.h"

namespace filterlab::engine {
namespace {

std::string Wal(int batches) {
  std::string log;
  for (int i = 0; i < batches; ++i) {
    WriteBatch b;
    b.Put("key" + std::to_string(i), std::string(2000, 'v'));
    b.Delete("gone");
    WriteBatchInternal::SetSequence(&b, 1 + 2 * static_cast<uint64_t>(i));
    log::AppendRecord(&log, WriteBatchInternal::Contents(b));
  }
  return log;
}

TEST(LogDump, WalRecordsAndDamage) {
  std::string log = Wal(40);  // ~80 KB: three blocks
  LogDumpSummary sum;
  std::string text = DumpWal(log, "x.log", false, &sum);
  EXPECT_EQ(sum.records, 40u);
  EXPECT_EQ(sum.damaged_regions, 0u);
  EXPECT_NE(text.find("offset 0: batch seq 1, 2 op(s)\n  PUT 'key0' 2000 bytes\n  DELETE 'gone'"), std::string::npos)
      << text.substr(0, 200);
  EXPECT_NE(text.find("40 intact record(s), no damage"), std::string::npos);

  log[100] ^= 1;  // inside block 0: the rest of block 0 is lost, later blocks read on
  text = DumpWal(log, "x.log", false, &sum);
  EXPECT_EQ(sum.damaged_regions, 1u);
  EXPECT_NE(text.find("DAMAGED offset 0, "), std::string::npos) << text;
  EXPECT_GT(sum.records_after_damage, 20u);
  EXPECT_EQ(sum.records, sum.records_after_damage);
  EXPECT_NE(text.find("intact record(s) after the first\n"), std::string::npos);

  text = DumpWal(Wal(3).substr(0, 5000), "x.log", true, &sum);
  EXPECT_EQ(sum.records, 2u);
  EXPECT_EQ(sum.records_after_damage, 0u);
  EXPECT_NE(text.find("(torn tail)"), std::string::npos) << text;
  EXPECT_NE(text.find("(a damaged tail)"), std::string::npos) << text;
  EXPECT_NE(text.find("'vvvv"), std::string::npos);  // --values
}

TEST(LogDump, ManifestEditsAndState) {
  ManifestState st;
  st.version = std::make_shared<Version>(3);
  st.next_file_number = 10;
  std::string log;
  log::AppendRecord(&log, VersionEdit::Snapshot(st).Encode());
  VersionEdit e;
  e.num_levels = 3;
  e.next_file_number = 12;
  e.last_sequence = 5;
  auto f = std::make_shared<FileMetaData>();
  f->number = 11;
  f->file_size = 999;
  AppendInternalKey(&f->smallest, "a", 1, kTypeValue);
  AppendInternalKey(&f->largest, "m", 5, kTypeValue);
  f->smallest_seq = 1;
  f->largest_seq = 5;
  e.added.emplace_back(0, f);
  log::AppendRecord(&log, e.Encode());
  VersionEdit bad = e;  // deletes a table that is not there
  bad.added.clear();
  bad.deleted.emplace_back(1, 11);
  log::AppendRecord(&log, bad.Encode());
  LogDumpSummary sum;
  const std::string text = DumpManifest(log, "MANIFEST-000009", &sum);
  EXPECT_EQ(sum.records, 3u);
  EXPECT_TRUE(sum.bad_payload);
  EXPECT_NE(text.find("+ L0 #11 (999 bytes, 'a' .. 'm', seq 1..5)"), std::string::npos) << text;
  EXPECT_NE(text.find("BAD EDIT: does not apply: deletes table 11 which is not at level 1"), std::string::npos) << text;
  EXPECT_NE(text.find("state after the intact edits: log_number 0, next_file_number 12"), std::string::npos) << text;
}

}  // namespace
}  // namespace filterlab::engine
