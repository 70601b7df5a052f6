// A small, deterministic, seeded PRNG: the Park–Miller "minimal standard"
// Lehmer generator x' = 16807·x mod (2^31 − 1). Its outputs lie in
// [1, 2^31 − 2]. Used where the spec ties behaviour to this generator (skip
// list node heights, RocksDB's InlineSkipList: grow while Next() < (2^31 − 1)/4) and for
// reproducible test data; not for anything statistical beyond that.
#pragma once

#include <cstdint>

namespace filterlab::engine {

class Random {
 public:
  static constexpr uint32_t kModulus = 2147483647u;  // 2^31 − 1, prime
  static constexpr uint32_t kMaxNext = kModulus - 1;

  explicit Random(uint32_t seed) : state_(seed & kModulus) {
    // 0 and the modulus are fixed points of the recurrence.
    if (state_ == 0 || state_ == kModulus) state_ = 1;
  }

  uint32_t Next() {
    state_ = static_cast<uint32_t>((uint64_t{state_} * 16807u) % kModulus);
    return state_;
  }
  // Roughly uniform in [0, n); precondition n > 0.
  uint32_t Uniform(uint32_t n) { return Next() % n; }
  // True with probability about 1/n; precondition n > 0.
  bool OneIn(uint32_t n) { return Uniform(n) == 0; }

 private:
  uint32_t state_;
};

}  // namespace filterlab::engine
