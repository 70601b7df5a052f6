#include "engine/table/table_properties.h"

#include <bit>
#include <cstring>
#include <map>

#include "engine/table/block.h"
#include "engine/table/block_builder.h"
#include "engine/util/coding.h"
#include "filters/filter_spec.h"

namespace filterlab::engine {
namespace {

// The counters and the field each lives in (the block sorts the names).
struct U64Property {
  const char* name;
  uint64_t TableProperties::*field;
};
constexpr U64Property kU64Properties[] = {
    {"filterlab.block.size", &TableProperties::block_size},
    {"filterlab.data.blocks", &TableProperties::num_data_blocks},
    {"filterlab.data.hash.blocks", &TableProperties::num_hash_index_blocks},
    {"filterlab.data.size", &TableProperties::data_size},
    {"filterlab.entries", &TableProperties::num_entries},
    {"filterlab.filter.keys", &TableProperties::num_filter_keys},
    {"filterlab.filter.size", &TableProperties::filter_size},
    {"filterlab.index.size", &TableProperties::index_size},
    {"filterlab.raw.key.size", &TableProperties::raw_key_size},
    {"filterlab.raw.value.size", &TableProperties::raw_value_size},
    {"filterlab.restart.interval", &TableProperties::restart_interval},
};
constexpr const char* kFilterSpec = "filterlab.filter.spec";
constexpr const char* kHashIndex = "filterlab.hash.index";
constexpr const char* kHashUtil = "filterlab.hash.util";
// Optional (absent in tables of older builds).
constexpr const char* kWholeKey = "filterlab.filter.whole.key";
constexpr const char* kPrefixExtractor = "filterlab.filter.prefix";
constexpr const char* kRangeFilterSpec = "filterlab.range.filter.spec";
constexpr const char* kRangeFilterSize = "filterlab.range.filter.size";
constexpr const char* kRangeFilterKeys = "filterlab.range.filter.keys";

}  // namespace

std::string TableProperties::Encode() const {
  std::map<std::string, std::string> props;
  for (const auto& p : kU64Properties) PutVarint64(&props[p.name], this->*p.field);
  props[kFilterSpec] = filter_spec;
  props[kHashIndex].assign(1, hash_index ? '1' : '0');
  PutFixed64(&props[kHashUtil], std::bit_cast<uint64_t>(hash_util_ratio));
  props[kWholeKey].assign(1, whole_key_filtering ? '1' : '0');
  props[kPrefixExtractor] = prefix_extractor;
  if (!range_filter_spec.empty()) {
    props[kRangeFilterSpec] = range_filter_spec;
    PutVarint64(&props[kRangeFilterSize], range_filter_size);
    PutVarint64(&props[kRangeFilterKeys], num_range_filter_keys);
  }
  BlockBuilderOptions options;
  options.restart_interval = 1;
  BlockBuilder builder(options);
  for (const auto& [name, value] : props) builder.Add(name, value);
  return builder.Finish().ToString();
}

Status TableProperties::Decode(const Block& block) {
  std::map<std::string, std::string> props;
  BlockIter it(&block);
  for (it.SeekToFirst(); it.Valid(); it.Next()) props[it.key().ToString()] = it.value().ToString();
  if (!it.status().ok()) return it.status();
  auto bad = [&](const std::string& name, const std::string& what) {
    return Status::Corruption(block.name() + ": property '" + name + "' " + what);
  };
  for (const auto& p : kU64Properties) {
    auto found = props.find(p.name);
    if (found == props.end()) return bad(p.name, "is missing");
    Slice in(found->second);
    if (!GetVarint64(&in, &(this->*p.field)) || !in.empty()) return bad(p.name, "is not a single varint64");
    props.erase(found);
  }
  auto spec = props.find(kFilterSpec);
  if (spec == props.end()) return bad(kFilterSpec, "is missing");
  filter_spec = spec->second;
  props.erase(spec);
  auto hash = props.find(kHashIndex);
  if (hash == props.end()) return bad(kHashIndex, "is missing");
  if (hash->second != "0" && hash->second != "1") return bad(kHashIndex, "is not 0 or 1");
  hash_index = hash->second == "1";
  props.erase(hash);
  auto util = props.find(kHashUtil);
  if (util == props.end()) return bad(kHashUtil, "is missing");
  if (util->second.size() != 8) return bad(kHashUtil, "is not 8 bytes");
  hash_util_ratio = std::bit_cast<double>(DecodeFixed64(util->second.data()));
  props.erase(util);
  whole_key_filtering = true;
  auto whole = props.find(kWholeKey);
  if (whole != props.end()) {
    if (whole->second != "0" && whole->second != "1") return bad(kWholeKey, "is not 0 or 1");
    whole_key_filtering = whole->second == "1";
    props.erase(whole);
  }
  prefix_extractor.clear();
  auto prefix = props.find(kPrefixExtractor);
  if (prefix != props.end()) {
    prefix_extractor = prefix->second;
    props.erase(prefix);
  }
  range_filter_spec.clear();
  range_filter_size = 0;
  num_range_filter_keys = 0;
  auto range = props.find(kRangeFilterSpec);
  if (range != props.end()) {
    range_filter_spec = range->second;
    props.erase(range);
    if (range_filter_spec.empty()) return bad(kRangeFilterSpec, "is empty");
    for (const auto& [name, field] :
         {std::pair{kRangeFilterSize, &range_filter_size}, std::pair{kRangeFilterKeys, &num_range_filter_keys}}) {
      auto found = props.find(name);
      if (found == props.end()) return bad(name, "is missing beside " + std::string(kRangeFilterSpec));
      Slice in(found->second);
      if (!GetVarint64(&in, field) || !in.empty()) return bad(name, "is not a single varint64");
      props.erase(found);
    }
  }
  if (!props.empty()) return bad(props.begin()->first, "is unknown to format version 1");
  return Status::OK();
}

std::string TableProperties::ToString() const {
  std::string out;
  auto line = [&](const char* name, const std::string& value) {
    out += name;
    out += ": ";
    out += value;
    out += '\n';
  };
  line("entries", std::to_string(num_entries));
  line("raw key bytes", std::to_string(raw_key_size));
  line("raw value bytes", std::to_string(raw_value_size));
  line("data blocks", std::to_string(num_data_blocks));
  line("data blocks with hash index", std::to_string(num_hash_index_blocks));
  line("data bytes (with trailers)", std::to_string(data_size));
  line("index bytes", std::to_string(index_size));
  line("filter bytes", std::to_string(filter_size));
  line("filter keys", std::to_string(num_filter_keys));
  line("filter spec", filter_spec.empty() ? "(none)" : filter_spec);
  line("filter holds whole keys", whole_key_filtering ? "yes" : "no");
  line("filter prefix extractor", prefix_extractor.empty() ? "(none)" : prefix_extractor);
  line("range filter spec", range_filter_spec.empty() ? "(none)" : range_filter_spec);
  line("range filter bytes", std::to_string(range_filter_size));
  line("range filter keys", std::to_string(num_range_filter_keys));
  line("block size option", std::to_string(block_size));
  line("restart interval", std::to_string(restart_interval));
  line("hash index", hash_index ? "on" : "off");
  line("hash util ratio", FormatNumber(hash_util_ratio));
  return out;
}

}  // namespace filterlab::engine
