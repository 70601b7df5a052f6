// A filter family's menu for the per-level memory allocation
// (level_allocation.h): every filter the family can give a level, with the
// memory it spends per key and its model FP rate.
//
// A family is a registry spec without its size: "fastlocal", "ribbon",
// "worm:variant=cache_mul64_block,hash=32", "xor:fingerprint=8". Its bpk (and
// its probes, and Ribbon's fp) are what the allocation varies; a spec that
// carries them is reduced to the family first, so the probe count follows
// bpk as the variant itself chooses it (a probe count fixed for 10 bits/key
// is wrong at 2 or 20). A variant without a bpk parameter (XOR, binary fuse)
// is a fixed-size family: its one spec is its only filter, and a level gets
// either that filter or none.
//
// Memory is measured, not taken from the bpk parameter: each menu point's
// filter is built once over kSizingKeys synthetic keys and its DataBytes
// divided by them. For the Bloom layouts that is bpk rounded up to whole cache
// lines or words (< 0.1% here); for Ribbon, whose bpk is the Bloom-equivalent,
// it is the ~70% of bpk the solver's slots really take; for XOR and binary
// fuse it is their fingerprint bits times the layout's overhead. So a budget
// in bits/key is the bytes of the filters over the keys they cover, for every
// family alike. The FP rate is the registry's ModelFpRate at the level's key
// count (FilterPolicy::ModelFpRate, stated beside each variant).
//
// Menus are built once per family and process (~75 builds of 2^15 keys, a few
// ms for a Bloom family, ~0.2 s for Ribbon) and shared: FamilyCurve::Make
// caches them, thread-safely.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"
#include "filters/filter.h"

namespace filterlab::allocation {

class FamilyCurve {
 public:
  // Keys each menu point's filter is built over to measure its memory.
  static constexpr size_t kSizingKeys = size_t{1} << 15;

  struct Point {
    std::shared_ptr<const FilterPolicy> policy;
    double bpk_param = 0;     // the spec's bpk (0 for a fixed-size family)
    double bits_per_key = 0;  // memory: DataBytes * 8 / keys, measured
  };

  // The (cached) menu of `family`, a registry spec with or without its size
  // parameters. InvalidArgument naming the spec when the registry rejects it.
  static Status Make(std::string_view family, std::shared_ptr<const FamilyCurve>* out);

  // The family as a spec without size parameters, e.g. "fastlocal" or
  // "worm:variant=cache_mul64_block,hash=32" (the spec itself when fixed-size).
  const std::string& family() const { return family_; }
  // False for a fixed-size family (one point).
  bool sized_by_bpk() const { return sized_by_bpk_; }
  // The family's filters by increasing memory (one for a fixed-size family).
  const std::vector<Point>& points() const { return points_; }
  double min_bits_per_key() const { return points_.front().bits_per_key; }
  double max_bits_per_key() const { return points_.back().bits_per_key; }

  // The family's spec that spends `bits_per_key` of memory: bpk interpolated
  // linearly in memory between the two menu points around it (clamped to the
  // menu), rounded to millibits. A fixed-size family returns its one spec.
  std::string SpecForBits(double bits_per_key) const;
  // Memory per key of the spec SpecForBits would give (the same
  // interpolation), without building anything.
  double BitsForBits(double bits_per_key) const;

 private:
  FamilyCurve() = default;
  std::string family_;
  bool sized_by_bpk_ = false;
  std::vector<Point> points_;
};

}  // namespace filterlab::allocation
