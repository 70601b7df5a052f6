// `filterlab-tool check-spec [--json]`: asks the filter registry about spec
// strings without building anything: each spec's variant and parameters as
// written, its canonical form, or the registry's reason. The experiment runner
// reads specs only through it (experiments/registry.py).
#pragma once

namespace filterlab {

// argv holds the arguments after "check-spec"; returns the process exit code
// (0 if every spec is valid, 1 if any is not, 2 on usage errors).
int RunCheckSpec(int argc, char** argv);

}  // namespace filterlab
