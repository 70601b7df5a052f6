// `filterlab-tool table`: one row per registered filter (every example spec of
// every variant): measured FP rate with its 95% Wilson interval next to the
// variant's model, actual bits and bytes per key, build ns/key and query
// ns/op, single and batched. What `./filterlab run` prints until the
// experiment runner exists; a quick look, not a substitute for filterlab-sim.
#pragma once

namespace filterlab {

// argv holds the arguments after "table"; returns the process exit code.
int RunFilterTable(int argc, char** argv);

}  // namespace filterlab
