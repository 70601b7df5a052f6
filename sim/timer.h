// Wall-clock timing for the simulator's measurements (steady clock, seconds).
#pragma once

#include <chrono>

namespace filterlab::sim {

using Clock = std::chrono::steady_clock;
inline double SecondsSince(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

}  // namespace filterlab::sim
