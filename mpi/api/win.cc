// The C bindings of one-sided communication (mpi.h "windows"): argument checks, then mpi/win.
// Errors go through the window's error handler (MPI_ERRORS_ARE_FATAL by default); an invalid
// window handle goes to MPI_COMM_WORLD's.
#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "core/base/log.h"
#include "core/gasket.h"
#include "core/runtime.h"
#include "mpi/api/attributes.h"
#include "mpi/api/call.h"
#include "mpi/bindings/large_count.h"
#include "mpi/coll/agree.h"
#include "mpi/op/op.h"
#include "mpi/win/window.h"

namespace gasket::mpi::api {
namespace {

using win::Window;

// The error path of the window calls: the window's handler; MPI_COMM_WORLD's when the handle is
// not a window. Called without the lock held.
int report_win(Context& c, MPI_Win handle, const Error& e) {
  Guard g(c);
  Window* w = c.wins().find(handle);
  if (w == nullptr) {
    g.unlock();
    return c.report(MPI_COMM_WORLD, e);
  }
  std::string where = "rank " + std::to_string(w->rank()) + " of " + w->label();
  int code = e.error_class();
  if (w->errhandler == MPI_ERRORS_RETURN) return code;
  comm::Errhandler* eh = nullptr;
  if (w->errhandler != MPI_ERRORS_ARE_FATAL && c.comms().lookup_errhandler(w->errhandler, "", &eh).is_ok() &&
      eh->function != nullptr) {
    auto* function = reinterpret_cast<MPI_Win_errhandler_function*>(eh->function);
    c.run_callback(g, [&] { function(&handle, &code); });
    return e.error_class();
  }
  std::string msg = "MPI error on " + where + ": " + e.message() + " (" +
                    (error_class_string(code) ? error_class_string(code) : "unknown class") + ")";
  gasket::abort_job(code == 0 ? 1 : code, msg.c_str());
}

// Runs body(Context&, Guard&, Window&) -> Error under the lock for a valid window.
template <typename Body>
int win_call(const char* name, MPI_Win handle, Body body) {
  Context& c = context(name);
  Error e;
  {
    Guard g(c);
    Window* w = c.wins().find(handle);
    e = w != nullptr ? body(c, g, *w) : c.wins().lookup(handle, name, &w);
  }
  return e.is_ok() ? MPI_SUCCESS : report_win(c, handle, e);
}

win::Waiter waiter(Context& c, Guard& g) {
  return [&c, &g](const std::function<bool()>& done) { c.wait(g, done); };
}

Error check_target(const Window& w, int rank, const char* call) {
  if (rank == MPI_PROC_NULL || (rank >= 0 && rank < w.size())) return Error::ok();
  return error(MPI_ERR_RANK, "%s: rank %d: %s: target rank %d is out of range (the window has %d ranks)", call, w.rank(),
               w.label().c_str(), rank, w.size());
}

Error check_counts(const Window& w, MPI_Count a, MPI_Count b, const char* call) {
  MPI_Count bad = a < 0 ? a : b;
  if (a >= 0 && b >= 0) return Error::ok();
  return error(MPI_ERR_COUNT, "%s: rank %d: %s: count %lld is negative", call, w.rank(), w.label().c_str(),
               static_cast<long long>(bad));
}

Error check_types(Context& c, const Window& w, MPI_Datatype a, MPI_Datatype b, const char* call,
                  const datatype::Datatype** ta, const datatype::Datatype** tb) {
  *ta = c.types().find_committed(a);
  *tb = c.types().find_committed(b);
  if (*ta != nullptr && *tb != nullptr) return Error::ok();
  Error e = c.types().lookup_committed(*ta == nullptr ? a : b, call, ta);
  return Error(e.error_class(), e.message() + " (rank " + std::to_string(w.rank()) + ", " + w.label() + ")");
}

// MPI_Put/MPI_Get's common case: valid arguments, one contiguous block each side, the target's
// memory mapped here (Window::copy_direct). False: the checked path explains or does the rest.
bool direct(Context& c, Window& w, bool is_put, void* origin, MPI_Count origin_count, MPI_Datatype origin_type, int rank,
            MPI_Aint disp, MPI_Count target_count, MPI_Datatype target_type) {
  const datatype::Datatype* ot = c.types().find_committed(origin_type);
  const datatype::Datatype* tt = c.types().find_committed(target_type);
  if (ot == nullptr || tt == nullptr || !ot->contiguous() || !tt->contiguous() || rank < 0 || rank >= w.size() ||
      origin_count < 0 || target_count < 0 || tt->true_lb != 0) {
    return false;
  }
  int64_t bytes = static_cast<int64_t>(origin_count) * ot->size;
  if (bytes != static_cast<int64_t>(target_count) * tt->size || (origin == nullptr && bytes > 0)) return false;
  return w.copy_direct(is_put, static_cast<char*>(origin) + ot->true_lb, bytes, rank, disp);
}

// Put and get (and their request-based forms): the fast path, else the checks and the window's
// general path (derived types, memreg, the backend).
Error move(Context& c, Window& w, bool is_put, void* origin, MPI_Count origin_count, MPI_Datatype origin_type, int rank,
           MPI_Aint disp, MPI_Count target_count, MPI_Datatype target_type, const char* call) {
  if (direct(c, w, is_put, origin, origin_count, origin_type, rank, disp, target_count, target_type)) return Error::ok();
  const datatype::Datatype *ot, *tt;
  Error e = check_target(w, rank, call);
  if (e.is_ok()) e = check_counts(w, origin_count, target_count, call);
  if (e.is_ok()) e = check_types(c, w, origin_type, target_type, call, &ot, &tt);
  if (!e.is_ok() || rank == MPI_PROC_NULL) return e;
  return is_put ? w.put(origin, origin_count, *ot, rank, disp, target_count, *tt, call)
                : w.get(origin, origin_count, *ot, rank, disp, target_count, *tt, call);
}

Error check_assert(const Window& w, int assert, int allowed, const char* call) {
  if ((assert & ~allowed) == 0) return Error::ok();
  return error(MPI_ERR_ASSERT, "%s: rank %d: %s: assertion 0x%x has bits this call does not know (0x%x)", call,
               w.rank(), w.label().c_str(), assert, assert & ~allowed);
}

// The predefined type every element of `handle` is made of, or MPI_DATATYPE_NULL when it mixes
// several (or a component type was freed).
MPI_Datatype basic_of(Context& c, MPI_Datatype handle) {
  const datatype::Datatype* t = nullptr;
  if (!c.types().lookup(handle, "", &t).is_ok()) return MPI_DATATYPE_NULL;
  if (t->predefined) return handle;
  MPI_Datatype found = MPI_DATATYPE_NULL;
  for (int sub : t->types) {
    if (sub == MPI_UB || sub == MPI_LB) continue;
    MPI_Datatype b = basic_of(c, sub);
    if (b == MPI_DATATYPE_NULL || (found != MPI_DATATYPE_NULL && b != found)) return MPI_DATATYPE_NULL;
    found = b;
  }
  return found;
}

// Accumulate, get_accumulate and fetch_and_op: packs the origin, runs the window's atomic
// accumulate on packed elements, unpacks the old values into the result buffer.
Error accumulate(Context& c, Window& w, const void* origin, MPI_Count origin_count, MPI_Datatype origin_type, void* result,
                 MPI_Count result_count, MPI_Datatype result_type, int rank, MPI_Aint disp, MPI_Count target_count,
                 MPI_Datatype target_type, MPI_Op op, const char* call) {
  bool fetch = result != nullptr;
  // The common case first: contiguous elements of one predefined type (1, 2, 4 or 8 bytes, no
  // hole) onto memory mapped here where CPU atomics apply (Window::atomic_direct).
  const datatype::Datatype* one = c.types().find_committed(target_type);
  if (one != nullptr && one->predefined && one->contiguous() && origin_type == target_type &&
      origin_count == target_count && target_count > 0 &&
      (!fetch || (result_type == target_type && result_count == target_count)) && rank >= 0 && rank < w.size() &&
      op::is_predefined(op) && (op == MPI_REPLACE || op == MPI_NO_OP || op::apply_predefined(op, target_type, &disp, &disp, 0)) &&
      w.atomic_direct(op, target_type, static_cast<int>(one->size), static_cast<int64_t>(target_count),
                      op == MPI_NO_OP ? nullptr : origin, result, rank, disp)) {
    return Error::ok();
  }
  if (op == MPI_NO_OP) {  // the origin is ignored
    origin_count = target_count;
    origin_type = target_type;
  }
  const datatype::Datatype *ot, *tt, *rt = nullptr;
  Error e = check_target(w, rank, call);
  if (e.is_ok()) e = check_counts(w, origin_count, target_count, call);
  if (e.is_ok() && fetch) e = check_counts(w, result_count, 0, call);
  if (e.is_ok()) e = check_types(c, w, origin_type, target_type, call, &ot, &tt);
  if (e.is_ok() && fetch) e = check_types(c, w, result_type, target_type, call, &rt, &tt);
  if (!e.is_ok()) return e;
  if (!op::is_predefined(op)) {
    return error(MPI_ERR_OP, "%s: rank %d: %s: op %d is not a predefined operation (RMA accumulates take only those)",
                 call, w.rank(), w.label().c_str(), op);
  }
  MPI_Datatype basic = basic_of(c, origin_type);
  if (basic == MPI_DATATYPE_NULL) basic = basic_of(c, target_type);
  const datatype::Datatype* bt = nullptr;
  if (basic == MPI_DATATYPE_NULL || !c.types().lookup(basic, "", &bt).is_ok() || bt->size == 0) {
    return error(MPI_ERR_TYPE, "%s: rank %d: %s: the datatypes are not made of one predefined type", call, w.rank(),
                 w.label().c_str());
  }
  int bsize = static_cast<int>(bt->size);
  // Zero elements move nothing: the op need not be defined for the type (Open MPI and MPICH
  // accept it too; mpi4py's test_rma relies on it).
  if (op != MPI_REPLACE && op != MPI_NO_OP && origin_count > 0) {
    alignas(16) char a[32] = {}, b[32] = {};
    if (!op::apply_predefined(op, basic, a, b, 1)) {
      return error(MPI_ERR_OP, "%s: rank %d: %s: op %d is not defined for %s", call, w.rank(), w.label().c_str(), op,
                   bt->name.c_str());
    }
  }
  if (rank == MPI_PROC_NULL) return Error::ok();
  int64_t bytes = static_cast<int64_t>(origin_count) * ot->size;
  int64_t elements = bytes / bsize;
  if (fetch && static_cast<int64_t>(result_count) * rt->size != bytes) {
    return error(MPI_ERR_TYPE, "%s: rank %d: %s: the result buffer holds %lld bytes, the operation %lld", call, w.rank(),
                 w.label().c_str(), static_cast<long long>(result_count * rt->size), static_cast<long long>(bytes));
  }
  std::vector<char> packed_origin, packed_result;
  const char* in = nullptr;
  if (op != MPI_NO_OP) {
    if (ot->contiguous()) {
      in = static_cast<const char*>(origin) + ot->true_lb;
    } else {
      packed_origin.resize(static_cast<size_t>(bytes));
      datatype::pack(*ot, origin, origin_count, packed_origin.data());
      in = packed_origin.data();
    }
  }
  char* out = nullptr;
  if (fetch) {
    if (rt->contiguous()) {
      out = static_cast<char*>(result) + rt->true_lb;
    } else {
      packed_result.resize(static_cast<size_t>(bytes));
      out = packed_result.data();
    }
  }
  e = w.accumulate(in, elements, *bt, basic, bsize, op, rank, disp, target_count, *tt, out, call);
  if (e.is_ok() && fetch && !rt->contiguous()) datatype::unpack(*rt, out, bytes, result, result_count);
  return e;
}

// Request-based operations complete locally before they return (puts leave the origin buffer
// reusable, gets and fetches have their data): the request is a kOperation that is done at once.
class CompletedOperation final : public p2p::Operation {
 public:
  bool progress(Error*) override { return true; }
};

Error completed_request(Context& c, const Window& w, MPI_Request* request) {
  p2p::Request* r = c.engine().requests().create(p2p::RequestKind::kOperation);
  r->comm = w.comm();
  r->my_rank = w.rank();
  r->operation = std::make_unique<CompletedOperation>();
  c.engine().start_operation(r);
  *request = r->handle;
  return Error::ok();
}

Error check_request_epoch(const Window& w, int rank, MPI_Request* request, const char* call) {
  if (request == nullptr) return error(MPI_ERR_ARG, "%s: rank %d: the request argument is NULL", call, w.rank());
  if (rank == MPI_PROC_NULL || rank < 0 || rank >= w.size() || w.passive_epoch(rank)) return Error::ok();
  return error(MPI_ERR_RMA_SYNC, "%s: rank %d: %s: request-based operations need a lock or lock_all epoch on rank %d",
               call, w.rank(), w.label().c_str(), rank);
}

// Window sizes of the region table in each control block (descriptors of memreg exposures).
constexpr size_t kStaticTableBytes = 4 << 10;
constexpr size_t kDynamicTableBytes = 64 << 10;

// The collective part of every creation: allocates this rank's control block (and memory for
// MPI_Win_allocate / _shared), exchanges MemberInfo, builds the window.
Error create(Context& c, Guard& g, int flavor, void* base, MPI_Aint size, MPI_Aint disp_unit, MPI_Info info, MPI_Comm comm,
             void* baseptr, MPI_Win* win, const char* call) {
  comm::Communicator* cm;
  Error e = check_comm(c, comm, call, &cm);
  if (!e.is_ok()) return e;
  if (cm->is_inter()) return error(MPI_ERR_COMM, "%s: rank %d: windows need an intracommunicator", call, cm->rank);
  if (win == nullptr) return error(MPI_ERR_ARG, "%s: rank %d: the win argument is NULL", call, cm->rank);
  if (size < 0) return error(MPI_ERR_SIZE, "%s: rank %d: size %lld is negative", call, cm->rank, static_cast<long long>(size));
  if (disp_unit <= 0 || disp_unit > INT32_MAX) {
    return error(MPI_ERR_DISP, "%s: rank %d: disp_unit %lld is not positive or beyond 2^31 - 1", call, cm->rank,
                 static_cast<long long>(disp_unit));
  }
  if (info != MPI_INFO_NULL && c.find_info(info) == nullptr) {
    return error(MPI_ERR_INFO, "%s: rank %d: %d is not an info object", call, cm->rank, info);
  }
  if ((flavor == MPI_WIN_FLAVOR_ALLOCATE || flavor == MPI_WIN_FLAVOR_SHARED) && baseptr == nullptr) {
    return error(MPI_ERR_ARG, "%s: rank %d: baseptr is NULL", call, cm->rank);
  }
  if (flavor == MPI_WIN_FLAVOR_CREATE && base == nullptr && size > 0) {
    return error(MPI_ERR_BASE, "%s: rank %d: base is NULL for a %lld-byte window", call, cm->rank, static_cast<long long>(size));
  }
  int n = cm->size();
  int me = cm->rank;
  if (flavor == MPI_WIN_FLAVOR_SHARED) {
    for (size_t r = 0; r < cm->group->pes.size(); ++r) {
      if (cm->group->pes[r] >= gasket::n_pes()) {
        return error(MPI_ERR_RMA_SHARED, "%s: rank %d: rank %zu of the communicator is a process of another job "
                     "(spawned or connected): jobs share no memory", call, me, r);
      }
    }
    for (int pe : cm->group->pes) {
      if (gasket::node_of(pe) != gasket::node_of(gasket::my_pe())) {
        return error(MPI_ERR_RMA_SHARED, "%s: rank %d: the communicator spans several nodes (PE %d is on node %d, this one on %d): "
                     "no memory is shared by all", call, me, pe, gasket::node_of(pe), gasket::node_of(gasket::my_pe()));
      }
    }
  }
  Arena& pool = c.alloc_pool();
  size_t table = flavor == MPI_WIN_FLAVOR_DYNAMIC ? kDynamicTableBytes : kStaticTableBytes;
  char* control = pool.allocate(Window::control_bytes(n, table), 64);
  char* memory = static_cast<char*>(base);
  // MPI_Win_allocate beyond what the pool holds: page-aligned system memory, which is then exposed
  // as MPI_Win_create's memory is (OSU's bandwidth tests at 512 KiB failed here).
  char* system_memory = nullptr;
  if (flavor == MPI_WIN_FLAVOR_ALLOCATE) {
    size_t bytes = static_cast<size_t>(size > 0 ? size : 1);
    memory = pool.allocate(bytes, 64);
    void* p = nullptr;
    if (memory == nullptr && control != nullptr && posix_memalign(&p, 4096, bytes) == 0) {
      memory = system_memory = static_cast<char*>(p);
    }
  }
  bool ok = control != nullptr && (flavor != MPI_WIN_FLAVOR_ALLOCATE || memory != nullptr);
  if (control != nullptr) std::memset(control, 0, Window::control_bytes(n, table));

  win::MemberInfo mine;
  mine.base = reinterpret_cast<uint64_t>(memory);
  mine.size = static_cast<uint64_t>(size);
  mine.disp_unit = static_cast<int32_t>(disp_unit);
  char* heap = core::Runtime::get()->segments().find(segments::kHeapSegment)->base;
  mine.control_offset = ok ? static_cast<uint64_t>(control - heap) : 0;
  mine.in_segment = ok ? 0 : -1;
  if (ok && memory != nullptr && size > 0 && flavor != MPI_WIN_FLAVOR_SHARED) {
    segments::Translation t = core::Runtime::get()->segments().translate(memory, static_cast<size_t>(size));
    if (t.segment != nullptr && t.in_bounds &&
        (t.segment->id == segments::kHeapSegment || t.segment->id == segments::kDataSegment)) {
      mine.in_segment = 1;
      mine.segment = t.segment->id;
      mine.segment_offset = t.offset;
    }
  }
  std::vector<win::MemberInfo> members(static_cast<size_t>(n));
  e = gasket::mpi::coll::allgather_bytes(c, g, &mine, sizeof mine, members.data(), *cm);
  if (!e.is_ok()) return e;

  // Shared windows: rank 0 allocates every rank's memory, contiguous in rank order.
  char* shared_block = nullptr;
  if (flavor == MPI_WIN_FLAVOR_SHARED) {
    uint64_t total = 0;
    for (const win::MemberInfo& m : members) total += m.size;
    uint64_t block_offset = ~uint64_t{0};
    if (me == 0) {
      bool all_ok = true;
      for (const win::MemberInfo& m : members) all_ok = all_ok && m.in_segment >= 0;
      shared_block = all_ok ? pool.allocate(static_cast<size_t>(total > 0 ? total : 1), 64) : nullptr;
      if (shared_block != nullptr) block_offset = static_cast<uint64_t>(shared_block - pool.base());
    }
    e = gasket::mpi::coll::bcast_bytes(c, g, &block_offset, sizeof block_offset, 0, *cm);
    if (!e.is_ok()) return e;
    if (block_offset == ~uint64_t{0}) {
      mine.in_segment = -1;
      for (win::MemberInfo& m : members) m.in_segment = -1;
    } else {
      segments::Translation t = core::Runtime::get()->segments().translate(pool.base() + block_offset, 0);
      uint64_t prefix = 0;
      for (win::MemberInfo& m : members) {
        m.in_segment = 1;
        m.segment = t.segment->id;
        m.segment_offset = t.offset + prefix;
        m.memory_rank = 0;
        m.base = reinterpret_cast<uint64_t>(pool.base() + block_offset + prefix);
        prefix += m.size;
      }
    }
  }
  for (const win::MemberInfo& m : members) ok = ok && m.in_segment >= 0;
  if (!ok) {
    if (control != nullptr) pool.release(control);
    if (flavor == MPI_WIN_FLAVOR_ALLOCATE && memory != nullptr && memory != system_memory) pool.release(memory);
    std::free(system_memory);
    if (shared_block != nullptr) pool.release(shared_block);
    return error(MPI_ERR_NO_MEM,
                 "%s: rank %d: the MPI_Alloc_mem pool (GASKET_MPI_ALLOC_MEM_POOL, %zu bytes, %zu in use) of this or "
                 "another rank cannot hold the window (%lld bytes here)",
                 call, me, pool.size(), pool.in_use(), static_cast<long long>(size));
  }

  auto w = std::make_unique<Window>(flavor, comm, cm->group, me, members, heap, control, table);
  w->pool_blocks.push_back(control);
  if (flavor == MPI_WIN_FLAVOR_ALLOCATE) (system_memory != nullptr ? w->system_blocks : w->pool_blocks).push_back(memory);
  if (shared_block != nullptr) w->pool_blocks.push_back(shared_block);
  bool published = false;
  auto exposed = [flavor](const win::MemberInfo& m) {  // user or system memory outside the segments
    return (flavor == MPI_WIN_FLAVOR_CREATE || flavor == MPI_WIN_FLAVOR_ALLOCATE) && m.in_segment == 0 && m.size > 0;
  };
  if (exposed(mine)) {
    e = w->publish_region(memory, static_cast<uint64_t>(size), call);
    if (!e.is_ok()) log::fatal("%s", e.message().c_str());  // the other ranks already hold the window
  }
  for (const win::MemberInfo& m : members) published = published || exposed(m);
  w->attr_size = size;
  w->attr_disp_unit = static_cast<int>(disp_unit);
  w->attr_base = flavor == MPI_WIN_FLAVOR_SHARED ? w->shared_pointer(me) : memory;
  if (flavor == MPI_WIN_FLAVOR_DYNAMIC) w->attr_base = MPI_BOTTOM;
  if (info != MPI_INFO_NULL) w->info = *c.find_info(info);
  Window* raw = w.get();
  *win = c.wins().add(std::move(w));
  // Peers read a member's region table on first use: it must be written before anyone returns.
  if (published) (void)raw->fence(MPI_MODE_NOSUCCEED, waiter(c, g), call);
  if (baseptr != nullptr) *static_cast<void**>(baseptr) = raw->attr_base;
  return Error::ok();
}

std::vector<int> group_ranks(Context& c, const Window& w, MPI_Group group, const char* call, Error* e) {
  std::vector<int> ranks;
  std::shared_ptr<const comm::Group> gp;
  *e = c.comms().lookup_group(group, call, &gp);
  if (!e->is_ok()) return ranks;
  for (int pe : gp->pes) {
    int r = w.group()->rank_of_pe(pe);
    if (r == MPI_UNDEFINED) {
      *e = error(MPI_ERR_GROUP, "%s: rank %d: %s: the group holds PE %d, which is not in the window", call, w.rank(),
                 w.label().c_str(), pe);
      return ranks;
    }
    ranks.push_back(r);
  }
  return ranks;
}

Error lock_rank_check(const Window& w, int rank, const char* call) {
  if (rank >= 0 && rank < w.size()) return Error::ok();
  return error(MPI_ERR_RANK, "%s: rank %d: %s: rank %d is out of range (the window has %d ranks)", call, w.rank(),
               w.label().c_str(), rank, w.size());
}

}  // namespace
}  // namespace gasket::mpi::api

using gasket::mpi::Context;
using gasket::mpi::Error;
using gasket::mpi::Guard;
using gasket::mpi::error;
using gasket::mpi::win::Window;
namespace api = gasket::mpi::api;
namespace dt = gasket::mpi::datatype;

extern "C" {

int gasket_win_null_copy_fn(MPI_Win, int, void*, void*, void*, int* flag) {
  *flag = 0;
  return MPI_SUCCESS;
}
int gasket_win_dup_fn(MPI_Win, int, void*, void* in, void* out, int* flag) {
  *static_cast<void**>(out) = in;
  *flag = 1;
  return MPI_SUCCESS;
}
int gasket_win_null_delete_fn(MPI_Win, int, void*, void*) { return MPI_SUCCESS; }

// ---- creation and destruction ----




int PMPI_Win_create_dynamic(MPI_Info info, MPI_Comm comm, MPI_Win* win) {
  return api::call("MPI_Win_create_dynamic", comm, [&](Context& c, Guard& g) -> Error {
    return api::create(c, g, MPI_WIN_FLAVOR_DYNAMIC, nullptr, 0, 1, info, comm, nullptr, win, "MPI_Win_create_dynamic");
  });
}


int PMPI_Win_attach(MPI_Win win, void* base, MPI_Aint size) {
  return api::win_call("MPI_Win_attach", win, [&](Context&, Guard&, Window& w) -> Error {
    if (size < 0) {
      return error(MPI_ERR_SIZE, "MPI_Win_attach: rank %d: %s: size %lld is negative", w.rank(), w.label().c_str(),
                   static_cast<long long>(size));
    }
    if (base == nullptr && size > 0) {
      return error(MPI_ERR_BASE, "MPI_Win_attach: rank %d: %s: base is NULL", w.rank(), w.label().c_str());
    }
    return w.attach(base, static_cast<uint64_t>(size), "MPI_Win_attach");
  });
}

int PMPI_Win_detach(MPI_Win win, const void* base) {
  return api::win_call("MPI_Win_detach", win,
                       [&](Context&, Guard&, Window& w) -> Error { return w.detach(base, "MPI_Win_detach"); });
}

int PMPI_Win_free(MPI_Win* win) {
  const char* call = "MPI_Win_free";
  if (win == nullptr) {
    return api::call(call, MPI_COMM_WORLD, [&](Context&, Guard&) -> Error {
      return error(MPI_ERR_ARG, "%s: the win argument is NULL", call);
    });
  }
  return api::win_call(call, *win, [&](Context& c, Guard& g, Window& w) -> Error {
    int rank = w.rank();
    // The delete callbacks run first, the last set first (they may call MPI on the window).
    gasket::mpi::AttributeList attributes = std::move(w.attributes);
    w.attributes.clear();
    for (auto it = attributes.rbegin(); it != attributes.rend(); ++it) {
      int rc = api::run_delete_callback(c, g, *win, it->first, it->second);
      if (rc != MPI_SUCCESS) {
        return error(rc, "%s: rank %d: the delete callback of keyval %d returned %d", call, rank, it->first, rc);
      }
    }
    Window* freeing = c.wins().find(*win);
    if (freeing == nullptr) return error(MPI_ERR_WIN, "%s: rank %d: a delete callback freed the window", call, rank);
    Error e = freeing->free(api::waiter(c, g), c.alloc_pool(), call);
    if (!e.is_ok()) return e;
    c.wins().remove(*win);
    *win = MPI_WIN_NULL;
    return Error::ok();
  });
}

// ---- attributes, info, names, error handlers ----

int PMPI_Win_get_group(MPI_Win win, MPI_Group* group) {
  return api::win_call("MPI_Win_get_group", win, [&](Context& c, Guard&, Window& w) -> Error {
    if (group == nullptr) return error(MPI_ERR_ARG, "MPI_Win_get_group: rank %d: group is NULL", w.rank());
    *group = c.comms().add_group(w.group());
    return Error::ok();
  });
}

int PMPI_Win_set_info(MPI_Win win, MPI_Info info) {
  return api::win_call("MPI_Win_set_info", win, [&](Context& c, Guard&, Window& w) -> Error {
    gasket::mpi::Info* in = c.find_info(info);
    if (in == nullptr) {
      return error(MPI_ERR_INFO, "MPI_Win_set_info: rank %d: %s: %d is not an info object", w.rank(),
                   w.label().c_str(), info);
    }
    for (const auto& kv : *in) {
      auto it = std::find_if(w.info.begin(), w.info.end(), [&](const auto& x) { return x.first == kv.first; });
      if (it != w.info.end()) {
        it->second = kv.second;
      } else {
        w.info.push_back(kv);
      }
    }
    return Error::ok();
  });
}

int PMPI_Win_get_info(MPI_Win win, MPI_Info* info_used) {
  return api::win_call("MPI_Win_get_info", win, [&](Context& c, Guard&, Window& w) -> Error {
    if (info_used == nullptr) return error(MPI_ERR_ARG, "MPI_Win_get_info: rank %d: info_used is NULL", w.rank());
    *info_used = c.add_info(w.info);
    return Error::ok();
  });
}

int PMPI_Win_set_name(MPI_Win win, const char* win_name) {
  return api::win_call("MPI_Win_set_name", win, [&](Context&, Guard&, Window& w) -> Error {
    if (win_name == nullptr) return error(MPI_ERR_ARG, "MPI_Win_set_name: rank %d: the name is NULL", w.rank());
    w.name.assign(win_name, strnlen(win_name, MPI_MAX_OBJECT_NAME - 1));
    return Error::ok();
  });
}

int PMPI_Win_get_name(MPI_Win win, char* win_name, int* resultlen) {
  if (win == MPI_WIN_NULL) return api::name_of_null("MPI_Win_get_name", "MPI_WIN_NULL", win_name, resultlen);
  return api::win_call("MPI_Win_get_name", win, [&](Context&, Guard&, Window& w) -> Error {
    if (win_name == nullptr || resultlen == nullptr) {
      return error(MPI_ERR_ARG, "MPI_Win_get_name: rank %d: a NULL argument", w.rank());
    }
    std::memcpy(win_name, w.name.c_str(), w.name.size() + 1);
    *resultlen = static_cast<int>(w.name.size());
    return Error::ok();
  });
}

int PMPI_Win_create_errhandler(MPI_Win_errhandler_function* function, MPI_Errhandler* errhandler) {
  return api::call("MPI_Win_create_errhandler", MPI_COMM_WORLD, [&](Context& c, Guard&) -> Error {
    if (function == nullptr || errhandler == nullptr) return error(MPI_ERR_ARG, "MPI_Win_create_errhandler: a NULL argument");
    *errhandler = c.comms().add_errhandler(reinterpret_cast<MPI_Comm_errhandler_function*>(function));
    return Error::ok();
  });
}

int PMPI_Win_set_errhandler(MPI_Win win, MPI_Errhandler errhandler) {
  return api::win_call("MPI_Win_set_errhandler", win, [&](Context& c, Guard&, Window& w) -> Error {
    Error e = api::check_errhandler(c, errhandler, "MPI_Win_set_errhandler");
    if (!e.is_ok()) return e;
    w.errhandler = errhandler;
    return Error::ok();
  });
}

int PMPI_Win_get_errhandler(MPI_Win win, MPI_Errhandler* errhandler) {
  return api::win_call("MPI_Win_get_errhandler", win, [&](Context& c, Guard&, Window& w) -> Error {
    if (errhandler == nullptr) return error(MPI_ERR_ARG, "MPI_Win_get_errhandler: rank %d: errhandler is NULL", w.rank());
    *errhandler = w.errhandler;
    c.comms().retain_errhandler(*errhandler);  // the caller frees it (MPI_Errhandler_free)
    return Error::ok();
  });
}

int PMPI_Win_call_errhandler(MPI_Win win, int errorcode) {
  int valid = api::win_call("MPI_Win_call_errhandler", win, [](Context&, Guard&, Window&) { return Error::ok(); });
  if (valid != MPI_SUCCESS) return valid;
  Context& c = api::context("MPI_Win_call_errhandler");
  api::report_win(c, win, error(errorcode, "MPI_Win_call_errhandler: error code %d raised by the application", errorcode));
  return MPI_SUCCESS;
}

int PMPI_Win_create_keyval(MPI_Win_copy_attr_function* copy_fn, MPI_Win_delete_attr_function* delete_fn,
                          int* win_keyval, void* extra_state) {
  return api::call("MPI_Win_create_keyval", MPI_COMM_WORLD, [&](Context& c, Guard&) -> Error {
    if (win_keyval == nullptr) return error(MPI_ERR_ARG, "MPI_Win_create_keyval: win_keyval is NULL");
    gasket::mpi::comm::Keyval k;
    k.copy_fn = reinterpret_cast<MPI_Comm_copy_attr_function*>(copy_fn);
    k.delete_fn = reinterpret_cast<MPI_Comm_delete_attr_function*>(delete_fn);
    k.extra_state = extra_state;
    k.kind = gasket::mpi::comm::KeyvalKind::kWin;
    *win_keyval = c.comms().add_keyval(k);
    return Error::ok();
  });
}

int PMPI_Win_free_keyval(int* win_keyval) {
  return api::call("MPI_Win_free_keyval", MPI_COMM_WORLD,
                   [&](Context& c, Guard&) { return api::free_keyval(c, win_keyval, gasket::mpi::comm::KeyvalKind::kWin, "MPI_Win_free_keyval"); });
}

}  // extern "C" (helpers below have internal linkage, not C linkage)
namespace {
Error delete_win_attr(Context& c, Guard& g, MPI_Win handle, Window& w, int keyval, const char* call) {
  gasket::mpi::comm::Keyval* k;
  Error e = c.comms().lookup_keyval(keyval, gasket::mpi::comm::KeyvalKind::kWin, w.rank(), call, &k, true);
  if (!e.is_ok()) return e;
  auto it = w.attributes.find(keyval);
  if (it == w.attributes.end()) {
    return error(MPI_ERR_KEYVAL, "%s: rank %d: %s has no attribute for keyval %d", call, w.rank(), w.label().c_str(),
                 keyval);
  }
  void* value = it->second;
  int rank = w.rank();
  w.attributes.erase(it);
  int rc = api::run_delete_callback(c, g, handle, keyval, value);
  if (rc != MPI_SUCCESS) return error(rc, "%s: rank %d: the delete callback of keyval %d returned %d", call, rank, keyval, rc);
  return Error::ok();
}
}  // namespace
extern "C" {

int PMPI_Win_set_attr(MPI_Win win, int win_keyval, void* attribute_val) {
  const char* call = "MPI_Win_set_attr";
  return api::win_call(call, win, [&](Context& c, Guard& g, Window& w) -> Error {
    gasket::mpi::comm::Keyval* k;
    if (win_keyval >= MPI_WIN_MODEL && win_keyval <= MPI_WIN_BASE) {
      return error(MPI_ERR_KEYVAL, "%s: rank %d: keyval %d is predefined and read-only", call, w.rank(), win_keyval);
    }
    Error e = c.comms().lookup_keyval(win_keyval, gasket::mpi::comm::KeyvalKind::kWin, w.rank(), call, &k);
    if (!e.is_ok()) return e;
    if (w.attributes.count(win_keyval)) {
      e = delete_win_attr(c, g, win, w, win_keyval, call);
      if (!e.is_ok()) return e;
    }
    Window* still = c.wins().find(win);  // the delete callback may have freed it
    if (still == nullptr) return error(MPI_ERR_WIN, "%s: a delete callback freed the window", call);
    still->attributes[win_keyval] = attribute_val;
    return Error::ok();
  });
}

int PMPI_Win_get_attr(MPI_Win win, int win_keyval, void* attribute_val, int* flag) {
  const char* call = "MPI_Win_get_attr";
  return api::win_call(call, win, [&](Context& c, Guard&, Window& w) -> Error {
    if (attribute_val == nullptr || flag == nullptr) return error(MPI_ERR_ARG, "%s: rank %d: a NULL argument", call, w.rank());
    void** out = static_cast<void**>(attribute_val);
    *flag = 1;
    switch (win_keyval) {
      case MPI_WIN_BASE: *out = w.attr_base; return Error::ok();
      case MPI_WIN_SIZE: *out = &w.attr_size; return Error::ok();
      case MPI_WIN_DISP_UNIT: *out = &w.attr_disp_unit; return Error::ok();
      case MPI_WIN_CREATE_FLAVOR: *out = &w.attr_flavor; return Error::ok();
      case MPI_WIN_MODEL: *out = &w.attr_model; return Error::ok();
      default: break;
    }
    auto it = w.attributes.find(win_keyval);
    gasket::mpi::comm::Keyval* k;
    Error e = c.comms().lookup_keyval(win_keyval, gasket::mpi::comm::KeyvalKind::kWin, w.rank(), call, &k,
                                      it != w.attributes.end());
    if (!e.is_ok()) return e;
    *flag = it != w.attributes.end();
    if (*flag) *out = it->second;
    return Error::ok();
  });
}

int PMPI_Win_delete_attr(MPI_Win win, int win_keyval) {
  return api::win_call("MPI_Win_delete_attr", win, [&](Context& c, Guard& g, Window& w) -> Error {
    return delete_win_attr(c, g, win, w, win_keyval, "MPI_Win_delete_attr");
  });
}

// ---- communication ----





int PMPI_Fetch_and_op(const void* origin_addr, void* result_addr, MPI_Datatype datatype, int target_rank,
                     MPI_Aint target_disp, MPI_Op op, MPI_Win win) {
  const char* call = "MPI_Fetch_and_op";
  return api::win_call(call, win, [&](Context& c, Guard&, Window& w) -> Error {
    if (result_addr == nullptr) return error(MPI_ERR_BUFFER, "%s: rank %d: the result buffer is NULL", call, w.rank());
    return api::accumulate(c, w, origin_addr, 1, datatype, result_addr, 1, datatype, target_rank, target_disp, 1,
                           datatype, op, call);
  });
}

int PMPI_Compare_and_swap(const void* origin_addr, const void* compare_addr, void* result_addr, MPI_Datatype datatype,
                         int target_rank, MPI_Aint target_disp, MPI_Win win) {
  const char* call = "MPI_Compare_and_swap";
  return api::win_call(call, win, [&](Context& c, Guard&, Window& w) -> Error {
    const dt::Datatype* t = c.types().find_committed(datatype);
    // MPI 4.1 12.3.4: C and Fortran integers, logicals, multi-language types and bytes only.
    alignas(16) char probe[32] = {};
    bool allowed = t != nullptr && t->predefined && t->size > 0 && t->size <= 16 &&
                   (gasket::mpi::op::apply_predefined(MPI_BOR, datatype, probe, probe, 0) ||
                    gasket::mpi::op::apply_predefined(MPI_LOR, datatype, probe, probe, 0));
    if (allowed && origin_addr != nullptr && compare_addr != nullptr && result_addr != nullptr &&
        target_rank >= 0 && target_rank < w.size() &&
        w.atomic_direct(MPI_REPLACE, datatype, static_cast<int>(t->size), 1, origin_addr, result_addr, target_rank,
                        target_disp, compare_addr)) {
      return Error::ok();
    }
    Error e = api::check_target(w, target_rank, call);
    if (e.is_ok() && !allowed) {
      e = error(MPI_ERR_TYPE, "%s: rank %d: %s: datatype %d is not a predefined integer, logical, multi-language or byte type",
                call, w.rank(), w.label().c_str(), datatype);
    }
    if (e.is_ok() && (origin_addr == nullptr || compare_addr == nullptr || result_addr == nullptr)) {
      e = error(MPI_ERR_BUFFER, "%s: rank %d: a NULL buffer", call, w.rank());
    }
    if (!e.is_ok() || target_rank == MPI_PROC_NULL) return e;
    return w.compare_and_swap(origin_addr, compare_addr, result_addr, *t, target_rank, target_disp, call);
  });
}





// ---- synchronisation ----

int PMPI_Win_fence(int assert, MPI_Win win) {
  const char* call = "MPI_Win_fence";
  return api::win_call(call, win, [&](Context& c, Guard& g, Window& w) -> Error {
    Error e = api::check_assert(w, assert, MPI_MODE_NOSTORE | MPI_MODE_NOPUT | MPI_MODE_NOPRECEDE | MPI_MODE_NOSUCCEED,
                                call);
    return e.is_ok() ? w.fence(assert, api::waiter(c, g), call) : e;
  });
}

int PMPI_Win_post(MPI_Group group, int assert, MPI_Win win) {
  const char* call = "MPI_Win_post";
  return api::win_call(call, win, [&](Context& c, Guard&, Window& w) -> Error {
    Error e = api::check_assert(w, assert, MPI_MODE_NOCHECK | MPI_MODE_NOSTORE | MPI_MODE_NOPUT, call);
    std::vector<int> ranks;
    if (e.is_ok()) ranks = api::group_ranks(c, w, group, call, &e);
    return e.is_ok() ? w.post(ranks, call) : e;
  });
}

int PMPI_Win_start(MPI_Group group, int assert, MPI_Win win) {
  const char* call = "MPI_Win_start";
  return api::win_call(call, win, [&](Context& c, Guard& g, Window& w) -> Error {
    Error e = api::check_assert(w, assert, MPI_MODE_NOCHECK, call);
    std::vector<int> ranks;
    if (e.is_ok()) ranks = api::group_ranks(c, w, group, call, &e);
    return e.is_ok() ? w.start(ranks, api::waiter(c, g), call) : e;
  });
}

int PMPI_Win_complete(MPI_Win win) {
  return api::win_call("MPI_Win_complete", win,
                       [&](Context&, Guard&, Window& w) -> Error { return w.complete("MPI_Win_complete"); });
}

int PMPI_Win_wait(MPI_Win win) {
  return api::win_call("MPI_Win_wait", win, [&](Context& c, Guard& g, Window& w) -> Error {
    return w.wait_exposure(api::waiter(c, g), false, nullptr, "MPI_Win_wait");
  });
}

int PMPI_Win_test(MPI_Win win, int* flag) {
  return api::win_call("MPI_Win_test", win, [&](Context& c, Guard& g, Window& w) -> Error {
    if (flag == nullptr) return error(MPI_ERR_ARG, "MPI_Win_test: rank %d: flag is NULL", w.rank());
    c.engine().progress();
    bool done = false;
    Error e = w.wait_exposure(api::waiter(c, g), true, &done, "MPI_Win_test");
    *flag = done ? 1 : 0;
    return e;
  });
}

int PMPI_Win_lock(int lock_type, int rank, int assert, MPI_Win win) {
  const char* call = "MPI_Win_lock";
  return api::win_call(call, win, [&](Context& c, Guard& g, Window& w) -> Error {
    if (lock_type != MPI_LOCK_SHARED && lock_type != MPI_LOCK_EXCLUSIVE) {
      return error(MPI_ERR_LOCKTYPE, "%s: rank %d: %s: lock type %d is not MPI_LOCK_SHARED or MPI_LOCK_EXCLUSIVE", call,
                   w.rank(), w.label().c_str(), lock_type);
    }
    Error e = api::check_assert(w, assert, MPI_MODE_NOCHECK, call);
    if (e.is_ok() && rank == MPI_PROC_NULL) return e;  // a lock of no process: nothing to do (nor to unlock)
    if (e.is_ok()) e = api::lock_rank_check(w, rank, call);
    return e.is_ok() ? w.lock(lock_type, rank, (assert & MPI_MODE_NOCHECK) != 0, api::waiter(c, g), call) : e;
  });
}

int PMPI_Win_unlock(int rank, MPI_Win win) {
  const char* call = "MPI_Win_unlock";
  return api::win_call(call, win, [&](Context&, Guard&, Window& w) -> Error {
    if (rank == MPI_PROC_NULL) return Error::ok();  // MPI_Win_lock of MPI_PROC_NULL locked nothing
    Error e = api::lock_rank_check(w, rank, call);
    return e.is_ok() ? w.unlock(rank, call) : e;
  });
}

int PMPI_Win_lock_all(int assert, MPI_Win win) {
  const char* call = "MPI_Win_lock_all";
  return api::win_call(call, win, [&](Context& c, Guard& g, Window& w) -> Error {
    Error e = api::check_assert(w, assert, MPI_MODE_NOCHECK, call);
    return e.is_ok() ? w.lock_all((assert & MPI_MODE_NOCHECK) != 0, api::waiter(c, g), call) : e;
  });
}

int PMPI_Win_unlock_all(MPI_Win win) {
  return api::win_call("MPI_Win_unlock_all", win,
                       [&](Context&, Guard&, Window& w) -> Error { return w.unlock_all("MPI_Win_unlock_all"); });
}

}  // extern "C" (helpers below have internal linkage, not C linkage)
namespace {
int flush(const char* call, int rank, MPI_Win win) {
  return api::win_call(call, win, [&](Context&, Guard&, Window& w) -> Error {
    if (rank == MPI_PROC_NULL) return Error::ok();  // no operation can be pending to no process
    if (rank >= 0) {
      Error e = api::lock_rank_check(w, rank, call);
      if (e.is_ok() && !w.passive_epoch(rank)) {
        e = error(MPI_ERR_RMA_SYNC, "%s: rank %d: %s: target rank %d is not locked (lock or lock_all)", call, w.rank(),
                  w.label().c_str(), rank);
      }
      if (!e.is_ok()) return e;
    }
    return w.flush(rank);
  });
}
}  // namespace
extern "C" {

int PMPI_Win_flush(int rank, MPI_Win win) { return flush("MPI_Win_flush", rank, win); }
int PMPI_Win_flush_local(int rank, MPI_Win win) { return flush("MPI_Win_flush_local", rank, win); }
int PMPI_Win_flush_all(MPI_Win win) { return flush("MPI_Win_flush_all", -1, win); }
int PMPI_Win_flush_local_all(MPI_Win win) { return flush("MPI_Win_flush_local_all", -1, win); }

int PMPI_Win_sync(MPI_Win win) {
  return api::win_call("MPI_Win_sync", win, [&](Context&, Guard&, Window& w) -> Error {
    // Only inside an epoch (MPI_ERR_RMA_SYNC otherwise, listed in mpi/win/README.md).
    if (!w.any_epoch()) {
      return error(MPI_ERR_RMA_SYNC, "MPI_Win_sync: rank %d: %s: no epoch is open (lock, lock_all, fence, start or post)",
                   w.rank(), w.label().c_str());
    }
    std::atomic_thread_fence(std::memory_order_seq_cst);
    return Error::ok();
  });
}

}  // extern "C"

// The RMA procedures with counts or displacement units; the int and _c bindings of each are
// generated (mpi/bindings/large_count.txt).
namespace gasket::mpi::large_count {

int Put(const char* call, const void* origin_addr, MPI_Count origin_count, MPI_Datatype origin_datatype, int target_rank,
            MPI_Aint target_disp, MPI_Count target_count, MPI_Datatype target_datatype, MPI_Win win) {
  return api::win_call(call, win, [&](Context& c, Guard&, Window& w) -> Error {
    return api::move(c, w, true, const_cast<void*>(origin_addr), origin_count, origin_datatype, target_rank,
                     target_disp, target_count, target_datatype, call);
  });
}

int Get(const char* call, void* origin_addr, MPI_Count origin_count, MPI_Datatype origin_datatype, int target_rank, MPI_Aint target_disp,
            MPI_Count target_count, MPI_Datatype target_datatype, MPI_Win win) {
  return api::win_call(call, win, [&](Context& c, Guard&, Window& w) -> Error {
    return api::move(c, w, false, origin_addr, origin_count, origin_datatype, target_rank, target_disp, target_count,
                     target_datatype, call);
  });
}

int Accumulate(const char* call, const void* origin_addr, MPI_Count origin_count, MPI_Datatype origin_datatype, int target_rank,
                   MPI_Aint target_disp, MPI_Count target_count, MPI_Datatype target_datatype, MPI_Op op, MPI_Win win) {
  return api::win_call(call, win, [&](Context& c, Guard&, Window& w) -> Error {
    return api::accumulate(c, w, origin_addr, origin_count, origin_datatype, nullptr, 0, MPI_DATATYPE_NULL,
                           target_rank, target_disp, target_count, target_datatype, op, call);
  });
}

int Get_accumulate(const char* call, const void* origin_addr, MPI_Count origin_count, MPI_Datatype origin_datatype, void* result_addr,
                       MPI_Count result_count, MPI_Datatype result_datatype, int target_rank, MPI_Aint target_disp,
                       MPI_Count target_count, MPI_Datatype target_datatype, MPI_Op op, MPI_Win win) {
  return api::win_call(call, win, [&](Context& c, Guard&, Window& w) -> Error {
    if (result_addr == nullptr && result_count > 0) {
      return error(MPI_ERR_BUFFER, "%s: rank %d: the result buffer is NULL", call, w.rank());
    }
    return api::accumulate(c, w, origin_addr, origin_count, origin_datatype, result_addr, result_count,
                           result_datatype, target_rank, target_disp, target_count, target_datatype, op, call);
  });
}

int Rput(const char* call, const void* origin_addr, MPI_Count origin_count, MPI_Datatype origin_datatype, int target_rank,
             MPI_Aint target_disp, MPI_Count target_count, MPI_Datatype target_datatype, MPI_Win win, MPI_Request* request) {
  return api::win_call(call, win, [&](Context& c, Guard&, Window& w) -> Error {
    Error e = api::check_request_epoch(w, target_rank, request, call);
    if (e.is_ok()) {
      e = api::move(c, w, true, const_cast<void*>(origin_addr), origin_count, origin_datatype, target_rank,
                    target_disp, target_count, target_datatype, call);
    }
    return e.is_ok() ? api::completed_request(c, w, request) : e;
  });
}

int Rget(const char* call, void* origin_addr, MPI_Count origin_count, MPI_Datatype origin_datatype, int target_rank, MPI_Aint target_disp,
             MPI_Count target_count, MPI_Datatype target_datatype, MPI_Win win, MPI_Request* request) {
  return api::win_call(call, win, [&](Context& c, Guard&, Window& w) -> Error {
    Error e = api::check_request_epoch(w, target_rank, request, call);
    if (e.is_ok()) {
      e = api::move(c, w, false, origin_addr, origin_count, origin_datatype, target_rank, target_disp, target_count,
                    target_datatype, call);
    }
    return e.is_ok() ? api::completed_request(c, w, request) : e;
  });
}

int Raccumulate(const char* call, const void* origin_addr, MPI_Count origin_count, MPI_Datatype origin_datatype, int target_rank,
                    MPI_Aint target_disp, MPI_Count target_count, MPI_Datatype target_datatype, MPI_Op op, MPI_Win win,
                    MPI_Request* request) {
  return api::win_call(call, win, [&](Context& c, Guard&, Window& w) -> Error {
    Error e = api::check_request_epoch(w, target_rank, request, call);
    if (e.is_ok()) {
      e = api::accumulate(c, w, origin_addr, origin_count, origin_datatype, nullptr, 0, MPI_DATATYPE_NULL, target_rank,
                          target_disp, target_count, target_datatype, op, call);
    }
    return e.is_ok() ? api::completed_request(c, w, request) : e;
  });
}

int Rget_accumulate(const char* call, const void* origin_addr, MPI_Count origin_count, MPI_Datatype origin_datatype, void* result_addr,
                        MPI_Count result_count, MPI_Datatype result_datatype, int target_rank, MPI_Aint target_disp,
                        MPI_Count target_count, MPI_Datatype target_datatype, MPI_Op op, MPI_Win win,
                        MPI_Request* request) {
  return api::win_call(call, win, [&](Context& c, Guard&, Window& w) -> Error {
    Error e = api::check_request_epoch(w, target_rank, request, call);
    if (e.is_ok() && result_addr == nullptr && result_count > 0) {
      e = error(MPI_ERR_BUFFER, "%s: rank %d: the result buffer is NULL", call, w.rank());
    }
    if (e.is_ok()) {
      e = api::accumulate(c, w, origin_addr, origin_count, origin_datatype, result_addr, result_count, result_datatype,
                          target_rank, target_disp, target_count, target_datatype, op, call);
    }
    return e.is_ok() ? api::completed_request(c, w, request) : e;
  });
}

int Win_create(const char* call, void* base, MPI_Aint size, MPI_Aint disp_unit, MPI_Info info, MPI_Comm comm, MPI_Win* win) {
  return api::call(call, comm, [&](Context& c, Guard& g) -> Error {
    return api::create(c, g, MPI_WIN_FLAVOR_CREATE, base, size, disp_unit, info, comm, nullptr, win, call);
  });
}

int Win_allocate(const char* call, MPI_Aint size, MPI_Aint disp_unit, MPI_Info info, MPI_Comm comm, void* baseptr, MPI_Win* win) {
  return api::call(call, comm, [&](Context& c, Guard& g) -> Error {
    return api::create(c, g, MPI_WIN_FLAVOR_ALLOCATE, nullptr, size, disp_unit, info, comm, baseptr, win,
                       call);
  });
}

int Win_allocate_shared(const char* call, MPI_Aint size, MPI_Aint disp_unit, MPI_Info info, MPI_Comm comm, void* baseptr, MPI_Win* win) {
  return api::call(call, comm, [&](Context& c, Guard& g) -> Error {
    return api::create(c, g, MPI_WIN_FLAVOR_SHARED, nullptr, size, disp_unit, info, comm, baseptr, win,
                       call);
  });
}

int Win_shared_query(const char* call, MPI_Win win, int rank, MPI_Aint* size, MPI_Aint* disp_unit, void* baseptr) {
  return api::win_call(call, win, [&](Context&, Guard&, Window& w) -> Error {
    if (size == nullptr || disp_unit == nullptr || baseptr == nullptr) {
      return error(MPI_ERR_ARG, "%s: rank %d: a NULL argument", call, w.rank());
    }
    if (rank == MPI_PROC_NULL) {  // the first rank with memory
      rank = 0;
      for (int r = 0; r < w.size(); ++r) {
        if (w.target(r).size > 0) {
          rank = r;
          break;
        }
      }
    } else if (rank < 0 || rank >= w.size()) {
      return api::lock_rank_check(w, rank, call);
    }
    // MPI 4.1: every flavor answers; memory not mapped here (another node, malloc'd memory of
    // another process, a dynamic window) and a rank of zero size give size 0 and a NULL base.
    bool has_memory = w.flavor() != MPI_WIN_FLAVOR_DYNAMIC && w.target(rank).size > 0;
    char* p = has_memory ? w.shared_pointer(rank) : nullptr;
    *size = p != nullptr ? static_cast<MPI_Aint>(w.target(rank).size) : 0;
    *disp_unit = w.target(rank).disp_unit;
    *static_cast<void**>(baseptr) = p;
    return Error::ok();
  });
}

}  // namespace gasket::mpi::large_count
