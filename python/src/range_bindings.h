// The range filters' half of filterlab._native (range_bindings.cc): the
// NativeRangeFilter class over RangeFilterHandle, its build and open calls,
// and the range registry as dicts, behind filterlab.RangeFilter and
// filterlab.range_filters().
#pragma once

#include <nanobind/nanobind.h>

namespace filterlab::python {

void BindRangeFilters(nanobind::module_& m);

}  // namespace filterlab::python
