#include "engine/db/options.h"

#include <cmath>

#include "filters/filter.h"
#include "filters/filter_spec.h"
#include "filters/range/range_filter.h"

namespace filterlab::engine {
namespace {

Status Bad(const std::string& option, const std::string& value, const std::string& allowed) {
  return Status::InvalidArgument("option " + option + " = " + value + " is not allowed: " + allowed);
}

std::string Num(double v) { return FormatNumber(v); }

}  // namespace

Status FilterPolicyFromSpec(const std::string& spec, std::shared_ptr<const FilterPolicy>* out) {
  out->reset();
  if (spec == "none") return Status::OK();
  if (spec.empty()) {
    return Status::InvalidArgument(
        "the filter spec is empty; give a registry spec such as fastlocal:bpk=10, "
        "or none for no filter");
  }
  std::unique_ptr<FilterPolicy> policy;
  Status s = NewFilterPolicy(spec, &policy);
  if (!s.ok()) return Status::InvalidArgument(s.message());
  *out = std::move(policy);
  return Status::OK();
}

Status RangeFilterPolicyFromSpec(const std::string& spec, std::shared_ptr<const RangeFilterPolicy>* out) {
  out->reset();
  if (spec == "none") return Status::OK();
  if (spec.empty()) {
    return Status::InvalidArgument(
        "the range filter spec is empty; give a registry range spec such as grafite:bpk=16, or none for no "
        "range filter");
  }
  std::unique_ptr<RangeFilterPolicy> policy;
  Status s = NewRangeFilterPolicy(spec, &policy);
  if (!s.ok()) return Status::InvalidArgument(s.message());
  *out = std::move(policy);
  return Status::OK();
}

std::string RangeFilterLabel(const RangeFilterPolicy* policy) { return policy == nullptr ? "none" : policy->spec(); }

const char* WalRecoveryModeName(WalRecoveryMode mode) {
  switch (mode) {
    case WalRecoveryMode::kTolerateCorruptedTailRecords: return "tolerate_corrupted_tail_records";
    case WalRecoveryMode::kAbsoluteConsistency: return "absolute_consistency";
    case WalRecoveryMode::kPointInTimeRecovery: return "point_in_time";
    case WalRecoveryMode::kSkipAnyCorruptedRecords: return "skip_any_corrupted_records";
  }
  return "?";
}

Status ParseWalRecoveryMode(const std::string& text, WalRecoveryMode* mode) {
  constexpr WalRecoveryMode kAll[] = {WalRecoveryMode::kTolerateCorruptedTailRecords,
                                      WalRecoveryMode::kAbsoluteConsistency, WalRecoveryMode::kPointInTimeRecovery,
                                      WalRecoveryMode::kSkipAnyCorruptedRecords};
  std::string names;
  for (size_t i = 0; i < 4; ++i) {
    if (text == WalRecoveryModeName(kAll[i]) || text == std::to_string(i)) {
      *mode = kAll[i];
      return Status::OK();
    }
    names += std::string(i ? ", " : "") + WalRecoveryModeName(kAll[i]) + " (" + std::to_string(i) + ")";
  }
  return Status::InvalidArgument("WAL recovery mode '" + text + "' is not one of " + names);
}

std::string FilterLabel(const FilterPolicy* policy) { return policy == nullptr ? "none" : policy->spec(); }

bool SameFilter(const FilterPolicy* a, const FilterPolicy* b) {
  if (a == nullptr || b == nullptr) return a == b;
  return a == b || a->spec() == b->spec();
}

const std::shared_ptr<const FilterPolicy>& Options::FilterPolicyForLevel(int level) const {
  if (level >= 0 && static_cast<size_t>(level) < per_level_filter_policy.size()) {
    return per_level_filter_policy[level];
  }
  return filter_policy;
}

const std::shared_ptr<const RangeFilterPolicy>& Options::RangeFilterPolicyForLevel(int level) const {
  if (level >= 0 && static_cast<size_t>(level) < per_level_range_filter_policy.size()) {
    return per_level_range_filter_policy[level];
  }
  return range_filter_policy;
}

uint64_t Options::MaxBytesForLevel(int level) const {
  double bytes = static_cast<double>(max_bytes_for_level_base);
  for (int l = 1; l < level; ++l) bytes *= level_size_multiplier;
  return bytes >= 1.8e19 ? UINT64_MAX : static_cast<uint64_t>(bytes);
}

TableOptions Options::TableOptionsForLevel(int level) const {
  TableOptions t;
  t.block_size = block_size;
  t.restart_interval = block_restart_interval;
  t.use_hash_index = use_hash_index;
  t.hash_util_ratio = hash_index_util_ratio;
  t.filter_policy = FilterPolicyForLevel(level);
  t.whole_key_filtering = whole_key_filtering;
  t.prefix_extractor = prefix_extractor;
  t.range_filter_policy = RangeFilterPolicyForLevel(level);
  t.checksum_type = checksum_type;
  t.compression = compression;
  return t;
}

Status Options::ValidateFilterAllocation() const {
  const FilterAllocation& a = *filter_allocation;
  if (!(a.budget_bits_per_key > 0 && a.budget_bits_per_key <= 100)) {
    return Bad("filter_allocation.budget_bits_per_key", Num(a.budget_bits_per_key), "use a number in (0, 100]");
  }
  if (!(a.existing_share >= 0 && a.existing_share <= 1)) {
    return Bad("filter_allocation.existing_share", Num(a.existing_share), "use a number in [0, 1]");
  }
  // Every level's family must make a menu the policy can follow (this builds and caches the menus).
  allocation::AllocationInput probe;
  probe.policy = a.policy;
  probe.budget_bits_per_key = a.budget_bits_per_key;
  for (int level = 0; level < num_levels; ++level) {
    allocation::LevelInput in;
    in.keys = 1000;
    Status s = FilterFamilyForLevel(level, &in.family);
    if (!s.ok()) return Bad("filter_allocation", FilterLabel(FilterPolicyForLevel(level).get()), s.message());
    probe.levels.push_back(in);
  }
  allocation::Allocation unused;
  Status s = allocation::Allocate(probe, &unused);
  if (!s.ok()) return Bad("filter_allocation", allocation::AllocationPolicyName(a.policy), s.message());
  return Status::OK();
}

Status Options::FilterFamilyForLevel(int level, std::shared_ptr<const allocation::FamilyCurve>* out) const {
  out->reset();
  const FilterPolicy* policy = FilterPolicyForLevel(level).get();
  if (policy == nullptr) return Status::OK();
  return allocation::FamilyCurve::Make(policy->spec(), out);
}

MemTableOptions Options::MemTableOptionsForDb() const {
  MemTableOptions mo;
  mo.write_buffer_size = write_buffer_size;
  mo.bloom_policy = memtable_filter_policy;
  mo.bloom_size_ratio = memtable_filter_policy != nullptr ? memtable_filter_bits_ratio : 0.0;
  mo.approx_algorithm = approx_algorithm;
  mo.prefix_extractor = prefix_extractor;
  mo.whole_key_filtering = memtable_whole_key_filtering;
  return mo;
}

Status Options::Validate() const {
  if (static_cast<int>(wal_recovery_mode) < 0 || static_cast<int>(wal_recovery_mode) > 3) {
    return Bad("wal_recovery_mode", std::to_string(static_cast<int>(wal_recovery_mode)),
               "use one of the four WalRecoveryMode values");
  }
  if (write_buffer_size < 4096) {
    return Bad("write_buffer_size", std::to_string(write_buffer_size), "use at least 4096 bytes");
  }
  if (max_write_buffer_number < 2 || max_write_buffer_number > 64) {
    return Bad("max_write_buffer_number", std::to_string(max_write_buffer_number),
               "use 2..64 (the active memtable plus at least one being flushed)");
  }
  if (num_levels < 2 || num_levels > 20) return Bad("num_levels", std::to_string(num_levels), "use 2..20");
  if (level0_file_num_compaction_trigger < 1) {
    return Bad("level0_file_num_compaction_trigger", std::to_string(level0_file_num_compaction_trigger),
               "use at least 1");
  }
  if (level0_slowdown_writes_trigger < level0_file_num_compaction_trigger) {
    return Bad(
        "level0_slowdown_writes_trigger", std::to_string(level0_slowdown_writes_trigger),
        "use at least level0_file_num_compaction_trigger (" + std::to_string(level0_file_num_compaction_trigger) + ")");
  }
  if (level0_stop_writes_trigger < level0_slowdown_writes_trigger) {
    return Bad("level0_stop_writes_trigger", std::to_string(level0_stop_writes_trigger),
               "use at least level0_slowdown_writes_trigger (" + std::to_string(level0_slowdown_writes_trigger) + ")");
  }
  if (max_bytes_for_level_base < 4096) {
    return Bad("max_bytes_for_level_base", std::to_string(max_bytes_for_level_base), "use at least 4096 bytes");
  }
  if (!(level_size_multiplier >= 2 && level_size_multiplier <= 1000)) {
    return Bad("level_size_multiplier", Num(level_size_multiplier), "use a number in [2, 1000]");
  }
  if (target_file_size < 4096) {
    return Bad("target_file_size", std::to_string(target_file_size), "use at least 4096 bytes");
  }
  if (block_size < 64 || block_size > (size_t{1} << 30)) {
    return Bad("block_size", std::to_string(block_size), "use 64 bytes .. 1 GiB");
  }
  if (block_restart_interval < 1 || block_restart_interval > 65536) {
    return Bad("block_restart_interval", std::to_string(block_restart_interval), "use 1..65536");
  }
  if (!(hash_index_util_ratio > 0 && hash_index_util_ratio <= 1)) {
    return Bad("hash_index_util_ratio", Num(hash_index_util_ratio), "use a number in (0, 1]");
  }
  if (max_open_files < 10) return Bad("max_open_files", std::to_string(max_open_files), "use at least 10");
  if (static_cast<int>(per_level_filter_policy.size()) > num_levels) {
    return Bad("per_level_filter_policy", std::to_string(per_level_filter_policy.size()) + " entries",
               "give at most num_levels (" + std::to_string(num_levels) + ") entries");
  }
  if (!whole_key_filtering && prefix_extractor == nullptr) {
    return Bad("whole_key_filtering", "false",
               "keep it true, or set a prefix_extractor (the filters would hold nothing)");
  }
  if (!memtable_whole_key_filtering && prefix_extractor == nullptr && memtable_filter_policy != nullptr) {
    return Bad("memtable_whole_key_filtering", "false",
               "keep it true, or set a prefix_extractor (the memtable filter would hold nothing)");
  }
  Status s = TableOptionsForLevel(0).Validate();
  if (!s.ok()) return s;
  if (filter_allocation) {
    s = ValidateFilterAllocation();
    if (!s.ok()) return s;
  }
  if (memtable_filter_policy != nullptr) {
    if (!(memtable_filter_bits_ratio > 0 && memtable_filter_bits_ratio <= 0.25)) {
      return Bad(
          "memtable_filter_bits_ratio", Num(memtable_filter_bits_ratio),
          "use a number in (0, 0.25] when memtable_filter_policy is set (RocksDB's memtable_prefix_bloom_size_ratio)");
    }
    // The memtable validates the policy (it must be a dynamic variant) and the filter's size.
    std::unique_ptr<MemTable> probe;
    s = MemTable::Create(MemTableOptionsForDb(), &probe);
    if (!s.ok()) {
      return Status::InvalidArgument("option memtable_filter_policy = '" + memtable_filter_policy->spec() +
                                     "': " + s.message());
    }
  }
  return Status::OK();
}

}  // namespace filterlab::engine
