#include "sim/probes.h"

#include <memory>
#include <mutex>

#include "common/parallel.h"
#include "filters/filter.h"
#include "filters/filter_spec.h"
#include "hashing/remix.h"
#include "sim/keygen.h"

namespace filterlab::sim {

std::string ProbeSpec(const std::string& filter, double bpk, int probes) {
  std::string spec = filter + (filter.find(':') == std::string::npos ? ":" : ",") + "bpk=" + FormatNumber(bpk);
  if (probes > 0) spec += ",probes=" + std::to_string(probes);
  return spec;
}

Status SimulateProbes(const ProbeSimConfig& cfg, ProbeSimResult* result) {
  *result = ProbeSimResult();
  const size_t nk = cfg.candidates.size();
  std::vector<std::unique_ptr<FilterPolicy>> policies(nk);
  for (size_t i = 0; i < nk; ++i) {
    Status s = NewFilterPolicy(ProbeSpec(cfg.filter, cfg.bpk, cfg.candidates[i]), &policies[i]);
    if (!s.ok()) return Status::InvalidArgument("probes: " + s.message());
    result->specs.push_back(policies[i]->spec());
  }
  std::mutex mu;
  Status first_error;
  result->positives.assign(nk, 0);
  result->discordant.assign(nk, std::vector<uint64_t>(nk, 0));
  uint64_t total_bytes = 0;
  ParallelFor(cfg.filters, cfg.threads, [&](uint64_t f, int) {
    std::vector<uint64_t> added(cfg.keys);
    SplitMix64 add_rng(DeriveSeed(cfg.seed, Stream::kProbes, f, 0));
    for (auto& h : added) h = add_rng.Next();
    std::vector<std::unique_ptr<Filter>> filters(nk);
    for (size_t i = 0; i < nk; ++i) {
      Status s = policies[i]->Build(added.data(), added.size(), &filters[i]);
      if (!s.ok()) {
        std::lock_guard<std::mutex> lock(mu);
        first_error = s;
        return;
      }
    }
    const uint64_t q = cfg.queries / cfg.filters + (f < cfg.queries % cfg.filters ? 1 : 0);
    constexpr int kBuffer = 1024;
    uint64_t hashes[kBuffer];
    std::vector<std::vector<bool>> answers(nk, std::vector<bool>(kBuffer));
    bool results[kBuffer];
    std::vector<uint64_t> positives(nk, 0);
    std::vector<std::vector<uint64_t>> discordant(nk, std::vector<uint64_t>(nk, 0));
    SplitMix64 query_rng(DeriveSeed(cfg.seed, Stream::kProbes, f, 1));
    for (uint64_t done = 0; done < q;) {
      const int m = static_cast<int>(std::min<uint64_t>(kBuffer, q - done));
      for (int i = 0; i < m; ++i) hashes[i] = query_rng.Next();
      for (size_t c = 0; c < nk; ++c) {
        filters[c]->MayContainBatch(hashes, m, results);
        for (int i = 0; i < m; ++i) {
          answers[c][i] = results[i];
          positives[c] += results[i];
        }
      }
      // Positives are rare: only queries some candidate said yes to can be discordant.
      for (int i = 0; i < m; ++i) {
        bool any = false;
        for (size_t c = 0; c < nk; ++c) any |= answers[c][i];
        if (!any) continue;
        for (size_t a = 0; a < nk; ++a) {
          for (size_t b = 0; b < nk; ++b) discordant[a][b] += answers[a][i] && !answers[b][i];
        }
      }
      done += m;
    }
    std::lock_guard<std::mutex> lock(mu);
    total_bytes += filters[0]->DataBytes();
    for (size_t a = 0; a < nk; ++a) {
      result->positives[a] += positives[a];
      for (size_t b = 0; b < nk; ++b) result->discordant[a][b] += discordant[a][b];
    }
  });
  if (!first_error.ok()) return first_error;
  result->bits_per_key = 8.0 * static_cast<double>(total_bytes) / static_cast<double>(cfg.filters * cfg.keys);
  return Status::OK();
}

}  // namespace filterlab::sim
