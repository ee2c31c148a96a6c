// The OpenSHMEM C entry points. Each family is one template here, instantiated for the
// standard's type lists by the X-macro tables of shmem.h; every entry point is a thin call that
// passes its own name down, so the core's error messages name the shmem_* routine.
#include <algorithm>
#include <complex>
#include <cstring>

#include "core/base/log.h"
#include "shmem-api/library.h"

namespace gasket::shmem {
namespace {

// C complex types compute as std::complex (same layout).
template <typename T> struct Compute { using type = T; };
template <> struct Compute<float _Complex> { using type = std::complex<float>; };
template <> struct Compute<double _Complex> { using type = std::complex<double>; };

inline Library& lib(const char* call) { return Library::get(call); }

// ---- RMA ----
void put_bytes(shmem_ctx_t ctx, void* dest, const void* src, size_t bytes, int pe, const char* call) {
  put(dest, src, bytes, lib(call).target_pe(ctx, pe, call), call);
}
void get_bytes(shmem_ctx_t ctx, void* dest, const void* src, size_t bytes, int pe, const char* call) {
  get(dest, src, bytes, lib(call).target_pe(ctx, pe, call), call);
}
void put_bytes_nbi(shmem_ctx_t ctx, void* dest, const void* src, size_t bytes, int pe, const char* call) {
  put_nbi(dest, src, bytes, lib(call).target_pe(ctx, pe, call), call);
}
void get_bytes_nbi(shmem_ctx_t ctx, void* dest, const void* src, size_t bytes, int pe, const char* call) {
  get_nbi(dest, src, bytes, lib(call).target_pe(ctx, pe, call), call);
}
size_t checked_bytes(size_t nelems, size_t elem, const char* call) {
  size_t bytes;
  if (__builtin_mul_overflow(nelems, elem, &bytes)) {
    log::fatal("%s: %zu elements of %zu bytes overflow the address space", call, nelems, elem);
  }
  return bytes;
}

// iput/iget (bsize 1) and the 1.6 blocked ibput/ibget: `nblocks` blocks of `bsize` contiguous
// elements, block b at dest + b*dst and source + b*sst elements: one core blocked transfer (one
// segment lookup; a get issues every block before completing once).
void strided(bool is_put, shmem_ctx_t ctx, void* dest, const void* src, ptrdiff_t dst, ptrdiff_t sst,
             size_t elem, size_t bsize, size_t nblocks, int pe, const char* call) {
  int target = lib(call).target_pe(ctx, pe, call);
  if (is_put) put_blocks(dest, src, dst, sst, elem, bsize, nblocks, target, call);
  else get_blocks(dest, src, dst, sst, elem, bsize, nblocks, target, call);
}

// put, fence, then the signal update (SET or ADD) at sig_addr on the same PE.
void put_signal(shmem_ctx_t ctx, void* dest, const void* src, size_t bytes, uint64_t* sig_addr,
                uint64_t signal, int sig_op, int pe, const char* call) {
  if (sig_op != SHMEM_SIGNAL_SET && sig_op != SHMEM_SIGNAL_ADD) {
    log::fatal("%s: signal operation %d is neither SHMEM_SIGNAL_SET nor SHMEM_SIGNAL_ADD", call, sig_op);
  }
  int target = lib(call).target_pe(ctx, pe, call);
  put(dest, src, bytes, target, call);
  fence();
  if (sig_op == SHMEM_SIGNAL_SET) atomic_set(sig_addr, signal, target, call);
  else atomic_add(sig_addr, signal, target, call);
}

// ---- atomics ----
template <typename T>
T amo(shmem_ctx_t ctx, T* dest, AtomicOp op, T value, T cond, int pe, const char* call) {
  return detail::atomic_typed(dest, op, value, cond, lib(call).target_pe(ctx, pe, call), call);
}
// Fetching _nbi forms: the old value lands in *fetch by the next quiet (at once unless the
// backend runs the atomic natively; see gasket::atomic_nbi).
template <typename T>
void amo_nbi(shmem_ctx_t ctx, T* fetch, T* dest, AtomicOp op, T value, T cond, int pe, const char* call) {
  static_assert(detail::kAtomicType<T>, "atomics work on 4- and 8-byte integers, float and double");
  atomic_nbi(dest, sizeof(T), op, detail::bits(value), detail::bits(cond), lib(call).target_pe(ctx, pe, call), fetch,
             std::is_floating_point<T>::value, call);
}

// ---- point-to-point synchronisation ----
template <typename T>
bool satisfied(const T* ivar, Cmp cmp, T value) {
  return detail::compare(__atomic_load_n(ivar, __ATOMIC_ACQUIRE), cmp, value);
}
template <typename T>
void wait_one(T* ivar, int cmp, T value, const char* call) {
  lib(call).check_symmetric(ivar, sizeof(T), "ivar", call);
  Cmp c = comparison(cmp, call);
  poll(true, [&] { return satisfied(ivar, c, value); });  // napping past the spin budget (core's policy)
}

// The _all/_any/_some families (scalar or _vector comparison values). `status[i]` != 0 excludes
// element i. Returns the number of satisfied elements found in one pass; fills `indices` (some) or
// `any`: the first satisfied index at or after `start`, else the first one before it (so that
// successive _any calls, each starting past the last answer, return every satisfied index).
template <typename T>
size_t scan(const T* ivars, size_t n, const int* status, Cmp cmp, const T* values, T value,
            size_t* indices, size_t start, size_t* any, size_t* active) {
  size_t found = 0, before = SIZE_MAX;
  *active = 0;
  for (size_t i = 0; i < n; ++i) {
    if (status != nullptr && status[i] != 0) continue;
    ++*active;
    if (satisfied(&ivars[i], cmp, values != nullptr ? values[i] : value)) {
      if (indices != nullptr) indices[found] = i;
      if (i < start) before = std::min(before, i);
      else if (*any == SIZE_MAX) *any = i;
      ++found;
    }
  }
  if (*any == SIZE_MAX) *any = before;
  return found;
}

enum class Want { kAll, kAny, kSome };

// One routine behind wait_until_{all,any,some}[_vector] and test_{all,any,some}[_vector].
template <typename T>
size_t multi(bool wait, Want want, T* ivars, size_t n, size_t* indices, const int* status, int cmp,
             const T* values, T value, const char* call) {
  Cmp c = comparison(cmp, call);
  if (n != 0 && ivars == nullptr) log::fatal("%s: null ivars with %zu elements", call, n);
  lib(call).check_symmetric(ivars, n * sizeof(T), "ivars", call);
  size_t result = want == Want::kAny ? SIZE_MAX : 0;  // nothing satisfied
  Library& l = lib(call);
  const size_t start = want == Want::kAny && n != 0 ? l.any_cursor() % n : 0;
  // The core's polling primitive serves incoming traffic before every scan, tests included.
  poll(wait, [&] {
    size_t any = SIZE_MAX, active = 0;
    size_t found = scan(ivars, n, status, c, values, value, want == Want::kSome ? indices : nullptr, start, &any, &active);
    if (want == Want::kAll) {
      if (found != active) return false;
      result = 1;
    } else if (active != 0) {  // none active: done, nothing satisfied
      if (found == 0) return false;
      result = want == Want::kAny ? any : found;
    }
    return true;
  });
  if (want == Want::kAny && result != SIZE_MAX) l.any_returned(result);
  return result;
}

// ---- memory ----
// shmem_realloc (1.6): a NULL ptr allocates (NULL for 0 bytes, like shmem_malloc(0)); size 0
// frees and returns NULL; otherwise a barrier on entry, so that every PE's puts into the old block
// have landed before its contents move, and the heap's barrier on exit. A block that cannot grow
// stays as it was and NULL is returned on every PE.
void* realloc_block(void* ptr, size_t size, const char* call) {
  lib(call);
  if (ptr == nullptr) return size == 0 ? nullptr : sym_malloc(size, call);
  if (size == 0) {
    sym_free(ptr, call);
    return nullptr;
  }
  barrier_all();
  return sym_realloc(ptr, size, call);
}

// ---- collectives ----
Team& team_of(shmem_team_t t, const char* call) {
  Team& team = lib(call).team(t, call);
  if (team.set.my_rank() < 0) log::fatal("%s: PE %d is not a member of the team", call, my_pe());
  return team;
}

coll::PeSet active_set(int start, int log_stride, int size, long* psync, const char* call) {
  lib(call);
  if (log_stride < 0 || log_stride > 30) log::fatal("%s: logPE_stride %d is out of range", call, log_stride);
  coll::PeSet set = coll::PeSet::strided(start, 1 << log_stride, size, call);
  if (set.my_rank() < 0) {
    log::fatal("%s: PE %d is not in the active set (PE_start %d, logPE_stride %d, PE_size %d)", call,
               my_pe(), start, log_stride, size);
  }
  if (psync == nullptr) log::fatal("%s: pSync is null", call);
  coll::check_sync(reinterpret_cast<int64_t*>(psync), call);  // also where the world's cells serve
  return set;
}

template <typename T>
int team_reduce(shmem_team_t t, T* dest, const T* src, size_t n, coll::ReduceOp op, const char* call) {
  Team& team = team_of(t, call);
  using C = typename Compute<T>::type;
  Library& l = lib(call);
  l.check_symmetric(dest, n * sizeof(T), "destination", call);
  if (l.on_cells(team, n * sizeof(T))) {
    if (n != 0 && !addr_accessible(src, n * sizeof(T), my_pe())) {
      log::fatal("%s: source %p (%zu bytes) is not symmetric memory", call, static_cast<const void*>(src), n * sizeof(T));
    }
    coll::cell_reduce(team.set, l.cell_slot(team), l.cell_wait(), reinterpret_cast<C*>(dest),
                      reinterpret_cast<const C*>(src), n, op, call);
    return 0;
  }
  coll::reduce(team.set, team.sync, reinterpret_cast<C*>(dest), reinterpret_cast<const C*>(src), n, op, call);
  return 0;
}

// 1.6 scans (always the SyncArea algorithm: every member reads the sources of the members below it).
template <typename T>
int team_scan(shmem_team_t t, T* dest, const T* src, size_t n, bool inclusive, const char* call) {
  Team& team = team_of(t, call);
  using C = typename Compute<T>::type;
  lib(call).check_symmetric(dest, n * sizeof(T), "destination", call);
  coll::scan(team.set, team.sync, reinterpret_cast<C*>(dest), reinterpret_cast<const C*>(src), n,
             coll::ReduceOp::kSum, inclusive, call);
  return 0;
}

// The world team when an active set spans every PE and the cells serve that team for `bytes`:
// an active-set collective over the whole job then runs on the world team's cells (every PE calls
// the blocking collectives over the same PEs in the same order, so they share the world team's
// sequence; the user's pSync is checked but not needed, and stays as it was). With `quiet` the
// call must also complete every put and atomic first: only when no backend runs, since a cell
// flag could overtake the same-node traffic a backend still carries (tests/shmem:thread_init).
Team* world_cells_for(const coll::PeSet& set, size_t bytes, bool quiet, const char* call) {
  Library& l = lib(call);
  Team& world = l.team(SHMEM_TEAM_WORLD, call);
  if (set.size() != world.set.size() || set.pe(0) != 0 || (set.size() > 1 && set.pe(1) != 1)) return nullptr;
  if (!l.on_cells(world, bytes) || (quiet && backend_running())) return nullptr;
  return &world;
}

template <typename T>
void to_all(T* dest, const T* src, int n, int start, int log_stride, int size, long* psync,
            coll::ReduceOp op, const char* call) {
  if (n < 0) log::fatal("%s: nreduce %d is negative", call, n);
  coll::PeSet set = active_set(start, log_stride, size, psync, call);
  size_t bytes = static_cast<size_t>(n) * sizeof(T);
  Library& l = lib(call);
  l.check_symmetric(dest, bytes, "destination", call);
  using C = typename Compute<T>::type;
  if (Team* world = world_cells_for(set, bytes, false, call)) {
    if (n != 0 && !addr_accessible(src, bytes, my_pe())) {
      log::fatal("%s: source %p (%zu bytes) is not symmetric memory", call, static_cast<const void*>(src), bytes);
    }
    coll::cell_reduce(world->set, l.cell_slot(*world), l.cell_wait(), reinterpret_cast<C*>(dest),
                      reinterpret_cast<const C*>(src), static_cast<size_t>(n), op, call);
    return;
  }
  coll::reduce(set, reinterpret_cast<int64_t*>(psync), reinterpret_cast<C*>(dest),
               reinterpret_cast<const C*>(src), static_cast<size_t>(n), op, call);
}

// A team sync: the cells when they serve the team, else the SyncArea's dissemination barrier.
void team_sync(Team& t, const char* call) {
  Library& l = lib(call);
  if (!l.on_cells(t, 0)) return coll::barrier(t.set, t.sync, false, call);
  coll::cell_barrier(t.set, l.cell_slot(t), l.cell_wait(), /*releaser=*/-1);
}

int team_broadcast(shmem_team_t t, void* dest, const void* src, size_t bytes, int root, const char* call) {
  Team& team = team_of(t, call);
  Library& l = lib(call);
  l.check_symmetric(dest, bytes, "destination", call);
  if (l.on_cells(team, bytes) && root >= 0 && root < team.set.size()) {
    bool from_me = team.set.my_rank() == root;
    coll::cell_broadcast(team.set, l.cell_slot(team), l.cell_wait(), from_me ? const_cast<void*>(src) : dest, bytes, root);
    if (from_me && dest != src && bytes != 0) std::memmove(dest, src, bytes);
    return 0;
  }
  coll::broadcast(team.set, team.sync, dest, src, bytes, root, true, call);  // (and a bad root's message)
  return 0;
}
int team_collect(bool fixed, shmem_team_t t, void* dest, const void* src, size_t bytes, const char* call) {
  Team& team = team_of(t, call);
  lib(call).check_symmetric(dest, bytes, "destination", call);
  if (fixed) coll::fcollect(team.set, team.sync, dest, src, bytes, call);
  else coll::collect(team.set, team.sync, dest, src, bytes, call);
  return 0;
}
int team_alltoall(shmem_team_t t, void* dest, const void* src, size_t bytes, const char* call) {
  Team& team = team_of(t, call);
  coll::alltoall(team.set, team.sync, dest, src, bytes, call);
  return 0;
}
int team_alltoalls(shmem_team_t t, void* dest, const void* src, ptrdiff_t dst, ptrdiff_t sst,
                   size_t elem, size_t nelems, const char* call) {
  Team& team = team_of(t, call);
  coll::alltoalls(team.set, team.sync, dest, src, dst, sst, elem, nelems, call);
  return 0;
}

}  // namespace
}  // namespace gasket::shmem

using namespace gasket;
using namespace gasket::shmem;

extern "C" {

// ---- setup, exit, query ----
void shmem_init(void) { Library::start(SHMEM_THREAD_SINGLE, "shmem_init"); }
int shmem_init_thread(int requested, int* provided) {
  Library::start(requested, "shmem_init_thread");
  if (provided != nullptr) *provided = Library::get("shmem_init_thread").thread_level();
  return 0;
}
void shmem_query_thread(int* provided) {
  if (provided == nullptr) log::fatal("shmem_query_thread: provided is null");
  *provided = Library::get("shmem_query_thread").thread_level();
}
void shmem_finalize(void) { Library::stop(); }
void shmem_global_exit(int status) {
  char message[64];
  std::snprintf(message, sizeof message, "shmem_global_exit(%d) called", status);
  abort_job(status, message);
}
int shmem_my_pe(void) { return lib("shmem_my_pe"), gasket::my_pe(); }
int shmem_n_pes(void) { return lib("shmem_n_pes"), gasket::n_pes(); }
int shmem_pe_accessible(int pe) { return lib("shmem_pe_accessible"), gasket::pe_accessible(pe) ? 1 : 0; }
int shmem_addr_accessible(const void* addr, int pe) {
  return lib("shmem_addr_accessible"), gasket::addr_accessible(addr, 1, pe) ? 1 : 0;
}
void* shmem_ptr(const void* dest, int pe) {
  lib("shmem_ptr");
  if (pe < 0 || pe >= gasket::n_pes()) return nullptr;
  return peer_pointer(dest, pe);
}
// 1.6: NULL unless `pe` of `team` is reachable by loads and stores from this PE.
void* shmem_team_ptr(shmem_team_t team, const void* dest, int pe) {
  const char* call = "shmem_team_ptr";
  if (team == SHMEM_TEAM_INVALID) return nullptr;
  const Team& t = lib(call).team(team, call);
  if (pe < 0 || pe >= t.set.size()) return nullptr;
  return peer_pointer(dest, t.set.pe(pe));
}
int shmem_query_initialized(int* initialized) {
  if (initialized == nullptr) return -1;
  *initialized = Library::running() ? 1 : 0;
  return 0;
}
void shmem_info_get_version(int* major, int* minor) {
  if (major != nullptr) *major = SHMEM_MAJOR_VERSION;
  if (minor != nullptr) *minor = SHMEM_MINOR_VERSION;
}
void shmem_info_get_name(char* name) {
  if (name != nullptr) std::snprintf(name, SHMEM_MAX_NAME_LEN, "%s", SHMEM_VENDOR_STRING);
}
void shmem_pcontrol(const int, ...) {}  // profiling levels are a hint; gasket has no profiling library of its own
void start_pes(int) { Library::start(SHMEM_THREAD_SINGLE, "start_pes"); }
int _my_pe(void) { return shmem_my_pe(); }
int _num_pes(void) { return shmem_n_pes(); }
int my_pe(void) { return shmem_my_pe(); }
int num_pes(void) { return shmem_n_pes(); }
// The cache-management routines: every machine gasket runs on keeps caches coherent, so there
// is nothing to invalidate or flush; the specification allows them to do nothing.
void shmem_clear_cache_inv(void) {}
void shmem_set_cache_inv(void) {}
void shmem_clear_cache_line_inv(void*) {}
void shmem_set_cache_line_inv(void*) {}
void shmem_udcflush(void) {}
void shmem_udcflush_line(void*) {}

// ---- memory management ----
// A request for no bytes returns NULL on every PE (the same arguments everywhere) with no
// collective step.
void* shmem_malloc(size_t size) { return lib("shmem_malloc"), size == 0 ? nullptr : sym_malloc(size, "shmem_malloc"); }
void* shmem_malloc_with_hints(size_t size, long) {
  return lib("shmem_malloc_with_hints"), size == 0 ? nullptr : sym_malloc(size, "shmem_malloc_with_hints");
}
void* shmem_calloc(size_t count, size_t size) {
  return lib("shmem_calloc"), count == 0 || size == 0 ? nullptr : sym_calloc(count, size, "shmem_calloc");
}
void* shmem_realloc(void* ptr, size_t size) { return realloc_block(ptr, size, "shmem_realloc"); }
void* shmem_align(size_t alignment, size_t size) { return lib("shmem_align"), sym_align(alignment, size, "shmem_align"); }
void shmem_free(void* ptr) { lib("shmem_free"), sym_free(ptr, "shmem_free"); }
void* shmalloc(size_t size) { return lib("shmalloc"), sym_malloc(size, "shmalloc"); }
void shfree(void* ptr) { lib("shfree"), sym_free(ptr, "shfree"); }
void* shrealloc(void* ptr, size_t size) { return realloc_block(ptr, size, "shrealloc"); }
void* shmemalign(size_t alignment, size_t size) { return lib("shmemalign"), sym_align(alignment, size, "shmemalign"); }

// ---- teams ----
int shmem_team_my_pe(shmem_team_t team) {
  if (team == SHMEM_TEAM_INVALID) return -1;
  return lib("shmem_team_my_pe").team(team, "shmem_team_my_pe").set.my_rank();
}
int shmem_team_n_pes(shmem_team_t team) {
  if (team == SHMEM_TEAM_INVALID) return -1;
  return lib("shmem_team_n_pes").team(team, "shmem_team_n_pes").set.size();
}
int shmem_team_get_config(shmem_team_t team, long mask, shmem_team_config_t* config) {
  if (team == SHMEM_TEAM_INVALID) return -1;
  const Team& t = lib("shmem_team_get_config").team(team, "shmem_team_get_config");
  if (config != nullptr && (mask & SHMEM_TEAM_NUM_CONTEXTS)) config->num_contexts = t.config.num_contexts;
  return 0;
}
int shmem_team_translate_pe(shmem_team_t src_team, int src_pe, shmem_team_t dest_team) {
  if (src_team == SHMEM_TEAM_INVALID || dest_team == SHMEM_TEAM_INVALID) return -1;
  Library& l = lib("shmem_team_translate_pe");
  const Team& s = l.team(src_team, "shmem_team_translate_pe");
  const Team& d = l.team(dest_team, "shmem_team_translate_pe");
  if (src_pe < 0 || src_pe >= s.set.size()) return -1;
  return d.set.rank_of(s.set.pe(src_pe));
}
int shmem_team_split_strided(shmem_team_t parent, int start, int stride, int size,
                             const shmem_team_config_t* config, long mask, shmem_team_t* new_team) {
  const char* call = "shmem_team_split_strided";
  if (new_team == nullptr) log::fatal("%s: new_team is null", call);
  Library& l = lib(call);
  *new_team = SHMEM_TEAM_INVALID;
  // Invalid arguments (the same on every parent member) fail the split on every member alike.
  if (parent == SHMEM_TEAM_INVALID) return -1;
  const Team& p = l.team(parent, call);
  int n = p.set.size();
  // 1.6: the stride may be negative (members in descending parent order); with one member it
  // is not used.
  if (size < 1 || start < 0 || start >= n) return -1;
  if (size == 1) stride = 1;
  const int64_t last = static_cast<int64_t>(start) + static_cast<int64_t>(size - 1) * stride;
  if (stride == 0 || last < 0 || last >= n) return -1;
  std::vector<int> ranks;
  int me = p.set.my_rank();
  for (int i = 0; i < size; ++i) ranks.push_back(start + i * stride);
  bool member = me >= 0 && (me - start) % stride == 0 && (me - start) / stride >= 0 && (me - start) / stride < size;
  return l.split(parent, {member ? ranks : std::vector<int>{}}, {(mask & SHMEM_TEAM_NUM_CONTEXTS) ? config : nullptr},
                 {new_team}, call);
}
int shmem_team_split_2d(shmem_team_t parent, int xrange, const shmem_team_config_t* xconfig, long xmask,
                        shmem_team_t* xteam, const shmem_team_config_t* yconfig, long ymask,
                        shmem_team_t* yteam) {
  const char* call = "shmem_team_split_2d";
  if (xteam == nullptr || yteam == nullptr) log::fatal("%s: xaxis_team or yaxis_team is null", call);
  Library& l = lib(call);
  *xteam = *yteam = SHMEM_TEAM_INVALID;
  if (parent == SHMEM_TEAM_INVALID || xrange < 1) return -1;
  const Team& p = l.team(parent, call);
  int n = p.set.size(), me = p.set.my_rank();
  int x = std::min(xrange, n);
  std::vector<int> row, column;
  for (int r = (me / x) * x; r < std::min((me / x) * x + x, n); ++r) row.push_back(r);
  for (int r = me % x; r < n; r += x) column.push_back(r);
  return l.split(parent, {row, column},
                 {(xmask & SHMEM_TEAM_NUM_CONTEXTS) ? xconfig : nullptr, (ymask & SHMEM_TEAM_NUM_CONTEXTS) ? yconfig : nullptr},
                 {xteam, yteam}, call);
}
void shmem_team_destroy(shmem_team_t team) { lib("shmem_team_destroy").destroy_team(team, "shmem_team_destroy"); }

// ---- contexts ----
int shmem_ctx_create(long options, shmem_ctx_t* ctx) {
  return lib("shmem_ctx_create").create_context(0, options, ctx, "shmem_ctx_create");
}
int shmem_team_create_ctx(shmem_team_t team, long options, shmem_ctx_t* ctx) {
  const char* call = "shmem_team_create_ctx";
  Library& l = lib(call);
  if (team == SHMEM_TEAM_INVALID) {
    if (ctx != nullptr) *ctx = SHMEM_CTX_INVALID;
    return -1;
  }
  if (l.team(team, call).set.my_rank() < 0) log::fatal("%s: PE %d is not a member of the team", call, gasket::my_pe());
  return l.create_context(static_cast<int>(reinterpret_cast<uintptr_t>(team) - 1), options, ctx, call);
}
void shmem_ctx_destroy(shmem_ctx_t ctx) {
  if (ctx != SHMEM_CTX_INVALID) lib("shmem_ctx_destroy").destroy_context(ctx, "shmem_ctx_destroy");  // else no operation
}
int shmem_ctx_get_team(shmem_ctx_t ctx, shmem_team_t* team) {
  if (team == nullptr) return -1;
  if (ctx == SHMEM_CTX_INVALID) {
    *team = SHMEM_TEAM_INVALID;
    return -1;
  }
  *team = lib("shmem_ctx_get_team").context_team(ctx, "shmem_ctx_get_team");
  return 0;
}

// Sessions (1.6): hints only, every operation is issued at once; the standard's return codes.
int shmem_ctx_session_start(shmem_ctx_t ctx, long options, const shmem_session_config_t* config, long mask) {
  const char* call = "shmem_ctx_session_start";
  Library& l = lib(call);
  if (ctx == SHMEM_CTX_INVALID) return -1;
  if ((options & ~SHMEM_SESSION_SAME_AMO) != 0 || (mask & ~SHMEM_SESSION_TOTAL_OPS) != 0) return -1;
  if ((mask & SHMEM_SESSION_TOTAL_OPS) != 0 && (config == nullptr || config->total_ops < 0)) return -1;
  return l.open_session(ctx, call) ? 0 : -1;
}
void shmem_ctx_session_stop(shmem_ctx_t ctx) {
  if (ctx != SHMEM_CTX_INVALID) lib("shmem_ctx_session_stop").close_session(ctx, "shmem_ctx_session_stop");
}
void shmem_session_start(shmem_ctx_t ctx, long options, const shmem_session_config_t* config, long mask) {
  (void)shmem_ctx_session_start(ctx, options, config, mask);
}
void shmem_session_stop(shmem_ctx_t ctx) { shmem_ctx_session_stop(ctx); }

// ---- RMA ----
#define GASKET_RMA(T, N)                                                                          \
  void shmem_ctx_##N##_put(shmem_ctx_t c, T* d, const T* s, size_t n, int pe) {                  \
    put_bytes(c, d, s, checked_bytes(n, sizeof(T), "shmem_" #N "_put"), pe, "shmem_" #N "_put"); \
  }                                                                                              \
  void shmem_##N##_put(T* d, const T* s, size_t n, int pe) { shmem_ctx_##N##_put(SHMEM_CTX_DEFAULT, d, s, n, pe); } \
  void shmem_ctx_##N##_get(shmem_ctx_t c, T* d, const T* s, size_t n, int pe) {                  \
    get_bytes(c, d, s, checked_bytes(n, sizeof(T), "shmem_" #N "_get"), pe, "shmem_" #N "_get"); \
  }                                                                                              \
  void shmem_##N##_get(T* d, const T* s, size_t n, int pe) { shmem_ctx_##N##_get(SHMEM_CTX_DEFAULT, d, s, n, pe); } \
  void shmem_ctx_##N##_put_nbi(shmem_ctx_t c, T* d, const T* s, size_t n, int pe) {              \
    put_bytes_nbi(c, d, s, checked_bytes(n, sizeof(T), "shmem_" #N "_put_nbi"), pe, "shmem_" #N "_put_nbi"); \
  }                                                                                              \
  void shmem_##N##_put_nbi(T* d, const T* s, size_t n, int pe) { shmem_ctx_##N##_put_nbi(SHMEM_CTX_DEFAULT, d, s, n, pe); } \
  void shmem_ctx_##N##_get_nbi(shmem_ctx_t c, T* d, const T* s, size_t n, int pe) {              \
    get_bytes_nbi(c, d, s, checked_bytes(n, sizeof(T), "shmem_" #N "_get_nbi"), pe, "shmem_" #N "_get_nbi"); \
  }                                                                                              \
  void shmem_##N##_get_nbi(T* d, const T* s, size_t n, int pe) { shmem_ctx_##N##_get_nbi(SHMEM_CTX_DEFAULT, d, s, n, pe); } \
  void shmem_ctx_##N##_p(shmem_ctx_t c, T* d, T v, int pe) { put_bytes(c, d, &v, sizeof(T), pe, "shmem_" #N "_p"); } \
  void shmem_##N##_p(T* d, T v, int pe) { put_bytes(SHMEM_CTX_DEFAULT, d, &v, sizeof(T), pe, "shmem_" #N "_p"); } \
  T shmem_ctx_##N##_g(shmem_ctx_t c, const T* s, int pe) {                                       \
    T v;                                                                                         \
    get_bytes(c, &v, s, sizeof(T), pe, "shmem_" #N "_g");                                        \
    return v;                                                                                    \
  }                                                                                              \
  T shmem_##N##_g(const T* s, int pe) { return shmem_ctx_##N##_g(SHMEM_CTX_DEFAULT, s, pe); }    \
  void shmem_ctx_##N##_iput(shmem_ctx_t c, T* d, const T* s, ptrdiff_t dst, ptrdiff_t sst, size_t n, int pe) { \
    strided(true, c, d, s, dst, sst, sizeof(T), 1, n, pe, "shmem_" #N "_iput");                     \
  }                                                                                              \
  void shmem_##N##_iput(T* d, const T* s, ptrdiff_t dst, ptrdiff_t sst, size_t n, int pe) {      \
    strided(true, SHMEM_CTX_DEFAULT, d, s, dst, sst, sizeof(T), 1, n, pe, "shmem_" #N "_iput");     \
  }                                                                                              \
  void shmem_ctx_##N##_iget(shmem_ctx_t c, T* d, const T* s, ptrdiff_t dst, ptrdiff_t sst, size_t n, int pe) { \
    strided(false, c, d, s, dst, sst, sizeof(T), 1, n, pe, "shmem_" #N "_iget");                    \
  }                                                                                              \
  void shmem_##N##_iget(T* d, const T* s, ptrdiff_t dst, ptrdiff_t sst, size_t n, int pe) {      \
    strided(false, SHMEM_CTX_DEFAULT, d, s, dst, sst, sizeof(T), 1, n, pe, "shmem_" #N "_iget");    \
  }                                                                                              \
  void shmem_ctx_##N##_put_signal(shmem_ctx_t c, T* d, const T* s, size_t n, uint64_t* sa, uint64_t sv, int op, int pe) { \
    put_signal(c, d, s, checked_bytes(n, sizeof(T), "shmem_" #N "_put_signal"), sa, sv, op, pe, "shmem_" #N "_put_signal"); \
  }                                                                                              \
  void shmem_##N##_put_signal(T* d, const T* s, size_t n, uint64_t* sa, uint64_t sv, int op, int pe) { \
    put_signal(SHMEM_CTX_DEFAULT, d, s, checked_bytes(n, sizeof(T), "shmem_" #N "_put_signal"), sa, sv, op, pe, "shmem_" #N "_put_signal"); \
  }                                                                                              \
  void shmem_ctx_##N##_put_signal_nbi(shmem_ctx_t c, T* d, const T* s, size_t n, uint64_t* sa, uint64_t sv, int op, int pe) { \
    put_signal(c, d, s, checked_bytes(n, sizeof(T), "shmem_" #N "_put_signal_nbi"), sa, sv, op, pe, "shmem_" #N "_put_signal_nbi"); \
  }                                                                                              \
  void shmem_##N##_put_signal_nbi(T* d, const T* s, size_t n, uint64_t* sa, uint64_t sv, int op, int pe) { \
    put_signal(SHMEM_CTX_DEFAULT, d, s, checked_bytes(n, sizeof(T), "shmem_" #N "_put_signal_nbi"), sa, sv, op, pe, "shmem_" #N "_put_signal_nbi"); \
  }
SHMEM_GASKET_RMA_TYPES(GASKET_RMA)

// Blocked strided (1.6): shmem_<N>_ibput/ibget (typed, T* arguments) and shmem_ibput<B>/ibget<B>
// (sized, void* arguments), each with its ctx form.
#define GASKET_BLOCKED(PTR, CPTR, ELEM, PLAIN, CTX, IS_PUT, CALL)                                 \
  void CTX(shmem_ctx_t c, PTR d, CPTR s, ptrdiff_t dst, ptrdiff_t sst, size_t bs, size_t nb, int pe) { \
    strided(IS_PUT, c, d, s, dst, sst, ELEM, bs, nb, pe, CALL);                                  \
  }                                                                                              \
  void PLAIN(PTR d, CPTR s, ptrdiff_t dst, ptrdiff_t sst, size_t bs, size_t nb, int pe) {        \
    strided(IS_PUT, SHMEM_CTX_DEFAULT, d, s, dst, sst, ELEM, bs, nb, pe, CALL);                  \
  }
#define GASKET_TYPED_BLOCKED(T, N)                                                               \
  GASKET_BLOCKED(T*, const T*, sizeof(T), shmem_##N##_ibput, shmem_ctx_##N##_ibput, true, "shmem_" #N "_ibput") \
  GASKET_BLOCKED(T*, const T*, sizeof(T), shmem_##N##_ibget, shmem_ctx_##N##_ibget, false, "shmem_" #N "_ibget")
SHMEM_GASKET_RMA_TYPES(GASKET_TYPED_BLOCKED)
#define GASKET_SIZED_BLOCKED(B)                                                                  \
  GASKET_BLOCKED(void*, const void*, B / 8, shmem_ibput##B, shmem_ctx_ibput##B, true, "shmem_ibput" #B) \
  GASKET_BLOCKED(void*, const void*, B / 8, shmem_ibget##B, shmem_ctx_ibget##B, false, "shmem_ibget" #B)
SHMEM_GASKET_SIZES(GASKET_SIZED_BLOCKED)

// Sized and mem forms: the same routines with an element size instead of a type.
#define GASKET_SIZED_FORMS(NAME, ELEM)                                                             \
  void shmem_ctx_put##NAME(shmem_ctx_t c, void* d, const void* s, size_t n, int pe) {            \
    put_bytes(c, d, s, checked_bytes(n, ELEM, "shmem_put" #NAME), pe, "shmem_put" #NAME);        \
  }                                                                                              \
  void shmem_put##NAME(void* d, const void* s, size_t n, int pe) { shmem_ctx_put##NAME(SHMEM_CTX_DEFAULT, d, s, n, pe); } \
  void shmem_ctx_get##NAME(shmem_ctx_t c, void* d, const void* s, size_t n, int pe) {            \
    get_bytes(c, d, s, checked_bytes(n, ELEM, "shmem_get" #NAME), pe, "shmem_get" #NAME);        \
  }                                                                                              \
  void shmem_get##NAME(void* d, const void* s, size_t n, int pe) { shmem_ctx_get##NAME(SHMEM_CTX_DEFAULT, d, s, n, pe); } \
  void shmem_ctx_put##NAME##_nbi(shmem_ctx_t c, void* d, const void* s, size_t n, int pe) {      \
    put_bytes_nbi(c, d, s, checked_bytes(n, ELEM, "shmem_put" #NAME "_nbi"), pe, "shmem_put" #NAME "_nbi"); \
  }                                                                                              \
  void shmem_put##NAME##_nbi(void* d, const void* s, size_t n, int pe) { shmem_ctx_put##NAME##_nbi(SHMEM_CTX_DEFAULT, d, s, n, pe); } \
  void shmem_ctx_get##NAME##_nbi(shmem_ctx_t c, void* d, const void* s, size_t n, int pe) {      \
    get_bytes_nbi(c, d, s, checked_bytes(n, ELEM, "shmem_get" #NAME "_nbi"), pe, "shmem_get" #NAME "_nbi"); \
  }                                                                                              \
  void shmem_get##NAME##_nbi(void* d, const void* s, size_t n, int pe) { shmem_ctx_get##NAME##_nbi(SHMEM_CTX_DEFAULT, d, s, n, pe); } \
  void shmem_ctx_put##NAME##_signal(shmem_ctx_t c, void* d, const void* s, size_t n, uint64_t* sa, uint64_t sv, int op, int pe) { \
    put_signal(c, d, s, checked_bytes(n, ELEM, "shmem_put" #NAME "_signal"), sa, sv, op, pe, "shmem_put" #NAME "_signal"); \
  }                                                                                              \
  void shmem_put##NAME##_signal(void* d, const void* s, size_t n, uint64_t* sa, uint64_t sv, int op, int pe) { \
    shmem_ctx_put##NAME##_signal(SHMEM_CTX_DEFAULT, d, s, n, sa, sv, op, pe);                    \
  }                                                                                              \
  void shmem_ctx_put##NAME##_signal_nbi(shmem_ctx_t c, void* d, const void* s, size_t n, uint64_t* sa, uint64_t sv, int op, int pe) { \
    put_signal(c, d, s, checked_bytes(n, ELEM, "shmem_put" #NAME "_signal_nbi"), sa, sv, op, pe, "shmem_put" #NAME "_signal_nbi"); \
  }                                                                                              \
  void shmem_put##NAME##_signal_nbi(void* d, const void* s, size_t n, uint64_t* sa, uint64_t sv, int op, int pe) { \
    shmem_ctx_put##NAME##_signal_nbi(SHMEM_CTX_DEFAULT, d, s, n, sa, sv, op, pe);                \
  }
#define GASKET_SIZED(B)                                                                          \
  GASKET_SIZED_FORMS(B, B / 8)                                                                   \
  void shmem_ctx_iput##B(shmem_ctx_t c, void* d, const void* s, ptrdiff_t dst, ptrdiff_t sst, size_t n, int pe) { \
    strided(true, c, d, s, dst, sst, B / 8, 1, n, pe, "shmem_iput" #B);                             \
  }                                                                                              \
  void shmem_iput##B(void* d, const void* s, ptrdiff_t dst, ptrdiff_t sst, size_t n, int pe) {   \
    strided(true, SHMEM_CTX_DEFAULT, d, s, dst, sst, B / 8, 1, n, pe, "shmem_iput" #B);             \
  }                                                                                              \
  void shmem_ctx_iget##B(shmem_ctx_t c, void* d, const void* s, ptrdiff_t dst, ptrdiff_t sst, size_t n, int pe) { \
    strided(false, c, d, s, dst, sst, B / 8, 1, n, pe, "shmem_iget" #B);                            \
  }                                                                                              \
  void shmem_iget##B(void* d, const void* s, ptrdiff_t dst, ptrdiff_t sst, size_t n, int pe) {   \
    strided(false, SHMEM_CTX_DEFAULT, d, s, dst, sst, B / 8, 1, n, pe, "shmem_iget" #B);            \
  }
SHMEM_GASKET_SIZES(GASKET_SIZED)
GASKET_SIZED_FORMS(mem, 1)

uint64_t shmem_signal_fetch(const uint64_t* sig_addr) {
  lib("shmem_signal_fetch").check_symmetric(sig_addr, sizeof(uint64_t), "signal", "shmem_signal_fetch");
  return __atomic_load_n(sig_addr, __ATOMIC_ACQUIRE);
}
// 1.6 signal updates without a put: the same atomic the put_signal family ends with.
void shmem_ctx_signal_add(shmem_ctx_t c, uint64_t* sig_addr, uint64_t signal, int pe) {
  atomic_add(sig_addr, signal, lib("shmem_signal_add").target_pe(c, pe, "shmem_signal_add"), "shmem_signal_add");
}
void shmem_signal_add(uint64_t* sig_addr, uint64_t signal, int pe) { shmem_ctx_signal_add(SHMEM_CTX_DEFAULT, sig_addr, signal, pe); }
void shmem_ctx_signal_set(shmem_ctx_t c, uint64_t* sig_addr, uint64_t signal, int pe) {
  atomic_set(sig_addr, signal, lib("shmem_signal_set").target_pe(c, pe, "shmem_signal_set"), "shmem_signal_set");
}
void shmem_signal_set(uint64_t* sig_addr, uint64_t signal, int pe) { shmem_ctx_signal_set(SHMEM_CTX_DEFAULT, sig_addr, signal, pe); }
uint64_t shmem_signal_wait_until(uint64_t* sig_addr, int cmp, uint64_t value) {
  wait_one(sig_addr, cmp, value, "shmem_signal_wait_until");
  return __atomic_load_n(sig_addr, __ATOMIC_ACQUIRE);
}

// ---- atomics ----
#define GASKET_AMO_FETCHING(T, N, NAME, OP, ARGS, VALUE, COND)                                      \
  T shmem_ctx_##N##_atomic_##NAME(shmem_ctx_t c, T* d ARGS, int pe) {                            \
    return amo<T>(c, d, AtomicOp::OP, VALUE, COND, pe, "shmem_" #N "_atomic_" #NAME);             \
  }                                                                                              \
  T shmem_##N##_atomic_##NAME(T* d ARGS, int pe) {                                               \
    return amo<T>(SHMEM_CTX_DEFAULT, d, AtomicOp::OP, VALUE, COND, pe, "shmem_" #N "_atomic_" #NAME); \
  }                                                                                              \
  void shmem_ctx_##N##_atomic_##NAME##_nbi(shmem_ctx_t c, T* f, T* d ARGS, int pe) {             \
    amo_nbi<T>(c, f, d, AtomicOp::OP, VALUE, COND, pe, "shmem_" #N "_atomic_" #NAME "_nbi");      \
  }                                                                                              \
  void shmem_##N##_atomic_##NAME##_nbi(T* f, T* d ARGS, int pe) {                                \
    amo_nbi<T>(SHMEM_CTX_DEFAULT, f, d, AtomicOp::OP, VALUE, COND, pe, "shmem_" #N "_atomic_" #NAME "_nbi"); \
  }
#define GASKET_AMO_PLAIN(T, N, NAME, OP, ARGS, VALUE)                                               \
  void shmem_ctx_##N##_atomic_##NAME(shmem_ctx_t c, T* d ARGS, int pe) {                         \
    amo<T>(c, d, AtomicOp::OP, VALUE, static_cast<T>(0), pe, "shmem_" #N "_atomic_" #NAME);                     \
  }                                                                                              \
  void shmem_##N##_atomic_##NAME(T* d ARGS, int pe) {                                            \
    amo<T>(SHMEM_CTX_DEFAULT, d, AtomicOp::OP, VALUE, static_cast<T>(0), pe, "shmem_" #N "_atomic_" #NAME);     \
  }
#define GASKET_COMMA ,
#define GASKET_AMO(T, N)                                                                          \
  GASKET_AMO_FETCHING(T, N, fetch_inc, kFetchAdd, , static_cast<T>(1), static_cast<T>(0))                                   \
  GASKET_AMO_PLAIN(T, N, inc, kAdd, , static_cast<T>(1))                                                      \
  GASKET_AMO_FETCHING(T, N, fetch_add, kFetchAdd, GASKET_COMMA T v, v, static_cast<T>(0))                      \
  GASKET_AMO_PLAIN(T, N, add, kAdd, GASKET_COMMA T v, v)                                         \
  GASKET_AMO_FETCHING(T, N, compare_swap, kCompareSwap, GASKET_COMMA T cond GASKET_COMMA T v, v, cond) \
  T shmem_##N##_finc(T* d, int pe) { return amo<T>(SHMEM_CTX_DEFAULT, d, AtomicOp::kFetchAdd, static_cast<T>(1), static_cast<T>(0), pe, "shmem_" #N "_finc"); } \
  T shmem_##N##_fadd(T* d, T v, int pe) { return amo<T>(SHMEM_CTX_DEFAULT, d, AtomicOp::kFetchAdd, v, static_cast<T>(0), pe, "shmem_" #N "_fadd"); } \
  T shmem_##N##_cswap(T* d, T cond, T v, int pe) { return amo<T>(SHMEM_CTX_DEFAULT, d, AtomicOp::kCompareSwap, v, cond, pe, "shmem_" #N "_cswap"); } \
  void shmem_##N##_inc(T* d, int pe) { amo<T>(SHMEM_CTX_DEFAULT, d, AtomicOp::kAdd, static_cast<T>(1), static_cast<T>(0), pe, "shmem_" #N "_inc"); } \
  void shmem_##N##_add(T* d, T v, int pe) { amo<T>(SHMEM_CTX_DEFAULT, d, AtomicOp::kAdd, v, static_cast<T>(0), pe, "shmem_" #N "_add"); }
SHMEM_GASKET_AMO_TYPES(GASKET_AMO)

#define GASKET_AMO_EXT(T, N)                                                                      \
  T shmem_ctx_##N##_atomic_fetch(shmem_ctx_t c, const T* s, int pe) {                            \
    return amo<T>(c, const_cast<T*>(s), AtomicOp::kFetch, static_cast<T>(0), static_cast<T>(0), pe, "shmem_" #N "_atomic_fetch"); \
  }                                                                                              \
  T shmem_##N##_atomic_fetch(const T* s, int pe) { return shmem_ctx_##N##_atomic_fetch(SHMEM_CTX_DEFAULT, s, pe); } \
  void shmem_ctx_##N##_atomic_fetch_nbi(shmem_ctx_t c, T* f, const T* s, int pe) {             \
    amo_nbi<T>(c, f, const_cast<T*>(s), AtomicOp::kFetch, static_cast<T>(0), static_cast<T>(0), pe, "shmem_" #N "_atomic_fetch_nbi"); \
  }                                                                                              \
  void shmem_##N##_atomic_fetch_nbi(T* f, const T* s, int pe) { shmem_ctx_##N##_atomic_fetch_nbi(SHMEM_CTX_DEFAULT, f, s, pe); } \
  GASKET_AMO_PLAIN(T, N, set, kSet, GASKET_COMMA T v, v)                                         \
  GASKET_AMO_FETCHING(T, N, swap, kSwap, GASKET_COMMA T v, v, static_cast<T>(0))                               \
  T shmem_##N##_fetch(const T* s, int pe) { return amo<T>(SHMEM_CTX_DEFAULT, const_cast<T*>(s), AtomicOp::kFetch, static_cast<T>(0), static_cast<T>(0), pe, "shmem_" #N "_fetch"); } \
  void shmem_##N##_set(T* d, T v, int pe) { amo<T>(SHMEM_CTX_DEFAULT, d, AtomicOp::kSet, v, static_cast<T>(0), pe, "shmem_" #N "_set"); } \
  T shmem_##N##_swap(T* d, T v, int pe) { return amo<T>(SHMEM_CTX_DEFAULT, d, AtomicOp::kSwap, v, static_cast<T>(0), pe, "shmem_" #N "_swap"); }
SHMEM_GASKET_AMO_EXT_TYPES(GASKET_AMO_EXT)

#define GASKET_AMO_BIT(T, N)                                                                      \
  GASKET_AMO_FETCHING(T, N, fetch_and, kFetchAnd, GASKET_COMMA T v, v, static_cast<T>(0))                      \
  GASKET_AMO_PLAIN(T, N, and, kAnd, GASKET_COMMA T v, v)                                         \
  GASKET_AMO_FETCHING(T, N, fetch_or, kFetchOr, GASKET_COMMA T v, v, static_cast<T>(0))                        \
  GASKET_AMO_PLAIN(T, N, or, kOr, GASKET_COMMA T v, v)                                           \
  GASKET_AMO_FETCHING(T, N, fetch_xor, kFetchXor, GASKET_COMMA T v, v, static_cast<T>(0))                      \
  GASKET_AMO_PLAIN(T, N, xor, kXor, GASKET_COMMA T v, v)
SHMEM_GASKET_AMO_BIT_TYPES(GASKET_AMO_BIT)

// ---- point-to-point synchronisation ----
#define GASKET_P2P(T, N)                                                                          \
  void shmem_##N##_wait_until(T* v, int cmp, T value) { wait_one(v, cmp, value, "shmem_" #N "_wait_until"); } \
  void shmem_##N##_wait(T* v, T value) { wait_one(v, SHMEM_CMP_NE, value, "shmem_" #N "_wait"); } \
  void shmem_##N##_wait_until_all(T* v, size_t n, const int* st, int cmp, T value) {             \
    multi<T>(true, Want::kAll, v, n, nullptr, st, cmp, nullptr, value, "shmem_" #N "_wait_until_all"); \
  }                                                                                              \
  size_t shmem_##N##_wait_until_any(T* v, size_t n, const int* st, int cmp, T value) {           \
    return multi<T>(true, Want::kAny, v, n, nullptr, st, cmp, nullptr, value, "shmem_" #N "_wait_until_any"); \
  }                                                                                              \
  size_t shmem_##N##_wait_until_some(T* v, size_t n, size_t* idx, const int* st, int cmp, T value) { \
    return multi<T>(true, Want::kSome, v, n, idx, st, cmp, nullptr, value, "shmem_" #N "_wait_until_some"); \
  }                                                                                              \
  void shmem_##N##_wait_until_all_vector(T* v, size_t n, const int* st, int cmp, T* values) {    \
    multi<T>(true, Want::kAll, v, n, nullptr, st, cmp, values, static_cast<T>(0), "shmem_" #N "_wait_until_all_vector"); \
  }                                                                                              \
  size_t shmem_##N##_wait_until_any_vector(T* v, size_t n, const int* st, int cmp, T* values) {  \
    return multi<T>(true, Want::kAny, v, n, nullptr, st, cmp, values, static_cast<T>(0), "shmem_" #N "_wait_until_any_vector"); \
  }                                                                                              \
  size_t shmem_##N##_wait_until_some_vector(T* v, size_t n, size_t* idx, const int* st, int cmp, T* values) { \
    return multi<T>(true, Want::kSome, v, n, idx, st, cmp, values, static_cast<T>(0), "shmem_" #N "_wait_until_some_vector"); \
  }                                                                                              \
  int shmem_##N##_test(T* v, int cmp, T value) {                                                 \
    lib("shmem_" #N "_test").check_symmetric(v, sizeof(T), "ivar", "shmem_" #N "_test");         \
    progress();                                                                                  \
    return satisfied(v, comparison(cmp, "shmem_" #N "_test"), value) ? 1 : 0;                    \
  }                                                                                              \
  int shmem_##N##_test_all(T* v, size_t n, const int* st, int cmp, T value) {                    \
    return static_cast<int>(multi<T>(false, Want::kAll, v, n, nullptr, st, cmp, nullptr, value, "shmem_" #N "_test_all")); \
  }                                                                                              \
  size_t shmem_##N##_test_any(T* v, size_t n, const int* st, int cmp, T value) {                 \
    return multi<T>(false, Want::kAny, v, n, nullptr, st, cmp, nullptr, value, "shmem_" #N "_test_any"); \
  }                                                                                              \
  size_t shmem_##N##_test_some(T* v, size_t n, size_t* idx, const int* st, int cmp, T value) {   \
    return multi<T>(false, Want::kSome, v, n, idx, st, cmp, nullptr, value, "shmem_" #N "_test_some"); \
  }                                                                                              \
  int shmem_##N##_test_all_vector(T* v, size_t n, const int* st, int cmp, T* values) {           \
    return static_cast<int>(multi<T>(false, Want::kAll, v, n, nullptr, st, cmp, values, static_cast<T>(0), "shmem_" #N "_test_all_vector")); \
  }                                                                                              \
  size_t shmem_##N##_test_any_vector(T* v, size_t n, const int* st, int cmp, T* values) {        \
    return multi<T>(false, Want::kAny, v, n, nullptr, st, cmp, values, static_cast<T>(0), "shmem_" #N "_test_any_vector"); \
  }                                                                                              \
  size_t shmem_##N##_test_some_vector(T* v, size_t n, size_t* idx, const int* st, int cmp, T* values) { \
    return multi<T>(false, Want::kSome, v, n, idx, st, cmp, values, static_cast<T>(0), "shmem_" #N "_test_some_vector"); \
  }
SHMEM_GASKET_P2P_TYPES(GASKET_P2P)
void shmem_wait_until(long* v, int cmp, long value) { wait_one(v, cmp, value, "shmem_wait_until"); }
void shmem_wait(long* v, long value) { wait_one(v, SHMEM_CMP_NE, value, "shmem_wait"); }

// ---- ordering ----
void shmem_fence(void) { lib("shmem_fence"), fence(); }
// On SHMEM_CTX_INVALID, ctx_fence, ctx_quiet and ctx_pe_quiet do nothing (OpenSHMEM 1.5 9.5).
void shmem_ctx_fence(shmem_ctx_t c) {
  if (c != SHMEM_CTX_INVALID) lib("shmem_ctx_fence").context(c, "shmem_ctx_fence"), fence();
}
void shmem_quiet(void) { lib("shmem_quiet"), quiet(); }
void shmem_ctx_quiet(shmem_ctx_t c) {
  if (c != SHMEM_CTX_INVALID) lib("shmem_ctx_quiet").context(c, "shmem_ctx_quiet"), quiet();
}
// 1.6: completes the operations to the listed PEs (numbered in the context's team). Every context
// shares the PE's one ordering domain, so this is as strong as a quiet, which the standard allows.
void shmem_ctx_pe_quiet(shmem_ctx_t c, const int* target_pes, size_t npes) {
  const char* call = "shmem_pe_quiet";
  if (c == SHMEM_CTX_INVALID) return;
  Library& l = lib(call);
  if (npes != 0 && target_pes == nullptr) log::fatal("%s: null target_pes with %zu PEs", call, npes);
  for (size_t i = 0; i < npes; ++i) {
    int pe = l.target_pe(c, target_pes[i], call);
    if (pe < 0 || pe >= gasket::n_pes()) {
      log::fatal("%s: target_pes[%zu] = %d is out of range: the job has %d PEs", call, i, target_pes[i], gasket::n_pes());
    }
  }
  if (npes != 0) quiet();
}
void shmem_pe_quiet(const int* target_pes, size_t npes) { shmem_ctx_pe_quiet(SHMEM_CTX_DEFAULT, target_pes, npes); }

// ---- locks: a ticket lock held on PE 0 (next ticket in the high 32 bits, now serving in the
// low 32 bits), so waiters are served in arrival order (no starvation). ----
}  // extern "C" (helpers below have internal linkage, not C linkage)
namespace {
constexpr uint64_t kTicket = uint64_t{1} << 32;
uint64_t* lock_word(long* lock, const char* call) {
  lib(call);
  if (lock == nullptr || reinterpret_cast<uintptr_t>(lock) % sizeof(uint64_t) != 0) {
    log::fatal("%s: lock %p is null or not 8-byte aligned", call, static_cast<void*>(lock));
  }
  return reinterpret_cast<uint64_t*>(lock);
}
}  // namespace
extern "C" {
void shmem_set_lock(long* lock) {
  uint64_t* word = lock_word(lock, "shmem_set_lock");
  uint32_t ticket = static_cast<uint32_t>(atomic_fetch_add(word, kTicket, 0, "shmem_set_lock") >> 32);
  unsigned polls = 0;
  while (static_cast<uint32_t>(atomic_fetch(word, 0, "shmem_set_lock")) != ticket) detail::wait_step(&polls);
}
int shmem_test_lock(long* lock) {
  uint64_t* word = lock_word(lock, "shmem_test_lock");
  uint64_t v = atomic_fetch(word, 0, "shmem_test_lock");
  if (static_cast<uint32_t>(v >> 32) != static_cast<uint32_t>(v)) return 1;  // held or waited for
  return atomic_compare_swap(word, v, v + kTicket, 0, "shmem_test_lock") == v ? 0 : 1;
}
void shmem_clear_lock(long* lock) {
  uint64_t* word = lock_word(lock, "shmem_clear_lock");
  quiet();  // what the holder wrote is visible before the next holder enters
  // Serving + 1 within the low half (no carry into the ticket half on wrap-around).
  uint64_t v = atomic_fetch(word, 0, "shmem_clear_lock");
  for (;;) {
    uint64_t next = (v & ~(kTicket - 1)) | static_cast<uint32_t>(static_cast<uint32_t>(v) + 1);
    uint64_t old = atomic_compare_swap(word, v, next, 0, "shmem_clear_lock");
    if (old == v) break;
    v = old;
  }
}

// ---- collectives ----
// A barrier over every PE from 3 PEs on: a quiet, then the world team's cells when no backend
// runs (world_cells_for). The core's dissemination barrier waits once per round, each wait a
// doorbell nap when oversubscribed: 34-44 us at 4 PEs on 2 cores against 3 us on the cells. At
// 2 PEs it is one round, one wait, and cheaper than the cells (0.27 against 0.5 us).
Team* barrier_cells_for(const coll::PeSet& set, const char* call) {
  return set.size() > 2 ? world_cells_for(set, 0, true, call) : nullptr;
}

void shmem_barrier_all(void) {
  Team& world = lib("shmem_barrier_all").team(SHMEM_TEAM_WORLD, "shmem_barrier_all");
  if (barrier_cells_for(world.set, "shmem_barrier_all") == nullptr) return barrier_all();
  quiet();
  team_sync(world, "shmem_barrier_all");
}
void shmem_sync_all(void) { team_sync(lib("shmem_sync_all").team(SHMEM_TEAM_WORLD, "shmem_sync_all"), "shmem_sync_all"); }
int shmem_team_sync(shmem_team_t team) {
  team_sync(team_of(team, "shmem_team_sync"), "shmem_team_sync");
  return 0;
}
void shmem_barrier(int start, int log_stride, int size, long* psync) {
  coll::PeSet set = active_set(start, log_stride, size, psync, "shmem_barrier");
  if (Team* world = barrier_cells_for(set, "shmem_barrier")) {
    quiet();
    return team_sync(*world, "shmem_barrier");
  }
  coll::barrier(set, reinterpret_cast<int64_t*>(psync), true, "shmem_barrier");
}
void shmem_sync(int start, int log_stride, int size, long* psync) {
  coll::PeSet set = active_set(start, log_stride, size, psync, "shmem_sync");
  if (Team* world = world_cells_for(set, 0, false, "shmem_sync")) return team_sync(*world, "shmem_sync");
  coll::barrier(set, reinterpret_cast<int64_t*>(psync), false, "shmem_sync");
}
int shmem_broadcastmem(shmem_team_t t, void* d, const void* s, size_t n, int root) {
  return team_broadcast(t, d, s, n, root, "shmem_broadcastmem");
}
int shmem_collectmem(shmem_team_t t, void* d, const void* s, size_t n) { return team_collect(false, t, d, s, n, "shmem_collectmem"); }
int shmem_fcollectmem(shmem_team_t t, void* d, const void* s, size_t n) { return team_collect(true, t, d, s, n, "shmem_fcollectmem"); }
int shmem_alltoallmem(shmem_team_t t, void* d, const void* s, size_t n) { return team_alltoall(t, d, s, n, "shmem_alltoallmem"); }
int shmem_alltoallsmem(shmem_team_t t, void* d, const void* s, ptrdiff_t dst, ptrdiff_t sst, size_t n) {
  return team_alltoalls(t, d, s, dst, sst, 1, n, "shmem_alltoallsmem");
}
#define GASKET_COLL(T, N)                                                                         \
  int shmem_##N##_broadcast(shmem_team_t t, T* d, const T* s, size_t n, int root) {              \
    return team_broadcast(t, d, s, checked_bytes(n, sizeof(T), "shmem_" #N "_broadcast"), root, "shmem_" #N "_broadcast"); \
  }                                                                                              \
  int shmem_##N##_collect(shmem_team_t t, T* d, const T* s, size_t n) {                          \
    return team_collect(false, t, d, s, checked_bytes(n, sizeof(T), "shmem_" #N "_collect"), "shmem_" #N "_collect"); \
  }                                                                                              \
  int shmem_##N##_fcollect(shmem_team_t t, T* d, const T* s, size_t n) {                         \
    return team_collect(true, t, d, s, checked_bytes(n, sizeof(T), "shmem_" #N "_fcollect"), "shmem_" #N "_fcollect"); \
  }                                                                                              \
  int shmem_##N##_alltoall(shmem_team_t t, T* d, const T* s, size_t n) {                         \
    return team_alltoall(t, d, s, checked_bytes(n, sizeof(T), "shmem_" #N "_alltoall"), "shmem_" #N "_alltoall"); \
  }                                                                                              \
  int shmem_##N##_alltoalls(shmem_team_t t, T* d, const T* s, ptrdiff_t dst, ptrdiff_t sst, size_t n) { \
    return team_alltoalls(t, d, s, dst, sst, sizeof(T), n, "shmem_" #N "_alltoalls");            \
  }
SHMEM_GASKET_RMA_TYPES(GASKET_COLL)

#define GASKET_ACTIVE_SET(B)                                                                      \
  void shmem_broadcast##B(void* d, const void* s, size_t n, int root, int start, int ls, int size, long* ps) { \
    coll::PeSet set = active_set(start, ls, size, ps, "shmem_broadcast" #B);                     \
    coll::broadcast(set, reinterpret_cast<int64_t*>(ps), d, s, checked_bytes(n, B / 8, "shmem_broadcast" #B), root, false, "shmem_broadcast" #B); \
  }                                                                                              \
  void shmem_collect##B(void* d, const void* s, size_t n, int start, int ls, int size, long* ps) { \
    coll::PeSet set = active_set(start, ls, size, ps, "shmem_collect" #B);                       \
    coll::collect(set, reinterpret_cast<int64_t*>(ps), d, s, checked_bytes(n, B / 8, "shmem_collect" #B), "shmem_collect" #B); \
  }                                                                                              \
  void shmem_fcollect##B(void* d, const void* s, size_t n, int start, int ls, int size, long* ps) { \
    coll::PeSet set = active_set(start, ls, size, ps, "shmem_fcollect" #B);                      \
    coll::fcollect(set, reinterpret_cast<int64_t*>(ps), d, s, checked_bytes(n, B / 8, "shmem_fcollect" #B), "shmem_fcollect" #B); \
  }                                                                                              \
  void shmem_alltoall##B(void* d, const void* s, size_t n, int start, int ls, int size, long* ps) { \
    coll::PeSet set = active_set(start, ls, size, ps, "shmem_alltoall" #B);                      \
    coll::alltoall(set, reinterpret_cast<int64_t*>(ps), d, s, checked_bytes(n, B / 8, "shmem_alltoall" #B), "shmem_alltoall" #B); \
  }                                                                                              \
  void shmem_alltoalls##B(void* d, const void* s, ptrdiff_t dst, ptrdiff_t sst, size_t n, int start, int ls, int size, long* ps) { \
    coll::PeSet set = active_set(start, ls, size, ps, "shmem_alltoalls" #B);                     \
    coll::alltoalls(set, reinterpret_cast<int64_t*>(ps), d, s, dst, sst, B / 8, n, "shmem_alltoalls" #B); \
  }
GASKET_ACTIVE_SET(32)
GASKET_ACTIVE_SET(64)

#define GASKET_REDUCE(T, N, OP, KOP)                                                              \
  int shmem_##N##_##OP##_reduce(shmem_team_t t, T* d, const T* s, size_t n) {                    \
    return team_reduce<T>(t, d, s, n, coll::ReduceOp::KOP, "shmem_" #N "_" #OP "_reduce");       \
  }
#define GASKET_REDUCE_BIT(T, N) GASKET_REDUCE(T, N, and, kAnd) GASKET_REDUCE(T, N, or, kOr) GASKET_REDUCE(T, N, xor, kXor)
#define GASKET_REDUCE_MINMAX(T, N) GASKET_REDUCE(T, N, max, kMax) GASKET_REDUCE(T, N, min, kMin)
#define GASKET_REDUCE_ARITH(T, N) GASKET_REDUCE(T, N, sum, kSum) GASKET_REDUCE(T, N, prod, kProd)
SHMEM_GASKET_REDUCE_BIT_TYPES(GASKET_REDUCE_BIT)
SHMEM_GASKET_REDUCE_MINMAX_TYPES(GASKET_REDUCE_MINMAX)
SHMEM_GASKET_REDUCE_ARITH_TYPES(GASKET_REDUCE_ARITH)

#define GASKET_SCAN(T, N)                                                                         \
  int shmem_##N##_sum_inscan(shmem_team_t t, T* d, const T* s, size_t n) {                       \
    return team_scan<T>(t, d, s, n, true, "shmem_" #N "_sum_inscan");                            \
  }                                                                                              \
  int shmem_##N##_sum_exscan(shmem_team_t t, T* d, const T* s, size_t n) {                       \
    return team_scan<T>(t, d, s, n, false, "shmem_" #N "_sum_exscan");                           \
  }
SHMEM_GASKET_REDUCE_ARITH_TYPES(GASKET_SCAN)

#define GASKET_TO_ALL(T, N, OP, KOP)                                                              \
  void shmem_##N##_##OP##_to_all(T* d, const T* s, int n, int start, int ls, int size, T*, long* ps) { \
    to_all<T>(d, s, n, start, ls, size, ps, coll::ReduceOp::KOP, "shmem_" #N "_" #OP "_to_all");  \
  }
#define GASKET_TO_ALL_BIT(T, N) GASKET_TO_ALL(T, N, and, kAnd) GASKET_TO_ALL(T, N, or, kOr) GASKET_TO_ALL(T, N, xor, kXor)
#define GASKET_TO_ALL_MINMAX(T, N) GASKET_TO_ALL(T, N, max, kMax) GASKET_TO_ALL(T, N, min, kMin)
#define GASKET_TO_ALL_ARITH(T, N) GASKET_TO_ALL(T, N, sum, kSum) GASKET_TO_ALL(T, N, prod, kProd)
SHMEM_GASKET_TO_ALL_BIT_TYPES(GASKET_TO_ALL_BIT)
SHMEM_GASKET_TO_ALL_MINMAX_TYPES(GASKET_TO_ALL_MINMAX)
SHMEM_GASKET_TO_ALL_ARITH_TYPES(GASKET_TO_ALL_ARITH)

}  // extern "C"

// The profiling interface: every routine above is weak under its shmem_ name and strong under its
// pshmem_ name (generated from shmem.h by profiling_names.py).
#include "shmem-api/profiling_aliases.inc"
