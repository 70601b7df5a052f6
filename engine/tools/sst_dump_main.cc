// sst-dump FILE [--keys]: prints a table's footer, properties and filter,
// statistics over its data blocks (sizes, entries, restart intervals, hash
// index buckets, empty/collision buckets, and the fallback count: existing
// keys whose point lookup falls back to binary search because their bucket
// is a collision, RocksDB's blog post on the data-block hash index, 2018) and, with --keys, every entry.
#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>

#include "engine/memtable/internal_key.h"
#include "engine/table/block.h"
#include "engine/table/table_reader.h"
#include "engine/util/file.h"

namespace filterlab::engine {
namespace {

std::string Escape(const Slice& s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c >= 0x20 && c < 0x7f && c != '\\') {
      out.push_back(static_cast<char>(c));
    } else {
      char buf[8];
      std::snprintf(buf, sizeof(buf), "\\x%02x", c);
      out += buf;
    }
  }
  return out;
}

struct BlockStats {
  uint64_t blocks = 0, bytes = 0, min_bytes = UINT64_MAX, max_bytes = 0;
  uint64_t entries = 0, restarts = 0;
  uint64_t hash_blocks = 0, buckets = 0, empty_buckets = 0, collision_buckets = 0;
  uint64_t hash_entries = 0, fallbacks = 0;  // lookups of the entries of hash blocks
};

Status Collect(const Block& block, BlockStats* st) {
  ++st->blocks;
  st->bytes += block.size();
  st->min_bytes = std::min<uint64_t>(st->min_bytes, block.size());
  st->max_bytes = std::max<uint64_t>(st->max_bytes, block.size());
  st->restarts += block.num_restarts();
  BlockIter it(&block);
  uint64_t entries = 0;
  for (it.SeekToFirst(); it.Valid(); it.Next()) ++entries;
  if (!it.status().ok()) return it.status();
  st->entries += entries;
  if (!block.has_hash_index()) return Status::OK();
  ++st->hash_blocks;
  const uint16_t m = block.hash_index().num_buckets();
  st->buckets += m;
  const Slice bytes = block.contents();
  for (uint16_t b = 0; b < m; ++b) {
    const auto v = static_cast<uint8_t>(bytes[block.hash_index().map_offset() + b]);
    st->empty_buckets += v == kHashIndexNoEntry;
    st->collision_buckets += v == kHashIndexCollision;
  }
  // Look every entry up by its own key, as a point read of an existing key would.
  BlockIter scan(&block);
  for (scan.SeekToFirst(); scan.Valid(); scan.Next()) {
    BlockIter probe(&block);
    probe.SeekForGet(scan.key());
    ++st->hash_entries;
    st->fallbacks += probe.last_hash_outcome() == BlockIter::HashOutcome::kCollision;
  }
  return scan.status();
}

const char* TypeName(uint8_t type) {
  switch (type) {
    case kTypeValue: return "put";
    case kTypeDeletion: return "del";
    case kTypeMerge: return "merge";
    case kTypeSingleDeletion: return "single_del";
    case kTypeRangeDeletion: return "range_del";
    default: return "?";
  }
}

int Run(int argc, char** argv) {
  std::string path;
  bool keys = false;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--keys") == 0) {
      keys = true;
    } else if (argv[i][0] == '-' || !path.empty()) {
      std::fprintf(stderr, "sst-dump: unexpected argument '%s'\nusage: sst-dump FILE [--keys]\n", argv[i]);
      return 2;
    } else {
      path = argv[i];
    }
  }
  if (path.empty()) {
    std::fprintf(stderr, "usage: sst-dump FILE [--keys]\n");
    return 2;
  }
  std::unique_ptr<RandomAccessFile> file;
  Status s = NewPosixRandomAccessFile(path, &file);
  std::unique_ptr<TableReader> table;
  if (s.ok()) s = TableReader::Open({}, std::move(file), &table);
  if (!s.ok()) {
    std::fprintf(stderr, "sst-dump: %s\n", s.ToString().c_str());
    return 1;
  }
  const Footer& f = table->footer();
  std::printf("file: %s (%" PRIu64 " bytes)\n", path.c_str(), table->file_size());
  std::printf("checksum: %s\n", ChecksumTypeName(f.checksum_type));
  std::printf("index block: offset %" PRIu64 " size %" PRIu64 "\n", f.index_handle.offset, f.index_handle.size);
  std::printf("metaindex block: offset %" PRIu64 " size %" PRIu64 "\n", f.metaindex_handle.offset,
              f.metaindex_handle.size);
  std::printf("\n[properties]\n%s", table->properties().ToString().c_str());
  if (table->has_filter()) std::printf("filter layout: %s\n", table->DescribeFilter().c_str());

  BlockStats st;
  uint64_t stored_bytes = 0;  // as in the file: compressed where a block is
  s = table->ForEachDataBlock([&](const BlockHandle& handle, const Block& block) {
    stored_bytes += handle.size;
    return Collect(block, &st);
  });
  if (!s.ok()) {
    std::fprintf(stderr, "sst-dump: %s\n", s.ToString().c_str());
    return 1;
  }
  std::printf("\n[data blocks]\n");
  std::printf("blocks: %" PRIu64 "\n", st.blocks);
  if (st.blocks > 0) {
    std::printf("block bytes: total %" PRIu64 " min %" PRIu64 " mean %.1f max %" PRIu64 "\n", st.bytes, st.min_bytes,
                double(st.bytes) / st.blocks, st.max_bytes);
    std::printf("stored bytes: %" PRIu64
                " (block bytes / stored bytes = %.2f; compressed blocks are stored "
                "smaller)\n",
                stored_bytes, stored_bytes ? double(st.bytes) / stored_bytes : 0.0);
    std::printf("entries: %" PRIu64 " (%.1f per block)\n", st.entries, double(st.entries) / st.blocks);
    std::printf("restart intervals: %" PRIu64 " (%.1f per block, %.2f entries each)\n", st.restarts,
                double(st.restarts) / st.blocks, st.restarts ? double(st.entries) / st.restarts : 0.0);
  }
  std::printf("blocks with hash index: %" PRIu64 "\n", st.hash_blocks);
  if (st.hash_blocks > 0) {
    std::printf("hash buckets: %" PRIu64 " (%.3f per entry; %.3f bytes of index per entry incl. the u16 count)\n",
                st.buckets, double(st.buckets) / st.hash_entries,
                double(st.buckets + 2 * st.hash_blocks) / st.hash_entries);
    std::printf("empty buckets (255): %" PRIu64 " (%.3f)\n", st.empty_buckets, double(st.empty_buckets) / st.buckets);
    std::printf("collision buckets (254): %" PRIu64 " (%.3f)\n", st.collision_buckets,
                double(st.collision_buckets) / st.buckets);
    std::printf("fallbacks: %" PRIu64 " of %" PRIu64 " existing-key lookups (ratio %.3f)\n", st.fallbacks,
                st.hash_entries, double(st.fallbacks) / st.hash_entries);
  }
  if (keys) {
    std::printf("\n[entries]\n");
    auto it = table->NewIterator();
    for (it->SeekToFirst(); it->Valid(); it->Next()) {
      ParsedInternalKey p;
      if (!ParseInternalKey(it->key(), &p).ok()) {
        std::printf("'%s' (malformed internal key)\n", Escape(it->key()).c_str());
        continue;
      }
      std::printf("'%s' @%" PRIu64 " %s => %zu bytes\n", Escape(p.user_key).c_str(), p.sequence, TypeName(p.type),
                  it->value().size());
    }
    if (!it->status().ok()) {
      std::fprintf(stderr, "sst-dump: %s\n", it->status().ToString().c_str());
      return 1;
    }
  }
  return 0;
}

}  // namespace
}  // namespace filterlab::engine

int main(int argc, char** argv) { return filterlab::engine::Run(argc, argv); }
