// Communicators, groups and error handlers. A communicator is a context id (which keeps its
// messages apart from every other communicator's), its group (rank -> PE) and, for an
// intercommunicator, the remote group. Owned by the MPI context; may call mpi/base.
#pragma once

#include <algorithm>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "mpi.h"
#include "mpi/base/attribute_list.h"
#include "mpi/base/error.h"
#include "mpi/base/handle.h"

namespace gasket::coll {
class PeSet;  // core/coll: a communicator's group as the core's PE set (same-node collectives)
}  // namespace gasket::coll

namespace gasket::mpi::coll {
struct CellTable;  // mpi/coll/shm.cc: the members' same-node collective cells
}  // namespace gasket::mpi::coll

namespace gasket::mpi::topo {
class Topology;  // mpi/topo: a process topology (immutable, shared by duplicates)
}  // namespace gasket::mpi::topo

namespace gasket::mpi::comm {

struct Group {
  std::vector<int> pes;  // rank -> PE
  MPI_Session session = MPI_SESSION_NULL;  // MPI_Group_from_session_pset's session
  int rank_of_pe(int pe) const;  // MPI_UNDEFINED when absent
};

struct Errhandler {
  MPI_Comm_errhandler_function* function = nullptr;  // null for the predefined ones
  int refs = 1;
};

// Each communicator takes kContextStride context ids: c (point-to-point), c + 1 (its
// collectives), and for an intercommunicator c + 2 / c + 3 for its local group's own traffic.
constexpr uint32_t kContextStride = 4;

// MPI_ERRORS_ARE_FATAL, MPI_ERRORS_RETURN, MPI_ERRORS_ABORT: never freed, not reference counted.
inline bool predefined_errhandler(MPI_Errhandler h) {
  return h == MPI_ERRORS_ARE_FATAL || h == MPI_ERRORS_RETURN || h == MPI_ERRORS_ABORT;
}

// The object kind a keyval caches on (MPI 4.1 section 7.7: a keyval made for one kind is erroneous
// on another; MPI_ERR_KEYVAL).
enum class KeyvalKind { kComm, kType, kWin };

struct Keyval {
  MPI_Comm_copy_attr_function* copy_fn = nullptr;
  MPI_Comm_delete_attr_function* delete_fn = nullptr;
  void* extra_state = nullptr;
  bool freed = false;
  KeyvalKind kind = KeyvalKind::kComm;
};

struct Communicator {
  uint32_t context = 0;  // point-to-point traffic; context + 1 for the collectives (mpi/coll)
  std::shared_ptr<const Group> group;
  std::shared_ptr<const Group> remote_group;  // null for an intracommunicator
  int rank = 0;  // in group
  MPI_Errhandler errhandler = MPI_ERRORS_ARE_FATAL;
  // The session whose process set it was made from (MPI_Comm_create_from_group): buffered sends
  // use that session's buffer when the communicator has none (MPI_SESSION_NULL: none).
  MPI_Session session = MPI_SESSION_NULL;
  std::string name;
  AttributeList attributes;  // keyval -> value, in the order set
  // Info hints (MPI_Comm_set_info, MPI_Comm_dup_with_info): every key set, in order; MPI_Comm_dup keeps them.
  std::vector<std::pair<std::string, std::string>> hints;
  // Collectives started on this communicator (the same count on every member): the tag of a
  // collective's traffic, so several non-blocking ones in flight never match each other's.
  mutable uint32_t coll_seq = 0;
  std::shared_ptr<const topo::Topology> topology;  // null without one; MPI_Comm_dup keeps it
  // Its slot of the same-node collective area (mpi/coll/area.h; -1: none), the number of
  // collectives it has run there and the last one in which this member saw every member's flag
  // (gasket::coll::CellSlot; both reset together).
  int coll_slot = -1;
  mutable uint64_t shm_seq = 0;
  mutable uint64_t shm_all_entered = 0;
  // The group as a core PE set for the same-node collectives (mpi/coll/shm.cc builds it on first
  // use, for cell_set_group), and what the cells give it in slot cells_slot (found once): whether
  // they serve it, and the members' cells (gasket::coll::cell_table).
  mutable std::shared_ptr<const gasket::coll::PeSet> cell_set;
  mutable std::shared_ptr<const Group> cell_set_group;
  mutable int cells_slot = -1;
  mutable bool cells_serve = false;
  mutable std::shared_ptr<const gasket::mpi::coll::CellTable> cells_table;
  // The rank that releases this communicator's next cell barrier (-1: none, a symmetric
  // exchange): the root of the last same-node broadcast or scatter, none after a reduce or gather
  // to a root or a barrier (mpi/coll/shm.cc; the same on every member, which makes the same calls).
  mutable int barrier_releaser = -1;

  int size() const { return static_cast<int>(group->pes.size()); }
  bool is_inter() const { return remote_group != nullptr; }
  // Ranks named by sends and receives: the remote group of an intercommunicator, else the group.
  const Group& peers() const { return is_inter() ? *remote_group : *group; }
  // The local group as an intracommunicator (an intercommunicator's own collectives).
  Communicator local() const;
};

// Error handlers (MPI_ERRORS_ARE_FATAL and MPI_ERRORS_RETURN are predefined). One table per
// process, outside the runtime (mpi/context's ProcessTables): MPI_Session_create_errhandler may
// run before MPI_Init and MPI_Errhandler_free after MPI_Finalize.
class ErrhandlerTable {
 public:
  ErrhandlerTable();
  MPI_Errhandler add(MPI_Comm_errhandler_function* function);
  Error lookup(MPI_Errhandler handle, const char* call, Errhandler** eh);
  Error free(MPI_Errhandler* handle, const char* call);
  // One more user reference (MPI_Comm_get_errhandler / MPI_Win_get_errhandler hand one out).
  void retain(MPI_Errhandler handle);

 private:
  std::vector<std::unique_ptr<Errhandler>> errhandlers_;
};

class CommTable {
 public:
  // MPI_COMM_WORLD (context 0) and MPI_COMM_SELF (context 2) for this PE; the error handlers of
  // `errhandlers` (which outlives this table).
  CommTable(int my_pe, int n_pes, ErrhandlerTable& errhandlers);
  Error lookup(MPI_Comm handle, const char* call, Communicator** comm);
  // The communicator behind `handle`, or null (the hot path; lookup() explains failures).
  Communicator* find(MPI_Comm handle) {
    auto* entry = entry_of(comms_, HandleKind::kComm, handle);
    return entry != nullptr ? entry->get() : nullptr;
  }
  MPI_Comm add(Communicator comm);
  Error free(MPI_Comm* handle, const char* call);

  // The error handlers' table (ErrhandlerTable).
  MPI_Errhandler add_errhandler(MPI_Comm_errhandler_function* function) { return errhandlers_.add(function); }
  Error lookup_errhandler(MPI_Errhandler handle, const char* call, Errhandler** eh) {
    return errhandlers_.lookup(handle, call, eh);
  }
  Error free_errhandler(MPI_Errhandler* handle, const char* call) { return errhandlers_.free(handle, call); }
  void retain_errhandler(MPI_Errhandler handle) { errhandlers_.retain(handle); }

  // Groups (MPI_GROUP_EMPTY is predefined).
  MPI_Group add_group(std::shared_ptr<const Group> group);
  Error lookup_group(MPI_Group handle, const char* call, std::shared_ptr<const Group>* group);
  Error free_group(MPI_Group* handle, const char* call);

  // Keyvals; the predefined ones (MPI_TAG_UB...) are answered by the attribute calls themselves.
  int add_keyval(Keyval k);
  // A freed keyval stays valid where an attribute still uses it (`attached`): attributes hold a
  // reference, as MPICH counts them (MPI_*_get_attr on an object still carrying it answers).
  // A keyval of another kind than `kind` is MPI_ERR_KEYVAL; errors name `call` and `rank`.
  Error lookup_keyval(int keyval, KeyvalKind kind, int rank, const char* call, Keyval** k, bool attached = false);
  // The keyval behind `keyval` even when freed (attributes set with it keep their callbacks until
  // deleted); null for a handle never created.
  const Keyval* find_keyval(int keyval) const;

  // The first context id this PE has not used: communicator creation agrees on the maximum over
  // the members, then every member moves past it.
  uint32_t next_context() const { return next_context_; }
  void use_context(uint32_t context) { next_context_ = std::max(next_context_, context + kContextStride); }

 private:
  uint32_t next_context_ = 8;  // 4..7: the sessions' bootstrap communicator (session::kBootstrapContext)
  std::vector<std::shared_ptr<const Group>> groups_;
  std::vector<Keyval> keyvals_;
  std::vector<std::unique_ptr<Communicator>> comms_;
  ErrhandlerTable& errhandlers_;
};

}  // namespace gasket::mpi::comm
