// `filterlab-tool parquet-blooms` (parquet_blooms.h).
#include "tools/parquet_blooms.h"

#include <bit>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "filters/fp_model.h"
#include "filters/split_block_bloom.h"
#include "tools/parquet_file.h"

namespace filterlab {
namespace {

using parquet::ColumnBloom;

void PrintParquetBloomsUsage(FILE* f) {
  std::fprintf(f,
               "usage: filterlab-tool parquet-blooms [--json] [--check-values FILE] FILE.parquet...\n"
               "Reads the split-block Bloom filters of Parquet files (footer ColumnMetaData\n"
               "bloom_filter_offset/length, each BloomFilterHeader and bitset). Per row group and column:\n"
               "bytes, blocks, share of bits set, the distinct values that fill implies, and the FP rate of\n"
               "an absent value (exact for the bitset, and the model's at the implied count).\n"
               "  --check-values FILE  (one Parquet file) the column values per row group, as\n"
               "                       `python -m analysis.parquet_blooms --check` writes them; builds our\n"
               "                       sbbf over them and compares the bitsets bit for bit\n"
               "  --json               one JSON object per filter instead of text\n"
               "Exit status 0 if every file was read (and every check identical), 1 otherwise, 2 on usage errors.\n");
}

struct Fill {
  double share_set = 0;    // bits set / all bits
  double implied_ndv = 0;  // D = -32 L ln(1 - f)
  double exact_fp = 0;     // mean over blocks of prod (popcount(word) / 32)
  double model_fp = 0;     // SplitBlockPoissonFpRate at 256 L / D
};

Fill FillOf(const std::string& bitset) {
  Fill f;
  const size_t blocks = bitset.size() / 32;
  uint64_t set = 0;
  double fp_sum = 0;
  for (size_t b = 0; b < blocks; ++b) {
    double block_fp = 1;
    for (int w = 0; w < 8; ++w) {
      uint32_t word = 0;
      std::memcpy(&word, bitset.data() + 32 * b + 4 * w, 4);
      const int bits = std::popcount(word);
      set += static_cast<uint64_t>(bits);
      block_fp *= bits / 32.0;
    }
    fp_sum += block_fp;
  }
  f.share_set = static_cast<double>(set) / (8.0 * static_cast<double>(bitset.size()));
  f.exact_fp = blocks > 0 ? fp_sum / static_cast<double>(blocks) : 0;
  const double L = static_cast<double>(blocks);
  f.implied_ndv = f.share_set < 1 ? -32.0 * L * std::log1p(-f.share_set) : INFINITY;
  f.model_fp = f.implied_ndv > 0 && std::isfinite(f.implied_ndv)
                   ? fpmodel::SplitBlockPoissonFpRate(256.0 * L / f.implied_ndv, 8)
                   : (f.implied_ndv > 0 ? 1.0 : 0.0);
  return f;
}

// (row group, column) -> values, from --check-values.
using Values = std::map<std::pair<uint32_t, uint32_t>, std::vector<std::string>>;

Status ReadValues(const std::string& path, Values* out) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Status::IOError(path + ": cannot open");
  const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (bytes.size() < 4 || bytes.compare(0, 4, "FLPV") != 0) {
    return Status::Corruption(path + ": not a values file (it must start with 'FLPV')");
  }
  size_t pos = 4;
  auto take = [&](void* dst, size_t n) {
    if (bytes.size() - pos < n) return false;
    std::memcpy(dst, bytes.data() + pos, n);
    pos += n;
    return true;
  };
  while (pos < bytes.size()) {
    uint32_t rg = 0, col = 0;
    uint64_t count = 0;
    if (!take(&rg, 4) || !take(&col, 4) || !take(&count, 8)) {
      return Status::Corruption(path + ": record header truncated at byte " + std::to_string(pos));
    }
    auto& list = (*out)[{rg, col}];
    for (uint64_t i = 0; i < count; ++i) {
      uint32_t len = 0;
      if (!take(&len, 4) || bytes.size() - pos < len) {
        return Status::Corruption(path + ": value " + std::to_string(i) + " of row group " + std::to_string(rg) +
                                  " column " + std::to_string(col) + " truncated");
      }
      list.emplace_back(bytes.data() + pos, len);
      pos += len;
    }
  }
  return Status::OK();
}

struct CheckResult {
  bool identical = false;
  uint64_t differing_bits = 0;
  uint64_t values = 0;
};

// Our sbbf over `values` with the file's block count, against the file's bitset.
CheckResult Check(const ColumnBloom& c, const std::vector<std::string>& values) {
  std::unique_ptr<FilterPolicy> policy;
  NewFilterPolicy("sbbf:bpk=10", &policy);  // for its HashKey: XXH64 of the bytes, seed 0 (Parquet's)
  std::vector<uint64_t> hashes;
  hashes.reserve(values.size());
  for (const std::string& v : values) hashes.push_back(policy->HashKey(v));
  const auto blocks = static_cast<uint32_t>(c.bitset.size() / 32);
  const std::string ours = sbbf::NewSplitBlockBloom(hashes.data(), hashes.size(), blocks)->Serialize();
  CheckResult r;
  r.values = values.size();
  for (size_t i = 0; i < c.bitset.size() && i < ours.size(); ++i) {
    r.differing_bits += static_cast<uint64_t>(std::popcount(static_cast<uint8_t>(c.bitset[i] ^ ours[i])));
  }
  r.identical = r.differing_bits == 0 && ours.size() >= c.bitset.size();
  return r;
}

}  // namespace

int RunParquetBlooms(int argc, char** argv) {
  std::vector<std::string> files;
  std::string values_path;
  bool json = false;
  for (int i = 0; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--help" || a == "-h") {
      PrintParquetBloomsUsage(stdout);
      return 0;
    } else if (a == "--json") {
      json = true;
    } else if (a == "--check-values" && i + 1 < argc) {
      values_path = argv[++i];
    } else if (a.rfind("--check-values=", 0) == 0) {
      values_path = a.substr(15);
    } else if (a.rfind("--", 0) == 0) {
      std::fprintf(stderr, "parquet-blooms: unknown flag '%s' (allowed: --json, --check-values FILE)\n", a.c_str());
      return 2;
    } else {
      files.push_back(a);
    }
  }
  if (files.empty()) {
    std::fprintf(stderr, "parquet-blooms: give one or more Parquet files\n");
    PrintParquetBloomsUsage(stderr);
    return 2;
  }
  if (!values_path.empty() && files.size() != 1) {
    std::fprintf(stderr, "parquet-blooms: --check-values holds one file's values; give one Parquet file\n");
    return 2;
  }
  Values values;
  if (!values_path.empty()) {
    const Status s = ReadValues(values_path, &values);
    if (!s.ok()) {
      std::fprintf(stderr, "parquet-blooms: %s\n", s.ToString().c_str());
      return 2;
    }
  }
  int exit_code = 0;
  uint64_t checked = 0, identical = 0;
  for (const std::string& path : files) {
    parquet::ParquetBlooms file;
    const Status s = parquet::ReadParquetBlooms(path, &file);
    if (!s.ok()) {
      if (json) {
        std::printf("%s\n", nlohmann::ordered_json{{"file", path}, {"error", s.ToString()}}.dump().c_str());
      } else {
        std::printf("%s: ERROR %s\n", path.c_str(), s.ToString().c_str());
      }
      exit_code = 1;
      continue;
    }
    size_t with_filter = 0;
    for (const ColumnBloom& c : file.columns) with_filter += c.has_filter ? 1 : 0;
    if (!json) {
      std::printf("%s: %d row groups, %lld rows, %zu of %zu column chunks with a Bloom filter (written by %s)\n",
                  path.c_str(), file.num_row_groups, static_cast<long long>(file.num_rows), with_filter,
                  file.columns.size(), file.created_by.empty() ? "?" : file.created_by.c_str());
    }
    for (const ColumnBloom& c : file.columns) {
      if (!c.has_filter) continue;
      const Fill f = FillOf(c.bitset);
      nlohmann::ordered_json rec = {{"file", path},
                                    {"row_group", c.row_group},
                                    {"column", c.path},
                                    {"type", parquet::PhysicalTypeName(c.type)},
                                    {"num_values", c.num_values},
                                    {"offset", c.offset},
                                    {"bytes", c.bitset.size()},
                                    {"blocks", c.bitset.size() / 32},
                                    {"share_set", f.share_set},
                                    {"implied_ndv", std::isfinite(f.implied_ndv) ? nlohmann::ordered_json(f.implied_ndv)
                                                                                 : nlohmann::ordered_json(nullptr)},
                                    {"exact_fp", f.exact_fp},
                                    {"model_fp", f.model_fp}};
      std::string check_text;
      if (!values_path.empty()) {
        const auto it = values.find({static_cast<uint32_t>(c.row_group), static_cast<uint32_t>(c.column)});
        if (it == values.end()) {
          rec["check"] = "no values given";
          check_text = "; check: no values given";
          exit_code = 1;
        } else {
          const CheckResult r = Check(c, it->second);
          ++checked;
          identical += r.identical ? 1 : 0;
          rec["check"] = r.identical ? "identical" : "different";
          rec["check_values"] = r.values;
          rec["differing_bits"] = r.differing_bits;
          check_text = r.identical ? "; our sbbf over " + std::to_string(r.values) + " values: bit for bit identical"
                                   : "; our sbbf over " + std::to_string(r.values) +
                                         " values: " + std::to_string(r.differing_bits) + " bits differ";
          if (!r.identical) exit_code = 1;
        }
      }
      if (json) {
        std::printf("%s\n", rec.dump().c_str());
      } else {
        std::printf(
            "  row group %d '%s' (%s): %zu bytes, %zu blocks, %.4f of bits set, implied ndv %.0f, "
            "FP %.3g (model %.3g)%s\n",
            c.row_group, c.path.c_str(), parquet::PhysicalTypeName(c.type), c.bitset.size(), c.bitset.size() / 32,
            f.share_set, f.implied_ndv, f.exact_fp, f.model_fp, check_text.c_str());
      }
    }
  }
  if (!values_path.empty() && !json) {
    std::printf("%llu passed, %llu failed\n", static_cast<unsigned long long>(identical),
                static_cast<unsigned long long>(checked - identical));
  }
  return exit_code;
}

}  // namespace filterlab
