#include "engine/db/db_stats.h"

namespace filterlab::engine {

FilterCounters FilterCounters::FromLevel(const LevelTickers& t) {
  FilterCounters c;
  c.checked = t[LevelTicker::kFilterChecked];
  c.useful = t[LevelTicker::kFilterUseful];
  c.positive = t[LevelTicker::kFilterPositive];
  c.true_positive = t[LevelTicker::kFilterTruePositive];
  c.lookups = t[LevelTicker::kLookups];
  c.found = t[LevelTicker::kFound];
  return c;
}

std::optional<double> FilterCounters::FpRate() const {
  if (absent() == 0) return std::nullopt;
  return static_cast<double>(positive - true_positive) / static_cast<double>(absent());
}

}  // namespace filterlab::engine
