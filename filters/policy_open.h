// Reopening serialized filters with the query settings of the policy that
// built them. A filter's bytes carry its format only; a setting that changes
// how it is queried but not its bits (FastLocalBloom's kernel=, which picks
// the query kernel) lives in the policy, and OpenFilter, which sees bytes
// alone, cannot know it. OpenFilterFor opens the bytes as OpenFilter does and
// then applies the policy's query settings, so a harness that serializes what
// it built (sim speed's working set) queries it the way the spec asked.
#pragma once

#include <memory>

#include "common/slice.h"
#include "common/status.h"
#include "filters/filter.h"

namespace filterlab {

// `bytes` (kept alive by the caller) as OpenFilter opens them, with the
// query settings of `policy`, which built them. Variants without such
// settings: exactly OpenFilter.
Status OpenFilterFor(const FilterPolicy& policy, Slice bytes, std::unique_ptr<Filter>* out);

// A variant with query settings registers how to apply them (at namespace
// scope in its .cc): an opener called by OpenFilterFor for its policies.
using PolicyOpener = Status (*)(const FilterPolicy& policy, Slice bytes, std::unique_ptr<Filter>* out);
bool RegisterPolicyOpener(const char* variant, PolicyOpener opener);

}  // namespace filterlab
