#include "engine/table/index_key.h"

#include <algorithm>

#include "engine/memtable/internal_key.h"

namespace filterlab::engine {

std::string ShortestSeparator(const Slice& start, const Slice& limit) {
  const size_t common_len = std::min(start.size(), limit.size());
  size_t d = 0;
  while (d < common_len && start[d] == limit[d]) ++d;
  std::string result = start.ToString();
  if (d == common_len) return result;  // one is a prefix of the other
  const auto s = static_cast<uint8_t>(start[d]);
  const auto l = static_cast<uint8_t>(limit[d]);
  if (s >= l) return result;  // not start < limit at d: leave it alone
  if (d + 1 < limit.size() || s + 1 < l) {
    result[d] = static_cast<char>(s + 1);
    result.resize(d + 1);
    return result;
  }
  // limit is start[0..d] + (start[d] + 1): anything > start below it keeps
  // start[0..d] and grows a later byte.
  for (size_t i = d + 1; i < start.size(); ++i) {
    const auto b = static_cast<uint8_t>(start[i]);
    if (b != 0xff) {
      result[i] = static_cast<char>(b + 1);
      result.resize(i + 1);
      return result;
    }
  }
  return result;
}

std::string IndexSeparator(const Slice& last, const Slice& next) {
  const Slice last_user = ExtractUserKey(last);
  std::string sep = ShortestSeparator(last_user, ExtractUserKey(next));
  if (sep.size() <= last_user.size() && last_user.compare(sep) < 0) {
    std::string key;
    AppendInternalKey(&key, sep, kMaxSequenceNumber, kValueTypeForSeek);
    return key;
  }
  return last.ToString();
}

}  // namespace filterlab::engine
