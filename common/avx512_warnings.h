// GCC 12's AVX-512 intrinsics start from _mm512_undefined_epi32() (and
// _pd), which -Wmaybe-uninitialized (and, once inlined into a caller where
// the path is certain, -Wuninitialized) reports at every use: a known false
// positive on the self-initialised values in GCC's own intrinsics header
// (GCC bug 105593). Code that uses the intrinsics, or includes a header that
// does (Eigen's vectorised exp/log at -march with AVX-512), sits between
// FILTERLAB_AVX512_WARNINGS_OFF and FILTERLAB_AVX512_WARNINGS_ON, which
// silence those two warnings there and nowhere else (no-ops but on GCC).
#pragma once

#if defined(__GNUC__) && !defined(__clang__)
// One pragma a line; the formatter would pack them.
// clang-format off
#define FILTERLAB_AVX512_WARNINGS_OFF                              \
  _Pragma("GCC diagnostic push")                                   \
  _Pragma("GCC diagnostic ignored \"-Wmaybe-uninitialized\"")      \
  _Pragma("GCC diagnostic ignored \"-Wuninitialized\"")
#define FILTERLAB_AVX512_WARNINGS_ON _Pragma("GCC diagnostic pop")
// clang-format on
#else
#define FILTERLAB_AVX512_WARNINGS_OFF
#define FILTERLAB_AVX512_WARNINGS_ON
#endif
