// Tests of the hashing layer: fastrange, the legacy 32-bit hash, final XXH3
// (library) and XXPH3 (ours). Bit-exactness against RocksDB is established
// by rocksdb_hash32.json, checked here through the same vector checker the
// CLI uses (filters/vectors/hash32_vectors.cc).
#include <gtest/gtest.h>
#include <sys/mman.h>
#include <unistd.h>
#include <xxhash.h>

#include <string>
#include <vector>

#include "hashing/fastrange.h"
#include "hashing/legacy_hash.h"
#include "hashing/remix.h"
#include "hashing/xxh3.h"

namespace filterlab {
namespace {

std::string SplitMixKey(uint64_t seed, size_t len) {
  std::string key(len, '\0');
  SplitMix64 gen(seed);
  gen.FillBytes(key.data(), len);
  return key;
}

TEST(FastRange32, StaysBelowRange) {
  SplitMix64 gen(1);
  for (int i = 0; i < 100000; ++i) {
    const uint64_t r = gen.Next();
    const uint32_t range = static_cast<uint32_t>(r >> 32) >> (r & 31);  // ranges of every magnitude
    const uint32_t hash = static_cast<uint32_t>(r);
    if (range == 0) {
      EXPECT_EQ(FastRange32(hash, range), 0u);
    } else {
      EXPECT_LT(FastRange32(hash, range), range) << "hash=" << hash << " range=" << range;
    }
  }
  EXPECT_EQ(FastRange32(0xffffffffu, 0xffffffffu), 0xfffffffeu);
  EXPECT_EQ(FastRange32(0xffffffffu, 1), 0u);
}

TEST(FastRange32, IsSymmetricAndMatchesKnownProducts) {
  SplitMix64 gen(2);
  for (int i = 0; i < 10000; ++i) {
    const uint64_t r = gen.Next();
    EXPECT_EQ(FastRange32(Lower32(r), Upper32(r)), FastRange32(Upper32(r), Lower32(r)));
  }
  EXPECT_EQ(FastRange32(0x80000000u, 10), 5u);                    // half of the hash space -> half the range
  EXPECT_EQ(FastRange32(0x40000000u, 1000), 250u);                // a quarter
  EXPECT_EQ(FastRange32(0xffffffffu, 1000), 999u);                // the top hash -> the last slot
  EXPECT_EQ(FastRange32(0x12345678u, 0x9abcdef0u), 0x0b00ea4eu);  // 0x12345678 * 0x9abcdef0 = 0x0b00ea4e_242d2080
}

TEST(FastRange64, StaysBelowRangeSymmetricAndKnown) {
  SplitMix64 gen(3);
  for (int i = 0; i < 100000; ++i) {
    const uint64_t hash = gen.Next();
    const uint64_t range = gen.Next() >> (hash & 63);
    if (range != 0) {
      EXPECT_LT(FastRange64(hash, range), range);
    }
    EXPECT_EQ(FastRange64(hash, range), FastRange64(range, hash));
  }
  EXPECT_EQ(FastRange64(uint64_t{1} << 63, 10), 5u);
  EXPECT_EQ(FastRange64(~uint64_t{0}, 1000), 999u);
  EXPECT_EQ(FastRange64(~uint64_t{0}, ~uint64_t{0}), ~uint64_t{0} - 1);
  // 0x0123456789abcdef * 0xfedcba9876543210 = 0x0121fa00ad77d742_2236d88fe5618cf0
  EXPECT_EQ(FastRange64(0x0123456789abcdefULL, 0xfedcba9876543210ULL), 0x0121fa00ad77d742ULL);
}

TEST(LegacyHash32, EmptyKeyHashesToSeed) {
  for (uint32_t seed : {0u, 1u, kSliceHashSeed, kBloomHashSeed, 0xffffffffu}) {
    EXPECT_EQ(LegacyHash32("", 0, seed), seed);
    EXPECT_EQ(LegacyHash32(nullptr, 0, seed), seed);
  }
  EXPECT_EQ(BloomHash32("", 0), kBloomHashSeed);
}

// One tail byte, worked by hand from the definition (RocksDB's util/hash.cc, Hash()), once with the
// byte sign-extended (the format) and once zero-extended (what a naive port
// computes), to show the test can tell them apart.
uint32_t OneByteKeyHash(uint32_t seed, uint32_t extended_byte) {
  constexpr uint32_t m = 0xc6a4a793;
  uint32_t h = seed ^ m;  // n = 1
  h += extended_byte;
  h *= m;
  return h ^ (h >> 24);
}

TEST(LegacyHash32, TailBytesAreSignExtended) {
  for (int byte = 0; byte < 256; ++byte) {
    const char key = static_cast<char>(byte);
    const uint32_t sign_extended = byte >= 0x80 ? 0xffffff00u | byte : static_cast<uint32_t>(byte);
    EXPECT_EQ(LegacyHash32(&key, 1, kBloomHashSeed), OneByteKeyHash(kBloomHashSeed, sign_extended)) << byte;
    if (byte >= 0x80) {
      EXPECT_NE(LegacyHash32(&key, 1, kBloomHashSeed), OneByteKeyHash(kBloomHashSeed, byte)) << byte;
    }
  }
  // The same in a 3-byte tail: the middle byte 0x80 adds sx(0x80) << 8 =
  // 0xffff8000 to the sum, not 0x8000.
  constexpr uint32_t m = 0xc6a4a793;
  uint32_t h = kBloomHashSeed ^ static_cast<uint32_t>(3u * m);
  h += 0xffff8000u;
  h += 1;
  h *= m;
  h ^= h >> 24;
  const char key[3] = {'\x01', '\x80', '\x00'};
  EXPECT_EQ(LegacyHash32(key, 3, kBloomHashSeed), h);
}

TEST(LegacyHash32, WholeWordsAreNotSignExtended) {
  // A 4-byte key goes through the word loop, where bytes are plain unsigned.
  const char key[4] = {'\x80', '\x00', '\x00', '\x00'};
  constexpr uint32_t m = 0xc6a4a793;
  uint32_t h = kBloomHashSeed ^ static_cast<uint32_t>(4u * m);
  h += 0x80;
  h *= m;
  h ^= h >> 16;
  EXPECT_EQ(LegacyHash32(key, 4, kBloomHashSeed), h);
}

// The batch kernels this build has (scalar, AVX2, AVX-512): each is held to
// the one-key hash below, so an AVX-512 build tests the AVX2 kernel too.
std::vector<LegacyHashKernel> BuiltLegacyHashKernels() {
  std::vector<LegacyHashKernel> kernels;
  for (auto k : {LegacyHashKernel::kScalar, LegacyHashKernel::kAvx2, LegacyHashKernel::kAvx512}) {
    if (LegacyHashKernelAvailable(k)) kernels.push_back(k);
  }
  return kernels;
}

TEST(LegacyHash32, KernelsOfThisBuild) {
  EXPECT_TRUE(LegacyHashKernelAvailable(LegacyHashKernel::kScalar));
#if defined(__AVX2__) && !defined(FILTERLAB_FORCE_SCALAR)
  EXPECT_TRUE(LegacyHashKernelAvailable(LegacyHashKernel::kAvx2));
#endif
#if defined(__AVX512F__) && defined(__AVX512BW__) && defined(__AVX512VL__) && !defined(FILTERLAB_FORCE_SCALAR)
  EXPECT_TRUE(LegacyHashKernelAvailable(LegacyHashKernel::kAvx512));
#endif
}

// Every batch kernel is the one-key hash, key by key, for every length
// 0..100 (whole words, 1..3 tail bytes, several 32-byte chunks of the
// vector kernels), every alignment, bytes with their top bit set (the
// tail's sign extension), keys of mixed lengths in one group (8, 16 or 32
// keys a call) and batch sizes that leave 0..15 keys to the scalar loop.
TEST(LegacyHash32, BatchEqualsOneAtATime) {
  for (LegacyHashKernel kernel : BuiltLegacyHashKernels()) {
    SCOPED_TRACE("kernel " + std::to_string(static_cast<int>(kernel)));
    SplitMix64 gen(33);
    std::vector<std::string> store;
    for (int round = 0; round < 40; ++round) {
      const size_t n = gen.Next() % 70;
      store.clear();
      std::vector<Slice> keys;
      for (size_t i = 0; i < n; ++i) {
        const size_t len = round < 20 ? gen.Next() % 101 : 24 + gen.Next() % 5;  // mixed, or filter_bench's
        const size_t offset = gen.Next() % 8;
        store.push_back(SplitMixKey(gen.Next(), len + offset));
      }
      for (size_t i = 0; i < n; ++i) {
        const size_t offset = (i * 7) % 8;
        keys.emplace_back(store[i].data() + std::min(offset, store[i].size()),
                          store[i].size() - std::min(offset, store[i].size()));
      }
      for (uint32_t seed : {kBloomHashSeed, kSliceHashSeed}) {
        std::vector<uint64_t> out(n + 1, 0xdeadbeefdeadbeefULL);
        LegacyHash32BatchWith(kernel, keys.data(), n, seed, out.data());
        for (size_t i = 0; i < n; ++i) {
          ASSERT_EQ(out[i], LegacyHash32(keys[i].data(), keys[i].size(), seed)) << "round " << round << " key " << i;
        }
        EXPECT_EQ(out[n], 0xdeadbeefdeadbeefULL) << "wrote past n";
      }
    }
  }
}

// Groups of keys whose lengths differ by at most `spread`: the kernels'
// rounds below the shortest key's word count skip the lane masks, and at
// lengths above 32 those rounds span more than one 32-byte chunk. 41 keys:
// AVX2 hashes 32 in one call, then 8, and the last one alone.
TEST(LegacyHash32, BatchEqualsOneAtATimeAtNearEqualLengths) {
  for (LegacyHashKernel kernel : BuiltLegacyHashKernels()) {
    SCOPED_TRACE("kernel " + std::to_string(static_cast<int>(kernel)));
    SplitMix64 gen(34);
    for (size_t base_len = 0; base_len <= 100; ++base_len) {
      for (size_t spread : {0, 1, 4}) {
        std::vector<std::string> store;
        std::vector<Slice> keys;
        for (size_t i = 0; i < 41; ++i)
          store.push_back(SplitMixKey(gen.Next(), base_len + gen.Next() % (spread + 1) + 8));
        for (size_t i = 0; i < store.size(); ++i) {
          const size_t offset = gen.Next() % 8;
          keys.emplace_back(store[i].data() + offset, store[i].size() - 8);
        }
        std::vector<uint64_t> out(keys.size());
        LegacyHash32BatchWith(kernel, keys.data(), keys.size(), kBloomHashSeed, out.data());
        for (size_t i = 0; i < keys.size(); ++i) {
          ASSERT_EQ(out[i], BloomHash32(keys[i].data(), keys[i].size()))
              << "length " << keys[i].size() << " (group lengths " << base_len << ".." << base_len + spread << "), key "
              << i;
        }
      }
    }
  }
}

// Keys ending where an inaccessible page starts: the batch reads nothing in
// the page after a key's last byte (a read there would fault), at every
// length 0..70.
TEST(LegacyHash32, BatchReadsNoByteOutsideTheKeys) {
  const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  void* mem = mmap(nullptr, 2 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  ASSERT_NE(mem, MAP_FAILED);
  char* base = static_cast<char*>(mem);
  ASSERT_EQ(mprotect(base + page, page, PROT_NONE), 0);
  for (size_t i = 0; i < page; ++i) base[i] = static_cast<char>(0x80 | (i * 37));
  std::vector<Slice> keys;
  for (size_t len = 0; len <= 70; ++len) keys.emplace_back(base + page - len, len);
  for (LegacyHashKernel kernel : BuiltLegacyHashKernels()) {
    std::vector<uint64_t> out(keys.size());
    LegacyHash32BatchWith(kernel, keys.data(), keys.size(), kBloomHashSeed, out.data());
    for (size_t i = 0; i < keys.size(); ++i) {
      EXPECT_EQ(out[i], BloomHash32(keys[i].data(), keys[i].size()))
          << "kernel " << static_cast<int>(kernel) << " " << i;
    }
  }
  std::vector<uint64_t> out(keys.size());  // and the dispatch, the widest kernel
  LegacyHash32Batch(keys.data(), keys.size(), kBloomHashSeed, out.data());
  for (size_t i = 0; i < keys.size(); ++i) EXPECT_EQ(out[i], BloomHash32(keys[i].data(), keys[i].size())) << i;
  munmap(mem, 2 * page);
}

TEST(XXH3, WrapperIsTheLibraryHash) {
  // The wrapper must not transform anything (seeded and unseeded).
  for (size_t len : {0, 1, 3, 8, 17, 129, 241, 1024, 1025}) {
    const std::string key = SplitMixKey(0x5000 + len, len);
    EXPECT_EQ(XXH3_64(key.data(), len), XXH3_64bits(key.data(), len)) << len;
    EXPECT_EQ(XXH3_64(key.data(), len, 42), XXH3_64bits_withSeed(key.data(), len, 42)) << len;
  }
}

// XXH64's published values (xxHash's documentation and sanity tests) at seed
// 0, and the wrapper passing the seed through: Parquet's filters depend on
// exactly this hash.
TEST(XXH64, PublishedValuesAndSeed) {
  EXPECT_EQ(XXH64("", 0, 0), 0xef46db3751d8e999ULL);
  EXPECT_EQ(XXH64("a", 1, 0), 0xd24ec4f1a98c6e5bULL);
  EXPECT_EQ(XXH64("abc", 3, 0), 0x44bc2cf5ad770999ULL);
  for (size_t len : {0, 1, 4, 8, 31, 32, 33, 100}) {
    const std::string key = SplitMixKey(0x6400 + len, len);
    EXPECT_EQ(XXH64(key.data(), len, 7), ::XXH64(key.data(), len, 7)) << len;
    EXPECT_NE(XXH64(key.data(), len, 7), XXH64(key.data(), len, 0)) << len;
  }
}

// Spec §4: RocksDB's fork differs from final XXH3 at every length, seeded or
// not. Four keys per length; an accidental equality of two 64-bit values has
// probability ~2^-64 per comparison.
TEST(XXPH3, DiffersFromFinalXXH3AtEveryLength) {
  constexpr uint64_t kSeed = 0x0123456789abcdefULL;
  for (size_t len = 0; len <= 2048; ++len) {
    for (uint64_t variant = 0; variant < 4; ++variant) {
      const std::string key = SplitMixKey((len << 2) | variant, len);
      ASSERT_NE(XXPH3_64(key.data(), len), XXH3_64(key.data(), len)) << "len " << len;
      ASSERT_NE(XXPH3_64(key.data(), len, kSeed), XXH3_64(key.data(), len, kSeed)) << "len " << len;
    }
  }
}

TEST(XXPH3, UnseededEqualsSeedZero) {
  for (size_t len : {0, 2, 5, 12, 100, 200, 300, 4096}) {
    const std::string key = SplitMixKey(len, len);
    EXPECT_EQ(XXPH3_64(key.data(), len), XXPH3_64(key.data(), len, 0)) << len;
  }
}

// Every input byte must matter at every length class, including the bytes
// mixed twice (mid-size multiples of 16) and the overlapping last stripe.
TEST(XXPH3, EveryByteChangesTheHash) {
  for (size_t len : {1, 2, 3, 4, 7, 8, 9, 16, 17, 33, 65, 97, 128, 129, 144, 160, 240, 241, 256, 1000, 1024, 1025}) {
    std::string key = SplitMixKey(0x9000 + len, len);
    const uint64_t base = XXPH3_64(key.data(), len);
    for (size_t i = 0; i < len; ++i) {
      key[i] ^= 1;
      EXPECT_NE(XXPH3_64(key.data(), len), base) << "len " << len << " byte " << i;
      key[i] ^= 1;
    }
  }
}

TEST(XXPH3, SeedChangesEveryLengthClass) {
  // Including long inputs, where the seed acts only through the derived secret.
  for (size_t len : {0, 2, 6, 12, 50, 200, 241, 2048}) {
    const std::string key = SplitMixKey(len + 7, len);
    EXPECT_NE(XXPH3_64(key.data(), len, 1), XXPH3_64(key.data(), len, 2)) << len;
  }
}

TEST(XXPH3, ReadsOnlyItsInput) {
  // Keys at the very end of an allocation: ASan builds catch any over-read.
  for (size_t len = 0; len <= 300; ++len) {
    const std::string copy = SplitMixKey(len, len);
    const std::vector<char> exact(copy.begin(), copy.end());  // heap block of exactly len bytes
    EXPECT_EQ(XXPH3_64(exact.data(), len), XXPH3_64(copy.data(), len));
  }
}

}  // namespace
}  // namespace filterlab
