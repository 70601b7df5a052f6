#include "engine/util/prefix_extractor.h"

#include <cstdlib>

namespace filterlab::engine {

std::string PrefixExtractor::Name() const {
  return std::string(kind_ == Kind::kFixed ? "fixed:" : "capped:") + std::to_string(length_);
}

Status PrefixExtractorFromSpec(const std::string& spec, std::shared_ptr<const PrefixExtractor>* out) {
  *out = nullptr;
  if (spec == "none") return Status::OK();
  auto bad = [&]() {
    return Status::InvalidArgument("prefix extractor '" + spec +
                                   "' is not one of fixed:N, capped:N (N an integer in 1..1024) or none");
  };
  const size_t colon = spec.find(':');
  if (colon == std::string::npos) return bad();
  const std::string kind = spec.substr(0, colon);
  const std::string number = spec.substr(colon + 1);
  if (kind != "fixed" && kind != "capped") return bad();
  if (number.empty() || number.size() > 4 || number.find_first_not_of("0123456789") != std::string::npos) return bad();
  const long n = std::strtol(number.c_str(), nullptr, 10);
  if (n < 1 || n > 1024 || number[0] == '0') return bad();
  *out = std::make_shared<PrefixExtractor>(
      kind == "fixed" ? PrefixExtractor::Kind::kFixed : PrefixExtractor::Kind::kCapped, static_cast<size_t>(n));
  return Status::OK();
}

std::string PrefixExtractorLabel(const PrefixExtractor* extractor) {
  return extractor == nullptr ? "none" : extractor->Name();
}

bool PrefixSuccessor(const Slice& prefix, std::string* out) {
  out->assign(prefix.data(), prefix.size());
  while (!out->empty() && static_cast<uint8_t>(out->back()) == 0xff) out->pop_back();
  if (out->empty()) return false;
  out->back() = static_cast<char>(static_cast<uint8_t>(out->back()) + 1);
  return true;
}

}  // namespace filterlab::engine
