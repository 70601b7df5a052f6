#include "python/src/range_bindings.h"

#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/unique_ptr.h>
#include <nanobind/stl/vector.h>

#include <cmath>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "filters/fp_model_kind.h"
#include "filters/registry.h"
#include "python/src/numpy_arrays.h"
#include "python/src/range_filter_handle.h"

namespace nb = nanobind;
using namespace nb::literals;

namespace filterlab::python {
namespace {

using Handle = RangeFilterHandle;

std::unique_ptr<RangeFilterPolicy> RangePolicyOrRaise(const std::string& spec) {
  std::unique_ptr<RangeFilterPolicy> policy;
  Status s = Handle::NewPolicy(spec, &policy);
  if (!s.ok()) Raise(s);
  return policy;
}

void CheckOffsetsGiven(const Array1D<int64_t>& offsets, const char* what) {
  if (offsets.shape(0) == 0) {
    throw nb::value_error((std::string(what) + ": offsets must hold one more entry than there are keys").c_str());
  }
}

void CheckSameLength(size_t lo, size_t hi) {
  if (lo != hi) {
    throw nb::value_error(("lo, hi: " + std::to_string(lo) + " lower ends but " + std::to_string(hi) +
                           " upper ends; give one of each per range")
                              .c_str());
  }
}

std::unique_ptr<Handle> BuildUint64(const std::string& spec, Array1D<uint64_t> keys) {
  std::unique_ptr<RangeFilterPolicy> policy = RangePolicyOrRaise(spec);
  std::unique_ptr<Handle> out;
  Status s;
  {
    nb::gil_scoped_release release;
    s = Handle::BuildFromUint64(std::move(policy), keys.data(), keys.shape(0), &out);
  }
  if (!s.ok()) Raise(s);
  return out;
}

std::unique_ptr<Handle> BuildBinary(const std::string& spec, Array1D<int64_t> offsets, Array1D<uint8_t> data,
                                    bool map_to_uint64) {
  CheckOffsetsGiven(offsets, "keys");
  std::unique_ptr<RangeFilterPolicy> policy = RangePolicyOrRaise(spec);
  std::unique_ptr<Handle> out;
  Status s;
  {
    nb::gil_scoped_release release;
    s = Handle::BuildFromBinary(std::move(policy), offsets.data(), data.data(), data.shape(0), offsets.shape(0) - 1,
                                map_to_uint64, &out);
  }
  if (!s.ok()) Raise(s);
  return out;
}

std::unique_ptr<Handle> Open(nb::bytes data, std::optional<std::string> spec, const std::string& key_type) {
  if (key_type != "uint64" && key_type != "bytes") {
    throw nb::value_error(("key_type: got '" + key_type + "'; allowed: uint64, bytes").c_str());
  }
  std::unique_ptr<RangeFilterPolicy> policy;
  if (spec.has_value()) policy = RangePolicyOrRaise(*spec);
  std::string bytes(data.c_str(), data.size());
  std::unique_ptr<Handle> out;
  Status s;
  {
    nb::gil_scoped_release release;
    s = Handle::Open(std::move(bytes), std::move(policy),
                     key_type == "uint64" ? Handle::KeyType::kUint64 : Handle::KeyType::kBytes, &out);
  }
  if (!s.ok()) Raise(s);
  return out;
}

NumpyArray<bool> MayContainRange(const Handle& h, Array1D<uint64_t> lo, Array1D<uint64_t> hi) {
  CheckSameLength(lo.shape(0), hi.shape(0));
  bool* results = nullptr;
  NumpyArray<bool> out = NewNumpyArray<bool>(lo.shape(0), &results);
  Status s;
  {
    nb::gil_scoped_release release;
    s = h.MayContainRange(lo.data(), hi.data(), lo.shape(0), results);
  }
  if (!s.ok()) Raise(s);
  return out;
}

NumpyArray<bool> MayContainBytesRange(const Handle& h, Array1D<int64_t> lo_offsets, Array1D<uint8_t> lo_data,
                                      Array1D<int64_t> hi_offsets, Array1D<uint8_t> hi_data) {
  CheckOffsetsGiven(lo_offsets, "lo");
  CheckOffsetsGiven(hi_offsets, "hi");
  const size_t n = lo_offsets.shape(0) - 1;
  CheckSameLength(n, hi_offsets.shape(0) - 1);
  bool* results = nullptr;
  NumpyArray<bool> out = NewNumpyArray<bool>(n, &results);
  Status s;
  {
    nb::gil_scoped_release release;
    s = h.MayContainBytesRange(lo_offsets.data(), lo_data.data(), lo_data.shape(0), hi_offsets.data(), hi_data.data(),
                               hi_data.shape(0), n, results);
  }
  if (!s.ok()) Raise(s);
  return out;
}

NumpyArray<bool> MayContainUint64(const Handle& h, Array1D<uint64_t> keys) {
  bool* results = nullptr;
  NumpyArray<bool> out = NewNumpyArray<bool>(keys.shape(0), &results);
  Status s;
  {
    nb::gil_scoped_release release;
    s = h.MayContainUint64(keys.data(), keys.shape(0), results);
  }
  if (!s.ok()) Raise(s);
  return out;
}

NumpyArray<bool> MayContainBinary(const Handle& h, Array1D<int64_t> offsets, Array1D<uint8_t> data) {
  CheckOffsetsGiven(offsets, "keys");
  const size_t n = offsets.shape(0) - 1;
  bool* results = nullptr;
  NumpyArray<bool> out = NewNumpyArray<bool>(n, &results);
  Status s;
  {
    nb::gil_scoped_release release;
    s = h.MayContainBinary(offsets.data(), data.data(), data.shape(0), n, results);
  }
  if (!s.ok()) Raise(s);
  return out;
}

double ModelFp(const Handle& h, uint64_t n, uint64_t range_length) {
  double fp = 0;
  Status s = h.ModelFp(n, range_length, &fp);
  if (!s.ok()) Raise(s);
  return fp;
}

NumpyArray<double> QueryModelFp(const Handle& h, Array1D<uint64_t> keys, Array1D<uint64_t> lo, Array1D<uint64_t> hi) {
  CheckSameLength(lo.shape(0), hi.shape(0));
  double* results = nullptr;
  NumpyArray<double> out = NewNumpyArray<double>(lo.shape(0), &results);
  Status s;
  {
    nb::gil_scoped_release release;
    s = h.QueryModelFp(keys.data(), keys.shape(0), lo.data(), hi.data(), lo.shape(0), results);
  }
  if (!s.ok()) Raise(s);
  return out;
}

nb::bytes Serialize(const Handle& h) {
  std::string bytes;
  {
    nb::gil_scoped_release release;
    h.filter().Serialize(&bytes);
  }
  return nb::bytes(bytes.data(), bytes.size());
}

// One dict per registered range variant: what filterlab.range_filters() presents.
nb::list RangeVariants() {
  nb::list out;
  for (const RangeFilterVariant* v : RegisteredRangeFilterVariants()) {
    std::set<std::string> keys;
    for (const std::string& e : v->examples) {
      std::unique_ptr<RangeFilterPolicy> policy;
      std::vector<std::string> accepted;
      Status s = NewRangeFilterPolicy(e, &policy, &accepted);
      if (!s.ok()) Raise(s);  // a registry whose examples do not parse is a bug the property tests catch
      keys.insert(accepted.begin(), accepted.end());
    }
    nb::dict d;
    d["name"] = v->name;
    d["summary"] = v->summary;
    d["params"] = v->params;
    d["keys"] = std::vector<std::string>(keys.begin(), keys.end());
    d["examples"] = v->examples;
    d["key_types"] = RangeKeyTypesName(v->key_types);
    d["fp_model"] = FpModelKindName(v->fp_model);
    d["dynamic"] = v->dynamic;
    out.append(d);
  }
  return out;
}

}  // namespace

void BindRangeFilters(nb::module_& m) {
  nb::class_<Handle>(m, "NativeRangeFilter", "A built or deserialized range filter.")
      .def_prop_ro(
          "spec",
          [](const Handle& h) -> std::optional<std::string> {
            if (h.policy() == nullptr) return std::nullopt;
            return h.policy()->spec();
          },
          "The canonical spec of the policy, or None when read from bytes without a spec.")
      .def_prop_ro(
          "variant", [](const Handle& h) { return std::string(h.variant().name); }, "The variant name.")
      .def_prop_ro(
          "layout", [](const Handle& h) { return h.filter().Describe(); },
          "The filter's layout as its serialized form names it (every parameter its reader needs).")
      .def_prop_ro(
          "num_keys", [](const Handle& h) { return h.filter().num_keys(); }, "Distinct keys the filter holds.")
      .def_prop_ro(
          "data_bytes", [](const Handle& h) { return h.filter().DataBytes(); },
          "Bytes of filter data (without the checksum and trailer).")
      .def_prop_ro(
          "bits_per_key", [](const Handle& h) { return h.filter().BitsPerKey(); },
          "8 * data_bytes / num_keys: what the filter spends (0 for no keys).")
      .def_prop_ro(
          "key_type", [](const Handle& h) { return h.key_type() == Handle::KeyType::kUint64 ? "uint64" : "bytes"; },
          "'uint64' or 'bytes': the keys it holds and the queries it answers.")
      .def_prop_ro(
          "native_key_types", [](const Handle& h) { return RangeKeyTypesName(h.variant().key_types); },
          "The variant's native key types: 'uint64', 'bytes' or 'uint64,bytes'.")
      .def_prop_ro(
          "fp_model_kind", [](const Handle& h) { return FpModelKindName(h.variant().fp_model); },
          "What model_fp promises: exact, upper_bound or empirical (no model: NaN).")
      .def("may_contain_range_uint64", &MayContainRange, "lo"_a, "hi"_a,
           "Query the inclusive ranges [lo[i], hi[i]]; the GIL is released.")
      .def("may_contain_range_binary", &MayContainBytesRange, "lo_offsets"_a, "lo_data"_a, "hi_offsets"_a, "hi_data"_a,
           "Query the byte-string ranges between lo and hi keys (offsets into data); the GIL is released.")
      .def("may_contain_uint64", &MayContainUint64, "keys"_a, "Point queries on uint64 keys; the GIL is released.")
      .def("may_contain_binary", &MayContainBinary, "offsets"_a, "data"_a,
           "Point queries on byte-string keys; the GIL is released.")
      .def("model_fp", &ModelFp, "n"_a, "range_length"_a,
           "The policy's model (or bound) FP rate for an empty range of range_length values among n keys.")
      .def("query_model_fp", &QueryModelFp, "keys"_a, "lo"_a, "hi"_a,
           "The filter's per-query model FP for each [lo[i], hi[i]], given the keys it was built from.")
      .def("serialize", &Serialize,
           "The serialized filter: data, checksum and trailer (an engine range filter block).");

  m.def("build_range_uint64", &BuildUint64, "spec"_a, "keys"_a,
        "Build a range filter from uint64 keys in any order; the GIL is released.");
  m.def("build_range_binary", &BuildBinary, "spec"_a, "offsets"_a, "data"_a, "map_to_uint64"_a,
        "Build a range filter from the byte strings data[offsets[i]:offsets[i+1]] in any order; the GIL is released.");
  m.def("open_range", &Open, "data"_a, "spec"_a.none(), "key_type"_a,
        "Read serialized range filter bytes; spec (optional) gives the model.");
  m.def("range_variants", &RangeVariants, "Every registered range variant as a dict, sorted by name.");
}

}  // namespace filterlab::python
