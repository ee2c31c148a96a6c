#include "mpi/base/error.h"

#include <cstdarg>
#include <cstdio>

namespace gasket::mpi {

const std::string& Error::no_message() {
  static const std::string none;
  return none;
}

Error error(int error_class, const char* fmt, ...) {
  char buf[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  return Error(error_class, buf);
}

const char* error_class_string(int error_class) {
  static const char* const kStrings[] = {
      "MPI_SUCCESS: no error",
      "MPI_ERR_BUFFER: invalid buffer pointer",
      "MPI_ERR_COUNT: invalid count argument",
      "MPI_ERR_TYPE: invalid datatype",
      "MPI_ERR_TAG: invalid tag",
      "MPI_ERR_COMM: invalid communicator",
      "MPI_ERR_RANK: invalid rank",
      "MPI_ERR_REQUEST: invalid request",
      "MPI_ERR_ROOT: invalid root",
      "MPI_ERR_GROUP: invalid group",
      "MPI_ERR_OP: invalid operation",
      "MPI_ERR_TOPOLOGY: invalid topology",
      "MPI_ERR_DIMS: invalid dimension argument",
      "MPI_ERR_ARG: invalid argument of some other kind",
      "MPI_ERR_UNKNOWN: unknown error",
      "MPI_ERR_TRUNCATE: message truncated on receive",
      "MPI_ERR_OTHER: known error not in this list",
      "MPI_ERR_INTERN: internal error",
      "MPI_ERR_IN_STATUS: error code is in status",
      "MPI_ERR_PENDING: pending request",
      "MPI_ERR_ACCESS: permission denied",
      "MPI_ERR_AMODE: error related to the amode passed to MPI_FILE_OPEN",
      "MPI_ERR_ASSERT: invalid assert argument",
      "MPI_ERR_BAD_FILE: invalid file name",
      "MPI_ERR_BASE: invalid base passed to MPI_FREE_MEM",
      "MPI_ERR_CONVERSION: an error in a user-supplied data conversion function",
      "MPI_ERR_DISP: invalid disp argument",
      "MPI_ERR_DUP_DATAREP: data representation identifier already registered",
      "MPI_ERR_FILE_EXISTS: file exists",
      "MPI_ERR_FILE_IN_USE: file operation could not be completed, the file is in use",
      "MPI_ERR_FILE: invalid file handle",
      "MPI_ERR_INFO_KEY: key longer than MPI_MAX_INFO_KEY",
      "MPI_ERR_INFO_NOKEY: invalid key passed to MPI_INFO_DELETE",
      "MPI_ERR_INFO_VALUE: value longer than MPI_MAX_INFO_VAL",
      "MPI_ERR_INFO: invalid info argument",
      "MPI_ERR_IO: other I/O error",
      "MPI_ERR_KEYVAL: invalid keyval",
      "MPI_ERR_LOCKTYPE: invalid locktype argument",
      "MPI_ERR_NAME: invalid service name passed to MPI_LOOKUP_NAME",
      "MPI_ERR_NO_MEM: MPI_ALLOC_MEM failed because memory is exhausted",
      "MPI_ERR_NOT_SAME: collective argument not identical on all processes",
      "MPI_ERR_NO_SPACE: not enough space",
      "MPI_ERR_NO_SUCH_FILE: file does not exist",
      "MPI_ERR_PORT: invalid port name",
      "MPI_ERR_QUOTA: quota exceeded",
      "MPI_ERR_READ_ONLY: read-only file or file system",
      "MPI_ERR_RMA_CONFLICT: conflicting accesses to window",
      "MPI_ERR_RMA_SYNC: wrong synchronization of RMA calls",
      "MPI_ERR_SERVICE: invalid service name passed to MPI_UNPUBLISH_NAME",
      "MPI_ERR_SIZE: invalid size argument",
      "MPI_ERR_SPAWN: error in spawning processes",
      "MPI_ERR_UNSUPPORTED_DATAREP: unsupported data representation",
      "MPI_ERR_UNSUPPORTED_OPERATION: unsupported operation",
      "MPI_ERR_WIN: invalid win argument",
      "MPI_ERR_RMA_RANGE: target memory is not part of the window",
      "MPI_ERR_RMA_ATTACH: memory cannot be attached",
      "MPI_ERR_RMA_SHARED: memory cannot be shared",
      "MPI_ERR_RMA_FLAVOR: passed window has the wrong flavor for the called function",
      "MPI_ERR_SESSION: invalid session argument",
      "MPI_T_ERR_MEMORY: out of memory",
      "MPI_T_ERR_NOT_INITIALIZED: the tools interface is not initialized",
      "MPI_T_ERR_CANNOT_INIT: the tools interface cannot be initialized",
      "MPI_T_ERR_INVALID_INDEX: the index is invalid or has been deleted",
      "MPI_T_ERR_INVALID_ITEM: the item index is out of range",
      "MPI_T_ERR_INVALID_HANDLE: the handle is invalid",
      "MPI_T_ERR_OUT_OF_HANDLES: no more handles available",
      "MPI_T_ERR_OUT_OF_SESSIONS: no more sessions available",
      "MPI_T_ERR_INVALID_SESSION: the session argument is invalid",
      "MPI_T_ERR_CVAR_SET_NOT_NOW: the variable cannot be set at this moment",
      "MPI_T_ERR_CVAR_SET_NEVER: the variable cannot be set until the end of the execution",
      "MPI_T_ERR_PVAR_NO_STARTSTOP: the variable cannot be started or stopped",
      "MPI_T_ERR_PVAR_NO_WRITE: the variable cannot be written or reset",
      "MPI_T_ERR_PVAR_NO_ATOMIC: the variable cannot be read and written atomically",
      "MPI_T_ERR_INVALID_NAME: the name is invalid",
      "MPI_T_ERR_INVALID: invalid use of the tools interface",
      "MPI_T_ERR_NOT_SUPPORTED: the requested functionality is not supported",
      "MPI_T_ERR_NOT_ACCESSIBLE: the requested functionality is not accessible",
      "MPI_ERR_VALUE_TOO_LARGE: value is too large to store",
      "MPI_ERR_PROC_ABORTED: operation failed because a peer process has aborted",
      "MPI_ERR_ERRHANDLER: invalid errhandler argument",
      "MPI_ERR_ABI: the ABI query or setting is refused",
      "MPI_ERR_LASTCODE: last error code",
  };
  if (error_class < 0 || error_class >= static_cast<int>(sizeof kStrings / sizeof kStrings[0])) return nullptr;
  return kStrings[error_class];
}

}  // namespace gasket::mpi
