// Reference vectors for RocksDB's LegacyLocalityBloomImpl
// (legacy_locality_bloom.json): num_lines lines of 2^log2_cache_line_bytes
// bytes get the low 32 bits of 1000 splitmix64 hashes, then answer 1000 fresh
// ones. extra_rotates=false is the format_version<5 full filter ("legacy"),
// built through its production path and queried through the filter (single
// and batched); extra_rotates=true is PlainTable's form, checked through the
// probe functions it alone uses.
#include <string>
#include <vector>

#include "common/aligned_array.h"
#include "filters/legacy_bloom.h"
#include "filters/vectors/bloom_array_case.h"
#include "filters/vectors/vector_check.h"

namespace filterlab {
namespace {

bool DetectLegacyLocalityBloom(const nlohmann::json& doc) {
  const auto& cases = doc.at("cases");
  return cases.is_array() && !cases.empty() && cases[0].contains("extra_rotates") && cases[0].contains("num_lines");
}

// PlainTable's filter has no Filter class here; this adapter gives the
// extra-rotates probes the Filter interface so both forms are queried alike.
class ExtraRotatesView final : public Filter {
 public:
  ExtraRotatesView(const uint8_t* data, uint32_t num_lines, int num_probes, int log2_line_bytes)
      : data_(data), num_lines_(num_lines), num_probes_(num_probes), log2_line_bytes_(log2_line_bytes) {}
  bool MayContain(uint64_t hash) const override {
    const uint32_t h = Lower32(hash);
    return legacy::MayMatchLine<true>(h, num_probes_, log2_line_bytes_,
                                      data_ + legacy::LineOffset<true>(h, num_lines_, log2_line_bytes_));
  }
  size_t DataBytes() const override { return size_t{num_lines_} << log2_line_bytes_; }
  void Serialize(std::string*) const override {}
  std::string Describe() const override { return "plain_table_locality_bloom"; }
  HashWidth hash_width() const override { return HashWidth::k32; }

 private:
  const uint8_t* data_;
  uint32_t num_lines_;
  int num_probes_;
  int log2_line_bytes_;
};

void CheckLegacyLocalityBloomCase(const nlohmann::json& c, VectorCaseResult* r) {
  const bool extra_rotates = RequireField(c, "extra_rotates").get<bool>();
  const auto num_lines = RequireField(c, "num_lines").get<uint32_t>();
  const auto log2_line_bytes = RequireField(c, "log2_cache_line_bytes").get<int>();
  const auto num_probes = RequireField(c, "num_probes").get<int>();
  r->name += " (num_lines=" + std::to_string(num_lines) + ", num_probes=" + std::to_string(num_probes) +
             (extra_rotates ? ", extra_rotates)" : ")");
  if (num_lines == 0 || log2_line_bytes < 0 || log2_line_bytes > 12 || num_probes < 1) {
    r->detail = "case has num_lines/log2_cache_line_bytes/num_probes out of range";
    return;
  }
  const BloomArrayCaseHashes hashes = GenerateCaseHashes(c);
  const size_t len = size_t{num_lines} << log2_line_bytes;
  CacheAlignedArray<uint8_t> bits(len);
  std::unique_ptr<Filter> filter;
  if (extra_rotates) {
    for (uint64_t hash : hashes.added) {
      const uint32_t h = Lower32(hash);
      legacy::AddToLine<true>(h, num_probes, log2_line_bytes,
                              bits.data() + legacy::LineOffset<true>(h, num_lines, log2_line_bytes));
    }
    filter = std::make_unique<ExtraRotatesView>(bits.data(), num_lines, num_probes, log2_line_bytes);
  } else {
    if (log2_line_bytes != legacy::kLog2LineBytes) {
      r->detail = "the legacy full filter builds 64-byte lines only";
      return;
    }
    legacy::AddAll(hashes.added.data(), hashes.added.size(), num_lines, num_probes, bits.data());
    filter = legacy::NewLegacyBloomView(Slice(bits.data(), len), num_lines, num_probes, log2_line_bytes);
  }
  bool ok = true;
  BloomArrayOutcome outcome;
  ok &= QueryBloomArrayCase(*filter, hashes, &outcome, &r->detail);
  ok &= ExpectBloomArrayFields(c, Slice(bits.data(), len), outcome, hashes, 8, &r->detail);
  r->passed = ok;
}

void CheckLegacyLocalityBloomFile(const nlohmann::json& doc, std::vector<VectorCaseResult>* results) {
  ForEachCase(doc, &CheckLegacyLocalityBloomCase, results);
}

}  // namespace

FILTERLAB_REGISTER_VECTOR_KIND(VectorKind{"legacy_locality_bloom", &DetectLegacyLocalityBloom,
                                          &CheckLegacyLocalityBloomFile});

}  // namespace filterlab
