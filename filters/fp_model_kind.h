// What a variant's FP model (FilterPolicy::ModelFpRate) promises about the
// rate a built filter shows: exact, a fitted estimate, or a bound. Each
// variant states it on its registration (registry.h, FilterVariant), and
// filters/fp_tolerance.h turns it into the range a measurement may fall in.
#pragma once

namespace filterlab {

enum class FpModelKind {
  kExact,       // derived for the layout; the measured rate scatters around it
  kEmpirical,   // a fitted average (RocksDB's legacy estimate)
  kLowerBound,  // the ideal for the layout; the probe sequence does worse
  kUpperBound,  // an inclusion-exclusion cut short; the rate can only be lower
};

// "exact", "empirical", "lower_bound", "upper_bound" (records, listings).
constexpr const char* FpModelKindName(FpModelKind kind) {
  switch (kind) {
    case FpModelKind::kExact: return "exact";
    case FpModelKind::kEmpirical: return "empirical";
    case FpModelKind::kLowerBound: return "lower_bound";
    case FpModelKind::kUpperBound: return "upper_bound";
  }
  return "exact";
}

}  // namespace filterlab
