// Helpers for variant-specific filter tests (GoogleTest): policies and builds
// that must succeed, splitmix64 hash streams, and the checks every variant's
// own tests repeat with its own specs (no false negatives, batch == single,
// serialize -> OpenFilter round trip, Corruption messages). The generic
// checks over all registered examples live in filter_property_test.cc.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "common/aligned_array.h"
#include "filters/filter.h"
#include "hashing/remix.h"

namespace filterlab::testing_util {

inline std::unique_ptr<FilterPolicy> MustPolicy(const std::string& spec) {
  std::unique_ptr<FilterPolicy> p;
  Status s = NewFilterPolicy(spec, &p);
  EXPECT_TRUE(s.ok()) << spec << ": " << s.ToString();
  return p;
}

// n splitmix64 outputs from `seed`; with k32 only the low 32 bits.
inline std::vector<uint64_t> TestHashes(uint64_t seed, size_t n, HashWidth width = HashWidth::k64) {
  SplitMix64 gen(seed);
  std::vector<uint64_t> v(n);
  for (auto& h : v) h = width == HashWidth::k64 ? gen.Next() : Lower32(gen.Next());
  return v;
}

// Bytes whose bits are each set with probability `density`: lines of every
// fill a probe kernel must answer for, from nearly empty to nearly full.
inline void FillWithBitDensity(std::mt19937_64& rng, double density, std::vector<uint8_t>* buf) {
  std::bernoulli_distribution bit(density);
  for (auto& b : *buf) {
    b = 0;
    for (int i = 0; i < 8; ++i) b |= static_cast<uint8_t>(bit(rng) << i);
  }
}

// A line-probe kernel against its reference on random 64-byte lines of bit
// densities 0.5 to 0.995 (200 lines each, at every byte offset 0..7 in turn),
// probe counts 1..max_probes, 40 hashes per line and count: `reference(h,
// probes, line)` gives the answer, `disagreements(h, probes, line, answer)`
// how many of the candidate kernels answered otherwise.
struct KernelComparison {
  size_t trues = 0, falses = 0, differ = 0;
};
template <class Reference, class Disagreements>
KernelComparison CompareLineKernels(uint64_t seed, int max_probes, Reference reference, Disagreements disagreements) {
  std::mt19937_64 rng(seed);
  std::vector<uint8_t> buf(64 + 8);
  KernelComparison c;
  for (double density : {0.5, 0.8, 0.9, 0.97, 0.995}) {
    for (int line_no = 0; line_no < 200; ++line_no) {
      FillWithBitDensity(rng, density, &buf);
      const uint8_t* line = buf.data() + line_no % 8;
      for (int probes = 1; probes <= max_probes; ++probes) {
        for (int q = 0; q < 40; ++q) {
          const auto h = static_cast<uint32_t>(rng());
          const bool want = reference(h, probes, line);
          c.differ += disagreements(h, probes, line, want);
          (want ? c.trues : c.falses)++;
        }
      }
    }
  }
  return c;
}

inline std::unique_ptr<Filter> MustBuild(const FilterPolicy& p, const std::vector<uint64_t>& hashes) {
  std::unique_ptr<Filter> f;
  Status s = p.Build(hashes.data(), hashes.size(), &f);
  EXPECT_TRUE(s.ok()) << p.spec() << ": " << s.ToString();
  return f;
}

inline std::string HexOf(const std::string& bytes) {
  static const char* digits = "0123456789abcdef";
  std::string out;
  for (char c : bytes) {
    out += digits[static_cast<uint8_t>(c) >> 4];
    out += digits[static_cast<uint8_t>(c) & 15];
  }
  return out;
}

// OpenFilter(bytes) fails with Corruption whose message contains every string of must_mention.
inline void ExpectCorruption(const std::string& bytes, const std::vector<std::string>& must_mention) {
  std::unique_ptr<Filter> f;
  Status s = OpenFilter(bytes, &f);
  EXPECT_TRUE(s.IsCorruption()) << s.ToString();
  for (const auto& m : must_mention) EXPECT_NE(s.message().find(m), std::string::npos) << s.ToString();
}

// NewFilterPolicy(spec) fails with InvalidArgument whose message contains
// every string of must_mention (typically the bad value and what is allowed).
inline void ExpectInvalidSpec(const std::string& spec, const std::vector<std::string>& must_mention) {
  std::unique_ptr<FilterPolicy> p;
  Status s = NewFilterPolicy(spec, &p);
  EXPECT_TRUE(s.IsInvalidArgument()) << spec << " -> " << s.ToString();
  for (const auto& m : must_mention)
    EXPECT_NE(s.message().find(m), std::string::npos) << spec << " -> " << s.ToString();
}

// Every added hash answers true, for each key count.
inline void ExpectNoFalseNegatives(const std::string& spec, std::initializer_list<size_t> key_counts) {
  auto policy = MustPolicy(spec);
  for (size_t keys : key_counts) {
    const auto hashes = TestHashes(6 + keys, keys, policy->hash_width());
    auto f = MustBuild(*policy, hashes);
    size_t missing = 0;
    for (uint64_t h : hashes) missing += !f->MayContain(h);
    EXPECT_EQ(missing, 0u) << spec << " keys=" << keys;
  }
}

// MayContainBatch equals MayContain for batch sizes around the variant's chunking.
inline void ExpectBatchEqualsSingle(const std::string& spec, std::initializer_list<size_t> batch_sizes) {
  auto f = MustBuild(*MustPolicy(spec), TestHashes(7, 5000));
  std::vector<uint64_t> queries = TestHashes(8, 3000);
  const auto added = TestHashes(7, 1000);
  queries.insert(queries.end(), added.begin(), added.end());  // some positives
  for (size_t batch : batch_sizes) {
    std::unique_ptr<bool[]> got(new bool[batch]);
    size_t differ = 0, positives = 0;
    for (size_t start = 0; start + batch <= queries.size(); start += batch) {
      f->MayContainBatch(queries.data() + start, batch, got.get());
      for (size_t i = 0; i < batch; ++i) {
        differ += got[i] != f->MayContain(queries[start + i]);
        positives += got[i];
      }
    }
    EXPECT_EQ(differ, 0u) << spec << " batch=" << batch;
    EXPECT_GT(positives, 0u) << spec << " batch=" << batch;
  }
}

// f.View() is the variant's own (it does not point at the object) and answers
// as f.MayContain one at a time, after a Prefetch (which must not fault), and
// in batches around the view's chunk sizes (8, 32, 64).
inline void ExpectOwnViewAgrees(const Filter& f, const std::vector<uint64_t>& queries, const std::string& what) {
  const FilterView view = f.View();
  EXPECT_NE(view.ops, f.Filter::View().ops) << what << ": the default (object-calling) view";
  size_t differ = 0, positives = 0;
  for (uint64_t h : queries) {
    view.Prefetch(h);
    const bool want = f.MayContain(h);
    differ += view.MayContain(h) != want;
    positives += want;
  }
  EXPECT_EQ(differ, 0u) << what;
  EXPECT_GT(positives, 0u) << what << ": no positive query, the agreement is one-sided";
  for (size_t batch : {size_t{1}, size_t{7}, size_t{8}, size_t{9}, size_t{31}, size_t{32}, size_t{33}, size_t{64},
                       size_t{65}, size_t{100}}) {
    std::unique_ptr<bool[]> got(new bool[batch]);
    size_t batch_differ = 0;
    for (size_t start = 0; start < queries.size(); start += batch) {
      const size_t m = std::min(batch, queries.size() - start);
      view.MayContainBatch(queries.data() + start, m, got.get());
      for (size_t i = 0; i < m; ++i) batch_differ += got[i] != f.MayContain(queries[start + i]);
    }
    EXPECT_EQ(batch_differ, 0u) << what << " batch=" << batch;
  }
}

// Serialize -> OpenFilter gives a filter with the same answers, layout and bytes.
inline void ExpectRoundTrip(const std::string& spec, size_t keys) {
  SCOPED_TRACE(spec + " keys=" + std::to_string(keys));
  const auto hashes = TestHashes(4, keys);
  auto built = MustBuild(*MustPolicy(spec), hashes);
  const std::string bytes = built->Serialize();
  std::unique_ptr<Filter> read;
  Status s = OpenFilter(bytes, &read);
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ(read->DataBytes(), built->DataBytes());
  if (keys > 0) {  // an empty native filter has no trailer, hence no identity
    EXPECT_EQ(read->hash_width(), built->hash_width());
    EXPECT_EQ(read->Describe(), built->Describe());
  }
  EXPECT_EQ(read->Serialize(), bytes);
  size_t differ = 0;
  for (uint64_t h : TestHashes(5, 20000)) differ += read->MayContain(h) != built->MayContain(h);
  for (uint64_t h : hashes) differ += !read->MayContain(h);
  EXPECT_EQ(differ, 0u);
}

// OpenFilter's two paths for a variant that reads serialized bytes in place
// when they are `in_place_alignment`-aligned (8 or 64) and copies them
// otherwise: the bytes of a filter of `spec` are opened at offsets 0 and
// in_place_alignment of a 64-byte aligned buffer, where the opened filter's
// view must point into them (no copy), and at offsets 1, 4, 8 and 32 where
// those are less aligned, where it must not (the copy). Every opened filter
// answers as the built one (MayContain, batches, its own view), is
// read-only, and re-serializes to the same bytes.
inline void ExpectOpensInPlaceWhenAligned(const std::string& spec, size_t keys, size_t in_place_alignment) {
  auto policy = MustPolicy(spec);
  ASSERT_NE(policy, nullptr);
  const auto added = TestHashes(0x1A + keys, keys, policy->hash_width());
  auto built = MustBuild(*policy, added);
  ASSERT_NE(built, nullptr);
  const std::string bytes = built->Serialize();
  std::vector<uint64_t> queries = TestHashes(0x1B + keys, 5000);
  queries.insert(queries.end(), added.begin(),
                 added.begin() + static_cast<std::ptrdiff_t>(std::min<size_t>(keys, 1000)));
  std::vector<bool> want(queries.size());
  for (size_t i = 0; i < queries.size(); ++i) want[i] = built->MayContain(queries[i]);

  CacheAlignedArray<char> buffer(bytes.size() + 64);
  int in_place = 0, copied = 0;
  for (size_t offset : {size_t{0}, in_place_alignment, size_t{1}, size_t{4}, size_t{8}, size_t{32}}) {
    const bool expect_in_place = offset % in_place_alignment == 0;
    SCOPED_TRACE(spec + " at offset " + std::to_string(offset) + (expect_in_place ? " (in place)" : " (copy)"));
    char* at = buffer.data() + offset;
    std::memcpy(at, bytes.data(), bytes.size());
    std::unique_ptr<Filter> opened;
    Status s = OpenFilter(Slice(at, bytes.size()), &opened);
    ASSERT_TRUE(s.ok()) << s.ToString();
    const auto* data = static_cast<const char*>(opened->View().data);
    const bool views_bytes = data >= at && data < at + bytes.size();
    EXPECT_EQ(views_bytes, expect_in_place)
        << "view data " << static_cast<const void*>(data) << ", bytes at " << static_cast<const void*>(at);
    (views_bytes ? in_place : copied) += 1;
    EXPECT_FALSE(opened->SupportsAdd());
    EXPECT_EQ(opened->Serialize(), bytes);
    EXPECT_EQ(opened->Describe(), built->Describe());
    EXPECT_EQ(opened->DataBytes(), built->DataBytes());
    size_t differ = 0;
    for (size_t i = 0; i < queries.size(); ++i) differ += opened->MayContain(queries[i]) != want[i];
    EXPECT_EQ(differ, 0u);
    ExpectOwnViewAgrees(*opened, queries, spec + " opened at offset " + std::to_string(offset));
  }
  EXPECT_GE(in_place, 2);
  EXPECT_GE(copied, 2);
}

}  // namespace filterlab::testing_util
