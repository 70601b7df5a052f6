// WAL record framing: round trips, and that every truncation and every
// single-byte corruption of a log yields a prefix of the records written
// (never an altered or invented one), with the reason reported.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "engine/db/log_format.h"
#include "engine/db/log_reader.h"
#include "engine/db/log_writer.h"
#include "engine/db/write_batch.h"
#include "engine/memtable/memtable.h"

namespace filterlab::engine {
namespace {

std::vector<std::string> Records() {
  return {"", "a", std::string(1000, 'x'), "hello world", std::string(1 << 20, 'y')};
}

std::string WriteLog(const std::vector<std::string>& records) {
  std::string out;
  log::Writer w(NewStringSink(&out));
  for (const auto& r : records) EXPECT_TRUE(w.AddRecord(r).ok());
  EXPECT_TRUE(w.Close().ok());
  return out;
}

std::vector<std::string> ReadAll(const std::string& contents, std::string* problem) {
  log::Reader reader(contents, "test.log");
  std::vector<std::string> out;
  Slice rec;
  while (reader.ReadRecord(&rec)) out.push_back(rec.ToString());
  *problem = reader.tail_problem();
  return out;
}

TEST(Log, RoundTrip) {
  const auto records = Records();
  std::string problem;
  EXPECT_EQ(ReadAll(WriteLog(records), &problem), records);
  EXPECT_EQ(problem, "");
}

// A torn tail at any byte: exactly the complete records before it survive.
TEST(Log, EveryTruncationYieldsAPrefix) {
  const std::vector<std::string> records = {"first", "", "third record", std::string(300, 'z')};
  const std::string full = WriteLog(records);
  std::vector<size_t> ends;
  size_t pos = 0;
  for (const auto& r : records) ends.push_back(pos += log::kHeaderSize + r.size());
  for (size_t len = 0; len < full.size(); ++len) {
    std::string problem;
    const auto got = ReadAll(full.substr(0, len), &problem);
    size_t complete = 0;
    while (complete < ends.size() && ends[complete] <= len) ++complete;
    ASSERT_EQ(got, std::vector<std::string>(records.begin(), records.begin() + complete)) << len;
    ASSERT_EQ(problem.empty(), len == 0 || len == ends[complete - 1 + (complete == 0)]) << len;
  }
}

// Any single flipped byte: the records before the damaged one survive
// unchanged and nothing after it is read.
TEST(Log, EveryByteFlipYieldsAPrefix) {
  const std::vector<std::string> records = {"alpha", "beta", "gamma delta", std::string(100, 'q')};
  const std::string full = WriteLog(records);
  size_t record_start = 0, index = 0;
  for (size_t i = 0; i < full.size(); ++i) {
    while (i >= record_start + log::kHeaderSize + records[index].size()) {
      record_start += log::kHeaderSize + records[index].size();
      ++index;
    }
    for (uint8_t flip : {0x01, 0x80, 0xff}) {
      std::string bad = full;
      bad[i] = static_cast<char>(bad[i] ^ flip);
      std::string problem;
      const auto got = ReadAll(bad, &problem);
      ASSERT_EQ(got, std::vector<std::string>(records.begin(), records.begin() + index)) << i;
      ASSERT_FALSE(problem.empty()) << i;
    }
  }
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
