// `filterlab-tool check-spec [--examples] SPEC...`: one JSON line per spec,
//   {"spec":..., "ok":true, "canonical":..., "variant":..., "hash_bits":..., "bits_per_key":..., "probes":...}
// or {"spec":..., "ok":false, "error":...} with the registry's own message, so
// callers (the experiment runner) can report every bad spec of a config at
// once instead of stopping at the first. --examples checks every example spec
// of every registered variant (the meaning of "every variant" in configs).
#include "tools/check_spec.h"

#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/json_out.h"
#include "filters/filter.h"
#include "filters/registry.h"

namespace filterlab {

namespace {

void PrintCheckSpecUsage(FILE* f) {
  std::fprintf(f,
               "usage: filterlab-tool check-spec [--examples] SPEC...\n"
               "Validates filter specs with the registry (nothing is built). One JSON line per spec:\n"
               "ok, canonical spec, variant, hash_bits, bits_per_key, probes; or ok=false and the\n"
               "registry's error. --examples adds every example spec of every registered variant.\n"
               "Exit status 0 if every spec is valid, 1 otherwise.\n");
}

}  // namespace

int RunCheckSpec(int argc, char** argv) {
  std::vector<std::string> specs;
  for (int i = 0; i < argc; ++i) {
    if (std::strcmp(argv[i], "--help") == 0 || std::strcmp(argv[i], "-h") == 0) {
      PrintCheckSpecUsage(stdout);
      return 0;
    }
    if (std::strcmp(argv[i], "--examples") == 0) {
      for (const std::string& e : AllExampleSpecs()) specs.push_back(e);
      continue;
    }
    specs.emplace_back(argv[i]);
  }
  if (specs.empty()) {
    PrintCheckSpecUsage(stderr);
    return 2;
  }
  bool all_ok = true;
  for (const std::string& spec : specs) {
    nlohmann::ordered_json record;
    record["spec"] = spec;
    std::unique_ptr<FilterPolicy> policy;
    Status s = NewFilterPolicy(spec, &policy);
    record["ok"] = s.ok();
    if (s.ok()) {
      record["canonical"] = policy->spec();
      record["variant"] = std::string(policy->variant());
      record["hash_bits"] = static_cast<int>(policy->hash_width());
      record["bits_per_key"] = policy->bits_per_key();
      record["probes"] = JsonOrNull(policy->num_probes());
    } else {
      all_ok = false;
      record["error"] = s.ToString();
    }
    std::printf("%s\n", record.dump().c_str());
  }
  return all_ok ? 0 : 1;
}

}  // namespace filterlab
