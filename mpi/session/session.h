// MPI sessions (MPI 4.1 section 11.3): what a session keeps (its error handler, the thread level
// it was given, its info) and the table of live sessions, owned by the MPI context. The process
// sets a session offers are fixed: mpi://WORLD (every process of the launch) and mpi://SELF.
// May call mpi/base.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "mpi.h"
#include "mpi/base/error.h"
#include "mpi/base/handle.h"

namespace gasket::mpi::session {

struct Session {
  MPI_Errhandler errhandler = MPI_ERRORS_ARE_FATAL;
  int thread_level = MPI_THREAD_SINGLE;
  std::vector<std::pair<std::string, std::string>> info;  // the hints given to MPI_Session_init
};

// The context id of the sessions' bootstrap communicator (mpi/comm's CommTable never hands it out).
constexpr uint32_t kBootstrapContext = 4;

// The process sets, in MPI_Session_get_nth_pset's order.
constexpr const char* kWorldPset = "mpi://WORLD";
constexpr const char* kSelfPset = "mpi://SELF";
constexpr int kNumPsets = 2;
const char* pset_name(int n);  // null when n is out of range
// The PEs of the process set `name` (my_pe, n_pes: this process's identity); false when unknown.
// Names are compared without regard to case, as the standard's URIs ("mpi://world" works too).
bool pset_members(const char* name, int my_pe, int n_pes, std::vector<int>* pes);

// The one pair of handle <-> slot conversions of the session kind, over the shared handle layout
// (mpi/base/handle.h): the table's index i is the kind's slot i + 1, so that 0 stays
// MPI_SESSION_NULL; a value of another kind gives an index past any table.
inline MPI_Session handle_of(size_t slot) { return mpi::handle_of(HandleKind::kSession, slot + 1); }
inline size_t slot_of(MPI_Session handle) { return mpi::slot_of(HandleKind::kSession, handle) - 1; }

class SessionTable {
 public:
  MPI_Session add(Session s);
  // The live session behind `handle`, or null.
  Session* find(MPI_Session handle);
  // MPI_ERR_SESSION naming `call` when `handle` is not a live session.
  Error lookup(MPI_Session handle, const char* call, Session** s);
  void remove(MPI_Session handle);
  size_t live() const;

  // The communicator sessions' communicator creation talks over (every process, a context id
  // of its own; made on first use): MPI_COMM_NULL until then.
  MPI_Comm bootstrap = MPI_COMM_NULL;

 private:
  std::vector<std::unique_ptr<Session>> slots_;
};

}  // namespace gasket::mpi::session
