// Where the simulator's keys and hashes come from.
//
// Synthetic hashes: independent splitmix64 streams, one per (seed, purpose,
// filter, chunk), so any piece of a run can be regenerated alone and counts
// do not depend on how work is split across threads.
//
// Generated keys, as RocksDB's filter_bench makes them
// (KeyMaker in RocksDB's util/filter_bench.cc): key (filter_id, val) has
// bytes 0-3 = LE32(val), 4-7 = LE32(filter_id + val), the rest zero, and a
// length of key_size + (0..4), constant over runs of 32 consecutive vals
// (24..28 bytes by default). Keys added to a filter use val < 2^31; outside
// (never added) keys set bit 31, as filter_bench does. To go past 2^31
// outside queries per filter, bytes 8-15 carry LE64(j >> 31) of query j,
// which is zero (so the key is exactly filter_bench's) for j < 2^31.
#pragma once

#include <cstdint>
#include <cstring>

#if defined(__AVX__)
#include <immintrin.h>
#endif

#include "common/slice.h"
#include "hashing/fastrange.h"
#include "hashing/remix.h"

namespace filterlab::sim {

// Purposes of derived streams (part of the derivation, so streams differ).
enum class Stream : uint64_t { kAdded = 1, kQueries = 2, kFilterId = 3, kProbes = 4, kKeyCount = 5 };

// Seed of stream (purpose, a, b) under the run seed. Nested Mix64 so that
// neighbouring indices give unrelated streams.
inline uint64_t DeriveSeed(uint64_t seed, Stream purpose, uint64_t a, uint64_t b = 0) {
  uint64_t h = Mix64(seed ^ (static_cast<uint64_t>(purpose) * 0xd6e8feb86659fd93ULL));
  h = Mix64(h ^ (a * kGoldenRatio64));
  return Mix64(h ^ (b * 0xc2b2ae3d27d4eb4fULL + 0x165667b19e3779f9ULL));
}

// out[i] = output first + i of SplitMix64(seed), for i < n: the same stream
// as calling Next() (first + n) times, written as a function of the output's
// index so that the loop has no carried dependency and vectorises (8 lanes
// with AVX-512's 64-bit multiply). The simulator's synthetic hashes.
inline void FillSplitMix64(uint64_t seed, uint64_t first, uint64_t n, uint64_t* out) {
  constexpr uint64_t kIncrement = 0x9e3779b97f4a7c15ULL;  // SplitMix64's state step
  const uint64_t base = seed + (first + 1) * kIncrement;
  for (uint64_t i = 0; i < n; ++i) out[i] = Mix64(base + i * kIncrement);
}

inline constexpr uint32_t kOutsideBit = 0x80000000u;
inline constexpr int kMaxKeyBytes = 64;

class KeyMaker {
 public:
  // key_size >= 16 (room for the val/filter_id fields and the high query bits).
  explicit KeyMaker(int key_size, bool vary_alignment = false) : key_size_(key_size), vary_alignment_(vary_alignment) {
    std::memset(buf_, 0, sizeof buf_);
  }

  // Key number `val` (< 2^31) added to filter `filter_id`.
  Slice Added(uint32_t filter_id, uint32_t val) { return Make(filter_id, val, 0); }

  // Added(filter_id, val) when `added`, else Outside(filter_id, val), for val
  // < 2^31, chosen without a branch (the two differ only in bit 31 of val):
  // the speed loops ask 50/50 at random, and a mispredicted branch per query
  // would be timed in both their runs.
  Slice AddedOrOutside(uint32_t filter_id, uint32_t val, bool added) {
    return Make(filter_id, val | (static_cast<uint32_t>(!added) << 31), 0);
  }

  // The j-th outside (never added) key of filter `filter_id`.
  Slice Outside(uint32_t filter_id, uint64_t j) {
    return Make(filter_id, static_cast<uint32_t>(j & 0x7fffffffu) | kOutsideBit, j >> 31);
  }

 private:
  Slice Make(uint32_t filter_id, uint32_t val, uint64_t high) {
    // buf_[0..31] holds the key (at offset 0..3) and zeros; bytes 32.. stay
    // zero from construction (a key's nonzero bytes end at offset 3 + 16).
    // All 32 bytes are written with ONE store: a hash reading 8 bytes at
    // len-8 or len-16 then gets them forwarded from that store. Built from
    // several narrower stores, such a load spans two of them, cannot be
    // forwarded, and waits until those stores retire, which serializes the
    // timing loops (every query waits for the previous one's filter call).
    const unsigned shift = vary_alignment_ ? (val & 3) * 8 : 0;  // in bits
    const uint64_t first8 = uint64_t{val} | uint64_t{filter_id + val} << 32;
    // (first8, high, 0, 0) moved up by `shift` bits as one 256-bit number
    // (little-endian: byte b of the buffer is byte b % 8 of word b / 8).
    // x >> (64 - shift) is written (x >> 1) >> (63 - shift): also right for shift 0.
    const uint64_t w0 = first8 << shift;
    const uint64_t w1 = (high << shift) | ((first8 >> 1) >> (63 - shift));
    const uint64_t w2 = (high >> 1) >> (63 - shift);
#if defined(__AVX__)
    _mm256_store_si256(
        reinterpret_cast<__m256i*>(buf_),
        _mm256_setr_epi64x(static_cast<long long>(w0), static_cast<long long>(w1), static_cast<long long>(w2), 0));
#else
    const uint64_t words[4] = {w0, w1, w2, 0};
    std::memcpy(buf_, words, sizeof words);
#endif
    const uint32_t len = static_cast<uint32_t>(key_size_) + FastRange32((val >> 5) * 1234567891u, 5);
    return Slice(buf_ + shift / 8, len);
  }

  int key_size_;
  bool vary_alignment_;
  alignas(64) char buf_[kMaxKeyBytes + 8];
};

}  // namespace filterlab::sim
