// Per-thread slots for read-path state that threads must not share a cache
// line over: StripedCounters (statistics bumped by every lookup) and ReadGate
// (the DB's read-side grace periods).
//
// Why. A counter or lock that every lookup writes is one cache line that the
// cores of concurrent readers pass back and forth: each write waits for the
// line to come from the other core (~100 ns here), and a cached point lookup
// (~2 us) would make about twenty such writes if its counters, locks and
// reference counts were shared (engine/db/README.md, "Reads").
//
// ThisThreadSlot() gives the calling thread an index in [0, kThreadSlots).
// Indices 0..kThreadSlots-2 are exclusive: a thread holds one from its first
// call until it exits (then the index is free for a later thread). Threads
// beyond that share the last index, kSharedThreadSlot. So an exclusive
// holder may update its slot's counters with a plain load and store (no
// locked instruction), while the shared slot needs an atomic add.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>

namespace filterlab::engine {

inline constexpr size_t kThreadSlots = 16;
inline constexpr size_t kSharedThreadSlot = kThreadSlots - 1;

// The calling thread's slot index (see above). Cheap after the first call:
// a thread_local read.
namespace thread_slot_internal {
// The calling thread's slot once it has one; kThreadSlots before its first
// ThisThreadSlot() call. A trivially constructed thread_local, so reading it
// is one thread-pointer-relative load with no initialisation guard: every
// counter bump on the read path pays only that (the registration, whose
// thread_local has a destructor and so a guard, runs once per thread).
inline thread_local size_t cached_slot = kThreadSlots;
// Takes a slot for the calling thread (or the shared one) and caches it.
size_t RegisterThisThread();
}  // namespace thread_slot_internal

inline size_t ThisThreadSlot() {
  const size_t slot = thread_slot_internal::cached_slot;
  return slot != kThreadSlots ? slot : thread_slot_internal::RegisterThisThread();
}

// N relaxed counters, one copy per thread slot, each slot on its own cache
// lines. Add from any thread; Sum reads all slots (a total that may miss
// adds racing with it, as any relaxed counter read).
template <size_t N>
class StripedCounters {
 public:
  void Add(size_t counter, uint64_t n = 1) {
    const size_t slot = ThisThreadSlot();
    std::atomic<uint64_t>& c = slots_[slot].c[counter];
    if (slot == kSharedThreadSlot) {
      c.fetch_add(n, std::memory_order_relaxed);
    } else {
      // Only this thread writes this slot (see ThisThreadSlot).
      c.store(c.load(std::memory_order_relaxed) + n, std::memory_order_relaxed);
    }
  }
  // Zeroes every counter; adds racing with it may survive it.
  void Reset() {
    for (Slot& s : slots_) {
      for (std::atomic<uint64_t>& c : s.c) c.store(0, std::memory_order_relaxed);
    }
  }
  uint64_t Sum(size_t counter) const {
    uint64_t total = 0;
    for (const Slot& s : slots_) total += s.c[counter].load(std::memory_order_relaxed);
    return total;
  }

 private:
  struct alignas(64) Slot {
    std::atomic<uint64_t> c[N] = {};
  };
  Slot slots_[kThreadSlots];
};

}  // namespace filterlab::engine
