// Status and Result: the error currency inside the core. No exception crosses a C API boundary;
// the API layers map a failed Status to MPI error codes or OpenSHMEM's behaviour.
#pragma once

#include <string>
#include <utility>

namespace gasket {

enum class StatusCode {
  kOk = 0,
  kInvalidArgument,  // a value a user can get wrong: PE, address, size, alignment
  kOutOfMemory,      // a segment or allocator is exhausted
  kUnavailable,      // a peer, service or resource cannot be reached
  kIoError,          // a system call failed (message carries errno's text)
  kProtocolError,    // a malformed or unauthenticated message from a peer
  kInternal,
};

class [[nodiscard]] Status {
 public:
  Status() = default;
  Status(StatusCode code, std::string message) : code_(code), message_(std::move(message)) {}
  static Status ok() { return Status(); }

  bool is_ok() const { return code_ == StatusCode::kOk; }
  explicit operator bool() const { return is_ok(); }
  StatusCode code() const { return code_; }
  const std::string& message() const { return message_; }

 private:
  StatusCode code_ = StatusCode::kOk;
  std::string message_;
};

inline Status invalid_argument(std::string m) { return {StatusCode::kInvalidArgument, std::move(m)}; }
inline Status io_error(std::string m) { return {StatusCode::kIoError, std::move(m)}; }
// An io_error whose message ends with strerror(errno) of the failed call.
Status errno_error(const std::string& what);

// A value or the Status explaining why there is none.
template <typename T>
class [[nodiscard]] Result {
 public:
  Result(T value) : value_(std::move(value)) {}  // NOLINT: implicit by design
  Result(Status status) : status_(std::move(status)) {}  // NOLINT
  bool is_ok() const { return status_.is_ok(); }
  const Status& status() const { return status_; }
  T& value() { return value_; }
  const T& value() const { return value_; }
  T& operator*() { return value_; }
  T* operator->() { return &value_; }

 private:
  T value_{};
  Status status_;
};

}  // namespace gasket
