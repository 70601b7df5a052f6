#include "sim/speed.h"

#include <algorithm>
#include <chrono>
#include <memory>
#include <random>

#include "filters/filter.h"
#include "sim/floor.h"
#include "sim/keygen.h"
#include "sim/machine.h"
#include "sim/timer.h"

namespace filterlab::sim {
namespace {


// filter_bench's generator: mt19937 and a multiply-shift range reduction.
class Random32 {
 public:
  explicit Random32(uint32_t seed) : gen_(seed) {}
  uint32_t Next() { return static_cast<uint32_t>(gen_()); }
  uint32_t Uniformish(uint32_t n) { return static_cast<uint32_t>((uint64_t{Next()} * n) >> 32); }

 private:
  std::mt19937 gen_;
};

// Filters built, serialized into one (huge-page) arena and reopened there.
struct FilterSet {
  std::unique_ptr<PageArena> arena;
  std::vector<std::unique_ptr<Filter>> filters;
  std::vector<uint32_t> ids;
  std::vector<uint32_t> keys;
  uint64_t total_keys = 0;
  uint64_t serialized_bytes = 0;
  double build_seconds = 0;
  std::string layout;
};

// Builds one filter from filter_bench keys val 0..n-1 of `id` (timed part),
// appending its serialized bytes to *blob.
Status BuildOne(const FilterPolicy& policy, uint32_t id, uint32_t n, int key_size, std::vector<uint64_t>* hashes,
                std::string* blob, double* seconds, std::string* layout) {
  KeyMaker km(key_size, /*vary_alignment=*/true);
  const auto t0 = Clock::now();
  hashes->clear();
  for (uint32_t v = 0; v < n; ++v) {
    const uint64_t h = policy.HashKey(km.Added(id, v));
    if (hashes->empty() || hashes->back() != h) hashes->push_back(h);
  }
  std::unique_ptr<Filter> filter;
  Status s = policy.Build(hashes->data(), hashes->size(), &filter);
  *seconds += SecondsSince(t0);
  if (!s.ok()) return s;
  if (layout->empty()) *layout = filter->Describe();
  filter->Serialize(blob);
  return Status::OK();
}

Status Materialise(std::vector<std::string>& blobs, bool want_huge, FilterSet* set) {
  uint64_t total = 0;
  for (const auto& b : blobs) total += (b.size() + 63) / 64 * 64;
  Status s = CheckMemory(total, "speed working set");
  if (!s.ok()) return s;
  s = PageArena::Allocate(total, want_huge, &set->arena);
  if (!s.ok()) return s;
  uint64_t off = 0;
  for (auto& b : blobs) {
    char* dst = set->arena->data() + off;
    std::memcpy(dst, b.data(), b.size());
    std::unique_ptr<Filter> f;
    s = OpenFilter(Slice(dst, b.size()), &f);
    if (!s.ok()) return Status::Corruption("reopening a serialized filter failed: " + s.message());
    set->filters.push_back(std::move(f));
    off += (b.size() + 63) / 64 * 64;
    std::string().swap(b);
  }
  set->serialized_bytes = total;
  return Status::OK();
}

Status BuildWorkingSet(const FilterPolicy& policy, const SpeedConfig& cfg, bool want_huge, FilterSet* set) {
  Random32 rng(cfg.seed);
  std::vector<uint64_t> hashes;
  std::vector<std::string> blobs;
  uint64_t bytes = 0;
  const uint32_t spread = 1 + 2 * static_cast<uint32_t>(cfg.vary_ratio * static_cast<double>(cfg.average_keys));
  while (bytes < cfg.working_set_bytes) {
    const uint32_t id = rng.Next();
    const uint32_t n = static_cast<uint32_t>(cfg.average_keys) + FastRange32(rng.Next(), spread) - spread / 2;
    blobs.emplace_back();
    Status s = BuildOne(policy, id, n, cfg.key_size, &hashes, &blobs.back(), &set->build_seconds, &set->layout);
    if (!s.ok()) return s;
    bytes += blobs.back().size();
    set->ids.push_back(id);
    set->keys.push_back(n);
    set->total_keys += n;
  }
  return Materialise(blobs, want_huge, set);
}

enum class Pick { kSingle, kRandom, kSkewed };

struct Plan {
  std::string mode;
  std::string mix;  // inside | outside | mixed
  Pick pick = Pick::kRandom;
  uint32_t primary_threshold = 0;  // skewed: rng <= this picks a primary filter
  uint32_t num_primary = 1;
  int batch = 1;                   // 1 = one MayContain per query
  bool prepared = true;
};

struct Tally {
  uint64_t outside = 0, false_positives = 0, inside = 0, inside_negatives = 0, sink = 0;
  double seconds = 0;
};

template <bool kDry>
Tally RunQueries(const FilterSet& set, const FilterPolicy& policy, const Plan& plan, uint64_t queries,
                 uint32_t seed, int key_size, bool net_includes_hashing) {
  Random32 rng(seed);
  KeyMaker km(key_size, /*vary_alignment=*/true);
  const uint32_t num_filters = static_cast<uint32_t>(set.filters.size());
  const uint32_t inside_threshold = plan.mix == "inside" ? 0xffffffffu : plan.mix == "outside" ? 0u : 0x7fffffffu;
  const bool never_inside = plan.mix == "outside";
  constexpr int kMaxBatch = 64;
  uint64_t hashes[kMaxBatch];
  bool inside_flags[kMaxBatch];
  bool results[kMaxBatch];
  Tally t;
  const auto t0 = Clock::now();
  for (uint64_t q = 0; q < queries; q += plan.batch) {
    uint32_t fi = 0;
    if (plan.pick == Pick::kRandom) {
      fi = rng.Uniformish(num_filters);
    } else if (plan.pick == Pick::kSkewed) {
      fi = rng.Next() <= plan.primary_threshold ? rng.Uniformish(plan.num_primary)
                                                : plan.num_primary + rng.Uniformish(num_filters - plan.num_primary);
    }
    const Filter& filter = *set.filters[fi];
    for (int i = 0; i < plan.batch; ++i) {
      const bool inside = !never_inside && rng.Next() <= inside_threshold;
      const uint32_t val = rng.Uniformish(set.keys[fi]);
      const Slice key = inside ? km.Added(set.ids[fi], val) : km.Outside(set.ids[fi], val);
      if (kDry && net_includes_hashing) {
        hashes[i] = key.size() ^ static_cast<uint8_t>(key[3]);
      } else {
        hashes[i] = policy.HashKey(key);
      }
      inside_flags[i] = inside;
    }
    if (kDry) {
      for (int i = 0; i < plan.batch; ++i) results[i] = hashes[i] & 1;
    } else if (plan.batch == 1) {
      results[0] = filter.MayContain(hashes[0]);
    } else if (plan.prepared) {
      filter.MayContainBatch(hashes, plan.batch, results);
    } else {
      for (int i = 0; i < plan.batch; ++i) results[i] = filter.MayContain(hashes[i]);
    }
    for (int i = 0; i < plan.batch; ++i) {
      t.inside += inside_flags[i];
      t.inside_negatives += inside_flags[i] & !results[i];
      t.outside += !inside_flags[i];
      t.false_positives += !inside_flags[i] & results[i];
      t.sink += hashes[i];
    }
  }
  t.seconds = SecondsSince(t0);
  return t;
}

class SpeedRun {
 public:
  SpeedRun(const SpeedConfig& cfg, const FilterPolicy& policy, const Emit& emit)
      : cfg_(cfg), policy_(policy), emit_(emit) {}

  JsonRecord Base(const std::string& mode, const FilterSet& set, bool huge) const {
    JsonRecord j;
    j["command"] = "speed";
    j["filter"] = policy_.spec();
    j["filter_arg"] = cfg_.filter_spec;
    j["layout"] = set.layout;
    j["mode"] = mode;
    j["working_set_bytes"] = set.serialized_bytes;
    j["filters"] = set.filters.size();
    j["keys"] = set.total_keys;
    j["bits_per_key"] = 8.0 * static_cast<double>(set.serialized_bytes) / static_cast<double>(set.total_keys);
    j["huge_pages"] = huge;
    j["key_size"] = cfg_.key_size;
    j["seed"] = cfg_.seed;
    return j;
  }

  // Runs gross and dry for one plan and emits the record.
  Status Measure(const FilterSet& set, const Plan& plan, uint64_t queries, double floor_ns) {
    const uint32_t seed = cfg_.seed + (plan.mix == "outside" ? 2 : 1);
    uint64_t rounded = (queries + plan.batch - 1) / plan.batch * plan.batch;
    const Tally gross = RunQueries<false>(set, policy_, plan, rounded, seed, cfg_.key_size, cfg_.net_includes_hashing);
    const Tally dry = RunQueries<true>(set, policy_, plan, rounded, seed, cfg_.key_size, cfg_.net_includes_hashing);
    if (gross.inside_negatives != 0) {
      return Status::Corruption("filter " + policy_.spec() + " answered 'no' for " +
                                std::to_string(gross.inside_negatives) + " added keys in mode " + plan.mode);
    }
    JsonRecord j = Base(plan.mode, set, set.arena->huge_pages());
    j["mix"] = plan.mix;
    j["pick"] = plan.pick == Pick::kSingle ? "single" : plan.pick == Pick::kRandom ? "random" : "skewed";
    j["batch"] = plan.batch;
    if (plan.batch > 1) j["prepared"] = plan.prepared;
    if (plan.pick == Pick::kSkewed) {
      j["skew"] = std::to_string(static_cast<int>(std::lround(plan.primary_threshold / 42949672.96))) + "% in " +
                  std::to_string(plan.num_primary) + " filters";
    }
    j["queries"] = rounded;
    j["net_includes_hashing"] = cfg_.net_includes_hashing;
    const double n = static_cast<double>(rounded);
    j["gross_ns_per_op"] = gross.seconds * 1e9 / n;
    j["dry_ns_per_op"] = dry.seconds * 1e9 / n;
    const double net = (gross.seconds - dry.seconds) * 1e9 / n;
    j["net_ns_per_op"] = net;
    if (gross.outside > 0) {
      j["fp"] = static_cast<double>(gross.false_positives) / static_cast<double>(gross.outside);
    } else {
      j["fp"] = nullptr;
    }
    j["outside_queries"] = gross.outside;
    if (floor_ns > 0) {
      j["floor_ns_per_line"] = floor_ns;
      j["x_floor"] = net / floor_ns;
    }
    emit_(j);
    return Status::OK();
  }

  double Floor(const FilterSet& set) const {
    if (!cfg_.measure_floor) return 0;
    return RandomLineReadNs(set.arena->data(), set.arena->size() / 64, 20000000, 32, 1, cfg_.seed + 7);
  }

  bool Has(const std::vector<std::string>& list, const std::string& x) const {
    return std::find(list.begin(), list.end(), x) != list.end();
  }

  Status Run() {
    const bool want_huge = cfg_.huge_pages == "on" || (cfg_.huge_pages == "auto" && TransparentHugePageMode() != "never");
    const bool needs_set = Has(cfg_.modes, "build") || Has(cfg_.modes, "single") || Has(cfg_.modes, "random") ||
                           Has(cfg_.modes, "batched") || Has(cfg_.modes, "skewed");
    if (needs_set) {
      FilterSet set;
      Status s = BuildWorkingSet(policy_, cfg_, want_huge, &set);
      if (!s.ok()) return s;
      if (Has(cfg_.modes, "build")) {
        JsonRecord j = Base("build", set, set.arena->huge_pages());
        j["ns_per_key"] = set.build_seconds * 1e9 / static_cast<double>(set.total_keys);
        j["average_keys"] = cfg_.average_keys;
        j["vary_ratio"] = cfg_.vary_ratio;
        emit_(j);
      }
      const double floor_ns = (Has(cfg_.modes, "random") || Has(cfg_.modes, "batched") || Has(cfg_.modes, "skewed"))
                                  ? Floor(set) : 0;
      for (const auto& mix : cfg_.mixes) {
        if (Has(cfg_.modes, "single")) {
          Plan p{"single", mix, Pick::kSingle};
          if (Status s2 = Measure(set, p, cfg_.queries, 0); !s2.ok()) return s2;
        }
        if (Has(cfg_.modes, "random")) {
          Plan p{"random", mix, Pick::kRandom};
          if (Status s2 = Measure(set, p, cfg_.queries, floor_ns); !s2.ok()) return s2;
        }
      }
      if (Has(cfg_.modes, "batched")) {
        for (int b : cfg_.batch_sizes) {
          for (bool prepared : {true, false}) {
            for (Pick pick : {Pick::kSingle, Pick::kRandom}) {
              Plan p{"batched", "mixed", pick};
              p.batch = b;
              p.prepared = prepared;
              if (Status s2 = Measure(set, p, cfg_.queries, pick == Pick::kRandom ? floor_ns : 0); !s2.ok()) return s2;
            }
          }
        }
      }
      if (Has(cfg_.modes, "skewed") && set.filters.size() >= 2) {
        for (auto [share, part] : {std::pair<double, double>{0.5, 0.01}, {0.8, 0.2}}) {
          Plan p{"skewed", "mixed", Pick::kSkewed};
          p.primary_threshold = static_cast<uint32_t>(share * 4294967295.0);
          p.num_primary = std::max<uint32_t>(1, static_cast<uint32_t>(part * set.filters.size()));
          if (p.num_primary >= set.filters.size()) p.num_primary = static_cast<uint32_t>(set.filters.size()) - 1;
          if (Status s2 = Measure(set, p, cfg_.queries, floor_ns); !s2.ok()) return s2;
        }
      }
    }
    if (Has(cfg_.modes, "huge")) {
      FilterSet set;
      Status s = CheckMemory(cfg_.huge_keys * 8 * 3, "--huge-keys " + std::to_string(cfg_.huge_keys));
      if (!s.ok()) return s;
      std::vector<uint64_t> hashes;
      std::vector<std::string> blobs(1);
      Random32 rng(cfg_.seed);
      const uint32_t id = rng.Next();
      s = BuildOne(policy_, id, static_cast<uint32_t>(cfg_.huge_keys), cfg_.key_size, &hashes, &blobs[0],
                   &set.build_seconds, &set.layout);
      if (!s.ok()) return s;
      std::vector<uint64_t>().swap(hashes);
      set.ids.push_back(id);
      set.keys.push_back(static_cast<uint32_t>(cfg_.huge_keys));
      set.total_keys = cfg_.huge_keys;
      s = Materialise(blobs, want_huge, &set);
      if (!s.ok()) return s;
      const double floor_ns = Floor(set);
      Plan p{"huge", "mixed", Pick::kSingle};
      if (s = Measure(set, p, cfg_.queries, floor_ns); !s.ok()) return s;
      for (int b : cfg_.batch_sizes) {
        p.batch = b;
        p.prepared = true;
        if (s = Measure(set, p, cfg_.queries, floor_ns); !s.ok()) return s;
      }
    }
    return Status::OK();
  }

 private:
  const SpeedConfig& cfg_;
  const FilterPolicy& policy_;
  const Emit& emit_;
};

}  // namespace

Status RunSpeed(const SpeedConfig& config, const Emit& emit) {
  std::unique_ptr<FilterPolicy> policy;
  Status s = NewFilterPolicy(config.filter_spec, &policy);
  if (!s.ok()) return Status::InvalidArgument("--filter: " + s.message());
  for (int b : config.batch_sizes) {
    if (b < 2 || b > 64) {
      return Status::InvalidArgument("--batch-sizes: " + std::to_string(b) + " is not allowed; batch sizes are 2..64");
    }
  }
  SpeedConfig cfg = config;
  if (cfg.working_set_bytes == 0) {
    cfg.working_set_bytes = std::max<uint64_t>(4 * LastLevelCacheBytes(), uint64_t{64} << 20);
  }
  SpeedRun run(cfg, *policy, emit);
  return run.Run();
}

}  // namespace filterlab::sim
