// filterlab-tool: the filter-level commands behind ./filterlab
//   list-filters                 every registered variant, its parameters and examples
//   verify-vectors FILE...       check reference-vector files, one line per case
//   check-spec [--json] SPEC...  validate filter specs with the registry (the runner reads --json)
//   sst-filters FILE.sst...      the filters of RocksDB SST files, and their FP against absent keys
//   parquet-blooms FILE...       the split-block Bloom filters of Parquet files, checked against our sbbf
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "filters/filter.h"
#include "filters/registry.h"
#include "filters/vectors/vector_check.h"
#include "tools/check_spec.h"
#include "tools/parquet_blooms.h"
#include "tools/sst_filters.h"

namespace filterlab {
namespace {

int Usage(FILE* f) {
  std::fprintf(f,
               "usage: filterlab-tool COMMAND [ARGS]\n"
               "commands:\n"
               "  list-filters              list every registered filter variant with its parameters\n"
               "  verify-vectors FILE...    check reference-vector files; one line per case, then\n"
               "                            'N passed, N failed'; exit 0 only if all pass\n"
               "  check-spec [--json] [--examples] [--range-examples] SPEC...\n"
               "                            validate filter specs with the registry; one line (--json: object) each\n"
               "  sst-filters [--keys FILE | --sample N] [--json] FILE.sst...\n"
               "                            the filters of RocksDB SST files (format, layout, bits/key)\n"
               "                            and their FP against absent keys beside the model\n"
               "  parquet-blooms [--json] [--check-values FILE] FILE.parquet...\n"
               "                            the split-block Bloom filters of Parquet files (fill, implied\n"
               "                            ndv, FP), checked bit for bit against our sbbf\n");
  return f == stdout ? 0 : 2;
}

int ListFilters() {
  for (const FilterVariant* v : RegisteredFilterVariants()) {
    std::printf("%-12s %s\n", v->name, v->summary);
    std::printf("%-12s   parameters: %s\n", "", v->params);
    for (const auto& e : v->examples_at_10_bpk) std::printf("%-12s   e.g. %s\n", "", e.c_str());
  }
  std::printf("\nrange filters (filters/range/range_filter.h):\n");
  for (const RangeFilterVariant* v : RegisteredRangeFilterVariants()) {
    std::printf("%-12s %s\n", v->name, v->summary);
    std::printf("%-12s   parameters: %s\n", "", v->params);
    std::printf("%-12s   keys: %s; FP model: %s%s\n", "", RangeKeyTypesName(v->key_types).c_str(),
                FpModelKindName(v->fp_model), v->dynamic ? "; dynamic (inserts)" : "");
    for (const auto& e : v->examples) std::printf("%-12s   e.g. %s\n", "", e.c_str());
  }
  return 0;
}

int VerifyVectors(int argc, char** argv) {
  if (argc == 0) {
    std::fprintf(stderr, "verify-vectors: give one or more vector files (e.g. testdata/vectors/*.json)\n");
    return 2;
  }
  size_t passed = 0, failed = 0;
  for (int i = 0; i < argc; ++i) {
    std::string kind;
    std::vector<VectorCaseResult> results;
    Status s = CheckVectorFile(argv[i], &kind, &results);
    if (!s.ok()) {
      std::printf("FAIL %s: %s\n", argv[i], s.ToString().c_str());
      ++failed;
      continue;
    }
    for (const auto& r : results) {
      std::printf("%s %s [%s] %s%s%s\n", r.passed ? "ok  " : "FAIL", argv[i], kind.c_str(), r.name.c_str(),
                  r.detail.empty() ? "" : ": ", r.detail.c_str());
      (r.passed ? passed : failed)++;
    }
    if (results.empty()) {
      std::printf("FAIL %s [%s]: no cases in file\n", argv[i], kind.c_str());
      ++failed;
    }
  }
  std::printf("%zu passed, %zu failed\n", passed, failed);
  return failed == 0 ? 0 : 1;
}

}  // namespace
}  // namespace filterlab

int main(int argc, char** argv) {
  using namespace filterlab;
  if (argc < 2) return Usage(stderr);
  const std::string cmd = argv[1];
  if (cmd == "--help" || cmd == "-h" || cmd == "help") return Usage(stdout);
  if (cmd == "check-spec") return RunCheckSpec(argc - 2, argv + 2);          // has its own --help
  if (cmd == "sst-filters") return RunSstFilters(argc - 2, argv + 2);        // has its own --help
  if (cmd == "parquet-blooms") return RunParquetBlooms(argc - 2, argv + 2);  // has its own --help
  for (int i = 2; i < argc; ++i) {
    if (std::strcmp(argv[i], "--help") == 0 || std::strcmp(argv[i], "-h") == 0) return Usage(stdout);
  }
  if (cmd == "list-filters") return ListFilters();
  if (cmd == "verify-vectors") return VerifyVectors(argc - 2, argv + 2);
  std::fprintf(stderr, "filterlab-tool: unknown command '%s'\n", cmd.c_str());
  return Usage(stderr);
}
