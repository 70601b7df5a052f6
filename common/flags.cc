#include "common/flags.h"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>

#include "filters/filter_spec.h"

namespace filterlab {

FlagSet::FlagSet(std::string command, std::string summary, std::string program)
    : command_(std::move(command)), summary_(std::move(summary)), program_(std::move(program)) {}

void FlagSet::Int(const char* name, long long def, long long min, long long max, const char* help,
                  long long* out) {
  Flag f{name, Kind::kInt, help, std::to_string(def)};
  f.imin = min;
  f.imax = max;
  f.out = out;
  flags_.push_back(std::move(f));
}

void FlagSet::Double(const char* name, double def, double min, double max, const char* help, double* out) {
  Flag f{name, Kind::kDouble, help, FormatNumber(def)};
  f.dmin = min;
  f.dmax = max;
  f.out = out;
  flags_.push_back(std::move(f));
}

void FlagSet::String(const char* name, const char* def, const char* help, std::string* out) {
  Flag f{name, Kind::kString, help, def};
  f.out = out;
  flags_.push_back(std::move(f));
}

void FlagSet::Choice(const char* name, const char* def, std::initializer_list<const char*> allowed,
                     const char* help, std::string* out) {
  Flag f{name, Kind::kChoice, help, def};
  for (const char* a : allowed) f.allowed.push_back(a);
  f.out = out;
  flags_.push_back(std::move(f));
}

void FlagSet::List(const char* name, const char* help, std::vector<std::string>* out) {
  Flag f{name, Kind::kList, help, ""};
  f.out = out;
  flags_.push_back(std::move(f));
}

void FlagSet::Bool(const char* name, const char* help, bool* out, bool def) {
  Flag f{name, Kind::kBool, help, def ? "true" : "false"};
  f.out = out;
  flags_.push_back(std::move(f));
}

std::string FlagSet::Allowed(const Flag& f) const {
  switch (f.kind) {
    case Kind::kInt:
      return "an integer in " + std::to_string(f.imin) + ".." + std::to_string(f.imax);
    case Kind::kDouble:
      return "a number in " + FormatNumber(f.dmin) + ".." + FormatNumber(f.dmax);
    case Kind::kChoice: {
      std::string s = "one of ";
      for (size_t i = 0; i < f.allowed.size(); ++i) s += (i ? "|" : "") + f.allowed[i];
      return s;
    }
    case Kind::kBool:
      return "true or false";
    default:
      return "a string";
  }
}

Status FlagSet::Apply(Flag& f, const std::string& value) {
  auto bad = [&](const std::string& why) {
    return Status::InvalidArgument(command_ + ": --" + f.name + "=" + value + ": " + why + "; allowed: " +
                                   Allowed(f));
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
    case Kind::kString:
      *static_cast<std::string*>(f.out) = value;
      return Status::OK();
    case Kind::kChoice:
      for (const auto& a : f.allowed) {
        if (a == value) {
          *static_cast<std::string*>(f.out) = value;
          return Status::OK();
        }
      }
      return bad("unknown choice");
    case Kind::kList:
      static_cast<std::vector<std::string>*>(f.out)->push_back(value);
      return Status::OK();
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
  for (auto& f : flags_) {
    f.set = false;
    if (f.kind == Kind::kList) {
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
    Flag* flag = nullptr;
    for (auto& f : flags_) {
      if (f.name == name) flag = &f;
    }
    if (flag == nullptr) {
      std::string known;
      for (const auto& f : flags_) known += (known.empty() ? "--" : ", --") + f.name;
      return Status::InvalidArgument(command_ + ": unknown flag '--" + name + "'; known flags: " + known +
                                     ", --help");
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
      return Status::InvalidArgument(command_ + ": flag --" + name + " given twice (only --filter-like list flags repeat)");
    }
    Status s = Apply(*flag, value);
    if (!s.ok()) return s;
    flag->set = true;
  }
  return Status::OK();
}

bool FlagSet::WasSet(const char* name) const {
  for (const auto& f : flags_) {
    if (f.name == name) return f.set;
  }
  return false;
}

std::string FlagSet::Help() const {
  std::string s = "usage: " + (program_.empty() ? command_ : program_ + " " + command_) + " [FLAGS]\n" + summary_ +
                  "\nflags:\n";
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
  return s;
}

}  // namespace filterlab
