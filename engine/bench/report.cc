#include "engine/bench/report.h"

#include <cmath>
#include <cstdio>

#include "engine/db/options.h"
#include "engine/util/prefix_extractor.h"

namespace filterlab::lsmbench {
namespace {

double MicrosPerOp(const BenchResult& r) { return r.ops == 0 ? 0 : r.seconds * 1e6 / static_cast<double>(r.ops); }

double OpsPerSec(const BenchResult& r) { return r.seconds <= 0 ? 0 : static_cast<double>(r.ops) / r.seconds; }

// The levels' filter memory and false-positive reads as totals (engines whose
// levels carry wasted_reads, model_fp and filter_bytes: the filterlab DB).
// The measured reads are a sum of Bernoulli trials, one per table lookup of
// an absent key, each with its level's model FP rate; their model mean and
// standard deviation follow.
void AddFpReadTotals(const JsonRecord& levels, uint64_t ops, JsonRecord* rec) {
  if (!levels.is_array() || levels.empty()) return;
  double wasted = 0, model = 0, variance = 0, filter_bits = 0, entries = 0, tree = 0, range_bits = 0;
  for (const JsonRecord& l : levels) {
    if (!l.contains("wasted_reads")) return;
    const double missing = l["lookups"].get<double>() - l["found"].get<double>();
    const double p = l["model_fp"].get<double>();
    wasted += l["wasted_reads"].get<double>();
    model += missing * p;
    variance += missing * p * (1 - p);
    filter_bits += 8 * l["filter_bytes"].get<double>();
    if (l.contains("range_filter_bytes")) range_bits += 8 * l["range_filter_bytes"].get<double>();
    entries += l["entries"].get<double>();
    if (l.contains("reach")) tree += l["reach"].get<double>() * p;
  }
  (*rec)["filter_bits_per_key"] = entries > 0 ? filter_bits / entries : 0.0;
  (*rec)["range_filter_bits_per_key"] = entries > 0 ? range_bits / entries : 0.0;
  const double n = static_cast<double>(ops);
  (*rec)["fp_reads_per_op"] = ops > 0 ? JsonRecord(wasted / n) : JsonRecord();
  (*rec)["fp_reads_model_per_op"] = ops > 0 ? JsonRecord(model / n) : JsonRecord();
  (*rec)["fp_reads_model_sigma_per_op"] = ops > 0 ? JsonRecord(std::sqrt(variance) / n) : JsonRecord();
  (*rec)["fp_reads_tree_model"] = tree;
}

}  // namespace

std::string FormatTextLine(const BenchResult& r) {
  std::string extra;
  char buf[512];
  if (r.bytes > 0 && r.seconds > 0) {
    std::snprintf(buf, sizeof buf, " %6.1f MB/s", static_cast<double>(r.bytes) / 1048576.0 / r.seconds);
    extra += buf;
  }
  if (r.reports_found) {
    std::snprintf(buf, sizeof buf, " (%llu of %llu found)", static_cast<unsigned long long>(r.found),
                  static_cast<unsigned long long>(r.ops));
    extra += buf;
  }
  if (!r.variant.empty()) extra += " " + r.variant;
  std::snprintf(buf, sizeof buf, "%-12s : %11.3f micros/op %.0f ops/sec %.3f seconds %llu operations;%s\n",
                r.name.c_str(), MicrosPerOp(r), OpsPerSec(r), r.seconds, static_cast<unsigned long long>(r.ops),
                extra.c_str());
  std::string line = buf;
  if (r.latency.count() > 0) {
    line += "Microseconds per call:\n" + r.latency.ToString();
  }
  return line;
}

JsonRecord MakeRecord(const BenchConfig& c, Engine* engine, const BenchResult& r) {
  JsonRecord rec;
  rec["engine"] = c.engine;
  rec["benchmark"] = r.name;
  rec["num"] = c.num;
  rec["reads"] = c.reads;
  rec["ops"] = r.ops;
  rec["seconds"] = r.seconds;
  rec["micros_per_op"] = MicrosPerOp(r);
  rec["ops_per_sec"] = OpsPerSec(r);
  rec["cpu_seconds"] = r.cpu_seconds;
  rec["cpu_micros_per_op"] = r.ops == 0 ? 0 : r.cpu_seconds * 1e6 / static_cast<double>(r.ops);
  if (r.bytes > 0 && r.seconds > 0) rec["mb_per_sec"] = static_cast<double>(r.bytes) / 1048576.0 / r.seconds;
  rec["found"] = r.reports_found ? JsonRecord(r.found) : JsonRecord();
  rec["batch_size"] = c.batch_size;
  // multireadrandom's passes overwrite these two from r.fields below; every
  // other benchmark reports the first value of each list (see --help).
  rec["stride"] = c.multiread_strides.front();
  rec["multiread_batched"] = static_cast<bool>(c.multiread_batched.front());
  rec["key_size"] = c.key_size;
  rec["value_size"] = c.value_size;
  rec["filter"] = engine::FilterLabel(c.filter.get());
  if (!c.filter_policy.empty()) {
    rec["filter_policy"] = c.filter_policy;
    rec["filter_budget_bpk"] = c.filter_budget_bpk;
    rec["filter_found_share"] = c.filter_found_share;
  }
  if (!c.filter_per_level.empty()) {
    JsonRecord levels = JsonRecord::array();
    for (const auto& policy : c.filter_per_level) levels.push_back(engine::FilterLabel(policy.get()));
    rec["filter_per_level"] = levels;
  }
  rec["hash_index"] = c.hash_index;
  rec["util_ratio"] = c.util_ratio;
  rec["memtable_filter"] = engine::FilterLabel(c.memtable_filter.get());
  rec["memtable_bloom_ratio"] = c.memtable_filter == nullptr ? 0.0 : c.memtable_bloom_ratio;
  rec["block_size"] = c.block_size;
  rec["cache_mb"] = c.cache_mb;
  rec["compression"] = c.compression;
  rec["compression_ratio"] = c.compression_ratio;
  rec["write_buffer_mb"] = c.write_buffer_mb;
  rec["seed"] = c.seed;
  rec["prefix_extractor"] = engine::PrefixExtractorLabel(c.prefix_extractor.get());
  rec["keys_per_prefix"] = c.keys_per_prefix;
  rec["whole_key_filtering"] = c.whole_key_filtering;
  rec["memtable_whole_key_filtering"] = c.memtable_whole_key_filtering;
  rec["key_source"] = c.key_source;
  rec["range_filter"] = engine::RangeFilterLabel(c.range_filter.get());
  rec["max_scan_distance"] = c.max_scan_distance;
  rec["prefix_same_as_start"] = c.prefix_same_as_start;
  rec["total_order_seek"] = c.total_order_seek;
  rec["auto_prefix_mode"] = c.auto_prefix_mode;
  if (r.latency.count() > 0) {
    rec["latency_unit"] = "micros per call";
    rec["p50_micros"] = r.latency.Percentile(50);
    rec["p99_micros"] = r.latency.Percentile(99);
    rec["p999_micros"] = r.latency.Percentile(99.9);
    rec["max_micros"] = r.latency.max();
  }
  for (const auto& [key, value] : r.fields.items()) rec[key] = value;
  if (engine != nullptr) {
    engine->DescribeOptions(&rec);
    rec["sst_bytes"] = engine->TableBytes();
    JsonRecord levels = engine->Levels();
    if (!levels.is_null()) {
      AddFpReadTotals(levels, r.ops, &rec);
      rec["levels"] = std::move(levels);
    }
    JsonRecord seek_stats = engine->SeekStats();
    if (!seek_stats.is_null()) rec["seek_stats"] = std::move(seek_stats);
    JsonRecord tickers = engine->Tickers();
    if (!tickers.is_null()) rec["tickers"] = std::move(tickers);
    JsonRecord filter_stats = engine->FilterStats();
    if (!filter_stats.is_null()) rec["filter_stats"] = std::move(filter_stats);
    JsonRecord io = engine->IoStats();
    if (!io.is_null()) {
      const double ops = static_cast<double>(r.ops);
      io["data_block_reads_per_op"] =
          r.ops == 0 ? JsonRecord() : JsonRecord(io["block_reads"]["data"].get<double>() / ops);
      io["fp_data_block_reads_per_op"] = r.ops == 0 || io["fp_data_block_reads"].is_null()
                                             ? JsonRecord()
                                             : JsonRecord(io["fp_data_block_reads"].get<double>() / ops);
      rec["io"] = std::move(io);
    }
  }
  return rec;
}

}  // namespace filterlab::lsmbench
