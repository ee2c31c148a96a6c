#include "core/segments/data_segment.h"

#include <fcntl.h>
#include <link.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <cstring>
#include <vector>

namespace gasket::segments {

namespace {

struct PhdrScan {
  bool done = false;
  uintptr_t start = 0, end = 0, file_end = 0;  // union of writable PT_LOADs (unrounded)
  uintptr_t relro_end = 0;
  int writable_loads = 0;
  bool contiguous = true;
};

uintptr_t page_down(uintptr_t v, uintptr_t page) { return v & ~(page - 1); }
uintptr_t page_up(uintptr_t v, uintptr_t page) { return (v + page - 1) & ~(page - 1); }

int scan_main_program(struct dl_phdr_info* info, size_t, void* data) {
  auto* scan = static_cast<PhdrScan*>(data);
  if (scan->done) return 1;
  scan->done = true;  // the first object dl_iterate_phdr reports is the main program
  const uintptr_t page = static_cast<uintptr_t>(sysconf(_SC_PAGESIZE));
  for (int i = 0; i < info->dlpi_phnum; ++i) {
    const ElfW(Phdr)& ph = info->dlpi_phdr[i];
    uintptr_t at = info->dlpi_addr + ph.p_vaddr;
    if (ph.p_type == PT_GNU_RELRO) {
      scan->relro_end = at + ph.p_memsz;
    } else if (ph.p_type == PT_LOAD && (ph.p_flags & PF_W) != 0 && ph.p_memsz > 0) {
      if (scan->writable_loads++ == 0) {
        scan->start = at;
        scan->end = at + ph.p_memsz;
        scan->file_end = at + ph.p_filesz;
      } else {
        // Several writable segments are accepted only when they touch after page rounding.
        if (page_down(at, page) > page_up(scan->end, page)) scan->contiguous = false;
        scan->start = std::min(scan->start, at);
        scan->end = std::max(scan->end, at + ph.p_memsz);
        scan->file_end = std::max(scan->file_end, at + ph.p_filesz);
      }
    }
  }
  return 1;
}

// Which pages of [base, base+size) were ever touched (present or swapped), from
// /proc/self/pagemap; empty when the kernel does not tell (then every page is inspected).
std::vector<bool> touched_pages(const char* base, size_t pages, size_t page) {
  std::vector<bool> touched;
  int fd = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);
  if (fd < 0) return touched;
  std::vector<uint64_t> entries(pages);
  off_t at = static_cast<off_t>(reinterpret_cast<uintptr_t>(base) / page * sizeof(uint64_t));
  size_t want = pages * sizeof(uint64_t), got = 0;
  while (got < want) {
    ssize_t n = pread(fd, reinterpret_cast<char*>(entries.data()) + got, want - got, at + static_cast<off_t>(got));
    if (n <= 0) break;
    got += static_cast<size_t>(n);
  }
  close(fd);
  if (got != want) return touched;
  touched.resize(pages);
  constexpr uint64_t kPresent = uint64_t{1} << 63, kSwapped = uint64_t{1} << 62;
  for (size_t i = 0; i < pages; ++i) touched[i] = (entries[i] & (kPresent | kSwapped)) != 0;
  return touched;
}

}  // namespace

bool page_is_zero(const char* page, size_t page_size) {
  const auto* words = reinterpret_cast<const uint64_t*>(page);
  uint64_t any = 0;
  for (size_t i = 0; i < page_size / sizeof(uint64_t); ++i) any |= words[i];
  return any == 0;
}

Result<StaticDataRange> find_static_data() {
  PhdrScan scan;
  dl_iterate_phdr(&scan_main_program, &scan);
  if (scan.writable_loads == 0) {
    return invalid_argument("data segment: the main program has no writable PT_LOAD segment");
  }
  if (!scan.contiguous) {
    return invalid_argument("data segment: the main program's writable PT_LOAD segments are not contiguous");
  }
  const uintptr_t page = static_cast<uintptr_t>(sysconf(_SC_PAGESIZE));
  uintptr_t start = page_down(scan.start, page);
  // The loader write-protects RELRO rounded down to pages: what lies above stays writable.
  if (scan.relro_end > start && scan.relro_end <= scan.end) start = page_down(scan.relro_end, page);
  uintptr_t end = page_up(scan.end, page);
  if (end <= start) return invalid_argument("data segment: the main program's writable data is all RELRO");
  StaticDataRange r;
  r.base = reinterpret_cast<char*>(start);
  r.size = end - start;
  r.file_backed = scan.file_end > start ? page_up(scan.file_end, page) - start : 0;
  return r;
}

Result<RedistributionStats> redistribute(const StaticDataRange& range, const std::string& file_name) {
  const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  int fd = shm_open(file_name.c_str(), O_RDWR | O_CREAT | O_EXCL, 0600);
  if (fd < 0) return errno_error("data segment: shm_open(" + file_name + ", O_CREAT)");
  if (ftruncate(fd, static_cast<off_t>(range.size)) != 0) {
    Status st = errno_error("data segment: ftruncate of " + file_name + " to " + std::to_string(range.size) + " bytes");
    close(fd);
    shm_unlink(file_name.c_str());
    return st;
  }
  void* staging = mmap(nullptr, range.size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  if (staging == MAP_FAILED) {
    Status st = errno_error("data segment: mmap of " + file_name);
    close(fd);
    shm_unlink(file_name.c_str());
    return st;
  }
  RedistributionStats stats;
  stats.pages = range.size / page;
  // Everything that may allocate is done: from here to the MAP_FIXED below nothing writes to
  // static data, so the copy is exact.
  std::vector<bool> touched = touched_pages(range.base, stats.pages, page);
  for (size_t i = 0; i < stats.pages; ++i) {
    size_t off = i * page;
    bool inspect = off < range.file_backed || touched.empty() || touched[i];
    if (!inspect || page_is_zero(range.base + off, page)) {
      ++stats.pages_skipped;
      continue;
    }
    std::memcpy(static_cast<char*>(staging) + off, range.base + off, page);
    ++stats.pages_copied;
  }
  void* placed = mmap(range.base, range.size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, fd, 0);
  int err = errno;
  munmap(staging, range.size);
  close(fd);
  if (placed != range.base) {
    shm_unlink(file_name.c_str());
    errno = err;
    return errno_error("data segment: mmap of " + file_name + " over the static data at " +
                       std::to_string(reinterpret_cast<uintptr_t>(range.base)));
  }
  return stats;
}

Status unlink_data_file(const std::string& file_name) {
  if (shm_unlink(file_name.c_str()) != 0) return errno_error("shm_unlink(" + file_name + ")");
  return Status::ok();
}

}  // namespace gasket::segments
