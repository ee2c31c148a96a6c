// The MPI library's one context object: every piece of state the library keeps between calls
// (datatypes, communicators, the two-sided engine, message handles, the attached buffer, the
// MPI_Alloc_mem pool, thread level) lives here, created by MPI_Init and destroyed by
// MPI_Finalize; info objects and error handlers live longer (ProcessTables). Calls are serialised by one lock under MPI_THREAD_MULTIPLE (Guard, re-entrant per
// thread; user callbacks run with it released, run_callback). May call
// mpi/base, mpi/datatype, mpi/op, mpi/comm, mpi/p2p and core/gasket.h.
#pragma once

#include <atomic>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "core/gasket.h"
#include "mpi.h"
#include "mpi/base/arena.h"
#include "mpi/base/error.h"
#include "mpi/base/handle.h"
#include "mpi/coll/area.h"
#include "mpi/coll/scratch.h"
#include "mpi/comm/communicator.h"
#include "mpi/context/bsend_buffers.h"
#include "mpi/context/user_errors.h"
#include "mpi/datatype/datatype.h"
#include "mpi/io/file.h"
#include "mpi/op/op.h"
#include "mpi/p2p/engine.h"
#include "mpi/session/session.h"
#include "mpi/win/window.h"

namespace gasket::mpi {

class Context;
namespace api {
struct Ports;  // mpi/api/dynproc.cc
}  // namespace api

// An MPI_Info object: keys and values in insertion order (MPI_Info_get_nthkey's order).
using Info = std::vector<std::pair<std::string, std::string>>;

// Holds the context's lock for one MPI call when the thread level is MULTIPLE; waits release it
// between polls so that other threads progress too.
//
// Re-entrant per thread: a call made by a thread that already holds the lock (an MPI call from a
// user reduction op, which runs inside the engine's progress) takes nothing and its unlock/relock
// do nothing, since the outer call's state is mid-update. User callbacks that run at the top of a
// call (attribute copy/delete, error handlers, generalized-request callbacks) run with the lock
// released instead, through Context::run_callback, so they may block in MPI like any call.
// Below MULTIPLE a Guard is one inline test of the thread level (no call): every binding makes one.
class Guard {
 public:
  explicit Guard(Context& c);  // inline, after Context
  ~Guard() {
    if (held_) unlock();
  }
  Guard(const Guard&) = delete;
  Guard& operator=(const Guard&) = delete;
  // `wake_nappers`: ring this PE's doorbell when another thread naps in Context::wait (what this
  // call did under the lock may be what it waits for); a thread about to nap itself does not.
  void unlock(bool wake_nappers = true);
  void relock();

 private:
  void take(Context& c);  // MULTIPLE: the lock, unless this thread's call holds it already
  Context* context_ = nullptr;  // null: no lock to take (below MULTIPLE, or a re-entrant call)
  bool held_ = false;
};

// What outlives the runtime: MPI 4.1 section 11.4.1 lets info objects and session error handlers
// be made before MPI_Init and used after MPI_Finalize, so their tables live apart from the
// Context, one per process, made on first use and never destroyed (as MPI_T's Interface); the
// Context reaches them (find_info, errhandlers()) under its lock.
struct ProcessTables {
  std::vector<std::unique_ptr<Info>> infos = [] {
    std::vector<std::unique_ptr<Info>> v(2);  // MPI_INFO_NULL, MPI_INFO_ENV
    v[slot_of(HandleKind::kInfo, MPI_INFO_ENV)] = std::make_unique<Info>();
    return v;
  }();
  comm::ErrhandlerTable errhandlers;
  static ProcessTables& get();
};

// The World model's state (MPI_Initialized / MPI_Finalized answer from it; sessions do not change it).
enum class LibraryState { kNotInitialized, kInitialized, kFinalized };

class Context {
 public:
  // The started context (MPI_Init or a session made it), or null.
  static Context* get() { return instance_ != nullptr && instance_->started_ ? instance_ : nullptr; }
  static LibraryState state() { return state_; }
  // The World model: MPI_Init_thread / MPI_Finalize.
  static Error initialize(int required, int* provided);
  static Error finalize();
  // Users of the runtime besides the World model (each MPI session): the first user of the
  // process starts it (collectively, as MPI_Init does); the context is reference counted. The
  // core cannot restart once finalized, so a context whose last session ends stays started
  // (idle) until MPI_Finalize or the process's exit, and a later session or MPI_Init reuses it.
  static Error acquire(int required, int* provided, const char* call);
  static void release();
  // The context, made (not started) when there is none: what may be used before MPI_Init and
  // after MPI_Finalize (info objects, MPI 4.1 section 11.4.1).
  static Context& dormant();
  bool started() const { return started_; }

  int thread_level() const { return thread_level_; }
  bool is_main_thread() const { return std::this_thread::get_id() == main_thread_; }
  // Runs a user callback: with the lock released when this thread's call holds it (the callback
  // may call MPI, block, or change any table: callers look their objects up again afterwards).
  template <typename Callback>
  auto run_callback(Guard& g, Callback callback) {
    struct Relock {
      Guard& g;
      ~Relock() { g.relock(); }
    } relock{g};
    g.unlock();
    return callback();
  }

  datatype::DatatypeTable& types() { return types_; }
  comm::CommTable& comms() { return *comms_; }
  p2p::Engine& engine() { return *engine_; }
  // User-defined reduction operations (MPI_Op_create).
  op::OpTable& ops() { return ops_; }
  // One-sided windows (mpi/win).
  win::WinTable& wins() { return wins_; }
  // Open files, MPI_FILE_NULL's error handler, data representations, the I/O thread (mpi/io).
  io::FileTable& files() { return files_; }
  // The same-node collective area (mpi/coll/area.h).
  coll::CollectiveArea& area() { return area_; }
  const coll::StagingArea& staging() const { return staging_; }
  coll::ScratchPool& scratch() { return scratch_; }
  // GASKET_MPI_COLL_SINGLE_COPY: the same-node single-copy collectives from this size (0: off).
  int64_t coll_single_copy_bytes() const { return coll_single_copy_bytes_; }
  // GASKET_MPI_COLL_STAGED: the same-node staged collectives from this size (0: off).
  int64_t coll_staged_bytes() const { return coll_staged_bytes_; }
  // Context ids for communicators created by non-blocking calls (MPI_Comm_idup) come from their
  // own range (top bit set), which blocking creations never use, so a blocking creation started
  // while an idup is in flight cannot take the id the idup's members will agree on.
  uint32_t next_nonblocking_context() const { return next_nb_context_; }
  // Context ids agreed by mpi/coll's agreement (taken tentatively while it verifies them, so
  // agreements running at once in several threads never settle on the same id).
  bool context_taken(uint32_t context) const { return agreed_contexts_.count(context) != 0; }
  void take_context(uint32_t context) { agreed_contexts_.insert(context); }
  void release_context(uint32_t context) { agreed_contexts_.erase(context); }
  void use_nonblocking_context(uint32_t context) {
    if (context + comm::kContextStride > next_nb_context_) next_nb_context_ = context + comm::kContextStride;
  }

  // Progresses until done() holds, with the core's waiting policy (gasket::detail::wait_turn:
  // spin, then nap until a peer's write rings). Under MULTIPLE the lock is released between polls
  // and around the nap; the napper counts itself in napping_threads_, so every other thread's
  // release of the lock rings this PE's doorbell (Guard::unlock): another thread's progress may
  // complete what the napper waits for, and no peer would ring for that.
  template <typename Done>
  void wait(Guard& g, Done done) {
    unsigned polls = 0;
    auto serve = [this] { engine_->progress(); };
    for (;;) {
      serve();
      if (done()) return;
      if (thread_level_ != MPI_THREAD_MULTIPLE) {
        if (gasket::detail::wait_turn(&polls, serve, done, /*pause=*/false)) return;
      } else if (!gasket::detail::spin(&polls, /*pause=*/false)) {
        g.unlock();
        g.relock();
      } else if (nap_unlocked(g, &polls, serve, done)) {
        return;
      }
    }
  }
  // MULTIPLE, past the spin budget: wait_turn's nap with the lock released while asleep. True
  // when the last check (under the lock) held.
  template <typename Serve, typename Done>
  bool nap_unlocked(Guard& g, unsigned* polls, Serve& serve, Done& done) {
    gasket::detail::Nap nap;
    if (!gasket::detail::nap_begin(&nap)) {
      backoff(g, polls);
      return false;
    }
    serve();
    bool ready = done();
    if (!ready) napping_threads_.fetch_add(1);  // before the release: any later holder rings
    g.unlock(/*wake_nappers=*/false);
    gasket::detail::nap_end(nap, !ready);
    if (!ready) napping_threads_.fetch_sub(1);
    g.relock();
    if (!ready) *polls = 0;
    return ready;
  }
  void backoff(Guard& g, unsigned* polls);
  // Threads asleep in nap_unlocked (MULTIPLE).
  int napping_threads() const { return napping_threads_.load(); }

  // The error path of every call: runs `comm`'s error handler (MPI_COMM_WORLD's when `comm` is
  // not a communicator) and returns the code the call returns. Call without the lock held.
  int report(MPI_Comm comm, const Error& e);

  // mprobe's message handles.
  MPI_Message add_message(std::unique_ptr<p2p::Unexpected> msg);
  Error take_message(MPI_Message* handle, const char* call, std::unique_ptr<p2p::Unexpected>* msg);
  bool has_message(MPI_Message h) const {
    auto* entry = entry_of(messages_, HandleKind::kMessage, h);
    return entry != nullptr && *entry != nullptr;
  }

  // The predefined attributes MPI_APPNUM (0 when the launcher gave none: a launch without ':' is
  // one part) and MPI_UNIVERSE_SIZE.
  int* appnum() { return &appnum_; }
  int* universe_size() { return &universe_size_; }

  // Info objects (MPI_INFO_ENV describes how this process was started, see start()).
  MPI_Info add_info(Info info);
  // MPI_INFO_ENV's keys for the command line argc/argv (none given: this process's own).
  Info environment(int argc, char** argv) const;
  Info* find_info(MPI_Info handle);
  void free_info(MPI_Info handle) { entry_of(infos_, HandleKind::kInfo, handle)->reset(); }

  // Error handlers (ProcessTables; comms() reaches the same table once started).
  comm::ErrhandlerTable& errhandlers() { return tables_.errhandlers; }

  // MPI sessions (mpi/session).
  session::SessionTable& sessions() { return sessions_; }

  // Error classes, codes and strings added by the application.
  UserErrors& user_errors() { return user_errors_; }

  // The buffers of buffered sends (process, communicators, sessions) and their blocks.
  BsendBuffers& bsend_buffers() { return bsend_; }
  // MPI_Alloc_mem's pool in the symmetric heap.
  Arena& alloc_pool() { return alloc_pool_; }

  double wtime() const;

  // Dynamic processes (mpi/api/dynproc.cc): a spawned job's intercommunicator to its parents
  // (MPI_Comm_get_parent), and the ports this process opened with the requests that reached them.
  MPI_Comm& parent() { return parent_; }
  std::shared_ptr<api::Ports>& ports() { return ports_; }

 private:
  Context() = default;
  MPI_Comm parent_ = MPI_COMM_NULL;
  std::shared_ptr<api::Ports> ports_;
  Error start(int required);
  void stop();

  static Context* instance_;
  static LibraryState state_;
  static int users_;  // the World model (while initialised) and each live session
  // Starts the context made by dormant() (required: the thread level asked).
  static Error start_instance(int required, const char* call);
  static void teardown_at_exit();
  bool started_ = false;

  int thread_level_ = MPI_THREAD_SINGLE;
  std::thread::id main_thread_;
  friend class Guard;
  std::mutex lock_;
  std::atomic<std::thread::id> lock_holder_{};  // the thread whose call holds lock_
  std::atomic<int> napping_threads_{0};
  datatype::DatatypeTable types_;
  op::OpTable ops_;
  coll::CollectiveArea area_;
  coll::StagingArea staging_;
  coll::ScratchPool scratch_;
  int64_t coll_single_copy_bytes_ = 0;
  int64_t coll_staged_bytes_ = 0;
  uint32_t next_nb_context_ = 0x80000000u;
  std::set<uint32_t> agreed_contexts_;
  std::unique_ptr<comm::CommTable> comms_;  // needs the PE's identity: made at start
  std::unique_ptr<p2p::Engine> engine_;
  win::WinTable wins_;
  io::FileTable files_;
  std::vector<std::unique_ptr<p2p::Unexpected>> messages_ = std::vector<std::unique_ptr<p2p::Unexpected>>(1);  // 0: null
  ProcessTables& tables_ = ProcessTables::get();
  std::vector<std::unique_ptr<Info>>& infos_ = tables_.infos;
  UserErrors user_errors_;
  session::SessionTable sessions_;
  BsendBuffers bsend_;
  Arena alloc_pool_;
  char* alloc_pool_base_ = nullptr;
  unsigned spin_count_ = 1000;
  bool oversubscribed_ = false;
  int appnum_ = 0;
  int universe_size_ = 0;
  double wtime_base_ = 0;
};

inline Guard::Guard(Context& c) {
  if (c.thread_level_ == MPI_THREAD_MULTIPLE) take(c);
}

}  // namespace gasket::mpi
