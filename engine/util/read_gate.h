// ReadGate: read-side critical sections that write nothing shared, and a
// grace period for the writer side (the idea of read-copy-update, with one
// mutex per thread slot as the read-side marker).
//
// A reader enters (ReadGate::Guard) by locking its thread slot's mutex
// (thread_slot.h: the slot is the thread's own unless more than 15 threads
// read at once), so entering writes only a line no other reader writes.
// Inside, it may use raw pointers to objects the writer side publishes
// (atomic pointers loaded with acquire) without taking references. A writer
// that unpublishes an object calls Synchronize() before freeing it:
// Synchronize locks and unlocks every slot's mutex in turn, so it returns
// only after every guard that was open when the object was unpublished has
// closed; a guard opened later cannot see the object any more (the
// unpublishing store precedes the slot lock it takes, which precedes the
// guard's lock of the same mutex).
//
// Rules. Synchronize must not be called by a thread inside a guard of the
// same gate (it would wait for itself), and a guard must not wait for
// anything that waits for Synchronize. Guards are short (one Get or
// MultiGet); a long holder only delays writers' reclamation.
#pragma once

#include <cstddef>
#include <mutex>

#include "engine/util/thread_slot.h"

namespace filterlab::engine {

class ReadGate {
 public:
  class Guard {
   public:
    explicit Guard(ReadGate* gate) : mu_(&gate->slots_[ThisThreadSlot()].mu) { mu_->lock(); }
    ~Guard() { mu_->unlock(); }
    Guard(const Guard&) = delete;
    Guard& operator=(const Guard&) = delete;

   private:
    std::mutex* mu_;
  };

  // Returns once every guard open at the call has closed.
  void Synchronize() {
    for (Slot& s : slots_) {
      s.mu.lock();
      s.mu.unlock();
    }
  }

 private:
  struct alignas(64) Slot {
    std::mutex mu;
  };
  Slot slots_[kThreadSlots];
};

}  // namespace filterlab::engine
