#include "engine/memtable/memtable.h"

#include <gtest/gtest.h>

#include <atomic>
#include <cmath>
#include <limits>
#include <map>
#include <thread>
#include <vector>

#include "common/test_scale.h"
#include "filters/filter_test_util.h"
#include "filters/registry.h"
#include "hashing/remix.h"

namespace filterlab::engine {
namespace {

using GetResult = MemTable::GetResult;

std::unique_ptr<MemTable> NewMemTable(MemTableOptions options = {}) {
  std::unique_ptr<MemTable> mem;
  Status s = MemTable::Create(options, &mem);
  EXPECT_TRUE(s.ok()) << s.ToString();
  return mem;
}

MemTableOptions WithBloom(double ratio = 0.02, size_t write_buffer = size_t{4} << 20) {
  MemTableOptions o;
  o.write_buffer_size = write_buffer;
  o.bloom_size_ratio = ratio;
  return o;
}

// prefix followed by the decimal n. (Appending avoids a GCC 12 -Wrestrict
// false positive on a string literal plus std::to_string.)
std::string Cat(const char* prefix, uint64_t n) {
  std::string s(prefix);
  s.append(std::to_string(n));
  return s;
}

GetResult Get(const MemTable& mem, const std::string& key, SequenceNumber snapshot, std::string* value) {
  return mem.Get(LookupKey(key, snapshot), value);
}

TEST(InternalKey, OrderIsUserKeyAscendingThenTrailerDescending) {
  std::string a1, a2, b1, a_seek;
  AppendInternalKey(&a1, "a", 1, kTypeValue);
  AppendInternalKey(&a2, "a", 2, kTypeValue);
  AppendInternalKey(&b1, "b", 1, kTypeValue);
  AppendInternalKey(&a_seek, "a", 2, kValueTypeForSeek);
  EXPECT_LT(CompareInternalKeys(a2, a1), 0);  // newer first
  EXPECT_LT(CompareInternalKeys(a1, b1), 0);
  EXPECT_LT(CompareInternalKeys(a2, b1), 0);
  EXPECT_LT(CompareInternalKeys(a_seek, a2), 0);  // seek key precedes every entry of that seq
  EXPECT_EQ(CompareInternalKeys(a1, a1), 0);
  std::string prefix_short, prefix_long;
  AppendInternalKey(&prefix_short, "ab", 1, kTypeValue);
  AppendInternalKey(&prefix_long, "abc", 9, kTypeValue);
  EXPECT_LT(CompareInternalKeys(prefix_short, prefix_long), 0);  // user key decides first
}

TEST(InternalKey, ParseRoundTripAndRejectsBadInput) {
  std::string k;
  AppendInternalKey(&k, "user", kMaxSequenceNumber, kTypeMerge);
  ParsedInternalKey parsed;
  ASSERT_TRUE(ParseInternalKey(k, &parsed).ok());
  EXPECT_EQ(parsed.user_key.ToString(), "user");
  EXPECT_EQ(parsed.sequence, kMaxSequenceNumber);
  EXPECT_EQ(parsed.type, kTypeMerge);
  EXPECT_EQ(k.substr(4), std::string("\x02\xff\xff\xff\xff\xff\xff\xff", 8));  // LE (seq<<8)|type

  Status s = ParseInternalKey(Slice("short"), &parsed);
  EXPECT_TRUE(s.IsCorruption());
  EXPECT_NE(s.message().find("8-byte"), std::string::npos) << s.message();
  std::string bad = "key";
  bad += std::string("\x05\x01\0\0\0\0\0\0", 8);  // type 5 does not exist
  s = ParseInternalKey(bad, &parsed);
  EXPECT_TRUE(s.IsCorruption());
  EXPECT_NE(s.message().find("type 5"), std::string::npos) << s.message();
}

TEST(MemTable, GetSeesNewestVisibleVersion) {
  auto mem = NewMemTable();
  mem->Add(10, kTypeValue, "k", "v10");
  mem->Add(20, kTypeValue, "k", "v20");
  mem->Add(30, kTypeDeletion, "k", "");
  mem->Add(40, kTypeMerge, "k", "m40");
  mem->Add(5, kTypeValue, "j", "j5");
  mem->Add(6, kTypeSingleDeletion, "l", "");
  std::string v;
  EXPECT_EQ(Get(*mem, "k", 9, &v), GetResult::kNotFound);
  EXPECT_EQ(Get(*mem, "k", 10, &v), GetResult::kFound);
  EXPECT_EQ(v, "v10");
  EXPECT_EQ(Get(*mem, "k", 29, &v), GetResult::kFound);
  EXPECT_EQ(v, "v20");
  EXPECT_EQ(Get(*mem, "k", 30, &v), GetResult::kDeleted);
  EXPECT_EQ(Get(*mem, "k", 45, &v), GetResult::kMerge);
  EXPECT_EQ(v, "m40");
  EXPECT_EQ(Get(*mem, "j", kMaxSequenceNumber, &v), GetResult::kFound);
  EXPECT_EQ(v, "j5");
  EXPECT_EQ(Get(*mem, "l", kMaxSequenceNumber, &v), GetResult::kDeleted);
  EXPECT_EQ(Get(*mem, "", kMaxSequenceNumber, &v), GetResult::kNotFound);
  EXPECT_EQ(Get(*mem, "kk", kMaxSequenceNumber, &v), GetResult::kNotFound);
  EXPECT_EQ(Get(*mem, "a", kMaxSequenceNumber, &v), GetResult::kNotFound);
  EXPECT_EQ(Get(*mem, "z", kMaxSequenceNumber, &v), GetResult::kNotFound);
  EXPECT_EQ(mem->num_entries(), 6u);
  EXPECT_GT(mem->ApproximateMemoryUsage(), 0u);
}

TEST(MemTable, BinaryKeysAndEmptyValues) {
  auto mem = NewMemTable();
  const std::string k1("\x00\x01", 2), k2("\x00", 1), k3("\xff\xff\x00", 3);
  mem->Add(1, kTypeValue, k1, "");
  mem->Add(2, kTypeValue, k2, std::string(1000, 'x'));
  mem->Add(3, kTypeValue, k3, std::string("\0v", 2));
  mem->Add(4, kTypeValue, "", "empty key");
  std::string v;
  ASSERT_EQ(Get(*mem, k1, 10, &v), GetResult::kFound);
  EXPECT_EQ(v, "");
  ASSERT_EQ(Get(*mem, k2, 10, &v), GetResult::kFound);
  EXPECT_EQ(v, std::string(1000, 'x'));
  ASSERT_EQ(Get(*mem, k3, 10, &v), GetResult::kFound);
  EXPECT_EQ(v, std::string("\0v", 2));
  ASSERT_EQ(Get(*mem, "", 10, &v), GetResult::kFound);
  EXPECT_EQ(v, "empty key");

  // Iteration in internal-key order: "", "\0", "\0\1", "\xff\xff\0".
  MemTable::Iterator it(mem.get());
  std::vector<std::string> user_keys;
  for (it.SeekToFirst(); it.Valid(); it.Next()) user_keys.push_back(ExtractUserKey(it.key()).ToString());
  EXPECT_EQ(user_keys, (std::vector<std::string>{"", k2, k1, k3}));
  std::string target;
  AppendInternalKey(&target, k1, kMaxSequenceNumber, kValueTypeForSeek);
  it.Seek(target);
  ASSERT_TRUE(it.Valid());
  EXPECT_EQ(ExtractUserKey(it.key()).ToString(), k1);
  EXPECT_EQ(it.value().ToString(), "");
}

TEST(MemTable, KeysWithMultiByteLengthPrefixes) {
  // Internal keys of 128+ bytes (user keys of 120+) take a 2-byte varint
  // length; 119 and 120 straddle the boundary. Mixed with short keys, they
  // must order, seek and read back like any other.
  auto mem = NewMemTable();
  const std::string k119(119, 'b'), k120(120, 'b'), k500 = std::string(500, 'b') + "z", shorter = "b";
  mem->Add(1, kTypeValue, k120, "v120");
  mem->Add(2, kTypeValue, shorter, "vb");
  mem->Add(3, kTypeValue, k500, "v500");
  mem->Add(4, kTypeValue, k119, "v119");
  mem->Add(5, kTypeValue, k120, "v120new");
  std::string v;
  ASSERT_EQ(Get(*mem, k120, kMaxSequenceNumber, &v), GetResult::kFound);
  EXPECT_EQ(v, "v120new");
  ASSERT_EQ(Get(*mem, k120, 4, &v), GetResult::kFound);
  EXPECT_EQ(v, "v120");
  ASSERT_EQ(Get(*mem, k500, kMaxSequenceNumber, &v), GetResult::kFound);
  EXPECT_EQ(v, "v500");
  ASSERT_EQ(Get(*mem, k119, kMaxSequenceNumber, &v), GetResult::kFound);
  EXPECT_EQ(v, "v119");
  EXPECT_EQ(Get(*mem, std::string(121, 'b'), kMaxSequenceNumber, &v), GetResult::kNotFound);

  MemTable::Iterator it(mem.get());
  std::vector<std::string> values;
  for (it.SeekToFirst(); it.Valid(); it.Next()) values.push_back(it.value().ToString());
  EXPECT_EQ(values, (std::vector<std::string>{"vb", "v119", "v120new", "v120", "v500"}));
  std::string target;
  AppendInternalKey(&target, k120, 4, kValueTypeForSeek);
  it.Seek(target);
  ASSERT_TRUE(it.Valid());
  EXPECT_EQ(it.value().ToString(), "v120");
  EXPECT_EQ(ExtractUserKey(it.key()).ToString(), k120);
}

TEST(MemTable, OrderAndLookupsMatchAMapForKeysAroundEightBytes) {
  // The comparator decides by the first 8 user-key bytes when both keys have
  // 8+, and falls back to the full comparison otherwise. Keys of 0..12 bytes
  // over {'\0', 'a', '\xff'} make many keys share 8-byte prefixes, differ
  // only past byte 8, or be prefixes of each other (with '\0' bytes that a
  // zero-padded prefix would confuse), so both paths must agree with a
  // bytewise std::map.
  auto mem = NewMemTable();
  std::map<std::string, std::string> model;
  SplitMix64 rng(5);
  const char alphabet[] = {'\0', 'a', '\xff'};
  SequenceNumber seq = 0;
  for (int i = 0; i < 4000; ++i) {
    std::string key(rng.Next() % 13, '\0');
    for (auto& c : key) c = alphabet[rng.Next() % 3];
    if (model.count(key)) continue;
    const std::string value = Cat("v", i);
    mem->Add(++seq, kTypeValue, key, value);
    model.emplace(key, value);
  }
  MemTable::Iterator it(mem.get());
  it.SeekToFirst();
  for (const auto& [key, value] : model) {
    ASSERT_TRUE(it.Valid());
    EXPECT_EQ(ExtractUserKey(it.key()).ToString(), key);
    EXPECT_EQ(it.value().ToString(), value);
    it.Next();
  }
  EXPECT_FALSE(it.Valid());
  std::string v;
  for (int i = 0; i < 4000; ++i) {
    std::string key(rng.Next() % 13, '\0');
    for (auto& c : key) c = alphabet[rng.Next() % 3];
    const auto found = model.find(key);
    if (found == model.end()) {
      EXPECT_EQ(Get(*mem, key, kMaxSequenceNumber, &v), GetResult::kNotFound);
    } else {
      ASSERT_EQ(Get(*mem, key, kMaxSequenceNumber, &v), GetResult::kFound);
      EXPECT_EQ(v, found->second);
    }
  }
}

TEST(MemTable, MultiGetAgreesWithGet) {
  // Several versions per key, deletions, missing keys and snapshots, looked
  // up in random order with repeats, in batches of 1..80 (several lockstep
  // chunks), with and without the memtable filter.
  for (const bool bloom : {false, true}) {
    auto mem = NewMemTable(bloom ? WithBloom(0.02, size_t{4} << 20) : MemTableOptions{});
    SplitMix64 rng(17);
    SequenceNumber seq = 0;
    for (int i = 0; i < 20000; ++i) {
      const uint64_t k = rng.Next() % 5000;
      const auto type = rng.Next() % 5 == 0 ? kTypeDeletion : kTypeValue;
      ++seq;
      mem->Add(seq, type, Cat("key", 100000 + k), Cat("v", seq));
    }
    size_t counts[4] = {};  // by GetResult: each kind must be exercised
    for (int batch = 0; batch < 300; ++batch) {
      const size_t n = 1 + rng.Next() % 80;
      std::vector<LookupKey> lkeys;
      lkeys.reserve(n);
      for (size_t i = 0; i < n; ++i) {
        const SequenceNumber snaps[] = {kMaxSequenceNumber, seq / 2, SequenceNumber{1}, 1 + rng.Next() % seq};
        if (i > 0 && rng.Next() % 8 == 0) {
          lkeys.push_back(lkeys[rng.Next() % i]);  // a repeat
        } else {
          // Keys 0..5999 of "key": a sixth never written.
          lkeys.emplace_back(Cat("key", 100000 + rng.Next() % 6000), snaps[rng.Next() % 4]);
        }
      }
      std::vector<const LookupKey*> keys(n);
      std::vector<std::string> values(n, "untouched");
      std::vector<std::string*> value_ptrs(n);
      for (size_t i = 0; i < n; ++i) {
        keys[i] = &lkeys[i];
        value_ptrs[i] = &values[i];
      }
      std::vector<GetResult> results(n);
      mem->MultiGet(keys.data(), n, value_ptrs.data(), results.data());
      for (size_t i = 0; i < n; ++i) {
        std::string expected = "untouched";
        const GetResult want = mem->Get(lkeys[i], &expected);
        ASSERT_EQ(results[i], want) << lkeys[i].user_key().ToString() << " batch " << batch << " bloom " << bloom;
        EXPECT_EQ(values[i], expected) << lkeys[i].user_key().ToString();
        ++counts[static_cast<int>(want)];
      }
    }
    EXPECT_GT(counts[static_cast<int>(GetResult::kFound)], 1000u);
    EXPECT_GT(counts[static_cast<int>(GetResult::kDeleted)], 100u);
    EXPECT_GT(counts[static_cast<int>(GetResult::kNotFound)], 1000u);
  }
}

TEST(MemTable, RejectsBadOptions) {
  std::unique_ptr<MemTable> mem;
  MemTableOptions o = WithBloom();
  o.bloom_size_ratio = -0.1;
  EXPECT_TRUE(MemTable::Create(o, &mem).IsInvalidArgument());
  o.bloom_size_ratio = std::nan("");
  Status s = MemTable::Create(o, &mem);
  EXPECT_TRUE(s.IsInvalidArgument());
  EXPECT_NE(s.message().find("[0, 0.25]"), std::string::npos) << s.message();
  o = WithBloom();
  if (FindFilterVariant("fastlocal") != nullptr) {
    o.bloom_policy = testing_util::MustPolicy("fastlocal:bpk=10");  // a static filter cannot take adds
    s = MemTable::Create(o, &mem);
    EXPECT_TRUE(s.IsInvalidArgument());
    EXPECT_NE(s.message().find("dynamic"), std::string::npos) << s.message();
  }
  o = MemTableOptions();
  o.write_buffer_size = 0;
  EXPECT_TRUE(MemTable::Create(o, &mem).IsInvalidArgument());
}

TEST(MemTable, BloomBitsFollowTheBudgetFormula) {
  uint64_t bits = 0;
  // Spec §4 example: 64 MiB × 0.1 → 6710886 bytes → 53687088 bits.
  ASSERT_TRUE(MemTableBloomBits(size_t{64} << 20, 0.1, &bits).ok());
  EXPECT_EQ(bits, 53687088u);
  ASSERT_TRUE(MemTableBloomBits(size_t{64} << 20, 0.0, &bits).ok());
  EXPECT_EQ(bits, 0u);
  // Clamped to 0.25.
  ASSERT_TRUE(MemTableBloomBits(1000, 0.9, &bits).ok());
  EXPECT_EQ(bits, 250u * 8);
  EXPECT_TRUE(MemTableBloomBits(size_t{1} << 40, 0.25, &bits).IsInvalidArgument());

  // The default DynamicBloom at that budget: 209716 blocks of 32 bytes.
  MemTableOptions o;
  o.write_buffer_size = size_t{64} << 20;
  o.bloom_size_ratio = 0.1;
  auto mem = NewMemTable(o);
  ASSERT_NE(mem->bloom(), nullptr);
  EXPECT_EQ(mem->bloom()->DataBytes(), 6710912u);
  EXPECT_EQ(NewMemTable()->bloom(), nullptr);  // ratio 0: no filter
  o.bloom_policy = nullptr;
  EXPECT_EQ(NewMemTable(o)->bloom(), nullptr);  // no policy: no filter either
}

// Same answers with and without the Bloom, and the Bloom skips the skip
// list for most absent keys.
TEST(MemTable, GetWithAndWithoutBloomAgree) {
  for (const std::string spec : {"dynamic:bpk=8,probes=6,hash=32", "dynamic:bpk=8,probes=6,hash=64"}) {
    MemTableOptions with = WithBloom(0.02, size_t{4} << 20);  // 83886 bytes = 671088 bits
    with.bloom_policy = testing_util::MustPolicy(spec);
    auto plain = NewMemTable();
    auto bloomed = NewMemTable(with);
    ASSERT_NE(bloomed->bloom(), nullptr);
    SplitMix64 rng(5);
    constexpr int kKeys = SanitizerScaled(50000);  // ~13.4 bits per key (134 under sanitizers)
    for (int i = 0; i < kKeys; ++i) {
      const std::string key = Cat("key", rng.Next());
      const std::string value = Cat("v", i);
      plain->Add(i + 1, kTypeValue, key, value);
      bloomed->Add(i + 1, kTypeValue, key, value);
    }
    SplitMix64 replay(5);
    std::string v1, v2;
    for (int i = 0; i < kKeys; ++i) {
      const std::string key = Cat("key", replay.Next());
      ASSERT_EQ(Get(*plain, key, kMaxSequenceNumber, &v1), GetResult::kFound);
      ASSERT_EQ(Get(*bloomed, key, kMaxSequenceNumber, &v2), GetResult::kFound) << "false negative " << key;
      EXPECT_EQ(v1, v2);
    }
    EXPECT_EQ(bloomed->bloom_negatives(), 0u);
    constexpr int kMissing = SanitizerScaled(50000);
    for (int i = 0; i < kMissing; ++i) {
      const std::string key = Cat("absent", i);
      ASSERT_EQ(Get(*plain, key, kMaxSequenceNumber, &v1), GetResult::kNotFound);
      ASSERT_EQ(Get(*bloomed, key, kMaxSequenceNumber, &v2), GetResult::kNotFound);
    }
    // FP rate: 6 probes at ~13.4 bits/key in 256-bit blocks is ~0.3% by the
    // variant's model; bound it at 1% (binomial sd at 0.3% over 50000 is
    // 0.025%, so this fails only if the filter is not doing its job).
    const uint64_t false_positives = bloomed->bloom_positives() - kKeys;
    EXPECT_LT(false_positives, kMissing / 100) << spec;
    EXPECT_EQ(bloomed->bloom_negatives(), kMissing - false_positives);
  }
}

TEST(MemTable, ApproximateStats) {
  MemTableOptions o;
  auto mem = NewMemTable(o);
  EXPECT_EQ(mem->ApproximateStats("a", "z").count, 0u);
  // 100 keys "k000".."k099" with 1000-byte values.
  for (int i = 0; i < 100; ++i) {
    char key[8];
    std::snprintf(key, sizeof(key), "k%03d", i);
    mem->Add(i + 1, kTypeValue, key, std::string(1000, 'v'));
  }
  // Entry: varint(12) + 4 + 8 + varint(1000) (2 bytes) + 1000 = 1015 bytes.
  EXPECT_EQ(mem->data_size(), 100u * 1015);
  const MemTable::RangeStats ten = mem->ApproximateStats("k010", "k020");
  EXPECT_EQ(ten.count, 10u);  // exact at <= 9 always, at 10 unless all 10 are tall
  EXPECT_EQ(ten.bytes, 10u * 1015);
  const MemTable::RangeStats five = mem->ApproximateStats("k010", "k015");
  EXPECT_EQ(five.count, 5u);
  EXPECT_EQ(mem->ApproximateStats("k050", "k050").count, 0u);  // empty range
  EXPECT_EQ(mem->ApproximateStats("k050", "k040").bytes, 0u);  // inverted range
  EXPECT_EQ(mem->ApproximateStats("x", "z").count, 0u);
  const MemTable::RangeStats all = mem->ApproximateStats("", "z");
  EXPECT_LE(all.count, 100u);  // capped at the entry count
  EXPECT_GE(all.count, 40u);

  o.approx_algorithm = ApproxAlgorithm::kOld;
  auto old_mem = NewMemTable(o);
  for (int i = 0; i < 3; ++i) old_mem->Add(i + 1, kTypeValue, Cat("k", i), "v");
  EXPECT_LE(old_mem->ApproximateStats("k0", "k9").count, 3u);
}

// One writer adds while readers look up published keys (Bloom on): run
// under TSan for the memtable's lock-free read path.
TEST(MemTable, ConcurrentGetsWithOneWriter) {
  auto mem = NewMemTable(WithBloom(0.05, size_t{1} << 20));
  constexpr int kKeys = 10000;
  std::atomic<int> published{0};
  std::atomic<bool> done{false};
  auto key_of = [](int i) { return Cat("key", Mix64(static_cast<uint64_t>(i))); };
  auto reader = [&](int id) {
    SplitMix64 rng(id);
    std::string v;
    while (!done.load(std::memory_order_acquire)) {
      const int n = published.load(std::memory_order_acquire);
      if (n == 0) continue;
      const int i = static_cast<int>(rng.Next() % static_cast<uint64_t>(n));
      ASSERT_EQ(Get(*mem, key_of(i), kMaxSequenceNumber, &v), GetResult::kFound) << i;
      ASSERT_EQ(v, std::to_string(i));
      ASSERT_EQ(Get(*mem, Cat("missing", i), kMaxSequenceNumber, &v), GetResult::kNotFound);
    }
  };
  std::vector<std::thread> readers;
  for (int r = 0; r < 2; ++r) readers.emplace_back(reader, r + 1);
  for (int i = 0; i < kKeys; ++i) {
    mem->Add(static_cast<SequenceNumber>(i + 1), kTypeValue, key_of(i), std::to_string(i));
    published.store(i + 1, std::memory_order_release);
  }
  done.store(true, std::memory_order_release);
  for (auto& t : readers) t.join();
  EXPECT_EQ(mem->num_entries(), static_cast<uint64_t>(kKeys));
}

}  // namespace
}  // namespace filterlab::engine
