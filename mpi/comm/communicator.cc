#include "mpi/comm/communicator.h"

namespace gasket::mpi::comm {

int Group::rank_of_pe(int pe) const {
  for (size_t i = 0; i < pes.size(); ++i) {
    if (pes[i] == pe) return static_cast<int>(i);
  }
  return MPI_UNDEFINED;
}

CommTable::CommTable(int my_pe, int n_pes) {
  comms_.resize(3);
  auto world_group = std::make_shared<Group>();
  for (int pe = 0; pe < n_pes; ++pe) world_group->pes.push_back(pe);
  Communicator world;
  world.context = 0;
  world.group = world_group;
  world.rank = my_pe;
  world.name = "MPI_COMM_WORLD";
  comms_[MPI_COMM_WORLD] = std::make_unique<Communicator>(std::move(world));
  Communicator self;
  self.context = 2;
  self.group = std::make_shared<Group>(Group{{my_pe}});
  self.rank = 0;
  self.name = "MPI_COMM_SELF";
  comms_[MPI_COMM_SELF] = std::make_unique<Communicator>(std::move(self));
  errhandlers_.resize(3);
  errhandlers_[MPI_ERRORS_ARE_FATAL] = std::make_unique<Errhandler>();
  errhandlers_[MPI_ERRORS_RETURN] = std::make_unique<Errhandler>();
}

Error CommTable::lookup(MPI_Comm handle, const char* call, Communicator** comm) {
  if (handle == MPI_COMM_NULL) return error(MPI_ERR_COMM, "%s: the communicator is MPI_COMM_NULL", call);
  if (handle < 0 || static_cast<size_t>(handle) >= comms_.size() || !comms_[static_cast<size_t>(handle)]) {
    return error(MPI_ERR_COMM, "%s: %d is not a communicator handle (never created, or freed)", call, handle);
  }
  *comm = comms_[static_cast<size_t>(handle)].get();
  return Error::ok();
}

MPI_Comm CommTable::add(Communicator comm) {
  for (size_t i = 3; i < comms_.size(); ++i) {
    if (!comms_[i]) {
      comms_[i] = std::make_unique<Communicator>(std::move(comm));
      return static_cast<MPI_Comm>(i);
    }
  }
  comms_.push_back(std::make_unique<Communicator>(std::move(comm)));
  return static_cast<MPI_Comm>(comms_.size() - 1);
}

Error CommTable::free(MPI_Comm* handle, const char* call) {
  Communicator* c;
  Error e = lookup(*handle, call, &c);
  if (!e.is_ok()) return e;
  if (*handle == MPI_COMM_WORLD || *handle == MPI_COMM_SELF) {
    return error(MPI_ERR_COMM, "%s: %s is predefined and cannot be freed", call, c->name.c_str());
  }
  comms_[static_cast<size_t>(*handle)].reset();
  *handle = MPI_COMM_NULL;
  return Error::ok();
}

MPI_Errhandler CommTable::add_errhandler(MPI_Comm_errhandler_function* function) {
  auto eh = std::make_unique<Errhandler>();
  eh->function = function;
  errhandlers_.push_back(std::move(eh));
  return static_cast<MPI_Errhandler>(errhandlers_.size() - 1);
}

Error CommTable::lookup_errhandler(MPI_Errhandler handle, const char* call, Errhandler** eh) {
  if (handle <= 0 || static_cast<size_t>(handle) >= errhandlers_.size() || !errhandlers_[static_cast<size_t>(handle)]) {
    return error(MPI_ERR_ARG, "%s: %d is not an error handler", call, handle);
  }
  *eh = errhandlers_[static_cast<size_t>(handle)].get();
  return Error::ok();
}

Error CommTable::free_errhandler(MPI_Errhandler* handle, const char* call) {
  Errhandler* eh;
  Error e = lookup_errhandler(*handle, call, &eh);
  if (!e.is_ok()) return e;
  if (*handle == MPI_ERRORS_ARE_FATAL || *handle == MPI_ERRORS_RETURN) {
    *handle = MPI_ERRHANDLER_NULL;  // freeing a predefined handler only drops the reference
    return Error::ok();
  }
  // Communicators still using it keep working: the entry stays until the job ends.
  *handle = MPI_ERRHANDLER_NULL;
  return Error::ok();
}

}  // namespace gasket::mpi::comm
