// The array types the bindings take and give (nanobind): read-only
// C-contiguous 1-D CPU arrays in, numpy arrays that own their buffer out, and
// a failed Status raised as Python's ValueError with its message.
#pragma once

#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>

#include <cstddef>

#include "common/status.h"

namespace filterlab::python {

template <class T>
using Array1D = nanobind::ndarray<const T, nanobind::ndim<1>, nanobind::c_contig, nanobind::device::cpu>;
template <class T>
using NumpyArray = nanobind::ndarray<nanobind::numpy, T, nanobind::ndim<1>>;

// A numpy array of n elements that owns its (uninitialized) buffer; *data
// points at it, for filling with the GIL released.
template <class T>
NumpyArray<T> NewNumpyArray(size_t n, T** data) {
  T* buffer = new T[n > 0 ? n : 1];
  nanobind::capsule owner(buffer, [](void* p) noexcept { delete[] static_cast<T*>(p); });
  *data = buffer;
  return NumpyArray<T>(buffer, {n}, owner);
}

[[noreturn]] inline void Raise(const Status& s) { throw nanobind::value_error(s.message().c_str()); }

}  // namespace filterlab::python
