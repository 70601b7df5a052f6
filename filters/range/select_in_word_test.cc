// SelectInWord against a scan of the word's bits, for every rank of words of
// every density.
#include "filters/range/select_in_word.h"

#include <bit>
#include <cstdint>
#include <vector>

#include "gtest/gtest.h"
#include "hashing/remix.h"

namespace filterlab {
namespace {

// The r-th set bit found by walking the bits from position 0.
int SelectByScan(uint64_t x, uint64_t r) {
  for (int i = 0; i < 64; ++i) {
    if (((x >> i) & 1) != 0 && r-- == 0) return i;
  }
  return -1;
}

TEST(SelectInWord, EveryRankOfSparseDenseAndEdgeWords) {
  SplitMix64 rng(20261128);
  std::vector<uint64_t> words = {1, uint64_t{1} << 63, ~uint64_t{0}, 0x8000000000000001ULL, 0x5555555555555555ULL};
  for (int i = 0; i < 300; ++i) {
    // AND-ing 0..3 random words gives densities 1/2, 1/4, 1/8, 1/16; OR-ing gives 3/4.
    uint64_t x = rng.Next();
    for (int k = 0; k < i % 4; ++k) x &= rng.Next();
    if (i % 5 == 0) x |= rng.Next();
    words.push_back(x);
  }
  for (uint64_t x : words) {
    for (uint64_t r = 0; r < static_cast<uint64_t>(std::popcount(x)); ++r) {
      ASSERT_EQ(SelectInWord(x, r), SelectByScan(x, r)) << std::hex << x << std::dec << " rank " << r;
    }
  }
}

}  // namespace
}  // namespace filterlab
