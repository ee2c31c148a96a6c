// The C bindings of MPI-IO (MPI 4.1 chapter 14): open/close and file manipulation, views, every
// data access routine (explicit offsets, individual and shared pointers; blocking, non-blocking,
// collective, split collective; int and _c counts), file error handlers, data representations.
// The collective parts run over MPI itself on a private duplicate of the file's communicator: the
// shared file pointer is an MPI_Offset in a window on rank 0 moved by MPI_Fetch_and_op, and
// collective buffering puts the data into the aggregators' window buffers (two_phase below).
// Errors go to the file's handler (MPI_ERRORS_RETURN unless set); MPI_FILE_NULL's handler serves
// MPI_File_open, MPI_File_delete and invalid file handles.
#include <fcntl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstring>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "core/gasket.h"
#include "mpi.h"
#include "mpi/api/call.h"
#include "mpi/api/requests.h"
#include "mpi/coll/algorithms.h"
#include "mpi/coll/schedule.h"
#include "mpi/io/file.h"

namespace gasket::mpi::api {
namespace {

using datatype::Datatype;
using io::File;

// ---- the error path ----

// Runs `handler` (a file error handler) for `e` on `handle`; returns the code the call returns.
int run_file_handler(Context& c, Guard& g, MPI_Errhandler handler, MPI_File handle, const Error& e,
                     const std::string& where) {
  int code = e.error_class();
  if (handler == MPI_ERRORS_RETURN) return code;
  comm::Errhandler* eh = nullptr;
  if (handler != MPI_ERRORS_ARE_FATAL && c.comms().lookup_errhandler(handler, "", &eh).is_ok() &&
      eh->function != nullptr) {
    auto* function = reinterpret_cast<MPI_File_errhandler_function*>(eh->function);
    c.run_callback(g, [&] { function(&handle, &code); });
    return e.error_class();
  }
  std::string msg = "MPI error on " + where + ": " + e.message() + " (" +
                    (error_class_string(code) ? error_class_string(code) : "unknown class") + ")";
  gasket::abort_job(code == 0 ? 1 : code, msg.c_str());
}

// The file's handler; MPI_FILE_NULL's when `handle` is not an open file.
int report_file(Context& c, MPI_File handle, const Error& e) {
  Guard g(c);
  File* f = c.files().find(handle);
  if (f == nullptr) {
    return run_file_handler(c, g, c.files().null_errhandler, MPI_FILE_NULL, e,
                            "rank " + std::to_string(gasket::my_pe()) + " (MPI_FILE_NULL)");
  }
  return run_file_handler(c, g, f->errhandler, handle, e, "rank " + std::to_string(f->rank) + " of " + f->label());
}

// FileTable::report: the errors of non-blocking accesses, met in MPI_Wait/Test.
int report_request_error(MPI_File handle, const Error& e) { return report_file(*Context::get(), handle, e); }

Error invalid_file(MPI_File handle, const char* call) {
  if (handle == MPI_FILE_NULL) return error(MPI_ERR_FILE, "%s: the file is MPI_FILE_NULL", call);
  return error(MPI_ERR_FILE, "%s: %d is not an open file (never opened, or closed)", call, handle);
}

// Runs body(Context&, Guard&, File&) -> Error under the lock for an open file.
template <typename Body>
int file_call(const char* name, MPI_File handle, Body body) {
  Context& c = context(name);
  Error e;
  {
    Guard g(c);
    File* f = c.files().find(handle);
    e = f != nullptr ? body(c, g, *f) : invalid_file(handle, name);
  }
  return e.is_ok() ? MPI_SUCCESS : report_file(c, handle, e);
}

// Calls without a file (open, delete, datarep registration): errors go to MPI_FILE_NULL's handler.
template <typename Body>
int null_call(const char* name, Body body) {
  Context& c = context(name);
  Error e;
  {
    Guard g(c);
    e = body(c, g);
  }
  return e.is_ok() ? MPI_SUCCESS : report_file(c, MPI_FILE_NULL, e);
}

// MPI_Allreduce on the file's communicator around file system calls, waiting asleep: the
// other ranks are in pwrite/pread/fsync for milliseconds (see README.md, Performance).
void allreduce_napping(const void* in, void* out, int count, MPI_Datatype type, MPI_Op op, const File& f) {
  MPI_Request request;
  PMPI_Iallreduce(in, out, count, type, op, f.comm, &request);
  int done = 0;
  for (long nap_ns = 2000;; nap_ns = std::min(2 * nap_ns, 50000L)) {
    PMPI_Test(&request, &done, MPI_STATUS_IGNORE);
    if (done) return;
    struct timespec nap = {0, nap_ns};
    ::nanosleep(&nap, nullptr);
  }
}

// A collective step's outcome on this rank once the ranks have shared their error classes: its
// own error, else the worst class another rank reported (named as such).
Error outcome_of(const File& f, Error local, int64_t worst, const char* call) {
  if (!local.is_ok() || worst == 0) return local;
  return error(static_cast<int>(worst), "%s: rank %d: the call failed on another rank of %s", call, f.rank,
               f.label().c_str());
}

// A collective step's outcome on every rank (an allreduce of the error classes).
Error agree(const File& f, Error local, const char* call) {
  int mine = local.error_class(), worst = 0;
  allreduce_napping(&mine, &worst, 1, MPI_INT, MPI_MAX, f);
  return outcome_of(f, std::move(local), worst, call);
}

Error check_nonnull(const void* p, const char* what, const char* call, const File& f) {
  if (p != nullptr) return Error::ok();
  return error(MPI_ERR_ARG, "%s: rank %d: %s: %s is NULL", call, f.rank, f.label().c_str(), what);
}

// ---- datatypes held by views ----

void hold_type(Context& c, int handle) { c.types().retain(handle); }
void drop_type(Context& c, int handle) {
  const Datatype* t = nullptr;
  if (c.types().lookup(handle, "", &t).is_ok() && !t->predefined) (void)c.types().free(&handle, "");
}

// ---- the shared file pointer ----

// Adds `add` etypes to the shared pointer; *old gets its value before.
void shared_fetch_add(const File& f, int64_t add, int64_t* old) {
  PMPI_Fetch_and_op(&add, old, MPI_INT64_T, 0, 0, MPI_SUM, f.shared_pointer);
  PMPI_Win_flush(0, f.shared_pointer);
}
void shared_set(const File& f, int64_t value) {
  int64_t old = 0;
  PMPI_Fetch_and_op(&value, &old, MPI_INT64_T, 0, 0, MPI_REPLACE, f.shared_pointer);
  PMPI_Win_flush(0, f.shared_pointer);
}

int64_t file_size(const File& f) {
  struct stat st{};
  return ::fstat(f.fd, &st) == 0 ? st.st_size : 0;
}

// The position (etypes) of the end of file in the view.
int64_t end_position(const File& f) { return f.view->stream_before(file_size(f)) / f.view->etype_size(); }

// ---- aggregators and collective buffering ----

// One rank per node (the lowest), or cb_nodes ranks: the node leaders first, then the others.
void choose_aggregators(File& f) {
  MPI_Comm node;
  PMPI_Comm_split_type(f.comm, MPI_COMM_TYPE_SHARED, f.rank, MPI_INFO_NULL, &node);
  int node_rank = 0;
  PMPI_Comm_rank(node, &node_rank);
  PMPI_Comm_free(&node);
  std::vector<int> leader(static_cast<size_t>(f.size));
  int mine = node_rank == 0 ? 1 : 0;
  PMPI_Allgather(&mine, 1, MPI_INT, leader.data(), 1, MPI_INT, f.comm);
  std::vector<int> order;
  for (int r = 0; r < f.size; ++r) if (leader[static_cast<size_t>(r)]) order.push_back(r);
  size_t leaders = order.size();
  f.nodes = static_cast<int>(leaders);
  for (int r = 0; r < f.size; ++r) if (!leader[static_cast<size_t>(r)]) order.push_back(r);
  size_t n = f.hints.cb_nodes > 0 ? std::min<size_t>(static_cast<size_t>(f.hints.cb_nodes), order.size()) : leaders;
  order.resize(n);
  std::sort(order.begin(), order.end());
  f.aggregators = order;
}

// The aggregators' buffers: a window of cb_buffer_size bytes on each (collective; remade when
// the hint changes).
void ensure_cb_window(File& f) {
  bool aggregator = std::find(f.aggregators.begin(), f.aggregators.end(), f.rank) != f.aggregators.end();
  int64_t want = aggregator ? f.hints.cb_buffer_size : 0;
  if (f.cb_window != MPI_WIN_NULL && f.cb_window_size == f.hints.cb_buffer_size) return;
  if (f.cb_window != MPI_WIN_NULL) PMPI_Win_free(&f.cb_window);
  PMPI_Win_allocate(static_cast<MPI_Aint>(want), 1, MPI_INFO_NULL, f.comm, &f.cb_buffer, &f.cb_window);
  PMPI_Win_set_errhandler(f.cb_window, MPI_ERRORS_RETURN);
  f.cb_window_size = f.hints.cb_buffer_size;
}

using Piece = io::Extent;  // a piece of a rank's access: file offset, length, stream offset

// What the ranks of a collective access tell each other to choose its path (an allreduce with
// MPI_MAX): whether some rank's access is non-contiguous, and minus the smallest mean piece
// length of a rank with pieces.
struct PieceShape {
  int64_t noncontiguous, minus_mean;
};
PieceShape shape_of(const std::vector<Piece>& pieces) {
  if (pieces.empty()) return {0, INT64_MIN + 1};
  int64_t bytes = 0;
  for (const Piece& p : pieces) bytes += p.length;
  return {pieces.size() > 1 ? 1 : 0, -(bytes / static_cast<int64_t>(pieces.size()))};
}

// A collective access on one node whose pieces average at least this on every rank is moved by
// each rank itself (romio_cb_* automatic); below, two-phase. Measured at 4-8 ranks on one node
// (README.md, "Choosing the path"): writing its own pieces was ahead from 16 KiB pieces up,
// two-phase ahead for 1.3 KiB pieces at 8 ranks; reading its own pieces was 2-5x ahead of
// two-phase at 4 ranks from 16 KiB pieces up (one copy from the page cache instead of two).
constexpr int64_t kOwnPiecesMean = 16 << 10;

// How a collective access moves its data (the same answer on every rank, from the agreed shape).
// romio_cb_* enable / disable decide alone. Automatic: each rank moves its own bytes when every
// access is contiguous (nothing to gather), and also when the ranks share one node, the file is
// not in atomic mode and every rank's pieces average kOwnPiecesMean or more: the ranks' system
// calls meet in the one page cache, which merges the writes, each byte is copied once between
// the page cache and the user's memory, and no rank waits for an aggregator or copies its bytes
// through another's buffer (README.md, "Choosing the path"). Otherwise two-phase: ranks on
// several nodes (a few large accesses per node instead of every rank's small ones over the
// network file system) and small interleaved pieces (moved independently they would be many
// tiny system calls, or sieved under a lock over each rank's whole range, which overlaps the
// others').
struct PathRule {
  io::Hints::Switch cb;
  bool write, atomic;
  int size, nodes;
  PathRule(const File& f, bool w)
      : cb(w ? f.hints.cb_write : f.hints.cb_read), write(w), atomic(f.atomic), size(f.size), nodes(f.nodes) {}
  io::CollectivePath choose(const PieceShape& all) const {
    bool two_phase;
    if (cb != io::Hints::Switch::kAutomatic) {
      two_phase = cb == io::Hints::Switch::kEnable;
    } else {
      bool large_pieces_on_one_node = nodes == 1 && !atomic && -all.minus_mean >= kOwnPiecesMean;
      two_phase = size > 1 && all.noncontiguous != 0 && !large_pieces_on_one_node;
    }
    return two_phase ? io::CollectivePath::kTwoPhase : io::CollectivePath::kIndependent;
  }
  void record(io::CollectivePaths& used, io::CollectivePath path) const { (write ? used.write : used.read).store(path); }
};

// Two-phase collective I/O. The range every rank accesses, [lo, hi), is split into one domain per
// aggregator; each domain moves through the aggregator's buffer in rounds of cb_buffer_size:
// writes put every rank's bytes into the buffer (one MPI_Put per piece), then the aggregator
// writes the round with one pwrite (reading it first when the pieces leave holes); reads are the
// reverse (one pread, then MPI_Get). Ranks without data take part in every round.
Error two_phase(File& f, bool write, const std::vector<Piece>& pieces, char* data, const char* call) {
  int64_t range[2] = {pieces.empty() ? INT64_MIN + 1 : -pieces.front().offset, 0};
  for (const Piece& p : pieces) range[1] = std::max(range[1], p.offset + p.length);
  int64_t global[2];
  allreduce_napping(range, global, 2, MPI_INT64_T, MPI_MAX, f);
  int64_t lo = -global[0], hi = global[1];
  if (hi <= lo) return Error::ok();
  ensure_cb_window(f);
  int64_t naggr = static_cast<int64_t>(f.aggregators.size());
  int64_t domain = (hi - lo + naggr - 1) / naggr, round_size = f.hints.cb_buffer_size;
  int64_t rounds = (domain + round_size - 1) / round_size;
  int my_slot = -1;
  for (size_t a = 0; a < f.aggregators.size(); ++a) if (f.aggregators[a] == f.rank) my_slot = static_cast<int>(a);
  std::vector<int64_t> covered(static_cast<size_t>(naggr)), covered_all(static_cast<size_t>(naggr));
  std::vector<int64_t> reach(static_cast<size_t>(naggr)), reach_all(static_cast<size_t>(naggr));
  Error failure;
  for (int64_t round = 0; round < rounds; ++round) {
    // This round's window of each aggregator's domain, and what this rank has in it.
    auto window = [&](int64_t a, int64_t* from, int64_t* to) {
      int64_t dom_lo = lo + a * domain, dom_hi = std::min(hi, dom_lo + domain);
      *from = dom_lo + round * round_size;
      *to = std::min(dom_hi, *from + round_size);
    };
    auto each_overlap = [&](const std::function<void(int64_t a, int64_t from, int64_t len, char* mem)>& fn) {
      for (int64_t a = 0; a < naggr; ++a) {
        int64_t w0, w1;
        window(a, &w0, &w1);
        if (w0 >= w1) continue;
        auto first = std::lower_bound(pieces.begin(), pieces.end(), w0,
                                      [](const Piece& p, int64_t v) { return p.offset + p.length <= v; });
        for (auto p = first; p != pieces.end() && p->offset < w1; ++p) {
          int64_t s = std::max(p->offset, w0), e = std::min(p->offset + p->length, w1);
          if (s < e) fn(a, s - w0, e - s, data + p->stream + (s - p->offset));
        }
      }
    };
    int64_t w0 = 0, w1 = 0;
    if (my_slot >= 0) window(my_slot, &w0, &w1);
    if (write) {
      std::fill(covered.begin(), covered.end(), 0);
      std::fill(reach.begin(), reach.end(), 0);
      each_overlap([&](int64_t a, int64_t from, int64_t len, char*) {
        covered[static_cast<size_t>(a)] += len;
        reach[static_cast<size_t>(a)] = std::max(reach[static_cast<size_t>(a)], from + len);
      });
      // The ranks wait here asleep while the aggregators write the previous round.
      allreduce_napping(covered.data(), covered_all.data(), static_cast<int>(naggr), MPI_INT64_T, MPI_SUM, f);
      allreduce_napping(reach.data(), reach_all.data(), static_cast<int>(naggr), MPI_INT64_T, MPI_MAX, f);
      int64_t extent = my_slot >= 0 ? reach_all[static_cast<size_t>(my_slot)] : 0;
      bool holes = my_slot >= 0 && covered_all[static_cast<size_t>(my_slot)] < extent;
      if (holes && failure.is_ok()) {  // read-modify-write: the holes keep the file's bytes
        std::memset(f.cb_buffer, 0, static_cast<size_t>(extent));
        ssize_t n = ::pread(f.fd, f.cb_buffer, static_cast<size_t>(extent), w0);
        if (n < 0) failure = error(io::error_class_of_errno(errno), "%s: rank %d: pread of %lld bytes at %lld: %s",
                                   call, f.rank, static_cast<long long>(extent), static_cast<long long>(w0),
                                   std::strerror(errno));
      }
      PMPI_Win_fence(0, f.cb_window);
      each_overlap([&](int64_t a, int64_t from, int64_t len, char* mem) {
        PMPI_Put(mem, static_cast<int>(len), MPI_BYTE, f.aggregators[static_cast<size_t>(a)], from,
                 static_cast<int>(len), MPI_BYTE, f.cb_window);
      });
      PMPI_Win_fence(0, f.cb_window);
      if (extent > 0 && failure.is_ok()) {
        int64_t done = 0;
        ssize_t n = 0;
        while (done < extent && (n = ::pwrite(f.fd, f.cb_buffer + done, static_cast<size_t>(extent - done),
                                              w0 + done)) > 0) done += n;
        if (done < extent) {
          failure = error(io::error_class_of_errno(n < 0 ? errno : ENOSPC),
                          "%s: rank %d: pwrite of %lld bytes at file offset %lld failed: %s", call, f.rank,
                          static_cast<long long>(extent), static_cast<long long>(w0),
                          std::strerror(n < 0 ? errno : ENOSPC));
        }
      }
    } else {
      if (my_slot >= 0 && w1 > w0 && failure.is_ok()) {
        int64_t done = 0;
        ssize_t n = 0;
        while (done < w1 - w0 && (n = ::pread(f.fd, f.cb_buffer + done, static_cast<size_t>(w1 - w0 - done),
                                              w0 + done)) > 0) done += n;
        if (n < 0) failure = error(io::error_class_of_errno(errno), "%s: rank %d: pread at %lld: %s", call, f.rank,
                                   static_cast<long long>(w0), std::strerror(errno));
        std::memset(f.cb_buffer + done, 0, static_cast<size_t>(w1 - w0 - done));
      }
      PMPI_Win_fence(0, f.cb_window);
      each_overlap([&](int64_t a, int64_t from, int64_t len, char* mem) {
        PMPI_Get(mem, static_cast<int>(len), MPI_BYTE, f.aggregators[static_cast<size_t>(a)], from,
                 static_cast<int>(len), MPI_BYTE, f.cb_window);
      });
      PMPI_Win_fence(0, f.cb_window);
    }
  }
  return failure;
}

// The file pieces of `bytes` stream bytes from stream byte `start`, in stream order; a read stops
// at the end of the file. *moved: the stream bytes they hold.
std::vector<Piece> pieces_of(const File& f, bool write, int64_t start, int64_t bytes, int64_t* moved) {
  return io::extents_of(*f.view, start, bytes, write ? -1 : file_size(f), moved);
}

// A collective transfer: two-phase or each rank its own bytes, as PathRule chooses. Reads end at
// end of file. `checked` is this rank's outcome of the argument checks (its rank takes part with
// no data when it failed): one allreduce agrees on it and on the shape of the access before any
// data moves, so a bad argument on one rank fails every rank's call. That allreduce waits the
// core's way (spin, then sleep on the doorbell), not in allreduce_napping's fixed naps: the ranks
// are entering the call, not in a file system call, and a nap of a few microseconds lasts 42-71 us
// (the kernel's timer slack), as long as reading 1.5 MB from the page cache (mpi/io/README.md,
// "Performance").
Error collective_transfer(File& f, bool write, int64_t start, char* data, int64_t bytes, int64_t* moved,
                          Error checked, const char* call) {
  std::vector<Piece> pieces;
  *moved = 0;
  if (checked.is_ok()) pieces = pieces_of(f, write, start, bytes, moved);
  PieceShape shape = shape_of(pieces);
  int64_t mine[3] = {checked.error_class(), shape.noncontiguous, shape.minus_mean}, all[3];
  PMPI_Allreduce(mine, all, 3, MPI_INT64_T, MPI_MAX, f.comm);
  Error agreed = outcome_of(f, std::move(checked), all[0], call);
  if (!agreed.is_ok()) {
    *moved = 0;
    return agreed;
  }
  PathRule rule(f, write);
  io::CollectivePath path = rule.choose(PieceShape{all[1], all[2]});
  rule.record(*f.paths_used, path);
  if (path == io::CollectivePath::kTwoPhase) return agree(f, two_phase(f, write, pieces, data, call), call);
  // Each rank moves its own bytes and returns its own outcome, as an independent access: the
  // arguments were agreed on before, and agreeing on the system calls' outcome too would hold
  // every rank until the slowest rank's pwrite ends, so none could begin the MPI_File_sync that
  // usually follows (its fsync flushes the pages written so far) — README.md, "Outcomes".
  int64_t done = 0;
  Error e = io::transfer_extents(f.access(), write, pieces, data, *moved, &done, call, f.rank);
  *moved = done;
  return e;
}

// ---- data representations ----

// The bytes one element of `type` (handle `handle`) takes in the file under view `v`'s data
// representation (external32 sizes differ from memory for MPI_LONG, MPI_UNSIGNED_LONG,
// MPI_LONG_DOUBLE...; a registered representation's extent function gives the size of each
// predefined type, and a type mixing predefined types takes the sum of its data items' sizes,
// the data items being packed in the file); -1 when the extent function fails.
int64_t element_file_size(Context& c, const io::View& v, const Datatype& type, int handle) {
  if (v.basic_size == nullptr) return type.size;
  if (v.datarep == "external32") return datatype::external32_size(type);
  if (type.size == 0) return 0;
  const Datatype* basic = c.types().find_committed(type.basic_type);
  if (type.basic_type != 0 && basic != nullptr && basic->size != 0) {
    int64_t each = v.basic_size(type.basic_type, *basic);
    return each <= 0 ? -1 : type.size / basic->size * each;
  }
  Datatype in_file;
  return io::file_layout(c.types(), handle, v.basic_size, "", &in_file).is_ok() ? in_file.size : -1;
}

int64_t file_bytes(Context& c, const io::View& v, const Datatype& type, int handle, int64_t count) {
  return count * std::max<int64_t>(0, element_file_size(c, v, type, handle));
}

// The memory bytes of the whole elements of `type` in `moved` file bytes (a status's count).
int64_t memory_bytes(Context& c, const io::View& v, const Datatype& type, int handle, int64_t moved) {
  int64_t in_file = element_file_size(c, v, type, handle);
  return in_file == type.size || in_file <= 0 ? moved : moved / in_file * type.size;
}

// Checks that the view's data representation gives `type` a size in the file.
Error check_datarep(Context& c, const File& f, const Datatype& type, int handle, const char* call) {
  if (element_file_size(c, *f.view, type, handle) >= 0) return Error::ok();
  return error(MPI_ERR_UNSUPPORTED_DATAREP,
               "%s: rank %d: %s: datarep \"%s\" gives no file size for datatype %d (its extent function failed for "
               "one of the type's predefined types)",
               call, f.rank, f.label().c_str(), f.view->datarep.c_str(), handle);
}

// Memory -> the file's packed representation (in *out, or *direct when no copy is needed).
Error stage_out(Context& c, Guard& g, const File& f, const void* buf, int64_t count, const Datatype& type,
                int handle, std::vector<char>* out, char** direct, const char* call) {
  int64_t bytes = count * type.size;
  const std::string& rep = f.view->datarep;
  if ((rep == "native" || rep == "internal") && type.contiguous()) {
    *direct = const_cast<char*>(static_cast<const char*>(buf)) + type.true_lb;
    return Error::ok();
  }
  out->resize(static_cast<size_t>(file_bytes(c, *f.view, type, handle, count)));
  *direct = out->data();
  if (rep == "native" || rep == "internal") {
    datatype::pack(type, buf, count, out->data());
  } else if (rep == "external32") {
    std::vector<char> packed(static_cast<size_t>(bytes));
    datatype::pack(type, buf, count, packed.data());
    datatype::to_external32(type, count, packed.data(), out->data());
  } else {
    // The conversion functions count data items (typemap entries of `type`, §14.5.3).
    const io::Datarep d = c.files().datareps.at(rep);
    int64_t items = count * type.basic_count;
    int rc = c.run_callback(g, [&] {
      return d.write_c != nullptr ? d.write_c(const_cast<void*>(buf), handle, items, out->data(), 0, d.extra_state)
             : d.write != nullptr ? d.write(const_cast<void*>(buf), handle, static_cast<int>(items), out->data(), 0,
                                            d.extra_state)
                                  : (datatype::pack(type, buf, count, out->data()), MPI_SUCCESS);
    });
    if (rc != MPI_SUCCESS) {
      return error(MPI_ERR_CONVERSION, "%s: rank %d: the write conversion of datarep \"%s\" returned %d", call, f.rank,
                   rep.c_str(), rc);
    }
  }
  return Error::ok();
}

// The file's packed representation (the first `moved` bytes of `in`) -> memory.
Error stage_in(Context& c, Guard& g, const io::View& view, const char* in, int64_t moved, void* buf, int64_t count,
               const Datatype& type, int handle, int rank, const char* call) {
  const std::string& rep = view.datarep;
  int64_t whole = moved / std::max<int64_t>(1, element_file_size(c, view, type, handle));  // whole elements only
  if (rep == "native" || rep == "internal") {
    datatype::unpack(type, in, moved, buf, count);
  } else if (rep == "external32") {
    std::vector<char> native(static_cast<size_t>(whole * type.size));
    datatype::from_external32(type, whole, in, native.data());
    datatype::unpack(type, native.data(), whole * type.size, buf, count);
  } else {
    const io::Datarep d = c.files().datareps.at(rep);
    int64_t items = whole * type.basic_count;  // data items, as in stage_out
    int rc = c.run_callback(g, [&] {
      char* file_side = const_cast<char*>(in);
      return d.read_c != nullptr ? d.read_c(buf, handle, items, file_side, 0, d.extra_state)
             : d.read != nullptr ? d.read(buf, handle, static_cast<int>(items), file_side, 0, d.extra_state)
                                 : (datatype::unpack(type, in, moved, buf, count), MPI_SUCCESS);
    });
    if (rc != MPI_SUCCESS) {
      return error(MPI_ERR_CONVERSION, "%s: rank %d: the read conversion of datarep \"%s\" returned %d", call, rank,
                   rep.c_str(), rc);
    }
  }
  return Error::ok();
}

// ---- non-blocking collective buffering ----

// The non-blocking collectives (MPI_File_i*_all) and the split collectives (_begin/_end) as an
// operation the engine advances while the caller computes: two-phase I/O as in two_phase(), in
// steps over the file's communicator (collective schedules made at the call, so that every rank
// matches the same ones whatever it does meanwhile):
//  1. allreduce of the range every rank touches, of whether some rank's access is
//     non-contiguous and of the worst argument error (with romio_cb_* automatic and contiguous
//     accesses everywhere, each rank's I/O thread moves its own bytes instead, steps 2-5 are
//     skipped and each rank ends with its own outcome: README.md, "Outcomes");
//  2. the range split into one domain per aggregator, each moved in rounds of cb_buffer_size (as
//     in the blocking form); per round, an alltoall of how many pieces (and bytes) each rank has
//     in that round's window of each aggregator's domain;
//  3. every rank sends each aggregator the (offset, length) list of its pieces there and, for
//     writes, their bytes;
//  4. each aggregator merges the pieces into contiguous runs, which its I/O thread writes (or
//     reads) in one call each; reads send each rank its bytes back; then the next round (2);
//  5. allreduce of the error class (once this rank's file system calls are done), so that every
//     rank of a two-phase access ends with the same outcome.
// Each cb round adds a schedule round to the counts, pieces and replies schedules (the same tag;
// messages between two ranks do not overtake), so an aggregator holds one round's bytes at most.
class TwoPhaseSteps {
 public:
  TwoPhaseSteps(Context& c, const File& f, const comm::Communicator& comm, std::shared_ptr<io::IoJob> job,
                std::vector<Piece> pieces, Error failure)
      : c_(c), job_(std::move(job)), pieces_(std::move(pieces)), failure_(std::move(failure)),
        aggregators_(f.aggregators), rank_(f.rank), size_(f.size), rule_(f, job_->write), paths_used_(f.paths_used),
        round_size_(f.hints.cb_buffer_size) {
    for (auto& s : steps_) s = std::make_unique<coll::Schedule>(c, comm, job_->call);
    PieceShape shape = shape_of(pieces_);
    int64_t mine[5] = {pieces_.empty() ? INT64_MIN + 1 : -pieces_.front().offset, 0, shape.noncontiguous,
                       shape.minus_mean, failure_.error_class()};
    for (const Piece& p : pieces_) mine[1] = std::max(mine[1], p.offset + p.length);
    allreduce_max(*steps_[kRange], mine, range_, 5);
  }

  // Advances as far as possible; true once every step is done (the job then holds the outcome).
  bool advance() {
    while (step_ < kSteps) {
      if (io_ != nullptr) {  // this rank's file system work, on the I/O thread
        if (!io_->finished.load(std::memory_order_acquire)) return false;
        if (failure_.is_ok()) failure_ = io_->error;
        if (!two_phase_) job_->moved = io_->moved;
        io_ = nullptr;
      }
      if (step_ == kOutcome && !two_phase_) {  // each rank moved its own bytes: its own outcome
        conclude_job();
        step_ = kSteps;
        break;
      }
      if (step_ == kOutcome && !outcome_started_) {  // after this rank's last file system call
        outcome_started_ = true;
        int64_t mine = failure_.error_class();
        allreduce_max(*steps_[kOutcome], &mine, &worst_, 1);
      }
      Error e;
      if (!steps_[step_]->progress(&e)) return false;
      if (!e.is_ok() && failure_.is_ok()) failure_ = e;
      step_ = finish_step(step_);
    }
    return true;
  }

 private:
  enum Step { kRange, kCounts, kPieces, kReplies, kOutcome, kSteps };

  void allreduce_max(coll::Schedule& s, const int64_t* mine, int64_t* out, int count) {
    s.set_reduction(MPI_MAX, MPI_INT64_T, c_.types().find_committed(MPI_INT64_T));
    char* acc = s.scratch(count * 8);
    std::memcpy(acc, mine, static_cast<size_t>(count) * 8);
    coll::allreduce(s, s.peers(), acc, reinterpret_cast<char*>(out), count, true);
  }

  // What the step just done makes possible (the next steps' traffic and local work); the step
  // to wait for next.
  size_t finish_step(size_t done) {
    switch (done) {
      case kRange:
        split_into_domains();
        if (!two_phase_) return kOutcome;
        count_round();
        return kCounts;
      case kCounts:
        exchange_pieces();
        return kPieces;
      case kPieces:
        work_on_domain();
        return kReplies;
      case kReplies:
        take_replies();
        if (++round_ == rounds_) return kOutcome;
        count_round();
        return kCounts;
      case kOutcome:
        conclude_job();
        return kSteps;
      default:
        return kSteps;
    }
  }

  // Step 1 done: whether to go two-phase (every rank decides alike), the domains and rounds.
  void split_into_domains() {
    lo_ = -range_[0];
    int64_t hi = range_[1];
    io::CollectivePath path = rule_.choose(PieceShape{range_[2], range_[3]});
    rule_.record(*paths_used_, path);
    two_phase_ = hi > lo_ && path == io::CollectivePath::kTwoPhase;
    if (!two_phase_) {  // each rank its own bytes, independently
      worst_ = range_[4];  // the arguments' outcome, agreed in step 1
      if (failure_.is_ok() && worst_ == 0 && !pieces_.empty()) {
        submit([job = job_](int64_t* moved) {
          return io::transfer(job->access, job->write, job->start, job->data, job->bytes, moved, job->call,
                              job->rank);
        });
      }
      return;
    }
    hi_ = hi;
    int64_t naggr = static_cast<int64_t>(aggregators_.size());
    domain_size_ = (hi_ - lo_ + naggr - 1) / naggr;
    rounds_ = (domain_size_ + round_size_ - 1) / round_size_;
  }

  // A round begins: this rank's pieces in the round's window of each aggregator's domain (the
  // pieces are in file order: filetypes never go back), and an alltoall of their counts in a new
  // round of the counts schedule.
  void count_round() {
    size_t n = static_cast<size_t>(size_);
    outgoing_.assign(n, {});
    send_counts_.assign(2 * n, 0);
    recv_counts_.assign(2 * n, 0);
    for (size_t a = 0; a < aggregators_.size(); ++a) {
      int64_t d0 = lo_ + static_cast<int64_t>(a) * domain_size_, d1 = std::min(hi_, d0 + domain_size_);
      int64_t w0 = d0 + round_ * round_size_, w1 = std::min(d1, w0 + round_size_);
      if (w0 >= w1) continue;
      size_t to = static_cast<size_t>(aggregators_[a]);
      auto first = std::lower_bound(pieces_.begin(), pieces_.end(), w0,
                                    [](const Piece& p, int64_t v) { return p.offset + p.length <= v; });
      for (auto p = first; p != pieces_.end() && p->offset < w1; ++p) {
        int64_t s0 = std::max(p->offset, w0), s1 = std::min(p->offset + p->length, w1);
        if (s0 >= s1) continue;
        outgoing_[to].push_back({s0, s1 - s0, p->stream + (s0 - p->offset)});
        send_counts_[2 * to] += 1;
        send_counts_[2 * to + 1] += s1 - s0;
      }
    }
    coll::Schedule& s = *steps_[kCounts];
    s.next();
    std::vector<coll::Typed> to(n), from(n);
    for (size_t r = 0; r < n; ++r) {
      to[r] = coll::as_bytes(s, &send_counts_[2 * r], 16);
      from[r] = coll::as_bytes(s, &recv_counts_[2 * r], 16);
    }
    coll::alltoall(s, s.peers(), to, from, true);
  }

  // A message of `pieces` (their offsets and lengths, then for writes their bytes).
  int64_t message_bytes(int64_t pieces, int64_t bytes) const { return pieces * 16 + (job_->write ? bytes : 0); }

  // A round's counts known: its piece lists (and written bytes) go to the aggregators, in a new
  // round of the pieces schedule.
  void exchange_pieces() {
    size_t n = static_cast<size_t>(size_);
    outbox_.assign(n, {});
    inbox_.assign(n, {});
    coll::Schedule& s = *steps_[kPieces];
    s.next();
    for (size_t r = 0; r < n; ++r) {
      std::vector<char>& m = outbox_[r];
      m.resize(static_cast<size_t>(message_bytes(send_counts_[2 * r], send_counts_[2 * r + 1])));
      char* at = m.data();
      for (const Piece& p : outgoing_[r]) {
        int64_t where[2] = {p.offset, p.length};
        std::memcpy(at, where, 16);
        at += 16;
      }
      for (size_t i = 0; job_->write && i < outgoing_[r].size(); ++i) {
        const Piece& p = outgoing_[r][i];
        std::memcpy(at, job_->data + p.stream, static_cast<size_t>(p.length));
        at += p.length;
      }
      inbox_[r].resize(static_cast<size_t>(message_bytes(recv_counts_[2 * r], recv_counts_[2 * r + 1])));
      if (static_cast<int>(r) == rank_) {
        inbox_[r] = outbox_[r];
        continue;
      }
      if (!m.empty()) s.send_bytes(s.peers(), static_cast<int>(r), m.data(), static_cast<int64_t>(m.size()));
      if (!inbox_[r].empty()) s.recv_bytes(s.peers(), static_cast<int>(r), inbox_[r].data(), static_cast<int64_t>(inbox_[r].size()));
    }
  }

  struct Run {
    int64_t offset, length, at;  // a contiguous file range and its place in the round's buffer
  };
  struct Incoming {
    int64_t offset, length;
    size_t from;    // rank
    char* data;     // the written bytes in inbox_[from], or where read bytes go in outbox_[from]
  };

  // A round's pieces exchanged (an aggregator): the pieces of every rank merged into runs for the
  // I/O thread.
  void work_on_domain() {
    std::vector<Incoming> in;
    for (size_t r = 0; r < inbox_.size(); ++r) {
      int64_t count = recv_counts_[2 * r];
      if (count == 0) continue;
      const char* list = inbox_[r].data();
      char* bytes = job_->write ? inbox_[r].data() + count * 16 : nullptr;
      if (!job_->write) outbox_[r].assign(static_cast<size_t>(recv_counts_[2 * r + 1]), 0);  // the reply
      char* reply = job_->write ? nullptr : outbox_[r].data();
      for (int64_t i = 0; i < count; ++i) {
        int64_t where[2];
        std::memcpy(where, list + 16 * i, 16);
        in.push_back({where[0], where[1], r, job_->write ? bytes : reply});
        (job_->write ? bytes : reply) += where[1];
      }
    }
    std::stable_sort(in.begin(), in.end(), [](const Incoming& a, const Incoming& b) { return a.offset < b.offset; });
    auto runs = std::make_shared<std::vector<Run>>();
    int64_t total = 0;
    for (const Incoming& p : in) {
      if (!runs->empty() && p.offset <= runs->back().offset + runs->back().length) {
        Run& last = runs->back();
        int64_t end = std::max(last.offset + last.length, p.offset + p.length);
        total += end - (last.offset + last.length);
        last.length = end - last.offset;
      } else {
        runs->push_back({p.offset, p.length, total});
        total += p.length;
      }
    }
    domain_.assign(static_cast<size_t>(total), 0);
    // Each piece's place in the round's buffer (runs and pieces are both in file order).
    placed_.clear();
    size_t run = 0;
    for (Incoming& p : in) {
      while ((*runs)[run].offset + (*runs)[run].length <= p.offset) ++run;
      placed_.push_back({domain_.data() + (*runs)[run].at + (p.offset - (*runs)[run].offset), p.data, p.length});
    }
    if (job_->write) for (const Placed& p : placed_) std::memcpy(p.domain, p.message, static_cast<size_t>(p.length));
    if (!runs->empty() && failure_.is_ok()) {
      int fd = job_->access.fd, rank = job_->rank;
      bool write = job_->write;
      char* buffer = domain_.data();
      const char* call = job_->call;
      submit([=](int64_t*) { return move_runs(fd, write, *runs, buffer, call, rank); });
    }
    build_replies();
  }

  // One system call per run (repeated for short transfers); a read past the end leaves zeros.
  static Error move_runs(int fd, bool write, const std::vector<Run>& runs, char* buffer, const char* call, int rank) {
    for (const Run& r : runs) {
      int64_t done = 0;
      Error e = io::posix_io(fd, write, buffer + r.at, r.length, r.offset, &done, call, rank);
      if (!e.is_ok()) return e;
    }
    return Error::ok();
  }

  // Reads: the replies (each rank's pieces in its order) leave once the I/O thread has read the
  // round; every rank receives its bytes from each aggregator, in a new round of the replies
  // schedule.
  void build_replies() {
    if (job_->write) return;
    coll::Schedule& s = *steps_[kReplies];
    s.next();
    replies_.assign(static_cast<size_t>(size_), {});
    s.local([this] { for (const Placed& p : placed_) std::memcpy(p.message, p.domain, static_cast<size_t>(p.length)); });
    for (size_t r = 0; r < static_cast<size_t>(size_); ++r) {
      replies_[r].resize(static_cast<size_t>(send_counts_[2 * r + 1]));
      if (static_cast<int>(r) == rank_) continue;
      if (recv_counts_[2 * r] > 0) s.send_bytes(s.peers(), static_cast<int>(r), outbox_[r].data(), static_cast<int64_t>(outbox_[r].size()));
      if (send_counts_[2 * r] > 0) s.recv_bytes(s.peers(), static_cast<int>(r), replies_[r].data(), static_cast<int64_t>(replies_[r].size()));
    }
  }

  // A round's replies in: read bytes go to their stream places.
  void take_replies() {
    if (job_->write) return;
    size_t me = static_cast<size_t>(rank_);
    if (recv_counts_[2 * me] > 0) replies_[me] = outbox_[me];
    for (size_t r = 0; r < outgoing_.size(); ++r) {
      const char* at = replies_[r].data();
      for (const Piece& p : outgoing_[r]) {
        std::memcpy(job_->data + p.stream, at, static_cast<size_t>(p.length));
        at += p.length;
      }
    }
  }

  void conclude_job() {
    job_->error = failure_;
    if (failure_.is_ok() && worst_ != 0) {
      job_->error = error(static_cast<int>(worst_), "%s: rank %d: the collective access failed on another rank",
                          job_->call, rank_);
    }
    job_->finished.store(true, std::memory_order_release);
    job_->in_flight->fetch_sub(1, std::memory_order_release);
  }

  void submit(std::function<Error(int64_t*)> work) {
    io_ = std::make_shared<io::IoJob>();
    io_->work = std::move(work);
    io_->in_flight = job_->in_flight;
    job_->in_flight->fetch_add(1, std::memory_order_relaxed);
    c_.files().io_thread().submit(io_);
  }

  struct Placed {
    char* domain;   // the piece in the round's buffer
    char* message;  // and in the message from (writes) or reply to (reads) its rank
    int64_t length;
  };

  Context& c_;
  std::shared_ptr<io::IoJob> job_;
  std::vector<Piece> pieces_;
  Error failure_;
  std::vector<int> aggregators_;
  int rank_, size_;
  PathRule rule_;
  std::shared_ptr<io::CollectivePaths> paths_used_;
  int64_t round_size_;
  std::unique_ptr<coll::Schedule> steps_[kSteps];
  size_t step_ = 0;
  std::shared_ptr<io::IoJob> io_;
  int64_t range_[5] = {0, 0, 0, 0, 0}, worst_ = 0;
  bool two_phase_ = false, outcome_started_ = false;
  int64_t lo_ = 0, hi_ = 0, domain_size_ = 0;  // the range all ranks touch, split into domains
  int64_t rounds_ = 0, round_ = 0;               // of cb_buffer_size in each domain
  std::vector<std::vector<Piece>> outgoing_;     // this round: this rank's pieces, per aggregator rank
  std::vector<int64_t> send_counts_, recv_counts_;  // this round: (pieces, bytes) to / from each rank
  std::vector<std::vector<char>> outbox_, inbox_, replies_;
  std::vector<char> domain_;
  std::vector<Placed> placed_;
};

// ---- data access ----

enum class Position { kExplicit, kIndividual, kShared, kOrdered };
enum class Completion { kBlocking, kCollective, kNonblocking, kNonblockingCollective, kBegin };

struct Routine {
  const char* name;
  bool write;
  Position position;
  Completion completion;
};

// A non-blocking access: the I/O thread moves the bytes; completion unpacks a read.
class FileOperation final : public p2p::Operation {
 public:
  FileOperation(Context& c, p2p::Request* self, std::shared_ptr<io::IoJob> job, void* buf, int64_t count,
                const Datatype* type, int handle)
      : c_(c), self_(self), job_(std::move(job)), buf_(buf), count_(count), type_(type), handle_(handle) {}
  // A collective access: the job is done by these steps (non-blocking two-phase I/O).
  void run_as(std::unique_ptr<TwoPhaseSteps> steps) { steps_ = std::move(steps); }
  bool progress(Error* e) override {
    if (steps_ != nullptr && !steps_->advance()) return false;
    if (!job_->finished.load(std::memory_order_acquire)) return false;
    self_->status_bytes = memory_bytes(c_, *job_->access.view, *type_, handle_, job_->moved);
    if (!job_->error.is_ok()) {
      *e = job_->error;
      return true;
    }
    if (!job_->write && job_->data != static_cast<char*>(buf_) + type_->true_lb) {
      Guard nested(c_);
      *e = stage_in(c_, nested, *job_->access.view, job_->data, job_->moved, buf_, count_, *type_, handle_,
                    job_->rank, job_->call);
    }
    return true;
  }

 private:
  Context& c_;
  p2p::Request* self_;
  std::shared_ptr<io::IoJob> job_;
  void* buf_;
  int64_t count_;
  const Datatype* type_;
  int handle_;
  std::unique_ptr<TwoPhaseSteps> steps_;
};

// The handles of an access (the file's was looked up by file_call): the datatype, and the request
// pointer of a non-blocking one. An invalid handle is the caller's error at the call, as in every
// MPI call, non-blocking collectives included (MPI_DATATYPE_NULL is no data at count 0).
Error check_handles(Context& c, const File& f, const Routine& k, MPI_Datatype handle, MPI_Count count,
                    const MPI_Request* request, const Datatype** type) {
  const char* call = k.name;
  bool nonblocking = k.completion == Completion::kNonblocking || k.completion == Completion::kNonblockingCollective;
  if (nonblocking) {
    Error e = check_nonnull(request, "the request", call, f);
    if (!e.is_ok()) return e;
  }
  Error e = c.types().lookup_data(handle, count, call, type);
  if (!e.is_ok()) return Error(e.error_class(), e.message() + " (rank " + std::to_string(f.rank) + ")");
  return Error::ok();
}

// The values of an access whose handles are valid (access modes, offset, count, buffer, sizes).
// A non-blocking collective reports these at completion (its rank takes part with no data).
Error check_values(Context& c, const File& f, const Routine& k, MPI_Offset offset, const void* buf, MPI_Count count,
                   MPI_Datatype handle, const Datatype* type) {
  const char* call = k.name;
  if (k.write && (f.amode & MPI_MODE_RDONLY)) {
    return error(MPI_ERR_READ_ONLY, "%s: rank %d: %s was opened MPI_MODE_RDONLY", call, f.rank, f.label().c_str());
  }
  if (!k.write && (f.amode & MPI_MODE_WRONLY)) {
    return error(MPI_ERR_ACCESS, "%s: rank %d: %s was opened MPI_MODE_WRONLY", call, f.rank, f.label().c_str());
  }
  if ((f.amode & MPI_MODE_SEQUENTIAL) && (k.position == Position::kExplicit || k.position == Position::kIndividual)) {
    return error(MPI_ERR_UNSUPPORTED_OPERATION, "%s: rank %d: %s was opened MPI_MODE_SEQUENTIAL (only the shared "
                 "file pointer may be used)", call, f.rank, f.label().c_str());
  }
  if (k.position == Position::kExplicit && offset < 0) {
    return error(MPI_ERR_ARG, "%s: rank %d: %s: offset %lld is negative", call, f.rank, f.label().c_str(),
                 static_cast<long long>(offset));
  }
  if (count < 0) {
    return error(MPI_ERR_COUNT, "%s: rank %d: %s: count %lld is negative", call, f.rank, f.label().c_str(),
                 static_cast<long long>(count));
  }
  if (buf == nullptr && count > 0 && type->size > 0 && type->true_lb == 0) {
    return error(MPI_ERR_BUFFER, "%s: rank %d: %s: the buffer is NULL for %lld elements", call, f.rank,
                 f.label().c_str(), static_cast<long long>(count));
  }
  if (file_bytes(c, *f.view, *type, handle, count) % f.view->etype_size() != 0) {
    return error(MPI_ERR_TYPE, "%s: rank %d: %s: %lld bytes of datatype %d are not a whole number of etypes (%lld "
                 "bytes each)", call, f.rank, f.label().c_str(),
                 static_cast<long long>(file_bytes(c, *f.view, *type, handle, count)),
                 handle, static_cast<long long>(f.view->etype_size()));
  }
  if (k.completion == Completion::kBegin && f.split != MPI_REQUEST_NULL) {
    return error(MPI_ERR_OTHER, "%s: rank %d: %s already has a split collective in progress (call its _end first)",
                 call, f.rank, f.label().c_str());
  }
  return check_datarep(c, f, *type, handle, call);
}

// Every data access routine: where it starts (in etypes), how it completes.
Error access(Context& c, Guard& g, File& f, MPI_File fh, const Routine& k, MPI_Offset offset, const void* buf,
             MPI_Count count, MPI_Datatype handle, MPI_Status* status, MPI_Request* request) {
  const char* call = k.name;
  bool nonblocking = k.completion == Completion::kNonblocking || k.completion == Completion::kNonblockingCollective;
  const Datatype* type = nullptr;
  Error bad_handle = check_handles(c, f, k, handle, count, request, &type);
  Error e = bad_handle.is_ok() ? check_values(c, f, k, offset, buf, count, handle, type) : bad_handle;
  bool collective = k.completion != Completion::kBlocking && k.completion != Completion::kNonblocking;
  // Blocking and split collectives agree on errors: split and ordered ones here, the others in
  // collective_transfer's one allreduce, where a rank that failed its checks takes part with no
  // data (and so does a non-blocking collective's, which must not wait for the other ranks: it
  // returns a bad handle at once, its request, if any, released when done, or fails its request
  // at completion for a bad value, the file's handler running in MPI_Wait/Test).
  bool agreed = k.completion == Completion::kBegin || k.position == Position::kOrdered;
  bool takes_part_failed = collective && !agreed;
  if (agreed) e = agree(f, std::move(e), call);
  Error failure;
  if (!e.is_ok() && takes_part_failed) {
    failure = std::move(e);
    e = Error::ok();
    count = 0;
    if (type == nullptr) type = c.types().find_committed(MPI_BYTE);
  }
  if (!e.is_ok()) return e;
  int64_t bytes = file_bytes(c, *f.view, *type, handle, count), esz = f.view->etype_size(), etypes = bytes / esz;
  int64_t position = offset;
  switch (k.position) {
    case Position::kExplicit:
      break;
    case Position::kIndividual:
      position = f.pointer;
      f.pointer += etypes;  // a short read moves it back below
      break;
    case Position::kShared:
      shared_fetch_add(f, etypes, &position);
      break;
    case Position::kOrdered: {
      int64_t before = 0, total = 0, base = 0;
      PMPI_Exscan(&etypes, &before, 1, MPI_INT64_T, MPI_SUM, f.comm);
      if (f.rank == 0) before = 0;
      PMPI_Allreduce(&etypes, &total, 1, MPI_INT64_T, MPI_SUM, f.comm);
      if (f.rank == 0) shared_fetch_add(f, total, &base);
      PMPI_Bcast(&base, 1, MPI_INT64_T, 0, f.comm);
      position = base + before;
      break;
    }
  }
  std::vector<char> staging;
  char* data = nullptr;
  if (k.write) {
    e = stage_out(c, g, f, buf, count, *type, handle, &staging, &data, call);
  } else if (f.view->datarep == "native" && type->contiguous()) {  // read straight into the caller's memory
    data = static_cast<char*>(const_cast<void*>(buf)) + type->true_lb;
  } else {
    staging.resize(static_cast<size_t>(bytes));
    data = staging.data();
  }
  if (agreed) e = agree(f, std::move(e), call);
  if (!e.is_ok() && takes_part_failed) {
    failure = std::move(e);  // a conversion failed: no data, as above
    e = Error::ok();
    bytes = 0;
  }
  if (!e.is_ok()) return e;
  if (nonblocking || k.completion == Completion::kBegin) {
    auto job = std::make_shared<io::IoJob>();
    job->access = f.access();
    job->write = k.write;
    job->start = position * esz;
    job->staged = std::move(staging);
    job->data = job->staged.empty() ? data : job->staged.data();
    job->bytes = bytes;
    job->rank = f.rank;
    job->call = call;
    job->in_flight = f.in_flight;  // MPI_File_close waits for it
    f.in_flight->fetch_add(1, std::memory_order_relaxed);
    p2p::Request* r = c.engine().requests().create(p2p::RequestKind::kOperation);
    r->comm = fh;  // errors go to the file's handler (Context::report)
    auto op = std::make_unique<FileOperation>(c, r, job, const_cast<void*>(buf), count, type, handle);
    // A bad handle is returned now; the others' requests fail at completion.
    const Error& at_call = bad_handle;
    if (collective) {
      comm::Communicator* cm = nullptr;
      (void)c.comms().lookup(f.comm, call, &cm);
      std::vector<Piece> pieces = pieces_of(f, k.write, job->start, bytes, &job->moved);
      if (!failure.is_ok()) pieces.clear(), job->moved = 0;
      op->run_as(std::make_unique<TwoPhaseSteps>(c, f, *cm, job, std::move(pieces), std::move(failure)));
    } else {
      c.files().io_thread().submit(std::move(job));
    }
    r->operation = std::move(op);
    if (!at_call.is_ok()) r->user_owned = false;
    c.engine().start_operation(r);
    if (!at_call.is_ok()) {
      if (request != nullptr) *request = MPI_REQUEST_NULL;
      return at_call;
    }
    if (k.completion == Completion::kBegin) f.split = r->handle;
    else *request = r->handle;
    return Error::ok();
  }

  int64_t moved = 0;
  if (collective || k.position == Position::kOrdered) {
    e = collective_transfer(f, k.write, position * esz, data, bytes, &moved, std::move(failure), call);
  } else {  // the system calls run with the lock released (other threads' MPI calls go on)
    io::Access access = f.access();
    int rank = f.rank;
    e = c.run_callback(g, [&] { return io::transfer(access, k.write, position * esz, data, bytes, &moved, call, rank); });
  }
  if (e.is_ok() && !k.write && data != static_cast<const char*>(buf) + type->true_lb) {
    e = stage_in(c, g, *f.view, data, moved, const_cast<void*>(buf), count, *type, handle, f.rank, call);
  }
  if (k.position == Position::kIndividual) f.pointer -= (bytes - moved) / esz;
  if (!e.is_ok()) return e;
  fill_status(status, MPI_ANY_SOURCE, MPI_ANY_TAG, memory_bytes(c, *f.view, *type, handle, moved), false);
  return Error::ok();
}

// The _end of a split collective: waits for the operation its _begin started.
Error split_end(Context& c, Guard& g, File& f, const void* buf, MPI_Status* status, const char* call) {
  (void)buf;
  if (f.split == MPI_REQUEST_NULL) {
    return error(MPI_ERR_OTHER, "%s: rank %d: %s has no split collective in progress (call its _begin first)", call,
                 f.rank, f.label().c_str());
  }
  p2p::Request* r = c.engine().requests().find(f.split);
  c.wait(g, [&] { return r->complete; });
  MPI_Request handle = f.split;
  f.split = MPI_REQUEST_NULL;
  Error failure;
  conclude(c, g, &handle, r, status, &failure, call);
  return failure;  // as the operation concluded: agreed under two-phase, else this rank's own (README.md, "Outcomes")
}

// ---- open and close ----

// Frees the file's communicator once every rank has finished every collective on it. A point-to-
// point handshake through rank 0, not a barrier: the same-node collectives' cells of a freed
// communicator are reused at once by the next one created, so a rank still reading the cells of
// a last barrier could wait forever for a partner that has moved on (seen as a hang in
// tests/mpi/io:io_files; a barrier followed by MPI_Comm_free and a new communicator does it).
void free_file_comm(File& f) {
  const int tag = 0x10c105e;
  if (f.rank == 0) {
    for (int r = 1; r < f.size; ++r) PMPI_Recv(nullptr, 0, MPI_BYTE, r, tag, f.comm, MPI_STATUS_IGNORE);
    for (int r = 1; r < f.size; ++r) PMPI_Send(nullptr, 0, MPI_BYTE, r, tag, f.comm);
  } else {
    PMPI_Send(nullptr, 0, MPI_BYTE, 0, tag, f.comm);
    PMPI_Recv(nullptr, 0, MPI_BYTE, 0, tag, f.comm, MPI_STATUS_IGNORE);
  }
  PMPI_Comm_free(&f.comm);
}

Error check_amode(int amode, const char* call, int rank) {
  int rw = ((amode & MPI_MODE_RDONLY) ? 1 : 0) + ((amode & MPI_MODE_WRONLY) ? 1 : 0) + ((amode & MPI_MODE_RDWR) ? 1 : 0);
  const int known = MPI_MODE_RDONLY | MPI_MODE_WRONLY | MPI_MODE_RDWR | MPI_MODE_CREATE | MPI_MODE_EXCL |
                    MPI_MODE_DELETE_ON_CLOSE | MPI_MODE_UNIQUE_OPEN | MPI_MODE_APPEND | MPI_MODE_SEQUENTIAL;
  const char* why = nullptr;
  if (amode & ~known) why = "has unknown bits";
  else if (rw != 1) why = "must have exactly one of MPI_MODE_RDONLY, MPI_MODE_WRONLY, MPI_MODE_RDWR";
  else if ((amode & MPI_MODE_RDONLY) && (amode & (MPI_MODE_CREATE | MPI_MODE_EXCL))) why = "combines MPI_MODE_RDONLY with MPI_MODE_CREATE or MPI_MODE_EXCL";
  else if ((amode & MPI_MODE_RDWR) && (amode & MPI_MODE_SEQUENTIAL)) why = "combines MPI_MODE_RDWR with MPI_MODE_SEQUENTIAL";
  if (why == nullptr) return Error::ok();
  return error(MPI_ERR_AMODE, "%s: rank %d: amode 0x%x %s", call, rank, amode, why);
}

Error open_posix(File& f, const char* filename, bool create, const char* call) {
  int flags = (f.amode & MPI_MODE_RDONLY) ? O_RDONLY : (f.amode & MPI_MODE_WRONLY) ? O_WRONLY : O_RDWR;
  if (create && (f.amode & MPI_MODE_CREATE)) flags |= O_CREAT;
  if (create && (f.amode & MPI_MODE_EXCL)) flags |= O_EXCL;
  f.fd = ::open(filename, flags | O_CLOEXEC, 0644);
  if (f.fd < 0) {
    int err = errno;
    return error(io::error_class_of_errno(err), "%s: rank %d: cannot open \"%s\": %s", call, f.rank, filename,
                 std::strerror(err));
  }
  struct stat st{};
  if (::fstat(f.fd, &st) == 0) f.device = st.st_dev, f.inode = st.st_ino;
  if (S_ISDIR(st.st_mode)) return error(MPI_ERR_BAD_FILE, "%s: rank %d: \"%s\" is a directory", call, f.rank, filename);
  return Error::ok();
}

Error open_file(Context& c, MPI_Comm comm, const char* filename, int amode, MPI_Info info, MPI_File* fh) {
  const char* call = "MPI_File_open";
  comm::Communicator* cm = nullptr;
  Error e = check_comm(c, comm, call, &cm);
  if (!e.is_ok()) return e;
  if (cm->is_inter()) return error(MPI_ERR_COMM, "%s: rank %d: the communicator is an intercommunicator", call, cm->rank);
  // From here on every rank takes part in each step (a local error is agreed on, never a hang).
  if (filename == nullptr || fh == nullptr) e = error(MPI_ERR_ARG, "%s: rank %d: the file name or handle is NULL", call, cm->rank);
  if (e.is_ok()) e = check_info(c, info, call);
  if (e.is_ok()) e = check_amode(amode, call, cm->rank);
  auto f = std::make_unique<File>();
  f->path = filename != nullptr ? filename : "";
  f->amode = amode;
  f->rank = cm->rank;
  f->size = cm->size();
  if (e.is_ok() && info != MPI_INFO_NULL) e = f->hints.apply(*c.find_info(info), call, f->rank);
  PMPI_Comm_dup(comm, &f->comm);
  PMPI_Comm_set_errhandler(f->comm, MPI_ERRORS_RETURN);
  // Every rank passes the same amode (MPI_ERR_NOT_SAME otherwise).
  int modes[2] = {amode, -amode}, agreed[2];
  PMPI_Allreduce(modes, agreed, 2, MPI_INT, MPI_MAX, f->comm);
  if (e.is_ok() && agreed[0] != -agreed[1]) {
    e = error(MPI_ERR_NOT_SAME, "%s: rank %d: the ranks of the communicator passed different amodes (0x%x here)", call,
              f->rank, amode);
  }
  e = agree(*f, std::move(e), call);
  // Rank 0 creates the file (MPI_MODE_EXCL fails there only), then the others open it.
  if (e.is_ok() && f->rank == 0) e = open_posix(*f, filename, true, call);
  if (e.is_ok() && f->rank == 0 && (amode & MPI_MODE_UNIQUE_OPEN) && c.files().is_open(f->device, f->inode)) {
    e = error(MPI_ERR_FILE_IN_USE, "%s: rank %d: \"%s\" is already open here and MPI_MODE_UNIQUE_OPEN was given", call,
              f->rank, filename);
  }
  int root_class = e.error_class();
  PMPI_Bcast(&root_class, 1, MPI_INT, 0, f->comm);
  if (root_class != 0 && f->rank != 0) {
    e = error(root_class, "%s: rank %d: rank 0 could not open \"%s\"", call, f->rank, filename);
  }
  if (e.is_ok() && f->rank != 0) e = open_posix(*f, filename, false, call);
  if (e.is_ok() && f->rank != 0 && (amode & MPI_MODE_UNIQUE_OPEN) && c.files().is_open(f->device, f->inode)) {
    e = error(MPI_ERR_FILE_IN_USE, "%s: rank %d: \"%s\" is already open here and MPI_MODE_UNIQUE_OPEN was given", call,
              f->rank, filename);
  }
  e = agree(*f, std::move(e), call);
  if (!e.is_ok()) {
    if (f->fd >= 0) ::close(f->fd);
    free_file_comm(*f);
    return e;
  }
  const Datatype* byte = nullptr;
  (void)c.types().lookup(MPI_BYTE, call, &byte);
  auto view = std::make_shared<io::View>();
  view->set_types(byte, byte);
  f->view = view;
  // The shared file pointer: one MPI_Offset on rank 0.
  int64_t* counter = nullptr;
  PMPI_Win_allocate(f->rank == 0 ? sizeof(int64_t) : 0, sizeof(int64_t), MPI_INFO_NULL, f->comm, &counter,
                    &f->shared_pointer);
  PMPI_Win_set_errhandler(f->shared_pointer, MPI_ERRORS_RETURN);
  if (f->rank == 0) *counter = 0;
  PMPI_Win_lock_all(0, f->shared_pointer);
  choose_aggregators(*f);
  if (amode & MPI_MODE_APPEND) {  // both pointers start at the end of the file
    f->pointer = end_position(*f);
    if (f->rank == 0) shared_set(*f, f->pointer);
  }
  PMPI_Barrier(f->comm);
  c.files().report = &report_request_error;
  *fh = c.files().add(std::move(f));
  return Error::ok();
}

Error close_file(Context& c, Guard& g, MPI_File* fh, File& f) {
  const char* call = "MPI_File_close";
  Error e;
  if (f.split != MPI_REQUEST_NULL) {
    e = error(MPI_ERR_OTHER, "%s: rank %d: %s has a split collective in progress", call, f.rank, f.label().c_str());
  }
  e = agree(f, std::move(e), call);
  if (!e.is_ok()) return e;
  // Non-blocking accesses still on the I/O thread (erroneous, but the descriptor must outlive them).
  c.wait(g, [&] { return f.in_flight->load(std::memory_order_acquire) == 0; });
  PMPI_Barrier(f.comm);  // every rank's accesses are done before the file goes
  if (::close(f.fd) != 0) {
    e = error(MPI_ERR_IO, "%s: rank %d: close of %s failed: %s", call, f.rank, f.label().c_str(), std::strerror(errno));
  }
  PMPI_Win_unlock_all(f.shared_pointer);
  PMPI_Win_free(&f.shared_pointer);
  if (f.cb_window != MPI_WIN_NULL) PMPI_Win_free(&f.cb_window);
  PMPI_Barrier(f.comm);
  if ((f.amode & MPI_MODE_DELETE_ON_CLOSE) && f.rank == 0 && ::unlink(f.path.c_str()) != 0 && e.is_ok()) {
    e = error(io::error_class_of_errno(errno), "%s: rank 0: deleting %s on close failed: %s", call, f.label().c_str(),
              std::strerror(errno));
  }
  drop_type(c, f.view->etype);
  drop_type(c, f.view->filetype);
  free_file_comm(f);
  c.files().remove(*fh);
  *fh = MPI_FILE_NULL;
  return e;
}

// New hints of the file (set_info, set_view: collective): the aggregators follow cb_nodes, the
// aggregators' buffers cb_buffer_size (remade at the next collective access).
void use_hints(File& f, const io::Hints& hints) {
  bool regroup = hints.cb_nodes != f.hints.cb_nodes;
  f.hints = hints;
  if (regroup) {
    choose_aggregators(f);
    if (f.cb_window != MPI_WIN_NULL) PMPI_Win_free(&f.cb_window);
  }
}

// ---- views ----

// The file size of a predefined type under data representation `rep`: null for native and
// internal (the memory sizes), external32's sizes, or a registered representation's extent
// function (<= 0 when it fails).
io::BasicFileSize basic_file_size(Context& c, const std::string& rep) {
  if (rep == "native" || rep == "internal") return nullptr;
  if (rep == "external32") return [](int, const Datatype& t) { return datatype::external32_size(t); };
  io::Datarep d = c.files().datareps.at(rep);
  return [d](int handle, const Datatype&) -> int64_t {
    MPI_Aint x = 0;
    return d.extent(handle, &x, d.extra_state) == MPI_SUCCESS ? static_cast<int64_t>(x) : -1;
  };
}

Error set_view(Context& c, File& f, MPI_Offset disp, MPI_Datatype etype, MPI_Datatype filetype, const char* datarep,
               MPI_Info info) {
  const char* call = "MPI_File_set_view";
  const Datatype *et = nullptr, *ft = nullptr;
  Error e = c.types().lookup_committed(etype, call, &et);
  if (e.is_ok()) e = c.types().lookup_committed(filetype, call, &ft);
  if (e.is_ok() && datarep == nullptr) e = error(MPI_ERR_ARG, "%s: rank %d: datarep is NULL", call, f.rank);
  if (e.is_ok()) e = check_info(c, info, call);
  if (e.is_ok() && f.split != MPI_REQUEST_NULL) e = error(MPI_ERR_OTHER, "%s: rank %d: a split collective is in progress", call, f.rank);
  std::string rep = datarep != nullptr ? datarep : "";
  if (e.is_ok() && rep != "native" && rep != "internal" && rep != "external32" && c.files().datareps.count(rep) == 0) {
    e = error(MPI_ERR_UNSUPPORTED_DATAREP, "%s: rank %d: data representation \"%s\" is not native, internal, "
              "external32 or registered", call, f.rank, rep.c_str());
  }
  // Under external32 or a registered representation the etype and filetype are laid out in the
  // file's sizes (their displacements scaled as MPI 4.1 §14.5.2 says).
  io::BasicFileSize basic_size = e.is_ok() ? basic_file_size(c, rep) : nullptr;
  std::shared_ptr<datatype::Datatype> et_file, ft_file;
  if (basic_size != nullptr) {
    et_file = std::make_shared<datatype::Datatype>();
    ft_file = std::make_shared<datatype::Datatype>();
    e = io::file_layout(c.types(), etype, basic_size, call, et_file.get());
    if (e.is_ok()) e = io::file_layout(c.types(), filetype, basic_size, call, ft_file.get());
    if (!e.is_ok()) e = Error(e.error_class(), e.message() + " (rank " + std::to_string(f.rank) + ", datarep \"" + rep + "\")");
    et = et_file.get(), ft = ft_file.get();
  }
  if (e.is_ok() && (et->size <= 0 || ft->size <= 0 || ft->size % et->size != 0)) {
    e = error(MPI_ERR_TYPE, "%s: rank %d: the filetype (%lld bytes) is not a positive whole number of etypes (%lld "
              "bytes)", call, f.rank, static_cast<long long>(ft->size), static_cast<long long>(et->size));
  }
  if (e.is_ok()) {
    // Displacements never decrease; only a file open for writing needs regions that do not
    // overlap (MPI 4.1 section 14.3): a read-only file may read a byte twice.
    bool writable = !(f.amode & MPI_MODE_RDONLY);
    int64_t last_offset = INT64_MIN, last_end = INT64_MIN;
    for (const datatype::Block& b : ft->blocks) {
      if (b.offset < 0 || b.offset < last_offset || (writable && b.offset < last_end)) {
        e = error(MPI_ERR_TYPE, "%s: rank %d: the filetype's displacements must be non-negative and non-decreasing%s "
                  "(a block at %lld)", call, f.rank, writable ? ", its regions apart (the file is open for writing)" : "",
                  static_cast<long long>(b.offset));
        break;
      }
      last_offset = b.offset;
      last_end = std::max(last_end, b.offset + b.length);
    }
  }
  if (e.is_ok() && disp == MPI_DISPLACEMENT_CURRENT && !(f.amode & MPI_MODE_SEQUENTIAL)) {
    e = error(MPI_ERR_ARG, "%s: rank %d: MPI_DISPLACEMENT_CURRENT needs MPI_MODE_SEQUENTIAL", call, f.rank);
  }
  if (e.is_ok() && disp < 0 && disp != MPI_DISPLACEMENT_CURRENT) {
    e = error(MPI_ERR_ARG, "%s: rank %d: displacement %lld is negative", call, f.rank, static_cast<long long>(disp));
  }
  io::Hints hints = f.hints;
  if (e.is_ok() && info != MPI_INFO_NULL) e = hints.apply(*c.find_info(info), call, f.rank);
  e = agree(f, std::move(e), call);
  if (!e.is_ok()) return e;
  if (disp == MPI_DISPLACEMENT_CURRENT) {  // the shared pointer's byte position
    int64_t pos = 0;
    shared_fetch_add(f, 0, &pos);
    disp = f.view->file_byte(pos * f.view->etype_size());
  }
  drop_type(c, f.view->etype);
  drop_type(c, f.view->filetype);
  hold_type(c, etype);
  hold_type(c, filetype);
  auto view = std::make_shared<io::View>();
  view->disp = disp;
  view->etype = etype;
  view->filetype = filetype;
  view->datarep = rep;
  view->basic_size = basic_size;
  view->etype_in_file = et_file;
  view->filetype_in_file = ft_file;
  view->set_types(et, ft);
  f.view = view;
  use_hints(f, hints);
  f.pointer = 0;
  PMPI_Barrier(f.comm);
  if (f.rank == 0) shared_set(f, 0);
  PMPI_Barrier(f.comm);
  return Error::ok();
}

Error seek(File& f, MPI_Offset offset, int whence, int64_t current, int64_t* result, const char* call) {
  if (f.amode & MPI_MODE_SEQUENTIAL && std::string(call) == "MPI_File_seek") {
    return error(MPI_ERR_UNSUPPORTED_OPERATION, "%s: rank %d: %s was opened MPI_MODE_SEQUENTIAL", call, f.rank,
                 f.label().c_str());
  }
  int64_t base = whence == MPI_SEEK_SET ? 0 : whence == MPI_SEEK_CUR ? current : whence == MPI_SEEK_END ? end_position(f) : -1;
  if (base < 0) return error(MPI_ERR_ARG, "%s: rank %d: whence %d is not MPI_SEEK_SET, _CUR or _END", call, f.rank, whence);
  if (base + offset < 0) {
    return error(MPI_ERR_ARG, "%s: rank %d: %s: seeking to %lld + %lld gives a negative position", call, f.rank,
                 f.label().c_str(), static_cast<long long>(base), static_cast<long long>(offset));
  }
  *result = base + offset;
  return Error::ok();
}

Info info_of(const io::InfoPairs& pairs) { return Info(pairs.begin(), pairs.end()); }

int run_access(const Routine& k, MPI_File fh, MPI_Offset offset, const void* buf, MPI_Count count, MPI_Datatype type,
               MPI_Status* status, MPI_Request* request) {
  return file_call(k.name, fh, [&](Context& c, Guard& g, File& f) {
    return access(c, g, f, fh, k, offset, buf, count, type, status, request);
  });
}

int run_end(const char* name, MPI_File fh, const void* buf, MPI_Status* status) {
  return file_call(name, fh, [&](Context& c, Guard& g, File& f) { return split_end(c, g, f, buf, status, name); });
}

int register_datarep(const char* call, const char* datarep, gasket::mpi::io::Datarep rep) {
  return null_call(call, [&](Context& c, Guard&) -> Error {
    int rank = gasket::my_pe();
    if (datarep == nullptr || rep.extent == nullptr) {
      return error(MPI_ERR_ARG, "%s: rank %d: datarep or dtype_file_extent_fn is NULL", call, rank);
    }
    std::string name = datarep;
    if (name.empty() || name.size() >= MPI_MAX_DATAREP_STRING) {
      return error(MPI_ERR_ARG, "%s: rank %d: datarep name \"%s\" is empty or too long", call, rank, datarep);
    }
    if (name == "native" || name == "internal" || name == "external32" || c.files().datareps.count(name) != 0) {
      return error(MPI_ERR_DUP_DATAREP, "%s: rank %d: data representation \"%s\" is already defined", call, rank, datarep);
    }
    c.files().datareps[name] = rep;
    return Error::ok();
  });
}

}  // namespace
}  // namespace gasket::mpi::api

namespace api = gasket::mpi::api;
using gasket::mpi::Context;
using gasket::mpi::Error;
using gasket::mpi::Guard;
using gasket::mpi::error;
using gasket::mpi::io::File;
using api::Completion;
using api::Position;

extern "C" {

// ---- the data access routines: one line each, int and _c forms (MPI 4.1 table 14.1) ----
#define GASKET_IO_ROUTINE(name, write, position, completion) \
  api::Routine{name, write, Position::position, Completion::completion}
// Explicit offsets / file pointers, completed in the call (status).
#define GASKET_IO_AT(NAME, BUF, W, POS, COMP)                                                                          \
  int PMPI_##NAME(MPI_File fh, MPI_Offset offset, BUF buf, int count, MPI_Datatype datatype, MPI_Status* status) {     \
    return api::run_access(GASKET_IO_ROUTINE("MPI_" #NAME, W, POS, COMP), fh, offset, buf, count, datatype, status,   \
                           nullptr);                                                                                 \
  }                                                                                                                  \
  int PMPI_##NAME##_c(MPI_File fh, MPI_Offset offset, BUF buf, MPI_Count count, MPI_Datatype datatype,               \
                      MPI_Status* status) {                                                                          \
    return api::run_access(GASKET_IO_ROUTINE("MPI_" #NAME "_c", W, POS, COMP), fh, offset, buf, count, datatype,      \
                           status, nullptr);                                                                         \
  }
#define GASKET_IO_PTR(NAME, BUF, W, POS, COMP)                                                                         \
  int PMPI_##NAME(MPI_File fh, BUF buf, int count, MPI_Datatype datatype, MPI_Status* status) {                        \
    return api::run_access(GASKET_IO_ROUTINE("MPI_" #NAME, W, POS, COMP), fh, 0, buf, count, datatype, status,        \
                           nullptr);                                                                                 \
  }                                                                                                                  \
  int PMPI_##NAME##_c(MPI_File fh, BUF buf, MPI_Count count, MPI_Datatype datatype, MPI_Status* status) {             \
    return api::run_access(GASKET_IO_ROUTINE("MPI_" #NAME "_c", W, POS, COMP), fh, 0, buf, count, datatype, status,   \
                           nullptr);                                                                                 \
  }
// Non-blocking (request).
#define GASKET_IO_IAT(NAME, BUF, W, POS, COMP)                                                                         \
  int PMPI_##NAME(MPI_File fh, MPI_Offset offset, BUF buf, int count, MPI_Datatype datatype, MPI_Request* request) {   \
    return api::run_access(GASKET_IO_ROUTINE("MPI_" #NAME, W, POS, COMP), fh, offset, buf, count, datatype,           \
                           MPI_STATUS_IGNORE, request);                                                              \
  }                                                                                                                  \
  int PMPI_##NAME##_c(MPI_File fh, MPI_Offset offset, BUF buf, MPI_Count count, MPI_Datatype datatype,               \
                      MPI_Request* request) {                                                                        \
    return api::run_access(GASKET_IO_ROUTINE("MPI_" #NAME "_c", W, POS, COMP), fh, offset, buf, count, datatype,      \
                           MPI_STATUS_IGNORE, request);                                                              \
  }
#define GASKET_IO_IPTR(NAME, BUF, W, POS, COMP)                                                                        \
  int PMPI_##NAME(MPI_File fh, BUF buf, int count, MPI_Datatype datatype, MPI_Request* request) {                      \
    return api::run_access(GASKET_IO_ROUTINE("MPI_" #NAME, W, POS, COMP), fh, 0, buf, count, datatype,                \
                           MPI_STATUS_IGNORE, request);                                                              \
  }                                                                                                                  \
  int PMPI_##NAME##_c(MPI_File fh, BUF buf, MPI_Count count, MPI_Datatype datatype, MPI_Request* request) {           \
    return api::run_access(GASKET_IO_ROUTINE("MPI_" #NAME "_c", W, POS, COMP), fh, 0, buf, count, datatype,           \
                           MPI_STATUS_IGNORE, request);                                                              \
  }
// Split collective _begin (no status, no request).
#define GASKET_IO_BEGIN_AT(NAME, BUF, W, POS)                                                                          \
  int PMPI_##NAME(MPI_File fh, MPI_Offset offset, BUF buf, int count, MPI_Datatype datatype) {                        \
    return api::run_access(GASKET_IO_ROUTINE("MPI_" #NAME, W, POS, kBegin), fh, offset, buf, count, datatype,         \
                           MPI_STATUS_IGNORE, nullptr);                                                              \
  }                                                                                                                  \
  int PMPI_##NAME##_c(MPI_File fh, MPI_Offset offset, BUF buf, MPI_Count count, MPI_Datatype datatype) {              \
    return api::run_access(GASKET_IO_ROUTINE("MPI_" #NAME "_c", W, POS, kBegin), fh, offset, buf, count, datatype,    \
                           MPI_STATUS_IGNORE, nullptr);                                                              \
  }
#define GASKET_IO_BEGIN_PTR(NAME, BUF, W, POS)                                                                         \
  int PMPI_##NAME(MPI_File fh, BUF buf, int count, MPI_Datatype datatype) {                                            \
    return api::run_access(GASKET_IO_ROUTINE("MPI_" #NAME, W, POS, kBegin), fh, 0, buf, count, datatype,              \
                           MPI_STATUS_IGNORE, nullptr);                                                              \
  }                                                                                                                  \
  int PMPI_##NAME##_c(MPI_File fh, BUF buf, MPI_Count count, MPI_Datatype datatype) {                                 \
    return api::run_access(GASKET_IO_ROUTINE("MPI_" #NAME "_c", W, POS, kBegin), fh, 0, buf, count, datatype,         \
                           MPI_STATUS_IGNORE, nullptr);                                                              \
  }
#define GASKET_IO_END(NAME, BUF) \
  int PMPI_##NAME(MPI_File fh, BUF buf, MPI_Status* status) { return api::run_end("MPI_" #NAME, fh, buf, status); }

GASKET_IO_AT(File_read_at, void*, false, kExplicit, kBlocking)
GASKET_IO_AT(File_write_at, const void*, true, kExplicit, kBlocking)
GASKET_IO_AT(File_read_at_all, void*, false, kExplicit, kCollective)
GASKET_IO_AT(File_write_at_all, const void*, true, kExplicit, kCollective)
GASKET_IO_PTR(File_read, void*, false, kIndividual, kBlocking)
GASKET_IO_PTR(File_write, const void*, true, kIndividual, kBlocking)
GASKET_IO_PTR(File_read_all, void*, false, kIndividual, kCollective)
GASKET_IO_PTR(File_write_all, const void*, true, kIndividual, kCollective)
GASKET_IO_PTR(File_read_shared, void*, false, kShared, kBlocking)
GASKET_IO_PTR(File_write_shared, const void*, true, kShared, kBlocking)
GASKET_IO_PTR(File_read_ordered, void*, false, kOrdered, kCollective)
GASKET_IO_PTR(File_write_ordered, const void*, true, kOrdered, kCollective)
GASKET_IO_IAT(File_iread_at, void*, false, kExplicit, kNonblocking)
GASKET_IO_IAT(File_iwrite_at, const void*, true, kExplicit, kNonblocking)
GASKET_IO_IAT(File_iread_at_all, void*, false, kExplicit, kNonblockingCollective)
GASKET_IO_IAT(File_iwrite_at_all, const void*, true, kExplicit, kNonblockingCollective)
GASKET_IO_IPTR(File_iread, void*, false, kIndividual, kNonblocking)
GASKET_IO_IPTR(File_iwrite, const void*, true, kIndividual, kNonblocking)
GASKET_IO_IPTR(File_iread_all, void*, false, kIndividual, kNonblockingCollective)
GASKET_IO_IPTR(File_iwrite_all, const void*, true, kIndividual, kNonblockingCollective)
GASKET_IO_IPTR(File_iread_shared, void*, false, kShared, kNonblocking)
GASKET_IO_IPTR(File_iwrite_shared, const void*, true, kShared, kNonblocking)
GASKET_IO_BEGIN_AT(File_read_at_all_begin, void*, false, kExplicit)
GASKET_IO_BEGIN_AT(File_write_at_all_begin, const void*, true, kExplicit)
GASKET_IO_BEGIN_PTR(File_read_all_begin, void*, false, kIndividual)
GASKET_IO_BEGIN_PTR(File_write_all_begin, const void*, true, kIndividual)
GASKET_IO_BEGIN_PTR(File_read_ordered_begin, void*, false, kOrdered)
GASKET_IO_BEGIN_PTR(File_write_ordered_begin, const void*, true, kOrdered)
GASKET_IO_END(File_read_at_all_end, void*)
GASKET_IO_END(File_write_at_all_end, const void*)
GASKET_IO_END(File_read_all_end, void*)
GASKET_IO_END(File_write_all_end, const void*)
GASKET_IO_END(File_read_ordered_end, void*)
GASKET_IO_END(File_write_ordered_end, const void*)

// ---- open, close, delete and the file's properties ----

int PMPI_File_open(MPI_Comm comm, const char* filename, int amode, MPI_Info info, MPI_File* fh) {
  return api::null_call("MPI_File_open", [&](Context& c, Guard&) { return api::open_file(c, comm, filename, amode, info, fh); });
}

int PMPI_File_close(MPI_File* fh) {
  if (fh == nullptr) {
    return api::null_call("MPI_File_close", [](Context&, Guard&) { return error(MPI_ERR_ARG, "MPI_File_close: fh is NULL"); });
  }
  return api::file_call("MPI_File_close", *fh, [&](Context& c, Guard& g, File& f) { return api::close_file(c, g, fh, f); });
}

int PMPI_File_delete(const char* filename, MPI_Info info) {
  return api::null_call("MPI_File_delete", [&](Context& c, Guard&) -> Error {
    const char* call = "MPI_File_delete";
    int rank = gasket::my_pe();
    if (filename == nullptr) return error(MPI_ERR_ARG, "%s: rank %d: the file name is NULL", call, rank);
    Error e = api::check_info(c, info, call);
    if (!e.is_ok()) return e;
    struct stat st{};
    if (::stat(filename, &st) == 0 && c.files().is_open(st.st_dev, st.st_ino)) {
      return error(MPI_ERR_FILE_IN_USE, "%s: rank %d: \"%s\" is open in this process", call, rank, filename);
    }
    if (::unlink(filename) != 0) {
      int err = errno;
      return error(gasket::mpi::io::error_class_of_errno(err), "%s: rank %d: cannot delete \"%s\": %s", call, rank,
                   filename, std::strerror(err));
    }
    return Error::ok();
  });
}

int PMPI_File_set_size(MPI_File fh, MPI_Offset size) {
  return api::file_call("MPI_File_set_size", fh, [&](Context&, Guard&, File& f) {
    const char* call = "MPI_File_set_size";
    Error e;
    if (size < 0) e = error(MPI_ERR_ARG, "%s: rank %d: %s: size %lld is negative", call, f.rank, f.label().c_str(), size);
    else if (f.amode & MPI_MODE_RDONLY) e = error(MPI_ERR_READ_ONLY, "%s: rank %d: %s was opened MPI_MODE_RDONLY", call, f.rank, f.label().c_str());
    else if (f.amode & MPI_MODE_SEQUENTIAL) e = error(MPI_ERR_UNSUPPORTED_OPERATION, "%s: rank %d: %s was opened MPI_MODE_SEQUENTIAL", call, f.rank, f.label().c_str());
    MPI_Offset low = size, high = size;
    PMPI_Allreduce(&size, &low, 1, MPI_INT64_T, MPI_MIN, f.comm);
    PMPI_Allreduce(&size, &high, 1, MPI_INT64_T, MPI_MAX, f.comm);
    if (e.is_ok() && low != high) e = error(MPI_ERR_NOT_SAME, "%s: rank %d: the ranks passed different sizes (%lld here)", call, f.rank, size);
    e = api::agree(f, std::move(e), call);
    if (!e.is_ok()) return e;
    if (f.rank == 0 && ::ftruncate(f.fd, size) != 0) {
      e = error(gasket::mpi::io::error_class_of_errno(errno), "%s: rank 0: ftruncate of %s to %lld failed: %s", call,
                f.label().c_str(), size, std::strerror(errno));
    }
    return api::agree(f, std::move(e), call);
  });
}

int PMPI_File_preallocate(MPI_File fh, MPI_Offset size) {
  return api::file_call("MPI_File_preallocate", fh, [&](Context&, Guard&, File& f) {
    const char* call = "MPI_File_preallocate";
    Error e;
    if (size < 0) e = error(MPI_ERR_ARG, "%s: rank %d: %s: size %lld is negative", call, f.rank, f.label().c_str(), size);
    else if (f.amode & MPI_MODE_RDONLY) e = error(MPI_ERR_READ_ONLY, "%s: rank %d: %s was opened MPI_MODE_RDONLY", call, f.rank, f.label().c_str());
    else if (f.amode & MPI_MODE_SEQUENTIAL) e = error(MPI_ERR_UNSUPPORTED_OPERATION, "%s: rank %d: %s was opened MPI_MODE_SEQUENTIAL", call, f.rank, f.label().c_str());
    e = api::agree(f, std::move(e), call);
    if (!e.is_ok()) return e;
    // Storage for the first `size` bytes; a larger file keeps its size (posix_fallocate never shrinks).
    if (f.rank == 0 && size > 0) {
      int rc = ::posix_fallocate(f.fd, 0, size);
      if (rc != 0) e = error(gasket::mpi::io::error_class_of_errno(rc), "%s: rank 0: allocating %lld bytes for %s failed: %s",
                             call, size, f.label().c_str(), std::strerror(rc));
    }
    return api::agree(f, std::move(e), call);
  });
}

int PMPI_File_get_size(MPI_File fh, MPI_Offset* size) {
  return api::file_call("MPI_File_get_size", fh, [&](Context&, Guard&, File& f) {
    Error e = api::check_nonnull(size, "size", "MPI_File_get_size", f);
    if (e.is_ok()) *size = api::file_size(f);
    return e;
  });
}

int PMPI_File_get_group(MPI_File fh, MPI_Group* group) {
  return api::file_call("MPI_File_get_group", fh, [&](Context&, Guard&, File& f) {
    Error e = api::check_nonnull(group, "group", "MPI_File_get_group", f);
    if (e.is_ok()) PMPI_Comm_group(f.comm, group);
    return e;
  });
}

int PMPI_File_get_amode(MPI_File fh, int* amode) {
  return api::file_call("MPI_File_get_amode", fh, [&](Context&, Guard&, File& f) {
    Error e = api::check_nonnull(amode, "amode", "MPI_File_get_amode", f);
    if (e.is_ok()) *amode = f.amode;
    return e;
  });
}

int PMPI_File_set_info(MPI_File fh, MPI_Info info) {
  return api::file_call("MPI_File_set_info", fh, [&](Context& c, Guard&, File& f) {
    const char* call = "MPI_File_set_info";
    Error e = api::check_info(c, info, call);
    gasket::mpi::io::Hints hints = f.hints;
    if (e.is_ok() && info != MPI_INFO_NULL) e = hints.apply(*c.find_info(info), call, f.rank);
    e = api::agree(f, std::move(e), call);
    if (!e.is_ok()) return e;
    api::use_hints(f, hints);
    return Error::ok();
  });
}

int PMPI_File_get_info(MPI_File fh, MPI_Info* info_used) {
  return api::file_call("MPI_File_get_info", fh, [&](Context& c, Guard&, File& f) {
    Error e = api::check_nonnull(info_used, "info_used", "MPI_File_get_info", f);
    if (e.is_ok()) {
      gasket::mpi::io::InfoPairs pairs = f.hints.report(), used = f.paths_used->report();
      pairs.insert(pairs.end(), used.begin(), used.end());
      *info_used = c.add_info(api::info_of(pairs));
    }
    return e;
  });
}

int PMPI_File_sync(MPI_File fh) {
  return api::file_call("MPI_File_sync", fh, [&](Context&, Guard&, File& f) {
    const char* call = "MPI_File_sync";
    Error e;
    if (f.amode & MPI_MODE_RDONLY) e = error(MPI_ERR_READ_ONLY, "%s: rank %d: %s was opened MPI_MODE_RDONLY", call, f.rank, f.label().c_str());
    else if (::fsync(f.fd) != 0) e = error(MPI_ERR_IO, "%s: rank %d: fsync of %s failed: %s", call, f.rank, f.label().c_str(), std::strerror(errno));
    return api::agree(f, std::move(e), call);
  });
}

// ---- views and positions ----

int PMPI_File_set_view(MPI_File fh, MPI_Offset disp, MPI_Datatype etype, MPI_Datatype filetype, const char* datarep,
                       MPI_Info info) {
  return api::file_call("MPI_File_set_view", fh, [&](Context& c, Guard&, File& f) {
    return api::set_view(c, f, disp, etype, filetype, datarep, info);
  });
}

int PMPI_File_get_view(MPI_File fh, MPI_Offset* disp, MPI_Datatype* etype, MPI_Datatype* filetype, char* datarep) {
  return api::file_call("MPI_File_get_view", fh, [&](Context& c, Guard&, File& f) -> Error {
    if (disp == nullptr || etype == nullptr || filetype == nullptr || datarep == nullptr) {
      return error(MPI_ERR_ARG, "MPI_File_get_view: rank %d: an output argument is NULL", f.rank);
    }
    *disp = f.view->disp;
    *etype = f.view->etype;
    *filetype = f.view->filetype;
    c.types().retain(*etype);  // derived types handed out are the caller's to free
    c.types().retain(*filetype);
    std::snprintf(datarep, MPI_MAX_DATAREP_STRING, "%s", f.view->datarep.c_str());
    return Error::ok();
  });
}

int PMPI_File_seek(MPI_File fh, MPI_Offset offset, int whence) {
  return api::file_call("MPI_File_seek", fh, [&](Context&, Guard&, File& f) {
    return api::seek(f, offset, whence, f.pointer, &f.pointer, "MPI_File_seek");
  });
}

int PMPI_File_seek_shared(MPI_File fh, MPI_Offset offset, int whence) {
  return api::file_call("MPI_File_seek_shared", fh, [&](Context&, Guard&, File& f) {
    const char* call = "MPI_File_seek_shared";
    int64_t current = 0, target = 0;
    PMPI_Barrier(f.comm);  // every rank's earlier shared accesses have moved the pointer
    api::shared_fetch_add(f, 0, &current);
    Error e = api::seek(f, offset, whence, current, &target, call);
    int64_t low = target, high = target;
    PMPI_Allreduce(&target, &low, 1, MPI_INT64_T, MPI_MIN, f.comm);
    PMPI_Allreduce(&target, &high, 1, MPI_INT64_T, MPI_MAX, f.comm);
    if (e.is_ok() && low != high) {
      e = error(MPI_ERR_NOT_SAME, "%s: rank %d: the ranks asked for different positions (%lld here)", call, f.rank,
                static_cast<long long>(target));
    }
    e = api::agree(f, std::move(e), call);
    if (!e.is_ok()) return e;
    if (f.rank == 0) api::shared_set(f, target);
    PMPI_Barrier(f.comm);
    return Error::ok();
  });
}

int PMPI_File_get_position(MPI_File fh, MPI_Offset* offset) {
  return api::file_call("MPI_File_get_position", fh, [&](Context&, Guard&, File& f) {
    Error e = api::check_nonnull(offset, "offset", "MPI_File_get_position", f);
    if (e.is_ok()) *offset = f.pointer;
    return e;
  });
}

int PMPI_File_get_position_shared(MPI_File fh, MPI_Offset* offset) {
  return api::file_call("MPI_File_get_position_shared", fh, [&](Context&, Guard&, File& f) {
    Error e = api::check_nonnull(offset, "offset", "MPI_File_get_position_shared", f);
    int64_t value = 0;
    if (e.is_ok()) api::shared_fetch_add(f, 0, &value), *offset = value;
    return e;
  });
}

int PMPI_File_get_byte_offset(MPI_File fh, MPI_Offset offset, MPI_Offset* disp) {
  return api::file_call("MPI_File_get_byte_offset", fh, [&](Context&, Guard&, File& f) {
    const char* call = "MPI_File_get_byte_offset";
    Error e = api::check_nonnull(disp, "disp", call, f);
    if (e.is_ok() && offset < 0) e = error(MPI_ERR_ARG, "%s: rank %d: offset %lld is negative", call, f.rank, offset);
    if (e.is_ok()) *disp = f.view->file_byte(offset * f.view->etype_size());
    return e;
  });
}

int PMPI_File_get_type_extent_c(MPI_File fh, MPI_Datatype datatype, MPI_Count* extent) {
  return api::file_call("MPI_File_get_type_extent", fh, [&](Context& c, Guard&, File& f) -> Error {
    const char* call = "MPI_File_get_type_extent";
    const gasket::mpi::datatype::Datatype* t = nullptr;
    Error e = c.types().lookup(datatype, call, &t);
    if (e.is_ok()) e = api::check_nonnull(extent, "extent", call, f);
    if (!e.is_ok()) return e;
    // Its layout in the file under the view's representation (§14.5.2).
    if (f.view->basic_size == nullptr) {
      *extent = t->extent();
      return Error::ok();
    }
    gasket::mpi::datatype::Datatype in_file;
    e = gasket::mpi::io::file_layout(c.types(), datatype, f.view->basic_size, call, &in_file);
    if (!e.is_ok()) return e;
    *extent = in_file.extent();
    return Error::ok();
  });
}

int PMPI_File_get_type_extent(MPI_File fh, MPI_Datatype datatype, MPI_Aint* extent) {
  MPI_Count x = 0;
  int rc = PMPI_File_get_type_extent_c(fh, datatype, extent != nullptr ? &x : nullptr);
  if (rc == MPI_SUCCESS) *extent = static_cast<MPI_Aint>(x);
  return rc;
}

// ---- consistency ----

int PMPI_File_set_atomicity(MPI_File fh, int flag) {
  return api::file_call("MPI_File_set_atomicity", fh, [&](Context&, Guard&, File& f) {
    const char* call = "MPI_File_set_atomicity";
    int mine = flag != 0, low = 0, high = 0;
    PMPI_Allreduce(&mine, &low, 1, MPI_INT, MPI_MIN, f.comm);
    PMPI_Allreduce(&mine, &high, 1, MPI_INT, MPI_MAX, f.comm);
    if (low != high) return error(MPI_ERR_NOT_SAME, "%s: rank %d: the ranks passed different flags (%d here)", call, f.rank, flag);
    f.atomic = mine != 0;
    return Error::ok();
  });
}

int PMPI_File_get_atomicity(MPI_File fh, int* flag) {
  return api::file_call("MPI_File_get_atomicity", fh, [&](Context&, Guard&, File& f) {
    Error e = api::check_nonnull(flag, "flag", "MPI_File_get_atomicity", f);
    if (e.is_ok()) *flag = f.atomic ? 1 : 0;
    return e;
  });
}

// ---- error handlers ----

int PMPI_File_create_errhandler(MPI_File_errhandler_function* function, MPI_Errhandler* errhandler) {
  return api::null_call("MPI_File_create_errhandler", [&](Context& c, Guard&) -> Error {
    if (function == nullptr || errhandler == nullptr) {
      return error(MPI_ERR_ARG, "MPI_File_create_errhandler: rank %d: a NULL argument", gasket::my_pe());
    }
    *errhandler = c.comms().add_errhandler(reinterpret_cast<MPI_Comm_errhandler_function*>(function));
    return Error::ok();
  });
}

int PMPI_File_set_errhandler(MPI_File file, MPI_Errhandler errhandler) {
  const char* call = "MPI_File_set_errhandler";
  if (file == MPI_FILE_NULL) {
    return api::null_call(call, [&](Context& c, Guard&) {
      Error e = api::check_errhandler(c, errhandler, call);
      if (e.is_ok()) c.files().null_errhandler = errhandler;
      return e;
    });
  }
  return api::file_call(call, file, [&](Context& c, Guard&, File& f) {
    Error e = api::check_errhandler(c, errhandler, call);
    if (e.is_ok()) f.errhandler = errhandler;
    return e;
  });
}

int PMPI_File_get_errhandler(MPI_File file, MPI_Errhandler* errhandler) {
  const char* call = "MPI_File_get_errhandler";
  auto hand_out = [&](Context& c, MPI_Errhandler h) -> Error {
    if (errhandler == nullptr) return error(MPI_ERR_ARG, "%s: errhandler is NULL", call);
    *errhandler = h;
    c.comms().retain_errhandler(h);  // the caller frees it (MPI_Errhandler_free)
    return Error::ok();
  };
  if (file == MPI_FILE_NULL) {
    return api::null_call(call, [&](Context& c, Guard&) { return hand_out(c, c.files().null_errhandler); });
  }
  return api::file_call(call, file, [&](Context& c, Guard&, File& f) { return hand_out(c, f.errhandler); });
}

int PMPI_File_call_errhandler(MPI_File fh, int errorcode) {
  Context& c = api::context("MPI_File_call_errhandler");
  if (fh != MPI_FILE_NULL) {
    int valid = api::file_call("MPI_File_call_errhandler", fh, [](Context&, Guard&, File&) { return Error::ok(); });
    if (valid != MPI_SUCCESS) return valid;
  }
  api::report_file(c, fh, error(errorcode, "MPI_File_call_errhandler: error code %d raised by the application", errorcode));
  return MPI_SUCCESS;
}

// ---- data representations ----


int PMPI_Register_datarep(const char* datarep, MPI_Datarep_conversion_function* read_conversion_fn,
                          MPI_Datarep_conversion_function* write_conversion_fn,
                          MPI_Datarep_extent_function* dtype_file_extent_fn, void* extra_state) {
  gasket::mpi::io::Datarep rep;
  rep.read = read_conversion_fn;
  rep.write = write_conversion_fn;
  rep.extent = dtype_file_extent_fn;
  rep.extra_state = extra_state;
  return api::register_datarep("MPI_Register_datarep", datarep, rep);
}

int PMPI_Register_datarep_c(const char* datarep, MPI_Datarep_conversion_function_c* read_conversion_fn,
                            MPI_Datarep_conversion_function_c* write_conversion_fn,
                            MPI_Datarep_extent_function* dtype_file_extent_fn, void* extra_state) {
  gasket::mpi::io::Datarep rep;
  rep.read_c = read_conversion_fn;
  rep.write_c = write_conversion_fn;
  rep.extent = dtype_file_extent_fn;
  rep.extra_state = extra_state;
  return api::register_datarep("MPI_Register_datarep_c", datarep, rep);
}

}  // extern "C"
