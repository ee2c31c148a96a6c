// Error classes, codes and strings added by the application (MPI_Add_error_class/code/string and
// their MPI 4.1 removal): one numbering above MPI_ERR_LASTCODE shared by classes and codes; a class
// is an entry whose class is itself. MPI_LASTUSEDCODE is the largest value in use.
#pragma once

#include <map>
#include <string>

#include "mpi.h"
#include "mpi/base/error.h"

namespace gasket::mpi {

class UserErrors {
 public:
  int add_class();
  Error add_code(int error_class, const char* call, int* code);
  // A string for a user class or code (predefined ones keep the standard's).
  Error set_string(int code, const char* text, const char* call);
  Error remove_class(int error_class, const char* call);
  Error remove_code(int code, const char* call);
  Error remove_string(int code, const char* call);

  // The class of a user class or code, or -1 when `code` is not one.
  int class_of(int code) const;
  // Its string ("" when none was added); null when `code` is not a user class or code.
  const std::string* string_of(int code) const;
  // MPI_LASTUSEDCODE's value (the attribute points at it).
  const int* last_used() const { return &last_used_; }

 private:
  struct Entry {
    int error_class;
    std::string text;
  };
  int add(int error_class);
  Error find(int code, bool want_class, const char* call, std::map<int, Entry>::iterator* it);
  void erase(std::map<int, Entry>::iterator it);
  Error check_no_string(std::map<int, Entry>::iterator it, const char* call);

  std::map<int, Entry> entries_;
  int last_used_ = MPI_ERR_LASTCODE;
};

}  // namespace gasket::mpi
