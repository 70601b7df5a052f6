#include "engine/bench/engine.h"

#include <cstdio>

#include "engine/util/direct_file.h"

namespace filterlab::lsmbench {
namespace {

Status RocksDbMissing() {
  return Status::NotSupported(
      "lsmbench: --engine=rocksdb is not available: this lsmbench was built without RocksDB (CMake found no "
      "pkg-config 'rocksdb'; install librocksdb-dev and reconfigure, or FILTERLAB_WITH_ROCKSDB was OFF)");
}

Status LevelDbMissing() {
  return Status::NotSupported(
      "lsmbench: --engine=leveldb is not available: this lsmbench was built without LevelDB (CMake found no "
      "leveldb package config; install libleveldb-dev and reconfigure, or FILTERLAB_WITH_LEVELDB was OFF)");
}

}  // namespace

bool HaveLevelDb() {
#ifdef FILTERLAB_HAVE_LEVELDB
  return true;
#else
  return false;
#endif
}

bool HaveRocksDb() {
#ifdef FILTERLAB_HAVE_ROCKSDB
  return true;
#else
  return false;
#endif
}

void AddFilterCounters(const engine::FilterCounters& counters, JsonRecord* level) {
  JsonRecord& entry = *level;
  entry["filter_checked"] = counters.checked;
  entry["filter_useful"] = counters.useful;
  entry["filter_positive"] = counters.positive;
  entry["filter_true_positive"] = counters.true_positive;
  const std::optional<double> fp_rate = counters.FpRate();
  entry["fp_rate"] = fp_rate ? JsonRecord(*fp_rate) : JsonRecord();
}

Status CheckEngineConfig(const BenchConfig& config) {
  if (config.engine == "rocksdb" && !HaveRocksDb()) return RocksDbMissing();
  if (config.engine == "leveldb" && !HaveLevelDb()) return LevelDbMissing();
  if (config.engine == "filterlab") {
    Status s = FilterlabDbOptions(config).Validate();
    if (!s.ok()) return Status::InvalidArgument("lsmbench: filterlab DB options: " + s.message());
  }
  return Status::OK();
}

Status OpenEngine(const BenchConfig& requested, const std::string& path, std::unique_ptr<Engine>* out) {
  BenchConfig config = requested;
  std::string why;
  if (config.use_direct_reads && !engine::DirectIoSupported(path, &why)) {
    std::fprintf(stderr,
                 "lsmbench: --use_direct_reads: %s; tables are read buffered instead, so block-cache misses are "
                 "page-cache copies, not storage reads (put --db on a disk filesystem for cold reads)\n",
                 why.c_str());
    config.use_direct_reads = false;
  }
  if (config.engine == "filterlab") return OpenFilterlabEngine(config, path, out);
  if (config.engine == "memtable") return OpenMemTableEngine(config, out);
  if (config.engine == "rocksdb") {
#ifdef FILTERLAB_HAVE_ROCKSDB
    return OpenRocksDbEngine(config, path, out);
#else
    (void)path;
    return RocksDbMissing();
#endif
  }
  if (config.engine == "leveldb") {
#ifdef FILTERLAB_HAVE_LEVELDB
    return OpenLevelDbEngine(config, path, out);
#else
    return LevelDbMissing();
#endif
  }
  return Status::InvalidArgument("lsmbench: unknown engine '" + config.engine +
                                 "'; allowed: filterlab, memtable, rocksdb, leveldb");
}

}  // namespace filterlab::lsmbench
