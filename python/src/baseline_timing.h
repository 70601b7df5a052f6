// The C++ side of python/bench_module.py: the same build and batched query
// timed in plain C++ loops over the same arrays, in the same process, so the
// benchmark sets what Python costs beside what C++ costs in one run. Bound as
// filterlab._native._cpp_* (private: not part of the package's API).
#pragma once

#include <nanobind/nanobind.h>

namespace filterlab::python {

void BindBaselineTiming(nanobind::module_& m);

}  // namespace filterlab::python
