#include "mpi/base/handle.h"

namespace gasket::mpi {

const char* why_not_found(HandleKind kind, int handle) {
  if (handle == 0) return "it is the null handle";
  if (is_kind(handle, kind)) return "never created, or freed";
  static const char* const kinds[] = {
      nullptr,                            // 0: no kind
      "it is a communicator handle",      // GASKET_HANDLE_KIND_COMM
      "it is a group handle",             // GASKET_HANDLE_KIND_GROUP
      "it is a datatype handle",          // GASKET_HANDLE_KIND_DATATYPE
      "it is an operation handle",        // GASKET_HANDLE_KIND_OP
      "it is a request handle",           // GASKET_HANDLE_KIND_REQUEST
      "it is an info handle",             // GASKET_HANDLE_KIND_INFO
      "it is a window handle",            // GASKET_HANDLE_KIND_WIN
      "it is an error handler handle",    // GASKET_HANDLE_KIND_ERRHANDLER
      "it is a message handle",           // GASKET_HANDLE_KIND_MESSAGE
      "it is a file handle",              // GASKET_HANDLE_KIND_FILE
      "it is a session handle",           // GASKET_HANDLE_KIND_SESSION
  };
  int k = handle < 0 ? 0 : handle >> GASKET_HANDLE_KIND_SHIFT;
  if (k <= 0 || k >= static_cast<int>(sizeof kinds / sizeof kinds[0])) return "it is no handle";
  return kinds[k];
}

}  // namespace gasket::mpi
