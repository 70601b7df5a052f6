#include "engine/db/db_stats.h"

namespace filterlab::engine {

std::optional<double> FilterCounters::FpRate() const {
  if (absent() == 0) return std::nullopt;
  return static_cast<double>(positive - true_positive) / static_cast<double>(absent());
}

}  // namespace filterlab::engine
