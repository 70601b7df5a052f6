// filterlab._native: the C++ half of the `filterlab` Python package (nanobind).
// It takes only exact types — C-contiguous uint64 / int32 / int64 / uint8
// arrays, str, bytes — and the pure-Python layer (python/filterlab/) turns
// what users hand it (lists, pandas, pyarrow, other integer dtypes) into
// those, with its own messages. Every call that touches all keys releases
// the GIL; every failure is a ValueError carrying the C++ Status message, the
// text the command line prints for the same input.
#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/unique_ptr.h>
#include <nanobind/stl/vector.h>

#include <memory>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "filters/filter_spec.h"
#include "filters/fp_model_kind.h"
#include "filters/fp_tolerance.h"
#include "filters/registry.h"
#include "python/src/baseline_timing.h"
#include "python/src/filter_handle.h"
#include "python/src/numpy_arrays.h"
#include "python/src/range_bindings.h"
#include "python/src/sim_runner.h"

namespace nb = nanobind;
using namespace nb::literals;

namespace filterlab::python {
namespace {

using BoolArray = NumpyArray<bool>;

std::unique_ptr<FilterPolicy> PolicyOrRaise(const std::string& spec) {
  std::unique_ptr<FilterPolicy> policy;
  Status s = FilterHandle::NewPolicy(spec, &policy);
  if (!s.ok()) Raise(s);
  return policy;
}

FilterHandle::Uint64Keys KindOf(bool hashed) {
  return hashed ? FilterHandle::Uint64Keys::kHashes : FilterHandle::Uint64Keys::kIntegerKeys;
}

BoolArray NewBoolArray(size_t n, bool** data) { return NewNumpyArray<bool>(n, data); }

std::unique_ptr<FilterHandle> BuildUint64(const std::string& spec, Array1D<uint64_t> values, bool hashed) {
  std::unique_ptr<FilterPolicy> policy = PolicyOrRaise(spec);
  std::unique_ptr<FilterHandle> out;
  Status s;
  {
    nb::gil_scoped_release release;
    s = FilterHandle::BuildFromUint64(std::move(policy), KindOf(hashed), values.data(), values.shape(0), &out);
  }
  if (!s.ok()) Raise(s);
  return out;
}

template <class Offset>
std::unique_ptr<FilterHandle> BuildBinary(const std::string& spec, Array1D<Offset> offsets, Array1D<uint8_t> data) {
  if (offsets.shape(0) == 0) throw nb::value_error("keys: offsets must hold one more entry than there are keys");
  std::unique_ptr<FilterPolicy> policy = PolicyOrRaise(spec);
  std::unique_ptr<FilterHandle> out;
  Status s;
  {
    nb::gil_scoped_release release;
    s = FilterHandle::BuildFromBinary(std::move(policy), offsets.data(), data.data(), data.shape(0),
                                      offsets.shape(0) - 1, &out);
  }
  if (!s.ok()) Raise(s);
  return out;
}

BoolArray MayContainUint64(const FilterHandle& h, Array1D<uint64_t> values) {
  bool* results = nullptr;
  BoolArray out = NewBoolArray(values.shape(0), &results);
  Status s;
  {
    nb::gil_scoped_release release;
    s = h.MayContainUint64(values.data(), values.shape(0), results);
  }
  if (!s.ok()) Raise(s);
  return out;
}

template <class Offset>
BoolArray MayContainBinary(const FilterHandle& h, Array1D<Offset> offsets, Array1D<uint8_t> data) {
  if (offsets.shape(0) == 0) throw nb::value_error("keys: offsets must hold one more entry than there are keys");
  const size_t n = offsets.shape(0) - 1;
  bool* results = nullptr;
  BoolArray out = NewBoolArray(n, &results);
  Status s;
  {
    nb::gil_scoped_release release;
    s = h.MayContainBinary(offsets.data(), data.data(), data.shape(0), n, results);
  }
  if (!s.ok()) Raise(s);
  return out;
}

std::unique_ptr<FilterHandle> Open(nb::bytes data, const std::string& spec, bool hashed,
                                   std::optional<uint64_t> num_keys) {
  std::unique_ptr<FilterPolicy> policy = PolicyOrRaise(spec);
  std::string bytes(data.c_str(), data.size());
  std::unique_ptr<FilterHandle> out;
  Status s;
  {
    nb::gil_scoped_release release;
    s = FilterHandle::Open(std::move(bytes), std::move(policy), KindOf(hashed), num_keys, &out);
  }
  if (!s.ok()) Raise(s);
  return out;
}

// fp_tolerance.h's range for a rate measured with `queries` outside queries
// around the model FP rate for n keys: (low, high, rule).
nb::tuple ModelFpRange(const FilterHandle& h, uint64_t n, uint64_t queries) {
  if (queries == 0) throw nb::value_error("queries: got 0; allowed: >= 1");
  double fp = 0;
  Status s = h.ModelFp(n, &fp);
  if (!s.ok()) Raise(s);
  const FpAllowedRange r = AllowedFpRange(fp, queries, FpModelKindOf(h.policy()));
  return nb::make_tuple(r.low, r.high, std::string(r.rule));
}

nb::bytes Serialize(const FilterHandle& h) {
  std::string bytes;
  {
    nb::gil_scoped_release release;
    h.filter().Serialize(&bytes);
  }
  return nb::bytes(bytes.data(), bytes.size());
}

double ModelFp(const FilterHandle& h, uint64_t n) {
  double fp = 0;
  Status s = h.ModelFp(n, &fp);
  if (!s.ok()) Raise(s);
  return fp;
}

// One dict per registered variant: what filterlab.filters() presents.
nb::list Variants() {
  nb::list out;
  for (const FilterVariant* v : RegisteredFilterVariants()) {
    nb::list examples, example_kinds;
    std::set<std::string> keys;
    for (const std::string& e : v->examples_at_10_bpk) {
      examples.append(e);
      std::unique_ptr<FilterPolicy> policy;
      std::vector<std::string> accepted;
      Status s = NewFilterPolicy(e, &policy, &accepted);
      if (!s.ok()) Raise(s);  // a registry whose examples do not parse is a bug the property tests catch
      example_kinds.append(FpModelKindName(FpModelKindOf(*policy)));
      keys.insert(accepted.begin(), accepted.end());
    }
    if (v->examples_at_10_bpk.empty()) {
      // A variant without examples (worm's aliases): its keys as its bare name's parser declares them.
      std::unique_ptr<FilterPolicy> policy;
      std::vector<std::string> accepted;
      if (NewFilterPolicy(v->name, &policy, &accepted).ok()) keys.insert(accepted.begin(), accepted.end());
    }
    nb::dict d;
    d["name"] = v->name;
    d["summary"] = v->summary;
    d["params"] = v->params;
    d["keys"] = std::vector<std::string>(keys.begin(), keys.end());
    d["examples"] = examples;
    d["fp_model"] = FpModelKindName(v->fp_model);
    d["fp_model_by_spec"] = v->fp_model_of != nullptr;
    d["example_fp_models"] = example_kinds;
    d["has_probes"] = v->has_probes;
    out.append(d);
  }
  return out;
}

nb::tuple RunSim(const std::string& command, const std::vector<std::string>& args) {
  std::vector<std::string> records;
  std::string help;
  Status s;
  {
    nb::gil_scoped_release release;
    s = RunSimCommand(command, args, &records, &help);
  }
  if (!s.ok()) Raise(s);
  return nb::make_tuple(records, help);
}

}  // namespace
}  // namespace filterlab::python

NB_MODULE(_native, m) {
  using namespace filterlab;
  using namespace filterlab::python;
  m.doc() =
      "The C++ half of filterlab: the filter registry, filters built and queried over numpy buffers, and the "
      "simulator's commands. Use the `filterlab` package, which accepts lists, pandas and pyarrow data.";

  nb::class_<FilterHandle>(m, "NativeFilter", "A built or deserialized filter with the policy of its spec.")
      .def_prop_ro(
          "spec", [](const FilterHandle& h) { return h.policy().spec(); },
          "The canonical spec of the policy (every parameter resolved).")
      .def_prop_ro(
          "variant", [](const FilterHandle& h) { return std::string(h.policy().variant()); }, "The variant name.")
      .def_prop_ro(
          "layout", [](const FilterHandle& h) { return h.filter().Describe(); },
          "The filter's layout as its serialized form names it, e.g. 'fastlocal:hash=64,probes=6,bytes=1280'.")
      .def_prop_ro(
          "hash_bits", [](const FilterHandle& h) { return static_cast<int>(h.filter().hash_width()); },
          "Width of the hashes the filter consumes: 32 or 64.")
      .def_prop_ro(
          "data_bytes", [](const FilterHandle& h) { return h.filter().DataBytes(); },
          "Bytes of filter data (the bit array, without the trailer).")
      .def_prop_ro(
          "num_keys", [](const FilterHandle& h) { return h.num_keys(); },
          "Keys the filter holds (repeats of the key before counted once), or None if unknown.")
      .def_prop_ro(
          "hashed", [](const FilterHandle& h) { return h.uint64_keys() == FilterHandle::Uint64Keys::kHashes; },
          "True if uint64 arrays are the policy's hashes, False if they are integer keys.")
      .def_prop_ro(
          "fp_model_kind", [](const FilterHandle& h) { return FpModelKindName(FpModelKindOf(h.policy())); },
          "What the model promises: exact, empirical, lower_bound or upper_bound.")
      .def("model_fp", &ModelFp, "n"_a, "The policy's model FP rate for a filter of n distinct keys.")
      .def("model_fp_range", &ModelFpRange, "n"_a, "queries"_a,
           "(low, high, rule): where a rate measured with `queries` outside queries may fall around the model "
           "for n keys, by the model's kind (filters/fp_tolerance.h).")
      .def("may_contain_uint64", &MayContainUint64, "values"_a,
           "Query uint64 keys (or hashes, if built hashed); the GIL is released.")
      .def("may_contain_binary", &MayContainBinary<int64_t>, "offsets"_a, "data"_a,
           "Query the byte-string keys data[offsets[i]:offsets[i+1]]; the GIL is released.")
      .def("may_contain_binary", &MayContainBinary<int32_t>, "offsets"_a, "data"_a)
      .def("serialize", &Serialize, "The serialized filter: the bytes of the engine's filter block.");

  m.def("build_uint64", &BuildUint64, "spec"_a, "values"_a, "hashed"_a,
        "Build from uint64 integer keys, or hashes if hashed; the GIL is released.");
  m.def("build_binary", &BuildBinary<int64_t>, "spec"_a, "offsets"_a, "data"_a,
        "Build from the byte-string keys data[offsets[i]:offsets[i+1]]; the GIL is released.");
  m.def("build_binary", &BuildBinary<int32_t>, "spec"_a, "offsets"_a, "data"_a);
  m.def("open", &Open, "data"_a, "spec"_a, "hashed"_a, "num_keys"_a.none(),
        "Read serialized filter bytes, querying with spec's key hash.");
  m.def("variants", &Variants, "Every registered variant as a dict, sorted by name.");
  m.def("run_sim", &RunSim, "command"_a, "args"_a,
        "Run a filterlab-sim command in-process: (records as JSON texts, help text).");
  m.def(
      "check_spec",
      [](const std::string& spec) {
        // A range variant's spec through the range registry, as filterlab-tool check-spec reads it.
        FilterSpec parsed;
        if (FilterSpec::Parse(spec, &parsed).ok() && FindRangeFilterVariant(parsed.variant()) != nullptr) {
          std::unique_ptr<RangeFilterPolicy> policy;
          Status s = NewRangeFilterPolicy(spec, &policy);
          if (!s.ok()) Raise(s);
          return policy->spec();
        }
        std::unique_ptr<FilterPolicy> policy = PolicyOrRaise(spec);
        return policy->spec();
      },
      "spec"_a, "The canonical form of a point or range filter spec, or ValueError with the registry's reason.");

  BindRangeFilters(m);
  BindBaselineTiming(m);
}
