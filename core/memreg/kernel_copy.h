// Single-copy transfers between processes of one host: process_vm_readv/writev move bytes
// straight between this PE's memory and a peer's, with no shared mapping and no help from the
// peer. The kernel may refuse (ptrace policy: Yama ptrace_scope, different users, containers);
// callers then fall back to a copy through shared memory (core/memreg/README.md).
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <cstdint>
#include <vector>

#include "core/base/status.h"

namespace gasket::memreg {

class KernelCopy {
 public:
  // `pids[pe]` is the process of PE `pe`, or 0 where this PE cannot reach it (another host).
  KernelCopy(int my_pe, std::vector<pid_t> pids) : my_pe_(my_pe), pids_(std::move(pids)) {}

  // Records `pe`'s process (learnt later, e.g. from a memreg descriptor); not thread-safe
  // against copies to that PE.
  void set_pid(int pe, pid_t pid) {
    if (pe >= 0 && static_cast<size_t>(pe) < pids_.size()) pids_[static_cast<size_t>(pe)] = pid;
  }
  bool reachable(int pe) const {
    return pe >= 0 && static_cast<size_t>(pe) < pids_.size() && pids_[static_cast<size_t>(pe)] != 0;
  }
  // Copies `len` bytes from `src` here to `remote` in PE `pe`'s address space (all or an error
  // naming the call, the PE, the address and errno's text; kUnavailable when the kernel
  // refuses single-copy access to that process).
  [[nodiscard]] Status write(int pe, uintptr_t remote, const void* src, size_t len) const;
  // Copies `len` bytes from `remote` in PE `pe` to `dst` here.
  [[nodiscard]] Status read(int pe, void* dst, uintptr_t remote, size_t len) const;
  // Whether the kernel lets this process copy into PE `pe` (probes with a zero-length copy).
  bool permitted(int pe) const;

 private:
  Status copy(bool is_write, int pe, void* local, uintptr_t remote, size_t len) const;
  int my_pe_;
  std::vector<pid_t> pids_;
};

}  // namespace gasket::memreg
