#include "core/memreg/kernel_copy.h"

#include <sys/uio.h>

#include <cerrno>
#include <cstring>
#include <string>

namespace gasket::memreg {

Status KernelCopy::copy(bool is_write, int pe, void* local, uintptr_t remote, size_t len) const {
  const char* call = is_write ? "process_vm_writev" : "process_vm_readv";
  if (!reachable(pe)) {
    return invalid_argument(std::string("memreg: ") + call + ": PE " + std::to_string(pe) +
                            " is not a process of this host (PE " + std::to_string(my_pe_) + ")");
  }
  pid_t pid = pids_[static_cast<size_t>(pe)];
  size_t done = 0;
  while (done < len) {
    iovec here{static_cast<char*>(local) + done, len - done};
    iovec there{reinterpret_cast<void*>(remote + done), len - done};
    ssize_t n = is_write ? process_vm_writev(pid, &here, 1, &there, 1, 0)
                         : process_vm_readv(pid, &here, 1, &there, 1, 0);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      int err = n < 0 ? errno : EFAULT;
      std::string what = std::string("memreg: ") + call + " of " + std::to_string(len - done) + " bytes " +
                         (is_write ? "to" : "from") + " address 0x" + ([&] {
                           char b[32];
                           std::snprintf(b, sizeof b, "%lx", static_cast<unsigned long>(remote + done));
                           return std::string(b);
                         })() + " of PE " + std::to_string(pe) + " (pid " + std::to_string(pid) + ") by PE " +
                         std::to_string(my_pe_) + ": " + std::strerror(err);
      return Status(err == EPERM || err == ENOSYS ? StatusCode::kUnavailable : StatusCode::kIoError, what);
    }
    done += static_cast<size_t>(n);
  }
  return Status::ok();
}

Status KernelCopy::write(int pe, uintptr_t remote, const void* src, size_t len) const {
  return copy(true, pe, const_cast<void*>(src), remote, len);
}

Status KernelCopy::read(int pe, void* dst, uintptr_t remote, size_t len) const {
  return copy(false, pe, dst, remote, len);
}

bool KernelCopy::permitted(int pe) const {
  if (!reachable(pe)) return false;
  char byte = 0;
  iovec here{&byte, 0}, there{nullptr, 0};
  // A zero-length copy still runs the kernel's access check on the target process.
  return process_vm_readv(pids_[static_cast<size_t>(pe)], &here, 1, &there, 1, 0) == 0;
}

}  // namespace gasket::memreg
