#include "core/segments/heap_sizing.h"

#include <sys/mman.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>

namespace gasket::segments {

namespace {
// cgroup v2 then v1: a container's memory limit, when one is set and readable.
uint64_t cgroup_memory_limit() {
  for (const char* file : {"/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes"}) {
    FILE* f = std::fopen(file, "r");
    if (f == nullptr) continue;
    unsigned long long limit = 0;
    bool numeric = std::fscanf(f, "%llu", &limit) == 1;  // "max" means no limit
    std::fclose(f);
    if (numeric && limit > 0) return limit;
  }
  return 0;
}

uint64_t smaller_known(uint64_t a, uint64_t b) {
  if (a == 0) return b;
  if (b == 0) return a;
  return std::min(a, b);
}
}  // namespace

NodeResources node_resources() {
  NodeResources node;
  long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
  if (pages > 0 && page > 0) node.memory = static_cast<uint64_t>(pages) * static_cast<uint64_t>(page);
  node.memory = smaller_known(node.memory, cgroup_memory_limit());
  struct statvfs fs {};
  if (statvfs("/dev/shm", &fs) == 0) node.shared_memory = static_cast<uint64_t>(fs.f_blocks) * fs.f_frsize;
  node.cores = std::max(1, static_cast<int>(sysconf(_SC_NPROCESSORS_ONLN)));
  return node;
}

uint64_t shared_memory_available() {
  struct statvfs fs {};
  return statvfs("/dev/shm", &fs) == 0 ? static_cast<uint64_t>(fs.f_bavail) * fs.f_frsize : 0;
}

size_t auto_heap_bytes(const NodeResources& node) {
  uint64_t bound = smaller_known(node.memory, node.shared_memory);
  uint64_t share = bound / 2 / static_cast<uint64_t>(std::max(node.cores, 1));
  size_t heap = kAutoHeapFloor;
  while (heap * 2 <= share) heap *= 2;
  return heap;
}

PageRange whole_pages(void* p, size_t bytes) {
  const uintptr_t page = static_cast<uintptr_t>(sysconf(_SC_PAGESIZE));
  uintptr_t begin = (reinterpret_cast<uintptr_t>(p) + page - 1) & ~(page - 1);
  uintptr_t end = (reinterpret_cast<uintptr_t>(p) + bytes) & ~(page - 1);
  if (end < begin) end = begin;
  return PageRange{reinterpret_cast<char*>(begin), reinterpret_cast<char*>(end)};
}

bool return_pages(void* p, size_t bytes) {
  PageRange r = whole_pages(p, bytes);
  return r.end == r.begin || madvise(r.begin, static_cast<size_t>(r.end - r.begin), MADV_REMOVE) == 0;
}

}  // namespace gasket::segments
