// Attribute caching on communicators and windows (their keyvals share one table): the copy and
// delete callbacks run through Context::run_callback, with the lock released, so they may call
// MPI (mpi4py's delete callbacks free communicators). A callback may create or free any object,
// including attributes of the one it runs for: objects are looked up again by handle after each.
#pragma once

#include <map>

#include "mpi.h"
#include "mpi/context/context.h"

namespace gasket::mpi::api {

// Runs `keyval`'s delete callback (if any) for `value` cached on the communicator or window
// `handle`; returns the callback's code (MPI_SUCCESS without one).
int run_delete_callback(Context& c, Guard& g, int handle, int keyval, void* value);

// Deletes the attribute `keyval` of communicator `comm` (MPI_ERR_KEYVAL when it has none): its
// delete callback runs after it is removed; it is set again if the callback fails.
Error delete_comm_attribute(Context& c, Guard& g, MPI_Comm comm, int keyval, const char* call);
// Deletes every attribute of `comm`, the last set first (MPI_Comm_free; MPI_COMM_SELF's at
// MPI_Finalize).
Error delete_comm_attributes(Context& c, Guard& g, MPI_Comm comm, const char* call);
// MPI_Comm_dup / MPI_Comm_idup: runs the copy callbacks of `source` (the old communicator's
// attributes, taken before they run) and caches what they keep in *out.
Error copy_comm_attributes(Context& c, Guard& g, MPI_Comm old_comm, const std::map<int, void*>& source,
                           std::map<int, void*>* out, const char* call);

}  // namespace gasket::mpi::api
