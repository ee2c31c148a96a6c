// The buffers of buffered sends (MPI 4.1 section 3.6.1): the process's (MPI_Buffer_attach), one
// per communicator (MPI_Comm_attach_buffer) and one per session (MPI_Session_attach_buffer). A
// buffer is the caller's range, carved by an Arena, or MPI_BUFFER_AUTOMATIC: a block is then
// allocated for each message as it is buffered and freed once sent. Owned by the context.
#pragma once

#include <cstddef>
#include <map>
#include <string>

#include "mpi.h"
#include "mpi/base/arena.h"
#include "mpi/base/error.h"

namespace gasket::mpi {

class BsendBuffers {
 public:
  enum class Scope { kProcess, kComm, kSession };
  struct Owner {
    Scope scope = Scope::kProcess;
    int handle = 0;  // the communicator or session; 0 for the process
    bool operator<(const Owner& o) const { return scope != o.scope ? scope < o.scope : handle < o.handle; }
  };
  static Owner process() { return {Scope::kProcess, 0}; }
  static Owner of_comm(MPI_Comm comm) { return {Scope::kComm, comm}; }
  static Owner of_session(MPI_Session session) { return {Scope::kSession, session}; }

  // MPI_ERR_BUFFER when the owner has a buffer already, a NULL buffer of non-zero size; MPI_ERR_ARG
  // for a negative size.
  Error attach(Owner owner, void* buffer, MPI_Count size, const char* call);
  bool attached(Owner owner) const { return buffers_.count(owner) != 0; }
  // The buffer a buffered send on `comm` uses: the communicator's, else its session's (when it was
  // made from a session's group), else the process's.
  Owner owner_for(MPI_Comm comm, MPI_Session session) const;
  // A block for a message of `bytes`; null when the owner's range has no room (or nothing is
  // attached). An automatic buffer always gives one.
  char* allocate(Owner owner, size_t bytes);
  // A block handed out by allocate(), once its message has left.
  void release(char* block);
  // Bytes of messages still in the owner's buffer (0 when none is attached).
  size_t in_use(Owner owner) const;
  // Bytes of messages in every buffer (MPI_Finalize waits for 0).
  size_t total_in_use() const;
  // Forgets the owner's buffer (call once in_use is 0): its address (MPI_BUFFER_AUTOMATIC for an
  // automatic one; NULL when none was attached) and size (0 for automatic or none).
  void detach(Owner owner, void** address, MPI_Count* size);
  // "the buffer attached to communicator 5 (64 bytes, 16 in use)", for error messages.
  std::string describe(Owner owner) const;

 private:
  struct Buffer {
    Arena range;  // the caller's range (empty when automatic)
    bool automatic = false;
    size_t automatic_in_use = 0;
  };
  std::map<Owner, Buffer> buffers_;
  std::map<char*, std::pair<Owner, size_t>> automatic_blocks_;  // block -> its owner, bytes
};

}  // namespace gasket::mpi
