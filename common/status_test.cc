// Status: codes, messages, and the no-allocation promise for OK and for
// empty messages (the read path returns NotFound("") for every missing key).
#include "common/status.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <new>

namespace {

// Counts operator new calls on this thread while armed, so the test can see
// whether constructing and copying a Status allocates.
thread_local bool g_counting = false;
thread_local int g_allocations = 0;

}  // namespace

void* operator new(std::size_t n) {
  if (g_counting) ++g_allocations;
  if (void* p = std::malloc(n ? n : 1)) return p;
  throw std::bad_alloc();
}
// Not inlined: g++ (-Wmismatched-new-delete) would otherwise see free() of a
// pointer from operator new at every inlined delete, not knowing that this
// operator new is malloc.
[[gnu::noinline]] void operator delete(void* p) noexcept { std::free(p); }
[[gnu::noinline]] void operator delete(void* p, std::size_t) noexcept { std::free(p); }

namespace filterlab {
namespace {

int AllocationsOf(void (*fn)()) {
  g_allocations = 0;
  g_counting = true;
  fn();
  g_counting = false;
  return g_allocations;
}

TEST(Status, CodesAndMessages) {
  EXPECT_TRUE(Status::OK().ok());
  EXPECT_EQ(Status::OK().ToString(), "OK");
  Status s = Status::Corruption("block checksum mismatch");
  EXPECT_FALSE(s.ok());
  EXPECT_TRUE(s.IsCorruption());
  EXPECT_FALSE(s.IsNotFound());
  EXPECT_EQ(s.message(), "block checksum mismatch");
  EXPECT_EQ(s.ToString(), "Corruption: block checksum mismatch");
  Status copy = s;
  EXPECT_EQ(copy.ToString(), s.ToString());
  EXPECT_TRUE(Status::NotFound("").IsNotFound());
  EXPECT_EQ(Status::NotFound("").message(), "");
  EXPECT_EQ(Status::NotFound("").ToString(), "Not found: ");
}

TEST(Status, OkAndEmptyMessagesDoNotAllocate) {
  EXPECT_EQ(AllocationsOf([] {
              Status s = Status::OK();
              Status t = s;
              (void)t;
            }),
            0);
  EXPECT_EQ(AllocationsOf([] {
              Status s = Status::NotFound("");
              Status t = s;
              EXPECT_TRUE(t.IsNotFound());
            }),
            0);
  // A message is stored once (the shared string, and its buffer when long) and
  // shared by copies: copying adds no allocation.
  const int construct = AllocationsOf([] {
    Status s = Status::IOError("read failed at offset 4096 of 000012.sst");
    (void)s;
  });
  EXPECT_GT(construct, 0);
  EXPECT_EQ(AllocationsOf([] {
              Status s = Status::IOError("read failed at offset 4096 of 000012.sst");
              Status t = s;
              Status u = t;
              (void)u;
            }),
            construct);
}

}  // namespace
}  // namespace filterlab
