// FastLocalBloom bit arrays as the range filters use them (prefix Bloom's one
// array, Rosetta's one per level): sized from a bit budget rather than from
// bits per key, probed with the line and probe kernel of fast_local_bloom.h,
// and modelled with its line mixture (fpmodel::CacheLocalIdealFpRate). 64-bit
// hashes only: h1 (low 32 bits) picks the line, h2 (high 32) the probes.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>

#include "filters/fast_local_bloom.h"
#include "filters/fp_model.h"

namespace filterlab::local_bloom {

// Whole 64-byte lines holding `bits` (0 for no bits).
inline uint64_t BytesForBits(double bits) {
  if (!(bits > 0)) return 0;
  const auto bytes = static_cast<uint64_t>(std::ceil(bits / 8));
  return (bytes + fastlocal::kLineBytes - 1) / fastlocal::kLineBytes * fastlocal::kLineBytes;
}

// RocksDB's probe count for that many bits per entry (capped at 100 bits).
inline int ProbesFor(uint64_t bytes, uint64_t entries) {
  if (entries == 0 || bytes == 0) return 1;
  const double per_entry = std::min(100.0, 8.0 * static_cast<double>(bytes) / static_cast<double>(entries));
  return fastlocal::ChooseNumProbes(static_cast<int>(per_entry * 1000.0 + 0.5));
}

// Probability that an absent entry matches (the line mixture for ideal
// probes: fast_local_bloom.h). 1 without bits (no filter), 0 without entries.
inline double FpRate(uint64_t bytes, uint64_t entries, int probes) {
  if (entries == 0) return 0.0;
  if (bytes == 0) return 1.0;
  return fpmodel::CacheLocalIdealFpRate(8.0 * static_cast<double>(bytes) / static_cast<double>(entries), probes,
                                        8 * fastlocal::kLineBytes);
}

// Adds n hashes into `data` (bytes > 0, whole lines, zeroed).
inline void AddAll(const uint64_t* hashes, size_t n, uint64_t bytes, int probes, uint8_t* data) {
  fastlocal::AddAll(hashes, n, HashWidth::k64, static_cast<uint32_t>(bytes), probes, data);
}

// Whether `hash` may have been added (data may be unaligned).
inline bool MayContain(const uint8_t* data, uint64_t bytes, int probes, uint64_t hash) {
  const fastlocal::SplitHash h = fastlocal::Split(hash, HashWidth::k64);
  return fastlocal::MayMatchLine(h.probe_hash, probes,
                                 data + fastlocal::LineOffset(h.line_hash, static_cast<uint32_t>(bytes)));
}

}  // namespace filterlab::local_bloom
