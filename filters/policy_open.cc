// OpenFilterFor and its per-variant openers (policy_open.h).
#include "filters/policy_open.h"

#include <map>
#include <string>

#include "filters/registry.h"

namespace filterlab {
namespace {

std::map<std::string, PolicyOpener, std::less<>>& Openers() {
  static std::map<std::string, PolicyOpener, std::less<>> openers;
  return openers;
}

}  // namespace

bool RegisterPolicyOpener(const char* variant, PolicyOpener opener) {
  Openers()[variant] = opener;
  return true;
}

Status OpenFilterFor(const FilterPolicy& policy, Slice bytes, std::unique_ptr<Filter>* out) {
  const auto it = Openers().find(policy.variant());
  if (it == Openers().end()) return OpenFilter(bytes, out);
  return it->second(policy, bytes, out);
}

}  // namespace filterlab
