// How large the symmetric heap is by default, and how its freed pages go back to the system.
// The heap is a sparse shared-memory file: ftruncate gives it its size, a page takes memory only
// once written, so a large heap costs address space, not resident memory (core/segments/README.md).
#pragma once

#include <cstddef>
#include <cstdint>

namespace gasket::segments {

// An automatic heap is never smaller than the fixed default of earlier releases.
constexpr size_t kAutoHeapFloor = size_t{128} << 20;

// What the heaps of one node share: its memory (the cgroup's limit when lower), the size of the
// file system behind /dev/shm, and its cores. All the same for every PE (of any job) on the node.
struct NodeResources {
  uint64_t memory = 0;         // bytes; 0 when unknown
  uint64_t shared_memory = 0;  // bytes of /dev/shm; 0 when unknown
  int cores = 1;               // online processors
};
NodeResources node_resources();
// Bytes /dev/shm can still take (0 when unknown).
uint64_t shared_memory_available();

// GASKET_HEAP_SIZE=auto: half of the smaller of the node's memory and /dev/shm, shared by one PE
// per core, rounded down to a power of two, at least kAutoHeapFloor. It does not depend on the
// job's shape, so every PE of a node (and a spawned job's) gets the same size, and nodes of nearly
// the same size agree. Written full by a PE per core, the heaps hold at most half of the node.
size_t auto_heap_bytes(const NodeResources& node);

// Blocks from this size up give their pages back when freed (and are cleared that way by calloc).
// Smaller ones keep them, as malloc keeps small blocks: a loop freeing and taking them again would
// otherwise fault every page in anew.
constexpr size_t kReturnPagesFrom = size_t{2} << 20;

// The whole pages inside [p, p + bytes): empty (begin == end) when there is none.
struct PageRange {
  char* begin;
  char* end;
};
PageRange whole_pages(void* p, size_t bytes);

// Gives the whole pages inside [p, p + bytes) of a shared-memory mapping back to the system
// (madvise MADV_REMOVE punches them out of the file: every process mapping it reads zeros there
// afterwards, and resident memory drops). False when the kernel refused.
bool return_pages(void* p, size_t bytes);

}  // namespace gasket::segments
