#include "mpi/context/user_errors.h"

namespace gasket::mpi {

int UserErrors::add(int error_class) {
  int code = last_used_ + 1;
  entries_[code] = Entry{error_class < 0 ? code : error_class, ""};
  last_used_ = code;
  return code;
}

int UserErrors::add_class() { return add(-1); }

Error UserErrors::add_code(int error_class, const char* call, int* code) {
  bool predefined = error_class >= MPI_SUCCESS && error_class <= MPI_ERR_LASTCODE;
  auto it = entries_.find(error_class);
  bool user_class = it != entries_.end() && it->second.error_class == error_class;
  if (!predefined && !user_class) return error(MPI_ERR_ARG, "%s: %d is not an error class", call, error_class);
  *code = add(error_class);
  return Error::ok();
}

Error UserErrors::find(int code, bool want_class, const char* call, std::map<int, Entry>::iterator* it) {
  *it = entries_.find(code);
  if (*it == entries_.end() || ((*it)->second.error_class == code) != want_class) {
    return error(MPI_ERR_ARG, "%s: %d is not an error %s added by MPI_Add_error_%s", call, code,
                 want_class ? "class" : "code", want_class ? "class" : "code");
  }
  return Error::ok();
}

void UserErrors::erase(std::map<int, Entry>::iterator it) {
  entries_.erase(it);
  last_used_ = entries_.empty() ? MPI_ERR_LASTCODE : entries_.rbegin()->first;
}

Error UserErrors::set_string(int code, const char* text, const char* call) {
  auto it = entries_.find(code);
  if (it == entries_.end()) {
    return error(MPI_ERR_ARG, "%s: %d is not an error class or code added by the application", call, code);
  }
  if (text == nullptr) return error(MPI_ERR_ARG, "%s: the string for %d is NULL", call, code);
  std::string s(text);
  if (s.size() >= MPI_MAX_ERROR_STRING) {
    return error(MPI_ERR_ARG, "%s: the string for %d has %zu characters (at most %d)", call, code, s.size(),
                 MPI_MAX_ERROR_STRING - 1);
  }
  it->second.text = std::move(s);
  return Error::ok();
}

// MPI 4.1 makes it erroneous to remove a class or code whose string is still set.
Error UserErrors::check_no_string(std::map<int, Entry>::iterator it, const char* call) {
  if (it->second.text.empty()) return Error::ok();
  return error(MPI_ERR_ARG, "%s: %d still has a string (call MPI_Remove_error_string first)", call, it->first);
}

Error UserErrors::remove_class(int error_class, const char* call) {
  std::map<int, Entry>::iterator it;
  Error e = find(error_class, true, call, &it);
  if (e.is_ok()) e = check_no_string(it, call);
  if (!e.is_ok()) return e;
  for (const auto& [code, entry] : entries_) {
    if (code != error_class && entry.error_class == error_class) {
      return error(MPI_ERR_ARG, "%s: class %d still has error code %d (remove the codes first)", call, error_class,
                   code);
    }
  }
  erase(it);
  return Error::ok();
}

Error UserErrors::remove_code(int code, const char* call) {
  std::map<int, Entry>::iterator it;
  Error e = find(code, false, call, &it);
  if (e.is_ok()) e = check_no_string(it, call);
  if (e.is_ok()) erase(it);
  return e;
}

Error UserErrors::remove_string(int code, const char* call) {
  auto it = entries_.find(code);
  if (it == entries_.end() || it->second.text.empty()) {
    return error(MPI_ERR_ARG, "%s: %d has no string added by MPI_Add_error_string", call, code);
  }
  it->second.text.clear();
  return Error::ok();
}

int UserErrors::class_of(int code) const {
  auto it = entries_.find(code);
  return it == entries_.end() ? -1 : it->second.error_class;
}

const std::string* UserErrors::string_of(int code) const {
  auto it = entries_.find(code);
  return it == entries_.end() ? nullptr : &it->second.text;
}

}  // namespace gasket::mpi
