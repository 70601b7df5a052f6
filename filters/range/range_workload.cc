// Key and range-query generators (range_workload.h).
#include "filters/range/range_workload.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <memory>

#include "hashing/remix.h"

namespace filterlab::workload {
namespace {

// Uniform double in (0, 1) from 53 random bits (never 0, so log is finite).
double UnitOpen(SplitMix64& rng) { return (static_cast<double>(rng.Next() >> 11) + 0.5) * 0x1.0p-53; }

// Uniform in [0, bound) (bound > 0), by 128-bit multiply (Lemire's fastrange;
// the bias, at most bound / 2^64, is far below any measured rate).
uint64_t Below(SplitMix64& rng, uint64_t bound) {
  return static_cast<uint64_t>((static_cast<unsigned __int128>(rng.Next()) * bound) >> 64);
}

void SortUnique(std::vector<uint64_t>* v) {
  std::sort(v->begin(), v->end());
  v->erase(std::unique(v->begin(), v->end()), v->end());
}

// Draws with `draw` until n distinct keys exist (batches of the shortfall).
template <typename Draw>
void DrawDistinct(uint64_t n, Draw draw, std::vector<uint64_t>* keys) {
  keys->clear();
  keys->reserve(n);
  for (int round = 0; keys->size() < n && round < 64; ++round) {
    const uint64_t missing = n - keys->size();
    for (uint64_t i = 0; i < missing; ++i) keys->push_back(draw());
    SortUnique(keys);
  }
}

uint64_t NormalKey(SplitMix64& rng) {
  // Box-Muller, one output per pair (simple; generation is not the bottleneck).
  const double u1 = UnitOpen(rng), u2 = UnitOpen(rng);
  const double z = std::sqrt(-2 * std::log(u1)) * std::cos(2 * M_PI * u2);
  const long double x = std::ldexp(1.0L, 63) + static_cast<long double>(z) * std::ldexp(1.0L, 50);
  if (x <= 0) return 0;
  if (x >= std::ldexp(1.0L, 64)) return UINT64_MAX;
  return static_cast<uint64_t>(x);
}

// Zipf(1) over `m` clusters by inversion of the harmonic CDF (table of m sums).
class ZipfClusters {
 public:
  ZipfClusters(uint64_t m, SplitMix64& rng) : cdf_(m), centres_(m) {
    double sum = 0;
    for (uint64_t i = 0; i < m; ++i) cdf_[i] = (sum += 1.0 / static_cast<double>(i + 1));
    for (auto& c : cdf_) c /= sum;
    for (auto& c : centres_) c = rng.Next();
  }
  uint64_t Draw(SplitMix64& rng) const {
    const double u = UnitOpen(rng);
    const size_t i = std::min<size_t>(std::lower_bound(cdf_.begin(), cdf_.end(), u) - cdf_.begin(), cdf_.size() - 1);
    const uint64_t offset = rng.Next() >> 32;
    const uint64_t c = centres_[i];
    return c <= UINT64_MAX - offset ? c + offset : c - offset;
  }

 private:
  std::vector<double> cdf_;
  std::vector<uint64_t> centres_;
};

Status ParseDecimalLines(const std::string& path, uint64_t n, std::vector<uint64_t>* keys) {
  std::vector<std::string> lines;
  Status s = LoadTextKeys(path, UINT64_MAX, &lines);
  if (!s.ok()) return s;
  keys->clear();
  for (size_t i = 0; i < lines.size(); ++i) {
    uint64_t v = 0;
    const std::string& l = lines[i];
    auto [end, ec] = std::from_chars(l.data(), l.data() + l.size(), v);
    if (ec != std::errc() || end != l.data() + l.size()) {
      return Status::InvalidArgument("text key file " + path + ": line '" + l.substr(0, 40) +
                                     "' is not a decimal uint64 (integer range filters need numeric keys)");
    }
    keys->push_back(v);
  }
  SortUnique(keys);
  if (keys->size() > n) keys->resize(n);
  return Status::OK();
}

}  // namespace

uint64_t CorrelationSpan(double degree) { return uint64_t{1} << std::lround(30 * (1 - degree)); }

Status MakeKeys(const std::string& distribution, uint64_t n, uint64_t seed, std::vector<uint64_t>* keys) {
  SplitMix64 rng(Mix64(seed ^ 0x6B657973ULL));  // "keys"
  if (distribution == "uniform") {
    DrawDistinct(
        n, [&] { return rng.Next(); }, keys);
  } else if (distribution == "normal") {
    DrawDistinct(
        n, [&] { return NormalKey(rng); }, keys);
  } else if (distribution == "clustered") {
    const ZipfClusters clusters(std::max<uint64_t>(1, n / 1000), rng);
    DrawDistinct(
        n, [&] { return clusters.Draw(rng); }, keys);
  } else if (distribution.rfind("sosd:", 0) == 0) {
    return LoadSosdKeys(distribution.substr(5), n, keys);
  } else if (distribution.rfind("text:", 0) == 0) {
    return ParseDecimalLines(distribution.substr(5), n, keys);
  } else {
    return Status::InvalidArgument("unknown key distribution '" + distribution + "'; allowed: " + kKeyDistributions);
  }
  if (keys->size() < n) {
    return Status::InvalidArgument("key distribution '" + distribution + "' gave only " + std::to_string(keys->size()) +
                                   " distinct keys of the " + std::to_string(n) + " asked for");
  }
  return Status::OK();
}

Status LoadSosdKeys(const std::string& path, uint64_t max_keys, std::vector<uint64_t>* keys) {
  std::unique_ptr<FILE, int (*)(FILE*)> f(std::fopen(path.c_str(), "rb"), &std::fclose);
  if (!f) return Status::NotFound("SOSD key file " + path + " cannot be opened");
  unsigned char header[8];
  if (std::fread(header, 1, 8, f.get()) != 8) {
    return Status::Corruption("SOSD key file " + path + " is shorter than its 8-byte key count");
  }
  uint64_t count = 0;
  for (int i = 0; i < 8; ++i) count |= uint64_t{header[i]} << (8 * i);
  std::fseek(f.get(), 0, SEEK_END);
  const long size = std::ftell(f.get());
  if (size < 8 || static_cast<uint64_t>(size - 8) / 8 < count || static_cast<uint64_t>(size - 8) % 8 != 0) {
    return Status::Corruption("SOSD key file " + path + ": header says " + std::to_string(count) + " keys but " +
                              std::to_string(size - 8) +
                              " bytes follow (expected a little-endian uint64 count, then 8 bytes per key)");
  }
  std::fseek(f.get(), 8, SEEK_SET);
  keys->resize(count);
  std::vector<unsigned char> buf(8 * std::min<uint64_t>(count, 1 << 16));
  for (uint64_t done = 0; done < count;) {
    const uint64_t chunk = std::min<uint64_t>(count - done, buf.size() / 8);
    if (std::fread(buf.data(), 8, chunk, f.get()) != chunk)
      return Status::IOError("SOSD key file " + path + ": short read");
    for (uint64_t i = 0; i < chunk; ++i) {
      uint64_t v = 0;
      for (int b = 0; b < 8; ++b) v |= uint64_t{buf[8 * i + b]} << (8 * b);
      (*keys)[done + i] = v;
    }
    done += chunk;
  }
  SortUnique(keys);
  if (keys->size() > max_keys) keys->resize(max_keys);
  return Status::OK();
}

Status LoadTextKeys(const std::string& path, uint64_t max_keys, std::vector<std::string>* keys) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Status::NotFound("text key file " + path + " cannot be opened");
  keys->clear();
  std::string line;
  while (std::getline(in, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    keys->push_back(line);
  }
  std::sort(keys->begin(), keys->end());
  keys->erase(std::unique(keys->begin(), keys->end()), keys->end());
  if (keys->size() > max_keys) keys->resize(max_keys);
  return Status::OK();
}

bool HoldsKeyIn(const std::vector<uint64_t>& keys, uint64_t lo, uint64_t hi) {
  auto it = std::lower_bound(keys.begin(), keys.end(), lo);
  return it != keys.end() && *it <= hi;
}

Status EmptyRangeQueries(const std::vector<uint64_t>& keys, uint64_t length, double correlation, uint64_t count,
                         uint64_t seed, std::vector<RangeQuery>* out) {
  if (length == 0) return Status::InvalidArgument("range length must be at least 1");
  if (correlation > 1) return Status::InvalidArgument("correlation degree must lie in [0, 1]");
  const bool correlated = correlation >= 0;
  if (correlated && keys.empty()) return Status::InvalidArgument("correlated queries need at least one key");
  SplitMix64 rng(Mix64(seed ^ 0x656D707479ULL));  // "empty"
  const uint64_t span = correlated ? CorrelationSpan(correlation) : 0;
  out->clear();
  out->reserve(count);
  const uint64_t max_attempts = 100 * count + 1000000;
  uint64_t attempts = 0;
  while (out->size() < count && attempts++ < max_attempts) {
    uint64_t lo;
    if (correlated) {
      const uint64_t k = keys[Below(rng, keys.size())];
      const uint64_t offset = 1 + Below(rng, span);
      if (k > UINT64_MAX - offset) continue;
      lo = k + offset;
    } else {
      lo = rng.Next();
    }
    if (lo > UINT64_MAX - (length - 1)) continue;
    const uint64_t hi = lo + (length - 1);
    if (HoldsKeyIn(keys, lo, hi)) continue;
    out->push_back({lo, hi});
  }
  if (out->size() < count) {
    return Status::InvalidArgument("only " + std::to_string(out->size()) + " of " + std::to_string(count) +
                                   " empty ranges of length " + std::to_string(length) + " found in " +
                                   std::to_string(max_attempts) + " attempts: the keys leave too few empty ranges");
  }
  return Status::OK();
}

Status NonEmptyRangeQueries(const std::vector<uint64_t>& keys, uint64_t length, uint64_t count, uint64_t seed,
                            std::vector<RangeQuery>* out) {
  if (length == 0) return Status::InvalidArgument("range length must be at least 1");
  if (keys.empty()) return Status::InvalidArgument("non-empty queries need at least one key");
  SplitMix64 rng(Mix64(seed ^ 0x66756C6CULL));  // "full"
  out->clear();
  out->reserve(count);
  for (uint64_t i = 0; i < count; ++i) {
    const uint64_t k = keys[Below(rng, keys.size())];
    const uint64_t back = std::min(k, Below(rng, length));
    const uint64_t lo = k - back;
    const uint64_t hi = lo <= UINT64_MAX - (length - 1) ? lo + (length - 1) : UINT64_MAX;
    out->push_back({lo, hi});
  }
  return Status::OK();
}

}  // namespace filterlab::workload
