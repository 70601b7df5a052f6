// file-readers-fuzz-seeds DIR: copies the vendored seed files of
// tools/file_readers_fuzz.cc (testdata/fuzz-seeds/: SSTs librocksdb wrote with
// each of RocksDB's filters and an adapter filter, Parquet files DuckDB and
// pyarrow wrote; testdata/README.md) into the corpus folder DIR.
#include <cstdio>
#include <filesystem>
#include <system_error>

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: file-readers-fuzz-seeds CORPUS_DIR\n");
    return 2;
  }
  namespace fs = std::filesystem;
  std::error_code ec;
  fs::create_directories(argv[1], ec);
  size_t copied = 0;
  for (const fs::directory_entry& e : fs::directory_iterator(FILTERLAB_FUZZ_SEEDS_DIR, ec)) {
    if (!e.is_regular_file()) continue;
    fs::copy_file(e.path(), fs::path(argv[1]) / e.path().filename(), fs::copy_options::overwrite_existing, ec);
    if (ec) {
      std::fprintf(stderr, "file-readers-fuzz-seeds: %s: %s\n", e.path().c_str(), ec.message().c_str());
      return 1;
    }
    ++copied;
  }
  if (copied == 0) {
    std::fprintf(stderr, "file-readers-fuzz-seeds: no seed files in %s\n", FILTERLAB_FUZZ_SEEDS_DIR);
    return 1;
  }
  return 0;
}
