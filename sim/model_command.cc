// `filterlab-sim model`: analytic FP rates from filters/fp_model.h over a grid
// of models x bits/key x probes x keys x hash widths, and the policy's own
// ModelFpRate for --filter specs. One JSON line per configuration.
#include <cmath>
#include <exception>
#include <functional>
#include <memory>
#include <vector>

#include "filters/filter.h"
#include "filters/fp_model.h"
#include "sim/commands.h"
#include "common/flags.h"
#include "common/number_list.h"

namespace filterlab::sim {
namespace {

// The smallest power of two >= x (x >= 1).
int RoundUpPow2(int x) {
  int p = 1;
  while (p < x) p <<= 1;
  return p;
}

// Probe count that minimises the standard Bloom estimate: round(b ln 2), >= 1.
int OptimalStandardProbes(double bpk) { return std::max(1, static_cast<int>(std::lround(bpk * std::log(2.0)))); }

struct ModelPoint {
  double distinct_hashes;      // D = DistinctHashes(keys, hash_bits): what the filter holds
  double without_fingerprint;  // the layout's own term for D hashes in bpk * keys bits
  double fingerprint;          // D / 2^hash_bits: the query's hash is a stored one
  double fp;                   // fingerprint + (1 - fingerprint) * without_fingerprint
  double rocksdb_fp;           // legacy, fastlocal: RocksDB's own EstimatedFpRate; else < 0
  int block_bits;
};

// Returns false with *why when the model does not apply to these parameters.
bool Evaluate(const std::string& model, double bpk, int k, double keys, int hash_bits, int block_bits,
              ModelPoint* p, std::string* why) {
  using namespace fpmodel;
  p->block_bits = 0;
  p->rocksdb_fp = -1;
  const double bits = bpk * keys;
  // The layout's FP rate for d distinct hashes in `bits` bits.
  std::function<double(double)> layout;
  if (model == "standard") {
    layout = [&](double d) { return StandardFpRate(bits / d, k); };
  } else if (model == "standard_exact") {
    layout = [&](double d) { return StandardFpRateExact(bits, d, k); };
  } else if (model == "cache_local") {
    p->block_bits = block_bits;
    layout = [&](double d) { return CacheLocalPoissonFpRate(bits / d, k, block_bits); };
  } else if (model == "cache_local_shortcut") {
    p->block_bits = block_bits;
    layout = [&](double d) { return CacheLocalFpRate(bits / d, k, block_bits); };
  } else if (model == "two_per_word") {
    if (k % 2 != 0) {
      *why = "two_per_word needs an even probe count (two probes per 64-bit word)";
      return false;
    }
    const int words = k / 2;
    p->block_bits = 64 * RoundUpPow2(words);
    layout = [&, words](double d) { return TwoPerWordPoissonFpRate(bits / d, words, RoundUpPow2(words)); };
  } else if (model == "legacy") {
    // RocksDB's legacy estimate's layout part; the filter is 32-bit only.
    p->block_bits = 512;
    hash_bits = 32;
    layout = [&](double d) { return LegacyLocalityFpRate(bits / d, k); };
  } else if (model == "fastlocal") {
    // RocksDB's FastLocal estimate's layout part, the two-point shortcut.
    p->block_bits = 512;
    layout = [&](double d) { return CacheLocalFpRate(bits / d, k, 512); };
  }
  try {
    if (model == "legacy") p->rocksdb_fp = LegacyLocalityEstimatedFpRate(keys, bits / 8.0, k);
    if (model == "fastlocal") p->rocksdb_fp = FastLocalEstimatedFpRate(keys, bits / 8.0, k, hash_bits);
    p->distinct_hashes = DistinctHashes(keys, hash_bits);
    p->fingerprint = std::ldexp(p->distinct_hashes, -hash_bits);
    // NarrowHashFpRate calls the layout once, with D: keep that term too.
    p->fp = NarrowHashFpRate(keys, hash_bits, [&](double d) { return p->without_fingerprint = layout(d); });
  } catch (const std::exception& e) {
    // E.g. so few keys per block at D that the model's domain ends.
    *why = e.what();
    return false;
  }
  return true;
}

}  // namespace

Status ModelCommand(int argc, char** argv, const Emit& emit, std::string* help) {
  FlagSet flags("model",
                "Analytic FP rates (filters/fp_model.h). Models: standard (1-e^{-k/b})^k; standard_exact\n"
                "(1-(1-1/m)^{kn})^k; cache_local (exact Poisson mixture over keys per B-bit block);\n"
                "cache_local_shortcut (RocksDB's mu+-sigma two-point average); two_per_word (two probes per\n"
                "64-bit word in a group of roundup_pow2(k/2) words, exact Poisson mixture); legacy and\n"
                "fastlocal (the layout parts of RocksDB's EstimatedFpRate; RocksDB's own estimate is printed\n"
                "as rocksdb_fp). The n keys' --hash_bits hashes leave D distinct ones (distinct_hashes); each\n"
                "model is taken for D hashes in bpk*n bits (layout_fp) and combined with the chance D/2^bits\n"
                "that a query's hash is one of them (fingerprint_fp): model_fp = fingerprint_fp + (1 -\n"
                "fingerprint_fp) * layout_fp, as in ModelFpRate. With --filter, prints the policy's own\n"
                "ModelFpRate(keys) instead of the grid. One JSON line per configuration.");
  std::vector<std::string> models, specs;
  std::string bpk_text, probes_text, keys_text, hash_text;
  long long block_bits = 0;
  flags.List("model", "model name (repeatable): standard|standard_exact|cache_local|cache_local_shortcut|"
             "two_per_word|legacy|fastlocal (default: all)", &models);
  flags.String("bpk", "10", "bits per key: a list 6,10,16 or a range 1:60:0.5 (0.5..1000)", &bpk_text);
  flags.String("probes", "auto", "probes: a list, a range, or auto (round(b ln 2)) (1..64)", &probes_text);
  flags.String("keys", "1000000", "keys: list or range (1..1e13); the models depend on it through the "
               "distinct hashes (and standard_exact through m)", &keys_text);
  flags.String("hash_bits", "64", "hash width(s): 32, 64 or 32,64", &hash_text);
  flags.Int("block_bits", 512, 64, 65536, "block size B in bits for cache_local models", &block_bits);
  flags.List("filter", "filter spec; prints its policy's ModelFpRate(keys) for each --keys value", &specs);
  Status s = flags.Parse(argc, argv);
  if (!s.ok()) return s;
  if (flags.Answered(help)) return Status::OK();
  std::vector<double> keys_list, hash_list, bpk_list, probes_list;
  if (!(s = ParseNumberList("keys", keys_text, 1, 1e13, &keys_list)).ok()) return s;

  if (!specs.empty()) {
    for (const auto& spec : specs) {
      std::unique_ptr<FilterPolicy> policy;
      s = NewFilterPolicy(spec, &policy);
      if (!s.ok()) return Status::InvalidArgument("--filter: " + s.message());
      for (double keys : keys_list) {
        JsonRecord j;
        j["command"] = "model";
        j["filter"] = policy->spec();
        j["filter_arg"] = spec;
        j["variant"] = std::string(policy->variant());
        j["bits_per_key"] = policy->bits_per_key();
        j["probes"] = JsonOrNull(policy->num_probes());
        j["keys"] = static_cast<uint64_t>(keys);
        j["hash_bits"] = static_cast<int>(policy->hash_width());
        j["model"] = "policy";
        j["model_fp"] = policy->ModelFpRate(static_cast<size_t>(keys));
        emit(j);
      }
    }
    return Status::OK();
  }

  static const char* kModels[] = {"standard", "standard_exact", "cache_local", "cache_local_shortcut",
                                  "two_per_word", "legacy", "fastlocal"};
  if (models.empty()) models.assign(std::begin(kModels), std::end(kModels));
  for (const auto& m : models) {
    bool known = false;
    for (const char* k : kModels) known |= m == k;
    if (!known) {
      return Status::InvalidArgument("--model=" + m + ": unknown model; allowed: standard|standard_exact|"
                                     "cache_local|cache_local_shortcut|two_per_word|legacy|fastlocal");
    }
  }
  if (!(s = ParseNumberList("bpk", bpk_text, 0.5, 1000, &bpk_list)).ok()) return s;
  const bool auto_probes = probes_text == "auto";
  if (!auto_probes && !(s = ParseNumberList("probes", probes_text, 1, 64, &probes_list)).ok()) return s;
  if (!(s = ParseNumberList("hash_bits", hash_text, 32, 64, &hash_list)).ok()) return s;
  for (double h : hash_list) {
    if (h != 32 && h != 64) return Status::InvalidArgument("--hash_bits=" + hash_text + ": allowed: 32, 64 or 32,64");
  }
  for (double pk : probes_list) {
    if (pk != std::floor(pk)) return Status::InvalidArgument("--probes=" + probes_text + ": probes must be integers");
  }

  for (const auto& model : models) {
    for (double bpk : bpk_list) {
      std::vector<int> ks;
      if (auto_probes) {
        ks.push_back(OptimalStandardProbes(bpk));
      } else {
        for (double pk : probes_list) ks.push_back(static_cast<int>(pk));
      }
      for (int k : ks) {
        for (double keys : keys_list) {
          for (double hb : hash_list) {
            if (model == "legacy" && hb != 32 && hash_list.size() > 1) continue;  // legacy is 32-bit only
            ModelPoint p{};
            std::string why;
            if (!Evaluate(model, bpk, k, keys, static_cast<int>(hb), static_cast<int>(block_bits), &p, &why)) {
              if (models.size() == 1) return Status::InvalidArgument("--model " + model + " --probes " + std::to_string(k) + ": " + why);
              continue;  // a sweep over several models skips the configurations a model does not cover
            }
            JsonRecord j;
            j["command"] = "model";
            j["model"] = model;
            j["bits_per_key"] = bpk;
            j["probes"] = k;
            j["keys"] = static_cast<uint64_t>(keys);
            j["hash_bits"] = model == "legacy" ? 32 : static_cast<int>(hb);
            if (p.block_bits) j["block_bits"] = p.block_bits;
            j["distinct_hashes"] = p.distinct_hashes;
            j["layout_fp"] = p.without_fingerprint;
            j["fingerprint_fp"] = p.fingerprint;
            j["model_fp"] = p.fp;
            if (p.rocksdb_fp >= 0) j["rocksdb_fp"] = p.rocksdb_fp;
            emit(j);
          }
        }
      }
    }
  }
  return Status::OK();
}

}  // namespace filterlab::sim
