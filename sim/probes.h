// Probe-count search by simulation (`filterlab-sim probes`). For a given bits
// per key, filters with each candidate probe count are built from the SAME
// added hashes and asked the SAME queries (common random numbers), so the
// difference between two probe counts is measured on paired answers: only
// the discordant queries (one says yes, the other no) carry information, and
// the paired interval (stats.h) is far tighter than two separate intervals.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/status.h"

namespace filterlab::sim {

struct ProbeSimConfig {
  // A spec without bpk and probes (e.g. "fastlocal", "cache_dbl:hash=32");
  // each candidate is ProbeSpec(filter, bpk, probes).
  std::string filter = "fastlocal";
  double bpk = 10;
  std::vector<int> candidates;
  uint64_t keys = 100000;  // per filter
  uint64_t filters = 16;
  uint64_t queries = 10000000;  // total
  int threads = 1;
  uint64_t seed = 0;
};

struct ProbeSimResult {
  std::vector<std::string> specs;   // canonical spec per candidate
  std::vector<uint64_t> positives;  // per candidate
  // discordant[i][j] = queries candidate i answered yes and candidate j no.
  std::vector<std::vector<uint64_t>> discordant;
  double bits_per_key = 0;  // actual
};

// `filter` (a spec without bpk and probes) at `bpk` bits/key and, when
// probes > 0, that many probes; the result is not validated.
std::string ProbeSpec(const std::string& filter, double bpk, int probes = 0);

Status SimulateProbes(const ProbeSimConfig& config, ProbeSimResult* result);

}  // namespace filterlab::sim
