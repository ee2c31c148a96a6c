#include "core/segments/shared_pages.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cinttypes>
#include <cstdio>
#include <cstring>

namespace gasket::segments {

namespace {

// Whether every mapping covering [lo, hi) is private, anonymous (no path, or [heap]) and
// read-write.
bool private_anonymous(uintptr_t lo, uintptr_t hi) {
  FILE* maps = std::fopen("/proc/self/maps", "r");
  if (maps == nullptr) return false;
  char line[512];
  uintptr_t covered = lo;
  bool ok = true;
  while (ok && covered < hi && std::fgets(line, sizeof line, maps) != nullptr) {
    uintptr_t start, end;
    char perms[8] = {};
    char path[256] = {};
    if (std::sscanf(line, "%" SCNxPTR "-%" SCNxPTR " %7s %*s %*s %*s %255[^\n]", &start, &end, perms, path) < 3) continue;
    if (end <= covered || start >= hi) continue;
    const char* name = path;
    while (*name == ' ') ++name;
    ok = start <= covered && std::strncmp(perms, "rw-p", 4) == 0 && (*name == '\0' || std::strcmp(name, "[heap]") == 0);
    covered = end;
  }
  std::fclose(maps);
  return ok && covered >= hi;
}

}  // namespace

Result<SharedPages> share_pages(const void* addr, size_t len, const std::string& file_name) {
  const uintptr_t page = static_cast<uintptr_t>(sysconf(_SC_PAGESIZE));
  uintptr_t a = reinterpret_cast<uintptr_t>(addr);
  uintptr_t lo = (a + page - 1) & ~(page - 1), hi = (a + len) & ~(page - 1);
  SharedPages pages;
  if (hi <= lo) return pages;
  if (!private_anonymous(lo, hi)) {
    return invalid_argument("shared pages: [" + std::to_string(lo) + ", " + std::to_string(hi) +
                            ") is not private anonymous memory (stack, file or shared mapping)");
  }
  size_t size = hi - lo;
  int fd = shm_open(file_name.c_str(), O_RDWR | O_CREAT | O_EXCL, 0600);
  if (fd < 0) return errno_error("shared pages: shm_open(" + file_name + ", O_CREAT)");
  Status failed;
  void* staging = MAP_FAILED;
  if (ftruncate(fd, static_cast<off_t>(size)) != 0) {
    failed = errno_error("shared pages: ftruncate of " + file_name + " to " + std::to_string(size) + " bytes");
  } else if ((staging = mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0)) == MAP_FAILED) {
    failed = errno_error("shared pages: mmap of " + file_name);
  } else {
    std::memcpy(staging, reinterpret_cast<void*>(lo), size);
    // One atomic replacement: the pages are never missing.
    if (mmap(reinterpret_cast<void*>(lo), size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, fd, 0) ==
        MAP_FAILED) {
      failed = errno_error("shared pages: mmap of " + file_name + " over the buffer");
    }
    munmap(staging, size);
  }
  close(fd);
  if (!failed.is_ok()) {
    shm_unlink(file_name.c_str());
    return failed;
  }
  pages.base = reinterpret_cast<char*>(lo);
  pages.size = size;
  pages.file = file_name;
  return pages;
}

Status restore_pages(const SharedPages& pages) {
  if (pages.base == nullptr) return Status::ok();
  shm_unlink(pages.file.c_str());
  // The contents wait in a copy while private pages replace the shared ones (not atomic: the
  // caller guarantees nobody writes meanwhile).
  void* keep = mmap(nullptr, pages.size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (keep == MAP_FAILED) return errno_error("shared pages: mmap of " + std::to_string(pages.size) + " bytes");
  std::memcpy(keep, pages.base, pages.size);
  void* placed = mmap(pages.base, pages.size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
  if (placed == MAP_FAILED) {
    Status st = errno_error("shared pages: mmap of private pages back over " + pages.file);
    munmap(keep, pages.size);
    return st;
  }
  std::memcpy(pages.base, keep, pages.size);
  munmap(keep, pages.size);
  return Status::ok();
}

}  // namespace gasket::segments
