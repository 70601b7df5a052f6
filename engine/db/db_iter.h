// The DB's user-facing iterator (iterator.h) over a merged internal
// iterator: entries newer than the snapshot are skipped; of each user key
// only the newest remaining entry counts, and a key whose newest entry is a
// deletion is hidden. `pinned` keeps alive whatever the internal iterator
// reads from (memtables, version).
#pragma once

#include <memory>

#include "engine/db/internal_iterator.h"
#include "engine/db/iterator.h"
#include "engine/memtable/internal_key.h"

namespace filterlab::engine {

std::unique_ptr<Iterator> NewDBIterator(std::unique_ptr<InternalIterator> internal, SequenceNumber snapshot,
                                        std::shared_ptr<const void> pinned);

}  // namespace filterlab::engine
