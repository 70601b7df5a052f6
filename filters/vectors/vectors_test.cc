// Every reference-vector file in FILTERLAB_REFERENCE_DIR and its sibling
// vectors-modern/ (Ribbon, Parquet's split-block filter), checked through
// CheckVectorFile — the same code path as `filterlab-tool verify-vectors` —
// one test per file. A file of no registered kind, an unreadable file, a file
// with no cases and any failed case are all failures, so a new vector file
// is covered (or flagged) without touching this test.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "filters/vectors/vector_check.h"

namespace filterlab {
namespace {

std::vector<std::string> ReferenceVectorFiles() {
  std::vector<std::string> files;
  for (const std::string& dir :
       {std::string(FILTERLAB_REFERENCE_DIR), std::string(FILTERLAB_REFERENCE_DIR) + "/../vectors-modern"}) {
    std::error_code ec;
    for (const auto& entry : std::filesystem::directory_iterator(dir, ec)) {
      if (entry.path().extension() == ".json") files.push_back(entry.path().string());
    }
  }
  std::sort(files.begin(), files.end());
  return files;
}

TEST(ReferenceVectors, DirectoryHasVectorFiles) {
  EXPECT_FALSE(ReferenceVectorFiles().empty()) << "no *.json files in " << FILTERLAB_REFERENCE_DIR;
}

class ReferenceVectorFile : public ::testing::TestWithParam<std::string> {};

TEST_P(ReferenceVectorFile, EveryCasePasses) {
  std::string kind;
  std::vector<VectorCaseResult> results;
  const Status s = CheckVectorFile(GetParam(), &kind, &results);
  ASSERT_TRUE(s.ok()) << s.ToString();
  ASSERT_FALSE(results.empty()) << GetParam() << " [" << kind << "]: no cases";
  size_t failed = 0;
  for (const auto& r : results) {
    if (r.passed) continue;
    // Report the first few failures in full; the count says the rest.
    if (++failed <= 10) ADD_FAILURE() << "[" << kind << "] " << r.name << ": " << r.detail;
  }
  EXPECT_EQ(failed, 0u) << "of " << results.size() << " cases in " << GetParam() << " [" << kind << "]";
}

// Test names from file names: "rocksdb_hash32.json" -> "rocksdb_hash32".
std::string FileTestName(const ::testing::TestParamInfo<std::string>& info) {
  std::string name = std::filesystem::path(info.param).stem().string();
  for (char& c : name) {
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  }
  return name;
}

INSTANTIATE_TEST_SUITE_P(Files, ReferenceVectorFile, ::testing::ValuesIn(ReferenceVectorFiles()), FileTestName);
// An empty directory is reported by DirectoryHasVectorFiles.
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(ReferenceVectorFile);

// The checkers must be able to fail: each mutation below changes one value of
// a real vector file, and exactly `failures` cases must then fail (0 for a
// change inside the stated tolerance). Written to a temporary file and read
// back through CheckVectorFile, the same path as above.
struct Mutation {
  const char* file;
  const char* pointer;  // JSON pointer of the value to replace
  nlohmann::json value;
  size_t failures;
};

// Names the case in test output (the default prints the struct's raw bytes).
void PrintTo(const Mutation& m, std::ostream* os) { *os << m.file << m.pointer << " = " << m.value.dump(); }

class VectorCheckerMutation : public ::testing::TestWithParam<Mutation> {};

TEST_P(VectorCheckerMutation, FailsExactlyTheMutatedCase) {
  const Mutation& m = GetParam();
  const std::string source = std::string(FILTERLAB_REFERENCE_DIR) + "/" + m.file;
  std::ifstream in(source);
  ASSERT_TRUE(in) << "cannot open " << source;
  nlohmann::json doc = nlohmann::json::parse(in);
  doc[nlohmann::json::json_pointer(m.pointer)] = m.value;
  // ctest runs each case in its own process, in parallel: a per-process name
  // keeps two mutations of the same file from overwriting each other.
  const std::string mutated = ::testing::TempDir() + "/mutated_" + std::to_string(getpid()) + "_" +
                              std::filesystem::path(m.file).filename().string();
  std::ofstream(mutated) << doc.dump();

  std::string kind;
  std::vector<VectorCaseResult> results;
  const Status s = CheckVectorFile(mutated, &kind, &results);
  ASSERT_TRUE(s.ok()) << s.ToString();
  size_t failed = 0;
  for (const auto& r : results) failed += r.passed ? 0 : 1;
  EXPECT_EQ(failed, m.failures) << m.file << " " << m.pointer << " = " << m.value.dump();
  std::remove(mutated.c_str());
}

std::string MutationTestName(const ::testing::TestParamInfo<Mutation>& info) {
  std::string name = std::filesystem::path(info.param.file).stem().string() + info.param.pointer;
  for (char& c : name) {
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  }
  return name + "_" + std::to_string(info.index);
}

INSTANTIATE_TEST_SUITE_P(
    Kinds, VectorCheckerMutation,
    ::testing::Values(
        Mutation{"rocksdb_hash32.json", "/cases/0/xxph3_64", "2d06800538d394c2", 1},  // final XXH3's value
        Mutation{"rocksdb_hash32.json", "/cases/5/key_hex", "d6981fdf9f", 1},
        Mutation{"rocksdb_hash32.json", "/cases/7/bloom_hash32", "00000000", 1},
        Mutation{"rocksdb_hash32.json", "/cases/113/xxph3_64_seeded", "0000000000000000", 1},
        Mutation{"rocksdb_hash32.json", "/cases/50/seed", 1, 1},
        Mutation{"rocksdb_hash32.json", "/fields/xxph3_64_seeded", "Hash64(data, n, 42)", 1},  // whole file
        // fp_model: standard at b=1, k=1 is 0.6321205588285577.
        Mutation{"fp_model.json", "/rows/0/standard", 0.6321205588285577 * (1 + 5e-12), 1},
        Mutation{"fp_model.json", "/rows/0/standard", 0.6321205588285577 * (1 + 2e-13), 0},  // within 1e-12
        Mutation{"fp_model.json", "/rows/0/cache_local_1024", 0.6319, 1},
        Mutation{"fp_model.json", "/rows/0/extra_field", 1, 1}, Mutation{"fp_model.json", "/rows/1/kind", "mystery", 1},
        Mutation{"fp_model.json", "/rows/623/fastlocal_num_probes", 7, 1},
        Mutation{"fp_model.json", "/rows/623/legacy_bytes", 1344, 1},
        Mutation{"fp_model.json", "/rows/623/legacy_locality_est_fp", 0.012, 1},
        Mutation{"fp_model.json", "/rows/621/sum", 0.0095, 1}, Mutation{"fp_model.json", "/rows/613/fp", 0.00927, 1},
        // parquet_sbbf: the golden and a generated case at another block count, a query count, a key hash.
        Mutation{"../vectors-modern/parquet_sbbf.json", "/cases/0/num_blocks", 16, 1},
        Mutation{"../vectors-modern/parquet_sbbf.json", "/cases/30/num_blocks", 65, 1},
        Mutation{"../vectors-modern/parquet_sbbf.json", "/cases/17/query_positives", 166, 1},
        Mutation{"../vectors-modern/parquet_sbbf.json", "/cases/5/first_key_xxh64", "e48526ca7a7b269f", 1}),
    MutationTestName);

// The 114 cases of rocksdb_hash32.json, produced by RocksDB's own code: the
// legacy hash with both seeds, XXPH3 unseeded and seeded, libxxhash's XXH3.
TEST(RocksDBHashVectors, AllCasesMatch) {
  std::string kind;
  std::vector<VectorCaseResult> results;
  const Status s = CheckVectorFile(FILTERLAB_REFERENCE_DIR "/rocksdb_hash32.json", &kind, &results);
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ(kind, "rocksdb_hash32");
  EXPECT_EQ(results.size(), 114u);
  for (const auto& r : results) EXPECT_TRUE(r.passed) << r.name << ": " << r.detail;
}

}  // namespace
}  // namespace filterlab
