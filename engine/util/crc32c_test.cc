#include "engine/util/crc32c.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "engine/util/random.h"

namespace filterlab::engine::crc32c {
namespace {

struct Vector {
  std::string name;
  std::string data;
  uint32_t crc;
};

// RFC 3720 (iSCSI) appendix B.4 examples plus the common "123456789" check value.
std::vector<Vector> StandardVectors() {
  std::vector<Vector> v;
  v.push_back({"32 zero bytes", std::string(32, '\0'), 0x8a9136aau});
  v.push_back({"32 0xff bytes", std::string(32, '\xff'), 0x62a8ab43u});
  std::string inc, dec;
  for (int i = 0; i < 32; ++i) {
    inc.push_back(static_cast<char>(i));
    dec.push_back(static_cast<char>(31 - i));
  }
  v.push_back({"0..31 ascending", inc, 0x46dd794eu});
  v.push_back({"31..0 descending", dec, 0x113fdb5cu});
  const unsigned char iscsi_read[48] = {0x01, 0xc0, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
                                        0x00, 0x00, 0x00, 0x00, 0x14, 0x00, 0x00, 0x00, 0x00, 0x00, 0x04, 0x00,
                                        0x00, 0x00, 0x00, 0x14, 0x00, 0x00, 0x00, 0x18, 0x28, 0x00, 0x00, 0x00,
                                        0x00, 0x00, 0x00, 0x00, 0x02, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00};
  v.push_back({"iSCSI read command PDU", std::string(reinterpret_cast<const char*>(iscsi_read), 48), 0xd9963a56u});
  v.push_back({"123456789", "123456789", 0xe3069283u});
  v.push_back({"empty", "", 0u});
  return v;
}

TEST(Crc32c, StandardVectorsPortable) {
  for (const auto& v : StandardVectors()) {
    EXPECT_EQ(ExtendPortable(0, v.data.data(), v.data.size()), v.crc) << v.name;
  }
}

TEST(Crc32c, StandardVectorsHardware) {
  if (!HardwareAvailable()) GTEST_SKIP() << "no SSE4.2 on this CPU";
  for (const auto& v : StandardVectors()) {
    EXPECT_EQ(ExtendHardware(0, v.data.data(), v.data.size()), v.crc) << v.name;
  }
}

TEST(Crc32c, StandardVectorsDispatch) {
  for (const auto& v : StandardVectors()) EXPECT_EQ(Value(v.data.data(), v.data.size()), v.crc) << v.name;
}

TEST(Crc32c, PathsAgreeOnRandomDataAtEveryLengthAndAlignment) {
  Random rnd(301);
  std::string buf(600, '\0');
  for (auto& c : buf) c = static_cast<char>(rnd.Uniform(256));
  for (size_t start = 0; start < 9; ++start) {
    for (size_t len = 0; len + start <= buf.size(); len += (len < 40 ? 1 : 37)) {
      const uint32_t portable = ExtendPortable(0, buf.data() + start, len);
      EXPECT_EQ(Value(buf.data() + start, len), portable) << start << "+" << len;
      if (HardwareAvailable()) {
        EXPECT_EQ(ExtendHardware(0, buf.data() + start, len), portable);
      }
    }
  }
}

TEST(Crc32c, ExtendEqualsValueOfConcatenation) {
  const std::string a = "hello ", b = "world, a slightly longer second part";
  const std::string ab = a + b;
  EXPECT_EQ(Extend(Value(a.data(), a.size()), b.data(), b.size()), Value(ab.data(), ab.size()));
  EXPECT_EQ(ExtendPortable(ExtendPortable(0, a.data(), a.size()), b.data(), b.size()), Value(ab.data(), ab.size()));
}

TEST(Crc32c, DifferentDataDifferentCrc) {
  EXPECT_NE(Value("a", 1), Value("foo", 3));
  EXPECT_NE(Value("foo", 3), Value("bar", 3));
}

TEST(Crc32c, MaskRoundTripsAndChangesTheValue) {
  const uint32_t crc = Value("foo", 3);
  EXPECT_NE(crc, Mask(crc));
  EXPECT_NE(crc, Mask(Mask(crc)));
  EXPECT_EQ(crc, Unmask(Mask(crc)));
  EXPECT_EQ(crc, Unmask(Unmask(Mask(Mask(crc)))));
  for (uint32_t x : {0u, 1u, 0x80000000u, 0xffffffffu, 0x12345678u}) EXPECT_EQ(Unmask(Mask(x)), x);
}

}  // namespace
}  // namespace filterlab::engine::crc32c
