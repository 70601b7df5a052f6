// Property test of bounded and prefix seeks: random workloads (puts,
// overwrites, deletes of short byte-string keys, many shorter than the
// prefix, over an alphabet with 0x00 and 0xff) across flushes and
// compactions, under a random prefix extractor (none, fixed:N, capped:N),
// whole-key filtering on or off and a memtable prefix Bloom or none; after
// each phase, random iterators (random upper bound, prefix_same_as_start,
// total_order_seek, auto_prefix_mode) and Gets are compared with a std::map
// model. Filters may only skip what holds no key the seek may return, so
// any false negative of a prefix filter, or a prefix rule that admits a
// key of another prefix, shows as a mismatch. It runs once without a range
// filter and once per registered range filter example (the tables' range
// filter blocks then answer every bounded seek).
#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "engine/db/db_test_util.h"
#include "engine/util/prefix_extractor.h"
#include "engine/util/random.h"
#include "filters/registry.h"

namespace filterlab::engine {
namespace {

struct SeekConfig {
  std::string range_filter = "none";  // a registered range spec, or none
  std::string extractor;              // "none", "fixed:N", "capped:N"
  bool whole_key = true;
  bool memtable_filter = false;
  bool memtable_whole_key = true;
  uint32_t seed = 0;
};

std::string RandomKey(Random* rnd) {
  static const char kAlphabet[] = {'a', 'b', '\0', '\xff', 'c'};
  const uint32_t len = 1 + rnd->Uniform(5);
  std::string k;
  for (uint32_t i = 0; i < len; ++i) k.push_back(kAlphabet[rnd->Uniform(5)]);
  return k;
}

// What an iterator with `ro` returns after Seek(target), from the model:
// keys >= target, below the bound, and with prefix_same_as_start (prefix
// mode: an extractor, no total order, no auto mode, target in the domain)
// only while they have target's prefix.
std::vector<std::pair<std::string, std::string>> Expected(const std::map<std::string, std::string>& model,
                                                          const PrefixExtractor* ex, const ReadOptions& ro,
                                                          const std::string& target, size_t max) {
  std::vector<std::pair<std::string, std::string>> out;
  const bool prefix_mode =
      ex != nullptr && ro.prefix_same_as_start && !ro.total_order_seek && !ro.auto_prefix_mode && ex->InDomain(target);
  const std::string prefix = prefix_mode ? ex->Transform(target).ToString() : "";
  for (auto it = model.lower_bound(target); it != model.end() && out.size() < max; ++it) {
    if (ro.iterate_upper_bound != nullptr && Slice(it->first).compare(*ro.iterate_upper_bound) >= 0) break;
    if (prefix_mode && !(ex->InDomain(it->first) && ex->Transform(it->first) == Slice(prefix))) break;
    out.push_back(*it);
  }
  return out;
}

std::string Describe(const SeekConfig& c, const ReadOptions& ro, const std::string& target) {
  auto hex = [](const std::string& s) {
    std::string h;
    char b[4];
    for (unsigned char ch : s) {
      std::snprintf(b, sizeof b, "%02x", ch);
      h += b;
    }
    return h;
  };
  return c.range_filter + " " + c.extractor + " whole_key=" + std::to_string(c.whole_key) +
         " mem=" + std::to_string(c.memtable_filter) + "/" + std::to_string(c.memtable_whole_key) +
         " seed=" + std::to_string(c.seed) + " target=" + hex(target) +
         " ub=" + (ro.iterate_upper_bound ? hex(ro.iterate_upper_bound->ToString()) : "none") +
         " psas=" + std::to_string(ro.prefix_same_as_start) + " tos=" + std::to_string(ro.total_order_seek) +
         " auto=" + std::to_string(ro.auto_prefix_mode);
}

void CheckAgainstModel(DB* db, const std::map<std::string, std::string>& model, const PrefixExtractor* ex,
                       const SeekConfig& c, Random* rnd, int seeks) {
  for (int i = 0; i < seeks; ++i) {
    ReadOptions ro;
    std::string bound;
    Slice ub;
    if (rnd->OneIn(2)) {
      bound = RandomKey(rnd);
      ub = Slice(bound);
      ro.iterate_upper_bound = &ub;
    }
    ro.prefix_same_as_start = rnd->OneIn(2);
    ro.total_order_seek = rnd->OneIn(4);
    ro.auto_prefix_mode = rnd->OneIn(3);
    const std::string target = RandomKey(rnd);
    const auto want = Expected(model, ex, ro, target, 20);
    std::vector<std::pair<std::string, std::string>> got;
    auto it = db->NewIterator(ro);
    for (it->Seek(target); it->Valid() && got.size() < 20; it->Next()) {
      got.emplace_back(it->key().ToString(), it->value().ToString());
    }
    ASSERT_TRUE(it->status().ok()) << it->status().ToString();
    ASSERT_EQ(got, want) << Describe(c, ro, target);
  }
  for (int i = 0; i < seeks; ++i) {
    const std::string k = RandomKey(rnd);
    std::string v;
    const Status s = db->Get(ReadOptions(), k, &v);
    auto m = model.find(k);
    if (m == model.end()) {
      ASSERT_TRUE(s.IsNotFound()) << s.ToString() << " " << Describe(c, ReadOptions(), k);
    } else {
      ASSERT_TRUE(s.ok()) << s.ToString() << " " << Describe(c, ReadOptions(), k);
      ASSERT_EQ(v, m->second);
    }
  }
}

void RunWorkload(const SeekConfig& c) {
  test::ScratchDir dir;
  Options o = test::SmallOptions();
  o.write_buffer_size = 8 << 10;
  Status s = PrefixExtractorFromSpec(c.extractor, &o.prefix_extractor);
  ASSERT_TRUE(s.ok()) << s.ToString();
  o.whole_key_filtering = c.whole_key;
  s = RangeFilterPolicyFromSpec(c.range_filter, &o.range_filter_policy);
  ASSERT_TRUE(s.ok()) << s.ToString();
  if (c.memtable_filter) {
    o.memtable_filter_policy = test::Policy("dynamic:bpk=8,probes=6,hash=32");
    o.memtable_whole_key_filtering = c.memtable_whole_key;
  }
  std::unique_ptr<DB> db;
  s = DB::Open(o, dir.db(), &db);
  ASSERT_TRUE(s.ok()) << s.ToString();
  std::map<std::string, std::string> model;
  Random rnd(c.seed);
  const int ops = 1500 / test::kScale + 100;
  for (int phase = 0; phase < 4; ++phase) {
    for (int i = 0; i < ops; ++i) {
      const std::string k = RandomKey(&rnd);
      if (rnd.OneIn(4)) {
        ASSERT_TRUE(db->Delete(WriteOptions(), k).ok());
        model.erase(k);
      } else {
        std::string v = "v";  // appended in pieces: GCC 12 warns (-Wrestrict) on "v" + to_string(...)
        v += std::to_string(phase);
        v += '.';
        v += std::to_string(i);
        ASSERT_TRUE(db->Put(WriteOptions(), k, v).ok());
        model[k] = v;
      }
      if (rnd.OneIn(400)) {
        ASSERT_TRUE(db->Flush(true).ok());
      }
    }
    if (phase == 1) {
      ASSERT_TRUE(db->Flush(true).ok());
    }
    if (phase == 2) {
      ASSERT_TRUE(db->CompactRange(nullptr, nullptr).ok());
    }
    CheckAgainstModel(db.get(), model, o.prefix_extractor.get(), c, &rnd, 300 / test::kScale + 20);
  }
}

std::vector<SeekConfig> Configs() {
  std::vector<SeekConfig> configs;
  uint32_t seed = 17;
  for (const char* ex : {"none", "fixed:1", "fixed:2", "fixed:3", "capped:1", "capped:2", "capped:4"}) {
    for (int variant = 0; variant < 2; ++variant) {
      SeekConfig c;
      c.extractor = ex;
      c.seed = seed++;
      const bool has_extractor = c.extractor != "none";
      c.whole_key = !has_extractor || variant == 0;
      c.memtable_filter = variant == 1;
      c.memtable_whole_key = !has_extractor || variant == 0;
      configs.push_back(c);
    }
  }
  return configs;
}

TEST(DBSeekPropertyTest, RandomSeeksMatchTheModelUnderEveryExtractor) {
  for (const SeekConfig& c : Configs()) {
    SCOPED_TRACE(c.extractor + " seed " + std::to_string(c.seed));
    RunWorkload(c);
    if (HasFatalFailure()) return;
  }
}

// Every registered range filter example, each under four of the
// configurations above (extractors with and without whole keys and memtable
// filters), so range and prefix filters also meet in one table.
TEST(DBSeekPropertyTest, RandomSeeksMatchTheModelUnderEveryRangeFilter) {
  const std::vector<SeekConfig> base = Configs();
  size_t next = 0;
  const std::vector<std::string> specs = AllRangeExampleSpecs();
  ASSERT_FALSE(specs.empty());
  for (const std::string& spec : specs) {
    for (int i = 0; i < 4; ++i, next += 3) {
      SeekConfig c = base[next % base.size()];
      c.range_filter = spec;
      c.seed += 1000;
      SCOPED_TRACE(spec + " " + c.extractor + " seed " + std::to_string(c.seed));
      RunWorkload(c);
      if (HasFatalFailure()) return;
    }
  }
}

}  // namespace
}  // namespace filterlab::engine
