// Communicators, groups and error handlers. A communicator is a context id (which keeps its
// messages apart from every other communicator's), its group (rank -> PE) and, for an
// intercommunicator, the remote group. Owned by the MPI context; may call mpi/base.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "mpi.h"
#include "mpi/base/error.h"

namespace gasket::mpi::comm {

struct Group {
  std::vector<int> pes;  // rank -> PE
  int rank_of_pe(int pe) const;  // MPI_UNDEFINED when absent
};

struct Errhandler {
  MPI_Comm_errhandler_function* function = nullptr;  // null for the predefined ones
  int refs = 1;
};

struct Communicator {
  uint32_t context = 0;  // point-to-point traffic; context + 1 for the interim collectives
  std::shared_ptr<const Group> group;
  std::shared_ptr<const Group> remote_group;  // null for an intracommunicator
  int rank = 0;  // in group
  MPI_Errhandler errhandler = MPI_ERRORS_ARE_FATAL;
  std::string name;

  int size() const { return static_cast<int>(group->pes.size()); }
  bool is_inter() const { return remote_group != nullptr; }
  // Ranks named by sends and receives: the remote group of an intercommunicator, else the group.
  const Group& peers() const { return is_inter() ? *remote_group : *group; }
};

class CommTable {
 public:
  // MPI_COMM_WORLD (context 0) and MPI_COMM_SELF (context 2) for this PE.
  CommTable(int my_pe, int n_pes);
  Error lookup(MPI_Comm handle, const char* call, Communicator** comm);
  MPI_Comm add(Communicator comm);
  Error free(MPI_Comm* handle, const char* call);

  // Error handlers (MPI_ERRORS_ARE_FATAL and MPI_ERRORS_RETURN are predefined).
  MPI_Errhandler add_errhandler(MPI_Comm_errhandler_function* function);
  Error lookup_errhandler(MPI_Errhandler handle, const char* call, Errhandler** eh);
  Error free_errhandler(MPI_Errhandler* handle, const char* call);

 private:
  std::vector<std::unique_ptr<Communicator>> comms_;
  std::vector<std::unique_ptr<Errhandler>> errhandlers_;
};

}  // namespace gasket::mpi::comm
