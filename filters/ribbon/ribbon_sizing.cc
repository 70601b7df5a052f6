// Standard128Ribbon sizing (ribbon_sizing.h).
#include "filters/ribbon/ribbon_sizing.h"

#include <array>
#include <cmath>

#include "filters/ribbon/ribbon_hasher.h"

namespace filterlab::ribbon {
namespace {

// Keys addable to 2^i slots with ~1/20 chance of a seed failing (RocksDB's
// measurements for 128-bit rows without "smash"); 0 = too few slots.
constexpr std::array<double, 18> kKeysAddableByPow2{
    0, 0, 0, 0, 0, 0, 0, 0, 248.851, 499.532, 1001.26, 2003.97, 4005.59, 8000.39, 15966.6, 31828.1, 63447.3, 126506};
constexpr double kOverheadGrowthPerPow2 = 0.0038;

double KeysAddableForPow2(uint32_t log2_slots) {
  if (log2_slots < kKeysAddableByPow2.size()) return kKeysAddableByPow2[log2_slots];
  const uint32_t last = kKeysAddableByPow2.size() - 1;
  const double last_overhead = static_cast<double>(uint32_t{1} << last) / kKeysAddableByPow2[last];
  const double base = last_overhead - last * kOverheadGrowthPerPow2;
  return static_cast<double>(uint64_t{1} << log2_slots) / (base + log2_slots * kOverheadGrowthPerPow2);
}

uint32_t RoundUpToBlocks(uint32_t num_slots) {
  const uint32_t rounded = (num_slots + kCoeffBits - 1) / kCoeffBits * kCoeffBits;
  // One block would leave a single start slot, which the hashing cannot use.
  return rounded == kCoeffBits ? 2 * kCoeffBits : rounded;
}

int FloorLog2(uint32_t v) { return 31 - __builtin_clz(v); }

}  // namespace

uint32_t NumSlotsForKeys(uint32_t num_keys) {
  if (num_keys == 0) return 0;
  // RocksDB's constant for 1/ln 2, kept so the interpolation rounds alike.
  const double log2_keys = std::log(num_keys) * 1.4426950409;
  uint32_t log2_slots = static_cast<uint32_t>(log2_keys + 0.5);
  double lower = KeysAddableForPow2(log2_slots);
  double upper;
  if (log2_slots == 0 || lower == 0) return 2 * kCoeffBits;
  if (num_keys < lower) {
    upper = lower;
    --log2_slots;
    lower = KeysAddableForPow2(log2_slots);
  } else {
    upper = KeysAddableForPow2(log2_slots + 1);
  }
  const double upper_portion = (num_keys - lower) / (upper - lower);
  const double lower_slots = static_cast<double>(uint64_t{1} << log2_slots);
  return RoundUpToBlocks(static_cast<uint32_t>(upper_portion * lower_slots + lower_slots + 0.999999999));
}

size_t SolutionBytesForOneInFpRate(uint32_t num_slots, double one_in_fp_rate, uint32_t rounding_bias32) {
  const double fp_rate = 1.0 / one_in_fp_rate;
  if (!(one_in_fp_rate > 1.0 && fp_rate < 1.0)) return sizeof(CoeffRow);  // FP 1: one segment, as RocksDB
  if (one_in_fp_rate > static_cast<double>(UINT32_MAX)) return size_t{num_slots} * sizeof(ResultRow);
  const int lower_columns = FloorLog2(static_cast<uint32_t>(one_in_fp_rate));
  const double lower_fp = std::pow(2.0, -lower_columns);
  const double upper_fp = std::pow(2.0, -(lower_columns + 1));
  const double lower_portion = (fp_rate - upper_fp) / (lower_fp - upper_fp);
  const double rounding_bias = (rounding_bias32 + 0.5) / 4294967296.0;
  const uint32_t num_starts = num_slots - kCoeffBits + 1;
  const uint32_t upper_start_block = static_cast<uint32_t>((lower_portion * num_starts + rounding_bias) / kCoeffBits);
  const uint32_t num_blocks = num_slots / kCoeffBits;
  const size_t num_segments = size_t{num_blocks} * lower_columns + (num_blocks - upper_start_block);
  return num_segments * sizeof(CoeffRow);
}

}  // namespace filterlab::ribbon
