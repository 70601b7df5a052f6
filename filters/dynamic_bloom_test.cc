// DynamicBloom: RocksDB's layout bit for bit (rounding, word choice, masks;
// the reference vectors run in vectors/vectors_test.cc), concurrent adds,
// the reader, spec errors, and the FP rate against its model and against the
// published 2019 figures.
#include "filters/dynamic_bloom.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "common/test_scale.h"
#include "filters/filter.h"
#include "filters/filter_spec.h"
#include "filters/filter_test_util.h"
#include "filters/fp_model.h"
#include "filters/fp_tolerance.h"
#include "filters/trailer.h"
#include "hashing/legacy_hash.h"
#include "hashing/remix.h"

namespace filterlab {
namespace {

using testing_util::MustPolicy;
using testing_util::TestHashes;

std::unique_ptr<DynamicBloom> MakeFilter(uint64_t total_bits, int num_probes, HashWidth width = HashWidth::k32) {
  std::unique_ptr<DynamicBloom> f;
  Status s = DynamicBloom::Create(total_bits, num_probes, width, &f);
  EXPECT_TRUE(s.ok()) << s.ToString();
  return f;
}

// Indices of the nonzero words and their values, for exact layout checks.
std::vector<std::pair<size_t, uint64_t>> NonzeroWords(const DynamicBloom& f) {
  std::vector<std::pair<size_t, uint64_t>> out;
  for (size_t i = 0; i < f.len_words(); ++i) {
    if (f.Word(i) != 0) out.emplace_back(i, f.Word(i));
  }
  return out;
}

uint64_t Bit(int b) { return uint64_t{1} << b; }

TEST(DynamicBloomTest, LengthRoundsUpToWholeBlocksOfPowerOfTwoWords) {
  // D = probes/2 (1 -> 1), W = next power of two >= D.
  EXPECT_EQ(DynamicBloom::DoubleProbes(1), 1);
  EXPECT_EQ(DynamicBloom::DoubleProbes(10), 5);
  const int expected_block_words[] = {1, 1, 2, 4, 4, 8};  // probes 1, 2, 4, 6, 8, 10
  for (int i = 0; i < 6; ++i) {
    EXPECT_EQ(DynamicBloom::BlockWords(DynamicBloom::kAllowedProbes[i]), expected_block_words[i]);
  }
  EXPECT_EQ(DynamicBloom::LenWords(64, 2), 1u);
  EXPECT_EQ(DynamicBloom::LenWords(64, 10), 8u);    // one 512-bit block
  EXPECT_EQ(DynamicBloom::LenWords(1000, 6), 16u);  // ceil(1000 / 256) = 4 blocks of 4 words
  EXPECT_EQ(DynamicBloom::LenWords(1024, 6), 16u);  // exact fit
  EXPECT_EQ(DynamicBloom::LenWords(1025, 6), 20u);
  EXPECT_EQ(DynamicBloom::LenWords(12345, 4), 194u);  // ceil(12345 / 128) = 97 blocks of 2
  EXPECT_EQ(MakeFilter(1000, 6)->DataBytes(), 128u);
}

TEST(DynamicBloomTest, ZeroHashSetsBitZeroOfTheFirstDWords) {
  // h32 = 0: word FastRange32(0, kLen) = 0, stream 0, so both bits of every
  // pair are bit 0 (the coinciding-pair case) in words 0^i = 0..D-1.
  auto f = MakeFilter(1024, 6);
  f->Add(0);
  EXPECT_EQ(NonzeroWords(*f), (std::vector<std::pair<size_t, uint64_t>>{{0, 1}, {1, 1}, {2, 1}}));
  EXPECT_TRUE(f->MayContain(0));
}

TEST(DynamicBloomTest, MasksFollowTheGoldenRatioStreamRotatedBy12) {
  // h32 = 1: stream = 0x9e3779b97f4a7c13, worked by hand:
  //   word 0 bits 0x13 = 19 and (0x7c13 >> 6) & 63 = 48;
  //   rotr 12 -> ...f4a7: bits 0x27 = 39 and (0xf4a7 >> 6) & 63 = 18;
  //   rotr 12 -> ...b97f: bits 63 and (0xb97f >> 6) & 63 = 37.
  EXPECT_EQ(DynamicBloom::PairMask(kGoldenRatio64), Bit(19) | Bit(48));
  auto f = MakeFilter(1024, 6);
  f->Add(1);
  EXPECT_EQ(NonzeroWords(*f), (std::vector<std::pair<size_t, uint64_t>>{
                                  {0, Bit(19) | Bit(48)}, {1, Bit(39) | Bit(18)}, {2, Bit(63) | Bit(37)}}));
  // probes=10 continues the same stream for two more words.
  auto f10 = MakeFilter(1024, 10);
  f10->Add(1);
  auto words = NonzeroWords(*f10);
  ASSERT_EQ(words.size(), 5u);
  EXPECT_EQ(words[2], (std::pair<size_t, uint64_t>{2, Bit(63) | Bit(37)}));
  const uint64_t fourth = RotateRight64(kGoldenRatio64, 36);
  EXPECT_EQ(words[3], (std::pair<size_t, uint64_t>{3, Bit(fourth & 63) | Bit((fourth >> 6) & 63)}));
}

TEST(DynamicBloomTest, WordsAreFirstWordXorI) {
  // kLen = 16 words, D = 3. FastRange32(0xffffffff, 16) = 15, so the words are
  // 15, 15^1 = 14, 15^2 = 13 (XOR keeps them inside the aligned block 12..15;
  // 15+1 would leave it). FastRange32(0x80000000, 16) = 8 -> 8, 9, 10.
  auto f = MakeFilter(1024, 6);
  f->Add(0xffffffffu);
  auto words = NonzeroWords(*f);
  ASSERT_EQ(words.size(), 3u);
  EXPECT_EQ(words[0].first, 13u);
  EXPECT_EQ(words[1].first, 14u);
  EXPECT_EQ(words[2].first, 15u);
  // The word a gets the first pair: bits of stream phi64 * 0xffffffff.
  EXPECT_EQ(words[2].second, DynamicBloom::PairMask(kGoldenRatio64 * 0xffffffffu));

  auto g = MakeFilter(1024, 6);
  g->Add(0x80000000u);
  words = NonzeroWords(*g);
  ASSERT_EQ(words.size(), 3u);
  EXPECT_EQ(words[0].first, 8u);
  EXPECT_EQ(words[2].first, 10u);
}

TEST(DynamicBloomTest, ThirtyTwoBitFormIgnoresTheHighHalf) {
  auto f = MakeFilter(1024, 6);
  f->Add(0xdeadbeef00000001ULL);
  auto g = MakeFilter(1024, 6);
  g->Add(1);
  EXPECT_EQ(NonzeroWords(*f), NonzeroWords(*g));
  EXPECT_TRUE(g->MayContain(0x1234567800000001ULL));
}

TEST(DynamicBloomTest, SixtyFourBitFormTakesWordFromHighHalfAndBitsFromLowHalf) {
  // Word: FastRange64 over kLen = 16: 0x8000000000000001 -> 8. Bits: the
  // stream of the low half (1), exactly as the 32-bit form's for h32 = 1.
  auto f = MakeFilter(1024, 6, HashWidth::k64);
  f->Add(0x8000000000000001ULL);
  EXPECT_EQ(NonzeroWords(*f), (std::vector<std::pair<size_t, uint64_t>>{
                                  {8, Bit(19) | Bit(48)}, {9, Bit(39) | Bit(18)}, {10, Bit(63) | Bit(37)}}));
  EXPECT_FALSE(f->MayContain(1));  // same bits, other word
}

TEST(DynamicBloomTest, OneProbeActsAsOneDoubleProbe) {
  auto one = MakeFilter(4096, 1);
  auto two = MakeFilter(4096, 2);
  for (uint64_t h : TestHashes(7, 300)) {
    one->Add(h);
    two->Add(h);
  }
  EXPECT_EQ(NonzeroWords(*one), NonzeroWords(*two));
  EXPECT_EQ(one->Describe(), "dynamic:hash=32,probes=1,total_bits=4096,words=64");
}

TEST(DynamicBloomTest, AddAndAddConcurrentlyGiveIdenticalBits) {
  for (int probes : DynamicBloom::kAllowedProbes) {
    for (HashWidth width : {HashWidth::k32, HashWidth::k64}) {
      auto a = MakeFilter(20000, probes, width);
      auto b = MakeFilter(20000, probes, width);
      for (uint64_t h : TestHashes(100 + probes, 2000)) {
        a->Add(h);
        b->AddConcurrently(h);
      }
      EXPECT_EQ(NonzeroWords(*a), NonzeroWords(*b)) << "probes=" << probes;
    }
  }
}

TEST(DynamicBloomTest, BatchQueryMatchesSingleQueries) {
  // Batch sizes around the 32-key prefetch chunk.
  for (const char* spec : {"dynamic:bpk=10", "dynamic:bpk=10,hash=64", "dynamic:bpk=4,probes=10"}) {
    testing_util::ExpectBatchEqualsSingle(spec, {1, 31, 32, 33, 1000});
  }
}

// The view packs kLen and D into its param: every probe count, both widths.
TEST(DynamicBloomTest, OwnViewAnswersAsTheFilter) {
  for (int probes : DynamicBloom::kAllowedProbes) {
    for (HashWidth width : {HashWidth::k32, HashWidth::k64}) {
      auto f = MakeFilter(30011, probes, width);
      const auto added = TestHashes(40 + probes, 3000, width);
      for (uint64_t h : added) f->Add(h);
      std::vector<uint64_t> queries = TestHashes(60 + probes, 5000);
      queries.insert(queries.end(), added.begin(), added.end());
      testing_util::ExpectOwnViewAgrees(*f, queries,
                                        "probes=" + std::to_string(probes) + " hash=" + HashWidthText(width));
    }
  }
}

// A view reads the live words (the memtable keeps handles while it fills):
// one taken from the empty filter sees every later Add and AddConcurrently.
TEST(DynamicBloomTest, ViewTakenBeforeAddsSeesThem) {
  auto f = MakeFilter(50000, 6, HashWidth::k64);
  const FilterView view = f->View();
  const auto added = TestHashes(77, 4000);
  size_t early_positives = 0;
  for (uint64_t h : added) early_positives += view.MayContain(h);
  EXPECT_EQ(early_positives, 0u);  // all words zero
  for (size_t i = 0; i < added.size(); ++i) {
    if (i % 2 == 0) {
      f->Add(added[i]);
    } else {
      f->AddConcurrently(added[i]);
    }
  }
  size_t missing = 0;
  for (uint64_t h : added) missing += !view.MayContain(h);
  EXPECT_EQ(missing, 0u);
  std::unique_ptr<bool[]> batch(new bool[added.size()]);
  view.MayContainBatch(added.data(), added.size(), batch.get());
  EXPECT_EQ(std::count(batch.get(), batch.get() + added.size(), true), static_cast<long>(added.size()));
}

// Several writers add disjoint hash sets at once while a reader queries
// (through the object and through a view taken before the adds).
// Because OR is commutative and fetch_or cannot lose bits, the result must be
// bit-identical to adding everything from one thread; run it under TSan
// (build-*-tsan) to check the atomics.
TEST(DynamicBloomTest, ConcurrentAddsLoseNothing) {
  constexpr int kWriters = 4;
  constexpr size_t kPerWriter = 50000;
  for (HashWidth width : {HashWidth::k32, HashWidth::k64}) {
    std::vector<std::vector<uint64_t>> sets;
    for (int t = 0; t < kWriters; ++t) sets.push_back(TestHashes(2024 + t, kPerWriter));
    auto shared = MakeFilter(kWriters * kPerWriter * 10, 6, width);
    std::atomic<bool> done{false};
    size_t reader_positives = 0;
    const FilterView view = shared->View();  // taken before the adds, read during them
    std::thread reader([&] {
      while (!done.load(std::memory_order_acquire)) {
        for (size_t i = 0; i < 1000; ++i) reader_positives += shared->MayContain(sets[0][i]);
        for (size_t i = 0; i < 1000; ++i) reader_positives += view.MayContain(sets[1][i]);
      }
    });
    std::vector<std::thread> writers;
    for (int t = 0; t < kWriters; ++t) {
      writers.emplace_back([&, t] {
        for (uint64_t h : sets[t]) shared->AddConcurrently(h);
      });
    }
    for (auto& w : writers) w.join();
    done.store(true, std::memory_order_release);
    reader.join();

    auto sequential = MakeFilter(kWriters * kPerWriter * 10, 6, width);
    size_t false_negatives = 0;
    for (const auto& set : sets) {
      for (uint64_t h : set) {
        sequential->Add(h);
        false_negatives += shared->MayContain(h) ? 0 : 1;
      }
    }
    EXPECT_EQ(false_negatives, 0u);
    EXPECT_EQ(NonzeroWords(*shared), NonzeroWords(*sequential));
  }
}

TEST(DynamicBloomTest, RoundTripThroughSerializedBytes) {
  for (const char* spec : {"dynamic:bpk=10", "dynamic:bpk=7.5,probes=10,hash=64", "dynamic:bpk=3,probes=1"}) {
    testing_util::ExpectRoundTrip(spec, 5000);
    // The reopened filter is the query side only (OpenFilter's contract): it
    // may read the caller's bytes, which it must not change.
    const std::string bytes = testing_util::MustBuild(*MustPolicy(spec), TestHashes(11, 5000))->Serialize();
    std::unique_ptr<Filter> reopened;
    ASSERT_TRUE(OpenFilter(bytes, &reopened).ok());
    EXPECT_FALSE(reopened->SupportsAdd());
  }
}

// Opened from 64-byte aligned bytes it reads them in place (the speed
// harness's huge-page arena); from less aligned ones it copies them into an
// aligned array. Both answer as the built filter, which is still dynamic.
TEST(DynamicBloomTest, OpensInPlaceWhenLineAlignedAndCopiesOtherwise) {
  for (const char* spec :
       {"dynamic:bpk=10", "dynamic:bpk=7.5,probes=10,hash=64", "dynamic:bpk=3,probes=1", "dynamic:bpk=10,probes=2"}) {
    testing_util::ExpectOpensInPlaceWhenAligned(spec, 20000, kCacheLineBytes);
  }
}

TEST(DynamicBloomTest, ReaderRejectsInconsistentBytes) {
  auto f = MakeFilter(1000, 6);
  f->Add(42);
  std::string data;
  f->AppendData(&data);
  auto serialized = [](const std::string& layout, const std::string& bits) {
    std::string bytes;
    AppendWithFilterlabTrailer(bits, layout, &bytes);
    return bytes;
  };
  std::unique_ptr<Filter> g;
  const std::string good = serialized(f->Describe(), data);  // outlives g, which may read it in place
  ASSERT_TRUE(OpenFilter(good, &g).ok());
  testing_util::ExpectCorruption(serialized(f->Describe(), data.substr(8)), {"120 bytes", "needs 128"});
  testing_util::ExpectCorruption(serialized("dynamic:hash=32,probes=6,total_bits=1000,words=17", data),
                                 {"means 16 words"});
  testing_util::ExpectCorruption(serialized("dynamic:hash=32,probes=5,total_bits=1000,words=16", data),
                                 {"probes=5", "1, 2, 4, 6, 8, 10"});
  testing_util::ExpectCorruption(serialized("dynamic:hash=32,probes=6,words=16", data), {"lacks 'total_bits'"});
}

TEST(DynamicBloomTest, PolicyCanonicalSpecSizingAndHash) {
  auto p = MustPolicy("dynamic:bpk=10");
  EXPECT_EQ(p->spec(), "dynamic:bpk=10,probes=6,hash=32");
  EXPECT_TRUE(p->is_dynamic());
  EXPECT_EQ(p->num_probes(), 6);
  const std::string key = "memtable key";
  EXPECT_EQ(p->HashKey(key), BloomHash32(key.data(), key.size()));
  // 1000 keys x 10 bits = 10000 bits -> 40 blocks of 256 bits = 160 words.
  std::unique_ptr<Filter> f;
  ASSERT_TRUE(p->NewDynamic(1000, &f).ok());
  EXPECT_EQ(f->DataBytes(), 160u * 8);
  EXPECT_EQ(f->Describe(), "dynamic:hash=32,probes=6,total_bits=10000,words=160");
  // Fractional bits/key in exact millibits: 1000 x 10.3 is 10300 bits, not 10301.
  ASSERT_TRUE(MustPolicy("dynamic:bpk=10.3")->NewDynamic(1000, &f).ok());
  EXPECT_EQ(f->Describe(), "dynamic:hash=32,probes=6,total_bits=10300,words=164");
  // No keys: one block, everything absent.
  ASSERT_TRUE(p->Build(nullptr, 0, &f).ok());
  EXPECT_EQ(f->DataBytes(), 32u);
  EXPECT_FALSE(f->MayContain(12345));
  EXPECT_EQ(p->ModelFpRate(0), 0.0);
  EXPECT_EQ(MustPolicy("dynamic:bpk=8,probes=4,hash=64")->spec(), "dynamic:bpk=8,probes=4,hash=64");
}

TEST(DynamicBloomTest, BadSpecsAndSizesNameWhatIsAllowed) {
  testing_util::ExpectInvalidSpec("dynamic:bpk=10,probes=3", {"probes=3", "1, 2, 4, 6, 8, 10"});
  testing_util::ExpectInvalidSpec("dynamic:bpk=10,probes=12", {"probes=12", "1, 2, 4, 6, 8, 10"});
  testing_util::ExpectInvalidSpec("dynamic:bpk=10,hash=16", {"hash=16", "32 or 64"});
  testing_util::ExpectInvalidSpec("dynamic:bpk=0", {"bpk=0", "[0.5, 100]"});
  testing_util::ExpectInvalidSpec("dynamic:bpk=10,lines=4", {"lines", "bpk, probes, hash"});

  std::unique_ptr<DynamicBloom> f;
  Status s = DynamicBloom::Create(1000, 7, HashWidth::k32, &f);
  EXPECT_TRUE(s.IsInvalidArgument());
  EXPECT_NE(s.message().find("num_probes=7"), std::string::npos) << s.message();
  EXPECT_NE(s.message().find("1, 2, 4, 6, 8, 10"), std::string::npos) << s.message();
  s = DynamicBloom::Create(0, 6, HashWidth::k32, &f);
  EXPECT_TRUE(s.IsInvalidArgument());
  EXPECT_NE(s.message().find("total_bits=0"), std::string::npos) << s.message();
  s = DynamicBloom::Create(DynamicBloom::kMaxTotalBits + 1, 6, HashWidth::k32, &f);
  EXPECT_TRUE(s.IsInvalidArgument());
  EXPECT_EQ(f, nullptr);
}

// Measured FP rate of a filter built by `policy` from n splitmix64 hashes,
// over `queries` fresh hashes (negatives, bar the 32-bit collisions that the
// models include).
double MeasureFpRate(const FilterPolicy& policy, size_t n, size_t queries, uint64_t seed) {
  SplitMix64 gen(seed);
  std::vector<uint64_t> added(n);
  for (auto& h : added) h = gen.Next();
  auto f = testing_util::MustBuild(policy, added);
  size_t positives = 0;
  for (size_t i = 0; i < queries; ++i) positives += f->MayContain(gen.Next());
  return static_cast<double>(positives) / static_cast<double>(queries);
}

// 10^6 keys, 10 bits/key, 6 probes, 10^6 queries. Tolerance: 4 binomial
// sigmas of the query sample (sigma ~ 1.0e-4, ~1% of the rate). The filter's
// own content adds spread too (which blocks happen to be crowded): over 20
// seeds (4x10^6 queries each) it was at most ~0.5% of the rate, so the bound
// is still > 3.5 sigmas of the combined spread. Over those 20 seeds the
// means were -0.1% (hash=64) and -0.4% (hash=32, RocksDB's) off the model:
// the 32-bit form's correlated word and bits make it very slightly better
// than the independent-bits model, far inside the tolerance.
TEST(DynamicBloomTest, FpRateMatchesTwoPerWordPoissonModel) {
  constexpr size_t kKeys = 1000000, kQueries = 1000000;
  for (const char* spec : {"dynamic:bpk=10", "dynamic:bpk=10,hash=64"}) {
    auto policy = MustPolicy(spec);
    const double model = policy->ModelFpRate(kKeys);
    const double measured = MeasureFpRate(*policy, kKeys, kQueries, 1);
    EXPECT_NEAR(measured, model, 4 * BinomialSigma(model, kQueries)) << spec;
  }
  // The model itself at this point (b = 64 kLen / n = 10.0 exactly here).
  EXPECT_NEAR(fpmodel::TwoPerWordPoissonFpRate(10.0, 3, 4), 0.0109, 0.0002);
}

// PR #5762: a 512-bit cache-local filter is ~1.15x a standard one (0.84% ->
// 0.97%), and two probes per word add ~1.12x (0.97% -> 1.09%), bought back by
// ~3% more memory (10.3 instead of 10 bits/key). Measured with hash=64 so the
// 32-bit term does not blur the ratio; the cache-local side is the exact
// Poisson model (0.958%; the published 0.97% was a measurement). Tolerance:
// the published figures are rounded to 2 digits (ratio 1.085/0.975 ..
// 1.095/0.965 = 1.113 .. 1.135), widened by 4 binomial sigmas of our sample
// (~4%): [1.07, 1.18]. (Our model ratio is 1.139; seed 2 measures 1.120.)
TEST(DynamicBloomTest, ReproducesPublishedCostOfTwoProbesPerWord) {
  constexpr size_t kKeys = 1000000, kQueries = 1000000;
  const double cache_local = fpmodel::CacheLocalPoissonFpRate(10, 6, 512);
  EXPECT_NEAR(fpmodel::StandardFpRate(10, 6), 0.0084, 0.00005);
  EXPECT_NEAR(cache_local, 0.0097, 0.0002);
  const double at_10 = MeasureFpRate(*MustPolicy("dynamic:bpk=10,hash=64"), kKeys, kQueries, 2);
  EXPECT_GT(at_10 / cache_local, 1.07);
  EXPECT_LT(at_10 / cache_local, 1.18);

  // The memory that buys it back: the bits/key at which the model meets the
  // 512-bit filter at 10 (bisection; the model falls monotonically in b).
  double lo = 10, hi = 11;
  for (int i = 0; i < 40; ++i) {
    const double mid = (lo + hi) / 2;
    (fpmodel::TwoPerWordPoissonFpRate(mid, 3, 4) > cache_local ? lo : hi) = mid;
  }
  EXPECT_GT(lo, 10.25);  // "about 3%" (10.3): we find 10.33
  EXPECT_LT(lo, 10.40);
  // And measured there, the dynamic filter is as accurate as the 512-bit one
  // at 10 bits/key, within 4 binomial sigmas.
  const std::string spec = "dynamic:bpk=" + FormatNumber(std::round(lo * 1000) / 1000) + ",hash=64";
  const double at_crossing = MeasureFpRate(*MustPolicy(spec), kKeys, kQueries, 3);
  EXPECT_NEAR(at_crossing, cache_local, 4 * BinomialSigma(cache_local, kQueries)) << spec;
}

// PR #5762: at ~5 million keys (10 bits/key, 6 probes) the 32-bit hash costs
// ~1.1x in FP rate over a 64-bit hash (1 - e^{-n/2^32} = 0.00116 on top of
// 0.0109; the models' ratio is 1.103, the Bloom part being taken at the
// 0.06% fewer distinct hashes).
// Tolerance: the ratio of two samples of 10^6 queries, each ~1% relative
// sigma, so ~1.4% for the ratio; 4 sigmas around 1.103-1.107 -> [1.05, 1.17].
TEST(DynamicBloomTest, ThirtyTwoBitHashCostsAboutTenPercentAtFiveMillionKeys) {
  if (kSanitizedBuild) GTEST_SKIP() << "a statistical check at 5*10^6 keys: it runs in the Release suite";
  constexpr size_t kKeys = 5000000, kQueries = 1000000;
  const double fp32 = MeasureFpRate(*MustPolicy("dynamic:bpk=10,hash=32"), kKeys, kQueries, 4);
  const double fp64 = MeasureFpRate(*MustPolicy("dynamic:bpk=10,hash=64"), kKeys, kQueries, 4);
  EXPECT_GT(fp32 / fp64, 1.05);
  EXPECT_LT(fp32 / fp64, 1.17);
}

}  // namespace
}  // namespace filterlab
