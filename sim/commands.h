// The subcommands of filterlab-sim. Each parses its flags (flags.h), runs, and
// hands every measurement to `emit` as one JSON record. Help text goes to
// *help (and nothing runs) when --help is given. Errors come back as Status,
// naming the flag, the value and what is allowed.
#pragma once

#include <functional>
#include <string>

#include "common/json_out.h"
#include "common/status.h"

namespace filterlab::sim {

using Emit = std::function<void(const JsonRecord&)>;

Status FpCommand(int argc, char** argv, const Emit& emit, std::string* help);
Status ModelCommand(int argc, char** argv, const Emit& emit, std::string* help);
Status SpeedCommand(int argc, char** argv, const Emit& emit, std::string* help);
Status FloorCommand(int argc, char** argv, const Emit& emit, std::string* help);
Status ProbesCommand(int argc, char** argv, const Emit& emit, std::string* help);
Status LsmCommand(int argc, char** argv, const Emit& emit, std::string* help);
Status DynamicCommand(int argc, char** argv, const Emit& emit, std::string* help);
Status RangeFpCommand(int argc, char** argv, const Emit& emit, std::string* help);
Status RangeSpeedCommand(int argc, char** argv, const Emit& emit, std::string* help);
Status RangeWorkloadCommand(int argc, char** argv, const Emit& emit, std::string* help);

// The command named `name` ("fp", "model", ...), or null: what runs a
// command for another front end (the Python module's filterlab.sim).
using CommandFunction = Status (*)(int argc, char** argv, const Emit& emit, std::string* help);
CommandFunction FindCommand(const std::string& name);

// The whole program: argv[1] is the subcommand. Returns the exit code
// (0 ok, 1 run failed, 2 usage error).
int SimMain(int argc, char** argv);

}  // namespace filterlab::sim
