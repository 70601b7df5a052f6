// Shared pieces of the range-filter commands (range_sim.h).
#include "sim/range_sim.h"

#include <cmath>

#include "common/number_list.h"
#include "common/strings.h"
#include "common/timer.h"
#include "hashing/remix.h"
#include "sim/machine.h"

namespace filterlab::sim {

Status MakeRangePolicies(const std::vector<std::string>& specs, std::vector<RangePolicy>* out) {
  if (specs.empty()) return Status::InvalidArgument("give at least one --filter SPEC (e.g. --filter grafite:bpk=16)");
  for (const std::string& spec : specs) {
    RangePolicy p{spec, nullptr};
    Status s = NewRangeFilterPolicy(spec, &p.policy);
    if (!s.ok()) return Status::InvalidArgument("--filter: " + s.message());
    out->push_back(std::move(p));
  }
  return Status::OK();
}

Status ParseRangeLengths(const std::string& text, std::vector<uint64_t>* lengths) {
  std::vector<double> exps;
  Status s = ParseNumberList("range_log2", text, 0, 40, &exps);
  if (!s.ok()) return s;
  for (double e : exps) {
    if (e != std::floor(e)) {
      return Status::InvalidArgument("--range_log2=" + text + ": exponents must be integers (lengths 2^0..2^40)");
    }
    lengths->push_back(uint64_t{1} << static_cast<int>(e));
  }
  return Status::OK();
}

Status ParseCorrelations(const std::string& text, std::vector<double>* degrees) {
  for (const std::string& piece : Split(text, ',')) {
    const std::string item(Trim(piece));
    if (item == "none") {
      degrees->push_back(-1);
      continue;
    }
    std::vector<double> one;
    Status s = ParseNumberList("correlations", item, 0, 1, &one);
    if (!s.ok() || one.size() != 1) {
      return Status::InvalidArgument("--correlations=" + text + ": '" + item +
                                     "' is neither 'none' (uncorrelated) nor a degree in [0, 1]");
    }
    degrees->push_back(one[0]);
  }
  return Status::OK();
}

Status CheckRangeMemory(uint64_t keys, const std::vector<RangePolicy>& policies, uint64_t extra,
                        const std::string& what) {
  long double need = static_cast<long double>(keys) * 8 + extra;
  for (const auto& p : policies) need += p.policy->BuildMemoryBytes(keys);
  if (need > 1.8e19L) return Status::InvalidArgument(what + " needs more memory than a 64-bit machine has");
  return CheckMemory(static_cast<uint64_t>(need), what);
}

Status BuildTimed(const RangeFilterPolicy& policy, const std::vector<uint64_t>& keys, std::unique_ptr<RangeFilter>* out,
                  double* seconds) {
  const auto start = Clock::now();
  Status s = policy.Build(keys.data(), keys.size(), out);
  *seconds = SecondsSince(start);
  return s;
}

Status GrowTimed(const RangeFilterPolicy& policy, const std::vector<uint64_t>& keys, uint64_t grow_from, uint64_t seed,
                 std::unique_ptr<RangeFilter>* out, double* seconds) {
  std::vector<uint64_t> order = keys;
  SplitMix64 rng(seed ^ 0x6207F20Bu);
  for (size_t i = order.size(); i > 1; --i) std::swap(order[i - 1], order[rng.Next() % i]);
  const auto start = Clock::now();
  Status s = policy.NewDynamic(grow_from, out);
  for (size_t i = 0; s.ok() && i < order.size(); ++i) s = (*out)->Insert(order[i]);
  *seconds = SecondsSince(start);
  if (!s.ok())
    return Status::InvalidArgument(policy.spec() + " growing from " + std::to_string(grow_from) +
                                   " keys: " + s.message());
  return Status::OK();
}

}  // namespace filterlab::sim
