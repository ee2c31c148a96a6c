// Attribute caching on communicators, datatypes and windows (their keyvals share one table): the
// copy and delete callbacks run through Context::run_callback, with the lock released, so they
// may call MPI (mpi4py's delete callbacks free communicators). A callback may create or free any
// object, including the one it runs for: objects are looked up again by handle after each.
#pragma once

#include <map>

#include "mpi.h"
#include "mpi/context/context.h"

namespace gasket::mpi::api {

using Attributes = AttributeList;  // keyval -> value, in the order set
// Where the attributes of the object `handle` live (null: no such object, or freed).
using AttributesOf = Attributes* (*)(Context& c, int handle);
Attributes* comm_attributes(Context& c, int comm);
Attributes* type_attributes(Context& c, int datatype);

// MPI_{Comm,Type,Win}_free_keyval of a keyval made for `kind`: attributes already set keep their
// callbacks until deleted.
Error free_keyval(Context& c, int* keyval, comm::KeyvalKind kind, const char* call);

// Runs `keyval`'s delete callback (if any) for `value` cached on the object `handle`; returns the
// callback's code (MPI_SUCCESS without one).
int run_delete_callback(Context& c, Guard& g, int handle, int keyval, void* value);

// Deletes the attribute `keyval` of the object `handle` (MPI_ERR_KEYVAL when it has none): it is
// removed, then its delete callback runs; it is set again if the callback fails.
Error delete_attribute(Context& c, Guard& g, AttributesOf of, int handle, int keyval, const char* call);
// Deletes every attribute of the object, the last set first (MPI_Comm_free, MPI_Type_free;
// MPI_COMM_SELF's at MPI_Finalize).
Error delete_attributes(Context& c, Guard& g, AttributesOf of, int handle, const char* call);
// MPI_Comm_dup / MPI_Comm_idup / MPI_Type_dup: runs the copy callbacks of `source` (the old
// object's attributes, taken before they run) and caches what they keep in *out.
Error copy_attributes(Context& c, Guard& g, int old_handle, const Attributes& source, Attributes* out,
                      const char* call);

}  // namespace gasket::mpi::api
