// A POSIX shared-memory file (/dev/shm/<name>) mapped into this process. The creator sizes and
// maps it; peers on the same node open and map it by name. Names follow the job convention
// "/gasket-<job id>-..." so the launcher can remove every file of a job however the job ends.
#pragma once

#include <cstddef>
#include <string>

#include "core/base/status.h"

namespace gasket::segments {

class SharedMemoryFile {
 public:
  SharedMemoryFile() = default;
  ~SharedMemoryFile();
  SharedMemoryFile(SharedMemoryFile&& other) noexcept;
  SharedMemoryFile& operator=(SharedMemoryFile&& other) noexcept;
  SharedMemoryFile(const SharedMemoryFile&) = delete;
  SharedMemoryFile& operator=(const SharedMemoryFile&) = delete;

  // Creates (exclusively) and maps a zero-filled file of `size` bytes. `at`, when not null, is the
  // address the mapping must land on (MAP_FIXED_NOREPLACE semantics: fails if taken).
  static Result<SharedMemoryFile> create(const std::string& name, size_t size, void* at = nullptr);
  // Opens and maps a file another process created; its size must be `size`.
  static Result<SharedMemoryFile> open(const std::string& name, size_t size);
  // The same, kept as nothing but the mapping (no name, no record): the caller unmaps it with
  // unmap(data, size). For peers' segments, one per peer and segment.
  static Result<char*> map(const std::string& name, size_t size);
  static void unmap(char* data, size_t size);

  // Removes the name; the mapping stays valid until unmapped.
  Status unlink();

  char* data() const { return static_cast<char*>(addr_); }
  size_t size() const { return size_; }
  const std::string& name() const { return name_; }

 private:
  void release();
  std::string name_;
  void* addr_ = nullptr;
  size_t size_ = 0;
  bool linked_ = false;
};

}  // namespace gasket::segments
