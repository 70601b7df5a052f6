// Timing for the workers' measurements (simulator and lsmbench): wall clock (steady clock, seconds)
// and the process's CPU time, which on a shared machine shows how much of the
// wall time the process actually ran (queries per CPU-second is the figure
// that survives other load; the wall figure is the one to quote on an idle
// machine).
#pragma once

#include <time.h>

#include <chrono>

namespace filterlab {

using Clock = std::chrono::steady_clock;
inline double SecondsSince(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

// CPU seconds used so far by all threads of this process.
inline double ProcessCpuSeconds() {
  timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

// CPU seconds used so far by the calling thread.
inline double ThreadCpuSeconds() {
  timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

}  // namespace filterlab
