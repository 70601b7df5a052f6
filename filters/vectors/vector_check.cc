#include "filters/vectors/vector_check.h"

#include <array>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "hashing/remix.h"

namespace filterlab {
namespace {

std::vector<VectorKind>& Kinds() {
  static auto* kinds = new std::vector<VectorKind>();
  return *kinds;
}

// SHA-256 (FIPS 180-4), needed only to compare against the vectors' digests.
class Sha256 {
 public:
  Sha256() { h_ = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19}; }
  void Update(const uint8_t* p, size_t n) {
    for (size_t i = 0; i < n; ++i) {
      buf_[buf_len_++] = p[i];
      if (buf_len_ == 64) {
        Block(buf_.data());
        buf_len_ = 0;
      }
    }
    total_ += n;
  }
  std::array<uint8_t, 32> Final() {
    const uint64_t bits = total_ * 8;
    const uint8_t pad = 0x80;
    Update(&pad, 1);
    const uint8_t zero = 0;
    while (buf_len_ != 56) Update(&zero, 1);
    uint8_t len[8];
    for (int i = 0; i < 8; ++i) len[i] = static_cast<uint8_t>(bits >> (56 - 8 * i));
    Update(len, 8);
    std::array<uint8_t, 32> out;
    for (int i = 0; i < 8; ++i)
      for (int j = 0; j < 4; ++j) out[4 * i + j] = static_cast<uint8_t>(h_[i] >> (24 - 8 * j));
    return out;
  }

 private:
  static uint32_t Rotr(uint32_t x, int r) { return (x >> r) | (x << (32 - r)); }
  void Block(const uint8_t* p) {
    static constexpr uint32_t k[64] = {
        0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
        0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
        0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
        0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
        0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
        0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
        0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
        0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2};
    uint32_t w[64];
    for (int i = 0; i < 16; ++i)
      w[i] = uint32_t{p[4 * i]} << 24 | uint32_t{p[4 * i + 1]} << 16 | uint32_t{p[4 * i + 2]} << 8 | p[4 * i + 3];
    for (int i = 16; i < 64; ++i) {
      const uint32_t s0 = Rotr(w[i - 15], 7) ^ Rotr(w[i - 15], 18) ^ (w[i - 15] >> 3);
      const uint32_t s1 = Rotr(w[i - 2], 17) ^ Rotr(w[i - 2], 19) ^ (w[i - 2] >> 10);
      w[i] = w[i - 16] + s0 + w[i - 7] + s1;
    }
    uint32_t a = h_[0], b = h_[1], c = h_[2], d = h_[3], e = h_[4], f = h_[5], g = h_[6], h = h_[7];
    for (int i = 0; i < 64; ++i) {
      const uint32_t t1 = h + (Rotr(e, 6) ^ Rotr(e, 11) ^ Rotr(e, 25)) + ((e & f) ^ (~e & g)) + k[i] + w[i];
      const uint32_t t2 = (Rotr(a, 2) ^ Rotr(a, 13) ^ Rotr(a, 22)) + ((a & b) ^ (a & c) ^ (b & c));
      h = g;
      g = f;
      f = e;
      e = d + t1;
      d = c;
      c = b;
      b = a;
      a = t1 + t2;
    }
    h_[0] += a;
    h_[1] += b;
    h_[2] += c;
    h_[3] += d;
    h_[4] += e;
    h_[5] += f;
    h_[6] += g;
    h_[7] += h;
  }

  std::array<uint32_t, 8> h_;
  std::array<uint8_t, 64> buf_{};
  size_t buf_len_ = 0;
  uint64_t total_ = 0;
};

}  // namespace

namespace internal {
VectorKindRegistrar::VectorKindRegistrar(VectorKind kind) { Kinds().push_back(kind); }
}  // namespace internal

std::vector<const VectorKind*> RegisteredVectorKinds() {
  std::vector<const VectorKind*> out;
  for (const auto& k : Kinds()) out.push_back(&k);
  return out;
}

const nlohmann::json& RequireField(const nlohmann::json& obj, const char* field) {
  if (!obj.is_object() || !obj.contains(field)) {
    throw std::runtime_error(std::string("missing field '") + field + "'");
  }
  return obj.at(field);
}

std::string HexEncode(const void* data, size_t n) {
  static const char* digits = "0123456789abcdef";
  std::string s;
  s.reserve(2 * n);
  const auto* p = static_cast<const uint8_t*>(data);
  for (size_t i = 0; i < n; ++i) {
    s += digits[p[i] >> 4];
    s += digits[p[i] & 15];
  }
  return s;
}

std::string Sha256Hex(const void* data, size_t n) {
  Sha256 sha;
  sha.Update(static_cast<const uint8_t*>(data), n);
  auto digest = sha.Final();
  return HexEncode(digest.data(), digest.size());
}

uint64_t ParseHex64(const std::string& hex) {
  size_t pos = 0;
  const uint64_t v = std::stoull(hex, &pos, 16);
  if (pos != hex.size()) throw std::runtime_error("not a hex number: '" + hex + "'");
  return v;
}

std::vector<std::string> GenerateReferenceKeys(uint64_t seed, size_t count) {
  SplitMix64 gen(seed);
  std::vector<std::string> keys(count);
  for (size_t i = 0; i < count; ++i) {
    const size_t len = 8 + i % 25;
    std::string& k = keys[i];
    while (k.size() < len) {
      const uint64_t v = gen.Next();
      for (int b = 0; b < 8 && k.size() < len; ++b) k += static_cast<char>(v >> (8 * b));
    }
  }
  return keys;
}

bool ExpectEqual(const char* field, const std::string& expected, const std::string& actual, std::string* detail) {
  if (expected == actual) return true;
  auto shorten = [](const std::string& s) { return s.size() > 80 ? s.substr(0, 77) + "..." : s; };
  *detail += std::string(field) + ": expected " + shorten(expected) + ", got " + shorten(actual) + "; ";
  return false;
}

bool ExpectEqual(const char* field, uint64_t expected, uint64_t actual, std::string* detail) {
  return ExpectEqual(field, std::to_string(expected), std::to_string(actual), detail);
}

void ForEachCase(const nlohmann::json& doc,
                 const std::function<void(const nlohmann::json&, VectorCaseResult*)>& check_case,
                 std::vector<VectorCaseResult>* results, const char* array_field) {
  const auto& cases = RequireField(doc, array_field);
  if (!cases.is_array()) throw std::runtime_error(std::string("field '") + array_field + "' is not an array");
  for (size_t i = 0; i < cases.size(); ++i) {
    VectorCaseResult r;
    r.name = "case " + std::to_string(i);
    try {
      check_case(cases[i], &r);
    } catch (const std::exception& e) {
      r.passed = false;
      r.detail += std::string("cannot check: ") + e.what();
    }
    results->push_back(std::move(r));
  }
}

Status CheckVectorFile(const std::string& path, std::string* kind, std::vector<VectorCaseResult>* results) {
  std::ifstream in(path);
  if (!in) return Status::IOError("cannot open vector file '" + path + "'");
  std::stringstream ss;
  ss << in.rdbuf();
  nlohmann::json doc = nlohmann::json::parse(ss.str(), nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded()) return Status::Corruption("vector file '" + path + "' is not valid JSON");
  for (const auto& k : Kinds()) {
    bool matches = false;
    try {
      matches = k.detect(doc);
    } catch (const std::exception&) {
      matches = false;
    }
    if (!matches) continue;
    *kind = k.name;
    try {
      k.check(doc, results);
    } catch (const std::exception& e) {
      results->push_back(VectorCaseResult{"file structure", false, e.what()});
    }
    return Status::OK();
  }
  std::string known;
  for (const auto& k : Kinds()) known += std::string(known.empty() ? "" : ", ") + k.name;
  return Status::NotSupported("vector file '" + path + "' is of no known kind (known kinds: " + known + ")");
}

}  // namespace filterlab
