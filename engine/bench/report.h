// lsmbench's two outputs per benchmark: a db_bench-style text line
//   readrandom   :       3.650 micros/op 273972 ops/sec 7.300 seconds 2000000 operations; (2000000 of 2000000 found)
// (to stderr, with any distribution after it) and one JSON object (to
// stdout, the contract with the experiment runner) carrying the result and
// every option that produced it.
#pragma once

#include <string>

#include "engine/bench/bench_config.h"
#include "engine/bench/benchmarks.h"
#include "engine/bench/engine.h"

namespace filterlab::lsmbench {

std::string FormatTextLine(const BenchResult& result);

// The JSON record of one benchmark. `engine` may be null (a benchmark that
// failed before an engine was open); filter statistics are read from it now.
JsonRecord MakeRecord(const BenchConfig& config, Engine* engine, const BenchResult& result);

}  // namespace filterlab::lsmbench
