// ldb: inspects the logs of a DB directory.
//   ldb wal-dump FILE [--values]   every WAL record (batch sequence, puts and
//                                  deletes) with its offset, and every damaged
//                                  range where it lies
//   ldb manifest-dump FILE|DBDIR   every version edit with its offset, damage,
//                                  and the state the intact edits give (DBDIR:
//                                  the manifest CURRENT names)
// Exit status 0 without damage, 3 when damage was found, 1 on errors, 2 on
// bad usage.
#include <cstdio>
#include <cstring>
#include <string>

#include "engine/db/db_files.h"
#include "engine/db/log_dump.h"

namespace filterlab::engine {
namespace {

constexpr char kUsage[] =
    "usage: ldb wal-dump FILE [--values]\n"
    "       ldb manifest-dump FILE|DBDIR\n";

int Run(int argc, char** argv) {
  if (argc < 3) {
    std::fputs(kUsage, stderr);
    return 2;
  }
  const std::string command = argv[1];
  std::string path = argv[2];
  bool values = false;
  for (int i = 3; i < argc; ++i) {
    if (command == "wal-dump" && std::strcmp(argv[i], "--values") == 0) {
      values = true;
    } else {
      std::fprintf(stderr, "ldb: unexpected argument '%s'\n%s", argv[i], kUsage);
      return 2;
    }
  }
  if (command != "wal-dump" && command != "manifest-dump") {
    std::fprintf(stderr, "ldb: unknown command '%s' (wal-dump or manifest-dump)\n%s", command.c_str(), kUsage);
    return 2;
  }
  Env* env = Env::Default();
  if (command == "manifest-dump" && env->FileExists(CurrentFileName(path))) {
    std::string current;
    Status s = ReadFileToString(env, CurrentFileName(path), &current);
    if (!s.ok()) {
      std::fprintf(stderr, "ldb: %s\n", s.ToString().c_str());
      return 1;
    }
    while (!current.empty() && current.back() == '\n') current.pop_back();
    path += "/" + current;
  }
  std::string contents;
  Status s = ReadFileToString(env, path, &contents);
  if (!s.ok()) {
    std::fprintf(stderr, "ldb: %s\n", s.ToString().c_str());
    return 1;
  }
  LogDumpSummary summary;
  const std::string text =
      command == "wal-dump" ? DumpWal(contents, path, values, &summary) : DumpManifest(contents, path, &summary);
  std::fputs(text.c_str(), stdout);
  return summary.damaged_regions > 0 || summary.bad_payload ? 3 : 0;
}

}  // namespace
}  // namespace filterlab::engine

int main(int argc, char** argv) { return filterlab::engine::Run(argc, argv); }
