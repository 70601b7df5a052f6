#include "python/src/sim_runner.h"

#include "sim/commands.h"

namespace filterlab::python {

Status RunSimCommand(const std::string& command, const std::vector<std::string>& args,
                     std::vector<std::string>* records, std::string* help) {
  const sim::CommandFunction run = sim::FindCommand(command);
  if (run == nullptr) {
    return Status::InvalidArgument("unknown simulator command '" + command + "' (filterlab-sim --help lists them)");
  }
  // The command parses argv like main's: mutable C strings that outlive the call.
  std::vector<std::string> storage(args);
  std::vector<char*> argv;
  argv.reserve(storage.size());
  for (std::string& a : storage) argv.push_back(a.data());
  return run(
      static_cast<int>(argv.size()), argv.data(), [records](const JsonRecord& r) { records->push_back(r.dump()); },
      help);
}

}  // namespace filterlab::python
