// The DB's counters, each defined once (RocksDB's way: include/rocksdb/
// statistics.h's enum Tickers and its TickersNameMap): one X-macro line per
// counter gives its enum value, its name and its help. From these lists
// come the counters' storage (DBImpl: per-thread-slot StripedCounters), the
// typed values of DbStats (TickerValues), the text of GetProperty
// ("filterlab.stats", "filterlab.tickers") and lsmbench's record fields
// (the `tickers` object, the per-level fields), so adding a counter is one
// line here plus the statement that counts it.
//
// DB-wide tickers count since Open. Level tickers count per level since the
// last ResetFilterStats: the point lookups' table filter answers and table
// lookups (FilterCounters in db_stats.h derives the FP rate from them), and
// the seeks' filter answers as RocksDB counts them since its PR #11460
// (NON_LAST_LEVEL_SEEK_* / LAST_LEVEL_SEEK_* in statistics.h): a seek into
// a table either is filtered (a filter said its range is empty: the table is
// skipped), or reads data, and data that held a key in range is "useful".
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

namespace filterlab::engine {

// X(enum name, name in text and records, help)
#define FILTERLAB_DB_TICKERS(X)                                                                   \
  X(kWrites, "writes", "user writes (puts and deletes)")                                          \
  X(kWriteBatches, "write_batches", "write batches applied")                                      \
  X(kBytesWritten, "bytes_written", "bytes of the batches written")                               \
  X(kWalSyncs, "wal_syncs", "WAL fdatasync calls")                                                \
  X(kWriteGroups, "write_groups", "group-commit rounds (one WAL append run, at most one sync)")   \
  X(kStalls, "stalls", "writes stopped until a flush or compaction made room")                    \
  X(kStallMicros, "stall_micros", "microseconds writes spent stopped")                            \
  X(kSlowdowns, "slowdowns", "writes delayed by the level-0 slowdown trigger")                    \
  X(kFlushes, "flushes", "memtables flushed to level-0 tables")                                   \
  X(kFlushBytes, "flush_bytes", "bytes of the tables flushes wrote")                              \
  X(kCompactions, "compactions", "compactions that merged and rewrote tables")                    \
  X(kTrivialMoves, "trivial_moves", "tables moved one level down without rewriting")              \
  X(kCompactionBytesRead, "compaction_bytes_read", "bytes of the tables compactions read")        \
  X(kCompactionBytesWritten, "compaction_bytes_written", "bytes of the tables compactions wrote") \
  X(kEntriesDropped, "entries_dropped", "entries compactions dropped (overwritten or deleted)")   \
  X(kGets, "gets", "Get calls")                                                                   \
  X(kMultiGets, "multigets", "MultiGet calls")                                                    \
  X(kMultiGetKeys, "multiget_keys", "keys asked by MultiGet calls")                               \
  X(kTableLookups, "table_lookups", "point lookups in tables (Get and MultiGet keys)")

// X(enum name, name in text and records, help)
#define FILTERLAB_LEVEL_TICKERS(X)                                                                              \
  X(kFilterChecked, "filter_checked", "point lookups that asked a table filter at the level")                   \
  X(kFilterUseful, "filter_useful", "... that the filter answered absent (the table skipped)")                  \
  X(kFilterPositive, "filter_positive", "... that the filter passed")                                           \
  X(kFilterTruePositive, "filter_true_positive", "... passed, and the table held the key")                      \
  X(kLookups, "lookups", "point lookups in the level's tables, with a filter or without")                       \
  X(kFound, "found", "... that found the key in the table")                                                     \
  X(kSeekFiltered, "seek_filtered", "table seeks a filter ruled out (the table skipped: no index, no data)")    \
  X(kSeekFilterMatch, "seek_filter_match", "table seeks a filter was asked about and passed")                   \
  X(kSeekData, "seek_data", "table seeks that read the table (index and a data block)")                         \
  X(kSeekDataUsefulNoFilter, "seek_data_useful_no_filter",                                                      \
    "... that found a key in the seek's range, no filter asked")                                                \
  X(kSeekDataUsefulFilterMatch, "seek_data_useful_filter_match",                                                \
    "... that found a key in the seek's range after a filter passed them")                                      \
  X(kSeekRangeFiltered, "seek_range_filtered", "table seeks the range filter ruled out (within seek_filtered)") \
  X(kSeekRangeFilterMatch, "seek_range_filter_match", "table seeks the range filter passed (within seek_filter_match)")

#define FILTERLAB_TICKER_ENUM_(id, name, help) id,
enum class Ticker : size_t { FILTERLAB_DB_TICKERS(FILTERLAB_TICKER_ENUM_) kCount };
enum class LevelTicker : size_t { FILTERLAB_LEVEL_TICKERS(FILTERLAB_TICKER_ENUM_) kCount };
#undef FILTERLAB_TICKER_ENUM_

inline constexpr size_t kNumTickers = static_cast<size_t>(Ticker::kCount);
inline constexpr size_t kNumLevelTickers = static_cast<size_t>(LevelTicker::kCount);

struct TickerInfo {
  const char* name;
  const char* help;
};
#define FILTERLAB_TICKER_INFO_(id, name, help) TickerInfo{name, help},
inline constexpr std::array<TickerInfo, kNumTickers> kTickerInfo = {FILTERLAB_DB_TICKERS(FILTERLAB_TICKER_INFO_)};
inline constexpr std::array<TickerInfo, kNumLevelTickers> kLevelTickerInfo = {
    FILTERLAB_LEVEL_TICKERS(FILTERLAB_TICKER_INFO_)};
#undef FILTERLAB_TICKER_INFO_

inline const char* TickerName(Ticker t) { return kTickerInfo[static_cast<size_t>(t)].name; }
inline const char* TickerName(LevelTicker t) { return kLevelTickerInfo[static_cast<size_t>(t)].name; }

// The values of every ticker of one list, taken at one moment.
template <typename TickerEnum, size_t N>
struct TickerValues {
  std::array<uint64_t, N> values{};
  uint64_t operator[](TickerEnum t) const { return values[static_cast<size_t>(t)]; }
  uint64_t& operator[](TickerEnum t) { return values[static_cast<size_t>(t)]; }
};
using DbTickers = TickerValues<Ticker, kNumTickers>;
using LevelTickers = TickerValues<LevelTicker, kNumLevelTickers>;

}  // namespace filterlab::engine
