// `filterlab-sim dynamic`: the timings of a dynamic (memtable) filter the way
// RocksDB's dynamic_bloom_test measures its DynamicBloom (the "perf" and
// "concurrent_with_perf" tests, which PR #5762 quotes old -> new): one filter
// sized for --keys keys at the spec's bits/key; the keys are the 8-byte
// little-endian integers base+1..base+keys, base = --seed * 2^40 (RocksDB's
// test: base 0), each hashed by the policy's HashKey inside the timed loop
// (as RocksDB's Add(Slice) and MayContain(Slice) hash).
//   add            Add of every key, one thread (ns per key)
//   hit, miss      MayContain of every added key / of keys+1..2 keys, one
//                  thread (ns per query; miss records the FP rate)
//   parallel_add   AddConcurrently into a fresh filter from --threads threads,
//                  thread t taking keys 1+t, 1+t+threads, ... (wall time / keys)
//   parallel_hit, parallel_miss
//                  the same split of queries over --threads threads, against
//                  the filter parallel_add filled (wall time / keys)
// Each mode runs --rounds times back to back (the parallel ones each on a
// fresh filter for its add) and reports the median round. With --keys
// 8388608 (RocksDB's first size, 8M keys, 10 MB at 10 bits/key) the filter
// is larger than the last-level cache of small machines, so the times are
// mostly cache misses, as in RocksDB's figures.
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "common/flags.h"
#include "common/stats.h"
#include "filters/filter.h"
#include "sim/commands.h"

namespace filterlab::sim {
namespace {

using Clock = std::chrono::steady_clock;

struct DynamicArgs {
  std::vector<std::string> specs, modes;
  long long keys = 0, threads = 0, rounds = 0, seed = 0;
};

const std::vector<std::string> kModes = {"add", "hit", "miss", "parallel_add", "parallel_hit", "parallel_miss"};

void DeclareDynamicFlags(FlagSet& flags, DynamicArgs* a) {
  flags.List("filter",
             "a dynamic filter spec (repeatable; default: dynamic:bpk=10 and dynamic_old:bpk=10 with "
             "locality=0 and 1)",
             &a->specs);
  flags.Int("keys", 8388608, 1000, 1LL << 30, "keys added (the 8-byte integers 1..keys); misses ask keys+1..2 keys",
            &a->keys);
  flags.ChoiceList("modes", "add,hit,miss,parallel_add,parallel_hit,parallel_miss", kModes,
                   "what to time, in this order", &a->modes);
  flags.Int("threads", 4, 1, 256, "threads of the parallel modes (RocksDB's test: 4)", &a->threads);
  flags.Int("rounds", 3, 1, 100, "rounds of each mode; the record gives the median", &a->rounds);
  flags.Int("seed", 0, 0, (1LL << 23) - 1, "key set: the integers seed*2^40 + 1.. (0: RocksDB's 1..keys)", &a->seed);
  flags.Field("command", "string", "\"dynamic\"");
  flags.Field("filter", "string", "canonical spec");
  flags.Field("filter_arg", "string", "the --filter text the spec came from");
  flags.Field("variant", "string", "variant name");
  flags.Field("layout", "string", "the filter's Describe(): its actual layout");
  flags.Field("mode", "string", "add | hit | miss | parallel_add | parallel_hit | parallel_miss");
  flags.Field("keys", "int", "keys added, and queries asked");
  flags.Field("threads", "int", "threads that ran the mode (1 for add, hit, miss)");
  flags.Field("rounds", "int", "rounds measured");
  flags.Field("seed", "int", "key set (keys seed*2^40 + 1..)");
  flags.Field("bits_per_key", "number", "8 * filter bytes / keys: after the variant's rounding");
  flags.Field("bytes", "int", "filter data bytes");
  flags.Field("ns_per_key", "number", "median over rounds of wall time / keys (hashing included)");
  flags.Field("ns_per_key_min", "number", "fastest round");
  flags.Field("ns_per_key_max", "number", "slowest round");
  flags.Field("positives", "int", "queries answered true (last round; hit: all, miss: the false positives)");
  flags.Field("fp", "number?", "miss modes: positives / keys; null otherwise");
}

// The 8-byte key for integer i (RocksDB's test: the bytes of a uint64).
inline uint64_t HashOf(const FilterPolicy& p, uint64_t i) {
  char key[8];
  std::memcpy(key, &i, 8);
  return p.HashKey(Slice(key, 8));
}

// Runs body(t) on `threads` threads (t = 0..threads-1; the calling thread is
// one of them) and returns the wall seconds from start to the last join.
template <class Body>
double TimeThreads(int threads, const Body& body) {
  const auto t0 = Clock::now();
  std::vector<std::thread> pool;
  for (int t = 1; t < threads; ++t) pool.emplace_back(body, t);
  body(0);
  for (auto& th : pool) th.join();
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

struct Round {
  double seconds = 0;
  uint64_t positives = 0;
};

// One timed pass of `mode` over `filter` (adds fill it; queries read it).
Round RunMode(const std::string& mode, const FilterPolicy& policy, Filter* filter, uint64_t base, uint64_t keys,
              int threads) {
  const bool parallel = mode.rfind("parallel_", 0) == 0;
  const std::string what = parallel ? mode.substr(9) : mode;
  const int n_threads = parallel ? threads : 1;
  const uint64_t first = base + (what == "miss" ? keys + 1 : 1);
  std::vector<uint64_t> positives(static_cast<size_t>(n_threads), 0);
  Round r;
  r.seconds = TimeThreads(n_threads, [&](int t) {
    const uint64_t step = static_cast<uint64_t>(n_threads);
    if (what == "add") {
      for (uint64_t i = first + static_cast<uint64_t>(t); i < first + keys; i += step) {
        if (parallel) {
          filter->AddConcurrently(HashOf(policy, i));
        } else {
          filter->Add(HashOf(policy, i));
        }
      }
      return;
    }
    uint64_t count = 0;
    for (uint64_t i = first + static_cast<uint64_t>(t); i < first + keys; i += step) {
      count += filter->MayContain(HashOf(policy, i)) ? 1 : 0;
    }
    positives[static_cast<size_t>(t)] = count;
  });
  for (uint64_t p : positives) r.positives += p;
  return r;
}

Status MakePolicies(const DynamicArgs& a, std::vector<std::pair<std::string, std::unique_ptr<FilterPolicy>>>* out) {
  const std::vector<std::string> specs =
      a.specs.empty()
          ? std::vector<std::string>{"dynamic:bpk=10", "dynamic_old:bpk=10", "dynamic_old:bpk=10,locality=1"}
          : a.specs;
  for (const std::string& text : specs) {
    std::unique_ptr<FilterPolicy> p;
    Status s = NewFilterPolicy(text, &p);
    if (!s.ok()) return Status::InvalidArgument("--filter: " + s.message());
    if (!p->is_dynamic()) {
      return Status::InvalidArgument("--filter=" + text + ": variant " + std::string(p->variant()) +
                                     " is not dynamic (it cannot add keys after construction); dynamic variants: "
                                     "dynamic, dynamic_old");
    }
    std::unique_ptr<Filter> probe;
    s = p->NewDynamic(static_cast<size_t>(a.keys), &probe);
    if (!s.ok())
      return Status::InvalidArgument("--filter=" + text + " with --keys=" + std::to_string(a.keys) + ": " +
                                     s.message());
    out->emplace_back(text, std::move(p));
  }
  return Status::OK();
}

}  // namespace

Status DynamicCommand(int argc, char** argv, const Emit& emit, std::string* help) {
  FlagSet flags("dynamic",
                "A dynamic (memtable) filter's add, hit and miss times, single-threaded and from --threads\n"
                "threads, the way RocksDB's dynamic_bloom_test times its DynamicBloom: keys 1..--keys as 8-byte\n"
                "integers (offset by --seed * 2^40), hashed inside the timed loop, one filter sized for them;\n"
                "misses ask the next --keys integers. One JSON line per filter and mode: the median of --rounds\n"
                "rounds.");
  DynamicArgs args;
  DeclareDynamicFlags(flags, &args);
  Status s = flags.Parse(argc, argv);
  if (!s.ok()) return s;
  if (flags.Answered(help)) return Status::OK();
  std::vector<std::pair<std::string, std::unique_ptr<FilterPolicy>>> policies;
  if (!(s = MakePolicies(args, &policies)).ok()) return s;
  if (flags.check_only()) return Status::OK();
  const auto keys = static_cast<uint64_t>(args.keys);
  const int threads = static_cast<int>(args.threads);
  const uint64_t base = static_cast<uint64_t>(args.seed) << 40;
  for (const auto& [arg, policy] : policies) {
    // The filters the queries read: the last round's of add / parallel_add.
    std::unique_ptr<Filter> serial, shared;
    for (const std::string& mode : args.modes) {
      const bool parallel = mode.rfind("parallel_", 0) == 0;
      const bool adds = mode == "add" || mode == "parallel_add";
      std::unique_ptr<Filter>& filter = parallel ? shared : serial;
      std::vector<double> ns;
      Round last;
      for (long long round = 0; round < args.rounds; ++round) {
        if (adds || filter == nullptr) {
          // A fresh filter per add round; queries without a preceding add
          // mode get one filled (untimed) first.
          if (!(s = policy->NewDynamic(keys, &filter)).ok()) return s;
          if (!adds) RunMode(parallel ? "parallel_add" : "add", *policy, filter.get(), base, keys, threads);
        }
        last = RunMode(mode, *policy, filter.get(), base, keys, threads);
        ns.push_back(last.seconds * 1e9 / static_cast<double>(keys));
      }
      JsonRecord j;
      j["command"] = "dynamic";
      j["filter"] = policy->spec();
      j["filter_arg"] = arg;
      j["variant"] = std::string(policy->variant());
      j["layout"] = filter->Describe();
      j["mode"] = mode;
      j["keys"] = keys;
      j["threads"] = parallel ? threads : 1;
      j["rounds"] = args.rounds;
      j["seed"] = args.seed;
      j["bits_per_key"] = 8.0 * static_cast<double>(filter->DataBytes()) / static_cast<double>(keys);
      j["bytes"] = static_cast<uint64_t>(filter->DataBytes());
      j["ns_per_key"] = Median(ns);
      j["ns_per_key_min"] = *std::min_element(ns.begin(), ns.end());
      j["ns_per_key_max"] = *std::max_element(ns.begin(), ns.end());
      j["positives"] = last.positives;
      if (mode.ends_with("miss")) {
        j["fp"] = static_cast<double>(last.positives) / static_cast<double>(keys);
      } else {
        j["fp"] = nullptr;
      }
      emit(j);
    }
  }
  return Status::OK();
}

}  // namespace filterlab::sim
