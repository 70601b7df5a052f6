#include "python/src/baseline_timing.h"

#include <nanobind/ndarray.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>
#include <time.h>

#include <algorithm>
#include <chrono>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "engine/bench/bench_keys.h"
#include "filters/filter.h"
#include "python/src/filter_handle.h"
#include "python/src/key_hashing.h"
#include "python/src/range_filter_handle.h"

namespace nb = nanobind;
using namespace nb::literals;

namespace filterlab::python {
namespace {

using U64Array = nb::ndarray<const uint64_t, nb::ndim<1>, nb::c_contig, nb::device::cpu>;

double Now() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }

// CPU seconds of the calling thread (what Python's time.thread_time() reads): on a loaded machine the
// wall time of a short call mostly measures the scheduler, its CPU time the call.
double ThreadCpu() {
  timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

// (wall, thread CPU) ns per key of `seconds` over n keys.
using NsPerKey = std::pair<double, double>;

std::unique_ptr<FilterPolicy> Policy(const std::string& spec) {
  std::unique_ptr<FilterPolicy> policy;
  Status s = NewFilterPolicy(spec, &policy);
  if (!s.ok()) throw nb::value_error(s.message().c_str());
  return policy;
}

// (wall, CPU) ns/key of policy.Build over the hashes (integer keys: FormatKey +
// HashKey into an array first, timed too), as a C++ caller builds.
NsPerKey BuildNsPerKey(const std::string& spec, U64Array values, bool hashed) {
  std::unique_ptr<FilterPolicy> policy = Policy(spec);
  const size_t n = values.shape(0);
  const uint64_t* v = values.data();
  std::unique_ptr<Filter> filter;
  Status s;
  double seconds, cpu;
  {
    nb::gil_scoped_release release;
    const double start = Now(), start_cpu = ThreadCpu();
    if (hashed) {
      s = policy->Build(v, n, &filter);
    } else {
      std::vector<uint64_t> hashes(n);
      char key[kIntegerKeyBytes];
      for (size_t i = 0; i < n; ++i) {
        lsmbench::FormatKey(v[i], kIntegerKeyBytes, key);
        hashes[i] = policy->HashKey(Slice(key, kIntegerKeyBytes));
      }
      s = policy->Build(hashes.data(), n, &filter);
    }
    seconds = Now() - start;
    cpu = ThreadCpu() - start_cpu;
  }
  if (!s.ok()) throw nb::value_error(s.message().c_str());
  return {seconds * 1e9 / static_cast<double>(n), cpu * 1e9 / static_cast<double>(n)};
}

// (wall, CPU) ns/key of the filter's MayContainBatch over the hashes in calls
// of `batch` (integer keys: hashed per call into a stack buffer first), into a
// result array allocated per call as the module's is: the batched query as a
// C++ caller runs it.
NsPerKey QueryNsPerKey(const FilterHandle& h, U64Array values, size_t batch) {
  if (batch < 1 || batch > kChunk) throw nb::value_error("batch must be 1..1024");
  const size_t n = values.shape(0);
  const uint64_t* v = values.data();
  const Filter& filter = h.filter();
  const bool hashed = h.uint64_keys() == FilterHandle::Uint64Keys::kHashes;
  std::unique_ptr<bool[]> results;
  double seconds, cpu;
  {
    nb::gil_scoped_release release;
    uint64_t hashes[kChunk];
    const double start = Now(), start_cpu = ThreadCpu();
    results.reset(new bool[n > 0 ? n : 1]);
    for (size_t i = 0; i < n; i += batch) {
      const size_t m = std::min(batch, n - i);
      if (hashed) {
        filter.MayContainBatch(v + i, m, results.get() + i);
      } else {
        HashIntegerKeys(h.policy(), v + i, m, hashes);
        filter.MayContainBatch(hashes, m, results.get() + i);
      }
    }
    seconds = Now() - start;
    cpu = ThreadCpu() - start_cpu;
  }
  // Keep the answers observable, so no part of the loop can be dropped.
  size_t positives = 0;
  for (size_t i = 0; i < n; ++i) positives += results[i];
  static volatile size_t sink;
  sink = positives;
  return {seconds * 1e9 / static_cast<double>(n), cpu * 1e9 / static_cast<double>(n)};
}

// (wall, CPU) ns per range of the filter's MayContainRange over [lo[i], hi[i]]
// into a result array allocated per call as the module's is: the loop a C++
// caller (filterlab-sim rangefp) runs; RangeFilter has no batch call.
NsPerKey RangeQueryNsPerRange(const RangeFilterHandle& h, U64Array lo, U64Array hi) {
  if (lo.shape(0) != hi.shape(0)) throw nb::value_error("lo and hi must have one entry per range");
  const size_t n = lo.shape(0);
  const uint64_t* l = lo.data();
  const uint64_t* u = hi.data();
  const RangeFilter& filter = h.filter();
  std::unique_ptr<bool[]> results;
  double seconds, cpu;
  {
    nb::gil_scoped_release release;
    const double start = Now(), start_cpu = ThreadCpu();
    results.reset(new bool[n > 0 ? n : 1]);
    for (size_t i = 0; i < n; ++i) results[i] = filter.MayContainRange(l[i], u[i]);
    seconds = Now() - start;
    cpu = ThreadCpu() - start_cpu;
  }
  size_t positives = 0;
  for (size_t i = 0; i < n; ++i) positives += results[i];
  static volatile size_t sink;
  sink = positives;
  return {seconds * 1e9 / static_cast<double>(n), cpu * 1e9 / static_cast<double>(n)};
}

// (wall, CPU) ns/key of RangeFilterPolicy::Build over keys already sorted
// without repeats, as a C++ caller with sorted keys builds.
NsPerKey RangeBuildNsPerKey(const std::string& spec, U64Array keys) {
  std::unique_ptr<RangeFilterPolicy> policy;
  Status s = NewRangeFilterPolicy(spec, &policy);
  if (!s.ok()) throw nb::value_error(s.message().c_str());
  const size_t n = keys.shape(0);
  std::unique_ptr<RangeFilter> filter;
  double seconds, cpu;
  {
    nb::gil_scoped_release release;
    const double start = Now(), start_cpu = ThreadCpu();
    s = policy->Build(keys.data(), n, &filter);
    seconds = Now() - start;
    cpu = ThreadCpu() - start_cpu;
  }
  if (!s.ok()) throw nb::value_error(s.message().c_str());
  return {seconds * 1e9 / static_cast<double>(n), cpu * 1e9 / static_cast<double>(n)};
}

}  // namespace

void BindBaselineTiming(nb::module_& m) {
  m.def("_cpp_build_ns_per_key", &BuildNsPerKey, "spec"_a, "values"_a, "hashed"_a,
        "Benchmark baseline: (wall, thread CPU) ns/key of the C++ build over the same keys (python/bench_module.py).");
  m.def("_cpp_query_ns_per_key", &QueryNsPerKey, "filter"_a, "values"_a, "batch"_a = kChunk,
        "Benchmark baseline: (wall, thread CPU) ns/key of C++ MayContainBatch calls over the same keys "
        "(python/bench_module.py).");
  m.def("_cpp_range_query_ns_per_range", &RangeQueryNsPerRange, "filter"_a, "lo"_a, "hi"_a,
        "Benchmark baseline: (wall, thread CPU) ns/range of a C++ MayContainRange loop over the same ranges "
        "(python/bench_module.py).");
  m.def("_cpp_range_build_ns_per_key", &RangeBuildNsPerKey, "spec"_a, "keys"_a,
        "Benchmark baseline: (wall, thread CPU) ns/key of the C++ range build over the same sorted keys "
        "(python/bench_module.py).");
}

}  // namespace filterlab::python
