// Test sizes under sanitizers. Sanitized builds (FILTERLAB_SANITIZED, set by
// CMake for FILTERLAB_SANITIZE=address|thread) run 5-20x slower and check
// memory and thread safety, which small inputs exercise as well as large ones;
// statistical checks keep their full size in the Release run.
#pragma once

#include <cstddef>

namespace filterlab {

#ifdef FILTERLAB_SANITIZED
inline constexpr bool kSanitizedBuild = true;
#else
inline constexpr bool kSanitizedBuild = false;
#endif

// `n` in Release, n / divisor (at least 1) under sanitizers.
constexpr size_t SanitizerScaled(size_t n, size_t divisor = 10) {
  if (!kSanitizedBuild) return n;
  return n / divisor > 0 ? n / divisor : 1;
}

}  // namespace filterlab
