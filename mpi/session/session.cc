#include "mpi/session/session.h"

#include <strings.h>

namespace gasket::mpi::session {

const char* pset_name(int n) {
  static const char* const kNames[kNumPsets] = {kWorldPset, kSelfPset};
  return n >= 0 && n < kNumPsets ? kNames[n] : nullptr;
}

bool pset_members(const char* name, int my_pe, int n_pes, std::vector<int>* pes) {
  pes->clear();
  if (strcasecmp(name, kWorldPset) == 0) {
    for (int pe = 0; pe < n_pes; ++pe) pes->push_back(pe);
    return true;
  }
  if (strcasecmp(name, kSelfPset) == 0) {
    pes->push_back(my_pe);
    return true;
  }
  return false;
}

MPI_Session SessionTable::add(Session s) {
  for (size_t i = 0; i < slots_.size(); ++i) {
    if (!slots_[i]) {
      slots_[i] = std::make_unique<Session>(std::move(s));
      return handle_of(i);
    }
  }
  slots_.push_back(std::make_unique<Session>(std::move(s)));
  return handle_of(slots_.size() - 1);
}

Session* SessionTable::find(MPI_Session handle) {
  if (handle <= 0) return nullptr;
  size_t slot = slot_of(handle);
  return slot < slots_.size() ? slots_[slot].get() : nullptr;
}

Error SessionTable::lookup(MPI_Session handle, const char* call, Session** s) {
  *s = find(handle);
  if (*s == nullptr) {
    return error(MPI_ERR_SESSION, "%s: %d is not a session (MPI_SESSION_NULL, or finalized, or never made)", call,
                 handle);
  }
  return Error::ok();
}

void SessionTable::remove(MPI_Session handle) {
  if (find(handle) != nullptr) slots_[slot_of(handle)].reset();
}

size_t SessionTable::live() const {
  size_t n = 0;
  for (const auto& s : slots_) n += s != nullptr;
  return n;
}

}  // namespace gasket::mpi::session
