// Runs a filterlab-sim command in-process for the Python module
// (filterlab.sim): the same command function, flags and records as the
// command line, with the records collected instead of printed.
#pragma once

#include <string>
#include <vector>

#include "common/status.h"

namespace filterlab::python {

// Runs `command` ("fp", "model", "speed", ...) with `args` as its command
// line (e.g. {"--filter=fastlocal:bpk=10", "--keys=1000000"}). Each record
// goes to *records as one JSON text, as the CLI prints it; *help gets the
// text of --help / --describe when asked (and nothing runs). Errors are the
// command's Status, whose message is what `filterlab-sim COMMAND` prints
// after its "filterlab-sim COMMAND: " prefix.
Status RunSimCommand(const std::string& command, const std::vector<std::string>& args,
                     std::vector<std::string>* records, std::string* help);

}  // namespace filterlab::python
