// What a variant's FP model (FilterPolicy::ModelFpRate) promises about the
// rate a built filter shows: exact, an approximation within a stated largest
// relative error, a fitted estimate, or a bound. Each variant states it on
// its registration (registry.h, FilterVariant), and filters/fp_tolerance.h
// turns it into the range a measurement may fall in.
#pragma once

namespace filterlab {

enum class FpModelKind {
  kExact,          // derived for the layout; the measured rate scatters around it
  kApproximation,  // derived for an idealised layout; off by at most a stated relative error
  kEmpirical,      // a fitted average (RocksDB's legacy estimate)
  kLowerBound,     // the ideal for the layout; the probe sequence does worse
  kUpperBound,     // an inclusion-exclusion cut short; the rate can only be lower
};

// "exact", "approximation", "empirical", "lower_bound", "upper_bound" (records, listings).
constexpr const char* FpModelKindName(FpModelKind kind) {
  switch (kind) {
    case FpModelKind::kExact: return "exact";
    case FpModelKind::kApproximation: return "approximation";
    case FpModelKind::kEmpirical: return "empirical";
    case FpModelKind::kLowerBound: return "lower_bound";
    case FpModelKind::kUpperBound: return "upper_bound";
  }
  return "exact";
}

// A variant's model kind with, for an approximation, the largest relative
// error |measured / model - 1| its registration states (measured by the
// experiment model_accuracy at 6, 10, 16 and 24 bits/key, 10^9 queries per
// point, and rounded up); 0 for the other kinds.
struct FpModelClaim {
  FpModelKind kind = FpModelKind::kExact;
  double max_relative_error = 0;
};

}  // namespace filterlab
