// Status: the result of an operation that can fail, with a message that says
// what went wrong and what is allowed. Used by every layer (hashing, filters,
// sim, engine); cheap to return when OK or when the message is empty (no
// allocation: a read path returns NotFound("") for every missing key).
#pragma once

#include <memory>
#include <string>
#include <string_view>

namespace filterlab {

class Status {
 public:
  enum class Code : unsigned char {
    kOk = 0,
    kInvalidArgument,
    kCorruption,
    kNotFound,
    kNotSupported,
    kIOError,
    kBusy,
  };

  Status() = default;
  static Status OK() { return Status(); }
  static Status InvalidArgument(std::string_view msg) { return Status(Code::kInvalidArgument, msg); }
  static Status Corruption(std::string_view msg) { return Status(Code::kCorruption, msg); }
  static Status NotFound(std::string_view msg) { return Status(Code::kNotFound, msg); }
  static Status NotSupported(std::string_view msg) { return Status(Code::kNotSupported, msg); }
  static Status IOError(std::string_view msg) { return Status(Code::kIOError, msg); }
  static Status Busy(std::string_view msg) { return Status(Code::kBusy, msg); }

  bool ok() const { return code_ == Code::kOk; }
  Code code() const { return code_; }
  bool IsInvalidArgument() const { return code_ == Code::kInvalidArgument; }
  bool IsCorruption() const { return code_ == Code::kCorruption; }
  bool IsNotFound() const { return code_ == Code::kNotFound; }
  bool IsNotSupported() const { return code_ == Code::kNotSupported; }
  bool IsIOError() const { return code_ == Code::kIOError; }
  bool IsBusy() const { return code_ == Code::kBusy; }

  // The bare message, without the code prefix.
  const std::string& message() const;
  // "Corruption: <message>" or "OK".
  std::string ToString() const;

 private:
  Status(Code code, std::string_view msg)
      : code_(code), msg_(msg.empty() ? nullptr : std::make_shared<const std::string>(msg)) {}

  Code code_ = Code::kOk;
  std::shared_ptr<const std::string> msg_;  // null when OK or the message is empty
};

}  // namespace filterlab
