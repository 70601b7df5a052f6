// Mt19937 (sim/mt19937.h) against std::mt19937: the speed harness's queries
// must be exactly filter_bench's, so every output must match, across several
// state regenerations, for a few seeds including filter_bench's default 0 and
// the harness's derived seeds.
#include "sim/mt19937.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <random>

namespace filterlab::sim {
namespace {

TEST(Mt19937Test, SameOutputsAsStdMt19937) {
  for (uint32_t seed : {0u, 1u, 2u, 101u, 5489u, 0xffffffffu}) {
    std::mt19937 reference(seed);
    Mt19937 ours(seed);
    // 10 regenerations of the 624-word state and a partial one.
    for (int i = 0; i < 10 * 624 + 100; ++i) {
      const uint32_t want = static_cast<uint32_t>(reference());
      const uint32_t got = ours.Next();
      ASSERT_EQ(got, want) << "seed " << seed << ", output " << i;
    }
  }
}

}  // namespace
}  // namespace filterlab::sim
