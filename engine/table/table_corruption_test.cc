// Damaged tables: every single-byte change, every truncation, a wrong magic
// number and hand-made tables with impossible handles must give a Corruption
// naming the file and the block (or the footer) — never a crash, a hang or a
// wrong answer.
#include <gtest/gtest.h>

#include <cstdio>
#include <string>
#include <vector>

#include "engine/table/block_builder.h"
#include "engine/table/format.h"
#include "engine/table/table_builder.h"
#include "engine/table/table_reader.h"
#include "engine/table/table_test_util.h"
#include "engine/util/coding.h"

namespace filterlab::engine {
namespace {

using testing::BuildTable;
using testing::DataSetOptions;
using testing::Entry;
using testing::LookupTarget;
using testing::ModelGet;
using testing::OpenTable;
using testing::PolicyOrNone;
using testing::RandomEntries;

constexpr char kName[] = "damaged.sst";

// A Corruption that says where: the file and a block (kind + offset) or the footer.
::testing::AssertionResult NamesFileAndBlock(const Status& s) {
  if (!s.IsCorruption()) return ::testing::AssertionFailure() << "not a Corruption: " << s.ToString();
  const std::string& m = s.message();
  const bool names_file = m.find(kName) != std::string::npos;
  const bool names_block =
      m.find("block at offset ") != std::string::npos || m.find("footer of table") != std::string::npos;
  if (!names_file || !names_block) return ::testing::AssertionFailure() << "message lacks file or block: " << m;
  return ::testing::AssertionSuccess();
}

// Opens the table and reads everything through every path. Returns the
// first error, after checking that every answer given before it (and every
// answer at all if there is none) is right.
Status ReadEverything(const std::string& bytes, const std::vector<Entry>& model) {
  std::unique_ptr<TableReader> table;
  Status s = OpenTable(bytes, kName, &table);
  if (!s.ok()) return s;
  Status first;
  auto it = table->NewIterator();
  size_t i = 0;
  for (it->SeekToFirst(); it->Valid(); it->Next(), ++i) {
    EXPECT_LT(i, model.size());
    if (i >= model.size()) return Status::OK();
    EXPECT_EQ(it->key(), Slice(model[i].ikey));
    EXPECT_EQ(it->value(), Slice(model[i].value));
  }
  if (!it->status().ok()) {
    first = it->status();
  } else {
    EXPECT_EQ(i, model.size()) << "a clean scan must return every entry";
  }
  std::vector<std::string> targets;
  for (const auto& e : model) targets.push_back(LookupTarget(ExtractUserKey(e.ikey), kMaxSequenceNumber));
  targets.push_back(LookupTarget("absent key", kMaxSequenceNumber));
  auto check = [&](const std::string& t, const LookupResult& r) {
    if (!r.status.ok()) {
      if (first.ok()) first = r.status;
      return;
    }
    const Entry* want = ModelGet(model, t);
    EXPECT_EQ(r.found, want != nullptr);
    if (want && r.found) {
      EXPECT_EQ(r.internal_key, want->ikey);
      EXPECT_EQ(r.value, want->value);
    }
  };
  LookupResult r;
  for (const auto& t : targets) {
    table->Get(t, &r);
    check(t, r);
  }
  std::vector<Slice> batch(targets.begin(), targets.end());
  std::vector<LookupResult> results(batch.size());
  table->MultiGet(batch.data(), batch.size(), results.data());
  for (size_t k = 0; k < batch.size(); ++k) check(targets[k], results[k]);
  return first;
}

std::vector<Entry> SmallModel() {
  DataSetOptions d;
  d.num_user_keys = 40;
  d.max_key_len = 12;
  d.max_value_len = 12;
  return RandomEntries(d, 21);
}

TableOptions SmallTableOptions(ChecksumType type) {
  TableOptions o;
  o.block_size = 256;  // several data blocks
  o.restart_interval = 4;
  o.use_hash_index = true;
  o.filter_policy = PolicyOrNone("fastlocal:bpk=10");
  o.checksum_type = type;
  return o;
}

// Every byte of the table is inside a checksummed block or trailer, or in
// the checksummed footer, so every single-byte change must be reported. The
// test changes each byte once, cycling through three masks (low bit, high
// bit, all bits) from byte to byte.
TEST(TableCorruption, EverySingleByteChangeIsReported) {
  const auto model = SmallModel();
  for (ChecksumType type : {ChecksumType::kCRC32C, ChecksumType::kXXH3}) {
    SCOPED_TRACE(ChecksumTypeName(type));
    TableProperties props;
    const std::string good = BuildTable(SmallTableOptions(type), model, &props);
    ASSERT_GE(props.num_data_blocks, 4u);
    ASSERT_TRUE(ReadEverything(good, model).ok());
    size_t reported = 0, tried = 0;
    for (size_t pos = 0; pos < good.size(); ++pos) {
      {
        const int mask = (0x01 << 16 | 0x80 << 8 | 0xff) >> (8 * (pos % 3)) & 0xff;
        std::string bad = good;
        bad[pos] = static_cast<char>(bad[pos] ^ mask);
        const Status s = ReadEverything(bad, model);
        ++tried;
        if (::testing::Test::HasFailure()) {
          FAIL() << "wrong answer after changing byte " << pos << " of " << good.size() << " with mask " << mask;
        }
        ASSERT_FALSE(s.ok()) << "change at byte " << pos << " (mask " << mask << ") went unnoticed";
        ASSERT_TRUE(NamesFileAndBlock(s)) << "byte " << pos;
        ++reported;
      }
    }
    EXPECT_EQ(reported, tried);
  }
}

TEST(TableCorruption, EveryTruncationIsReported) {
  const auto model = SmallModel();
  const std::string good = BuildTable(SmallTableOptions(ChecksumType::kCRC32C), model);
  for (size_t len = 0; len < good.size(); ++len) {
    std::unique_ptr<TableReader> table;
    Status s = OpenTable(good.substr(0, len), kName, &table);
    ASSERT_TRUE(s.IsCorruption()) << len << ": " << s.ToString();
    ASSERT_NE(s.message().find(kName), std::string::npos) << s.ToString();
  }
  // Bytes appended after the footer move it: also a wrong magic.
  std::unique_ptr<TableReader> table;
  Status s = OpenTable(good + "x", kName, &table);
  EXPECT_TRUE(s.IsCorruption() && s.message().find("wrong magic") != std::string::npos) << s.ToString();
}

TEST(TableCorruption, WrongMagicAndForeignFiles) {
  const auto model = SmallModel();
  std::string bad = BuildTable(SmallTableOptions(ChecksumType::kCRC32C), model);
  EncodeFixed64(bad.data() + bad.size() - 8, 0xdb4775248b80fb57ull);  // LevelDB's magic
  std::unique_ptr<TableReader> table;
  Status s = OpenTable(bad, kName, &table);
  EXPECT_TRUE(s.IsCorruption());
  EXPECT_TRUE(NamesFileAndBlock(s));
  EXPECT_NE(s.message().find("wrong magic number 0xdb4775248b80fb57"), std::string::npos) << s.ToString();
  s = OpenTable(std::string(1000, 'z'), kName, &table);
  EXPECT_TRUE(s.IsCorruption() && s.message().find("wrong magic") != std::string::npos) << s.ToString();
  s = OpenTable("", kName, &table);
  EXPECT_TRUE(s.IsCorruption() && s.message().find("shorter than the 57-byte footer") != std::string::npos)
      << s.ToString();
}

// Hand-assembled tables whose checksums are all right but whose handles or
// meta blocks are impossible.
class TableAssembler {
 public:
  explicit TableAssembler(ChecksumType type = ChecksumType::kCRC32C) : type_(type) {}
  BlockHandle Add(const std::string& contents) {
    BlockHandle h{bytes_.size(), contents.size()};
    bytes_ += contents;
    bytes_ += MakeBlockTrailer(type_, contents);
    return h;
  }
  static std::string Block(const std::vector<std::pair<std::string, std::string>>& kvs, int restart = 1) {
    BlockBuilderOptions o;
    o.restart_interval = restart;
    BlockBuilder b(o);
    for (const auto& [k, v] : kvs) b.Add(k, v);
    return b.Finish().ToString();
  }
  static std::string Handle(const BlockHandle& h) {
    std::string s;
    h.EncodeTo(&s);
    return s;
  }
  std::string Finish(const BlockHandle& metaindex, const BlockHandle& index) {
    Footer f;
    f.checksum_type = type_;
    f.metaindex_handle = metaindex;
    f.index_handle = index;
    std::string out = bytes_;
    f.EncodeTo(&out);
    return out;
  }

 private:
  ChecksumType type_;
  std::string bytes_;
};

// A one-block table whose index entry is `index_value` and whose properties
// come from `props`.
std::string AssembleTable(const std::string& index_value, TableProperties props, bool name_filter = false) {
  TableAssembler a;
  const std::string ikey = LookupTarget("k", 1);
  const BlockHandle data = a.Add(TableAssembler::Block({{ikey, "v"}}));
  const std::string index = TableAssembler::Block({{ikey, index_value}});
  props.index_size = index.size();
  const BlockHandle index_handle = a.Add(index);
  const BlockHandle props_handle = a.Add(props.Encode());
  std::vector<std::pair<std::string, std::string>> meta;
  // The "filter" is the data block: checks on the spec come before its bytes are read.
  if (name_filter) meta.push_back({kFilterBlockName, TableAssembler::Handle(data)});
  meta.push_back({kPropertiesBlockName, TableAssembler::Handle(props_handle)});
  const BlockHandle metaindex = a.Add(TableAssembler::Block(meta));
  return a.Finish(metaindex, index_handle);
}

TEST(TableCorruption, ImpossibleHandlesAndMetaBlocks) {
  const std::string target = LookupTarget("k", 5);
  const uint64_t data_size = TableAssembler::Block({{LookupTarget("k", 1), "v"}}).size();
  const std::string good = TableAssembler::Handle({0, data_size});
  auto get_status = [&](const std::string& bytes) {
    std::unique_ptr<TableReader> table;
    Status s = OpenTable(bytes, kName, &table);
    if (!s.ok()) return s;
    LookupResult r;
    return table->Get(target, &r);
  };
  // Sanity: the assembler makes a readable table.
  {
    std::unique_ptr<TableReader> table;
    Status s = OpenTable(AssembleTable(good, {}), kName, &table);
    ASSERT_TRUE(s.ok()) << s.ToString();
    LookupResult r;
    ASSERT_TRUE(table->Get(target, &r).ok());
    EXPECT_TRUE(r.found);
    EXPECT_EQ(r.value, "v");
  }
  const uint64_t max = ~uint64_t{0};
  struct Case {
    std::string index_value;
    const char* expect;
  } cases[] = {
      {TableAssembler::Handle({0, data_size + 1}), "checksum mismatch"},         // wrong size
      {TableAssembler::Handle({1, data_size}), "checksum mismatch"},             // wrong offset
      {TableAssembler::Handle({5000, data_size}), "not below the index block"},  // past the data
      {TableAssembler::Handle({0, max}), "do not fit"},                          // absurd size
      {TableAssembler::Handle({0, max - 3}), "do not fit"},                      // size that wraps around
      {good + "x", "exactly one block handle"},
      {"\x80", "exactly one block handle"},
  };
  for (const Case& c : cases) {
    Status s = get_status(AssembleTable(c.index_value, {}));
    EXPECT_TRUE(NamesFileAndBlock(s)) << c.expect;
    EXPECT_NE(s.message().find(c.expect), std::string::npos) << s.ToString();
  }
  TableProperties unknown_filter;
  unknown_filter.filter_spec = "nosuchfilter:bpk=10";
  unknown_filter.filter_size = data_size;
  Status s = get_status(AssembleTable(good, unknown_filter, true));
  EXPECT_TRUE(NamesFileAndBlock(s));
  EXPECT_NE(s.message().find("cannot be used"), std::string::npos) << s.ToString();
  // A spec without a filter block, or a filter block without a spec.
  TableProperties spec_only;
  spec_only.filter_spec = "fastlocal:bpk=10";
  spec_only.filter_size = data_size;
  s = get_status(AssembleTable(good, spec_only, false));
  EXPECT_TRUE(NamesFileAndBlock(s) && s.message().find("does not name") != std::string::npos) << s.ToString();
  s = get_status(AssembleTable(good, {}, true));
  EXPECT_TRUE(NamesFileAndBlock(s) && s.message().find("but the metaindex names") != std::string::npos) << s.ToString();
  // A valid spec over bytes that were never a filter: here the data block's
  // last five bytes (00 01 00 00 00) read as a RocksDB filter trailer with
  // 0 probes, which RocksDB's format defines as "always true". Accepting it
  // is right (the checksums hold, and the filter can only say "maybe"); what
  // matters is that no answer is wrong.
  {
    std::unique_ptr<TableReader> table;
    ASSERT_TRUE(OpenTable(AssembleTable(good, spec_only, true), kName, &table).ok());
    std::printf("[ info ] non-filter bytes opened as filter '%s'\n", table->DescribeFilter().c_str());
    LookupResult r;
    ASSERT_TRUE(table->Get(target, &r).ok());
    EXPECT_TRUE(r.found);
    ASSERT_TRUE(table->Get(LookupTarget("other", 5), &r).ok());
    EXPECT_FALSE(r.found);
  }
}

}  // namespace
}  // namespace filterlab::engine
