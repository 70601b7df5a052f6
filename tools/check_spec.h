// `filterlab-tool check-spec`: asks the filter registry whether spec strings
// are valid, without building anything. The experiment runner validates every
// filter of a config with it before a single run starts.
#pragma once

namespace filterlab {

// argv holds the arguments after "check-spec"; returns the process exit code
// (0 if every spec is valid, 1 if any is not, 2 on usage errors).
int RunCheckSpec(int argc, char** argv);

}  // namespace filterlab
