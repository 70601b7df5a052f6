#include "engine/bench/engine.h"

namespace filterlab::lsmbench {

bool HaveRocksDb() {
#ifdef FILTERLAB_HAVE_ROCKSDB
  return true;
#else
  return false;
#endif
}

Status OpenEngine(const BenchConfig& config, const std::string& path, std::unique_ptr<Engine>* out) {
  if (config.engine == "filterlab") return OpenFilterlabEngine(config, path, out);
  if (config.engine == "memtable") return OpenMemTableEngine(config, out);
  if (config.engine == "rocksdb") {
#ifdef FILTERLAB_HAVE_ROCKSDB
    return OpenRocksDbEngine(config, path, out);
#else
    (void)path;
    return Status::NotSupported(
        "lsmbench: --engine=rocksdb is not available: this lsmbench was built without RocksDB (CMake found no "
        "pkg-config 'rocksdb'; install librocksdb-dev and reconfigure, or FILTERLAB_WITH_ROCKSDB was OFF)");
#endif
  }
  return Status::InvalidArgument("lsmbench: unknown engine '" + config.engine +
                                 "'; allowed: filterlab, memtable, rocksdb");
}

}  // namespace filterlab::lsmbench
