// Helpers shared by the DB tests: a scratch directory removed at the end,
// deterministic keys and values, a std::map model of the database, and the
// size scale for sanitized builds.
#pragma once

#include <dirent.h>
#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>
#include <vector>

#include "engine/db/db.h"
#include "engine/db/db_files.h"

namespace filterlab::engine::test {

// Seconds a soak test keeps going past its fixed rounds: FILTERLAB_SOAK_SECONDS, 0 when unset.
inline double SoakSeconds() {
  const char* v = std::getenv("FILTERLAB_SOAK_SECONDS");
  return v != nullptr ? std::atof(v) : 0;
}

#ifdef FILTERLAB_SANITIZED
inline constexpr int kScale = 10;  // sanitizers check memory safety; sizes shrink 10x
#else
inline constexpr int kScale = 1;
#endif

// A fresh empty directory under $TMPDIR (or /tmp), deleted with its files.
// in_memory: under /dev/shm when it exists, for tests that open thousands
// of damaged copies and test the logic, not the disk.
class ScratchDir {
 public:
  explicit ScratchDir(bool in_memory = false) {
    const char* base = std::getenv("TMPDIR");
    std::string root = base && *base ? base : "/tmp";
    struct stat st;
    if (in_memory && ::stat("/dev/shm", &st) == 0 && S_ISDIR(st.st_mode) && ::access("/dev/shm", W_OK) == 0) {
      root = "/dev/shm";
    }
    std::string pattern = root + "/filterlab_db_XXXXXX";
    std::vector<char> buf(pattern.begin(), pattern.end());
    buf.push_back('\0');
    if (::mkdtemp(buf.data()) != nullptr) path_ = buf.data();
  }
  ~ScratchDir() { RemoveTree(path_); }
  const std::string& path() const { return path_; }
  // A DB directory inside (not yet created).
  std::string db() const { return path_ + "/db"; }

  static void RemoveTree(const std::string& path) {
    if (path.empty()) return;
    std::vector<std::string> names;
    if (Env::Default()->GetChildren(path, &names).ok()) {
      for (const auto& n : names) {
        const std::string p = path + "/" + n;
        struct stat st;
        if (::lstat(p.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) {
          RemoveTree(p);
        } else {
          ::unlink(p.c_str());
        }
      }
    }
    ::rmdir(path.c_str());
  }

 private:
  std::string path_;
};

// Options that make many flushes and compactions happen on little data.
// Tests that care about the synced path set disable_data_sync back to false.
// The policy of a filter spec ("none": nullptr) for a test's Options.
inline std::shared_ptr<const FilterPolicy> Policy(const std::string& spec) {
  std::shared_ptr<const FilterPolicy> policy;
  const Status s = FilterPolicyFromSpec(spec, &policy);
  EXPECT_TRUE(s.ok()) << spec << ": " << s.ToString();
  return policy;
}

inline Options SmallOptions() {
  Options o;
  o.create_if_missing = true;
  o.write_buffer_size = 16 << 10;
  o.max_write_buffer_number = 4;
  o.max_bytes_for_level_base = 64 << 10;
  o.target_file_size = 16 << 10;
  o.level0_file_num_compaction_trigger = 2;
  o.level0_slowdown_writes_trigger = 8;
  o.level0_stop_writes_trigger = 12;
  o.block_size = 512;
  o.block_cache_bytes = 256 << 10;
  o.filter_policy = Policy("fastlocal:bpk=10");
  o.info_log = [](const std::string&) {};
  // Process-crash safety is unaffected; the fsyncs would dominate test time.
  o.disable_data_sync = true;
  return o;
}

inline std::string Key(uint64_t i) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "key%08llu", static_cast<unsigned long long>(i));
  return buf;
}

// A value that encodes its key and version, of varying length.
inline std::string Value(uint64_t key, uint64_t version, size_t min_len = 8) {
  // Appended piece by piece: GCC 12 warns (-Wrestrict, a false positive) on "v" + to_string(...) when inlined.
  std::string v = "v";
  v += std::to_string(key);
  v += '.';
  v += std::to_string(version);
  v += ':';
  const size_t len = min_len + (key * 7 + version * 13) % 40;
  while (v.size() < len) v.push_back(static_cast<char>('a' + (v.size() + key) % 26));
  return v;
}

// Every (key, value) an iterator yields.
inline std::vector<std::pair<std::string, std::string>> ScanAll(DB* db, const ReadOptions& ro = ReadOptions()) {
  std::vector<std::pair<std::string, std::string>> out;
  auto it = db->NewIterator(ro);
  for (it->SeekToFirst(); it->Valid(); it->Next()) out.emplace_back(it->key().ToString(), it->value().ToString());
  if (!it->status().ok()) out.emplace_back("<error>", it->status().ToString());
  return out;
}

// Names and contents of every file in a directory, to show nothing changed.
inline std::map<std::string, std::string> DirContents(const std::string& dir) {
  std::map<std::string, std::string> out;
  std::vector<std::string> names;
  if (!Env::Default()->GetChildren(dir, &names).ok()) return out;
  for (const auto& n : names) {
    std::string c;
    if (ReadFileToString(Env::Default(), dir + "/" + n, &c).ok()) out[n] = c;
  }
  return out;
}

}  // namespace filterlab::engine::test
