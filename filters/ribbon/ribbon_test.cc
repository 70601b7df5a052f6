// Standard128Ribbon: RocksDB's vectors by name, the native reader's checks
// of damaged bytes, the fp= form, and the specs it refuses.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "common/test_scale.h"
#include "filters/filter.h"
#include "filters/filter_test_util.h"
#include "filters/registry.h"
#include "filters/ribbon/ribbon_banding.h"
#include "filters/ribbon/ribbon_sizing.h"
#include "filters/ribbon/ribbon_solution.h"
#include "filters/trailer.h"
#include "filters/vectors/vector_check.h"
#include "hashing/remix.h"

namespace filterlab {
namespace {

using testing_util::ExpectBatchEqualsSingle;
using testing_util::ExpectCorruption;
using testing_util::ExpectInvalidSpec;
using testing_util::ExpectNoFalseNegatives;
using testing_util::ExpectRoundTrip;
using testing_util::MustBuild;
using testing_util::MustPolicy;
using testing_util::TestHashes;

TEST(Ribbon, RocksDbVectorsEveryCase) {
  const std::string path = std::string(FILTERLAB_REFERENCE_DIR) + "/../vectors-modern/ribbon_filter.json";
  std::string kind;
  std::vector<VectorCaseResult> results;
  const Status s = CheckVectorFile(path, &kind, &results);
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ(kind, "ribbon_filter");
  EXPECT_EQ(results.size(), 90u);
  for (const auto& r : results) EXPECT_TRUE(r.passed) << r.name << ": " << r.detail;
}

// The banding interleaves several keys' walks (ribbon_banding.cc), which is
// only right if the order keys are banded in cannot change the solution or
// whether a seed bands. Same keys in order, reversed and shuffled: the same
// seed (or none) and the same solution bytes, at RocksDB's slot count and at an
// overloaded one where seeds fail (the search must fail on the same seeds),
// with duplicate hashes (dependent rows) mixed in.
TEST(Ribbon, BandingOrderChangesNoSolution) {
  SplitMix64 rng(23);
  for (size_t n : {7, 100, 1000, 20000}) {
    std::vector<uint64_t> hashes(n);
    for (auto& h : hashes) h = rng.Next();
    hashes[n / 2] = hashes[n / 3];
    const uint32_t fitted = ribbon::NumSlotsForKeys(static_cast<uint32_t>(n));
    // ~1% over n: most seeds fail, and below ~200 keys all 256 do.
    const uint32_t overloaded = std::max<uint32_t>(256, static_cast<uint32_t>(n * 1.01 / 128 + 1) * 128);
    for (uint32_t slots : {fitted, overloaded}) {
      std::vector<std::vector<uint64_t>> orders{hashes, hashes, hashes};
      std::reverse(orders[1].begin(), orders[1].end());
      for (size_t i = n - 1; i > 0; --i) std::swap(orders[2][i], orders[2][rng.Next() % (i + 1)]);
      const ribbon::InterleavedLayout layout = ribbon::InterleavedLayout::For(
          slots / ribbon::kCoeffBits, ribbon::SolutionBytesForOneInFpRate(slots, 100.0, 0));
      std::vector<std::vector<uint8_t>> solutions;
      std::vector<int> seeds;
      for (const auto& order : orders) {
        ribbon::Banding banding;
        const bool ok = banding.FindSeedAndBand(slots, order.data(), n, 0);
        seeds.push_back(ok ? static_cast<int>(banding.ordinal_seed()) : -1);
        solutions.emplace_back(layout.data_bytes());
        if (ok) ribbon::BackSubstitute(banding, layout, solutions.back().data());
      }
      if (slots == fitted) {
        EXPECT_NE(seeds[0], -1) << n << " keys, " << slots << " slots";
      }
      for (size_t k = 1; k < orders.size(); ++k) {
        EXPECT_EQ(seeds[k], seeds[0]) << n << " keys, " << slots << " slots, order " << k;
        EXPECT_EQ(solutions[k], solutions[0]) << n << " keys, " << slots << " slots, order " << k;
      }
    }
  }
}

// SolutionBitsScalar<C> for C = 0..32, indexed by C (the policy keeps one
// query function per column count the same way).
template <size_t... C>
constexpr auto ScalarKernels(std::index_sequence<C...>) {
  return std::array{&ribbon::SolutionBitsScalar<C>...};
}
constexpr auto kScalarKernels = ScalarKernels(std::make_index_sequence<ribbon::kMaxResultBits + 1>());
#ifdef FILTERLAB_RIBBON_AVX2
template <size_t... C>
constexpr auto Avx2Kernels(std::index_sequence<C...>) {
  return std::array{&ribbon::SolutionBitsAvx2<C>...};
}
constexpr auto kAvx2Kernels = Avx2Kernels(std::make_index_sequence<ribbon::kMaxResultBits + 1>());
#endif
// The kernels compiled per column count in this build, by name.
const std::vector<std::pair<const char*, decltype(kScalarKernels)>>& PerColumnCountKernels() {
  static const std::vector<std::pair<const char*, decltype(kScalarKernels)>> kernels{
      {"scalar", kScalarKernels},
#ifdef FILTERLAB_RIBBON_AVX2
      {"AVX2", kAvx2Kernels},
#endif
  };
  return kernels;
}

// Column i's result bit of a query starting at slot `start`, from the
// layout's definition alone, bit by bit: the parity over the 128 slots from
// the start of (coefficient bit j & column i's solution bit of slot
// start + j), where block b's columns are upper_num_columns, one fewer
// before upper_start_block, stored one 128-bit segment per column after the
// segments of the blocks before it.
uint64_t ReferenceBits(const ribbon::InterleavedLayout& l, const std::vector<uint8_t>& data, uint32_t start,
                       ribbon::CoeffRow cr) {
  auto columns_of = [&](uint32_t b) { return l.upper_num_columns - (b < l.upper_start_block ? 1u : 0u); };
  std::vector<uint32_t> first_segment_of(l.num_blocks, 0);  // block b's first segment: the columns before it
  for (uint32_t b = 1; b < l.num_blocks; ++b) first_segment_of[b] = first_segment_of[b - 1] + columns_of(b - 1);
  const uint32_t columns = columns_of(start / ribbon::kCoeffBits);
  uint64_t bits = 0;
  for (uint32_t i = 0; i < columns; ++i) {
    int parity = 0;
    for (uint32_t j = 0; j < ribbon::kCoeffBits; ++j) {
      if (((cr >> j) & 1) == 0) continue;
      const uint32_t slot = start + j;
      const size_t bit = size_t{first_segment_of.at(slot / ribbon::kCoeffBits) + i} * 128 + slot % ribbon::kCoeffBits;
      parity ^= (data.at(bit / 8) >> (bit % 8)) & 1;
    }
    bits |= static_cast<uint64_t>(parity) << i;
  }
  return bits;
}

// The query kernels compiled per column count C = 1..32 (scalar, and AVX2
// where the build targets it) compute every column of the query as the
// layout defines it, on layouts with lower blocks (one column fewer) before
// upper ones: every start of 5 blocks, 2 random coefficient rows each,
// random solution bytes in an exactly sized buffer. A query in a lower
// block reads one segment beyond its columns (ribbon_solution.h); those
// bits are masked off, and under ASan the exactly sized buffer shows that
// no read leaves the data (with a sample of the starts: see below).
TEST(Ribbon, KernelsOfEachColumnCountComputeEveryColumn) {
  constexpr uint32_t kBlocks = 5;
  SplitMix64 rng(7);
  for (uint32_t c = 1; c <= ribbon::kMaxResultBits; ++c) {
    for (uint32_t lower_blocks : {0u, 2u, kBlocks - 1}) {
      const auto layout = ribbon::InterleavedLayout::For(kBlocks, size_t{kBlocks * c - lower_blocks} * 16);
      ASSERT_EQ(layout.upper_num_columns, c);
      ASSERT_EQ(layout.upper_start_block, lower_blocks);
      std::vector<uint8_t> data(layout.data_bytes());
      for (auto& b : data) b = static_cast<uint8_t>(rng.Next());
      for (uint32_t start = 0; start < layout.num_starts(); ++start) {
        // Under sanitizers, which look for reads outside the data, the starts
        // near block edges (where the reads reach farthest) and every 8th.
        const uint32_t bit = start % ribbon::kCoeffBits;
        if (kSanitizedBuild && bit > 2 && bit < ribbon::kCoeffBits - 3 && bit % 8 != 0) continue;
        // The smallest rehashed hash whose start slot is `start`: ceil(start 2^64 / starts).
        const unsigned __int128 n = layout.num_starts();
        const auto h = static_cast<uint64_t>(((static_cast<unsigned __int128>(start) << 64) + n - 1) / n);
        ASSERT_EQ(ribbon::StartOf(h, layout.num_starts()), start);
        const ribbon::QueryPlace p = ribbon::PlaceOf(h, layout);
        for (int k = 0; k < 2; ++k) {
          const ribbon::CoeffRow cr = ribbon::CoeffRowOf(rng.Next());
          const uint64_t expected = ReferenceBits(layout, data, start, cr);
          for (const auto& [name, kernels] : PerColumnCountKernels()) {
            ASSERT_EQ(kernels[c](cr, p, data.data()) & ribbon::ColumnMask(p), expected)
                << name << " kernel, columns " << c << " lower blocks " << lower_blocks << " start " << start;
          }
        }
      }
    }
  }
}

// The AVX-512 query kernel computes what its scalar twin does: random
// solution bytes in an exactly sized buffer, every column count 1..32, every
// start bit in the first and a middle block, and the last block at start
// bit 0 (the only start there; the kernel must not read past it), 4 random
// coefficient rows each.
TEST(Ribbon, SimdSolutionBitsEqualScalarTwin) {
#ifndef FILTERLAB_RIBBON_AVX512
  GTEST_SKIP() << "built without AVX-512 VPOPCNTDQ and VBMI2: the scalar kernel is the only one";
#else
  constexpr uint32_t kBlocks = 3;
  SplitMix64 rng(11);
  for (uint32_t c = 1; c <= ribbon::kMaxResultBits; ++c) {
    std::vector<uint8_t> data(size_t{kBlocks} * c * 16);
    for (auto& b : data) b = static_cast<uint8_t>(rng.Next());
    for (uint32_t block = 0; block < kBlocks; ++block) {
      for (uint32_t start_bit = 0; start_bit < ribbon::kCoeffBits; ++start_bit) {
        if (block == kBlocks - 1 && start_bit != 0) break;
        const ribbon::QueryPlace p{block * c, c, start_bit};
        for (int k = 0; k < 4; ++k) {
          const ribbon::CoeffRow cr = ribbon::CoeffRowOf(rng.Next());
          ASSERT_EQ(ribbon::SolutionBitsAvx512(cr, p, data.data()), kScalarKernels[c](cr, p, data.data()))
              << "columns " << c << " block " << block << " start bit " << start_bit;
        }
      }
    }
  }
#endif
}

// The AVX-512 back-substitution writes the bytes of its scalar twin: every
// column count 1..32, whole (2^c) and fractional (2^(c - 1/2)) FP targets,
// so that lower blocks have one column fewer, standard and homogeneous
// (random free slots) right-hand sides, over bandings of 1000 random keys.
TEST(Ribbon, SimdBackSubstitutionEqualsScalarTwin) {
#ifndef FILTERLAB_RIBBON_AVX512
  GTEST_SKIP() << "built without AVX-512 VPOPCNTDQ and VBMI2: the scalar back-substitution is the only one";
#else
  constexpr size_t kKeys = 1000;
  const uint32_t slots = ribbon::NumSlotsForKeys(kKeys);
  SplitMix64 rng(31);
  for (uint32_t c = 1; c <= ribbon::kMaxResultBits; ++c) {
    for (double one_in :
         {std::ldexp(1.0, static_cast<int>(c)), std::ldexp(1.0, static_cast<int>(c)) / std::sqrt(2.0)}) {
      for (bool homogeneous : {false, true}) {
        std::vector<uint64_t> hashes(kKeys);
        for (auto& h : hashes) h = rng.Next();
        ribbon::Banding banding;
        ASSERT_TRUE(banding.FindSeedAndBand(slots, hashes.data(), kKeys, 0, homogeneous));
        const auto layout = ribbon::InterleavedLayout::For(slots / ribbon::kCoeffBits,
                                                           ribbon::SolutionBytesForOneInFpRate(slots, one_in, 0));
        std::vector<uint8_t> scalar(layout.data_bytes()), simd(layout.data_bytes());
        ribbon::BackSubstituteScalar(banding, layout, scalar.data(), homogeneous);
        ribbon::BackSubstituteAvx512(banding, layout, simd.data(), homogeneous);
        EXPECT_EQ(simd, scalar) << c << " columns, 1/FP " << one_in << (homogeneous ? ", homogeneous" : "");
      }
    }
  }
#endif
}

TEST(Ribbon, SerializedFormHasRibbonTrailerAndReadsBack) {
  auto policy = MustPolicy("ribbon:bpk=10");
  const auto hashes = TestHashes(1, 5000);
  auto built = MustBuild(*policy, hashes);
  const std::string bytes = built->Serialize();
  ASSERT_GE(bytes.size(), 5u);
  EXPECT_EQ(static_cast<uint8_t>(bytes[bytes.size() - 5]), 0xfe);
  EXPECT_EQ((bytes.size() - 5) % 16, 0u);
  EXPECT_EQ(built->DataBytes(), bytes.size() - 5);
  std::unique_ptr<Filter> read;
  ASSERT_TRUE(OpenFilter(bytes, &read).ok());
  EXPECT_EQ(read->Describe(), built->Describe());
  for (uint64_t h : hashes) ASSERT_TRUE(read->MayContain(h));
  for (uint64_t h : TestHashes(2, 10000)) ASSERT_EQ(read->MayContain(h), built->MayContain(h));
}

TEST(Ribbon, SmallFiltersAreFastLocalBloomAsInRocksDb) {
  const std::string bytes = MustBuild(*MustPolicy("ribbon:bpk=10"), TestHashes(3, 50))->Serialize();
  EXPECT_EQ(static_cast<uint8_t>(bytes[bytes.size() - 5]), 0xff);
}

// The trailer's block count and the length must describe a layout RocksDB
// writes: at least 2 blocks, whole 16-byte segments, at most 32 columns.
TEST(Ribbon, NativeReaderRefusesDamagedBytes) {
  const std::string good = MustBuild(*MustPolicy("ribbon:bpk=10"), TestHashes(4, 3000))->Serialize();
  const std::string trailer = good.substr(good.size() - 5);
  ExpectCorruption(good.substr(3), {"multiple of 16"});
  ExpectCorruption(good.substr(0, good.size() - 5) + trailer.substr(0, 2) + std::string("\x01\x00\x00", 3),
                   {"1 blocks", "2..16777215"});
  // 2 blocks cannot hold more than 32 columns (1024 bytes) of solution.
  ExpectCorruption(std::string(2048, '\0') + trailer.substr(0, 2) + std::string("\x02\x00\x00", 3),
                   {"2048", "32 columns"});
}

// The fp= form: FP within its model. 20000 keys, 400000 other hashes at
// fp=0.01: ~4000 expected positives (sd ~63); 6 sd of tolerance keeps a
// correct filter from failing (fixed seeds, so the outcome is fixed anyway)
// while a filter one column off (2x or 0.5x) fails by > 30 sd.
TEST(Ribbon, FpFormMeetsItsModel) {
  auto policy = MustPolicy("ribbon:fp=0.01");
  EXPECT_EQ(policy->spec(), "ribbon:fp=0.01");
  const auto hashes = TestHashes(5, 20000);
  auto built = MustBuild(*policy, hashes);
  for (uint64_t h : hashes) ASSERT_TRUE(built->MayContain(h));
  const auto others = TestHashes(6, 400000);
  size_t positives = 0;
  for (uint64_t h : others) positives += built->MayContain(h) ? 1 : 0;
  const double expected = policy->ModelFpRate(hashes.size()) * others.size();
  EXPECT_NEAR(expected, 4000, 40);  // the column mix aims at the target
  EXPECT_NEAR(static_cast<double>(positives), expected, 6 * std::sqrt(expected));
}

// The property tests cover the registered example (bpk); the fp form has
// no Bloom fallback, so its 0- and 1-key filters are Ribbon's own paths.
TEST(Ribbon, FpFormBuildsReadsAndBatches) {
  ExpectNoFalseNegatives("ribbon:fp=0.001", {0, 1, 7, 1000, 100000});
  for (size_t keys : {0, 1, 1000}) ExpectRoundTrip("ribbon:fp=0.001", keys);
  ExpectBatchEqualsSingle("ribbon:fp=0.001", {1, 7, 64});
}

// Build's working memory is the banding, 20 bytes per slot at RocksDB's
// ~1.05-1.10 slots per key; the simulator refuses builds by it. Where the
// policy builds FastLocalBloom (small filters, beyond 950M keys) it is 0.
TEST(Ribbon, BuildTemporaryBytesIsTheBanding) {
  auto policy = MustPolicy("ribbon:bpk=10");
  const double per_key = static_cast<double>(policy->BuildTemporaryBytes(1000000)) / 1e6;
  EXPECT_GT(per_key, 20.5);
  EXPECT_LT(per_key, 22.0);
  EXPECT_EQ(policy->BuildTemporaryBytes(50), 0u);
  EXPECT_EQ(policy->BuildTemporaryBytes(1000000000), 0u);
  const double at_900m = static_cast<double>(MustPolicy("ribbon:fp=0.01")->BuildTemporaryBytes(900000000)) / 9e8;
  EXPECT_GT(at_900m, per_key);  // the slot overhead grows with the key count
  EXPECT_LT(at_900m, 23.0);
}

// Homogeneous Ribbon: the generic checks, its own format, and FP at its
// model. 20000 keys, 400000 other hashes at fp=0.01: ~4000 expected
// positives (sd ~63). Its model is a lower bound (it leaves out queries
// whose row lies in the span of the keys' rows); at RocksDB's slot sizing
// that term is far below the sampling error, so the same 6 sd hold on both
// sides, and a filter with all-zero free slots (FP 1) or one column off
// fails by > 30 sd.
TEST(Ribbon, HomogeneousBuildsReadsAndMeetsItsModel) {
  ExpectNoFalseNegatives("ribbon:fp=0.01,homogeneous=1", {0, 1, 7, 1000, 100000});
  for (size_t keys : {0, 1, 1000}) ExpectRoundTrip("ribbon:fp=0.01,homogeneous=1", keys);
  ExpectBatchEqualsSingle("ribbon:bpk=10,homogeneous=1", {1, 7, 64});
  auto policy = MustPolicy("ribbon:fp=0.01,homogeneous=1");
  EXPECT_EQ(policy->spec(), "ribbon:fp=0.01,homogeneous=1");
  EXPECT_EQ(FpModelKindOf(*policy), FpModelKind::kLowerBound);
  EXPECT_EQ(FpModelKindOf(*MustPolicy("ribbon:fp=0.01")), FpModelKind::kExact);
  const auto hashes = TestHashes(5, 20000);
  auto built = MustBuild(*policy, hashes);
  const std::string bytes = built->Serialize();
  EXPECT_NE(static_cast<uint8_t>(bytes[bytes.size() - 5]), 0xfe);  // not RocksDB's format
  EXPECT_NE(built->Describe().find("homogeneous=1"), std::string::npos) << built->Describe();
  const auto others = TestHashes(6, 400000);
  size_t positives = 0;
  for (uint64_t h : others) positives += built->MayContain(h) ? 1 : 0;
  const double expected = policy->ModelFpRate(hashes.size()) * others.size();
  EXPECT_NEAR(static_cast<double>(positives), expected, 6 * std::sqrt(expected));
  // Small filters stay Ribbon (no Bloom fallback): 50 keys in 2 blocks.
  EXPECT_NE(MustBuild(*MustPolicy("ribbon:bpk=10,homogeneous=1"), TestHashes(3, 50))->Describe().find("blocks=2"),
            std::string::npos);
}

TEST(Ribbon, HomogeneousReaderRefusesDamagedLayouts) {
  auto built = MustBuild(*MustPolicy("ribbon:bpk=10,homogeneous=1"), TestHashes(4, 3000));
  const std::string data = built->Serialize().substr(0, built->DataBytes());
  std::string bytes;
  AppendWithFilterlabTrailer(Slice(data.data(), data.size() - 16), built->Describe(), &bytes);
  ExpectCorruption(bytes, {"data length"});
  bytes.clear();
  AppendWithFilterlabTrailer(data, "ribbon:homogeneous=1,blocks=1,bytes=" + std::to_string(data.size()), &bytes);
  ExpectCorruption(bytes, {"blocks"});
}

TEST(Ribbon, RegisteredWithoutProbes) {
  const FilterVariant* v = FindFilterVariant("ribbon");
  ASSERT_NE(v, nullptr);
  EXPECT_FALSE(v->has_probes);
  EXPECT_FALSE(MustPolicy("ribbon:bpk=7")->num_probes().has_value());
}

TEST(Ribbon, RefusesBadSpecs) {
  ExpectInvalidSpec("ribbon:bpk=10,fp=0.01", {"not both"});
  ExpectInvalidSpec("ribbon:fp=0", {"fp"});
  ExpectInvalidSpec("ribbon:fp=1", {"fp"});
  ExpectInvalidSpec("ribbon:bpk=0.4", {"bpk"});
  ExpectInvalidSpec("ribbon:probes=6", {"probes"});
}

}  // namespace
}  // namespace filterlab
