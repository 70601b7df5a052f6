// The plan of a speed run (speed_plan.h).
#include "sim/speed_plan.h"

#include <algorithm>
#include <cmath>
#include <utility>

namespace filterlab::sim {

namespace {

bool Has(const std::vector<SpeedMode>& modes, SpeedMode mode) {
  return std::find(modes.begin(), modes.end(), mode) != modes.end();
}

}  // namespace

SpeedPlan PlanSpeedRun(const SpeedConfig& cfg) {
  SpeedPlan plan;
  plan.build_record = Has(cfg.modes, SpeedMode::kBuild);
  for (QueryMix mix : cfg.mixes) {
    if (Has(cfg.modes, SpeedMode::kSingle)) plan.working_set.push_back({SpeedMode::kSingle, mix, Pick::kSingle, false});
    if (Has(cfg.modes, SpeedMode::kRandom)) plan.working_set.push_back({SpeedMode::kRandom, mix, Pick::kRandom, true});
    if (Has(cfg.modes, SpeedMode::kRandomPipelined)) {
      for (int depth : cfg.pipeline_depths) {
        Measurement m{SpeedMode::kRandomPipelined, mix, Pick::kRandom, true};
        m.pipelined = true;
        m.pipeline_depth = depth;
        plan.working_set.push_back(m);
      }
    }
  }
  if (Has(cfg.modes, SpeedMode::kBatched)) {
    for (int b : cfg.batch_sizes) {
      for (bool prepared : {true, false}) {
        for (Pick pick : {Pick::kSingle, Pick::kRandom}) {
          Measurement m{SpeedMode::kBatched, QueryMix::kMixed, pick, pick == Pick::kRandom};
          m.batch = b;
          m.prepared = prepared;
          plan.working_set.push_back(m);
        }
      }
    }
  }
  if (Has(cfg.modes, SpeedMode::kSkewed)) {
    for (auto [share, part] : {std::pair<double, double>{0.5, 0.01}, {0.8, 0.2}}) {
      Measurement m{SpeedMode::kSkewed, QueryMix::kMixed, Pick::kSkewed, true};
      m.primary_threshold = static_cast<uint32_t>(share * 4294967295.0);
      m.skew_filters = part;
      plan.working_set.push_back(m);
    }
  }
  if (Has(cfg.modes, SpeedMode::kHuge)) {
    Measurement m{SpeedMode::kHuge, QueryMix::kMixed, Pick::kSingle, true};
    plan.huge.push_back(m);
    for (int b : cfg.batch_sizes) {
      m.batch = b;
      m.prepared = true;
      plan.huge.push_back(m);
    }
  }
  return plan;
}

int PipelineDepthForLines(double lines_per_query) {
  if (!(lines_per_query > 0)) return 16;
  const double log2_depth = std::round(std::log2(kPipelineLinesInFlight / lines_per_query));
  return 1 << static_cast<int>(std::clamp(log2_depth, 1.0, 4.0));
}

RoundSplit SplitIntoRounds(uint64_t queries, uint64_t rounds, uint64_t batch) {
  const uint64_t per_round = std::max<uint64_t>(1, (queries + rounds * batch - 1) / (rounds * batch)) * batch;
  return RoundSplit{per_round, per_round * rounds};
}

}  // namespace filterlab::sim
