// `filterlab-tool sst-filters`: the filters of RocksDB SST files (sst_filters.h).
#include "tools/sst_filters.h"

#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "hashing/remix.h"
#include "tools/rocksdb_sst.h"

namespace filterlab {
namespace {

using rocksdb_sst::FilterBlock;
using rocksdb_sst::SstFile;

void PrintSstFiltersUsage(FILE* f) {
  std::fprintf(f,
               "usage: filterlab-tool sst-filters [--keys FILE | --sample N [--seed S]] [--json] FILE.sst...\n"
               "Reads the filters of RocksDB block-based SST files: footer, metaindex, properties, the full\n"
               "filter block or the partitioned filter (its index and partitions). Per file: format_version,\n"
               "checksum type, filter kind and the writer's policy name; per filter block: its format\n"
               "(legacy Bloom, FastLocalBloom, Ribbon, or a filterlab adapter spec), layout (probes, or\n"
               "Ribbon's blocks and seed), bytes, entries and bits/key.\n"
               "  --keys FILE   measure FP with these absent keys (one per line), as RocksDB's Get asks\n"
               "                the filter (whole keys, or prefixes when the table filters prefixes)\n"
               "  --sample N    measure FP with N random keys of the table's mean user-key length (in a\n"
               "                partitioned filter: inside partitions drawn by their share of entries)\n"
               "  --seed S      seed of --sample's keys (default 1)\n"
               "  --json        one JSON object per file instead of text\n"
               "Exit status 0 if every file was read, 1 if any was not (its error is printed), 2 on usage errors.\n");
}

std::string Format(const FilterBlock& b) {
  const std::string& s = b.filter.spec;
  if (s == "rocksdb:legacy") return "legacy Bloom";
  if (s == "rocksdb:fastlocal") return "FastLocalBloom";
  if (s == "rocksdb:ribbon") return "Ribbon (Standard128)";
  if (s == "rocksdb:always_false") return "always-false (no entries)";
  if (s == "rocksdb:always_true") return "always-true";
  return "filterlab adapter: " + s;
}

// Entries of each block: the table's filter entries, apportioned to
// partitions by their bytes (RocksDB cuts partitions by key count, so
// bytes follow keys; the file stores no per-partition count).
std::vector<double> EntriesPerBlock(const SstFile& f, uint64_t total) {
  std::vector<double> out;
  double bytes = 0;
  for (const FilterBlock& b : f.filters()) bytes += static_cast<double>(b.bytes.size());
  for (const FilterBlock& b : f.filters()) {
    out.push_back(bytes > 0 ? static_cast<double>(total) * static_cast<double>(b.bytes.size()) / bytes : 0);
  }
  return out;
}

struct FpMeasure {
  uint64_t queries = 0;  // keys the filter was consulted for
  uint64_t skipped = 0;  // keys outside the prefix extractor's domain
  uint64_t positives = 0;
  double expected = 0;  // sum of the models' p over the queries
  double variance = 0;  // sum of p (1 - p)
};

int Run(const std::vector<std::string>& files, const std::string& keys_file, uint64_t sample, uint64_t seed,
        bool json) {
  std::vector<std::string> keys;
  if (!keys_file.empty()) {
    std::ifstream in(keys_file);
    if (!in) {
      std::fprintf(stderr, "sst-filters: cannot open --keys file '%s'\n", keys_file.c_str());
      return 2;
    }
    for (std::string line; std::getline(in, line);) keys.push_back(line);
  }
  int exit_code = 0;
  for (const std::string& path : files) {
    std::unique_ptr<SstFile> f;
    Status s = SstFile::Open(path, &f);
    if (!s.ok()) {
      if (json) {
        std::printf("%s\n", nlohmann::ordered_json{{"file", path}, {"error", s.ToString()}}.dump().c_str());
      } else {
        std::printf("%s: ERROR %s\n", path.c_str(), s.ToString().c_str());
      }
      exit_code = 1;
      continue;
    }
    uint64_t entries = 0, num_entries = 0, raw_key_size = 0;
    const bool have_entries = f->PropertyInt("rocksdb.num.filter_entries", &entries);
    f->PropertyInt("rocksdb.num.entries", &num_entries);
    f->PropertyInt("rocksdb.raw.key.size", &raw_key_size);
    if (!have_entries) entries = num_entries;  // before RocksDB 6.x wrote num.filter_entries
    const std::vector<double> per_block = EntriesPerBlock(*f, entries);
    nlohmann::ordered_json rec;
    rec["file"] = path;
    rec["format_version"] = f->format_version();
    rec["checksum_type"] = f->checksum_type();
    rec["filter"] = f->filter_kind();
    rec["filter_policy"] = f->filter_policy_name();
    rec["whole_key_filtering"] = f->whole_key_filtering();
    rec["prefix_extractor"] = f->prefix_extractor();
    rec["entries"] = entries;
    rec["entries_source"] = have_entries ? "rocksdb.num.filter_entries" : "rocksdb.num.entries";
    uint64_t filter_bytes = 0;
    nlohmann::ordered_json blocks = nlohmann::ordered_json::array();
    std::vector<double> model(f->filters().size());
    for (size_t i = 0; i < f->filters().size(); ++i) {
      const FilterBlock& b = f->filters()[i];
      filter_bytes += b.bytes.size();
      std::string model_text;
      model[i] = rocksdb_sst::BlockModelFpRate(b, static_cast<uint64_t>(std::llround(per_block[i])), &model_text);
      nlohmann::ordered_json jb = {
          {"format", Format(b)},       {"layout", b.filter.filter->Describe()},
          {"offset", b.handle.offset}, {"bytes", b.bytes.size()},
          {"entries", per_block[i]},   {"bits_per_key", per_block[i] > 0 ? 8.0 * b.bytes.size() / per_block[i] : 0},
          {"model_fp", model[i]},      {"model", model_text}};
      if (f->filter_kind() == "partitioned") jb["separator"] = b.separator;
      blocks.push_back(std::move(jb));
    }
    rec["filter_bytes"] = filter_bytes;
    rec["bits_per_key"] = entries > 0 ? 8.0 * static_cast<double>(filter_bytes) / static_cast<double>(entries) : 0;
    rec["blocks"] = blocks;

    // FP against absent keys.
    std::vector<std::string> queries = keys;
    if (sample > 0 && !f->filters().empty()) {
      const uint64_t key_len =
          num_entries > 0 && raw_key_size / num_entries > 8 ? raw_key_size / num_entries - 8 : uint64_t{16};
      SplitMix64 rng(seed);
      queries.reserve(queries.size() + sample);
      const auto& blocks = f->filters();
      for (uint64_t q = 0; q < sample; ++q) {
        std::string k(key_len, '\0');
        rng.FillBytes(k.data(), k.size());
        if (blocks.size() > 1) {
          // Partitioned: a partition drawn by its share of the entries, and a
          // key inside its range (just above the previous separator), so the
          // queries spread over partitions as a table's own keys do instead
          // of piling into the first and last (random bytes mostly sort
          // before or after every key).
          const double u = static_cast<double>(rng.Next() >> 11) * 0x1.0p-53 * static_cast<double>(entries);
          size_t i = 0;
          for (double acc = per_block[0]; i + 1 < blocks.size() && acc <= u; acc += per_block[++i]) {
          }
          std::string candidate = (i == 0 ? std::string() : blocks[i - 1].separator) + k.substr(0, 8);
          if (f->FilterFor(candidate) == &blocks[i]) k = std::move(candidate);
        }
        queries.push_back(std::move(k));
      }
    }
    if (!queries.empty() && !f->filters().empty()) {
      std::map<const FilterBlock*, size_t> index;
      for (size_t i = 0; i < f->filters().size(); ++i) index[&f->filters()[i]] = i;
      FpMeasure m;
      for (const std::string& k : queries) {
        if (!f->FilterApplies(k)) {
          ++m.skipped;
          continue;
        }
        const double p = model[index[f->FilterFor(k)]];
        ++m.queries;
        m.positives += f->KeyMayMatch(k) ? 1 : 0;
        m.expected += p;
        m.variance += p * (1 - p);
      }
      nlohmann::ordered_json fp;
      fp["queries"] = m.queries;
      fp["outside_prefix_domain"] = m.skipped;
      fp["positives"] = m.positives;
      if (m.queries > 0) {
        const double q = static_cast<double>(m.queries);
        fp["fp"] = static_cast<double>(m.positives) / q;
        fp["model_fp"] = m.expected / q;
        fp["sigma"] = std::sqrt(m.variance) / q;
        fp["z"] = m.variance > 0 ? (static_cast<double>(m.positives) - m.expected) / std::sqrt(m.variance) : 0.0;
      }
      fp["source"] = keys_file.empty() ? "random keys (--sample)" : "--keys " + keys_file;
      rec["fp"] = fp;
    }

    if (json) {
      std::printf("%s\n", rec.dump().c_str());
      continue;
    }
    std::printf("%s: format_version %u, checksum type %d, %s filter", path.c_str(), f->format_version(),
                f->checksum_type(), f->filter_kind().c_str());
    if (f->filters().empty()) {
      std::printf("\n");
      continue;
    }
    std::printf(" '%s' (%s), %llu entries (%s), %llu bytes, %.3f bits/key\n", f->filter_policy_name().c_str(),
                f->whole_key_filtering() ? "whole keys" : ("prefixes of " + f->prefix_extractor()).c_str(),
                static_cast<unsigned long long>(entries), rec["entries_source"].get<std::string>().c_str(),
                static_cast<unsigned long long>(filter_bytes), rec["bits_per_key"].get<double>());
    for (size_t i = 0; i < f->filters().size(); ++i) {
      const auto& jb = blocks[i];
      std::printf("  %s%s: %s, %s, %llu bytes, ~%.0f entries, %.3f bits/key, model FP %.6g\n",
                  f->filter_kind() == "partitioned" ? "partition " : "block",
                  f->filter_kind() == "partitioned" ? std::to_string(i).c_str() : "",
                  jb["format"].get<std::string>().c_str(), jb["layout"].get<std::string>().c_str(),
                  static_cast<unsigned long long>(jb["bytes"].get<uint64_t>()), jb["entries"].get<double>(),
                  jb["bits_per_key"].get<double>(), jb["model_fp"].get<double>());
    }
    if (rec.contains("fp")) {
      const auto& fp = rec["fp"];
      if (fp["queries"].get<uint64_t>() == 0) {
        std::printf("  FP: no key was in the filter's domain (%llu outside the prefix extractor's)\n",
                    static_cast<unsigned long long>(fp["outside_prefix_domain"].get<uint64_t>()));
      } else {
        std::printf("  FP: %llu of %llu absent keys passed: %.6f; model %.6f (sigma %.2g, z %+.2f); %s\n",
                    static_cast<unsigned long long>(fp["positives"].get<uint64_t>()),
                    static_cast<unsigned long long>(fp["queries"].get<uint64_t>()), fp["fp"].get<double>(),
                    fp["model_fp"].get<double>(), fp["sigma"].get<double>(), fp["z"].get<double>(),
                    fp["source"].get<std::string>().c_str());
      }
    }
  }
  return exit_code;
}

}  // namespace

int RunSstFilters(int argc, char** argv) {
  std::vector<std::string> files;
  std::string keys_file;
  uint64_t sample = 0, seed = 1;
  bool json = false;
  for (int i = 0; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&](const char* flag, std::string* out) {
      const std::string eq = std::string(flag) + "=";
      if (a.rfind(eq, 0) == 0) {
        *out = a.substr(eq.size());
        return true;
      }
      if (a == flag && i + 1 < argc) {
        *out = argv[++i];
        return true;
      }
      return false;
    };
    std::string v;
    if (a == "--help" || a == "-h") {
      PrintSstFiltersUsage(stdout);
      return 0;
    } else if (a == "--json") {
      json = true;
    } else if (value("--keys", &keys_file)) {
    } else if (value("--sample", &v) || value("--seed", &v)) {
      char* end = nullptr;
      const unsigned long long n = std::strtoull(v.c_str(), &end, 10);
      if (v.empty() || *end != '\0' || v[0] == '-') {
        std::fprintf(stderr, "sst-filters: %s needs a whole number >= 0, got '%s'\n",
                     a.rfind("--seed", 0) == 0 ? "--seed" : "--sample", v.c_str());
        return 2;
      }
      (a.rfind("--seed", 0) == 0 ? seed : sample) = n;
    } else if (a.rfind("--", 0) == 0) {
      std::fprintf(stderr, "sst-filters: unknown flag '%s' (allowed: --keys FILE, --sample N, --seed S, --json)\n",
                   a.c_str());
      return 2;
    } else {
      files.push_back(a);
    }
  }
  if (files.empty()) {
    std::fprintf(stderr, "sst-filters: give one or more SST files\n");
    PrintSstFiltersUsage(stderr);
    return 2;
  }
  if (!keys_file.empty() && sample > 0) {
    std::fprintf(stderr, "sst-filters: --keys and --sample are alternatives; give one\n");
    return 2;
  }
  return Run(files, keys_file, sample, seed, json);
}

}  // namespace filterlab
