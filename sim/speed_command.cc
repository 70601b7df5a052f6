// `filterlab-sim speed` and `filterlab-sim floor`: flags and record output.
#include <algorithm>
#include <cmath>
#include <memory>

#include "common/flags.h"
#include "common/number_list.h"
#include "common/strings.h"
#include "filters/filter.h"
#include "filters/filter_spec.h"
#include "sim/commands.h"
#include "sim/floor.h"
#include "sim/machine.h"
#include "sim/speed.h"

namespace filterlab::sim {
namespace {

struct SpeedArgs {
  std::vector<std::string> specs, modes, mixes;
  long long ws_mb = 0, avg_keys = 0, key_size = 0, queries = 0, huge_keys = 0, seed = 0, rounds = 0;
  double vary = 0;
  std::string batches_text, depth_text, huge_pages, query_path;
  bool quick = false, net_hashing = false, no_floor = false;
};

void DeclareSpeedFlags(FlagSet& flags, SpeedArgs* a) {
  flags.List("filter", "filter spec (repeatable), e.g. fastlocal:bpk=10", &a->specs);
  flags.Int("working_set_mb", 0, 0, 1 << 20, "working-set size in MiB; 0 = 4x the last-level cache (>= 64 MiB)",
            &a->ws_mb);
  flags.Int("average_keys", 10000, 10, 100000000, "average keys per filter", &a->avg_keys);
  flags.Double("vary_ratio", 0.4, 0, 0.9, "keys per filter vary by +- this fraction", &a->vary);
  flags.Int("key_size", 24, 16, 48, "base key length (lengths spread over +0..+4)", &a->key_size);
  flags.Int("queries", 10000000, 1000, 10000000000LL, "queries per measurement", &a->queries);
  flags.Int("rounds", 5, 1, 100,
            "each measurement in this many parts, timed run, dry run (and floor) back to back per part; net\n"
            "and x_floor are the medians over parts, robust to the host's speed changing during a run",
            &a->rounds);
  flags.ChoiceList("modes", "build,single,random,random_pipelined,batched,skewed,huge", SpeedModeNames(),
                   "measurements to make (random: one query at a time as filter_bench; random_pipelined: the same\n"
                   "queries in groups of --pipeline_depth, each group's lines prefetched through FilterView::Prefetch\n"
                   "one group before it is answered)",
                   &a->modes);
  flags.ChoiceList("mixes", "inside,outside,mixed", QueryMixNames(),
                   "query mixes of single, random and random_pipelined", &a->mixes);
  flags.String("batch_sizes", "8,16,32", "batch sizes for batched and huge modes (2..64)", &a->batches_text);
  flags.Int("huge_keys", 100000000, 1000, 2000000000LL, "keys of the one filter of the huge mode", &a->huge_keys);
  flags.Choice("huge_pages", "auto", {"auto", "on", "off"},
               "ask for 2 MiB pages (auto: unless THP is 'never'); records say whether they were granted",
               &a->huge_pages);
  flags.Choice("query_path", "view", {"view", "object"},
               "view: query each filter through its FilterView kept in the harness's per-filter array (no\n"
               "read of the Filter object); object: through the object's virtual MayContain, as filter_bench\n"
               "calls its reader objects (every query also reads the object)",
               &a->query_path);
  flags.Bool("net_includes_hashing", "the dry run does not hash, so net ns/op includes hashing", &a->net_hashing);
  flags.Bool("quick",
             "build, single, random and random_pipelined with the mixed mix only, 4M queries each (under a minute)",
             &a->quick);
  flags.String("pipeline_depth", "16",
               "random_pipelined: queries per group (a group's lines are prefetched while the group before it is\n"
               "answered); a list of 2, 4, 8, 16, 32, 64 or auto (one record each); auto: the power of two nearest\n"
               "16 / the lines a query reads (2..16), so that about 16 lines are in flight whatever the filter",
               &a->depth_text);
  flags.Bool("no_floor", "skip the memory-floor measurement of random modes", &a->no_floor);
  flags.Int("seed", 0, 0, 0xffffffffLL, "seed of filter_bench's mt19937 generator", &a->seed);
  flags.Field("command", "string", "\"speed\"");
  flags.Field("filter", "string", "canonical spec, every parameter resolved");
  flags.Field("filter_arg", "string", "the --filter text");
  flags.Field("layout", "string", "the first filter's Describe()");
  flags.Field("mode", "string", "build | single | random | random_pipelined | batched | skewed | huge");
  flags.Field("working_set_bytes", "int", "serialized bytes of the filters queried");
  flags.Field("filters", "int", "filters in the working set");
  flags.Field("keys", "int", "keys over all filters");
  flags.Field("bits_per_key", "number", "8 * working_set_bytes / keys");
  flags.Field("huge_pages", "bool", "whether the arena got 2 MiB pages");
  flags.Field("query_path", "string", "view | object");
  flags.Field("key_size", "int", "base key length");
  flags.Field("seed", "int", "seed");
  flags.Field("ns_per_key", "number", "build: key making + HashKey + Build, ns per key");
  flags.Field("build_call_ns_per_key", "number", "build: FilterPolicy::Build alone, ns per key");
  flags.Field("average_keys", "int", "build: average keys per filter");
  flags.Field("vary_ratio", "number", "build: keys per filter vary by +- this fraction");
  flags.Field("mix", "string", "inside | outside | mixed");
  flags.Field("pick", "string", "single | random | skewed: how a query's filter is chosen");
  flags.Field("batch", "int", "queries per MayContainBatch (1: one MayContain per query)");
  flags.Field("prepared", "bool", "batched: one MayContainBatch call (true) or MayContain one by one");
  flags.Field("pipeline_depth", "int", "random_pipelined: queries per prefetched group; 0 otherwise");
  flags.Field("pipeline_depth_auto", "bool",
              "random_pipelined: the depth was chosen from lines_per_query (--pipeline_depth auto)");
  flags.Field("skew", "string", "skewed: the share of queries and the primary filters");
  flags.Field("queries", "int", "queries measured");
  flags.Field("rounds", "int", "parts of the measurement");
  flags.Field("net_includes_hashing", "bool", "whether net includes hashing the key");
  flags.Field("gross_ns_per_op", "number", "timed run, ns per query");
  flags.Field("dry_ns_per_op", "number", "dry run (everything but the filter call), ns per query");
  flags.Field("net_ns_per_op", "number", "median over rounds of (gross - dry) per query");
  flags.Field("net_ns_per_op_rounds", "array", "net per round");
  flags.Field("gross_cpu_ns_per_op", "number", "timed run, thread CPU ns per query");
  flags.Field("dry_cpu_ns_per_op", "number", "dry run, thread CPU ns per query");
  flags.Field("net_cpu_ns_per_op", "number", "(gross - dry) CPU ns per query");
  flags.Field("fp", "number?", "false positives / outside queries; null without outside queries");
  flags.Field("outside_queries", "int", "queries about keys never added");
  flags.Field("translation_page_bytes", "int", "the page size the TLB caches for the arena's pages");
  flags.Field("floor_ns_per_line", "number", "median per round of an independent random line read over the arena");
  flags.Field("x_floor", "number", "median per round of net / floor");
  flags.Field("x_floor_rounds", "array", "net / floor per round");
  flags.Field("lines_per_query", "number",
              "cache lines one query of an added key reads, over the first 4 filters (sim/lines_read.h)");
  flags.Field("x_floor_per_line", "number", "x_floor / lines_per_query: against the floor of the lines read");
}

// The flags made into a config; every spec through the registry and the
// memory the run needs checked, so --check can stop after this.
Status MakeSpeedConfig(const SpeedArgs& a, const FlagSet& flags, SpeedConfig* cfg) {
  if (a.specs.empty())
    return Status::InvalidArgument("speed: give at least one --filter SPEC (e.g. --filter fastlocal:bpk=10)");
  Status s;
  for (const auto& spec : a.specs) {
    std::unique_ptr<FilterPolicy> policy;
    if (!(s = NewFilterPolicy(spec, &policy)).ok()) return Status::InvalidArgument("--filter: " + s.message());
  }
  cfg->working_set_bytes = static_cast<uint64_t>(a.ws_mb) << 20;
  cfg->average_keys = static_cast<uint64_t>(a.avg_keys);
  cfg->vary_ratio = a.vary;
  cfg->key_size = static_cast<int>(a.key_size);
  cfg->queries = static_cast<uint64_t>(a.queries);
  cfg->rounds = static_cast<int>(a.rounds);
  cfg->huge_keys = static_cast<uint64_t>(a.huge_keys);
  cfg->huge_pages = a.huge_pages;
  cfg->query_path = a.query_path;
  cfg->net_includes_hashing = a.net_hashing;
  cfg->measure_floor = !a.no_floor;
  cfg->seed = static_cast<uint32_t>(a.seed);
  cfg->pipeline_depths.clear();
  for (const std::string& entry : Split(a.depth_text, ',')) {
    const std::string item(Trim(entry));
    if (item == "auto") {
      cfg->pipeline_depths.push_back(kAutoPipelineDepth);
      continue;
    }
    std::vector<double> one;
    const bool number = ParseNumberList("pipeline_depth", item, 2, 64, &one).ok() && one.size() == 1;
    const int depth = number ? static_cast<int>(one[0]) : 0;
    if (!number || depth != one[0] || (depth & (depth - 1)) != 0) {
      return Status::InvalidArgument("--pipeline_depth: '" + item +
                                     "' is not allowed; depths are 2, 4, 8, 16, 32, 64 or auto");
    }
    cfg->pipeline_depths.push_back(depth);
  }
  cfg->modes = SpeedModesNamed(a.modes);
  cfg->mixes = QueryMixesNamed(a.mixes);
  std::vector<double> batches;
  if (!(s = ParseNumberList("batch_sizes", a.batches_text, 2, 64, &batches)).ok()) return s;
  cfg->batch_sizes.clear();
  for (double b : batches) cfg->batch_sizes.push_back(static_cast<int>(b));
  if (a.quick) {
    cfg->modes = {SpeedMode::kBuild, SpeedMode::kSingle, SpeedMode::kRandom, SpeedMode::kRandomPipelined};
    cfg->mixes = {QueryMix::kMixed};
    if (!flags.WasSet("queries")) cfg->queries = 4000000;
  }
  const uint64_t ws = cfg->working_set_bytes ? cfg->working_set_bytes
                                             : std::max<uint64_t>(4 * LastLevelCacheBytes(), uint64_t{64} << 20);
  // The serialized filters and the arena they are copied into coexist briefly.
  if (!(s = CheckMemory(ws * 22 / 10, "--working_set_mb " + std::to_string(ws >> 20))).ok()) return s;
  if (std::find(cfg->modes.begin(), cfg->modes.end(), SpeedMode::kHuge) != cfg->modes.end()) {
    for (const auto& spec : a.specs) {
      std::unique_ptr<FilterPolicy> policy;
      if (!(s = NewFilterPolicy(spec, &policy)).ok()) return s;
      if (!(s = CheckMemory(HugeModeMemory(*policy, cfg->huge_keys),
                            "--huge_keys " + std::to_string(cfg->huge_keys) + " with --filter " + spec))
               .ok()) {
        return s;
      }
    }
  }
  return Status::OK();
}

}  // namespace

Status SpeedCommand(int argc, char** argv, const Emit& emit, std::string* help) {
  FlagSet flags("speed",
                "filter_bench-style timings (RocksDB's util/filter_bench.cc): a working set of filters\n"
                "of ~--average_keys keys (+-40%) from 24..28-byte keys, serialized into one 2 MiB-page arena;\n"
                "build ns/key; net ns/op = (gross - dry run) / queries for single (hot), random, random_pipelined\n"
                "(the same queries, the next ones' lines prefetched through FilterView::Prefetch), batched\n"
                "(prepared = MayContainBatch with prefetch, unprepared = MayContain one by one), skewed and\n"
                "huge (one --huge_keys filter) modes; fp among outside queries; random-filter records carry\n"
                "floor_ns_per_line (independent random line read, prefetch 32, 1 thread, same arena) and\n"
                "x_floor. Single-threaded, like filter_bench.");
  SpeedArgs args;
  DeclareSpeedFlags(flags, &args);
  Status s = flags.Parse(argc, argv);
  if (!s.ok()) return s;
  if (flags.Answered(help)) return Status::OK();
  SpeedConfig cfg;
  if (!(s = MakeSpeedConfig(args, flags, &cfg)).ok()) return s;
  if (flags.check_only()) return Status::OK();
  for (const auto& spec : args.specs) {
    cfg.filter_spec = spec;
    if (!(s = RunSpeed(cfg, emit)).ok()) return s;
  }
  return Status::OK();
}

namespace {

struct FloorArgs {
  long long min_kb = 0, max_mb = 0, distance = 0, threads = 0, reads = 0, hops = 0, seed = 0, work = 0;
  std::string pages;
};

void DeclareFloorFlags(FlagSet& flags, FloorArgs* a) {
  flags.Int("min_kb", 32, 4, 1 << 30, "smallest working set in KiB", &a->min_kb);
  flags.Int("max_mb", 4096, 1, 1 << 20, "largest working set in MiB", &a->max_mb);
  flags.Int("distance", 32, 0, 4096, "software prefetch distance in reads (0 = no prefetch)", &a->distance);
  flags.Int("threads", 0, 0, 1024, "threads of the all-threads measurement; 0 = all cores", &a->threads);
  flags.Int("reads", 20000000, 1000, 10000000000LL, "random line reads per thread per measurement", &a->reads);
  flags.Int("hops", 5000000, 1000, 10000000000LL, "dependent loads per latency measurement", &a->hops);
  flags.Int("prefetch_work", 16, 0, 4096,
            "prefetch_cost: units of arithmetic per line (4 independent multiply-adds each); 0 = skip the measure",
            &a->work);
  flags.Choice("pages", "both", {"4k", "2m", "both"}, "page sizes to measure", &a->pages);
  flags.Int("seed", 0, 0, 1LL << 62, "seed of the address streams", &a->seed);
  flags.Field("command", "string", "\"floor\"");
  flags.Field("measure", "string", "translation | dependent_load | random_line_read | prefetch_cost");
  flags.Field("working_set_bytes", "int", "bytes the measurement spans");
  flags.Field("page_bytes", "int", "page size asked for: 4096 or 2097152");
  flags.Field("huge_pages", "bool", "whether 2 MiB pages were granted");
  flags.Field("threads", "int", "threads reading");
  flags.Field("pages_touched", "int", "translation: 4 KiB pages the spread chase visits");
  flags.Field("dense_ns_per_line", "number", "translation: chase over densely packed lines");
  flags.Field("translation_page_bytes", "int", "translation: the page size the TLB really caches");
  flags.Field("prefetch_distance", "int", "random_line_read: reads prefetched ahead");
  flags.Field("prefetch_work", "int", "prefetch_cost: arithmetic units per line");
  flags.Field("work_ns_per_line", "number", "prefetch_cost: the arithmetic alone, ns per line");
  flags.Field("ns_per_line", "number", "ns per line (aggregate over threads)");
}

// Working sets from min_kb to max_mb, x4 below 1 GiB and x2 above, max_mb last.
std::vector<uint64_t> FloorSizes(const FloorArgs& a) {
  const uint64_t max_bytes = static_cast<uint64_t>(a.max_mb) << 20;
  std::vector<uint64_t> sizes;
  for (uint64_t b = static_cast<uint64_t>(a.min_kb) * 1024; b <= max_bytes; b *= (b < (uint64_t{1} << 30) ? 4 : 2)) {
    sizes.push_back(b);
  }
  if (sizes.empty() || sizes.back() != max_bytes) sizes.push_back(max_bytes);
  return sizes;
}

// Whether pages of this size translate as what they are (ProbeTranslation).
Status EmitTranslation(const FloorArgs& a, bool huge, const Emit& emit) {
  std::unique_ptr<PageArena> probe_arena;
  const size_t probe_bytes = TranslationProbe::kPages * 4096;
  Status s = PageArena::Allocate(probe_bytes, huge, &probe_arena);
  if (!s.ok()) return s;
  const TranslationProbe probe =
      ProbeTranslation(probe_arena->data(), static_cast<uint64_t>(a.hops), static_cast<uint64_t>(a.seed) + 3);
  JsonRecord r;
  r["command"] = "floor";
  r["measure"] = "translation";
  r["working_set_bytes"] = probe_bytes;
  r["page_bytes"] = huge ? 2097152 : 4096;
  r["huge_pages"] = huge && probe_arena->huge_pages();
  r["threads"] = 1;
  r["pages_touched"] = TranslationProbe::kPages;
  r["dense_ns_per_line"] = probe.dense_ns;
  r["ns_per_line"] = probe.spread_ns;
  r["translation_page_bytes"] = probe.translation_page_bytes;
  emit(r);
  return Status::OK();
}

// Every measure over the first `bytes` of the arena.
void EmitWorkingSet(const FloorArgs& a, PageArena& arena, uint64_t bytes, bool huge, int all_threads,
                    const Emit& emit) {
  const size_t lines = bytes / 64;
  const uint64_t seed = static_cast<uint64_t>(a.seed), reads = static_cast<uint64_t>(a.reads);
  PreparePointerChase(arena.data(), lines, seed);
  JsonRecord base;
  base["command"] = "floor";
  base["working_set_bytes"] = bytes;
  base["page_bytes"] = huge ? 2097152 : 4096;
  base["huge_pages"] = huge && arena.huge_pages();
  JsonRecord lat = base;
  lat["measure"] = "dependent_load";
  lat["threads"] = 1;
  DependentLoadNs(arena.data(), std::min<uint64_t>(static_cast<uint64_t>(a.hops) / 4, lines));  // warm-up
  lat["ns_per_line"] = DependentLoadNs(arena.data(), static_cast<uint64_t>(a.hops));
  emit(lat);
  for (int t : {1, all_threads}) {
    for (int d : {0, static_cast<int>(a.distance)}) {
      JsonRecord r = base;
      r["measure"] = "random_line_read";
      r["threads"] = t;
      r["prefetch_distance"] = d;
      r["ns_per_line"] = RandomLineReadNs(arena.data(), lines, reads, d, t, seed + 1);
      emit(r);
    }
    if (all_threads == 1) break;
  }
  if (a.work > 0) {
    JsonRecord r = base;
    r["measure"] = "prefetch_cost";
    r["threads"] = 1;
    r["prefetch_work"] = a.work;
    double work_ns = 0;
    r["ns_per_line"] = PrefetchCostNs(arena.data(), lines, reads, static_cast<int>(a.work), seed + 2, &work_ns);
    r["work_ns_per_line"] = work_ns;
    emit(r);
  }
}

}  // namespace

Status FloorCommand(int argc, char** argv, const Emit& emit, std::string* help) {
  FlagSet flags("floor",
                "The machine's memory floors over working sets from --min_kb to --max_mb (x4 steps below\n"
                "1 GiB, x2 above): dependent random-load latency (pointer chasing, 1 thread) and independent\n"
                "random 64-byte line reads (prefetch --distance ahead, 1 thread and --threads), on 4 KiB and\n"
                "2 MiB pages, and prefetch_cost: the in-core ns a random-line prefetch costs amid register-only\n"
                "work (groups of 16 prefetches, then 16 x --prefetch_work units of arithmetic; ~0 where the\n"
                "line stream hides under compute). Per page size also `translation`: the page size the TLB\n"
                "really caches (translation_page_bytes; 4096 when a hypervisor backs 2 MiB guest pages with\n"
                "4 KiB ones), from a pointer chase over one line in each of 8192 4 KiB pages against a dense\n"
                "one. One JSON line per measurement, ns per line (aggregate for several threads).");
  FloorArgs args;
  DeclareFloorFlags(flags, &args);
  Status s = flags.Parse(argc, argv);
  if (!s.ok()) return s;
  if (flags.Answered(help)) return Status::OK();
  if (static_cast<uint64_t>(args.min_kb) * 1024 > static_cast<uint64_t>(args.max_mb) << 20) {
    return Status::InvalidArgument("--min_kb=" + std::to_string(args.min_kb) +
                                   " exceeds --max_mb=" + std::to_string(args.max_mb));
  }
  const uint64_t max_bytes = static_cast<uint64_t>(args.max_mb) << 20;
  if (!(s = CheckMemory(max_bytes + max_bytes / 16, "--max_mb " + std::to_string(args.max_mb))).ok()) return s;
  if (flags.check_only()) return Status::OK();
  const int all = args.threads == 0 ? NumCores() : static_cast<int>(args.threads);
  for (bool huge : {false, true}) {
    if ((huge && args.pages == "4k") || (!huge && args.pages == "2m")) continue;
    if (!(s = EmitTranslation(args, huge, emit)).ok()) return s;
    std::unique_ptr<PageArena> arena;
    if (!(s = PageArena::Allocate(max_bytes, huge, &arena)).ok()) return s;
    for (uint64_t bytes : FloorSizes(args)) EmitWorkingSet(args, *arena, bytes, huge, all, emit);
  }
  return Status::OK();
}

}  // namespace filterlab::sim
