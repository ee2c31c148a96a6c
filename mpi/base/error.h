// MPI errors inside the library: an error class (MPI_ERR_*) and the message that names the call,
// the rank and the value. Internal functions return Error; the C bindings hand a failed Error to
// the communicator's error handler (mpi/comm/errhandler.h).
#pragma once

#include <memory>
#include <string>

namespace gasket::mpi {

// Every argument check of every call returns one, nearly always ok: an ok Error is a zero and a
// null pointer, so making, moving and dropping it costs a few instructions (with a std::string
// member each of the ~8 checks of a small collective moved and destroyed a string). The
// message is on the heap, made only when something failed.
class [[nodiscard]] Error {
 public:
  Error() = default;
  Error(int error_class, std::string message)
      : class_(error_class), message_(std::make_unique<std::string>(std::move(message))) {}
  Error(const Error& other)
      : class_(other.class_), message_(other.message_ ? std::make_unique<std::string>(*other.message_) : nullptr) {}
  Error& operator=(const Error& other) { return *this = Error(other); }
  Error(Error&&) noexcept = default;
  Error& operator=(Error&&) noexcept = default;
  static Error ok() { return Error(); }
  bool is_ok() const { return class_ == 0; }
  int error_class() const { return class_; }
  const std::string& message() const { return message_ ? *message_ : no_message(); }

 private:
  static const std::string& no_message();
  int class_ = 0;
  std::unique_ptr<std::string> message_;
};

// printf-style constructor: error(MPI_ERR_RANK, "MPI_Send: invalid destination rank %d", r).
Error error(int error_class, const char* fmt, ...) __attribute__((format(printf, 2, 3)));

// The standard's description of an error class ("MPI_ERR_RANK: invalid rank"), or null when
// `error_class` is not one.
const char* error_class_string(int error_class);

}  // namespace gasket::mpi
