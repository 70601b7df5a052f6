// DBImpl::GetProperty: the text forms of DbStats (db_stats.h), one formatter
// per property, all reading one GetStats() snapshot. The names and formats
// are listed in db.h.
#include <cstdio>

#include "engine/db/db_impl.h"

namespace filterlab::engine {
namespace {

// The level N of a property named PREFIX<N>, if `name` is one and N < num_levels.
bool ParseLevelSuffix(const std::string& name, const std::string& prefix, size_t num_levels, size_t* level) {
  if (name.rfind(prefix, 0) != 0 || name.size() == prefix.size() || name.size() > prefix.size() + 3) return false;
  size_t v = 0;
  for (size_t i = prefix.size(); i < name.size(); ++i) {
    if (name[i] < '0' || name[i] > '9') return false;
    v = v * 10 + static_cast<size_t>(name[i] - '0');
  }
  if (v >= num_levels) return false;
  *level = v;
  return true;
}

std::string Num(uint64_t v) { return std::to_string(v); }

// "files[a b c ...] bytes[...]"
std::string LevelSummary(const DbStats& stats) {
  std::string files, bytes;
  for (const LevelStats& l : stats.levels) {
    if (!files.empty()) files += ' ';
    if (!bytes.empty()) bytes += ' ';
    files += Num(l.files);
    bytes += Num(l.bytes);
  }
  return "files[" + files + "] bytes[" + bytes + "]";
}

// "L<n>: <every level ticker>=v ... fp_rate=r wasted_reads=w model_fp=m filter_bytes=b filter=SPEC"
std::string FilterLine(const LevelStats& l) {
  const FilterCounters c = l.filter_counters();
  std::string line = "L";  // appended piece by piece: GCC 12 warns (-Wrestrict) on "L" + to_string(...)
  line += std::to_string(l.level);
  line += ':';
  for (size_t t = 0; t < kNumLevelTickers; ++t) {
    line += std::string(" ") + kLevelTickerInfo[t].name + "=" + Num(l.tickers.values[t]);
  }
  char fp[64];
  const std::optional<double> rate = c.FpRate();
  if (rate) {
    std::snprintf(fp, sizeof(fp), "%.6f", *rate);
  } else {
    std::snprintf(fp, sizeof(fp), "n/a");
  }
  line += " fp_rate=";
  line += fp;
  line += " wasted_reads=" + Num(c.wasted_reads());
  std::snprintf(fp, sizeof(fp), "%.6g", l.model_fp);
  line += " model_fp=";
  line += fp;
  line += " filter_bytes=" + Num(l.filter_bytes);
  line += " filter=" + l.filter;
  return line;
}

std::string FilterLines(const DbStats& stats) {
  std::string text;
  for (const LevelStats& l : stats.levels) text += FilterLine(l) + "\n";
  return text;
}

std::string MemTableFilterText(const DbStats& stats) {
  return "negatives=" + Num(stats.memtable_filter.negatives) + " positives=" + Num(stats.memtable_filter.positives) +
         " prefix_hits=" + Num(stats.memtable_filter.prefix_hits) +
         " prefix_misses=" + Num(stats.memtable_filter.prefix_misses) + " (live memtables only)";
}

std::string BlockCacheText(const DbStats& stats) {
  if (!stats.block_cache) return "none";
  const BlockCacheStats& c = *stats.block_cache;
  return "hits=" + Num(c.hits) + " misses=" + Num(c.misses) + " usage=" + Num(c.usage) + " capacity=" + Num(c.capacity);
}

std::string HashIndexText(const DbStats& stats) {
  return "lookups=" + Num(stats.hash_index.lookups) + " collisions=" + Num(stats.hash_index.collisions) +
         " (tables currently open)";
}

// Every DB-wide ticker as "name=value", space-separated (db_tickers.h's order).
std::string TickersText(const DbStats& stats) {
  std::string text;
  for (size_t t = 0; t < kNumTickers; ++t) {
    if (!text.empty()) text += ' ';
    text += std::string(kTickerInfo[t].name) + "=" + Num(stats.counters.values[t]);
  }
  return text;
}

std::string RecoveryText(const DbStats& stats) {
  const RecoveryStats& r = stats.recovery;
  return "mode=" + r.wal_recovery_mode + " wal_records_replayed=" + Num(r.wal_records_replayed) +
         " wal_damaged_regions=" + Num(r.wal_damaged_regions) + " wal_bytes_dropped=" + Num(r.wal_bytes_dropped) +
         " wal_records_dropped=" + Num(r.wal_records_dropped) + " wal_writes_dropped=" + Num(r.wal_writes_dropped) +
         " manifest_bytes_dropped=" + Num(r.manifest_bytes_dropped) +
         " files_moved_to_lost=" + Num(r.files_moved_to_lost);
}

std::string AllStatsText(const DbStats& stats) {
  return "levels: " + LevelSummary(stats) + "\n" + FilterLines(stats) +
         "memtable filter: " + MemTableFilterText(stats) + "\nblock cache: " + BlockCacheText(stats) +
         "\nhash index: " + HashIndexText(stats) + "\ntickers: " + TickersText(stats) +
         " data_block_reads(open tables)=" + Num(stats.data_block_reads) + "\nrecovery: " + RecoveryText(stats) + "\n";
}

}  // namespace

bool DBImpl::GetProperty(const std::string& name, std::string* value) {
  const std::string prefix = "filterlab.";
  if (name.rfind(prefix, 0) != 0) return false;
  const std::string what = name.substr(prefix.size());
  const DbStats stats = GetStats();
  size_t level = 0;
  if (ParseLevelSuffix(what, "num-files-at-level", stats.levels.size(), &level)) {
    *value = Num(stats.levels[level].files);
  } else if (ParseLevelSuffix(what, "bytes-at-level", stats.levels.size(), &level)) {
    *value = Num(stats.levels[level].bytes);
  } else if (ParseLevelSuffix(what, "filter-stats-level", stats.levels.size(), &level)) {
    const FilterCounters c = stats.levels[level].filter_counters();
    *value = Num(c.checked) + " " + Num(c.useful) + " " + Num(c.positive) + " " + Num(c.true_positive);
  } else if (what == "level-summary") {
    *value = LevelSummary(stats);
  } else if (what == "filter-stats") {
    *value = FilterLines(stats);
  } else if (what == "memtable-filter-stats") {
    *value = MemTableFilterText(stats);
  } else if (what == "block-cache-stats") {
    *value = BlockCacheText(stats);
  } else if (what == "hash-index-stats") {
    *value = HashIndexText(stats);
  } else if (what == "total-sst-bytes") {
    *value = Num(stats.total_sst_bytes);
  } else if (what == "tickers") {
    *value = TickersText(stats);
  } else if (what == "recovery-stats") {
    *value = RecoveryText(stats);
  } else if (what == "stats") {
    *value = AllStatsText(stats);
  } else {
    return false;
  }
  return true;
}

}  // namespace filterlab::engine
