// Data-segment redistribution: the main program's writable static data (.data and .bss, not the
// read-only-after-relocation part) moved onto a shared-memory file mapped at the same virtual
// addresses, contents preserved, so that global and static variables become a segment like the
// symmetric heap (mapped by same-node peers, registered with the backend, translated by offset).
//
// How: dl_iterate_phdr's first object is the main program; its writable PT_LOAD segments minus
// PT_GNU_RELRO give the page range. The touched pages of that range are copied into a new file
// (an untouched .bss page reads as zero and so does a new file page, so it is skipped and costs
// nothing: /proc/self/pagemap tells which pages were ever touched), then the file is mmap'ed
// MAP_FIXED over the range — one atomic replacement, no window where the pages are missing (the
// runtime's own statics may live there when it is linked statically). The mapping is never
// removed: the program's globals live on it until the process ends.
//
// Must run before any other thread writes static data (the runtime does it at init, before the
// backend starts). A fork()ed child shares the redistributed globals with its parent, as it
// shares the symmetric heap.
#pragma once

#include <cstddef>
#include <string>

#include "core/base/status.h"

namespace gasket::segments {

// The page range of the main program's writable, non-RELRO static data.
struct StaticDataRange {
  char* base = nullptr;
  size_t size = 0;
  // The first bytes of the range whose pages come from the executable file (.data): those are
  // always inspected; beyond them (.bss) a page never touched is known to be zero.
  size_t file_backed = 0;
};

// Finds the range (fails with a message when the main program has no writable data, or when its
// writable PT_LOAD segments are not one contiguous range).
Result<StaticDataRange> find_static_data();

// Counters of one redistribution, for the debug log and the tests.
struct RedistributionStats {
  size_t pages = 0;          // pages in the range
  size_t pages_copied = 0;   // pages holding a non-zero byte, copied into the file
  size_t pages_skipped = 0;  // never touched, or all zero: left to the file's zero fill
};

// Moves `range` onto a new shared-memory file `file_name` (e.g. "/gasket-<job>-<pe>-data") mapped
// MAP_FIXED over it. The file keeps its name until unlink_data_file (peers map it by name).
Result<RedistributionStats> redistribute(const StaticDataRange& range, const std::string& file_name);

// Removes the name of a file made by redistribute (the mapping stays).
Status unlink_data_file(const std::string& file_name);

// Whether every byte of the page at `page` is zero (exposed for the unit test).
bool page_is_zero(const char* page, size_t page_size);

}  // namespace gasket::segments
