// `filterlab-tool sst-filters [--keys FILE | --sample N] [--json] FILE.sst...`:
// the filters of RocksDB block-based SST files (tools/rocksdb_sst.h). For each
// file: format_version and checksum, the filter (none, full or partitioned,
// the writer's policy name), and per filter block its format (RocksDB's
// legacy Bloom, FastLocalBloom or Ribbon, or a filterlab adapter spec), its
// layout (probes, or Ribbon's blocks and seed), bytes, entries and bits/key.
// With --keys FILE (one absent key per line) or --sample N (N random keys of
// the table's mean user-key length, seeded by --seed) it queries the filter
// as RocksDB's Get does and states the measured FP beside the model's, with
// the distance in binomial sigmas.
#pragma once

namespace filterlab {

// argv holds the arguments after "sst-filters"; returns the exit code (0 all
// files read, 1 a file could not be read, 2 usage errors).
int RunSstFilters(int argc, char** argv);

}  // namespace filterlab
