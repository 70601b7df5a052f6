// MT19937 (32-bit Mersenne Twister) producing exactly std::mt19937's output,
// 624 outputs at a time: filter_bench's generator (RocksDB's util/filter_bench.cc), so
// the speed harness asks the same queries, at a fraction of the cost.
//
// Why not std::mt19937. Its operator() tempers one output per call and, every
// 624 calls, regenerates the state in a scalar loop of ~15 instructions per
// word (libstdc++ keeps the state as 64-bit uint_fast32_t). In the speed
// loops that was ~70 of ~280 instructions per query, in the timed and the dry
// run alike; those instructions also fill the out-of-order window, so fewer
// queries' cache misses overlap in the one-query-at-a-time random mode. Here
// the regeneration and the tempering are straight loops over uint32_t arrays
// that the compiler vectorises, and a call is a load and an increment.
//
// The recurrence (Matsumoto & Nishimura 1998), for i = 0..623 in order:
//   y = (mt[i] & 0x80000000) | (mt[i+1] & 0x7fffffff)
//   mt[i] = mt[i+397] ^ (y >> 1) ^ (y odd ? 0x9908b0df : 0)
// (indices mod 624). Word i reads mt[i+1] before it is rewritten and, for
// i >= 227, mt[i-227], already rewritten in this pass; 227 is more than any
// vector's width, so the loops below split at 227 and at 623 (which reads the
// new mt[0]) and each vectorises. Tempering is applied to a copy, out_.
#pragma once

#include <cstddef>
#include <cstdint>

namespace filterlab::sim {

class Mt19937 {
 public:
  static constexpr size_t kN = 624, kM = 397;

  // The same seeding as std::mt19937(seed).
  explicit Mt19937(uint32_t seed) {
    state_[0] = seed;
    for (uint32_t i = 1; i < kN; ++i) state_[i] = 1812433253u * (state_[i - 1] ^ (state_[i - 1] >> 30)) + i;
    next_ = kN;
  }

  uint32_t Next() {
    if (__builtin_expect(next_ == kN, 0)) Refill();
    return out_[next_++];
  }

 private:
  static uint32_t Twisted(uint32_t cur, uint32_t next, uint32_t far) {
    const uint32_t y = (cur & 0x80000000u) | (next & 0x7fffffffu);
    return far ^ (y >> 1) ^ ((y & 1u) * 0x9908b0dfu);
  }

  __attribute__((noinline)) void Refill() {
    for (size_t i = 0; i < kN - kM; ++i) state_[i] = Twisted(state_[i], state_[i + 1], state_[i + kM]);
    for (size_t i = kN - kM; i < kN - 1; ++i) state_[i] = Twisted(state_[i], state_[i + 1], state_[i + kM - kN]);
    state_[kN - 1] = Twisted(state_[kN - 1], state_[0], state_[kM - 1]);
    for (size_t i = 0; i < kN; ++i) {
      uint32_t z = state_[i];
      z ^= z >> 11;
      z ^= (z << 7) & 0x9d2c5680u;
      z ^= (z << 15) & 0xefc60000u;
      out_[i] = z ^ (z >> 18);
    }
    next_ = 0;
  }

  alignas(64) uint32_t state_[kN];
  alignas(64) uint32_t out_[kN];
  size_t next_;
};

// filter_bench's generator: mt19937 (the same outputs as std::mt19937, made
// 624 at a time; see mt19937.h) and a multiply-shift range reduction.
class Random32 {
 public:
  explicit Random32(uint32_t seed) : gen_(seed) {}
  uint32_t Next() { return gen_.Next(); }
  uint32_t Uniformish(uint32_t n) { return static_cast<uint32_t>((uint64_t{Next()} * n) >> 32); }

 private:
  Mt19937 gen_;
};

}  // namespace filterlab::sim
