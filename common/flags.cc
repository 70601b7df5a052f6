#include "common/flags.h"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>

#include "common/strings.h"

namespace filterlab {

namespace {

// '-' and '_' are one character in flag names; the canonical form uses '_'.
std::string CanonicalFlagName(std::string name) {
  for (char& c : name) {
    if (c == '-') c = '_';
  }
  return name;
}

constexpr const char* kFieldTypes[] = {"int", "number", "string", "bool", "array", "object"};

bool ValueHasType(const nlohmann::ordered_json& v, const std::string& type) {
  if (type == "int") return v.is_number_integer();
  if (type == "number") return v.is_number();
  if (type == "string") return v.is_string();
  if (type == "bool") return v.is_boolean();
  if (type == "array") return v.is_array();
  if (type == "object") return v.is_object();
  return false;
}

}  // namespace

FlagSet::FlagSet(std::string command, std::string summary, std::string program)
    : command_(std::move(command)), summary_(std::move(summary)), program_(std::move(program)) {}

void FlagSet::Int(const char* name, long long def, long long min, long long max, const char* help, long long* out) {
  Flag f{name, Kind::kInt, help, std::to_string(def)};
  f.imin = min;
  f.imax = max;
  f.out = out;
  Add(std::move(f));
}

void FlagSet::Double(const char* name, double def, double min, double max, const char* help, double* out) {
  Flag f{name, Kind::kDouble, help, FormatNumber(def)};
  f.dmin = min;
  f.dmax = max;
  f.out = out;
  Add(std::move(f));
}

void FlagSet::String(const char* name, const char* def, const char* help, std::string* out) {
  Flag f{name, Kind::kString, help, def};
  f.out = out;
  Add(std::move(f));
}

void FlagSet::Choice(const char* name, const char* def, std::initializer_list<const char*> allowed, const char* help,
                     std::string* out) {
  Flag f{name, Kind::kChoice, help, def};
  for (const char* a : allowed) f.allowed.push_back(a);
  f.out = out;
  Add(std::move(f));
}

void FlagSet::List(const char* name, const char* help, std::vector<std::string>* out) {
  Flag f{name, Kind::kList, help, ""};
  f.out = out;
  Add(std::move(f));
}

void FlagSet::ChoiceList(const char* name, const char* def, std::vector<std::string> allowed, const char* help,
                         std::vector<std::string>* out, Repeats repeats) {
  Flag f{name, Kind::kChoiceList, help, def};
  f.allowed = std::move(allowed);
  f.repeats = repeats == Repeats::kAllowed;
  f.out = out;
  Add(std::move(f));
}

void FlagSet::Bool(const char* name, const char* help, bool* out, bool def) {
  Flag f{name, Kind::kBool, help, def ? "true" : "false"};
  f.out = out;
  Add(std::move(f));
}

FlagSet::Flag& FlagSet::Add(Flag f) {
  f.name = CanonicalFlagName(f.name);
  flags_.push_back(std::move(f));
  return flags_.back();
}

FlagSet::Flag* FlagSet::Find(const std::string& name) {
  const std::string canonical = CanonicalFlagName(name);
  for (auto& f : flags_) {
    if (f.name == canonical) return &f;
  }
  return nullptr;
}

void FlagSet::Field(const char* name, const char* type, const char* help) {
  std::string t = type;
  const bool nullable = !t.empty() && t.back() == '?';
  if (nullable) t.pop_back();
  bool known = false;
  for (const char* k : kFieldTypes) known = known || t == k;
  // A misdeclared field is a programming error of the command, caught by its
  // describe test the first time it runs.
  if (!known) t = "invalid:" + t;
  fields_.push_back(RecordField{name, t, nullable, help});
}

std::string FlagSet::Allowed(const Flag& f) const {
  switch (f.kind) {
    case Kind::kInt: return "an integer in " + std::to_string(f.imin) + ".." + std::to_string(f.imax);
    case Kind::kDouble: return "a number in " + FormatNumber(f.dmin) + ".." + FormatNumber(f.dmax);
    case Kind::kChoice: {
      std::string s = "one of ";
      for (size_t i = 0; i < f.allowed.size(); ++i) s += (i ? "|" : "") + f.allowed[i];
      return s;
    }
    case Kind::kChoiceList: {
      std::string s =
          f.repeats ? "a comma-separated list of entries from " : "a comma-separated list of distinct entries from ";
      for (size_t i = 0; i < f.allowed.size(); ++i) s += (i ? "|" : "") + f.allowed[i];
      return s;
    }
    case Kind::kBool: return "true or false";
    default: return "a string";
  }
}

Status FlagSet::Apply(Flag& f, const std::string& value) {
  auto bad = [&](const std::string& why) {
    return Status::InvalidArgument(command_ + ": --" + f.name + "=" + value + ": " + why + "; allowed: " + Allowed(f));
  };
  switch (f.kind) {
    case Kind::kInt: {
      if (value.empty()) return bad("empty value");
      errno = 0;
      char* end = nullptr;
      long long v = std::strtoll(value.c_str(), &end, 10);
      if (*end != '\0' || errno != 0) {
        // Scientific forms such as 1e9 or 2.5e6, if they denote an exact integer.
        errno = 0;
        const double d = std::strtod(value.c_str(), &end);
        if (*end != '\0' || errno != 0 || !std::isfinite(d) || d != std::floor(d) || std::fabs(d) > 9.0e18) {
          return bad("not an integer");
        }
        v = static_cast<long long>(d);
      }
      if (v < f.imin || v > f.imax) return bad("out of range");
      *static_cast<long long*>(f.out) = v;
      return Status::OK();
    }
    case Kind::kDouble: {
      errno = 0;
      char* end = nullptr;
      const double d = std::strtod(value.c_str(), &end);
      if (value.empty() || *end != '\0' || errno != 0 || !std::isfinite(d)) return bad("not a finite number");
      if (d < f.dmin || d > f.dmax) return bad("out of range");
      *static_cast<double*>(f.out) = d;
      return Status::OK();
    }
    case Kind::kString: *static_cast<std::string*>(f.out) = value; return Status::OK();
    case Kind::kChoice:
      for (const auto& a : f.allowed) {
        if (a == value) {
          *static_cast<std::string*>(f.out) = value;
          return Status::OK();
        }
      }
      return bad("unknown choice");
    case Kind::kChoiceList: {
      if (value.empty()) return bad("empty list");
      std::vector<std::string> chosen;
      for (const std::string& entry : Split(value, ',')) {
        bool ok = false;
        for (const auto& a : f.allowed) ok = ok || a == entry;
        if (!ok) return bad("unknown entry '" + entry + "'");
        for (const auto& seen : chosen) {
          if (seen == entry && !f.repeats) return bad("'" + entry + "' is listed twice");
        }
        chosen.push_back(entry);
      }
      *static_cast<std::vector<std::string>*>(f.out) = std::move(chosen);
      return Status::OK();
    }
    case Kind::kList: static_cast<std::vector<std::string>*>(f.out)->push_back(value); return Status::OK();
    case Kind::kBool:
      if (value == "true" || value == "1") {
        *static_cast<bool*>(f.out) = true;
      } else if (value == "false" || value == "0") {
        *static_cast<bool*>(f.out) = false;
      } else {
        return bad("not a boolean");
      }
      return Status::OK();
  }
  return Status::OK();
}

Status FlagSet::Parse(int argc, char** argv) {
  // Defaults first.
  help_requested_ = describe_requested_ = check_only_ = false;
  for (auto& f : flags_) {
    f.set = false;
    if (f.kind == Kind::kList || (f.kind == Kind::kChoiceList && f.def.empty())) {
      static_cast<std::vector<std::string>*>(f.out)->clear();
    } else {
      Status s = Apply(f, f.def);
      if (!s.ok()) return s;
    }
  }
  for (int i = 0; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "--help" || arg == "-h") {
      help_requested_ = true;
      return Status::OK();
    }
    if (arg == "--describe") {
      describe_requested_ = true;
      return Status::OK();
    }
    if (arg == "--check") {
      check_only_ = true;
      continue;
    }
    if (arg.rfind("--", 0) != 0) {
      return Status::InvalidArgument(command_ + ": unexpected argument '" + arg +
                                     "'; flags have the form --name VALUE or --name=VALUE (see " + command_ +
                                     " --help)");
    }
    std::string name = arg.substr(2);
    std::string value;
    bool has_value = false;
    if (const size_t eq = name.find('='); eq != std::string::npos) {
      value = name.substr(eq + 1);
      name = name.substr(0, eq);
      has_value = true;
    }
    name = CanonicalFlagName(name);
    Flag* flag = Find(name);
    if (flag == nullptr) {
      std::string known;
      for (const auto& f : flags_) known += (known.empty() ? "--" : ", --") + f.name;
      return Status::InvalidArgument(command_ + ": unknown flag '--" + name + "'; known flags: " + known +
                                     ", --help, --describe, --check");
    }
    if (!has_value) {
      if (flag->kind == Kind::kBool) {
        value = "true";
      } else if (i + 1 < argc) {
        value = argv[++i];
      } else {
        return Status::InvalidArgument(command_ + ": flag --" + name + " needs a value: " + Allowed(*flag));
      }
    }
    if (flag->set && flag->kind != Kind::kList) {
      return Status::InvalidArgument(command_ + ": flag --" + name +
                                     " given twice (only --filter-like list flags repeat)");
    }
    Status s = Apply(*flag, value);
    if (!s.ok()) return s;
    flag->set = true;
  }
  return Status::OK();
}

bool FlagSet::WasSet(const char* name) const {
  const std::string canonical = CanonicalFlagName(name);
  for (const auto& f : flags_) {
    if (f.name == canonical) return f.set;
  }
  return false;
}

bool FlagSet::Answered(std::string* out) const {
  if (help_requested_) {
    *out = Help();
    return true;
  }
  if (describe_requested_) {
    *out = Description().dump() + "\n";
    return true;
  }
  return false;
}

std::string FlagSet::Help() const {
  std::string s =
      "usage: " + (program_.empty() ? command_ : program_ + " " + command_) + " [FLAGS]\n" + summary_ + "\nflags:\n";
  for (const auto& f : flags_) {
    s += "  --";
    s += f.name;
    if (f.kind == Kind::kList) {
      s += " VALUE (repeatable)";
    } else if (f.kind != Kind::kBool) {
      s += " VALUE";
    }
    s += "\n      ";
    s += f.help;
    if (f.kind != Kind::kList && f.kind != Kind::kString) s += " [" + Allowed(f) + "]";
    if (!f.def.empty() && f.kind != Kind::kList) s += " (default " + f.def + ")";
    s += "\n";
  }
  s += "  --help\n      this text\n";
  s += "  --describe\n      print the flags and record fields as JSON (for the experiment runner)\n";
  s += "  --check\n      validate the flags, print nothing, run nothing\n";
  return s;
}

nlohmann::ordered_json FlagSet::Description() const {
  static const char* const kKindNames[] = {"int", "number", "string", "choice", "choice_list", "list", "bool"};
  nlohmann::ordered_json flags = nlohmann::ordered_json::array();
  for (const auto& f : flags_) {
    nlohmann::ordered_json d;
    d["name"] = f.name;
    d["type"] = kKindNames[static_cast<int>(f.kind)];
    switch (f.kind) {
      case Kind::kInt:
        d["default"] = std::stoll(f.def);
        d["min"] = f.imin;
        d["max"] = f.imax;
        break;
      case Kind::kDouble:
        d["default"] = std::stod(f.def);
        d["min"] = f.dmin;
        d["max"] = f.dmax;
        break;
      case Kind::kBool: d["default"] = f.def == "true"; break;
      case Kind::kChoice:
        d["default"] = f.def;
        d["choices"] = f.allowed;
        break;
      case Kind::kChoiceList:
        d["default"] = f.def.empty() ? std::vector<std::string>{} : Split(f.def, ',');
        d["choices"] = f.allowed;
        d["repeats"] = f.repeats;
        break;
      case Kind::kList: d["default"] = std::vector<std::string>{}; break;
      case Kind::kString: d["default"] = f.def; break;
    }
    d["repeatable"] = f.kind == Kind::kList;
    d["help"] = f.help;
    flags.push_back(std::move(d));
  }
  nlohmann::ordered_json fields = nlohmann::ordered_json::array();
  for (const auto& f : fields_) {
    fields.push_back({{"name", f.name}, {"type", f.type}, {"nullable", f.nullable}, {"help", f.help}});
  }
  nlohmann::ordered_json out;
  out["command"] = command_;
  out["summary"] = summary_;
  out["flags"] = std::move(flags);
  out["fields"] = std::move(fields);
  return out;
}

Status CheckRecordFields(const nlohmann::ordered_json& record, const nlohmann::ordered_json& description) {
  const std::string command = description.value("command", std::string());
  if (!record.is_object()) return Status::InvalidArgument(command + ": a record must be a JSON object");
  for (const auto& [key, value] : record.items()) {
    const nlohmann::ordered_json* field = nullptr;
    for (const auto& f : description["fields"]) {
      if (f["name"] == key) field = &f;
    }
    if (field == nullptr) {
      return Status::InvalidArgument(command + ": record field '" + key + "' is not declared (FlagSet::Field)");
    }
    if (value.is_null()) {
      if (!(*field)["nullable"].get<bool>()) {
        return Status::InvalidArgument(command + ": record field '" + key + "' is null but not declared nullable");
      }
      continue;
    }
    const std::string type = (*field)["type"].get<std::string>();
    if (!ValueHasType(value, type)) {
      return Status::InvalidArgument(command + ": record field '" + key + "' = " + value.dump() +
                                     " is not of its declared type " + type);
    }
  }
  return Status::OK();
}

nlohmann::ordered_json DescribeProgram(const std::string& program, const std::string& summary,
                                       std::vector<nlohmann::ordered_json> commands) {
  nlohmann::ordered_json out;
  out["program"] = program;
  out["summary"] = summary;
  out["commands"] = std::move(commands);
  return out;
}

}  // namespace filterlab
