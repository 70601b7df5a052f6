#include "engine/util/thread_slot.h"

#include <mutex>

namespace filterlab::engine {

namespace {

std::mutex slots_mu;
bool slot_taken[kSharedThreadSlot] = {};  // guarded by slots_mu

// Holds an exclusive index for its thread's lifetime.
struct SlotToken {
  size_t index = kSharedThreadSlot;
  SlotToken() {
    std::lock_guard<std::mutex> l(slots_mu);
    for (size_t i = 0; i < kSharedThreadSlot; ++i) {
      if (!slot_taken[i]) {
        slot_taken[i] = true;
        index = i;
        return;
      }
    }
  }
  ~SlotToken() {
    if (index == kSharedThreadSlot) return;
    // The mutex orders this thread's last plain stores to its slots before
    // the next holder's first loads.
    std::lock_guard<std::mutex> l(slots_mu);
    slot_taken[index] = false;
    // Anything this thread still counts (another thread_local's destructor)
    // goes to the shared slot, with atomic adds, not to the freed index.
    thread_slot_internal::cached_slot = kSharedThreadSlot;
  }
};

}  // namespace

size_t thread_slot_internal::RegisterThisThread() {
  thread_local SlotToken token;
  cached_slot = token.index;
  return token.index;
}

}  // namespace filterlab::engine
