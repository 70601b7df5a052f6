// Log format (log_format.h): round trips across block boundaries, and that
// every truncation and every single-byte corruption of a log costs exactly
// the records the damaged block touches — the reader resynchronises at the
// next block and reads the rest — with every dropped range reported.
#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

#include "engine/db/log_format.h"
#include "engine/db/log_reader.h"
#include "engine/db/log_test_util.h"
#include "engine/db/log_writer.h"
#include "engine/db/write_batch.h"
#include "engine/memtable/memtable.h"
#include "engine/util/coding.h"

namespace filterlab::engine {
namespace {

using log::kBlockSize;
using log::kHeaderSize;

std::string WriteLog(const std::vector<std::string>& records) {
  std::string out;
  log::Writer w(NewStringSink(&out));
  for (const auto& r : records) EXPECT_TRUE(w.AddRecord(r).ok());
  EXPECT_TRUE(w.Close().ok());
  EXPECT_EQ(w.bytes_written(), out.size());
  return out;
}

struct ReadResult {
  std::vector<std::string> records;
  std::vector<log::Damage> damages;
};

ReadResult ReadAll(const std::string& contents) {
  log::Reader reader(contents, "test.log");
  ReadResult r;
  Slice rec;
  while (reader.ReadRecord(&rec)) r.records.push_back(rec.ToString());
  r.damages = reader.damages();
  return r;
}

using test::FragmentSpan;
std::vector<FragmentSpan> Fragments(const std::string& log) { return test::LogFragments(log); }

// Sizes chosen to hit the block edges: a record ending 1..6 bytes before a
// block end (forcing padding), one ending exactly at it, ones spanning 1, 2
// and 3 blocks, and empty ones.
std::vector<std::string> EdgeRecords() {
  std::vector<std::string> r;
  r.push_back("");
  r.push_back(std::string(kBlockSize - 2 * kHeaderSize - 3, 'a'));  // leaves 3 bytes: padding
  r.push_back("after padding");
  r.push_back(std::string(kBlockSize - (kHeaderSize + 13) - kHeaderSize, 'b'));  // ends exactly at the block end
  r.push_back(std::string(2 * kBlockSize + 100, 'c'));
  r.push_back("");
  r.push_back(std::string(1000, 'd'));
  for (int i = 0; i < 20; ++i) r.push_back("small " + std::to_string(i));
  return r;
}

TEST(Log, RoundTripAcrossBlocks) {
  const auto records = EdgeRecords();
  const std::string log = WriteLog(records);
  const ReadResult r = ReadAll(log);
  EXPECT_EQ(r.records, records);
  EXPECT_TRUE(r.damages.empty());
  // The layout assumptions of EdgeRecords hold: padding after record 1, record 3 ends at a block end.
  const auto frags = Fragments(log);
  EXPECT_EQ(frags[2].start, kBlockSize);
  EXPECT_EQ(frags[3].end % kBlockSize, 0u);
  // AppendRecord (whole-file builders) and Writer produce the same bytes.
  std::string whole;
  for (const auto& rec : records) log::AppendRecord(&whole, rec);
  EXPECT_EQ(whole, log);
}

// Offsets tried: test::DamageOffsets (every header byte and block edge,
// every 7th byte elsewhere; every 56th under the sanitizers).

// A torn tail at any byte: exactly the records complete before the cut
// survive, and unless the cut falls between records (or in block padding)
// the dropped bytes are reported as an incomplete tail.
TEST(Log, TruncationsKeepTheCompleteRecords) {
  const auto records = EdgeRecords();
  const std::string full = WriteLog(records);
  const auto frags = Fragments(full);
  std::vector<uint64_t> record_end(records.size()), record_start(records.size());
  for (const auto& f : frags) record_end[f.record] = f.end;
  for (size_t i = frags.size(); i-- > 0;) record_start[frags[i].record] = frags[i].start;
  for (uint64_t len : test::DamageOffsets(full, 7)) {
    const ReadResult r = ReadAll(full.substr(0, len));
    size_t complete = 0;
    while (complete < records.size() && record_end[complete] <= len) ++complete;
    ASSERT_EQ(r.records, std::vector<std::string>(records.begin(), records.begin() + complete)) << len;
    const uint64_t clean_end = complete == 0 ? 0 : record_end[complete - 1];
    const uint64_t next_start = complete < records.size() ? record_start[complete] : full.size();
    const bool between_records = len >= clean_end && len <= next_start;
    ASSERT_EQ(r.damages.empty(), between_records) << len;
    if (!between_records) {
      ASSERT_EQ(r.damages.size(), 1u) << len;
      EXPECT_TRUE(r.damages[0].incomplete_tail) << len << " " << r.damages[0].reason;
      EXPECT_EQ(r.damages[0].offset + r.damages[0].bytes, len) << len;
    }
  }
}

// Any single flipped byte costs the records LossOfFlip names (those with a
// fragment in the rest of the damaged block); every other record is read
// back unchanged, the damage is reported (with the intact fragments behind
// a damaged length counted), and a flip in block padding changes nothing.
TEST(Log, ByteFlipsCostOnlyTheDamagedBlock) {
  const auto records = EdgeRecords();
  const std::string full = WriteLog(records);
  const auto frags = Fragments(full);
  for (uint64_t i : test::DamageOffsets(full, 7)) {
    if (i == full.size()) continue;
    std::string bad = full;
    bad[i] = static_cast<char>(bad[i] ^ 0x20);
    const test::FlipLoss loss = test::LossOfFlip(frags, i, full, bad[i]);
    const std::set<size_t>& lost = loss.lost;
    const bool in_fragment = !lost.empty();
    std::vector<std::string> expected;
    for (size_t k = 0; k < records.size(); ++k) {
      if (lost.count(k) == 0) expected.push_back(records[k]);
    }
    const ReadResult r = ReadAll(bad);
    ASSERT_EQ(r.records.size(), expected.size()) << i;
    ASSERT_EQ(r.records, expected) << i;
    ASSERT_EQ(r.damages.empty(), !in_fragment) << i;
    uint64_t intact = 0;
    for (const auto& d : r.damages) intact += d.intact_fragments;
    ASSERT_EQ(intact, loss.hidden) << i;
  }
}

// A whole block of garbage in the middle: the reader resynchronises at the
// next block and reports one damaged range covering what it dropped.
TEST(Log, ResynchronisesAfterADamagedBlock) {
  std::vector<std::string> records;
  for (int i = 0; i < 600; ++i) records.push_back("record " + std::to_string(i) + std::string(200, 'x'));
  std::string log = WriteLog(records);
  ASSERT_GT(log.size(), 3 * kBlockSize);
  for (size_t i = kBlockSize; i < 2 * kBlockSize; ++i) log[i] = static_cast<char>(i * 131);
  const ReadResult r = ReadAll(log);
  ASSERT_EQ(r.damages.size(), 1u);
  // The damage starts where the record running into block 1 starts (its
  // first fragment is intact, but it can no longer be completed).
  const auto frags = Fragments(WriteLog(records));
  uint64_t record_start = kBlockSize;
  for (const auto& f : frags) {
    if (f.start == kBlockSize) {
      for (const auto& g : frags) {
        if (g.record == f.record) {
          record_start = g.start;
          break;
        }
      }
    }
  }
  EXPECT_EQ(r.damages[0].offset, record_start);
  EXPECT_FALSE(r.damages[0].incomplete_tail);
  // Everything before the record straddling into the damaged block, and
  // everything starting after the first fragment that starts in block 2.
  ASSERT_GT(r.records.size(), 250u);
  EXPECT_EQ(r.records.front(), records.front());
  EXPECT_EQ(r.records.back(), records.back());
  size_t k = 0;
  for (const auto& rec : r.records) {
    while (k < records.size() && records[k] != rec) ++k;
    ASSERT_LT(k, records.size()) << "a record that was never written, or out of order";
  }
}

TEST(Log, ZeroFilledTailIsDamageNotRecords) {
  std::string log = WriteLog({"one", "two"});
  log.append(100, '\0');
  const ReadResult r = ReadAll(log);
  EXPECT_EQ(r.records, (std::vector<std::string>{"one", "two"}));
  ASSERT_EQ(r.damages.size(), 1u);
  EXPECT_EQ(r.damages[0].offset + r.damages[0].bytes, log.size());
}

TEST(WriteBatch, EncodingAndMalformedInput) {
  WriteBatch b;
  b.Put("k1", "v1");
  b.Delete("k2");
  b.Put("", "");
  EXPECT_EQ(b.Count(), 3u);
  WriteBatchInternal::SetSequence(&b, 100);
  std::unique_ptr<MemTable> mem;
  ASSERT_TRUE(MemTable::Create(MemTableOptions(), &mem).ok());
  ASSERT_TRUE(WriteBatchInternal::InsertInto(b, mem.get()).ok());
  EXPECT_EQ(mem->num_entries(), 3u);
  std::string v;
  EXPECT_EQ(mem->Get(LookupKey("k1", 100), &v), MemTable::GetResult::kFound);
  EXPECT_EQ(v, "v1");
  EXPECT_EQ(mem->Get(LookupKey("k2", 101), &v), MemTable::GetResult::kDeleted);
  EXPECT_EQ(mem->Get(LookupKey("k1", 99), &v), MemTable::GetResult::kNotFound);  // sequence 100 is newer

  // A truncated or mislabelled batch is refused as a whole.
  const std::string rep = WriteBatchInternal::Contents(b).ToString();
  for (size_t len = WriteBatchInternal::kHeaderSize; len < rep.size(); ++len) {
    WriteBatch t;
    ASSERT_TRUE(WriteBatchInternal::SetContents(&t, Slice(rep.data(), len)).ok());
    std::unique_ptr<MemTable> m;
    ASSERT_TRUE(MemTable::Create(MemTableOptions(), &m).ok());
    EXPECT_TRUE(WriteBatchInternal::InsertInto(t, m.get()).IsCorruption()) << len;
    EXPECT_EQ(m->num_entries(), 0u) << len;
  }
  WriteBatch t;
  EXPECT_TRUE(WriteBatchInternal::SetContents(&t, "short").IsCorruption());
  std::string bad_type = rep;
  bad_type[WriteBatchInternal::kHeaderSize] = 9;
  ASSERT_TRUE(WriteBatchInternal::SetContents(&t, bad_type).ok());
  std::unique_ptr<MemTable> m;
  ASSERT_TRUE(MemTable::Create(MemTableOptions(), &m).ok());
  const Status s = WriteBatchInternal::InsertInto(t, m.get());
  EXPECT_TRUE(s.IsCorruption());
  EXPECT_NE(s.message().find("unknown type 9"), std::string::npos) << s.ToString();
}

}  // namespace
}  // namespace filterlab::engine
