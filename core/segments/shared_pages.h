// Shared pages: the whole pages of a range of a process's private anonymous memory (malloc'd
// buffers, anonymous mmaps) moved onto a new shared-memory file mapped at the same virtual
// addresses, contents preserved — the data-segment redistribution (data_segment.h) applied to one
// user buffer, so that same-node peers map the file and reach the buffer with plain loads and
// stores (MPI windows on user memory). The partial pages at the edges stay private (the caller
// reaches them otherwise). restore() puts private anonymous pages with the same contents back.
//
// Only private anonymous mappings are moved (not the main stack, not file mappings): the range's
// mappings are checked in /proc/self/maps. No other thread may write the pages while they are
// moved or restored (MPI calls it from the window's collective creation and free).
#pragma once

#include <cstddef>
#include <string>

#include "core/base/status.h"

namespace gasket::segments {

struct SharedPages {
  char* base = nullptr;  // first whole page of the range (null: none moved)
  size_t size = 0;
  std::string file;      // the shared-memory file peers open (SharedMemoryFile::open(file, size))
};

// Moves the whole pages of [addr, addr + len) onto the file `file_name` (job naming convention,
// see shared_memory_file.h). A range without whole pages yields an empty SharedPages; memory that
// is not private anonymous fails with a message (the caller falls back).
Result<SharedPages> share_pages(const void* addr, size_t len, const std::string& file_name);
// Private anonymous pages with the current contents replace the shared ones; the file is removed.
Status restore_pages(const SharedPages& pages);

}  // namespace gasket::segments
