#include "sim/fp.h"

#include <algorithm>
#include <bit>
#include <chrono>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <vector>

#include "common/parallel.h"
#include "common/timer.h"
#include "filters/filter_spec.h"
#include "filters/fp_tolerance.h"
#include "hashing/fastrange.h"
#include "hashing/remix.h"
#include "sim/keygen.h"
#include "sim/machine.h"

namespace filterlab::sim {
namespace {

uint64_t CeilDiv(uint64_t a, uint64_t b) { return (a + b - 1) / b; }

// Number of true entries of results[0, n). A bool is one byte holding 0 or 1,
// so 8 of them read as one word have as many set bits as true entries: one
// popcount per 8 results. (gcc -O2 did not vectorise the plain byte sum this
// replaces; it ran one load + add per result, ~9% of a query's time in perf.)
uint64_t CountTrue(const bool* results, int n) {
  static_assert(sizeof(bool) == 1, "CountTrue reads bools as bytes");
  uint64_t count = 0;
  int i = 0;
  for (; i + 8 <= n; i += 8) {
    uint64_t word;
    std::memcpy(&word, results + i, sizeof word);
    count += static_cast<uint64_t>(std::popcount(word));
  }
  for (; i < n; ++i) count += results[i];
  return count;
}

// One worker's tallies, padded to its own cache lines.
struct alignas(128) WorkerTally {
  uint64_t positives = 0;
  long double squares_over_queries = 0;  // sum of x_f^2 / q_f over this worker's filters
  double build_seconds = 0;
  double query_seconds = 0;
  double query_cpu_seconds = 0;
};

class FpRun {
 public:
  FpRun(const FpConfig& config, const FilterPolicy& policy) : cfg_(config), policy_(policy) {}

  uint64_t QueriesFor(uint64_t f) const {
    return cfg_.queries / cfg_.filters + (f < cfg_.queries % cfg_.filters ? 1 : 0);
  }
  // Keys in filter f: cfg_.keys, or a uniform draw from keys +- floor(vary_ratio * keys).
  uint64_t KeysFor(uint64_t f) const { return KeysOfFilter(cfg_, f); }
  uint32_t FilterId(uint64_t f) const { return static_cast<uint32_t>(DeriveSeed(cfg_.seed, Stream::kFilterId, f)); }

  // Added hashes [c * build_chunk, +count) of filter f.
  void AddedChunk(uint64_t f, uint64_t c, uint64_t count, uint64_t* out) const {
    if (cfg_.hash_source == "synthetic") {
      FillSplitMix64(DeriveSeed(cfg_.seed, Stream::kAdded, f, c), 0, count, out);
    } else {
      KeyMaker keys(cfg_.key_size);
      const uint32_t id = FilterId(f);
      for (uint64_t i = 0; i < count; ++i) {
        out[i] = policy_.HashKey(keys.Added(id, static_cast<uint32_t>(c * cfg_.build_chunk + i)));
      }
    }
  }

  // Builds filter f, generating its hashes on `threads` threads.
  Status Build(uint64_t f, int threads, std::unique_ptr<Filter>* out) const {
    const uint64_t n = KeysFor(f);
    const uint64_t chunk = cfg_.build_chunk;
    std::unique_ptr<uint64_t[]> hashes(new uint64_t[n]);  // left uninitialised: every slot is written
    ParallelFor(CeilDiv(n, chunk), threads, [&](uint64_t c, int) {
      const uint64_t begin = c * chunk;
      AddedChunk(f, c, std::min(chunk, n - begin), hashes.get() + begin);
    });
    uint64_t m = n;
    if (cfg_.hash_source == "keys") {
      // As RocksDB's builders (and BuildFilterFromKeys) do: a hash equal to the
      // one just before it is one entry.
      m = 0;
      for (uint64_t i = 0; i < n; ++i) {
        if (m == 0 || hashes[m - 1] != hashes[i]) hashes[m++] = hashes[i];
      }
    }
    return policy_.Build(hashes.get(), m, out);
  }

  // Positives among queries [c * query_chunk, +count) of filter f. The
  // queries are made kBuffer at a time (a counter-based splitmix64 fill the
  // compiler vectorises, or keys hashed by the policy) and put to the filter
  // in MayContainBatch calls of cfg_.batch: large batches keep the virtual
  // call and the batch set-up off the per-query cost.
  uint64_t CountChunk(const Filter& filter, uint64_t f, uint64_t c, uint64_t count) const {
    constexpr int kBuffer = 2048;
    alignas(64) uint64_t hashes[kBuffer];
    alignas(64) bool results[kBuffer];
    const int batch = std::max(1, std::min(cfg_.batch, kBuffer));
    uint64_t positives = 0;
    const bool synthetic = cfg_.hash_source == "synthetic";
    const uint64_t stream = DeriveSeed(cfg_.seed, Stream::kQueries, f, c);
    KeyMaker keys(cfg_.key_size);
    const uint32_t id = FilterId(f);
    uint64_t j = c * cfg_.query_chunk;
    for (uint64_t done = 0; done < count;) {
      const int m = static_cast<int>(std::min<uint64_t>(kBuffer, count - done));
      if (synthetic) {
        FillSplitMix64(stream, done, static_cast<uint64_t>(m), hashes);
      } else {
        for (int i = 0; i < m; ++i) hashes[i] = policy_.HashKey(keys.Outside(id, j + i));
      }
      for (int i = 0; i < m; i += batch) filter.MayContainBatch(hashes + i, std::min(batch, m - i), results + i);
      positives += CountTrue(results, m);
      done += m;
      j += m;
    }
    return positives;
  }

  uint64_t CountFilter(const Filter& filter, uint64_t f, int threads, std::vector<WorkerTally>* tally) const {
    const uint64_t q = QueriesFor(f);
    const uint64_t chunk = cfg_.query_chunk;
    uint64_t total = 0;
    if (threads <= 1) {
      for (uint64_t c = 0; c * chunk < q; ++c) total += CountChunk(filter, f, c, std::min(chunk, q - c * chunk));
      return total;
    }
    for (auto& t : *tally) t.positives = 0;
    ParallelFor(CeilDiv(q, chunk), threads, [&](uint64_t c, int w) {
      (*tally)[w].positives += CountChunk(filter, f, c, std::min(chunk, q - c * chunk));
    });
    for (auto& t : *tally) total += t.positives;
    return total;
  }

 private:
  const FpConfig& cfg_;
  const FilterPolicy& policy_;
};

uint64_t Spread(const FpConfig& cfg) { return static_cast<uint64_t>(cfg.vary_ratio * static_cast<double>(cfg.keys)); }

uint64_t MaxKeysPerFilter(const FpConfig& cfg) { return cfg.keys + Spread(cfg); }

uint64_t EstimatedFilterBytes(uint64_t keys, const FilterPolicy& policy) {
  // Requested size plus room for rounding to lines/words and power-of-two
  // sizes of some variants is not knowable in general; 10% + 1 MiB covers the
  // line- and word-rounded variants.
  return static_cast<uint64_t>(static_cast<double>(keys) * policy.bits_per_key() / 8.0 * 1.1) + (1u << 20);
}

// Moves a built filter onto 2 MiB pages: serialized into a PageArena asked
// for huge pages and reopened there (OpenFilter answers exactly as the built
// filter: the round trip every variant's tests check). Why: a query reads one
// random line of the filter, so with 4 KiB pages nearly every query of a
// filter larger than the L1 TLB's reach (64 x 4 KiB = 256 KiB) also misses
// the TLB; perf put ~1/3 of a 1.25 MB fastlocal filter's query time on the
// prefetch instruction. On 2 MiB pages the 1.25 MB filter is one TLB entry.
// Keeps the built filter (4 KiB pages, same counts) if the reopen fails.
void MoveToHugePages(std::unique_ptr<Filter>* filter, std::unique_ptr<PageArena>* arena) {
  std::string bytes;
  (*filter)->Serialize(&bytes);
  std::unique_ptr<PageArena> a;
  if (bytes.empty() || !PageArena::Allocate(bytes.size(), /*want_huge=*/true, &a).ok()) return;
  std::memcpy(a->data(), bytes.data(), bytes.size());
  std::unique_ptr<Filter> opened;
  if (!OpenFilter(Slice(a->data(), bytes.size()), &opened).ok()) return;
  filter->reset();  // the opened filter views `a`, which must outlive it
  *filter = std::move(opened);
  *arena = std::move(a);
}

long double SquareOverQueries(uint64_t x, uint64_t q) {
  return q == 0 ? 0.0L : static_cast<long double>(x) * static_cast<long double>(x) / static_cast<long double>(q);
}

// Pearson's dispersion statistic of the per-filter counts x_f of q_f queries
// (FpResult::dispersion), from running sums: with X = sum x_f, Q = sum q_f
// and p = X/Q, sum_f (x_f - q_f p)^2 / q_f = sum_f x_f^2 / q_f - X^2 / Q, so
// no per-filter array is kept (runs may have 10^9 filters). In long double:
// the difference is ~F p against X p, a few digits of cancellation.
double Dispersion(long double squares_over_queries, uint64_t positives, uint64_t queries, uint64_t filters) {
  const long double x = static_cast<long double>(positives), q = static_cast<long double>(queries);
  const long double p = x / q;
  if (filters < 2 || !(p > 0 && p < 1)) return -1;
  const long double chi2 = (squares_over_queries - x * x / q) / (p * (1 - p));
  return static_cast<double>(std::max(0.0L, chi2) / static_cast<long double>(filters - 1));
}

bool FilterPerThread(const FpConfig& cfg) {
  return cfg.threads > 1 && cfg.filters >= 4 * static_cast<uint64_t>(cfg.threads);
}

}  // namespace

uint64_t KeysOfFilter(const FpConfig& cfg, uint64_t f) {
  const uint64_t half = Spread(cfg);
  if (half == 0) return cfg.keys;
  const uint64_t draw = DeriveSeed(cfg.seed, Stream::kKeyCount, f);
  // 2 * half + 1 values centred on keys; the range fits 32 bits (keys * 0.9 * 2 < 2^32 is checked).
  return cfg.keys - half + FastRange32(static_cast<uint32_t>(draw), static_cast<uint32_t>(2 * half + 1));
}

uint64_t FpMemoryNeeded(const FpConfig& cfg, const FilterPolicy& policy) {
  const uint64_t max_keys = MaxKeysPerFilter(cfg);
  const uint64_t per_filter =
      max_keys * 8 + EstimatedFilterBytes(max_keys, policy) + policy.BuildTemporaryBytes(max_keys);
  return FilterPerThread(cfg) ? per_filter * static_cast<uint64_t>(cfg.threads) : per_filter;
}

Status PrepareFp(const FpConfig& cfg, std::unique_ptr<FilterPolicy>* out) {
  if (cfg.keys == 0) return Status::InvalidArgument("--keys=0: a filter needs at least 1 key; allowed: 1..");
  if (cfg.filters == 0) return Status::InvalidArgument("--filters=0: need at least 1 filter");
  if (cfg.queries == 0) return Status::InvalidArgument("--queries=0: need at least 1 query");
  if (!(cfg.vary_ratio >= 0 && cfg.vary_ratio <= 0.9)) {
    return Status::InvalidArgument("--vary_ratio=" + std::to_string(cfg.vary_ratio) + ": allowed: 0..0.9");
  }
  if (cfg.vary_ratio > 0 && 2 * Spread(cfg) + 1 > 0xffffffffull) {
    return Status::InvalidArgument(
        "--vary_ratio with --keys " + std::to_string(cfg.keys) +
        ": the spread of key counts must stay below 2^32; allowed: keys * vary_ratio < 2^31");
  }
  if (cfg.build_chunk == 0 || cfg.query_chunk == 0) return Status::InvalidArgument("fp: chunk sizes must be >= 1");
  if (cfg.hash_source != "synthetic" && cfg.hash_source != "keys") {
    return Status::InvalidArgument("--hash_source=" + cfg.hash_source + ": allowed: synthetic|keys");
  }
  if (cfg.hash_source == "keys" && cfg.keys > 0x7fffffffu) {
    return Status::InvalidArgument("--keys=" + std::to_string(cfg.keys) +
                                   " with --hash_source keys: filter_bench keys number added keys below 2^31; "
                                   "allowed: 1..2147483647 (use --hash_source synthetic beyond)");
  }
  std::unique_ptr<FilterPolicy>& policy = *out;
  Status s = NewFilterPolicy(cfg.filter_spec, &policy);
  if (!s.ok()) return Status::InvalidArgument("--filter: " + s.message());
  return CheckMemory(
      FpMemoryNeeded(cfg, *policy),
      "--keys " + std::to_string(cfg.keys) + " (8 bytes per key while building, plus the filter and " +
          FormatNumber(static_cast<double>(policy->BuildTemporaryBytes(cfg.keys)) / static_cast<double>(cfg.keys)) +
          " bytes per key of Build's working memory" +
          (FilterPerThread(cfg) ? ", times --threads " + std::to_string(cfg.threads) + ")" : ")"));
}

Status RunFp(const FpConfig& cfg, FpResult* result) {
  *result = FpResult();
  std::unique_ptr<FilterPolicy> policy;
  Status s = PrepareFp(cfg, &policy);
  if (!s.ok()) return s;

  const auto start = Clock::now();
  FpRun run(cfg, *policy);
  result->filter = policy->spec();
  result->hash_bits = static_cast<int>(policy->hash_width());
  {
    // Queries are spread evenly over the filters, so the expected rate is the
    // mean of each filter's model; key counts repeat, so each is modelled once.
    std::map<uint64_t, double> model_of;
    double sum = 0;
    for (uint64_t f = 0; f < cfg.filters; ++f) {
      const uint64_t n = KeysOfFilter(cfg, f);
      result->total_keys += n;
      auto it = model_of.find(n);
      if (it == model_of.end()) it = model_of.emplace(n, policy->ModelFpRate(n)).first;
      sum += it->second;
    }
    result->model_fp = sum / static_cast<double>(cfg.filters);
  }
  std::vector<WorkerTally> tally(std::max(1, cfg.threads));
  long double squares_over_queries = 0;  // sum over filters of x_f^2 / q_f (Dispersion)
  std::mutex mu;
  Status first_error;

  auto note_filter = [&](uint64_t f, const Filter& filter) {
    std::lock_guard<std::mutex> lock(mu);
    result->total_bytes += filter.DataBytes();
    if (f == 0) {
      result->bytes = filter.DataBytes();
      result->layout = filter.Describe();
    }
  };

  if (FilterPerThread(cfg)) {
    result->schedule = "filter_per_thread";
    ParallelFor(cfg.filters, cfg.threads, [&](uint64_t f, int w) {
      auto t0 = Clock::now();
      std::unique_ptr<Filter> filter;
      Status bs = run.Build(f, 1, &filter);
      if (!bs.ok()) {
        std::lock_guard<std::mutex> lock(mu);
        if (first_error.ok()) first_error = bs;
        return;
      }
      tally[w].build_seconds += SecondsSince(t0);
      note_filter(f, *filter);
      t0 = Clock::now();
      const double cpu0 = ThreadCpuSeconds();
      const uint64_t x = run.CountFilter(*filter, f, 1, nullptr);
      tally[w].positives += x;
      tally[w].squares_over_queries += SquareOverQueries(x, run.QueriesFor(f));
      tally[w].query_seconds += SecondsSince(t0);
      tally[w].query_cpu_seconds += ThreadCpuSeconds() - cpu0;
    });
    for (const auto& t : tally) {
      result->positives += t.positives;
      // Threads work side by side: the phases' wall time is about the mean.
      result->build_seconds += t.build_seconds / cfg.threads;
      result->query_seconds += t.query_seconds / cfg.threads;
      result->query_cpu_seconds += t.query_cpu_seconds;
      squares_over_queries += t.squares_over_queries;
    }
  } else {
    result->schedule = "chunks_over_threads";
    for (uint64_t f = 0; f < cfg.filters && first_error.ok(); ++f) {
      auto t0 = Clock::now();
      std::unique_ptr<PageArena> arena;  // before `filter`: outlives the filter viewing it
      std::unique_ptr<Filter> filter;
      first_error = run.Build(f, cfg.threads, &filter);
      if (!first_error.ok()) break;
      MoveToHugePages(&filter, &arena);
      result->build_seconds += SecondsSince(t0);
      note_filter(f, *filter);
      t0 = Clock::now();
      const double cpu0 = ProcessCpuSeconds();
      const uint64_t x = run.CountFilter(*filter, f, cfg.threads, &tally);
      result->positives += x;
      squares_over_queries += SquareOverQueries(x, run.QueriesFor(f));
      result->query_seconds += SecondsSince(t0);
      result->query_cpu_seconds += ProcessCpuSeconds() - cpu0;
    }
  }
  if (!first_error.ok())
    return Status::InvalidArgument("--filter " + cfg.filter_spec + ": build failed: " + first_error.message());

  const FpModelClaim claim = FpModelClaimOf(*policy);
  const FpAllowedRange allowed = AllowedFpRange(result->model_fp, cfg.queries, claim);
  result->model_kind = FpModelKindName(claim.kind);
  result->model_max_relative_error = claim.max_relative_error;
  result->allowed_low = std::max(0.0, allowed.low);
  result->allowed_high = std::min(1.0, allowed.high);
  result->seconds = SecondsSince(start);
  result->fp = static_cast<double>(result->positives) / static_cast<double>(cfg.queries);
  result->ci = WilsonInterval(result->positives, cfg.queries);
  result->dispersion = Dispersion(squares_over_queries, result->positives, cfg.queries, cfg.filters);
  result->bits_per_key = 8.0 * static_cast<double>(result->total_bytes) / static_cast<double>(result->total_keys);
  return Status::OK();
}

JsonRecord FpRecord(const FpConfig& cfg, const FpResult& r) {
  JsonRecord j;
  j["command"] = "fp";
  j["filter"] = r.filter;
  j["filter_arg"] = cfg.filter_spec;
  j["layout"] = r.layout;
  j["hash_bits"] = r.hash_bits;
  j["keys"] = cfg.keys;
  j["filters"] = cfg.filters;
  j["vary_ratio"] = cfg.vary_ratio;
  j["total_keys"] = r.total_keys;
  j["queries"] = cfg.queries;
  j["hash_source"] = cfg.hash_source;
  if (cfg.hash_source == "keys") j["key_size"] = cfg.key_size;
  j["seed"] = cfg.seed;
  j["threads"] = cfg.threads;
  j["batch"] = cfg.batch;
  j["positives"] = r.positives;
  j["fp"] = r.fp;
  j["ci_low"] = r.ci.low;
  j["ci_high"] = r.ci.high;
  j["ci_method"] = "wilson95";
  if (r.dispersion >= 0) j["dispersion"] = r.dispersion;
  j["model_fp"] = r.model_fp;
  j["model_kind"] = r.model_kind;
  j["model_max_relative_error"] = r.model_max_relative_error;
  j["model_allowed_low"] = r.allowed_low;
  j["model_allowed_high"] = r.allowed_high;
  j["bytes"] = r.bytes;
  j["total_bytes"] = r.total_bytes;
  j["bits_per_key"] = r.bits_per_key;
  j["build_seconds"] = r.build_seconds;
  j["query_seconds"] = r.query_seconds;
  j["seconds"] = r.seconds;
  j["queries_per_s"] = r.query_seconds > 0 ? static_cast<double>(cfg.queries) / r.query_seconds : 0.0;
  // Per CPU-second of all threads: the rate that other load on the machine
  // does not change; times the thread count it is the wall rate on an idle machine.
  j["query_cpu_seconds"] = r.query_cpu_seconds;
  j["queries_per_cpu_s"] = r.query_cpu_seconds > 0 ? static_cast<double>(cfg.queries) / r.query_cpu_seconds : 0.0;
  j["schedule"] = r.schedule;
  return j;
}

}  // namespace filterlab::sim
