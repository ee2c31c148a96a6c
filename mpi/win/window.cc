#include "mpi/win/window.h"

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdlib>
#include <cstring>

#include "core/base/copy.h"
#include "core/base/log.h"
#include "core/am/cpu_atomic.h"
#include "core/gasket.h"
#include "core/runtime.h"
#include "mpi/op/op.h"

namespace gasket::mpi::win {

namespace {

core::Runtime& runtime() { return *core::Runtime::get(); }

// The symmetric segments a window may use in place: present on every PE at the same offsets.
bool symmetric_segment(segments::SegmentId id) {
  return id == segments::kHeapSegment || id == segments::kDataSegment;
}

// Where this process names (segment, offset): the address gasket::put/get/atomic translate.
char* segment_alias(uint32_t segment, uint64_t offset) {
  const segments::Segment* s = runtime().segments().find(segment);
  return s == nullptr ? nullptr : s->base + offset;
}

// A region in a segment, reached through `alias` on `pe` (directly when mapped on the direct path).
Region segment_region(uint64_t base, uint64_t size, int pe, uint32_t segment, uint64_t offset) {
  Region r;
  r.base = base;
  r.size = size;
  r.pe = pe;
  r.alias = segment_alias(segment, offset);
  if (runtime().path(pe) == core::Path::kDirect) r.direct = static_cast<char*>(gasket::peer_pointer(r.alias, pe));
  // The core's own atomics on a mapped, file-backed segment are CPU atomics: the same may run here.
  const segments::Segment* s = runtime().segments().find(segment);
  r.cpu_atomics = r.direct != nullptr && s != nullptr && s->file_backed;
  // Through a backend that maps no copy here: the owner applies shipped accumulates.
  bool mapped = s != nullptr && s->backend_memory && s->peer_copy(pe) != nullptr;
  r.shipped = runtime().path(pe) == core::Path::kBackend && !mapped;
  return r;
}

// One entry of a member's region table (in its control block), followed by the descriptor bytes.
struct TableEntry {
  uint64_t base;
  uint64_t size;
  uint32_t in_segment;
  uint32_t segment;
  uint64_t segment_offset;
  uint64_t descriptor_bytes;  // padded to 8 in the table, then the shared pages' file name
  uint64_t pages_begin;       // offsets of the shared pages in the region (equal: none)
  uint64_t pages_end;
  uint64_t file_bytes;        // padded to 8
};
struct TableHeader {
  uint64_t used;   // bytes of the table in use (header included)
  uint64_t count;  // entries
};

size_t pad8(size_t n) { return (n + 7) & ~size_t{7}; }

// Contiguous pieces (offset from the buffer, bytes) of `count` elements of `type`, adjacent ones
// merged.
using Chunks = std::vector<std::pair<int64_t, int64_t>>;
Chunks chunks_of(const datatype::Datatype& type, int64_t count) {
  Chunks out;
  if (type.contiguous()) {
    if (count > 0 && type.size > 0) out.emplace_back(type.true_lb, count * type.size);
    return out;
  }
  for (int64_t i = 0; i < count; ++i) {
    for (const datatype::Block& b : type.blocks) {
      int64_t off = i * type.extent() + b.offset, len = b.length;
      if (len == 0) continue;
      if (!out.empty() && out.back().first + out.back().second == off) {
        out.back().second += len;
      } else {
        out.emplace_back(off, len);
      }
    }
  }
  return out;
}

// Where each of the elements of `basic_size` packed bytes begins among the target pieces (the
// position of its first packed byte): a pair type's value and index may be separate pieces.
std::vector<int64_t> element_starts(const std::pair<int64_t, int64_t>* first, size_t pieces, int64_t basic_size) {
  std::vector<int64_t> starts;
  int64_t next = 0, at = 0;
  for (size_t i = 0; i < pieces; ++i) {
    auto [off, len] = first[i];
    for (; next < at + len; next += basic_size) starts.push_back(off + (next - at));
    at += len;
  }
  return starts;
}

// Integer types: sums and bitwise ops run as the core's native atomics on them.
bool is_integer(MPI_Datatype t) {
  switch (t) {
    case MPI_INT: case MPI_UNSIGNED: case MPI_LONG: case MPI_UNSIGNED_LONG: case MPI_LONG_LONG:
    case MPI_UNSIGNED_LONG_LONG: case MPI_INT32_T: case MPI_INT64_T: case MPI_UINT32_T: case MPI_UINT64_T:
    case MPI_AINT: case MPI_OFFSET: case MPI_COUNT: case MPI_WCHAR:
      return true;
    default:
      return false;
  }
}

// The core's atomic doing `op` on an integer word (plain or fetching), if there is one.
bool native_op(MPI_Op op, MPI_Datatype type, bool fetch, AtomicOp* out) {
  switch (op) {
    case MPI_NO_OP: *out = AtomicOp::kFetch; return true;
    case MPI_REPLACE: *out = fetch ? AtomicOp::kSwap : AtomicOp::kSet; return true;
    default: break;
  }
  if (!is_integer(type)) return false;
  switch (op) {
    case MPI_SUM: *out = fetch ? AtomicOp::kFetchAdd : AtomicOp::kAdd; return true;
    case MPI_BAND: *out = fetch ? AtomicOp::kFetchAnd : AtomicOp::kAnd; return true;
    case MPI_BOR: *out = fetch ? AtomicOp::kFetchOr : AtomicOp::kOr; return true;
    case MPI_BXOR: *out = fetch ? AtomicOp::kFetchXor : AtomicOp::kXor; return true;
    default: return false;
  }
}

uint64_t load(const uint64_t* word) { return __atomic_load_n(word, __ATOMIC_ACQUIRE); }

// One element of an accumulate as atomics on a word: CPU atomics at `cpu`, else the core's at
// (`alias`, `pe`). Native where there is an op, else a compare-and-swap loop around
// apply_predefined. Returns the old value.
uint64_t update_word(char* alias, char* cpu, int pe, size_t width, MPI_Op op, MPI_Datatype basic, uint64_t operand,
                     bool fetch, const char* call) {
  auto atomic = [&](AtomicOp o, uint64_t value, uint64_t compare) {
    return cpu != nullptr ? core::am::cpu_atomic(cpu, static_cast<unsigned>(width), static_cast<backend::AtomicOp>(o),
                                                 value, compare)
                          : gasket::atomic(alias, width, o, value, compare, pe, false, call);
  };
  AtomicOp native = AtomicOp::kFetch;
  if (native_op(op, basic, fetch, &native)) return atomic(native, operand, 0);
  uint64_t old = atomic(AtomicOp::kFetch, 0, 0);
  for (;;) {
    uint64_t next = old;
    op::apply_predefined(op, basic, &operand, &next, 1);
    uint64_t seen = atomic(AtomicOp::kCompareSwap, next, old);
    if (seen == old) return old;
    old = seen;
  }
}

// Element widths CPU atomics take (a narrower element changes inside its aligned 8-byte word).
bool cpu_width(size_t width) { return width == 1 || width == 2 || width == 4 || width == 8; }

// `bytes` at address `at` touch more than one aligned 8-byte word (UINT64_MAX: several pieces).
bool spans_words(uint64_t at, uint64_t bytes) { return bytes == UINT64_MAX || (bytes > 0 && at / 8 != (at + bytes - 1) / 8); }

// A 4- or 8-byte element as a word (little-endian: the low bytes) and back; fixed-size copies
// the compiler inlines (a copy of `width` bytes is a library call).
uint64_t word_of(const char* p, size_t width) {
  if (width == 8) {
    uint64_t v;
    std::memcpy(&v, p, 8);
    return v;
  }
  uint32_t v;
  std::memcpy(&v, p, 4);
  return v;
}
void store_word(char* p, uint64_t v, size_t width) {
  if (width == 8) {
    std::memcpy(p, &v, 8);
  } else {
    auto low = static_cast<uint32_t>(v);
    std::memcpy(p, &low, 4);
  }
}

// Atomically edits the `n` bytes at `p`, which lie within one aligned 8-byte word of memory
// mapped here: a compare-and-swap of the whole word, its other bytes written back as they were
// (so a neighbour's concurrent atomic or store is never lost: the swap fails and retries).
// `edit(bytes)` changes a copy of the `n` bytes and returns false to leave memory as it is.
// The old bytes go to `old` (when non-null).
template <typename Edit>
void edit_word(char* p, size_t n, Edit edit, char* old) {
  auto* word = reinterpret_cast<uint64_t*>(reinterpret_cast<uintptr_t>(p) & ~uintptr_t{7});
  size_t at = static_cast<size_t>(p - reinterpret_cast<char*>(word));
  uint64_t seen = __atomic_load_n(word, __ATOMIC_SEQ_CST), next;
  do {
    next = seen;
    if (!edit(reinterpret_cast<char*>(&next) + at)) break;
  } while (!__atomic_compare_exchange_n(word, &seen, next, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST));
  if (old != nullptr) std::memcpy(old, reinterpret_cast<char*>(&seen) + at, n);
}

// `count` elements of the predefined `basic` (`width` bytes: 1, 2, 4 or 8) at `p`, mapped here and
// aligned to `width`, each updated atomically in the CPU's atomicity domain: 4/8-byte elements
// one CPU atomic each (update_word), narrower ones one edit_word per aligned 8-byte word they
// share. `origin` null for MPI_NO_OP, `result` null when nothing is fetched.
void update_elements(char* p, size_t width, int64_t count, MPI_Op op, MPI_Datatype basic, const char* origin,
                     char* result) {
  if (width >= 4) {
    for (int64_t k = 0; k < count; ++k, p += width) {
      uint64_t operand = origin != nullptr ? word_of(origin + k * static_cast<int64_t>(width), width) : 0;
      uint64_t old = update_word(nullptr, p, 0, width, op, basic, operand, result != nullptr, "");
      if (result != nullptr) store_word(result + k * static_cast<int64_t>(width), old, width);
    }
    return;
  }
  for (char* end = p + count * static_cast<int64_t>(width); p < end;) {
    size_t n = std::min<size_t>(8 - (reinterpret_cast<uintptr_t>(p) & 7), static_cast<size_t>(end - p));
    edit_word(p, n, [&](char* bytes) {
      if (op == MPI_NO_OP) return false;
      if (op == MPI_REPLACE) {
        std::memcpy(bytes, origin, n);
      } else {
        op::apply_predefined(op, basic, origin, bytes, static_cast<int64_t>(n / width));
      }
      return true;
    }, result);
    p += n;
    if (origin != nullptr) origin += n;
    if (result != nullptr) result += n;
  }
}

// Compare-and-swap of one element of `width` bytes (1, 2, 4 or 8) at `p` (mapped, aligned).
void compare_swap_element(char* p, size_t width, const void* value, const void* compare, void* result) {
  if (width >= 4) {
    uint64_t old = core::am::cpu_atomic(p, static_cast<unsigned>(width), backend::AtomicOp::kCompareSwap,
                                        word_of(static_cast<const char*>(value), width),
                                        word_of(static_cast<const char*>(compare), width));
    store_word(static_cast<char*>(result), old, width);
    return;
  }
  edit_word(p, width, [&](char* bytes) {
    if (std::memcmp(bytes, compare, width) != 0) return false;
    std::memcpy(bytes, value, width);
    return true;
  }, static_cast<char*>(result));
}

void copy(bool is_put, char* remote, char* local, size_t len) {
  if (is_put) {
    base::copy_bytes(remote, local, len);
  } else {
    base::copy_bytes(local, remote, len);
  }
}

}  // namespace

// A target range resolved: the target, the region holding it, and where the operation's origin
// (displacement 0 of the target type) lies in the region.
struct Window::Location {
  int rank = 0;
  const Region* region = nullptr;
  int64_t offset = 0;  // of the target buffer's start within the region (may be < 0 with a negative lb)
  bool empty = false;
  bool spans = false;  // the range goes on into adjacent attached regions (dynamic windows)
};

Window::Window(int flavor, MPI_Comm comm, std::shared_ptr<const comm::Group> group, int rank,
               const std::vector<MemberInfo>& members, char* heap_base, char* control, size_t table_bytes)
    : flavor_(flavor), comm_(comm), group_(std::move(group)), rank_(rank),
      mine_(reinterpret_cast<ControlBlock*>(control)), table_bytes_(table_bytes) {
  size_t n = members.size();
  targets_.resize(n);
  locks_.assign(n, LockState::kNone);
  lock_unheld_.assign(n, false);
  in_access_group_.assign(n, false);
  starts_done_.assign(n, 0);
  for (size_t r = 0; r < n; ++r) {
    const MemberInfo& m = members[r];
    Target& t = targets_[r];
    t.pe = group_->pes[r];
    t.size = m.size;
    t.disp_unit = m.disp_unit;
    t.base = m.base;
    t.control = heap_base + m.control_offset;
    t.direct_path = runtime().path(t.pe) == core::Path::kDirect;
    if (m.in_segment != 0) {
      int owner = m.memory_rank >= 0 ? group_->pes[static_cast<size_t>(m.memory_rank)] : t.pe;
      t.regions.push_back(segment_region(m.base, m.size, owner, m.segment, m.segment_offset));
      t.regions_known = true;
      update_fast(t);
    }
  }
  attr_flavor = flavor;
  all_direct_ = std::all_of(targets_.begin(), targets_.end(), [](const Target& t) { return t.direct_path; });
}

// Where an accumulate element on [offset, offset + width) of `loc`'s region runs as CPU atomics,
// so that every origin acts on it in the CPU's atomicity domain; null otherwise (the core's
// atomics or the accumulate lock). A mapped, file-backed segment: CPU atomics as the core's own
// (1/2-byte elements, which no backend atomic takes, only when every member is on this node);
// other memory: where it is mapped here and every member reaches it the same way (the window is
// on one node, all on the direct path).
char* Window::cpu_word(const Location& loc, int64_t offset, size_t width) const {
  const Region& r = *loc.region;
  uint64_t at = static_cast<uint64_t>(offset);
  char* p = nullptr;
  if (!cpu_width(width)) return nullptr;
  if (r.alias != nullptr) {
    if (r.cpu_atomics && (width >= 4 || all_direct_)) p = r.direct + at;
  } else if (all_direct_ && at >= r.pages_begin && at + width <= r.pages_end) {
    p = r.direct != nullptr ? r.direct + at : r.pages == nullptr ? nullptr : r.pages + (at - r.pages_begin);
  }
  return p != nullptr && (reinterpret_cast<uintptr_t>(p) & (width - 1)) == 0 ? p : nullptr;
}

Window::~Window() {
  for (Published& p : published_) unpublish(p, "MPI_Finalize");
}

void Window::unpublish(Published& p, const char* call) {
  if (p.exposure.id != 0) (void)memreg::release(p.exposure, call);
  p.exposure = memreg::Exposure{};
  Status st = segments::restore_pages(p.pages);
  if (!st.is_ok()) log::fatal("%s: rank %d: %s: %s", call, rank_, label().c_str(), st.message().c_str());
  p.pages = segments::SharedPages{};
}

std::string Window::label() const {
  return name.empty() ? "window #" + std::to_string(handle) : "window " + name;
}

char* Window::shared_pointer(int rank) const {
  const Target& t = targets_[static_cast<size_t>(rank)];
  if (rank == rank_ && !t.regions.empty() && t.regions[0].alias == nullptr) return reinterpret_cast<char*>(t.base);
  if (t.regions.size() != 1 || t.regions[0].alias == nullptr) return rank == rank_ ? reinterpret_cast<char*>(t.base) : nullptr;
  const Region& r = t.regions[0];
  segments::Translation tr = runtime().segments().translate(r.alias, 0);
  if (tr.segment == nullptr) return nullptr;
  char* base = tr.segment->peer_copy(r.pe);
  return base == nullptr ? nullptr : base + tr.offset;
}

// ---- regions reached through core/memreg, and dynamic windows ----

Error Window::publish_region(void* base, uint64_t size, const char* call) {
  Published p;
  p.region.base = reinterpret_cast<uint64_t>(base);
  p.region.size = size;
  p.region.pe = targets_[static_cast<size_t>(rank_)].pe;
  p.region.direct = static_cast<char*>(base);
  for (const Published& q : published_) {
    if (p.region.base < q.region.base + q.region.size && q.region.base < p.region.base + size) {
      return error(MPI_ERR_RMA_ATTACH, "%s: rank %d: %s: [%p, +%llu) overlaps the attached region [%p, +%llu)", call,
                   rank_, label().c_str(), base, static_cast<unsigned long long>(size),
                   reinterpret_cast<void*>(q.region.base), static_cast<unsigned long long>(q.region.size));
    }
  }
  segments::Translation tr = runtime().segments().translate(base, size);
  if (size > 0 && tr.segment != nullptr && tr.in_bounds && symmetric_segment(tr.segment->id)) {
    p.in_segment = true;
    p.segment = tr.segment->id;
    p.segment_offset = tr.offset;
    p.region.alias = static_cast<char*>(base);
  } else if (size > 0) {
    // Same-node peers: the whole pages on a shared file at the same address (plain stores there).
    // Moved before the exposure, so that a backend registration names the pages that stay.
    std::string file = "/gasket-" + runtime().bootstrap().job_id() + "-" + std::to_string(gasket::my_pe()) + "-win-" +
                       std::to_string(reinterpret_cast<uintptr_t>(base));
    Result<segments::SharedPages> pages = segments::share_pages(base, size, file);
    if (pages.is_ok()) {
      p.pages = pages.value();
      if (p.pages.base != nullptr) {
        p.region.pages_begin = static_cast<uint64_t>(p.pages.base - static_cast<char*>(base));
        p.region.pages_end = p.region.pages_begin + p.pages.size;
        p.region.pages_file = p.pages.file;
      }
    } else {
      GASKET_DEBUG("%s: rank %d: %s: [%p, +%llu) stays private (peers use core/memreg): %s", call, rank_,
                   label().c_str(), base, static_cast<unsigned long long>(size), pages.status().message().c_str());
    }
    Result<memreg::Exposure> e = memreg::expose(base, size, call);
    if (!e.is_ok()) {
      unpublish(p, call);
      return error(MPI_ERR_RMA_ATTACH, "%s: rank %d: %s: exposing [%p, +%llu): %s", call, rank_, label().c_str(), base,
                   static_cast<unsigned long long>(size), e.status().message().c_str());
    }
    p.exposure = std::move(e.value());
    p.region.descriptor = p.exposure.descriptor;
  }
  auto entry_bytes = [](const Region& r) {
    return sizeof(TableEntry) + pad8(r.descriptor.size()) + pad8(r.pages_file.size());
  };
  size_t used = sizeof(TableHeader);
  for (const Published& q : published_) used += entry_bytes(q.region);
  used += entry_bytes(p.region);
  if (used > table_bytes_) {
    unpublish(p, call);
    return error(MPI_ERR_RMA_ATTACH, "%s: rank %d: %s: the region table is full (%zu regions in %zu bytes)", call, rank_,
                 label().c_str(), published_.size(), table_bytes_);
  }
  std::unique_lock<std::mutex> served = lock_served();
  published_.push_back(std::move(p));
  write_table();
  return Error::ok();
}

Error Window::attach(void* base, uint64_t size, const char* call) {
  if (flavor_ != MPI_WIN_FLAVOR_DYNAMIC) {
    return error(MPI_ERR_RMA_FLAVOR, "%s: rank %d: %s was not made by MPI_Win_create_dynamic (flavor %d)", call, rank_,
                 label().c_str(), flavor_);
  }
  return publish_region(base, size, call);
}

Error Window::detach(const void* base, const char* call) {
  if (flavor_ != MPI_WIN_FLAVOR_DYNAMIC) {
    return error(MPI_ERR_RMA_FLAVOR, "%s: rank %d: %s was not made by MPI_Win_create_dynamic (flavor %d)", call, rank_,
                 label().c_str(), flavor_);
  }
  auto it = std::find_if(published_.begin(), published_.end(),
                         [&](const Published& p) { return p.region.base == reinterpret_cast<uint64_t>(base); });
  if (it == published_.end()) {
    return error(MPI_ERR_RMA_ATTACH, "%s: rank %d: %s: %p is not the base of an attached region", call, rank_,
                 label().c_str(), base);
  }
  unpublish(*it, call);
  std::unique_lock<std::mutex> served = lock_served();
  published_.erase(it);
  write_table();
  return Error::ok();
}

// Seqlock: readers (refresh_regions) retry while the version is odd or changed under them.
void Window::write_table() {
  __atomic_store_n(&mine_->table_version, mine_->table_version + 1, __ATOMIC_RELEASE);
  std::atomic_thread_fence(std::memory_order_seq_cst);
  char* table = reinterpret_cast<char*>(mine_) + sizeof(ControlBlock) + 8 * targets_.size();
  TableHeader h{sizeof(TableHeader), published_.size()};
  for (const Published& p : published_) {
    const Region& r = p.region;
    TableEntry e{r.base,           r.size,       p.in_segment ? 1u : 0u, p.segment,         p.segment_offset,
                 r.descriptor.size(), r.pages_begin, r.pages_end,           r.pages_file.size()};
    std::memcpy(table + h.used, &e, sizeof e);
    h.used += sizeof e;
    std::memcpy(table + h.used, r.descriptor.data(), r.descriptor.size());
    h.used += pad8(r.descriptor.size());
    std::memcpy(table + h.used, r.pages_file.data(), r.pages_file.size());
    h.used += pad8(r.pages_file.size());
  }
  std::memcpy(table, &h, sizeof h);
  std::atomic_thread_fence(std::memory_order_seq_cst);
  __atomic_store_n(&mine_->table_version, mine_->table_version + 1, __ATOMIC_RELEASE);
  Target& self = targets_[static_cast<size_t>(rank_)];
  self.regions_known = false;
  self.regions.clear();
  update_fast(self);
}

// Static windows: their one region. Dynamic windows: the region last used (displacements are
// addresses there, t.base is 0 and disp_unit 1, so the same arithmetic serves both).
void Window::update_fast(Target& t) {
  t.fast = 0;
  t.fast_lo = t.fast_hi = 0;
  if (flavor_ != MPI_WIN_FLAVOR_DYNAMIC && t.regions.size() == 1) set_fast(t, t.regions[0]);
}

void Window::set_fast(Target& t, const Region& r) {
  uint64_t shift = r.base - t.base;
  t.atomic_lo = t.atomic_hi = 0;
  if (r.direct != nullptr) {
    t.fast = reinterpret_cast<uintptr_t>(r.direct) - shift;
    t.fast_lo = shift;
    t.fast_hi = shift + r.size;
  } else if (r.pages != nullptr) {
    t.fast = reinterpret_cast<uintptr_t>(r.pages) - r.pages_begin - shift;
    t.fast_lo = shift + r.pages_begin;
    t.fast_hi = shift + r.pages_end;
  }
  // Where accumulates may be CPU atomics there (the rules of accumulate()).
  if (r.alias != nullptr ? r.cpu_atomics : all_direct_ && (r.direct != nullptr || r.pages != nullptr)) {
    t.atomic_lo = r.alias != nullptr ? shift : shift + r.pages_begin;
    t.atomic_hi = r.alias != nullptr ? shift + r.size : shift + r.pages_end;
  }
}

bool Window::atomic_direct(MPI_Op op, MPI_Datatype basic, int width, int64_t count, const void* origin, void* result,
                           int rank, int64_t disp, const void* compare) {
  const Target& t = targets_[static_cast<size_t>(rank)];
  uint64_t off = static_cast<uint64_t>(disp) * static_cast<uint64_t>(t.disp_unit);
  auto w = static_cast<uint64_t>(width);
  char* p = reinterpret_cast<char*>(t.fast + off);
  // Elements narrower than 4 bytes are CPU atomics only where every origin reaches them so
  // (accumulate()'s rule); elsewhere they take the accumulate lock.
  uint64_t bytes;
  if (!cpu_width(w) || (width < 4 && !all_direct_) || disp < 0 || count < 1 ||
      __builtin_mul_overflow(static_cast<uint64_t>(count), w, &bytes) || off < t.atomic_lo ||
      off + bytes > t.atomic_hi || off + bytes < off || (reinterpret_cast<uintptr_t>(p) & (w - 1)) != 0 || !accessible(rank)) {
    return false;
  }
  if (compare != nullptr) {
    compare_swap_element(p, w, origin, compare, result);
  } else if (count == 1 && w >= 4) {  // fetch_and_op's case, without the loop
    uint64_t operand = origin != nullptr ? word_of(static_cast<const char*>(origin), w) : 0;
    uint64_t old = update_word(nullptr, p, t.pe, w, op, basic, operand, result != nullptr, "");
    if (result != nullptr) store_word(static_cast<char*>(result), old, w);
  } else {
    // Wider than one word: whole for concurrent accumulates of the same elements (accumulate()).
    bool whole = locks_[static_cast<size_t>(rank)] != LockState::kExclusive && spans_words(reinterpret_cast<uintptr_t>(p), bytes);
    if (whole) acquire_acc_lock(rank);
    update_elements(p, w, count, op, basic, static_cast<const char*>(origin), static_cast<char*>(result));
    if (whole) release_acc_lock(rank);
  }
  return true;
}

Error Window::refresh_regions(Target& t, const char* call) {
  t.regions.clear();
  if (&t == &targets_[static_cast<size_t>(rank_)]) {
    for (const Published& p : published_) t.regions.push_back(p.region);
    t.regions_known = true;
    update_fast(t);
    return Error::ok();
  }
  char* version_at = t.control + offsetof(ControlBlock, table_version);
  char* table_at = t.control + sizeof(ControlBlock) + 8 * targets_.size();
  std::vector<char> table;
  unsigned polls = 0;
  for (;;) {
    uint64_t v1, v2;
    gasket::get(&v1, version_at, 8, t.pe, call);
    if ((v1 & 1) != 0) {
      gasket::detail::wait_step(&polls);
      continue;
    }
    TableHeader h;
    gasket::get(&h, table_at, sizeof h, t.pe, call);
    if (h.used < sizeof h || h.used > table_bytes_) h.used = sizeof h;  // torn: the version check retries
    table.resize(h.used);
    gasket::get(table.data(), table_at, h.used, t.pe, call);
    std::atomic_thread_fence(std::memory_order_seq_cst);
    gasket::get(&v2, version_at, 8, t.pe, call);
    if (v1 == v2) {
      t.table_version = v1;
      break;
    }
  }
  TableHeader h;
  std::memcpy(&h, table.data(), sizeof h);
  size_t at = sizeof h;
  for (uint64_t i = 0; i < h.count && at + sizeof(TableEntry) <= table.size(); ++i) {
    TableEntry e;
    std::memcpy(&e, table.data() + at, sizeof e);
    at += sizeof e;
    Region r;
    if (e.in_segment != 0) {
      r = segment_region(e.base, e.size, t.pe, e.segment, e.segment_offset);
    } else {
      r.base = e.base;
      r.size = e.size;
      r.pe = t.pe;
      r.shipped = runtime().path(t.pe) == core::Path::kBackend;
      r.descriptor.assign(table.data() + at, e.descriptor_bytes);
      r.pages_file.assign(table.data() + at + pad8(e.descriptor_bytes), e.file_bytes);
      if (e.pages_end > e.pages_begin && t.direct_path) map_pages(&r, e.pages_begin, e.pages_end, call);
    }
    at += pad8(e.descriptor_bytes) + pad8(e.file_bytes);
    t.regions.push_back(std::move(r));
  }
  t.regions_known = true;
  update_fast(t);
  return Error::ok();
}

// ---- communication ----

Error Window::check_access(int rank, const char* call) const {
  if (accessible(rank)) return Error::ok();
  return error(MPI_ERR_RMA_SYNC,
               "%s: rank %d: %s: target rank %d is not in an access epoch (no fence, lock, lock_all or start covers it)",
               call, rank_, label().c_str(), rank);
}

const Region* Window::region_at(const Target& t, uint64_t addr) {
  for (const Region& r : t.regions) {
    if (r.contains(addr, 1)) return &r;
  }
  return nullptr;
}

Error Window::resolve(int rank, int64_t disp, int64_t target_count, const datatype::Datatype& type, const char* call,
                      Location* loc, bool may_span) {
  loc->rank = rank;
  if (target_count == 0 || type.size == 0) {
    loc->empty = true;
    return Error::ok();
  }
  Target& t = targets_[static_cast<size_t>(rank)];
  bool dynamic = flavor_ == MPI_WIN_FLAVOR_DYNAMIC;
  // The operation's bytes: [start + true_lb, start + (count-1) * extent + true_ub).
  int64_t start_off = dynamic ? 0 : disp * t.disp_unit;
  uint64_t start = dynamic ? static_cast<uint64_t>(disp) : t.base + static_cast<uint64_t>(start_off);
  int64_t lo = type.true_lb, hi = (target_count - 1) * type.extent() + type.true_ub;
  if (type.extent() < 0) lo += (target_count - 1) * type.extent(), hi = type.true_ub;
  if (!dynamic && (disp < 0 || start_off + lo < 0 || static_cast<uint64_t>(start_off + hi) > t.size)) {
    return error(MPI_ERR_RMA_RANGE,
                 "%s: rank %d: %s: target rank %d: bytes [%lld, %lld) (displacement %lld x disp_unit %d) lie outside "
                 "its %llu-byte window",
                 call, rank_, label().c_str(), rank, static_cast<long long>(start_off + lo),
                 static_cast<long long>(start_off + hi), static_cast<long long>(disp), t.disp_unit,
                 static_cast<unsigned long long>(t.size));
  }
  uint64_t addr = start + static_cast<uint64_t>(lo), len = static_cast<uint64_t>(hi - lo);
  for (int attempt = 0; attempt < 2; ++attempt) {
    if (!t.regions_known) {
      Error e = refresh_regions(t, call);
      if (!e.is_ok()) return e;
    }
    // Whether attached regions adjacent to r cover the range up to its end.
    auto spans_from = [&](const Region& r) {
      if (!may_span || !dynamic || !r.contains(addr, 1)) return false;
      const Region* last = &r;
      while (last != nullptr && last->base + last->size < addr + len) last = region_at(t, last->base + last->size);
      return last != nullptr;
    };
    for (const Region& r : t.regions) {
      if (r.contains(addr, len) || spans_from(r)) {
        loc->region = &r;
        loc->offset = static_cast<int64_t>(start - r.base);
        loc->spans = !r.contains(addr, len);
        if (dynamic) set_fast(t, r);
        return Error::ok();
      }
    }
    t.regions_known = false;  // attached since we last looked?
  }
  if (dynamic) {
    return error(MPI_ERR_RMA_RANGE,
                 "%s: rank %d: %s: target rank %d: address 0x%llx (+%llu bytes) is in no region it has attached", call,
                 rank_, label().c_str(), rank, static_cast<unsigned long long>(addr),
                 static_cast<unsigned long long>(len));
  }
  return error(MPI_ERR_RMA_RANGE, "%s: rank %d: %s: target rank %d exposes no memory for this range", call, rank_,
               label().c_str(), rank);
}

Error Window::transfer(bool is_put, const Location& loc, uint64_t offset, char* local, size_t len, const char* call) {
  const Region& r = *loc.region;
  if (offset + len > r.size) {  // a dynamic window's range continuing into the adjacent region (resolve)
    uint64_t room = offset < r.size ? r.size - offset : 0;
    Error e = room > 0 ? transfer(is_put, loc, offset, local, room, call) : Error::ok();
    if (!e.is_ok()) return e;
    Location rest = loc;
    rest.region = region_at(targets_[static_cast<size_t>(loc.rank)], r.base + offset + room);
    if (rest.region == nullptr) {
      return error(MPI_ERR_RMA_RANGE, "%s: rank %d: %s: target rank %d: address 0x%llx is in no region it has attached",
                   call, rank_, label().c_str(), loc.rank, static_cast<unsigned long long>(r.base + offset + room));
    }
    return transfer(is_put, rest, r.base + offset + room - rest.region->base, local + room, len - room, call);
  }
  if (r.direct != nullptr) {
    copy(is_put, r.direct + offset, local, len);
    return Error::ok();
  }
  if (r.alias != nullptr) {
    if (is_put) {
      gasket::put(r.alias + offset, local, len, r.pe, call);
    } else {
      gasket::get(local, r.alias + offset, len, r.pe, call);
    }
    return Error::ok();
  }
  // Exposed memory: the shared pages by plain copies, the partial pages at the edges through memreg.
  uint64_t end = offset + len, lo = std::max(offset, r.pages_begin), hi = std::min(end, r.pages_end);
  if (r.pages == nullptr || lo >= hi) return transfer_exposed(is_put, r, loc.rank, offset, local, len, call);
  Error e;
  if (offset < lo) e = transfer_exposed(is_put, r, loc.rank, offset, local, lo - offset, call);
  copy(is_put, r.pages + (lo - r.pages_begin), local + (lo - offset), hi - lo);
  if (e.is_ok() && hi < end) e = transfer_exposed(is_put, r, loc.rank, hi, local + (hi - offset), end - hi, call);
  return e;
}

Error Window::transfer_exposed(bool is_put, const Region& r, int rank, uint64_t offset, char* local, size_t len,
                               const char* call) {
  Status st = is_put ? memreg::put(r.pe, r.descriptor, offset, local, len, call)
                     : memreg::get(r.pe, r.descriptor, offset, local, len, call);
  if (!st.is_ok()) {
    return error(MPI_ERR_RMA_RANGE, "%s: rank %d: %s: target rank %d: %s", call, rank_, label().c_str(), rank,
                 st.message().c_str());
  }
  return Error::ok();
}

// A same-node peer's shared pages, mapped once per window.
void Window::map_pages(Region* r, uint64_t begin, uint64_t end, const char* call) {
  auto it = peer_pages_.find(r->pages_file);
  if (it == peer_pages_.end()) {
    Result<segments::SharedMemoryFile> f = segments::SharedMemoryFile::open(r->pages_file, static_cast<size_t>(end - begin));
    if (!f.is_ok()) {
      GASKET_DEBUG("%s: rank %d: %s: mapping %s: %s (core/memreg instead)", call, rank_, label().c_str(),
                   r->pages_file.c_str(), f.status().message().c_str());
      return;
    }
    it = peer_pages_.emplace(r->pages_file, std::move(f.value())).first;
  }
  r->pages = it->second.data();
  r->pages_begin = begin;
  r->pages_end = end;
}

namespace {
// Walks two chunk lists of equal total length in step: f(origin_offset, target_offset, bytes).
template <typename F>
void zip(const Chunks& a, const Chunks& b, F f) {
  size_t i = 0, j = 0;
  int64_t ia = 0, jb = 0;
  while (i < a.size() && j < b.size()) {
    int64_t n = std::min(a[i].second - ia, b[j].second - jb);
    f(a[i].first + ia, b[j].first + jb, n);
    ia += n;
    jb += n;
    if (ia == a[i].second) ++i, ia = 0;
    if (jb == b[j].second) ++j, jb = 0;
  }
}

Error check_signature(int64_t origin_bytes, int64_t target_bytes, const char* call, int rank) {
  if (origin_bytes != target_bytes) {
    return error(MPI_ERR_TYPE, "%s: rank %d: the origin moves %lld bytes but the target type and count describe %lld",
                 call, rank, static_cast<long long>(origin_bytes), static_cast<long long>(target_bytes));
  }
  return Error::ok();
}
}  // namespace

Error Window::put(const void* origin, int64_t origin_count, const datatype::Datatype& origin_type, int rank,
                  int64_t disp, int64_t target_count, const datatype::Datatype& target_type, const char* call) {
  return move(true, const_cast<char*>(static_cast<const char*>(origin)), origin_count, origin_type, rank, disp,
              target_count, target_type, call);
}

Error Window::get(void* origin, int64_t origin_count, const datatype::Datatype& origin_type, int rank, int64_t disp,
                  int64_t target_count, const datatype::Datatype& target_type, const char* call) {
  return move(false, static_cast<char*>(origin), origin_count, origin_type, rank, disp, target_count, target_type, call);
}

Error Window::move(bool is_put, char* origin, int64_t origin_count, const datatype::Datatype& origin_type, int rank,
                   int64_t disp, int64_t target_count, const datatype::Datatype& target_type, const char* call) {
  Error e = check_access(rank, call);
  if (e.is_ok()) e = check_signature(origin_count * origin_type.size, target_count * target_type.size, call, rank_);
  for (int attempt = 0; e.is_ok(); ++attempt) {
    Location loc;
    e = resolve(rank, disp, target_count, target_type, call, &loc, true);
    if (!e.is_ok() || loc.empty) return e;
    if (origin_type.contiguous() && target_type.contiguous()) {
      e = transfer(is_put, loc, static_cast<uint64_t>(loc.offset + target_type.true_lb), origin + origin_type.true_lb,
                   static_cast<size_t>(origin_count * origin_type.size), call);
    } else {
      zip(chunks_of(origin_type, origin_count), chunks_of(target_type, target_count),
          [&](int64_t o, int64_t t, int64_t n) {
            if (e.is_ok()) e = transfer(is_put, loc, static_cast<uint64_t>(loc.offset + t), origin + o, static_cast<size_t>(n), call);
          });
    }
    bool exposure = loc.region->alias == nullptr && loc.region->direct == nullptr;
    if (e.is_ok() || !exposure || attempt > 0) return e;
    // A refused exposure: the target may have detached and attached again since we cached it.
    targets_[static_cast<size_t>(rank)].regions_known = false;
    e = Error::ok();
  }
  return e;
}

// ---- accumulates ----

void Window::acquire_acc_lock(int rank) {
  uint64_t* word = control_word(rank, offsetof(ControlBlock, acc_lock));
  int pe = targets_[static_cast<size_t>(rank)].pe;
  uint64_t me = static_cast<uint64_t>(gasket::my_pe()) + 1;
  unsigned polls = 0;
  while (gasket::atomic(word, 8, AtomicOp::kCompareSwap, me, 0, pe, false, "MPI RMA accumulate lock") != 0) {
    gasket::detail::wait_step(&polls);
  }
}

void Window::release_acc_lock(int rank) {
  gasket::quiet();  // the update lands before the next holder reads
  gasket::atomic(control_word(rank, offsetof(ControlBlock, acc_lock)), 8, AtomicOp::kSet, 0, 0,
                 targets_[static_cast<size_t>(rank)].pe, false, "MPI RMA accumulate lock");
}

// Read-modify-write of whole chunks: under the target's accumulate lock, or (take_lock false)
// inside an exclusive lock epoch where no other origin may touch the target.
Error Window::accumulate_locked(const Location& loc, const Chunks& chunks, const char* origin, MPI_Datatype basic,
                                int basic_size, MPI_Op op, char* result, bool take_lock, const char* call) {
  if (take_lock) acquire_acc_lock(loc.rank);
  Error e;
  // The target's pieces gathered in order are its elements packed, as the origin and the result
  // are: a pair type with a hole (MPI_SHORT_INT, MPI_LONG_INT, ...) has its value and its index in
  // separate pieces, so the op runs on the whole gathered stream, never piece by piece.
  std::vector<char> buf;
  for (const auto& [off, len] : chunks) buf.resize(buf.size() + static_cast<size_t>(len));
  for (int pass = 0; pass < (op == MPI_NO_OP ? 1 : 2) && e.is_ok(); ++pass) {
    if (pass == 1) op::apply_predefined_packed(op, basic, origin, buf.data(), static_cast<int64_t>(buf.size()) / basic_size);
    size_t at = 0;
    for (const auto& [off, len] : chunks) {
      e = transfer(pass == 1, loc, static_cast<uint64_t>(loc.offset + off), buf.data() + at, static_cast<size_t>(len), call);
      if (!e.is_ok()) break;
      at += static_cast<size_t>(len);
    }
    if (pass == 0 && e.is_ok() && result != nullptr) std::memcpy(result, buf.data(), buf.size());
  }
  if (take_lock) {
    release_acc_lock(loc.rank);
  }
  return e;
}

Error Window::accumulate(const char* origin_packed, int64_t elements, const datatype::Datatype& basic_type,
                         MPI_Datatype basic, int basic_size, MPI_Op op, int rank, int64_t disp, int64_t target_count,
                         const datatype::Datatype& target_type, char* result_packed, const char* call) {
  Error e = check_access(rank, call);
  if (e.is_ok()) e = check_signature(elements * basic_size, target_count * target_type.size, call, rank_);
  Location loc;
  if (e.is_ok()) e = resolve(rank, disp, target_count, target_type, call, &loc, true);
  if (!e.is_ok() || loc.empty) return e;
  // The target's pieces: one for a contiguous type (no allocation on this path).
  Chunks listed;
  std::pair<int64_t, int64_t> one_piece{target_type.true_lb, target_count * target_type.size};
  if (!target_type.contiguous()) listed = chunks_of(target_type, target_count);
  const std::pair<int64_t, int64_t>* first = target_type.contiguous() ? &one_piece : listed.data();
  size_t pieces = target_type.contiguous() ? 1 : listed.size();
  const Region& r = *loc.region;
  size_t width = static_cast<size_t>(basic_size);
  // Under an exclusive lock nobody else touches the target: whole chunks at once. Elements that
  // are not words take the target's accumulate lock — decided per element location, so that
  // every origin treats one location alike.
  bool exclusive = locks_[static_cast<size_t>(rank)] == LockState::kExclusive;
  // Memory the owner serves (no backend atomics or reads reach it here without the owner's CPU):
  // the whole call goes to the target in a request per zone-half, unless it is a single aligned
  // word, which the core's atomic takes in one round trip as well.
  bool one_word = elements == 1 && r.alias != nullptr && (width == 4 || width == 8) && basic_type.blocks.size() == 1 &&
                  (reinterpret_cast<uintptr_t>(r.alias + loc.offset + first[0].first) & (width - 1)) == 0;
  if (shippable(loc) && !loc.spans && !one_word && basic_type.blocks.size() <= 2) {
    return accumulate_shipped(loc, element_starts(first, pieces, basic_size), basic_type, basic, basic_size, op,
                              origin_packed, nullptr, result_packed, exclusive, call);
  }
  bool chunks_at_once = !cpu_width(width) || (exclusive && elements > 1);
  // A call wider than one word holds the accumulate lock throughout, so that a concurrent
  // accumulate or get_accumulate of the same elements sees it whole (each element still updated
  // atomically, for the single-word atomics that take no lock).
  bool whole = !exclusive && (loc.spans || (!chunks_at_once && spans_words(r.base + static_cast<uint64_t>(loc.offset + first[0].first),
                                                                            pieces == 1 ? static_cast<uint64_t>(first[0].second) : UINT64_MAX)));
  // Pieces [f, f + n) in `at`'s region, from packed element k on.
  auto apply = [&](const Location& at, const std::pair<int64_t, int64_t>* f, size_t n, int64_t k) {
    const char* in = origin_packed != nullptr ? origin_packed + k * basic_size : nullptr;
    char* out = result_packed != nullptr ? result_packed + k * basic_size : nullptr;
    if (chunks_at_once) return accumulate_locked(at, Chunks(f, f + n), in, basic, basic_size, op, out, !exclusive && !whole, call);
    return accumulate_elements(at, f, n, in, basic, basic_size, op, out, !exclusive && !whole, call);
  };
  if (!loc.spans) {
    if (whole) acquire_acc_lock(rank);
    e = apply(loc, first, pieces, 0);
    if (whole) release_acc_lock(rank);
    return e;
  }
  // A dynamic window's range over adjacent attached regions: each run of pieces in one region is
  // applied there (an element may not straddle two regions).
  const Target& t = targets_[static_cast<size_t>(rank)];
  uint64_t start = r.base + static_cast<uint64_t>(loc.offset);
  struct Run {
    Location at;
    Chunks pieces;
    int64_t first_element;
  };
  std::vector<Run> runs;
  int64_t k = 0;
  for (size_t i = 0; i < pieces && e.is_ok(); ++i) {
    auto [off, len] = first[i];
    while (len > 0) {
      const Region* in = region_at(t, start + static_cast<uint64_t>(off));
      int64_t n = in == nullptr ? 0 : std::min<int64_t>(len, static_cast<int64_t>(in->base + in->size - (start + static_cast<uint64_t>(off))));
      if (in == nullptr || n % basic_size != 0) {
        return error(MPI_ERR_RMA_RANGE, "%s: rank %d: %s: target rank %d: an element at 0x%llx straddles two attached regions",
                     call, rank_, label().c_str(), rank, static_cast<unsigned long long>(start + static_cast<uint64_t>(off)));
      }
      if (runs.empty() || runs.back().at.region != in) {
        Location at = loc;
        at.region = in;
        at.offset = static_cast<int64_t>(start - in->base);
        runs.push_back(Run{at, {}, k});
      }
      runs.back().pieces.emplace_back(off, n);
      off += n;
      len -= n;
      k += n / basic_size;
    }
  }
  if (whole) acquire_acc_lock(rank);
  for (const Run& run : runs) {
    e = apply(run.at, run.pieces.data(), run.pieces.size(), run.first_element);
    if (!e.is_ok()) break;
  }
  if (whole) release_acc_lock(rank);
  return e;
}

Error Window::accumulate_elements(const Location& loc, const std::pair<int64_t, int64_t>* first, size_t pieces,
                                  const char* origin_packed, MPI_Datatype basic, int basic_size, MPI_Op op,
                                  char* result_packed, bool take_lock, const char* call) {
  const Region& r = *loc.region;
  size_t width = static_cast<size_t>(basic_size);
  auto word_at = [&](int64_t off, char** alias, char** cpu) {
    *alias = r.alias != nullptr ? r.alias + loc.offset + off : nullptr;
    *cpu = cpu_word(loc, loc.offset + off, width);
    return (*alias != nullptr && width >= 4 && reinterpret_cast<uintptr_t>(*alias) % width == 0) || *cpu != nullptr;
  };
  int pe = r.pe;
  int64_t k = 0;
  for (size_t piece = 0; piece < pieces; ++piece) {
    auto [off, len] = first[piece];
    for (int64_t b = 0; b < len; b += basic_size, ++k) {
      char *alias, *cpu;
      if (!word_at(off + b, &alias, &cpu)) {
        // The run of elements that are not words, under one hold of the accumulate lock.
        int64_t run = basic_size;
        while (b + run < len && !word_at(off + b + run, &alias, &cpu)) run += basic_size;
        Error e = accumulate_locked(loc, {{off + b, run}}, origin_packed ? origin_packed + k * basic_size : nullptr,
                                    basic, basic_size, op, result_packed ? result_packed + k * basic_size : nullptr,
                                    take_lock, call);
        if (!e.is_ok()) return e;
        b += run - basic_size;
        k += run / basic_size - 1;
        continue;
      }
      const char* operand_at = origin_packed != nullptr ? origin_packed + k * basic_size : nullptr;
      char* result_at = result_packed != nullptr ? result_packed + k * basic_size : nullptr;
      if (cpu != nullptr) {
        update_elements(cpu, width, 1, op, basic, operand_at, result_at);
        continue;
      }
      uint64_t operand = 0;
      if (operand_at != nullptr) std::memcpy(&operand, operand_at, width);
      uint64_t old = update_word(alias, nullptr, pe, width, op, basic, operand, result_at != nullptr, call);
      if (result_at != nullptr) std::memcpy(result_at, &old, width);
    }
  }
  return Error::ok();
}

Error Window::compare_and_swap(const void* origin, const void* compare, void* result, const datatype::Datatype& type,
                               int rank, int64_t disp, const char* call) {
  Error e = check_access(rank, call);
  Location loc;
  if (e.is_ok()) e = resolve(rank, disp, 1, type, call, &loc);
  if (!e.is_ok() || loc.empty) return e;
  const Region& r = *loc.region;
  size_t width = static_cast<size_t>(type.size);
  char* alias = r.alias == nullptr ? nullptr : r.alias + loc.offset;
  char* cpu = cpu_word(loc, loc.offset, width);  // where accumulate() runs CPU atomics too
  if (cpu != nullptr) {
    compare_swap_element(cpu, width, origin, compare, result);
    return Error::ok();
  }
  if (alias != nullptr && (width == 4 || width == 8) && reinterpret_cast<uintptr_t>(alias) % width == 0) {
    uint64_t value = 0, cmp = 0;
    std::memcpy(&value, origin, width);
    std::memcpy(&cmp, compare, width);
    uint64_t old = gasket::atomic(alias, width, AtomicOp::kCompareSwap, value, cmp, r.pe, false, call);
    std::memcpy(result, &old, width);
    return Error::ok();
  }
  bool exclusive = locks_[static_cast<size_t>(rank)] == LockState::kExclusive;
  if (shippable(loc)) {
    return accumulate_shipped(loc, {0}, type, MPI_DATATYPE_NULL, static_cast<int>(width), MPI_OP_NULL,
                              static_cast<const char*>(origin), static_cast<const char*>(compare),
                              static_cast<char*>(result), exclusive, call);
  }
  if (!exclusive) acquire_acc_lock(rank);
  std::vector<char> old(width);
  e = transfer(false, loc, static_cast<uint64_t>(loc.offset), old.data(), width, call);
  if (e.is_ok() && std::memcmp(old.data(), compare, width) == 0) {
    e = transfer(true, loc, static_cast<uint64_t>(loc.offset), const_cast<char*>(static_cast<const char*>(origin)), width,
                 call);
  }
  if (!exclusive) release_acc_lock(rank);
  std::memcpy(result, old.data(), width);
  return e;
}

// ---- accumulates applied by the target (memory the owner serves) ----

namespace {
// A shipped request: this header, `runs` ElementRuns, then the operands (`elements` x `width`
// packed bytes; compare-and-swap: the new value, then the compare value). The answer: the old
// values packed (kFetch).
struct ShippedHeader {
  uint64_t control_offset;  // names the window: the heap offset of the target rank's control block
  uint64_t base;            // where element offsets count from: a dynamic window's address, else
                            // the byte of the target rank's window memory
  int32_t basic;            // the predefined datatype of every element
  int32_t op;               // a predefined MPI_Op; MPI_OP_NULL: compare-and-swap
  uint32_t width;           // packed bytes of an element
  uint32_t flags;
  uint32_t runs;
  uint32_t layout_blocks;   // blocks of an element in memory: 1, or 2 (a pair with a hole)
  uint64_t elements;
  int64_t layout[4];        // (offset, length) of each block from the element's start
};
// Elements at offset + i * stride + j * repeat_stride, i < count, j < repeat.
struct ElementRun {
  int64_t offset;
  uint64_t count;
  int64_t stride;
  uint64_t repeat;
  int64_t repeat_stride;
};
constexpr uint32_t kTakeLock = 1, kReleaseLock = 2, kFetch = 4;
// The status words of a request.
constexpr uint64_t kApplied = 0, kLockBusy = 1, kOutOfRange = 2, kUnknownWindow = 3, kMalformed = 4;
constexpr size_t kFlagsAt = offsetof(ShippedHeader, flags);

const char* status_name(uint64_t status) {
  switch (status) {
    case kLockBusy: return "the accumulate lock is held";
    case kOutOfRange: return "the range is in no region the target exposes";
    case kUnknownWindow: return "the target has no such window";
    case kMalformed: return "the target refused a malformed request";
    default: return "unknown status";
  }
}

// Element starts [from, to) of `starts` as runs: each run grows while the next start continues
// its stride, and runs of one shape at a constant distance become repeats of the previous one.
void append_runs(const std::vector<int64_t>& starts, size_t from, size_t to, std::vector<ElementRun>* runs) {
  size_t i = from;
  while (i < to) {
    ElementRun r{starts[i], 1, 0, 1, 0};
    if (i + 1 < to) {
      r.stride = starts[i + 1] - starts[i];
      while (i + r.count < to && starts[i + r.count] == starts[i] + static_cast<int64_t>(r.count) * r.stride) ++r.count;
    }
    i += r.count;
    if (!runs->empty()) {
      ElementRun& last = runs->back();
      bool same_shape = last.count == r.count && (last.stride == r.stride || r.count == 1);
      if (same_shape && last.repeat == 1) {
        last.repeat_stride = r.offset - last.offset;
        last.repeat = 2;
        continue;
      }
      if (same_shape && r.offset == last.offset + static_cast<int64_t>(last.repeat) * last.repeat_stride) {
        ++last.repeat;
        continue;
      }
    }
    runs->push_back(r);
  }
}

// Bytes of the request for `elements` elements in `runs` runs.
size_t request_bytes(size_t runs, size_t elements, size_t operand_bytes) {
  return sizeof(ShippedHeader) + runs * sizeof(ElementRun) + elements * operand_bytes;
}
}  // namespace

bool Window::shippable(const Location& loc) const {
  return loc.region->shipped && loc.region->pe == targets_[static_cast<size_t>(loc.rank)].pe;
}

// Where a control block lies in the symmetric heap (the same offset on every PE).
static uint64_t heap_offset(const void* control) {
  return static_cast<uint64_t>(static_cast<const char*>(control) - runtime().segments().find(segments::kHeapSegment)->base);
}

uint64_t Window::control_offset() const { return heap_offset(mine_); }

Error Window::accumulate_shipped(const Location& loc, const std::vector<int64_t>& starts,
                                 const datatype::Datatype& basic_type, MPI_Datatype basic, int basic_size, MPI_Op op,
                                 const char* origin, const char* compare, char* result, bool exclusive, const char* call) {
  if (starts.empty()) return Error::ok();
  core::am::EmulatedRma& service = *runtime().emulated();
  const int rank = loc.rank;
  const Target& t = targets_[static_cast<size_t>(rank)];
  const size_t width = static_cast<size_t>(basic_size), half = service.max_gathered_block();
  const size_t operand = op == MPI_NO_OP ? 0 : compare != nullptr ? 2 * width : width;
  const size_t answer = result != nullptr ? width : 0;
  ShippedHeader h{};
  h.control_offset = heap_offset(t.control);
  h.base = (flavor_ == MPI_WIN_FLAVOR_DYNAMIC ? loc.region->base : loc.region->base - t.base) + static_cast<uint64_t>(loc.offset);
  h.basic = basic;
  h.op = op;
  h.width = static_cast<uint32_t>(width);
  h.flags = result != nullptr ? kFetch : 0;
  h.layout_blocks = static_cast<uint32_t>(std::max<size_t>(basic_type.blocks.size(), 1));
  for (size_t b = 0; b < basic_type.blocks.size(); ++b) {
    h.layout[2 * b] = basic_type.blocks[b].offset - basic_type.blocks[0].offset;
    h.layout[2 * b + 1] = basic_type.blocks[b].length;
  }
  if (basic_type.blocks.empty()) h.layout[1] = basic_size;
  // The requests: as many elements as fill half a zone, input and answer.
  std::vector<std::vector<char>> inputs;
  std::vector<core::am::EmulatedRma::ServiceCall> calls;
  std::vector<ElementRun> runs;
  for (size_t first = 0; first < starts.size();) {
    // The largest count of elements whose request fits (the runs grow with it): at most what the
    // operands and answers alone allow, searched by halving.
    size_t lo = 1, hi = std::min(starts.size() - first, (half - sizeof h) / std::max<size_t>(operand, 1));
    if (answer != 0) hi = std::min(hi, half / answer);
    hi = std::max<size_t>(hi, 1);
    while (lo < hi) {
      size_t mid = lo + (hi - lo + 1) / 2;
      runs.clear();
      append_runs(starts, first, first + mid, &runs);
      if (request_bytes(runs.size(), mid, operand) <= half && mid * answer <= half) {
        lo = mid;
      } else {
        hi = mid - 1;
      }
    }
    size_t n = lo;
    runs.clear();
    append_runs(starts, first, first + n, &runs);
    h.runs = static_cast<uint32_t>(runs.size());
    h.elements = n;
    std::vector<char> in(request_bytes(runs.size(), n, operand));
    std::memcpy(in.data(), &h, sizeof h);
    std::memcpy(in.data() + sizeof h, runs.data(), runs.size() * sizeof(ElementRun));
    char* operands = in.data() + sizeof h + runs.size() * sizeof(ElementRun);
    if (operand != 0) std::memcpy(operands, origin + first * width, n * width);
    if (compare != nullptr) std::memcpy(operands + n * width, compare, width);
    core::am::EmulatedRma::ServiceCall c;
    c.out = result != nullptr ? result + first * width : nullptr;
    c.out_len = n * answer;
    calls.push_back(c);
    inputs.push_back(std::move(in));
    first += n;
  }
  for (size_t i = 0; i < calls.size(); ++i) {
    calls[i].in = inputs[i].data();
    calls[i].in_len = inputs[i].size();
  }
  auto set_flag = [&](size_t i, uint32_t flag, bool on) {
    uint32_t flags;
    std::memcpy(&flags, inputs[i].data() + kFlagsAt, sizeof flags);
    flags = on ? flags | flag : flags & ~flag;
    std::memcpy(inputs[i].data() + kFlagsAt, &flags, sizeof flags);
  };
  // Outside an exclusive epoch the call holds the target's accumulate lock: the first request
  // takes it (when it is busy, this origin waits for it as the other paths do and sends again),
  // the last one releases it once every earlier request is applied.
  bool held = false;
  Status st = Status::ok();
  auto send = [&](size_t from, size_t count) {
    st = service.call_service(t.pe, kAccumulateService, calls.data() + from, count, !exclusive);
    return st.is_ok() && std::all_of(calls.begin() + static_cast<ptrdiff_t>(from),
                                     calls.begin() + static_cast<ptrdiff_t>(from + count),
                                     [](const auto& c) { return c.status == kApplied; });
  };
  bool done;
  if (exclusive) {
    done = send(0, calls.size());
  } else {
    set_flag(0, kTakeLock, true);
    set_flag(calls.size() - 1, kReleaseLock, true);
    done = send(0, 1);
    if (st.is_ok() && calls[0].status == kLockBusy) {
      acquire_acc_lock(rank);
      held = true;
      set_flag(0, kTakeLock, false);
      done = send(0, 1);
    }
    held = held || done;
    if (done && calls.size() > 1) done = send(1, calls.size() - 1);
    if (done) held = false;  // the last request released it
  }
  if (held) release_acc_lock(rank);
  if (!st.is_ok()) {
    return error(MPI_ERR_OTHER, "%s: rank %d: %s: target rank %d: %s", call, rank_, label().c_str(), rank,
                 st.message().c_str());
  }
  if (done) return Error::ok();
  for (const core::am::EmulatedRma::ServiceCall& c : calls) {
    if (c.status == kApplied || c.status == core::am::EmulatedRma::kNotRun) continue;
    if (c.status == kOutOfRange) targets_[static_cast<size_t>(rank)].regions_known = false;
    return error(c.status == kOutOfRange ? MPI_ERR_RMA_RANGE : MPI_ERR_INTERN,
                 "%s: rank %d: %s: target rank %d (%s 0x%llx): %s", call, rank_, label().c_str(), rank,
                 flavor_ == MPI_WIN_FLAVOR_DYNAMIC ? "address" : "window byte",
                 static_cast<unsigned long long>(h.base), status_name(c.status));
  }
  return Error::ok();
}

const Region* Window::served_region(uint64_t addr, uint64_t len) const {
  if (!published_.empty()) {
    for (const Published& p : published_) {
      if (p.region.contains(addr, len)) return &p.region;
    }
    return nullptr;
  }
  for (const Region& r : targets_[static_cast<size_t>(rank_)].regions) {
    if (r.contains(addr, len)) return &r;
  }
  return nullptr;
}

uint64_t Window::serve_accumulate(int src_pe, const char* in, size_t in_len, char* out, size_t out_len) {
  const char* call = "MPI RMA accumulate (applied at the target)";
  ShippedHeader h;
  if (in_len < sizeof h) return kMalformed;
  std::memcpy(&h, in, sizeof h);
  const bool cas = h.op == MPI_OP_NULL, fetch = (h.flags & kFetch) != 0;
  const size_t width = h.width;
  const size_t operand = h.op == MPI_NO_OP ? 0 : cas ? 2 * width : width;
  uint64_t element_end = 0, layout_bytes = 0;  // of an element in memory; its packed bytes
  bool layout_ok = h.layout_blocks >= 1 && h.layout_blocks <= 2 && width >= 1 && width <= 32 && (!cas || h.elements == 1);
  for (uint32_t b = 0; layout_ok && b < h.layout_blocks; ++b) {
    layout_ok = h.layout[2 * b] >= 0 && h.layout[2 * b + 1] > 0 && h.layout[2 * b] + h.layout[2 * b + 1] <= 64;
    element_end = std::max<uint64_t>(element_end, static_cast<uint64_t>(h.layout[2 * b] + h.layout[2 * b + 1]));
    layout_bytes += static_cast<uint64_t>(h.layout[2 * b + 1]);
  }
  if (!layout_ok || layout_bytes != width || h.elements > in_len || h.runs > in_len ||
      in_len != request_bytes(h.runs, h.elements, operand) || out_len != (fetch ? h.elements * width : 0)) {
    GASKET_DEBUG("%s: rank %d: %s: PE %d sent %zu bytes for %llu elements of %zu bytes in %u runs", call, rank_,
                 label().c_str(), src_pe, in_len, static_cast<unsigned long long>(h.elements), width, h.runs);
    return kMalformed;
  }
  alignas(16) char probe_a[32] = {}, probe_b[32] = {};
  if (!cas && h.op != MPI_REPLACE && h.op != MPI_NO_OP && !op::apply_predefined(h.op, h.basic, probe_a, probe_b, 0)) {
    return kMalformed;
  }
  // Static windows: from the start of this rank's memory (a shared window's address differs
  // between processes); dynamic ones: an address here.
  uint64_t base = h.base;
  if (flavor_ != MPI_WIN_FLAVOR_DYNAMIC) {
    const std::vector<Region>& mine = targets_[static_cast<size_t>(rank_)].regions;
    if (published_.empty() && mine.empty()) return kOutOfRange;
    base += published_.empty() ? mine[0].base : published_[0].region.base;
  }
  std::vector<ElementRun> runs(h.runs);
  std::memcpy(runs.data(), in + sizeof h, runs.size() * sizeof(ElementRun));
  // Every run in one region of this rank, and the counts adding up.
  std::vector<const Region*> regions(runs.size());
  uint64_t total = 0;
  for (size_t i = 0; i < runs.size(); ++i) {
    const ElementRun& r = runs[i];
    int64_t inner, outer, lo = r.offset, hi = r.offset;
    if (r.count == 0 || r.repeat == 0 || r.count > h.elements || r.repeat > h.elements ||
        __builtin_mul_overflow(static_cast<int64_t>(r.count - 1), r.stride, &inner) ||
        __builtin_mul_overflow(static_cast<int64_t>(r.repeat - 1), r.repeat_stride, &outer) ||
        __builtin_add_overflow(lo, std::min<int64_t>(inner, 0) + std::min<int64_t>(outer, 0), &lo) ||
        __builtin_add_overflow(hi, std::max<int64_t>(inner, 0) + std::max<int64_t>(outer, 0), &hi)) {
      return kMalformed;
    }
    total += r.count * r.repeat;
    regions[i] = served_region(base + static_cast<uint64_t>(lo), static_cast<uint64_t>(hi - lo) + element_end);
    if (regions[i] == nullptr) {
      GASKET_DEBUG("%s: rank %d: %s: PE %d named [0x%llx, +%llu), in none of this rank's regions", call, rank_,
                   label().c_str(), src_pe, static_cast<unsigned long long>(base + static_cast<uint64_t>(lo)),
                   static_cast<unsigned long long>(static_cast<uint64_t>(hi - lo) + element_end));
      return kOutOfRange;
    }
  }
  if (total != h.elements) return kMalformed;
  if ((h.flags & kTakeLock) != 0 &&
      gasket::atomic(&mine_->acc_lock, 8, AtomicOp::kCompareSwap, static_cast<uint64_t>(src_pe) + 1, 0,
                     gasket::my_pe(), false, call) != 0) {
    return kLockBusy;
  }
  const char* operands = in + sizeof h + runs.size() * sizeof(ElementRun);
  const int me = gasket::my_pe();
  const bool one_block = h.layout_blocks == 1;
  uint64_t k = 0;
  for (size_t i = 0; i < runs.size(); ++i) {
    const ElementRun& run = runs[i];
    const Region& r = *regions[i];
    char* local = r.alias != nullptr ? r.alias : r.direct;
    for (uint64_t j = 0; j < run.repeat; ++j) {
      for (uint64_t e = 0; e < run.count; ++e, ++k) {
        uint64_t addr = base + static_cast<uint64_t>(run.offset + static_cast<int64_t>(e) * run.stride +
                                                       static_cast<int64_t>(j) * run.repeat_stride);
        char* p = local + (addr - r.base);
        const char* value = operand != 0 ? operands + k * width : nullptr;
        char* old = fetch ? out + k * width : nullptr;
        // Aligned 4- and 8-byte elements in a segment are atomics in the core's domain, as every
        // origin runs them; everything else is read, combined and written under the lock.
        if (one_block && r.alias != nullptr && (width == 4 || width == 8) &&
            (reinterpret_cast<uintptr_t>(p) & (width - 1)) == 0) {
          char* cpu = r.cpu_atomics ? p : nullptr;
          uint64_t v = 0, c = 0, was;
          if (value != nullptr) std::memcpy(&v, value, width);
          if (cas) {
            std::memcpy(&c, value + width, width);
            was = cpu != nullptr ? core::am::cpu_atomic(cpu, static_cast<unsigned>(width), backend::AtomicOp::kCompareSwap, v, c)
                                 : gasket::atomic(p, width, AtomicOp::kCompareSwap, v, c, me, false, call);
          } else {
            was = update_word(p, cpu, me, width, h.op, h.basic, v, fetch, call);
          }
          if (old != nullptr) std::memcpy(old, &was, width);
          continue;
        }
        alignas(16) char bytes[64];
        for (uint32_t b = 0, at = 0; b < h.layout_blocks; at += static_cast<uint32_t>(h.layout[2 * b + 1]), ++b) {
          std::memcpy(bytes + at, p + h.layout[2 * b], static_cast<size_t>(h.layout[2 * b + 1]));
        }
        if (old != nullptr) std::memcpy(old, bytes, width);
        if (cas) {
          if (std::memcmp(bytes, value + width, width) != 0) continue;
          std::memcpy(bytes, value, width);
        } else if (h.op == MPI_NO_OP) {
          continue;
        } else {
          op::apply_predefined_packed(h.op, h.basic, value, bytes, 1);
        }
        for (uint32_t b = 0, at = 0; b < h.layout_blocks; at += static_cast<uint32_t>(h.layout[2 * b + 1]), ++b) {
          std::memcpy(p + h.layout[2 * b], bytes + at, static_cast<size_t>(h.layout[2 * b + 1]));
        }
      }
    }
  }
  if ((h.flags & kReleaseLock) != 0) {
    gasket::atomic(&mine_->acc_lock, 8, AtomicOp::kSet, 0, 0, me, false, call);
  }
  return kApplied;
}

// ---- synchronisation ----

void Window::complete_all() { gasket::quiet(); }

Error Window::flush(int rank) {
  if (rank >= 0 && targets_[static_cast<size_t>(rank)].direct_path) {
    // Plain stores on the mapped memory are complete once ordered before what follows (a release
    // fence: on x86 only the compiler's; the unlock or notification after it is an atomic).
    std::atomic_thread_fence(std::memory_order_release);
    return Error::ok();
  }
  complete_all();
  return Error::ok();
}

void Window::barrier(const Waiter& wait) {
  int n = size();
  if (n == 1) return;
  uint64_t epoch = ++barrier_epoch_;
  for (int k = 0, d = 1; d < n; ++k, d <<= 1) {
    int partner = (rank_ + d) % n;
    gasket::atomic(control_word(partner, offsetof(ControlBlock, barrier) + 8 * static_cast<size_t>(k)), 8,
                   AtomicOp::kAdd, 1, 0, targets_[static_cast<size_t>(partner)].pe, false, "MPI_Win_fence");
    const uint64_t* mine = &mine_->barrier[k];
    wait([&] { return load(mine) >= epoch; });
  }
}

Error Window::fence(int assert, const Waiter& wait, const char* call) {
  if (locks_held_ > 0 || lock_all_ || access_epoch_ || exposure_size_ >= 0) {
    return error(MPI_ERR_RMA_SYNC, "%s: rank %d: %s: a lock, lock_all, start or post epoch is still open", call, rank_,
                 label().c_str());
  }
  complete_all();
  barrier(wait);
  fence_epoch_ = (assert & MPI_MODE_NOSUCCEED) == 0;
  return Error::ok();
}

Error Window::post(const std::vector<int>& ranks, const char* call) {
  if (exposure_size_ >= 0) {
    return error(MPI_ERR_RMA_SYNC, "%s: rank %d: %s: an exposure epoch (post) is already open", call, rank_,
                 label().c_str());
  }
  std::atomic_thread_fence(std::memory_order_seq_cst);
  for (int r : ranks) {
    gasket::atomic(posts_word(r, rank_), 8, AtomicOp::kAdd, 1, 0, targets_[static_cast<size_t>(r)].pe, false, call);
  }
  exposure_size_ = static_cast<int>(ranks.size());
  return Error::ok();
}

Error Window::start(const std::vector<int>& ranks, const Waiter& wait, const char* call) {
  if (access_epoch_ || locks_held_ > 0 || lock_all_) {
    return error(MPI_ERR_RMA_SYNC, "%s: rank %d: %s: an access epoch (start, lock or lock_all) is already open", call,
                 rank_, label().c_str());
  }
  const uint64_t* posts = reinterpret_cast<const uint64_t*>(mine_ + 1);
  for (int r : ranks) {
    uint64_t want = ++starts_done_[static_cast<size_t>(r)];
    wait([&] { return load(&posts[r]) >= want; });
    in_access_group_[static_cast<size_t>(r)] = true;
  }
  access_group_ = ranks;
  access_epoch_ = true;
  return Error::ok();
}

Error Window::complete(const char* call) {
  if (!access_epoch_) {
    return error(MPI_ERR_RMA_SYNC, "%s: rank %d: %s: no access epoch (MPI_Win_start) is open", call, rank_,
                 label().c_str());
  }
  complete_all();
  for (int r : access_group_) {
    gasket::atomic(control_word(r, offsetof(ControlBlock, completes)), 8, AtomicOp::kAdd, 1, 0,
                   targets_[static_cast<size_t>(r)].pe, false, call);
    in_access_group_[static_cast<size_t>(r)] = false;
  }
  access_group_.clear();
  access_epoch_ = false;
  return Error::ok();
}

Error Window::wait_exposure(const Waiter& wait, bool test_only, bool* done, const char* call) {
  if (exposure_size_ < 0) {
    return error(MPI_ERR_RMA_SYNC, "%s: rank %d: %s: no exposure epoch (MPI_Win_post) is open", call, rank_,
                 label().c_str());
  }
  uint64_t want = completes_expected_ + static_cast<uint64_t>(exposure_size_);
  auto arrived = [&] { return load(&mine_->completes) >= want; };
  if (test_only) {
    gasket::progress();
    *done = arrived();
    if (!*done) return Error::ok();
  } else {
    wait(arrived);
    if (done != nullptr) *done = true;
  }
  completes_expected_ = want;
  exposure_size_ = -1;
  std::atomic_thread_fence(std::memory_order_seq_cst);
  return Error::ok();
}

// Passive target: a fair (FIFO) reader-writer ticket lock in the target's control block. A locker
// takes a ticket and waits until it is served; a reader then counts itself in and serves the next
// ticket at once (consecutive readers share), a writer waits for the readers to leave and serves
// the next ticket when it unlocks. Writers are never starved: later readers queue behind them.
Error Window::lock(int lock_type, int rank, bool nocheck, const Waiter& wait, const char* call) {
  if (locks_[static_cast<size_t>(rank)] != LockState::kNone || lock_all_) {
    return error(MPI_ERR_RMA_SYNC, "%s: rank %d: %s: target rank %d is already locked by this process", call, rank_,
                 label().c_str(), rank);
  }
  if (access_epoch_) {
    return error(MPI_ERR_RMA_SYNC, "%s: rank %d: %s: a start epoch is open", call, rank_, label().c_str());
  }
  if (nocheck) {  // MPI_MODE_NOCHECK: the user asserts no conflicting lock exists; the word stays untouched
    locks_[static_cast<size_t>(rank)] = lock_type == MPI_LOCK_SHARED ? LockState::kShared : LockState::kExclusive;
    lock_unheld_[static_cast<size_t>(rank)] = true;
    ++locks_held_;
    return Error::ok();
  }
  int pe = targets_[static_cast<size_t>(rank)].pe;
  uint64_t* next = control_word(rank, offsetof(ControlBlock, lock_next));
  uint64_t* serving = control_word(rank, offsetof(ControlBlock, lock_serving));
  uint64_t* readers = control_word(rank, offsetof(ControlBlock, lock_readers));
  uint64_t ticket = gasket::atomic(next, 8, AtomicOp::kFetchAdd, 1, 0, pe, false, call);
  wait([&] { return gasket::atomic(serving, 8, AtomicOp::kFetch, 0, 0, pe, false, call) == ticket; });
  if (lock_type == MPI_LOCK_SHARED) {
    gasket::atomic(readers, 8, AtomicOp::kAdd, 1, 0, pe, false, call);
    gasket::atomic(serving, 8, AtomicOp::kAdd, 1, 0, pe, false, call);
    locks_[static_cast<size_t>(rank)] = LockState::kShared;
  } else {
    wait([&] { return gasket::atomic(readers, 8, AtomicOp::kFetch, 0, 0, pe, false, call) == 0; });
    locks_[static_cast<size_t>(rank)] = LockState::kExclusive;
  }
  ++locks_held_;
  return Error::ok();
}

Error Window::unlock(int rank, const char* call) {
  LockState s = locks_[static_cast<size_t>(rank)];
  if (s == LockState::kNone) {
    return error(MPI_ERR_RMA_SYNC, "%s: rank %d: %s: target rank %d is not locked by this process", call, rank_,
                 label().c_str(), rank);
  }
  complete_all();
  int pe = targets_[static_cast<size_t>(rank)].pe;
  if (lock_unheld_[static_cast<size_t>(rank)]) {
    lock_unheld_[static_cast<size_t>(rank)] = false;
  } else if (s == LockState::kShared) {
    gasket::atomic(control_word(rank, offsetof(ControlBlock, lock_readers)), 8, AtomicOp::kAdd, ~uint64_t{0}, 0, pe,
                   false, call);
  } else {
    gasket::atomic(control_word(rank, offsetof(ControlBlock, lock_serving)), 8, AtomicOp::kAdd, 1, 0, pe, false, call);
  }
  locks_[static_cast<size_t>(rank)] = LockState::kNone;
  --locks_held_;
  return Error::ok();
}

Error Window::lock_all(bool nocheck, const Waiter& wait, const char* call) {
  if (lock_all_ || locks_held_ > 0 || access_epoch_) {
    return error(MPI_ERR_RMA_SYNC, "%s: rank %d: %s: an access epoch (lock, lock_all or start) is already open", call,
                 rank_, label().c_str());
  }
  for (int r = 0; r < size(); ++r) {
    Error e = lock(MPI_LOCK_SHARED, r, nocheck, wait, call);
    if (!e.is_ok()) return e;
  }
  lock_all_ = true;
  return Error::ok();
}

Error Window::unlock_all(const char* call) {
  if (!lock_all_) {
    return error(MPI_ERR_RMA_SYNC, "%s: rank %d: %s: no lock_all epoch is open", call, rank_, label().c_str());
  }
  lock_all_ = false;
  for (int r = 0; r < size(); ++r) {
    Error e = unlock(r, call);
    if (!e.is_ok()) return e;
  }
  return Error::ok();
}

Error Window::free(const Waiter& wait, Arena& pool, const char* call) {
  if (locks_held_ > 0 || lock_all_ || access_epoch_ || exposure_size_ >= 0) {
    return error(MPI_ERR_RMA_SYNC, "%s: rank %d: %s: a lock, lock_all, start or post epoch is still open", call, rank_,
                 label().c_str());
  }
  complete_all();
  barrier(wait);  // nobody still reaches into this rank's memory or control block
  for (Published& p : published_) unpublish(p, call);
  published_.clear();
  for (char* p : pool_blocks) pool.release(p);
  pool_blocks.clear();
  for (char* p : system_blocks) std::free(p);
  system_blocks.clear();
  return Error::ok();
}

// ---- the table ----

MPI_Win WinTable::add(std::unique_ptr<Window> w) {
  {
    std::lock_guard<std::mutex> lock(served_mutex_);
    served_[w->control_offset()] = w.get();
    w->served_mutex = &served_mutex_;
  }
  for (size_t i = 1; i < wins_.size(); ++i) {
    if (!wins_[i]) {
      w->handle = handle_of(HandleKind::kWin, i);
      wins_[i] = std::move(w);
      return handle_of(HandleKind::kWin, i);
    }
  }
  w->handle = handle_of(HandleKind::kWin, wins_.size());
  wins_.push_back(std::move(w));
  return handle_of(HandleKind::kWin, wins_.size() - 1);
}

void WinTable::remove(MPI_Win handle) {
  std::unique_ptr<Window>* entry = entry_of(wins_, HandleKind::kWin, handle);
  {
    std::lock_guard<std::mutex> lock(served_mutex_);
    served_.erase((*entry)->control_offset());
  }
  entry->reset();
}

uint64_t WinTable::serve_accumulate(int src_pe, const char* in, size_t in_len, char* out, size_t out_len) {
  uint64_t control_offset;
  if (in_len < sizeof control_offset) return kMalformed;
  std::memcpy(&control_offset, in, sizeof control_offset);
  std::lock_guard<std::mutex> lock(served_mutex_);
  auto it = served_.find(control_offset);
  if (it == served_.end()) return kUnknownWindow;
  return it->second->serve_accumulate(src_pe, in, in_len, out, out_len);
}

Error WinTable::lookup(MPI_Win handle, const char* call, Window** w) {
  *w = find(handle);
  if (*w == nullptr) {
    return error(MPI_ERR_WIN, "%s: %d is not a window (%s)", call, handle,
                 handle == MPI_WIN_NULL ? "MPI_WIN_NULL" : why_not_found(HandleKind::kWin, handle));
  }
  return Error::ok();
}

}  // namespace gasket::mpi::win
