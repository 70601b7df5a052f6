// Test support for the table tests: random internal-key data sets, the
// reference answers a table must give for them, and building a table into
// memory. Header-only; only *_test.cc files include it.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "engine/memtable/internal_key.h"
#include "engine/table/table_builder.h"
#include "engine/table/table_reader.h"
#include "engine/util/file.h"
#include "filters/filter_test_util.h"
#include "hashing/remix.h"

namespace filterlab::engine::testing {

// The policy of `spec` for a test's TableOptions; "" = no filter.
inline std::shared_ptr<const FilterPolicy> PolicyOrNone(const std::string& spec) {
  if (spec.empty()) return nullptr;
  return testing_util::MustPolicy(spec);
}

struct Entry {
  std::string ikey;
  std::string value;
};

struct DataSetOptions {
  size_t num_user_keys = 1000;
  size_t max_key_len = 2000;
  // 1 in long_key_one_in keys draws its length from 1..max_key_len; the
  // rest from 1..24, so large sets stay small but long keys still appear.
  uint32_t long_key_one_in = 8;
  int max_versions = 3;
  size_t max_value_len = 30;
};

// Distinct binary user keys (bytes from a small alphabet plus any byte, so
// prefixes are shared and 0x00/0xff appear), each with 1..max_versions
// versions of random point types, sorted in internal-key order.
inline std::vector<Entry> RandomEntries(const DataSetOptions& o, uint64_t seed) {
  SplitMix64 rng(seed);
  // Draw, sort, drop duplicates, top up: a std::set of 10^6 strings costs
  // several times more.
  std::vector<std::string> user_keys;
  while (user_keys.size() < o.num_user_keys) {
    while (user_keys.size() < o.num_user_keys + o.num_user_keys / 16) {
      const size_t cap = rng.Next() % o.long_key_one_in == 0 ? o.max_key_len : std::min<size_t>(24, o.max_key_len);
      std::string k(1 + rng.Next() % cap, '\0');
      for (auto& c : k) c = static_cast<char>(rng.Next() % 2 ? rng.Next() : "ab\x00\xff"[rng.Next() % 4]);
      user_keys.push_back(std::move(k));
    }
    std::sort(user_keys.begin(), user_keys.end());
    user_keys.erase(std::unique(user_keys.begin(), user_keys.end()), user_keys.end());
  }
  // Keep a random-looking subset of exactly the size asked for, in order.
  std::vector<bool> drop(user_keys.size(), false);
  for (size_t excess = user_keys.size() - o.num_user_keys; excess > 0;) {
    const size_t i = rng.Next() % user_keys.size();
    if (!drop[i]) drop[i] = true, --excess;
  }
  size_t kept = 0;
  for (size_t i = 0; i < user_keys.size(); ++i) {
    if (drop[i]) continue;
    if (kept != i) user_keys[kept] = std::move(user_keys[i]);
    ++kept;
  }
  user_keys.resize(kept);
  const ValueType types[] = {kTypeValue, kTypeValue, kTypeValue, kTypeDeletion, kTypeMerge, kTypeSingleDeletion};
  std::vector<Entry> entries;
  entries.reserve(user_keys.size());
  for (const auto& k : user_keys) {
    const int versions = 1 + static_cast<int>(rng.Next() % o.max_versions);
    uint64_t seq = 1000 + rng.Next() % 1000;
    for (int v = 0; v < versions; ++v) {
      Entry e;
      AppendInternalKey(&e.ikey, k, seq, types[rng.Next() % 6]);
      seq -= 1 + rng.Next() % 100;
      e.value.resize(rng.Next() % (o.max_value_len + 1));
      rng.FillBytes(e.value.data(), e.value.size());
      entries.push_back(std::move(e));
    }
  }
  return entries;  // sorted user keys + descending sequences = internal-key order
}

inline std::string LookupTarget(const Slice& user_key, SequenceNumber snapshot) {
  std::string t;
  AppendInternalKey(&t, user_key, snapshot, kValueTypeForSeek);
  return t;
}

// The reference answer: the first entry >= target with target's user key.
inline const Entry* ModelGet(const std::vector<Entry>& entries, const Slice& target) {
  auto it = std::lower_bound(entries.begin(), entries.end(), target,
                             [](const Entry& e, const Slice& t) { return CompareInternalKeys(e.ikey, t) < 0; });
  if (it == entries.end() || ExtractUserKey(it->ikey) != ExtractUserKey(target)) return nullptr;
  return &*it;
}

inline std::string BuildTable(const TableOptions& options, const std::vector<Entry>& entries,
                              TableProperties* props = nullptr) {
  std::string out;
  auto sink = NewStringSink(&out);
  std::unique_ptr<TableBuilder> builder;
  Status s = TableBuilder::Open(options, sink.get(), &builder);
  EXPECT_TRUE(s.ok()) << s.ToString();
  if (!s.ok()) return out;
  for (const auto& e : entries) {
    s = builder->Add(e.ikey, e.value);
    EXPECT_TRUE(s.ok()) << s.ToString();
    if (!s.ok()) return out;
  }
  s = builder->Finish();
  EXPECT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ(builder->FileSize(), out.size());
  if (props) *props = builder->properties();
  return out;
}

inline Status OpenTable(const std::string& bytes, const std::string& name, std::unique_ptr<TableReader>* out,
                        BlockCache* cache = nullptr) {
  TableReaderOptions ro;
  ro.block_cache = cache;
  return TableReader::Open(ro, NewStringFile(bytes, name), out);
}

}  // namespace filterlab::engine::testing
