// Command-line flags of every filterlab binary (filterlab-sim, lsmbench,
// filterlab-tool): a declared set of --name VALUE flags per subcommand, each with help text and a validated type/range, so every
// error names the flag, the value given and what is allowed.
#pragma once

#include <initializer_list>
#include <string>
#include <utility>
#include <vector>

#include "common/status.h"

namespace filterlab {

class FlagSet {
 public:
  // `program` prefixes the usage line ("usage: PROGRAM COMMAND [FLAGS]"); a
  // tool with no subcommands passes "" and its own name as `command`.
  FlagSet(std::string command, std::string summary, std::string program = "filterlab-sim");

  // Integer in [min, max]. Accepts plain integers and exact scientific forms
  // such as 1e9 (so sweeps can say --keys 1e9).
  void Int(const char* name, long long def, long long min, long long max, const char* help, long long* out);
  // Finite number in [min, max].
  void Double(const char* name, double def, double min, double max, const char* help, double* out);
  void String(const char* name, const char* def, const char* help, std::string* out);
  // One of `allowed`.
  void Choice(const char* name, const char* def, std::initializer_list<const char*> allowed, const char* help,
              std::string* out);
  // Repeatable; each occurrence appends one value.
  void List(const char* name, const char* help, std::vector<std::string>* out);
  // "--name" sets true; "--name=false" / "--name=true" also accepted.
  void Bool(const char* name, const char* help, bool* out, bool def = false);

  // Parses argv[0..argc) (the arguments after the subcommand). Sets defaults
  // first. --help / -h sets help_requested() and stops.
  Status Parse(int argc, char** argv);
  bool help_requested() const { return help_requested_; }
  // True if the flag was given on the command line.
  bool WasSet(const char* name) const;
  std::string Help() const;

 private:
  enum class Kind { kInt, kDouble, kString, kChoice, kList, kBool };
  struct Flag {
    Flag(std::string name_, Kind kind_, std::string help_, std::string def_)
        : name(std::move(name_)), kind(kind_), help(std::move(help_)), def(std::move(def_)) {}
    std::string name;
    Kind kind;
    std::string help;
    std::string def;
    long long imin = 0, imax = 0;
    double dmin = 0, dmax = 0;
    std::vector<std::string> allowed;
    void* out = nullptr;
    bool set = false;
  };
  Status Apply(Flag& f, const std::string& value);
  std::string Allowed(const Flag& f) const;

  std::string command_;
  std::string summary_;
  std::string program_;
  std::vector<Flag> flags_;
  bool help_requested_ = false;
};

}  // namespace filterlab
