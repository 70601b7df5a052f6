#include "engine/table/block.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "engine/memtable/internal_key.h"
#include "engine/table/block_builder.h"
#include "engine/util/coding.h"
#include "hashing/remix.h"

namespace filterlab::engine {
namespace {

struct Entry {
  std::string ikey;
  std::string value;
};

bool EntryLess(const Entry& a, const Entry& b) { return CompareInternalKeys(a.ikey, b.ikey) < 0; }

// Random binary user keys (1..max_len bytes, small alphabet so prefixes are
// shared), 1–3 versions each, random value types among the point types.
std::vector<Entry> RandomEntries(size_t n_user_keys, size_t max_len, uint64_t seed) {
  SplitMix64 rng(seed);
  std::map<std::string, int> user_keys;
  while (user_keys.size() < n_user_keys) {
    std::string k(1 + rng.Next() % max_len, '\0');
    for (auto& c : k) c = static_cast<char>(rng.Next() % 4 == 0 ? rng.Next() : "ab\x00\xff"[rng.Next() % 4]);
    user_keys[k] = 1 + static_cast<int>(rng.Next() % 3);
  }
  const ValueType types[] = {kTypeValue, kTypeValue, kTypeDeletion, kTypeMerge, kTypeSingleDeletion};
  std::vector<Entry> entries;
  for (const auto& [k, versions] : user_keys) {
    for (int v = 0; v < versions; ++v) {
      Entry e;
      AppendInternalKey(&e.ikey, k, 100 - 10 * v, types[rng.Next() % 5]);
      e.value = std::string(rng.Next() % 20, static_cast<char>('a' + v));
      entries.push_back(std::move(e));
    }
  }
  std::sort(entries.begin(), entries.end(), EntryLess);
  return entries;
}

std::string Build(const std::vector<Entry>& entries, int restart_interval, bool hash, double util = 0.75,
                  bool* hash_written = nullptr) {
  BlockBuilderOptions o;
  o.restart_interval = restart_interval;
  o.use_hash_index = hash;
  o.hash_util_ratio = util;
  BlockBuilder b(o);
  for (const auto& e : entries) b.Add(e.ikey, e.value);
  const size_t estimate = b.CurrentSizeEstimate();
  const std::string out = b.Finish().ToString();
  EXPECT_EQ(out.size(), estimate) << "size estimate must equal the finished size";
  if (hash_written) *hash_written = b.hash_index_written();
  return out;
}

std::unique_ptr<Block> OpenOrDie(const std::string& contents, KeyOrder order = KeyOrder::kInternal) {
  std::unique_ptr<Block> block;
  Status s = Block::Open(contents, "test block", order, &block);
  EXPECT_TRUE(s.ok()) << s.ToString();
  return block;
}

TEST(Block, EmptyBlock) {
  BlockBuilder b;
  EXPECT_TRUE(b.empty());
  const std::string contents = b.Finish().ToString();
  EXPECT_EQ(contents.size(), 8u);  // one restart offset + footer
  auto block = OpenOrDie(contents);
  BlockIter it(block.get());
  it.SeekToFirst();
  EXPECT_FALSE(it.Valid());
  std::string target;
  AppendInternalKey(&target, "x", 1, kTypeValue);
  it.Seek(target);
  EXPECT_FALSE(it.Valid());
  EXPECT_TRUE(it.status().ok());
  // An empty block (a table without keys has an empty index) gets no search aid.
  EXPECT_TRUE(block->BuildSearchPrefixes().ok());
  EXPECT_FALSE(block->has_search_prefixes());
}

TEST(Block, PrefixCompressionAndRestartLayout) {
  // Bytewise keys, restart interval 2: entries 0 and 2 are restart points.
  BlockBuilderOptions o;
  o.restart_interval = 2;
  BlockBuilder b(o);
  b.Add("apple", "1");
  b.Add("apply", "2");
  b.Add("apricot", "3");
  const std::string c = b.Finish().ToString();
  const std::string expected_entries = std::string("\x00\x05\x01", 3) + "apple1" + std::string("\x04\x01\x01", 3) +
                                       "y2" + std::string("\x00\x07\x01", 3) + "apricot3";
  ASSERT_EQ(c.substr(0, expected_entries.size()), expected_entries);
  EXPECT_EQ(DecodeFixed32(c.data() + expected_entries.size()), 0u);
  EXPECT_EQ(DecodeFixed32(c.data() + expected_entries.size() + 4), 14u);  // offset of "apricot"
  EXPECT_EQ(DecodeFixed32(c.data() + c.size() - 4), 2u);                  // 2 restarts, no hash flag
  EXPECT_EQ(c.size(), expected_entries.size() + 12);

  auto block = OpenOrDie(c, KeyOrder::kBytewise);
  EXPECT_EQ(block->num_restarts(), 2u);
  BlockIter it(block.get());
  it.Seek("apple");
  ASSERT_TRUE(it.Valid());
  EXPECT_EQ(it.key().ToString(), "apple");
  it.Seek("applz");
  ASSERT_TRUE(it.Valid());
  EXPECT_EQ(it.key().ToString(), "apricot");
  it.Seek("a");
  ASSERT_TRUE(it.Valid());
  EXPECT_EQ(it.key().ToString(), "apple");
  it.Seek("b");
  EXPECT_FALSE(it.Valid());
  EXPECT_TRUE(it.status().ok());
}

// Every restart interval, with and without the hash index: iteration, Seek
// and SeekForGet agree with a sorted model on present and absent keys.
TEST(Block, RoundTripSeekAndSeekForGetMatchModel) {
  for (int restart_interval : {1, 2, 3, 16, 64}) {
    for (bool hash : {false, true}) {
      SCOPED_TRACE("restart_interval=" + std::to_string(restart_interval) + " hash=" + std::to_string(hash));
      const auto entries = RandomEntries(60, 12, 1000 + restart_interval);
      bool written = false;
      const std::string contents = Build(entries, restart_interval, hash, 0.75, &written);
      EXPECT_EQ(written, hash && (entries.size() + restart_interval - 1) / restart_interval <= 254);
      auto block = OpenOrDie(contents);
      EXPECT_EQ(block->has_hash_index(), written);

      BlockIter it(block.get());
      size_t i = 0;
      for (it.SeekToFirst(); it.Valid(); it.Next(), ++i) {
        ASSERT_LT(i, entries.size());
        EXPECT_EQ(it.key().ToString(), entries[i].ikey);
        EXPECT_EQ(it.value().ToString(), entries[i].value);
      }
      EXPECT_EQ(i, entries.size());
      EXPECT_TRUE(it.status().ok());

      // Targets: every stored key, and lookups of every user key (present
      // or perturbed) at several snapshots.
      std::vector<std::string> targets;
      SplitMix64 rng(restart_interval);
      for (const auto& e : entries) {
        targets.push_back(e.ikey);
        const std::string uk = ExtractUserKey(e.ikey).ToString();
        for (SequenceNumber snap : {SequenceNumber{5}, SequenceNumber{85}, SequenceNumber{95}, kMaxSequenceNumber}) {
          std::string t;
          AppendInternalKey(&t, uk, snap, kValueTypeForSeek);
          targets.push_back(t);
          std::string missing = uk + static_cast<char>(rng.Next());
          t.clear();
          AppendInternalKey(&t, missing, snap, kValueTypeForSeek);
          targets.push_back(t);
        }
      }
      for (const std::string& target : {std::string(8, '\0'), std::string(20, '\xff')}) targets.push_back(target);

      for (const auto& target : targets) {
        Entry probe{target, ""};
        auto lower = std::lower_bound(entries.begin(), entries.end(), probe, EntryLess);
        BlockIter s(block.get());
        s.Seek(target);
        if (lower == entries.end()) {
          EXPECT_FALSE(s.Valid());
        } else {
          ASSERT_TRUE(s.Valid());
          EXPECT_EQ(s.key().ToString(), lower->ikey);
        }
        const Slice uk = ExtractUserKey(target);
        const bool match = lower != entries.end() && ExtractUserKey(lower->ikey) == uk;
        BlockIter g(block.get());
        const bool may_exist = g.SeekForGet(target);
        ASSERT_TRUE(g.status().ok()) << g.status().ToString();
        if (!may_exist) {
          EXPECT_FALSE(match) << "SeekForGet said absent for a present key";
        } else if (g.Valid()) {
          // Positioned on the lower bound whenever it reports an entry.
          ASSERT_NE(lower, entries.end());
          EXPECT_EQ(g.key().ToString(), lower->ikey);
        } else {
          EXPECT_FALSE(match) << "SeekForGet ran off the block although the key is here";
        }
      }
    }
  }
}

// The batched binary search (FindRestarts, then SeekFromRestart per target)
// lands every target exactly where Seek does: same entry, or both past the
// end, over blocks with 1..1000 restarts and targets present, absent, before
// the first key and after the last, in random order with repeats.
TEST(Block, BatchedSeekLandsWhereSeekDoes) {
  for (int restart_interval : {1, 3, 16}) {
    for (size_t n_keys : {1, 7, 300, 1000}) {
      SCOPED_TRACE("restart_interval=" + std::to_string(restart_interval) + " keys=" + std::to_string(n_keys));
      const auto entries = RandomEntries(n_keys, 12, 77 + n_keys);
      auto block = OpenOrDie(Build(entries, restart_interval, false));
      SplitMix64 rng(n_keys * 31 + restart_interval);
      std::vector<std::string> owned;
      for (int t = 0; t < 200; ++t) {
        const Entry& e = entries[rng.Next() % entries.size()];
        std::string target = e.ikey;
        switch (rng.Next() % 4) {
          case 0: break;                                                                   // a stored key
          case 1: target.insert(target.size() - kInternalKeyTrailerBytes, 1, 'b'); break;  // absent user key
          case 2: target = std::string(1, '\0') + std::string(8, '\xff'); break;           // before every key
          default: target = std::string(20, '\xff') + std::string(8, '\0'); break;         // after every key
        }
        owned.push_back(target);
      }
      for (size_t n : {size_t{1}, size_t{5}, owned.size()}) {
        std::vector<Slice> targets(owned.begin(), owned.begin() + n);
        std::vector<uint32_t> restarts(n);
        BlockIter batch(block.get());
        ASSERT_TRUE(batch.FindRestarts(targets.data(), n, restarts.data()));
        for (size_t i = 0; i < n; ++i) {
          BlockIter one(block.get());
          one.Seek(targets[i]);
          batch.SeekFromRestart(restarts[i], targets[i]);
          ASSERT_EQ(batch.Valid(), one.Valid()) << i;
          if (one.Valid()) {
            EXPECT_EQ(batch.key().ToString(), one.key().ToString()) << i;
          }
          EXPECT_TRUE(batch.status().ok());
        }
      }
    }
  }
}

// The search aid (BuildSearchPrefixes) only narrows the binary search: with
// it, Seek and the batched search land exactly where the model (lower bound
// over the sorted entries) says, for internal and bytewise blocks whose keys
// share a common prefix (so the aid skips it), are shorter than the skipped
// prefix plus 8 bytes, tie on their 8 prefix bytes (differing only later),
// or are versions of one user key; and for targets below, inside, a proper
// prefix of, and above that common prefix.
TEST(Block, SearchPrefixesLandWhereTheModelSays) {
  for (KeyOrder order : {KeyOrder::kInternal, KeyOrder::kBytewise}) {
    for (int restart_interval : {1, 3, 16}) {
      SCOPED_TRACE("order=" + std::to_string(order == KeyOrder::kInternal) +
                   " restart_interval=" + std::to_string(restart_interval));
      SplitMix64 rng(4242 + restart_interval);
      // User keys: "user/" + 0..14 bytes of a small alphabet; one in three
      // has 8 fixed bytes after the prefix, so many tie on the aid's prefix.
      std::map<std::string, int> user_keys;
      while (user_keys.size() < 400) {
        std::string k = "user/";
        if (rng.Next() % 3 == 0) k += "abababab";
        const size_t len = rng.Next() % 15;
        for (size_t i = 0; i < len; ++i) k += "ab\x00\xff"[rng.Next() % 4];
        user_keys[k] = order == KeyOrder::kInternal ? 1 + static_cast<int>(rng.Next() % 3) : 1;
      }
      std::vector<Entry> entries;
      for (const auto& [k, versions] : user_keys) {
        for (int v = 0; v < versions; ++v) {
          Entry e;
          if (order == KeyOrder::kInternal) {
            AppendInternalKey(&e.ikey, k, 100 - 10 * v, kTypeValue);
          } else {
            e.ikey = k;
          }
          e.value = std::string(1 + rng.Next() % 5, 'v');
          entries.push_back(std::move(e));
        }
      }
      auto less = [&](const Entry& a, const Entry& b) {
        return order == KeyOrder::kInternal ? EntryLess(a, b) : a.ikey < b.ikey;
      };
      std::sort(entries.begin(), entries.end(), less);
      const std::string contents = Build(entries, restart_interval, false);
      auto plain = OpenOrDie(contents, order);
      auto aided = OpenOrDie(contents, order);
      ASSERT_TRUE(aided->BuildSearchPrefixes().ok());
      EXPECT_TRUE(aided->has_search_prefixes());
      EXPECT_FALSE(plain->has_search_prefixes());
      EXPECT_EQ(aided->memory_usage(), contents.size() + 8 * aided->num_restarts());

      std::vector<std::string> user_targets = {"", "user", "user.", "user/", "user0", "\xff\xff", "user/ababababz"};
      for (const auto& [k, versions] : user_keys) {
        user_targets.push_back(k);
        user_targets.push_back(k + "a");
        user_targets.push_back(k.substr(0, k.size() - 1));
        std::string bumped = k;
        bumped.back() = static_cast<char>(bumped.back() + 1);
        user_targets.push_back(bumped);
      }
      std::vector<std::string> owned;
      for (const auto& uk : user_targets) {
        if (order == KeyOrder::kBytewise) {
          owned.push_back(uk);
          continue;
        }
        for (SequenceNumber snap : {SequenceNumber{85}, kMaxSequenceNumber}) {
          std::string t;
          AppendInternalKey(&t, uk, snap, kValueTypeForSeek);
          owned.push_back(t);
        }
      }
      for (const auto& e : entries) owned.push_back(e.ikey);

      std::vector<Slice> targets(owned.begin(), owned.end());
      std::vector<uint32_t> restarts(targets.size());
      BlockIter batch(aided.get());
      ASSERT_TRUE(batch.FindRestarts(targets.data(), targets.size(), restarts.data()));
      for (size_t i = 0; i < targets.size(); ++i) {
        Entry probe{owned[i], ""};
        const auto lower = std::lower_bound(entries.begin(), entries.end(), probe, less);
        BlockIter a(aided.get()), p(plain.get());
        a.Seek(targets[i]);
        p.Seek(targets[i]);
        batch.SeekFromRestart(restarts[i], targets[i]);
        ASSERT_TRUE(a.status().ok() && p.status().ok() && batch.status().ok());
        ASSERT_EQ(a.Valid(), lower != entries.end()) << i;
        ASSERT_EQ(batch.Valid(), lower != entries.end()) << i;
        ASSERT_EQ(p.Valid(), lower != entries.end()) << i;
        if (lower == entries.end()) continue;
        EXPECT_EQ(a.key().ToString(), lower->ikey) << i;
        EXPECT_EQ(batch.key().ToString(), lower->ikey) << i;
        EXPECT_EQ(p.key().ToString(), lower->ikey) << i;
      }
    }
  }
}

// A block whose restart key does not decode is refused by
// BuildSearchPrefixes with the block's Corruption, and is left without the aid.
TEST(Block, SearchPrefixesRefuseACorruptRestartKey) {
  const auto entries = RandomEntries(40, 12, 99);
  std::string contents = Build(entries, 1, false);
  auto good = OpenOrDie(contents);
  // Restart 1's entry header: claim a shared prefix (restart keys share none).
  const uint32_t off = good->RestartOffset(1);
  contents[off] = 3;
  auto bad = OpenOrDie(contents);
  const Status s = bad->BuildSearchPrefixes();
  EXPECT_TRUE(s.IsCorruption()) << s.ToString();
  EXPECT_NE(s.message().find("test block"), std::string::npos) << s.ToString();
  EXPECT_FALSE(bad->has_search_prefixes());
}

// Keys are assembled in the iterator's inline buffer up to 64 bytes and in a
// heap buffer beyond; restart entries are read in place. Keys of 1..150
// bytes sharing long prefixes, so consecutive entries move between the
// block, the inline and the heap buffer (and the heap buffer grows while
// holding the previous key): every key read back whole, and seeks land
// where the model says.
TEST(Block, KeysAssembledAcrossInlineAndHeapBuffers) {
  SplitMix64 rng(515);
  std::map<std::string, int> user_keys;
  const std::string stem(120, 's');
  while (user_keys.size() < 300) {
    std::string k = stem.substr(0, rng.Next() % stem.size());
    const size_t len = 1 + rng.Next() % 30;
    for (size_t i = 0; i < len; ++i) k += "ab\x00\xff"[rng.Next() % 4];
    user_keys[k] = 1;
  }
  std::vector<Entry> entries;
  for (const auto& [k, v] : user_keys) {
    Entry e;
    AppendInternalKey(&e.ikey, k, 7, kTypeValue);
    e.value = "v";
    entries.push_back(std::move(e));
  }
  std::sort(entries.begin(), entries.end(), EntryLess);
  for (int restart_interval : {1, 4, 16, 1000}) {
    SCOPED_TRACE("restart_interval=" + std::to_string(restart_interval));
    auto block = OpenOrDie(Build(entries, restart_interval, false));
    BlockIter it(block.get());
    size_t i = 0;
    for (it.SeekToFirst(); it.Valid(); it.Next(), ++i) {
      ASSERT_LT(i, entries.size());
      ASSERT_EQ(it.key().ToString(), entries[i].ikey) << i;
    }
    EXPECT_EQ(i, entries.size());
    for (size_t j = 0; j < entries.size(); j += 7) {
      BlockIter s(block.get());
      s.Seek(entries[j].ikey);
      ASSERT_TRUE(s.Valid());
      EXPECT_EQ(s.key().ToString(), entries[j].ikey);
      s.Next();
      if (j + 1 < entries.size()) {
        ASSERT_TRUE(s.Valid());
        EXPECT_EQ(s.key().ToString(), entries[j + 1].ikey);
      }
    }
  }
}

// OpenShared parses like Open, runs the preparation step before the block
// becomes shared, and returns the step's error instead of a block.
TEST(Block, OpenSharedPreparesOrFails) {
  const auto entries = RandomEntries(40, 12, 5);
  const std::string contents = Build(entries, 1, false);
  std::shared_ptr<const Block> block;
  ASSERT_TRUE(
      Block::OpenShared(
          contents, "shared block", KeyOrder::kInternal, [](Block* b) { return b->BuildSearchPrefixes(); }, &block)
          .ok());
  EXPECT_TRUE(block->has_search_prefixes());
  std::shared_ptr<const Block> failed;
  const Status s = Block::OpenShared(
      contents, "shared block", KeyOrder::kInternal, [](Block*) { return Status::Corruption("prepare refused"); },
      &failed);
  EXPECT_TRUE(s.IsCorruption());
  EXPECT_FALSE(failed);
  EXPECT_FALSE(Block::OpenShared(contents.substr(0, 3), "short block", KeyOrder::kInternal, nullptr, &failed).ok());
}

TEST(Block, HashLookupOutcomesAreReported) {
  const auto entries = RandomEntries(100, 10, 77);
  auto block = OpenOrDie(Build(entries, 16, true, 1.0));
  ASSERT_TRUE(block->has_hash_index());
  int collisions = 0, hits = 0;
  for (const auto& e : entries) {
    BlockIter it(block.get());
    std::string t;
    AppendInternalKey(&t, ExtractUserKey(e.ikey), kMaxSequenceNumber, kValueTypeForSeek);
    EXPECT_TRUE(it.SeekForGet(t));
    ASSERT_TRUE(it.Valid());
    EXPECT_EQ(ExtractUserKey(it.key()), ExtractUserKey(e.ikey));
    collisions += it.last_hash_outcome() == BlockIter::HashOutcome::kCollision;
    hits += it.last_hash_outcome() == BlockIter::HashOutcome::kInterval;
  }
  EXPECT_EQ(collisions + hits, static_cast<int>(entries.size()));
  EXPECT_GT(collisions, 0);
  EXPECT_GT(hits, 0);
  auto plain = OpenOrDie(Build(entries, 16, false));
  BlockIter it(plain.get());
  it.SeekForGet(entries[0].ikey);
  EXPECT_EQ(it.last_hash_outcome(), BlockIter::HashOutcome::kNoIndex);
}

TEST(Block, RejectsBadFootersAndRestartArrays) {
  const auto entries = RandomEntries(40, 8, 5);
  const std::string good = Build(entries, 4, false);
  std::unique_ptr<Block> block;
  auto expect_corrupt = [&](const std::string& contents, KeyOrder order, const char* needle) {
    Status s = Block::Open(contents, "data block 7", order, &block);
    EXPECT_TRUE(s.IsCorruption()) << needle << ": " << s.ToString();
    EXPECT_NE(s.message().find("data block 7"), std::string::npos) << s.message();
    EXPECT_NE(s.message().find(needle), std::string::npos) << s.message();
  };
  for (int bit = 28; bit <= 30; ++bit) {
    std::string c = good;
    c[c.size() - 1] = static_cast<char>(c[c.size() - 1] | (1 << (bit - 24)));
    expect_corrupt(c, KeyOrder::kInternal, "reserved bits");
  }
  std::string zero = good;
  EncodeFixed32(&zero[zero.size() - 4], 0);
  expect_corrupt(zero, KeyOrder::kInternal, "0 restart points");
  std::string huge = good;
  EncodeFixed32(&huge[huge.size() - 4], 1000000);
  expect_corrupt(huge, KeyOrder::kInternal, "restart offsets need");
  std::string unordered = good;
  const uint32_t num_restarts = DecodeFixed32(good.data() + good.size() - 4);
  ASSERT_GE(num_restarts, 3u);
  const size_t restarts = good.size() - 4 - 4 * size_t{num_restarts};
  EncodeFixed32(&unordered[restarts + 8], DecodeFixed32(good.data() + restarts + 4));
  expect_corrupt(unordered, KeyOrder::kInternal, "increase strictly");
  expect_corrupt(good.substr(0, 5), KeyOrder::kInternal, "shorter than the minimum");
  std::string hash_flag_on_index = Build(entries, 4, true);
  expect_corrupt(hash_flag_on_index, KeyOrder::kBytewise, "only data blocks");
}

// Every single-byte corruption and every truncation of a block: opening or
// reading either works or reports Corruption naming the block — never a
// crash, hang or out-of-bounds read (run under ASan to see the latter).
// Blocks carry no checksum of their own (the table's per-block CRC catches
// flips), so a flip inside a value or key may legitimately read back as
// different data; the check here is memory safety and clean errors.
void ExerciseBlock(const std::string& contents, const std::vector<Entry>& probes) {
  std::unique_ptr<Block> block;
  Status s = Block::Open(contents, "fuzzed block", KeyOrder::kInternal, &block);
  if (!s.ok()) {
    ASSERT_TRUE(s.IsCorruption());
    ASSERT_NE(s.message().find("fuzzed block"), std::string::npos);
    return;
  }
  BlockIter it(block.get());
  size_t steps = 0;
  for (it.SeekToFirst(); it.Valid(); it.Next()) ASSERT_LT(++steps, contents.size()) << "iteration does not end";
  if (!it.status().ok()) {
    ASSERT_NE(it.status().message().find("fuzzed block"), std::string::npos);
  }
  for (const auto& e : probes) {
    BlockIter a(block.get());
    a.Seek(e.ikey);
    BlockIter b(block.get());
    b.SeekForGet(e.ikey);
    for (const Status* st : {&a.status(), &b.status()}) {
      if (!st->ok()) {
        ASSERT_TRUE(st->IsCorruption());
        ASSERT_NE(st->message().find("fuzzed block"), std::string::npos) << st->message();
      }
    }
  }
}

TEST(Block, SurvivesEveryByteFlipAndTruncation) {
  const auto entries = RandomEntries(30, 10, 9);
  std::vector<Entry> probes(entries.begin(), entries.begin() + 10);
  for (bool hash : {false, true}) {
    const std::string good = Build(entries, 4, hash);
    for (size_t pos = 0; pos < good.size(); ++pos) {
      for (unsigned char x : {0x01, 0x80, 0xff}) {
        std::string bad = good;
        bad[pos] = static_cast<char>(bad[pos] ^ x);
        ExerciseBlock(bad, probes);
      }
    }
    for (size_t len = 0; len < good.size(); ++len) ExerciseBlock(good.substr(0, len), probes);
  }
}

}  // namespace
}  // namespace filterlab::engine
