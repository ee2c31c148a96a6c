#include "mpi/comm/communicator.h"

namespace gasket::mpi::comm {

int Group::rank_of_pe(int pe) const {
  for (size_t i = 0; i < pes.size(); ++i) {
    if (pes[i] == pe) return static_cast<int>(i);
  }
  return MPI_UNDEFINED;
}

CommTable::CommTable(int my_pe, int n_pes, ErrhandlerTable& errhandlers) : errhandlers_(errhandlers) {
  comms_.resize(3);
  auto world_group = std::make_shared<Group>();
  for (int pe = 0; pe < n_pes; ++pe) world_group->pes.push_back(pe);
  Communicator world;
  world.context = 0;
  world.group = world_group;
  world.rank = my_pe;
  world.name = "MPI_COMM_WORLD";
  comms_[slot_of(HandleKind::kComm, MPI_COMM_WORLD)] = std::make_unique<Communicator>(std::move(world));
  Communicator self;
  self.context = 2;
  self.group = std::make_shared<Group>(Group{{my_pe}});
  self.rank = 0;
  self.name = "MPI_COMM_SELF";
  comms_[slot_of(HandleKind::kComm, MPI_COMM_SELF)] = std::make_unique<Communicator>(std::move(self));
  groups_.resize(2);
  groups_[slot_of(HandleKind::kGroup, MPI_GROUP_EMPTY)] = std::make_shared<Group>();
}

ErrhandlerTable::ErrhandlerTable() {
  errhandlers_.resize(4);
  errhandlers_[slot_of(HandleKind::kErrhandler, MPI_ERRORS_ARE_FATAL)] = std::make_unique<Errhandler>();
  errhandlers_[slot_of(HandleKind::kErrhandler, MPI_ERRORS_RETURN)] = std::make_unique<Errhandler>();
  errhandlers_[slot_of(HandleKind::kErrhandler, MPI_ERRORS_ABORT)] = std::make_unique<Errhandler>();
}

Communicator Communicator::local() const {
  Communicator c;
  c.context = context + 2;
  c.group = group;
  c.rank = rank;
  c.name = name + " (local group)";
  return c;
}

MPI_Group CommTable::add_group(std::shared_ptr<const Group> group) {
  for (size_t i = 2; i < groups_.size(); ++i) {
    if (!groups_[i]) {
      groups_[i] = std::move(group);
      return handle_of(HandleKind::kGroup, i);
    }
  }
  groups_.push_back(std::move(group));
  return handle_of(HandleKind::kGroup, groups_.size() - 1);
}

Error CommTable::lookup_group(MPI_Group handle, const char* call, std::shared_ptr<const Group>* group) {
  if (handle == MPI_GROUP_NULL) return error(MPI_ERR_GROUP, "%s: the group is MPI_GROUP_NULL", call);
  auto* entry = entry_of(groups_, HandleKind::kGroup, handle);
  if (entry == nullptr || !*entry) {
    return error(MPI_ERR_GROUP, "%s: %d is not a group (%s)", call, handle, why_not_found(HandleKind::kGroup, handle));
  }
  *group = *entry;
  return Error::ok();
}

Error CommTable::free_group(MPI_Group* handle, const char* call) {
  std::shared_ptr<const Group> g;
  Error e = lookup_group(*handle, call, &g);
  if (!e.is_ok()) return e;
  if (*handle == MPI_GROUP_EMPTY) {  // results of group operations may be it: freeing is a no-op
    *handle = MPI_GROUP_NULL;
    return Error::ok();
  }
  entry_of(groups_, HandleKind::kGroup, *handle)->reset();
  *handle = MPI_GROUP_NULL;
  return Error::ok();
}

int CommTable::add_keyval(Keyval k) {
  keyvals_.push_back(k);
  return static_cast<int>(keyvals_.size() - 1) + MPI_LASTUSEDCODE + 1;
}

namespace {
const char* keyval_maker(KeyvalKind kind) {
  switch (kind) {
    case KeyvalKind::kComm: return "MPI_Comm_create_keyval";
    case KeyvalKind::kType: return "MPI_Type_create_keyval";
    case KeyvalKind::kWin: return "MPI_Win_create_keyval";
  }
  return "?";
}
}  // namespace

Error CommTable::lookup_keyval(int keyval, KeyvalKind kind, int rank, const char* call, Keyval** k, bool attached) {
  int i = keyval - MPI_LASTUSEDCODE - 1;
  if (i < 0 || static_cast<size_t>(i) >= keyvals_.size() || (keyvals_[static_cast<size_t>(i)].freed && !attached)) {
    return error(MPI_ERR_KEYVAL, "%s: rank %d: keyval %d is not a keyval from %s (or it was freed)", call, rank, keyval,
                 keyval_maker(kind));
  }
  Keyval* found = &keyvals_[static_cast<size_t>(i)];
  if (found->kind != kind) {
    return error(MPI_ERR_KEYVAL, "%s: rank %d: keyval %d was made by %s, not %s", call, rank, keyval,
                 keyval_maker(found->kind), keyval_maker(kind));
  }
  *k = found;
  return Error::ok();
}

const Keyval* CommTable::find_keyval(int keyval) const {
  int i = keyval - MPI_LASTUSEDCODE - 1;
  if (i < 0 || static_cast<size_t>(i) >= keyvals_.size()) return nullptr;
  return &keyvals_[static_cast<size_t>(i)];
}

Error CommTable::lookup(MPI_Comm handle, const char* call, Communicator** comm) {
  if (handle == MPI_COMM_NULL) return error(MPI_ERR_COMM, "%s: the communicator is MPI_COMM_NULL", call);
  *comm = find(handle);
  if (*comm == nullptr) {
    return error(MPI_ERR_COMM, "%s: %d is not a communicator (%s)", call, handle, why_not_found(HandleKind::kComm, handle));
  }
  return Error::ok();
}

MPI_Comm CommTable::add(Communicator comm) {
  for (size_t i = 3; i < comms_.size(); ++i) {
    if (!comms_[i]) {
      comms_[i] = std::make_unique<Communicator>(std::move(comm));
      return handle_of(HandleKind::kComm, i);
    }
  }
  comms_.push_back(std::make_unique<Communicator>(std::move(comm)));
  return handle_of(HandleKind::kComm, comms_.size() - 1);
}

Error CommTable::free(MPI_Comm* handle, const char* call) {
  Communicator* c;
  Error e = lookup(*handle, call, &c);
  if (!e.is_ok()) return e;
  if (*handle == MPI_COMM_WORLD || *handle == MPI_COMM_SELF) {
    return error(MPI_ERR_COMM, "%s: %s is predefined and cannot be freed", call, c->name.c_str());
  }
  entry_of(comms_, HandleKind::kComm, *handle)->reset();
  *handle = MPI_COMM_NULL;
  return Error::ok();
}

MPI_Errhandler ErrhandlerTable::add(MPI_Comm_errhandler_function* function) {
  auto eh = std::make_unique<Errhandler>();
  eh->function = function;
  errhandlers_.push_back(std::move(eh));
  return handle_of(HandleKind::kErrhandler, errhandlers_.size() - 1);
}

Error ErrhandlerTable::lookup(MPI_Errhandler handle, const char* call, Errhandler** eh) {
  auto* entry = entry_of(errhandlers_, HandleKind::kErrhandler, handle);
  if (entry == nullptr || !*entry) {
    return error(MPI_ERR_ARG, "%s: %d is not an error handler (%s)", call, handle,
                 why_not_found(HandleKind::kErrhandler, handle));
  }
  *eh = entry->get();
  return Error::ok();
}

Error ErrhandlerTable::free(MPI_Errhandler* handle, const char* call) {
  Errhandler* eh;
  Error e = lookup(*handle, call, &eh);
  if (!e.is_ok()) return e;
  if (predefined_errhandler(*handle)) {
    *handle = MPI_ERRHANDLER_NULL;  // freeing a predefined handler only drops the reference
    return Error::ok();
  }
  if (eh->refs <= 0) return error(MPI_ERR_ARG, "%s: error handler %d was freed already", call, *handle);
  // Communicators and windows still using it keep working: the entry stays until the job ends,
  // but the handle is no longer the user's to pass.
  --eh->refs;
  *handle = MPI_ERRHANDLER_NULL;
  return Error::ok();
}

void ErrhandlerTable::retain(MPI_Errhandler handle) {
  if (predefined_errhandler(handle)) return;
  Errhandler* eh;
  if (lookup(handle, "", &eh).is_ok()) ++eh->refs;
}

}  // namespace gasket::mpi::comm
