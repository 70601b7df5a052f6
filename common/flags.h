// Command-line flags of every filterlab binary (filterlab-sim, lsmbench,
// filterlab-tool): a declared set of flags per (sub)command, each with help
// text and a validated type and range, so every error names the flag, the
// value given and what is allowed.
//
// The declaration is also the binary's contract with the Python runner:
// `--describe` prints it as JSON (Description(): every flag's name, type,
// range or choices, default and help, and the fields of the records the
// command prints), and `--check` parses and cross-checks a command line
// without running it. The runner builds its worker table from the first and
// validates each run with the second, so no flag is written down twice.
//
// One flag style everywhere: --name=VALUE or --name VALUE, booleans also as
// a bare --name; '-' and '_' are the same character in a flag name
// (--key-size is --key_size), and names are declared with '_'.
#pragma once

#include <initializer_list>
#include <nlohmann/json.hpp>
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
  // A comma-separated list of entries from `allowed`; `def` is such a list.
  // Entries must be distinct unless `repeats` (lsmbench's --benchmarks, where
  // db_bench's readrandom,readrandom runs a cold and a warm pass).
  enum class Repeats { kRefused, kAllowed };
  void ChoiceList(const char* name, const char* def, std::vector<std::string> allowed, const char* help,
                  std::vector<std::string>* out, Repeats repeats = Repeats::kRefused);
  // "--name" sets true; "--name=false" / "--name=true" also accepted.
  void Bool(const char* name, const char* help, bool* out, bool def = false);

  // A field of the records the command prints (one JSON object per line), for
  // --describe. `type` is one of int, number, string, bool, array, object; a
  // trailing '?' says the value may be null. Records may carry only declared
  // fields (CheckRecordFields), and the runner learns its columns from here.
  void Field(const char* name, const char* type, const char* help);

  // Parses argv[0..argc) (the arguments after the subcommand). Sets defaults
  // first. --help / -h and --describe stop parsing (see Answered); --check
  // parses the rest as usual and sets check_only().
  Status Parse(int argc, char** argv);
  // True when --help or --describe was given: *out then receives the help
  // text or the one-line JSON description, and the command runs nothing.
  bool Answered(std::string* out) const;
  bool help_requested() const { return help_requested_; }
  bool describe_requested() const { return describe_requested_; }
  // --check: the command validates its flags (this parse and its own
  // cross-checks), prints nothing and returns OK without running.
  bool check_only() const { return check_only_; }
  // True if the flag was given on the command line.
  bool WasSet(const char* name) const;
  std::string Help() const;
  // {"command", "summary", "flags": [{name, type, default, help, min, max |
  // choices, repeatable}], "fields": [{name, type, nullable, help}]}.
  nlohmann::ordered_json Description() const;

 private:
  enum class Kind { kInt, kDouble, kString, kChoice, kChoiceList, kList, kBool };
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
    bool repeats = false;  // ChoiceList: an entry may appear more than once
    void* out = nullptr;
    bool set = false;
  };
  struct RecordField {
    std::string name;
    std::string type;
    bool nullable;
    std::string help;
  };
  Flag& Add(Flag f);
  Status Apply(Flag& f, const std::string& value);
  std::string Allowed(const Flag& f) const;
  Flag* Find(const std::string& name);

  std::string command_;
  std::string summary_;
  std::string program_;
  std::vector<Flag> flags_;
  std::vector<RecordField> fields_;
  bool help_requested_ = false;
  bool describe_requested_ = false;
  bool check_only_ = false;
};

// Every key of `record` is a declared field of `description` (a
// FlagSet::Description()) and its value has the declared type (null only where
// nullable). InvalidArgument naming the first key that is not. For the tests
// that hold each command's printed records against its --describe.
Status CheckRecordFields(const nlohmann::ordered_json& record, const nlohmann::ordered_json& description);

// The whole program's --describe: {"program", "summary", "commands": [...]},
// each command a FlagSet::Description().
nlohmann::ordered_json DescribeProgram(const std::string& program, const std::string& summary,
                                       std::vector<nlohmann::ordered_json> commands);

}  // namespace filterlab
