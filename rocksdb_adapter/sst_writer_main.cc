// rocksdb-sst-writer: writes a RocksDB SST file with librocksdb, for trying
// `filterlab-tool sst-filters` and seeding its fuzz target
// (rocksdb_adapter/sst_writer.h says which keys).
//   rocksdb-sst-writer OUT.sst [--filter=fastlocal:bpk=10|legacy:bpk=B|ribbon:bpk=B|adapter:SPEC]
//                      [--partitioned] [--prefix=N] [--keys=N] [--stride=N] [--absent_keys=FILE]
#include <cstdio>
#include <cstdlib>
#include <string>

#include "rocksdb_adapter/sst_writer.h"

int main(int argc, char** argv) {
  using namespace filterlab::rocksdb_adapter;
  SstSpec spec;
  std::string out, absent_file;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto number = [&](const char* flag, uint64_t* v) {
      const std::string prefix = std::string(flag) + "=";
      if (a.rfind(prefix, 0) != 0) return false;
      char* end = nullptr;
      *v = std::strtoull(a.c_str() + prefix.size(), &end, 10);
      if (end == a.c_str() + prefix.size() || *end != '\0') {
        std::fprintf(stderr, "rocksdb-sst-writer: %s needs a whole number, got '%s'\n", flag, a.c_str());
        std::exit(2);
      }
      return true;
    };
    uint64_t v = 0;
    if (a.rfind("--filter=", 0) == 0) {
      spec.filter = a.substr(9);
    } else if (a == "--partitioned") {
      spec.partitioned = true;
    } else if (number("--prefix", &v)) {
      spec.prefix_length = static_cast<int>(v);
    } else if (number("--keys", &v)) {
      spec.keys = v;
    } else if (number("--stride", &v)) {
      spec.stride = v > 0 ? v : 1;
    } else if (a.rfind("--absent_keys=", 0) == 0) {
      absent_file = a.substr(14);
    } else if (a.rfind("--", 0) == 0 || !out.empty()) {
      std::fprintf(stderr,
                   "usage: rocksdb-sst-writer OUT.sst [--filter=SPEC] [--partitioned] [--prefix=N] [--keys=N] "
                   "[--stride=N] [--absent_keys=FILE]\n(unexpected '%s')\n",
                   a.c_str());
      return 2;
    } else {
      out = a;
    }
  }
  if (out.empty()) {
    std::fprintf(stderr, "rocksdb-sst-writer: give the output file\n");
    return 2;
  }
  const filterlab::Status s = WriteSst(spec, out);
  if (!s.ok()) {
    std::fprintf(stderr, "rocksdb-sst-writer: %s\n", s.ToString().c_str());
    return 1;
  }
  if (!absent_file.empty()) {
    FILE* f = std::fopen(absent_file.c_str(), "w");
    if (f == nullptr) {
      std::fprintf(stderr, "rocksdb-sst-writer: cannot write %s\n", absent_file.c_str());
      return 1;
    }
    for (uint64_t i = 0; i + 1 < spec.keys; ++i) std::fprintf(f, "%s\n", AbsentKey(spec, i).c_str());
    std::fclose(f);
  }
  return 0;
}
