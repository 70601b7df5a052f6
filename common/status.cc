#include "common/status.h"

namespace filterlab {

const std::string& Status::message() const {
  static const std::string kEmpty;
  return msg_ ? *msg_ : kEmpty;
}

std::string Status::ToString() const {
  const char* name = "OK";
  switch (code_) {
    case Code::kOk: return "OK";
    case Code::kInvalidArgument: name = "Invalid argument"; break;
    case Code::kCorruption: name = "Corruption"; break;
    case Code::kNotFound: name = "Not found"; break;
    case Code::kNotSupported: name = "Not supported"; break;
    case Code::kIOError: name = "IO error"; break;
    case Code::kBusy: name = "Busy"; break;
  }
  return std::string(name) + ": " + message();
}

}  // namespace filterlab
