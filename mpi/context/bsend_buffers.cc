#include "mpi/context/bsend_buffers.h"

#include <cstdlib>

namespace gasket::mpi {

namespace {
std::string owner_name(BsendBuffers::Owner o) {
  switch (o.scope) {
    case BsendBuffers::Scope::kComm: return "communicator " + std::to_string(o.handle);
    case BsendBuffers::Scope::kSession: return "session " + std::to_string(o.handle);
    default: return "the process";
  }
}
}  // namespace

Error BsendBuffers::attach(Owner owner, void* buffer, MPI_Count size, const char* call) {
  if (attached(owner)) {
    return error(MPI_ERR_BUFFER, "%s: %s already has a buffer (%s): detach it first", call,
                 owner_name(owner).c_str(), describe(owner).c_str());
  }
  Buffer b;
  if (buffer == MPI_BUFFER_AUTOMATIC) {
    b.automatic = true;
  } else {
    if (size < 0) return error(MPI_ERR_ARG, "%s: size %lld is negative", call, static_cast<long long>(size));
    if (buffer == nullptr && size > 0) return error(MPI_ERR_BUFFER, "%s: the buffer is NULL", call);
    b.range = Arena(static_cast<char*>(buffer), static_cast<size_t>(size));
  }
  buffers_.emplace(owner, std::move(b));
  return Error::ok();
}

BsendBuffers::Owner BsendBuffers::owner_for(MPI_Comm comm, MPI_Session session) const {
  if (attached(of_comm(comm))) return of_comm(comm);
  if (session != MPI_SESSION_NULL && attached(of_session(session))) return of_session(session);
  return process();
}

char* BsendBuffers::allocate(Owner owner, size_t bytes) {
  auto it = buffers_.find(owner);
  if (it == buffers_.end()) return nullptr;
  Buffer& b = it->second;
  if (!b.automatic) return b.range.allocate(bytes);
  char* block = static_cast<char*>(std::malloc(bytes > 0 ? bytes : 1));
  if (block == nullptr) return nullptr;
  automatic_blocks_[block] = {owner, bytes};
  b.automatic_in_use += bytes;
  return block;
}

void BsendBuffers::release(char* block) {
  auto a = automatic_blocks_.find(block);
  if (a != automatic_blocks_.end()) {
    auto it = buffers_.find(a->second.first);
    if (it != buffers_.end()) it->second.automatic_in_use -= a->second.second;
    automatic_blocks_.erase(a);
    std::free(block);
    return;
  }
  for (auto& [owner, b] : buffers_) {
    if (b.range.contains(block)) {
      b.range.release(block);
      return;
    }
  }
}

size_t BsendBuffers::in_use(Owner owner) const {
  auto it = buffers_.find(owner);
  if (it == buffers_.end()) return 0;
  return it->second.automatic ? it->second.automatic_in_use : it->second.range.in_use();
}

size_t BsendBuffers::total_in_use() const {
  size_t total = 0;
  for (const auto& entry : buffers_) total += in_use(entry.first);
  return total;
}

void BsendBuffers::detach(Owner owner, void** address, MPI_Count* size) {
  auto it = buffers_.find(owner);
  if (it == buffers_.end()) {
    *address = nullptr;
    *size = 0;
    return;
  }
  *address = it->second.automatic ? MPI_BUFFER_AUTOMATIC : it->second.range.base();
  *size = it->second.automatic ? 0 : static_cast<MPI_Count>(it->second.range.size());
  buffers_.erase(it);
}

std::string BsendBuffers::describe(Owner owner) const {
  auto it = buffers_.find(owner);
  if (it == buffers_.end()) return "no buffer attached";
  if (it->second.automatic) {
    return "MPI_BUFFER_AUTOMATIC, " + std::to_string(it->second.automatic_in_use) + " bytes in use";
  }
  return std::to_string(it->second.range.size()) + " bytes, " + std::to_string(it->second.range.in_use()) +
         " in use";
}

}  // namespace gasket::mpi
