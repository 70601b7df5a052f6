// Pins the FP-model kind every registered example reports (from its
// variant's registration), so a change of allowance is a deliberate edit
// here. (A variant added later states its kind on its own registration; it
// need not be listed here.)
#include "filters/fp_model_kind.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "filters/filter_test_util.h"
#include "filters/registry.h"

namespace filterlab {
namespace {

using testing_util::MustPolicy;

const std::map<std::string, FpModelKind>& ExampleKinds() {
  using K = FpModelKind;
  static const auto* kinds = new std::map<std::string, FpModelKind>{
      {"dynamic:bpk=10", K::kApproximation},
      {"dynamic:bpk=10,hash=64", K::kExact},
      {"fastlocal:bpk=10", K::kExact},
      {"fastlocal:bpk=10,hash=32", K::kApproximation},
      {"legacy:bpk=10", K::kApproximation},
      {"legacy_block:bpk=10", K::kLowerBound},
      {"standard:bpk=10", K::kExact},
      {"standard:bpk=10,hash=32", K::kExact},
      {"worm:variant=worm64,bpk=10", K::kExact},
      {"worm:variant=worm32,bpk=10", K::kExact},
      {"worm:variant=rocksdb_dynamic,bpk=10", K::kLowerBound},
      {"worm:variant=cache_worm64,bpk=10", K::kExact},
      {"worm:variant=cache_worm64_from32,bpk=10", K::kExact},
      {"worm:variant=cache_worm64_alt,bpk=10", K::kExact},
      {"worm:variant=cache_dbl,bpk=10", K::kExact},
      {"worm:variant=cache_rocksdb_dynamic,bpk=10", K::kApproximation},
      {"worm:variant=cache_rocksdb_full,bpk=10", K::kApproximation},
      {"worm:variant=cache_mul64_block,bpk=10", K::kExact},
      {"worm:variant=cache_mul64_block_from32,bpk=10", K::kApproximation},
      {"worm:variant=cache_worm64_block,bpk=10", K::kExact},
      {"worm:variant=cache_worm64_block_from32,bpk=10", K::kApproximation},
      {"worm:variant=cache_block64,bpk=10", K::kExact},
      {"worm:variant=cache_simd_fastrange32,bpk=10", K::kApproximation},
      {"worm:variant=cache_simd_k8,bpk=10", K::kApproximation},
  };
  return *kinds;
}

TEST(FpModelKind, EveryPinnedExampleKeepsItsKind) {
  const std::vector<std::string> registered = AllExampleSpecs();
  for (const auto& [spec, kind] : ExampleKinds()) {
    EXPECT_NE(std::find(registered.begin(), registered.end(), spec), registered.end())
        << spec << " is pinned here but no longer a registered example";
    auto policy = MustPolicy(spec);
    ASSERT_NE(policy, nullptr);
    EXPECT_EQ(FpModelKindName(FpModelKindOf(*policy)), std::string(FpModelKindName(kind))) << spec;
  }
}

// The kinds that depend on parameters (cache_dbl, legacy, cache_rocksdb_full,
// dynamic_old) and the alias spellings,
// which reach the worm registration through their policies.
TEST(FpModelKind, ParameterDependentKinds) {
  const std::pair<const char*, FpModelKind> cases[] = {
      {"cache_dbl:bpk=10", FpModelKind::kExact},
      {"cache_dbl:bpk=10,probes=20", FpModelKind::kExact},
      {"cache_dbl:bpk=10,probes=21", FpModelKind::kUpperBound},
      {"cache_dbl:bpk=10,hash=32", FpModelKind::kLowerBound},
      {"cache_dbl:bpk=10,probes=21,hash=32", FpModelKind::kUpperBound},
      {"worm:variant=cache_dbl,bpk=24,probes=11,hash=32", FpModelKind::kLowerBound},
      {"rocksdb_dynamic:bpk=10", FpModelKind::kLowerBound},
      {"cache_rocksdb_full:bpk=16", FpModelKind::kApproximation},
      {"cache_rocksdb_full:bpk=40,probes=21", FpModelKind::kUpperBound},
      {"legacy:bpk=20,probes=3", FpModelKind::kApproximation},
      {"legacy:bpk=29", FpModelKind::kApproximation},  // 20 probes
      {"legacy:bpk=31", FpModelKind::kUpperBound},     // 21 probes: the query's first 20 bits
      {"dynamic_old:bpk=10", FpModelKind::kLowerBound},
      {"dynamic_old:bpk=10,locality=1", FpModelKind::kApproximation},
      {"legacy_block:bpk=5", FpModelKind::kLowerBound},
      {"cache_worm64:bpk=10,probes=25,hash=32", FpModelKind::kExact},
  };
  for (const auto& [spec, kind] : cases) {
    auto policy = MustPolicy(spec);
    ASSERT_NE(policy, nullptr);
    EXPECT_EQ(FpModelKindName(FpModelKindOf(*policy)), std::string(FpModelKindName(kind))) << spec;
  }
}

// An approximation states the largest relative error measured for it (a
// positive fraction, and below 1: beyond that a model says nothing); every
// other kind states none. Checked for every example spec at 6, 10, 16 and 24
// bits/key, the shapes experiment model_accuracy measures.
TEST(FpModelKind, ApproximationsStateTheirErrorAndOnlyThey) {
  for (const std::string& example : AllExampleSpecs()) {
    for (const char* bpk : {"6", "10", "16", "24"}) {
      std::string spec = example;
      const size_t at = spec.find("bpk=10");
      if (at == std::string::npos && std::string(bpk) != "10") continue;  // sized by its layout
      if (at != std::string::npos) spec.replace(at, 6, std::string("bpk=") + bpk);
      auto policy = MustPolicy(spec);
      ASSERT_NE(policy, nullptr);
      const FpModelClaim claim = FpModelClaimOf(*policy);
      EXPECT_EQ(claim.kind, FpModelKindOf(*policy)) << spec;
      if (claim.kind == FpModelKind::kApproximation) {
        EXPECT_GT(claim.max_relative_error, 0) << spec;
        EXPECT_LT(claim.max_relative_error, 1) << spec;
      } else {
        EXPECT_EQ(claim.max_relative_error, 0) << spec;
      }
    }
  }
}

// has_probes on the registration and num_probes() on its policies agree.
TEST(FpModelKind, HasProbesMatchesThePolicies) {
  for (const FilterVariant* v : RegisteredFilterVariants()) {
    for (const std::string& spec : v->examples_at_10_bpk) {
      auto policy = MustPolicy(spec);
      ASSERT_NE(policy, nullptr);
      EXPECT_EQ(policy->num_probes().has_value(), v->has_probes) << spec;
      if (policy->num_probes()) {
        EXPECT_GE(*policy->num_probes(), 1) << spec;
      }
    }
  }
}

}  // namespace
}  // namespace filterlab
