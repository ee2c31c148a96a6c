// MPI errors inside the library: an error class (MPI_ERR_*) and the message that names the call,
// the rank and the value. Internal functions return Error; the C bindings hand a failed Error to
// the communicator's error handler (mpi/comm/errhandler.h).
#pragma once

#include <string>

namespace gasket::mpi {

class [[nodiscard]] Error {
 public:
  Error() = default;
  Error(int error_class, std::string message) : class_(error_class), message_(std::move(message)) {}
  static Error ok() { return Error(); }
  bool is_ok() const { return class_ == 0; }
  int error_class() const { return class_; }
  const std::string& message() const { return message_; }

 private:
  int class_ = 0;
  std::string message_;
};

// printf-style constructor: error(MPI_ERR_RANK, "MPI_Send: invalid destination rank %d", r).
Error error(int error_class, const char* fmt, ...) __attribute__((format(printf, 2, 3)));

// The standard's description of an error class ("MPI_ERR_RANK: invalid rank"), or null when
// `error_class` is not one.
const char* error_class_string(int error_class);

}  // namespace gasket::mpi
