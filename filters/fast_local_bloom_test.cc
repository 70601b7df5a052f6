// FastLocalBloom-specific tests: sizing and probe rules, the native trailer
// and its strict reader, the 32-bit mode, AVX2 == scalar, batch == single,
// the build pipeline, and spec errors. Bit-exactness against RocksDB is
// checked by the vector files (fastlocalbloom.json, full_filter_e2e.json).
#include "filters/fast_local_bloom.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "common/aligned_array.h"
#include "filters/filter_test_util.h"
#include "filters/policy_open.h"
#include "filters/registry.h"
#include "hashing/remix.h"
#include "hashing/xxh3.h"

namespace filterlab {
namespace {

using testing_util::ExpectCorruption;
using testing_util::HexOf;

std::unique_ptr<FilterPolicy> Policy(const std::string& spec) { return testing_util::MustPolicy(spec); }
using testing_util::TestHashes;
std::unique_ptr<Filter> Build(const FilterPolicy& p, const std::vector<uint64_t>& hashes) {
  return testing_util::MustBuild(p, hashes);
}

// Every bit of *buf set independently with probability `density`: a line as
// full as a filter at that load, for comparing query kernels.
TEST(FastLocalBloomTest, DataBytesRoundUpToWholeLines) {
  // ceil(n * millibits / 8000) rounded up to 64 (RocksDB's CalculateSpace).
  EXPECT_EQ(fastlocal::DataBytesForKeys(1, 10000), 64u);       // 2 bytes -> one line
  EXPECT_EQ(fastlocal::DataBytesForKeys(7, 1000), 64u);        // 1 byte
  EXPECT_EQ(fastlocal::DataBytesForKeys(1000, 10000), 1280u);  // exactly 1250 -> 1280
  EXPECT_EQ(fastlocal::DataBytesForKeys(10000, 10000), 12544u);
  EXPECT_EQ(fastlocal::DataBytesForKeys(100, 20500), 320u);  // 256.25 -> 257 -> 320
  EXPECT_EQ(fastlocal::DataBytesForKeys(512, 1000), 64u);    // exactly one line
  EXPECT_EQ(fastlocal::DataBytesForKeys(513, 1000), 128u);
  // RocksDB caps the data at 0xffffffc0 bytes; absurd counts must not overflow.
  EXPECT_EQ(fastlocal::DataBytesForKeys(uint64_t{1} << 40, 100000), fastlocal::kMaxDataBytes);
  EXPECT_EQ(fastlocal::DataBytesForKeys(UINT64_MAX, 100000), fastlocal::kMaxDataBytes);
}

TEST(FastLocalBloomTest, BuiltFilterHasComputedSize) {
  auto p = Policy("fastlocal:bpk=10");
  EXPECT_EQ(Build(*p, TestHashes(1, 1000))->DataBytes(), 1280u);
  EXPECT_EQ(Build(*p, TestHashes(1, 1))->DataBytes(), 64u);
  EXPECT_EQ(Build(*p, {})->DataBytes(), 0u);
}

TEST(FastLocalBloomTest, ProbeCountRules) {
  EXPECT_EQ(fastlocal::ChooseNumProbes(10000), 6);
  EXPECT_EQ(fastlocal::ChooseNumProbes(16000), 9);  // not 11: local optimum
  EXPECT_EQ(fastlocal::ChooseNumProbes(25501), 12);
  EXPECT_EQ(fastlocal::ChooseNumProbes(25502), 11);  // RocksDB's dip (see ChooseNumProbes)
  EXPECT_EQ(fastlocal::ChooseNumProbes(50000), 23);
  EXPECT_EQ(fastlocal::ChooseNumProbes(50001), 24);
  EXPECT_EQ(Policy("fastlocal:bpk=10")->num_probes(), 6);
  EXPECT_EQ(Policy("fastlocal:bpk=16")->num_probes(), 9);
  EXPECT_EQ(Policy("fastlocal:bpk=10,probes=30")->num_probes(), 30);
}

TEST(FastLocalBloomTest, CanonicalSpecResolvesEveryParameter) {
  EXPECT_EQ(Policy("fastlocal:bpk=10")->spec(), "fastlocal:bpk=10,probes=6,hash=64");
  EXPECT_EQ(Policy("fastlocal")->spec(), "fastlocal:bpk=10,probes=6,hash=64");
  EXPECT_EQ(Policy("fastlocal:bpk=20.5,hash=32")->spec(), "fastlocal:bpk=20.5,probes=11,hash=32");
  // Millibits as RocksDB computes them: int(bpk * 1000 + 0.500001).
  EXPECT_EQ(Policy("fastlocal:bpk=9.999")->spec(), "fastlocal:bpk=9.999,probes=6,hash=64");
  EXPECT_EQ(Policy("fastlocal:bpk=10.0005")->spec(), "fastlocal:bpk=10.001,probes=6,hash=64");
  EXPECT_EQ(Policy("fastlocal:bpk=10.0004")->spec(), "fastlocal:bpk=10,probes=6,hash=64");
  // RocksDB raises 0.5 <= bpk < 1 to 1.
  EXPECT_EQ(Policy("fastlocal:bpk=0.7")->spec(), "fastlocal:bpk=1,probes=1,hash=64");
  // The canonical spec parses back to the same policy.
  for (const char* spec : {"fastlocal:bpk=7.25,probes=3,hash=32", "fastlocal:bpk=33.333"}) {
    const std::string canonical = Policy(spec)->spec();
    EXPECT_EQ(Policy(canonical)->spec(), canonical);
  }
}

TEST(FastLocalBloomTest, BadSpecsAreRejectedWithTheKeyNamed) {
  struct Bad {
    const char* spec;
    const char* must_mention;
  };
  for (const Bad& b : {Bad{"fastlocal:bpk=0", "bpk"}, Bad{"fastlocal:bpk=nan", "bpk"}, Bad{"fastlocal:bpk=inf", "bpk"},
                       Bad{"fastlocal:bpk=-3", "bpk"}, Bad{"fastlocal:bpk=0.4", "bpk"},
                       Bad{"fastlocal:bpk=100.5", "bpk"}, Bad{"fastlocal:bpk=ten", "bpk"},
                       Bad{"fastlocal:bpk=10,probes=0", "probes"}, Bad{"fastlocal:bpk=10,probes=31", "probes"},
                       Bad{"fastlocal:bpk=10,probes=6.5", "probes"}, Bad{"fastlocal:bpk=10,hash=16", "hash"},
                       Bad{"fastlocal:bpk=10,hash=128", "hash"}, Bad{"fastlocal:bpk=10,rotates=1", "rotates"}}) {
    std::unique_ptr<FilterPolicy> p;
    Status s = NewFilterPolicy(b.spec, &p);
    EXPECT_TRUE(s.IsInvalidArgument()) << b.spec << " -> " << s.ToString();
    EXPECT_NE(s.message().find(b.must_mention), std::string::npos) << b.spec << " -> " << s.ToString();
  }
  std::unique_ptr<FilterPolicy> p;
  Status s = NewFilterPolicy("fastlocal:bpk=10,probes=31", &p);
  EXPECT_NE(s.message().find("[1, 30]"), std::string::npos) << s.ToString();
}

TEST(FastLocalBloomTest, NativeTrailerBytes) {
  auto f = Build(*Policy("fastlocal:bpk=10"), TestHashes(2, 1000));
  std::string bytes = f->Serialize();
  ASSERT_EQ(bytes.size(), 1280u + 5);
  EXPECT_EQ(HexOf(bytes.substr(bytes.size() - 5)), "ff00060000");
  bytes = Build(*Policy("fastlocal:bpk=10,probes=30"), TestHashes(2, 1000))->Serialize();
  EXPECT_EQ(HexOf(bytes.substr(bytes.size() - 5)), "ff001e0000");
  // No keys: RocksDB writes an empty filter.
  EXPECT_EQ(Build(*Policy("fastlocal:bpk=10"), {})->Serialize(), "");
  EXPECT_EQ(f->Describe(), "fastlocal:hash=64,probes=6,bytes=1280");
}

TEST(FastLocalBloomTest, Hash32UsesFilterlabTrailer) {
  auto f = Build(*Policy("fastlocal:bpk=10,hash=32"), TestHashes(3, 1000));
  const std::string bytes = f->Serialize();
  EXPECT_EQ(bytes.substr(bytes.size() - 4), "FLT1");
  EXPECT_NE(bytes.find("fastlocal:hash=32,probes=6,bytes=1280"), std::string::npos);
  EXPECT_EQ(f->hash_width(), HashWidth::k32);
}

TEST(FastLocalBloomTest, SerializeOpenRoundTrip) {
  for (const char* spec : {"fastlocal:bpk=10", "fastlocal:bpk=10,hash=32", "fastlocal:bpk=3.5,probes=17"}) {
    for (size_t keys : {0, 1, 7, 3000}) testing_util::ExpectRoundTrip(spec, keys);
  }
}

TEST(FastLocalBloomTest, NoFalseNegatives) {
  for (const char* spec : {"fastlocal:bpk=10", "fastlocal:bpk=10,hash=32", "fastlocal:bpk=1", "fastlocal:bpk=50"}) {
    testing_util::ExpectNoFalseNegatives(spec, {1, 7, 100000});
  }
}

TEST(FastLocalBloomTest, BatchEqualsSingle) {
  for (const char* spec : {"fastlocal:bpk=10", "fastlocal:bpk=10,hash=32", "fastlocal:bpk=4,probes=13"}) {
    testing_util::ExpectBatchEqualsSingle(spec, {1, 7, 64, 65, 1000, 4000});
  }
}

// The query kernels on random lines of every density, probe counts 1..30,
// and unaligned line addresses (opened filters need not be aligned).
TEST(FastLocalBloomTest, Avx2AgreesWithScalar) {
#ifndef FILTERLAB_FASTLOCAL_AVX2
  GTEST_SKIP() << "AVX2 path not compiled in (no __AVX2__ or FILTERLAB_FORCE_SCALAR)";
#else
  const auto c = testing_util::CompareLineKernels(
      12345, 30, fastlocal::MayMatchLineScalar, [](uint32_t h2, int probes, const uint8_t* line, bool scalar) {
        return size_t{scalar != fastlocal::MayMatchLineAvx2(h2, probes, line)};
      });
  EXPECT_EQ(c.differ, 0u);
  // Both answers must have been exercised for the comparison to mean anything.
  EXPECT_GT(c.trues, 10000u);
  EXPECT_GT(c.falses, 10000u);
#endif
}

// The AVX-512 kernels on the same kind of input: random lines of every
// density, probe counts 1..30, unaligned lines.
TEST(FastLocalBloomTest, Avx512AgreesWithScalar) {
#ifndef FILTERLAB_FASTLOCAL_AVX512
  GTEST_SKIP() << "AVX-512 path not compiled in (no __AVX512F__ or FILTERLAB_FORCE_SCALAR)";
#else
  const auto c = testing_util::CompareLineKernels(
      54321, 30, fastlocal::MayMatchLineScalar, [](uint32_t h2, int probes, const uint8_t* line, bool scalar) {
        size_t differ = scalar != fastlocal::MayMatchLineAvx512(h2, probes, line);
        if (probes <= 8) {
          differ += scalar != fastlocal::MayMatchLineAvx512Upto8(h2, fastlocal::EvenLanesAvx512(probes), line);
        }
        if (probes <= 16) {
          differ += scalar != fastlocal::MayMatchLineAvx512Upto16(h2, fastlocal::LanesAvx512(probes), line);
        }
        return differ;
      });
  EXPECT_EQ(c.differ, 0u);
  EXPECT_GT(c.trues, 10000u);
  EXPECT_GT(c.falses, 10000u);
#endif
}

// The kernel PlanProbes picks (what a filter's view runs) on the same kind of
// input as above, in every build (AVX-512: the vpmuludq kernel up to 8 probes,
// one 16-lane round up to 16; otherwise the general one).
TEST(FastLocalBloomTest, PlannedKernelAgreesWithScalar) {
  std::mt19937_64 rng(777);
  std::vector<uint8_t> buf(64 + 8);
  size_t trues = 0, falses = 0, differ = 0;
  for (double density : {0.5, 0.9, 0.995}) {
    for (int line_no = 0; line_no < 100; ++line_no) {
      testing_util::FillWithBitDensity(rng, density, &buf);
      const uint8_t* line = buf.data() + line_no % 8;
      for (int probes = 1; probes <= 30; ++probes) {
        const fastlocal::ProbePlan plan = fastlocal::PlanProbes(probes);
        for (int q = 0; q < 40; ++q) {
          const auto h2 = static_cast<uint32_t>(rng());
          const bool scalar = fastlocal::MayMatchLineScalar(h2, probes, line);
          bool planned = false;
          switch (plan.kernel) {
            case fastlocal::ProbeKernel::kUpto8:
              planned = fastlocal::MayMatchLinePlanned<fastlocal::ProbeKernel::kUpto8>(h2, probes, plan.lanes, line);
              break;
            case fastlocal::ProbeKernel::kUpto16:
              planned = fastlocal::MayMatchLinePlanned<fastlocal::ProbeKernel::kUpto16>(h2, probes, plan.lanes, line);
              break;
            case fastlocal::ProbeKernel::kGeneral:
              planned = fastlocal::MayMatchLinePlanned<fastlocal::ProbeKernel::kGeneral>(h2, probes, plan.lanes, line);
              break;
            case fastlocal::ProbeKernel::kScalar:
            case fastlocal::ProbeKernel::kAvx2:
              ADD_FAILURE() << "PlanProbes(" << probes << ") chose a kernel only kernel= chooses";
              break;
          }
          differ += scalar != planned;
          // The kernels kernel= chooses, on the same lines.
          differ += scalar != fastlocal::MayMatchLinePlanned<fastlocal::ProbeKernel::kScalar>(h2, probes, 0, line);
#if defined(FILTERLAB_FASTLOCAL_AVX2)
          differ += scalar != fastlocal::MayMatchLinePlanned<fastlocal::ProbeKernel::kAvx2>(h2, probes, 0, line);
#endif
          (scalar ? trues : falses)++;
        }
      }
    }
  }
  EXPECT_EQ(differ, 0u);
  EXPECT_GT(trues, 5000u);
  EXPECT_GT(falses, 5000u);
}

// A filter's view (the specialised query the speed harness uses) answers as
// MayContain for the probe counts of every kernel, both widths, built
// (aligned) and opened at an unaligned address.
TEST(FastLocalBloomTest, ViewAnswersAsMayContain) {
  for (const char* spec :
       {"fastlocal:bpk=10", "fastlocal:bpk=10,hash=32", "fastlocal:bpk=1", "fastlocal:bpk=4,probes=13",
        "fastlocal:bpk=50", "fastlocal:bpk=10,probes=16", "fastlocal:bpk=10,probes=17"}) {
    SCOPED_TRACE(spec);
    const auto added = TestHashes(31, 3000);
    auto built = Build(*Policy(spec), added);
    const std::string bytes = built->Serialize();
    std::vector<char> unaligned(bytes.size() + 8);
    std::memcpy(unaligned.data() + 3, bytes.data(), bytes.size());
    std::unique_ptr<Filter> opened;
    ASSERT_TRUE(OpenFilter(Slice(unaligned.data() + 3, bytes.size()), &opened).ok());
    std::vector<uint64_t> queries = TestHashes(32, 20000);
    queries.insert(queries.end(), added.begin(), added.end());
    for (const Filter* f : {built.get(), opened.get()}) {
      const FilterView view = f->View();
      EXPECT_NE(view.data, static_cast<const void*>(f)) << "fastlocal's own view, not the object-calling default";
      size_t differ = 0, positives = 0;
      for (uint64_t h : queries) {
        view.Prefetch(h);
        const bool got = view.MayContain(h);
        differ += got != f->MayContain(h);
        positives += got;
      }
      EXPECT_EQ(differ, 0u);
      EXPECT_GE(positives, added.size());
    }
  }
}

// kernel= changes only which kernel answers: every kernel this build has
// gives the default's answers through MayContain, the view and the batch
// path, for probe counts of every AVX round shape and both widths, on
// filters built and opened at an unaligned address; the bits are the same.
TEST(FastLocalBloomTest, KernelChoiceGivesTheSameAnswers) {
  const std::vector<std::string> kernels = fastlocal::KernelChoices();
  ASSERT_GE(kernels.size(), 2u);
  EXPECT_EQ(kernels[0], "auto");
  EXPECT_EQ(kernels[1], "scalar");
#if defined(FILTERLAB_FASTLOCAL_AVX2)
  EXPECT_NE(std::find(kernels.begin(), kernels.end(), "avx2"), kernels.end());
#endif
  for (const char* base :
       {"fastlocal:bpk=10", "fastlocal:bpk=10,hash=32", "fastlocal:bpk=1", "fastlocal:bpk=4,probes=13",
        "fastlocal:bpk=10,probes=8", "fastlocal:bpk=10,probes=17", "fastlocal:bpk=50"}) {
    const auto added = TestHashes(41, 3000);
    std::vector<uint64_t> queries = TestHashes(42, 20000);
    queries.insert(queries.end(), added.begin(), added.end());
    auto reference = Build(*Policy(base), added);
    const std::string bytes = reference->Serialize();
    for (const std::string& kernel : kernels) {
      const std::string spec = std::string(base) + ",kernel=" + kernel;
      SCOPED_TRACE(spec);
      auto built = Build(*Policy(spec), added);
      EXPECT_EQ(built->Serialize(), bytes);
      std::vector<char> batch_results(queries.size());
      built->MayContainBatch(queries.data(), queries.size(), reinterpret_cast<bool*>(batch_results.data()));
      const FilterView view = built->View();
      size_t differ = 0, positives = 0;
      for (size_t i = 0; i < queries.size(); ++i) {
        const bool want = reference->MayContain(queries[i]);
        differ += built->MayContain(queries[i]) != want;
        differ += view.MayContain(queries[i]) != want;
        differ += (batch_results[i] != 0) != want;
        positives += want;
      }
      EXPECT_EQ(differ, 0u);
      // Both answers exercised: every added key, and the outside queries' negatives.
      EXPECT_GE(positives, added.size());
      EXPECT_LT(positives, queries.size());
    }
  }
}

// The kernel is not in the bytes: OpenFilter opens a kernel=scalar filter
// with the default kernel, OpenFilterFor with the policy's (the view's ops
// are the built filter's), and both answer as the built filter.
TEST(FastLocalBloomTest, OpenFilterForKeepsThePolicysKernel) {
  const auto added = TestHashes(51, 3000);
  std::vector<uint64_t> queries = TestHashes(52, 20000);
  queries.insert(queries.end(), added.begin(), added.end());
  for (const std::string& kernel : fastlocal::KernelChoices()) {
    SCOPED_TRACE(kernel);
    auto policy = Policy("fastlocal:bpk=10,kernel=" + kernel);
    auto built = Build(*policy, added);
    const std::string bytes = built->Serialize();
    std::vector<char> unaligned(bytes.size() + 8);
    std::memcpy(unaligned.data() + 5, bytes.data(), bytes.size());
    const Slice at(unaligned.data() + 5, bytes.size());
    std::unique_ptr<Filter> plain, for_policy;
    ASSERT_TRUE(OpenFilter(at, &plain).ok());
    ASSERT_TRUE(OpenFilterFor(*policy, at, &for_policy).ok());
    // Unaligned opened filters take the unaligned prefetch, so compare the query op itself.
    EXPECT_EQ(for_policy->View().ops->may_contain, built->View().ops->may_contain);
#if defined(FILTERLAB_FASTLOCAL_AVX2)
    if (kernel == "scalar") {
      EXPECT_NE(plain->View().ops->may_contain, built->View().ops->may_contain) << "the default kernel is not scalar";
    }
#endif
    size_t differ = 0;
    for (uint64_t h : queries) {
      differ += (for_policy->MayContain(h) != built->MayContain(h)) + (plain->MayContain(h) != built->MayContain(h));
    }
    EXPECT_EQ(differ, 0u);
  }
  // No keys: an empty filter, opened whatever the kernel.
  std::unique_ptr<Filter> empty;
  auto scalar = Policy("fastlocal:bpk=10,kernel=scalar");
  const std::string none = Build(*scalar, {})->Serialize();
  ASSERT_TRUE(OpenFilterFor(*scalar, Slice(none.data(), none.size()), &empty).ok());
  EXPECT_FALSE(empty->MayContain(1));
}

TEST(FastLocalBloomTest, KernelChoiceIsInTheCanonicalSpecUnlessAuto) {
  EXPECT_EQ(Policy("fastlocal:bpk=10,kernel=auto")->spec(), "fastlocal:bpk=10,probes=6,hash=64");
  EXPECT_EQ(Policy("fastlocal:bpk=10,kernel=scalar")->spec(), "fastlocal:bpk=10,probes=6,hash=64,kernel=scalar");
  EXPECT_EQ(Policy(Policy("fastlocal:kernel=scalar,hash=32")->spec())->spec(),
            "fastlocal:bpk=10,probes=6,hash=32,kernel=scalar");
  for (const char* bad :
       {"fastlocal:bpk=10,kernel=sse", "fastlocal:bpk=10,kernel=", "fastlocal:bpk=10,kernel=Scalar"}) {
    std::unique_ptr<FilterPolicy> p;
    const Status s = NewFilterPolicy(bad, &p);
    EXPECT_TRUE(s.IsInvalidArgument()) << bad << " -> " << s.ToString();
    EXPECT_NE(s.message().find("kernel"), std::string::npos) << bad << " -> " << s.ToString();
    // The spec parser refuses an empty value itself; a named kernel gets the allowed ones.
    if (std::string(bad).back() != '=') {
      EXPECT_NE(s.message().find("auto|scalar"), std::string::npos)
          << "the allowed kernels are named: " << s.ToString();
    }
  }
#if !defined(FILTERLAB_FASTLOCAL_AVX2)
  std::unique_ptr<FilterPolicy> p;
  EXPECT_TRUE(NewFilterPolicy("fastlocal:kernel=avx2", &p).IsInvalidArgument()) << "avx2 is not compiled in";
#endif
}

TEST(FastLocalBloomTest, PipelinedBuildEqualsOneByOne) {
  for (size_t n : {0, 1, 7, 8, 9, 17, 1000}) {
    const auto hashes = TestHashes(9 + n, n);
    const uint32_t len = 640;
    CacheAlignedArray<uint8_t> piped(len), plain(len);
    fastlocal::AddAll(hashes.data(), n, HashWidth::k64, len, 7, piped.data());
    for (uint64_t h : hashes) {
      const auto s = fastlocal::Split(h, HashWidth::k64);
      fastlocal::AddToLine(s.probe_hash, 7, plain.data() + fastlocal::LineOffset(s.line_hash, len));
    }
    EXPECT_EQ(std::memcmp(piped.data(), plain.data(), len), 0) << "n=" << n;
  }
}

TEST(FastLocalBloomTest, Hash32DerivesProbesFromTheOneHash) {
  // A 32-bit filter of h equals a 64-bit filter of (h1, h2 = h1 * phi32), and
  // ignores the upper 32 bits of what it is given.
  const auto hashes = TestHashes(10, 2000);
  std::vector<uint64_t> low(hashes.size()), widened(hashes.size());
  for (size_t i = 0; i < hashes.size(); ++i) {
    low[i] = Lower32(hashes[i]);
    widened[i] = low[i] | uint64_t{Lower32(hashes[i]) * kGoldenRatio32} << 32;
  }
  auto f32 = Build(*Policy("fastlocal:bpk=10,hash=32"), low);
  auto f64 = Build(*Policy("fastlocal:bpk=10,hash=64"), widened);
  const std::string b32 = f32->Serialize(), b64 = f64->Serialize();
  EXPECT_EQ(b32.substr(0, f32->DataBytes()), b64.substr(0, f64->DataBytes()));
  size_t differ = 0;
  for (uint64_t h : TestHashes(11, 5000)) differ += f32->MayContain(h) != f32->MayContain(Lower32(h));
  EXPECT_EQ(differ, 0u);
}

TEST(FastLocalBloomTest, HashKeyIsXxph3) {
  const std::string key = "filterlab key";
  EXPECT_EQ(Policy("fastlocal:bpk=10")->HashKey(key), XXPH3_64(key.data(), key.size()));
  EXPECT_EQ(Policy("fastlocal:bpk=10,hash=32")->HashKey(key), Lower32(XXPH3_64(key.data(), key.size())));
}

// --- the strict native reader -------------------------------------------------------------------

std::string DenseFilterBytes() {
  // 1 bit/key with many keys: nearly every data byte is 0xff, so the cases
  // below do not depend on the value of any particular data byte.
  return Build(*Policy("fastlocal:bpk=1"), TestHashes(12, 20000))->Serialize();
}

Status Open(const std::string& bytes) {
  std::unique_ptr<Filter> f;
  return OpenFilter(bytes, &f);
}

TEST(FastLocalBloomTest, ReaderRejectsBadSubImplementation) {
  std::string b = DenseFilterBytes();
  const size_t len = b.size() - 5;
  b[len + 1] = 1;
  ExpectCorruption(b, {"offset " + std::to_string(len + 1), "sub-implementation", "0x01", "allowed: 0x00"});
}

TEST(FastLocalBloomTest, ReaderRejectsBadProbeCounts) {
  for (int probes : {0, 31}) {
    std::string b = DenseFilterBytes();
    b[b.size() - 3] = static_cast<char>(probes);
    ExpectCorruption(b, {"num_probes " + std::to_string(probes), "allowed: 1..30"});
  }
}

TEST(FastLocalBloomTest, ReaderRejectsOtherBlockSizes) {
  std::string b = DenseFilterBytes();
  b[b.size() - 3] = static_cast<char>(0x20 | 6);  // 128-byte blocks, 6 probes
  ExpectCorruption(b, {"block-size bits", "128-byte", "allowed: 0 (64-byte blocks)"});
}

TEST(FastLocalBloomTest, ReaderRejectsNonzeroReservedBytes) {
  for (size_t at : {2, 1}) {
    std::string b = DenseFilterBytes();
    b[b.size() - at] = 7;
    ExpectCorruption(b, {"reserved", "allowed: 0x00 0x00"});
  }
}

TEST(FastLocalBloomTest, ReaderRejectsTruncatedData) {
  std::string b = DenseFilterBytes();
  b.erase(0, 1);  // data no longer whole lines
  ExpectCorruption(b, {"not a multiple of 64", "truncated"});
  // Cutting the end loses the trailer: what is left ends in 0xff data bytes,
  // which read as a FastLocalBloom marker with an impossible sub-implementation.
  for (size_t cut = 1; cut <= 5; ++cut) {
    std::string t = DenseFilterBytes();
    t.resize(t.size() - cut);
    EXPECT_TRUE(Open(t).IsCorruption()) << "cut " << cut << ": " << Open(t).ToString();
  }
}

TEST(FastLocalBloomTest, NativeReaderIgnoresOtherMarkers) {
  const FilterVariant* v = FindFilterVariant("fastlocal");
  ASSERT_NE(v, nullptr);
  ASSERT_NE(v->open_native, nullptr);
  std::string b = DenseFilterBytes();
  b[b.size() - 5] = static_cast<char>(-3);  // no known format
  std::unique_ptr<Filter> f;
  EXPECT_TRUE(v->open_native(b, &f).IsNotFound());
  EXPECT_TRUE(Open(b).IsCorruption());
}

TEST(FastLocalBloomTest, LayoutReaderChecksLength) {
  auto f = Build(*Policy("fastlocal:bpk=10,hash=32"), TestHashes(13, 100));
  std::string bytes = f->Serialize();
  // Claim one line more than the data holds.
  const std::string layout = f->Describe();
  const size_t at = bytes.find(layout);
  ASSERT_NE(at, std::string::npos);
  std::string other = layout;
  other.replace(other.find("bytes=") + 6, std::string::npos, std::to_string(f->DataBytes() + 64));
  ASSERT_EQ(other.size(), layout.size());  // 128 -> 192: same width, so the trailer lengths stay valid
  bytes.replace(at, layout.size(), other);
  ExpectCorruption(bytes, {"192 data bytes", "has 128"});
}

}  // namespace
}  // namespace filterlab
