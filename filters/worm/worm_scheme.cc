#include "filters/worm/worm_scheme.h"

#include <algorithm>

#include "filters/fp_model.h"
#include "filters/worm/worm_primitives.h"
#include "filters/worm/worm_variants.h"

namespace filterlab::worm {

WormSubVariant From32Twin(const WormSubVariant& base, const char* name, const char* summary) {
  WormSubVariant twin = base;
  twin.name = name;
  twin.summary = summary;
  twin.allows_hash32 = true;
  twin.allows_hash64 = false;
  twin.default_width = HashWidth::k32;
  return twin;
}

Status SizeShape(const WormSubVariant& v, HashWidth width, int probes, uint64_t wanted_bits, WormShape* out) {
  const uint64_t unit = v.unit_bits(probes);
  const uint64_t limit = v.max_bits(width, probes);
  uint64_t units = wanted_bits > limit ? limit / unit + 1 : std::max<uint64_t>(1, (wanted_bits + unit - 1) / unit);
  if (v.odd_units) units = RoundUpToOdd(units);
  if (units > limit / unit) {
    return Status::InvalidArgument("worm variant " + std::string(v.name) + " (hash=" + HashWidthText(width) +
                                   ", probes=" + std::to_string(probes) + "): " + std::to_string(wanted_bits) +
                                   " bits requested, but its index arithmetic addresses at most " +
                                   std::to_string(limit) + " bits; use fewer keys or bits per key");
  }
  WormShape s;
  s.width = width;
  s.probes = probes;
  s.unit_bits = unit;
  s.units = units;
  s.bits = units * unit;
  v.init_shape(&s);
  *out = s;
  return Status::OK();
}

Status ShapeFromLayout(const WormSubVariant& v, HashWidth width, int probes, uint64_t bits, WormShape* out) {
  const uint64_t unit = v.unit_bits(probes);
  const uint64_t limit = v.max_bits(width, probes);
  std::string problem;
  if (bits == 0 || bits % unit != 0) {
    problem = "must be a positive multiple of " + std::to_string(unit);
  } else if (bits > limit) {
    problem = "exceeds the " + std::to_string(limit) + " bits this variant can address";
  } else if (v.odd_units && (bits / unit) % 2 == 0) {
    problem = "must be an odd number of " + std::to_string(unit) + "-bit units (the worm range)";
  }
  if (!problem.empty()) {
    return Status::Corruption("worm filter layout: bits=" + std::to_string(bits) + " for " + v.name +
                              " with probes=" + std::to_string(probes) + " " + problem);
  }
  WormShape s;
  s.width = width;
  s.probes = probes;
  s.unit_bits = unit;
  s.units = bits / unit;
  s.bits = bits;
  v.init_shape(&s);
  *out = s;
  return Status::OK();
}

std::string DescribeWorm(const WormSubVariant& v, const WormShape& s) {
  return "worm:variant=" + std::string(v.name) + ",hash=" + HashWidthText(s.width) +
         ",probes=" + std::to_string(s.probes) + ",bits=" + std::to_string(s.bits);
}

double WormModelFpRate(const WormSubVariant& v, const WormShape& s, double keys) {
  return fpmodel::NarrowHashFpRate(keys, static_cast<int>(s.width),
                                   [&](double distinct) { return v.model(s, distinct); });
}

const std::vector<const WormSubVariant*>& AllWormSubVariants() {
  struct Table {
    std::vector<WormSubVariant> storage;
    std::vector<const WormSubVariant*> pointers;
  };
  // Built on first use (registration runs during static initialisation) and
  // never destroyed, so pointers into it stay valid until exit.
  static const Table* table = [] {
    auto* t = new Table();
    for (auto list : {NonLocalWormVariants(), CacheLineWormVariants(), BlockWormVariants(), SimdWormVariants()}) {
      t->storage.insert(t->storage.end(), list.begin(), list.end());
    }
    for (const auto& v : t->storage) t->pointers.push_back(&v);
    return t;
  }();
  return table->pointers;
}

const WormSubVariant* FindWormSubVariant(std::string_view name) {
  for (const WormSubVariant* v : AllWormSubVariants()) {
    if (name == v->name) return v;
  }
  return nullptr;
}

std::string KnownWormSubVariantNames() {
  std::string s;
  for (const WormSubVariant* v : AllWormSubVariants()) {
    if (!s.empty()) s += ", ";
    s += v->name;
  }
  return s;
}

}  // namespace filterlab::worm
