#include "core/segments/shared_memory_file.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <utility>

namespace gasket::segments {

SharedMemoryFile::~SharedMemoryFile() { release(); }

SharedMemoryFile::SharedMemoryFile(SharedMemoryFile&& o) noexcept
    : name_(std::move(o.name_)), addr_(o.addr_), size_(o.size_), linked_(o.linked_) {
  o.addr_ = nullptr;
  o.linked_ = false;
}

SharedMemoryFile& SharedMemoryFile::operator=(SharedMemoryFile&& o) noexcept {
  if (this != &o) {
    release();
    name_ = std::move(o.name_);
    addr_ = o.addr_;
    size_ = o.size_;
    linked_ = o.linked_;
    o.addr_ = nullptr;
    o.linked_ = false;
  }
  return *this;
}

void SharedMemoryFile::release() {
  if (addr_ != nullptr) munmap(addr_, size_);
  addr_ = nullptr;
  if (linked_) shm_unlink(name_.c_str());
  linked_ = false;
}

namespace {
Result<void*> map_fd(int fd, size_t size, void* at, const std::string& name) {
  int flags = MAP_SHARED;
  if (at != nullptr) flags |= MAP_FIXED_NOREPLACE;
  void* p = mmap(at, size, PROT_READ | PROT_WRITE, flags, fd, 0);
  if (p == MAP_FAILED) return errno_error("mmap of " + name + " (" + std::to_string(size) + " bytes)");
  if (at != nullptr && p != at) {
    munmap(p, size);
    return io_error("mmap of " + name + " could not be placed at the requested address");
  }
  return p;
}
}  // namespace

Result<SharedMemoryFile> SharedMemoryFile::create(const std::string& name, size_t size, void* at) {
  int fd = shm_open(name.c_str(), O_RDWR | O_CREAT | O_EXCL, 0600);
  if (fd < 0) return errno_error("shm_open(" + name + ", O_CREAT)");
  SharedMemoryFile f;
  f.name_ = name;
  f.linked_ = true;
  f.size_ = size;
  if (ftruncate(fd, static_cast<off_t>(size)) != 0) {
    Status st = errno_error("ftruncate of " + name + " to " + std::to_string(size) + " bytes");
    close(fd);
    return st;
  }
  auto p = map_fd(fd, size, at, name);
  close(fd);
  if (!p.is_ok()) return p.status();
  f.addr_ = p.value();
  return f;
}

Result<SharedMemoryFile> SharedMemoryFile::open(const std::string& name, size_t size) {
  int fd = shm_open(name.c_str(), O_RDWR, 0600);
  if (fd < 0) return errno_error("shm_open(" + name + ")");
  struct stat st {};
  if (fstat(fd, &st) != 0 || static_cast<size_t>(st.st_size) != size) {
    close(fd);
    return io_error("shared memory file " + name + " has " + std::to_string(st.st_size) +
                    " bytes, expected " + std::to_string(size));
  }
  auto p = map_fd(fd, size, nullptr, name);
  close(fd);
  if (!p.is_ok()) return p.status();
  SharedMemoryFile f;
  f.name_ = name;
  f.size_ = size;
  f.addr_ = p.value();
  return f;
}

Result<char*> SharedMemoryFile::map(const std::string& name, size_t size) {
  Result<SharedMemoryFile> f = open(name, size);
  if (!f.is_ok()) return f.status();
  char* data = f->data();
  f->addr_ = nullptr;  // the caller owns the mapping now
  return data;
}

void SharedMemoryFile::unmap(char* data, size_t size) {
  if (data != nullptr) munmap(data, size);
}

Status SharedMemoryFile::unlink() {
  if (!linked_) return Status::ok();
  linked_ = false;
  if (shm_unlink(name_.c_str()) != 0) return errno_error("shm_unlink(" + name_ + ")");
  return Status::ok();
}

}  // namespace gasket::segments
