#include "mpi/context/context.h"

#include <sched.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>

#include "core/base/log.h"
#include "core/base/parse.h"
#include "core/bootstrap/job_environment.h"
#include "core/gasket.h"
#include "core/runtime.h"

namespace gasket::mpi {

namespace {

// An optional count from the launcher's job environment: `fallback` when unset.
Error launcher_count(const char* variable, int min, int fallback, int* out) {
  const char* text = std::getenv(variable);
  *out = fallback;
  if (text == nullptr) return Error::ok();
  Result<int64_t> v = parse_int(text, min, 1 << 30);
  if (!v.is_ok()) {
    return error(MPI_ERR_OTHER, "MPI_Init: PE %d: bad %s='%s': expected an integer from %d", gasket::my_pe(),
                 variable, text, min);
  }
  *out = static_cast<int>(*v);
  return Error::ok();
}

// MPI_INFO_ENV's keys (MPI 4.1 section 11.8.4): the command line (`args`, else
// /proc/self/cmdline, which holds it whatever MPI_Init was given), the size of this process's part
// of the launch, where it runs, and the thread level provided (thread_level < 0: none yet).
Info environment_info(int thread_level, int maxprocs, int argc, char** argv) {
  Info info;
  std::vector<std::string> args;
  if (argc > 0 && argv != nullptr) {
    for (int i = 0; i < argc && argv[i] != nullptr; ++i) args.emplace_back(argv[i]);
  } else {
    std::ifstream in("/proc/self/cmdline", std::ios::binary);
    std::string all((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    for (size_t at = 0; at < all.size(); at = all.find('\0', at) + 1) {
      args.push_back(all.substr(at, all.find('\0', at) - at));
      if (all.find('\0', at) == std::string::npos) break;
    }
  }
  if (!args.empty()) {
    info.emplace_back("command", args[0]);
    std::string rest;
    for (size_t i = 1; i < args.size(); ++i) rest += (i > 1 ? " " : "") + args[i];
    info.emplace_back("argv", rest);
  }
  info.emplace_back("maxprocs", std::to_string(maxprocs));
  info.emplace_back("soft", std::to_string(maxprocs));  // the one count the launch allowed
  char host[256] = {};
  if (::gethostname(host, sizeof host - 1) == 0) info.emplace_back("host", host);
  struct utsname uts;
  if (::uname(&uts) == 0) info.emplace_back("arch", uts.machine);
  char cwd[4096];
  if (::getcwd(cwd, sizeof cwd) != nullptr) info.emplace_back("wdir", cwd);
  static const char* const kLevels[] = {"MPI_THREAD_SINGLE", "MPI_THREAD_FUNNELED", "MPI_THREAD_SERIALIZED",
                                        "MPI_THREAD_MULTIPLE"};
  if (thread_level >= 0) info.emplace_back("thread_level", kLevels[thread_level - MPI_THREAD_SINGLE]);
  return info;
}

}  // namespace

Context* Context::instance_ = nullptr;
LibraryState Context::state_ = LibraryState::kNotInitialized;
int Context::users_ = 0;

void Guard::take(Context& c) {
  if (c.lock_holder_.load() == std::this_thread::get_id()) return;
  context_ = &c;
  relock();
}

void Guard::unlock(bool wake_nappers) {
  if (context_ == nullptr || !held_) return;
  context_->lock_holder_.store(std::thread::id());
  held_ = false;
  context_->lock_.unlock();
  if (wake_nappers && context_->napping_threads_.load() > 0) gasket::detail::ring(gasket::my_pe());
}

void Guard::relock() {
  if (context_ == nullptr || held_) return;
  context_->lock_.lock();
  context_->lock_holder_.store(std::this_thread::get_id());
  held_ = true;
}

ProcessTables& ProcessTables::get() {
  static ProcessTables* tables = new ProcessTables();  // never destroyed: usable until the process ends
  return *tables;
}

Context& Context::dormant() {
  if (instance_ == nullptr) instance_ = new Context();
  return *instance_;
}

Info Context::environment(int argc, char** argv) const {
  // Before the runtime starts, the launcher's counts (this part's size, else the job's; 1 alone).
  int size = 1;
  if (started_) {
    for (const auto& [key, value] : *infos_[slot_of(HandleKind::kInfo, MPI_INFO_ENV)]) {
      if (key == "maxprocs") size = std::stoi(value);
    }
  } else {
    for (const char* variable : {bootstrap::kEnvJobSize, bootstrap::kEnvJobAppSize}) {
      Result<int64_t> v = parse_int(std::getenv(variable) ? std::getenv(variable) : "", 1, 1 << 30);
      if (v.is_ok()) size = static_cast<int>(*v);
    }
  }
  return environment_info(started_ ? thread_level_ : -1, size, argc, argv);
}

Error Context::start_instance(int required, const char* call) {
  Context& c = dormant();
  if (c.started_) return Error::ok();
  if (state_ == LibraryState::kFinalized) {
    return error(MPI_ERR_OTHER, "%s: gasket's runtime ended at MPI_Finalize and cannot start again", call);
  }
  Error e = c.start(required);
  if (!e.is_ok()) return e;
  c.started_ = true;
  return Error::ok();
}

Error Context::initialize(int required, int* provided) {
  if (state_ == LibraryState::kInitialized) return error(MPI_ERR_OTHER, "MPI_Init: MPI is already initialised");
  if (state_ == LibraryState::kFinalized) {
    return error(MPI_ERR_OTHER, "MPI_Init: MPI was finalised and cannot be initialised again");
  }
  Error e = start_instance(required, "MPI_Init");
  if (!e.is_ok()) return e;
  ++users_;
  state_ = LibraryState::kInitialized;
  if (provided != nullptr) *provided = instance_->thread_level_;
  return Error::ok();
}

Error Context::acquire(int required, int* provided, const char* call) {
  Error e = start_instance(required, call);
  if (!e.is_ok()) return e;
  static bool registered = false;  // once per process: the runtime may outlive its last session
  if (!registered) std::atexit(teardown_at_exit);
  registered = true;
  ++users_;
  if (provided != nullptr) *provided = instance_->thread_level_;
  return Error::ok();
}

void Context::release() { --users_; }

// A runtime started by sessions and not ended by MPI_Finalize ends with the process: collective
// like MPI_Finalize (every PE exits through here).
void Context::teardown_at_exit() {
  Context* c = instance_;
  if (c == nullptr || !c->started_) return;
  c->stop();
  instance_ = nullptr;
  delete c;
  (void)gasket::finalize();
}

Error Context::start(int required) {
  // Every level is provided as asked: SINGLE/FUNNELED/SERIALIZED need nothing, MULTIPLE takes
  // the context lock in every call.
  thread_level_ = std::min(std::max(required, MPI_THREAD_SINGLE), MPI_THREAD_MULTIPLE);
  main_thread_ = std::this_thread::get_id();
  InitOptions opts;
  opts.thread_multiple = thread_level_ == MPI_THREAD_MULTIPLE;
  opts.threads_woken = true;  // Guard::unlock rings for the threads napping in Context::wait
  Status st = gasket::init(opts);
  if (!st.is_ok()) return error(MPI_ERR_OTHER, "MPI_Init: %s", st.message().c_str());
  core::Runtime* rt = core::Runtime::get();
  const config::Config& cfg = rt->config();
  using config::Knob;
  p2p::EngineOptions o;
  o.eager_limit = cfg.size(Knob::MPI_EAGER_LIMIT);
  o.shm_eager_limit = cfg.size(Knob::MPI_SHM_EAGER_LIMIT);
  int64_t slots = cfg.integer(Knob::MPI_SHM_SLOTS);
  o.shm_hot = cfg.size(Knob::MPI_SHM_HOT);
  o.rndv_bounce = cfg.size(Knob::MPI_RNDV_BOUNCE);
  int64_t zones = cfg.integer(Knob::MPI_RNDV_ZONES);
  o.single_copy = cfg.boolean(Knob::MPI_SINGLE_COPY);
  coll_single_copy_bytes_ = static_cast<int64_t>(cfg.size(Knob::MPI_COLL_SINGLE_COPY));
  coll_staged_bytes_ = static_cast<int64_t>(cfg.size(Knob::MPI_COLL_STAGED));
  o.unexpected_limit = cfg.size(Knob::MPI_UNEXPECTED_LIMIT);
  if (slots < 2 || slots > 1024) {
    return error(MPI_ERR_OTHER, "MPI_Init: GASKET_MPI_SHM_SLOTS=%lld must be in 2..1024",
                 static_cast<long long>(slots));
  }
  o.shm_slots = static_cast<size_t>(slots);
  if (o.shm_eager_limit > (size_t{1} << 20)) {
    return error(MPI_ERR_OTHER, "MPI_Init: GASKET_MPI_SHM_EAGER_LIMIT=%zu exceeds 1M", o.shm_eager_limit);
  }
  if (o.rndv_bounce < 8192 || o.rndv_bounce % 4096 != 0) {
    return error(MPI_ERR_OTHER, "MPI_Init: GASKET_MPI_RNDV_BOUNCE=%zu must be a multiple of 4K, at least 8K",
                 o.rndv_bounce);
  }
  if (zones < 1 || zones > 1024) {
    return error(MPI_ERR_OTHER, "MPI_Init: GASKET_MPI_RNDV_ZONES=%lld must be in 1..1024", static_cast<long long>(zones));
  }
  o.rndv_zones = static_cast<size_t>(zones);
  comms_ = std::make_unique<comm::CommTable>(gasket::my_pe(), gasket::n_pes(), tables_.errhandlers);
  auto engine = p2p::Engine::create(o);
  if (!engine.is_ok()) return error(MPI_ERR_OTHER, "%s", engine.status().message().c_str());
  engine_ = std::move(engine.value());
  engine_->bsend_release = [this](char* block) { bsend_.release(block); };
  // Accumulates that peers over a backend ship to this process's windows (mpi/win/README.md).
  if (core::am::EmulatedRma* emulated = rt->emulated()) {
    emulated->set_service(win::kAccumulateService, [this](int src, const char* in, size_t n, char* out, size_t m) {
      return wins_.serve_accumulate(src, in, n, out, m);
    });
  }
  // Sparse like the heap it lives in: a large pool costs no memory until written.
  size_t pool = cfg.is_auto(Knob::MPI_ALLOC_MEM_POOL) ? gasket::sym_heap_size() / 4 : cfg.size(Knob::MPI_ALLOC_MEM_POOL);
  if (pool > 0) {
    alloc_pool_base_ = static_cast<char*>(gasket::sym_malloc(pool, "MPI_Init (MPI_Alloc_mem pool)"));
    auto give_back = [rt](char* block, size_t bytes) { rt->return_heap_pages(block, bytes); };
    if (alloc_pool_base_ != nullptr) alloc_pool_ = Arena(alloc_pool_base_, pool, give_back);
  }
  if (area_.create("MPI_Init (collective area)").is_ok()) {
    comms_->find(MPI_COMM_WORLD)->coll_slot = 0;
    if (coll_staged_bytes_ > 0 && !staging_.create("MPI_Init (collective staging area)")) {
      GASKET_DEBUG("MPI_Init: no collective staging area; large same-node collectives take the other algorithms");
    }
  } else {
    GASKET_DEBUG("MPI_Init: no collective area; collectives use point-to-point only");
  }
  spin_count_ = rt->spin_count();
  oversubscribed_ = gasket::oversubscribed();
  int app_size = 0;
  for (Error le : {launcher_count(bootstrap::kEnvJobAppnum, 0, 0, &appnum_),
                   launcher_count(bootstrap::kEnvJobAppSize, 1, gasket::n_pes(), &app_size),
                   launcher_count(bootstrap::kEnvJobUniverseSize, 1, gasket::n_pes(), &universe_size_)}) {
    if (!le.is_ok()) return le;
  }
  *infos_[slot_of(HandleKind::kInfo, MPI_INFO_ENV)] = environment_info(thread_level_, app_size, 0, nullptr);
  wtime_base_ = 0;
  wtime_base_ = wtime();
  return Error::ok();
}

Error Context::finalize() {
  Context* c = get();
  if (c == nullptr || state_ != LibraryState::kInitialized) {
    return error(MPI_ERR_OTHER, "MPI_Finalize: MPI is not initialised");
  }
  state_ = LibraryState::kFinalized;
  if (--users_ > 0) return Error::ok();  // sessions still use the runtime: it ends at exit
  c->stop();
  instance_ = nullptr;
  delete c;
  Status st = gasket::finalize();
  if (!st.is_ok()) return error(MPI_ERR_OTHER, "MPI_Finalize: %s", st.message().c_str());
  return Error::ok();
}

void Context::stop() {
  // Outstanding buffered sends complete before the job's PEs leave (MPI_Finalize's promise).
  {
    Guard g(*this);
    wait(g, [this] { return bsend_.total_in_use() == 0; });
  }
  GASKET_DEBUG("%s", engine_->describe().c_str());
  engine_->shutdown();  // after its barrier no peer ships an accumulate here
  if (core::am::EmulatedRma* emulated = core::Runtime::get()->emulated()) {
    emulated->set_service(win::kAccumulateService, nullptr);
  }
  if (alloc_pool_base_ != nullptr) gasket::sym_free(alloc_pool_base_, "MPI_Finalize");
  staging_.destroy("MPI_Finalize (collective staging area)");
  area_.destroy("MPI_Finalize (collective area)");
}

// Busy polls until the spin budget is spent (no pause instruction: on this CPU generation it costs
// ~140 cycles, a third of the transfer it waits for), then yields the core each time — at once
// when PEs outnumber cores. Under MULTIPLE the lock is released between polls.
void Context::backoff(Guard& g, unsigned* polls) {
  bool yield = oversubscribed_ || ++*polls >= spin_count_;
  if (thread_level_ == MPI_THREAD_MULTIPLE) {
    g.unlock();
    if (yield) sched_yield();
    g.relock();
    return;
  }
  if (yield) sched_yield();
}

int Context::report(MPI_Comm comm_handle, const Error& e) {
  // A request of a non-blocking file access names its file: the file's handler (mpi/io).
  if (is_kind(comm_handle, HandleKind::kFile) && files_.report != nullptr) return files_.report(comm_handle, e);
  Guard g(*this);
  comm::Communicator* c = nullptr;
  if (!comms_->lookup(comm_handle, "", &c).is_ok()) {
    comm_handle = MPI_COMM_WORLD;
    (void)comms_->lookup(comm_handle, "", &c);
  }
  int code = e.error_class();
  if (c->errhandler == MPI_ERRORS_RETURN) return code;
  comm::Errhandler* eh = nullptr;
  if (c->errhandler != MPI_ERRORS_ARE_FATAL && comms_->lookup_errhandler(c->errhandler, "", &eh).is_ok() &&
      eh->function != nullptr) {
    MPI_Comm_errhandler_function* function = eh->function;
    run_callback(g, [&] { function(&comm_handle, &code); });
    return e.error_class();
  }
  std::string label = c->name.empty() ? "communicator " + std::to_string(comm_handle) : c->name;
  std::string msg = "MPI error on rank " + std::to_string(c->rank) + " of " + label + ": " + e.message() + " (" +
                    (error_class_string(code) ? error_class_string(code) : "unknown class") + ")";
  gasket::abort_job(code == 0 ? 1 : code, msg.c_str());
}

MPI_Message Context::add_message(std::unique_ptr<p2p::Unexpected> msg) {
  for (size_t i = 1; i < messages_.size(); ++i) {
    if (!messages_[i]) {
      messages_[i] = std::move(msg);
      return handle_of(HandleKind::kMessage, i);
    }
  }
  messages_.push_back(std::move(msg));
  return handle_of(HandleKind::kMessage, messages_.size() - 1);
}

Error Context::take_message(MPI_Message* handle, const char* call, std::unique_ptr<p2p::Unexpected>* msg) {
  if (handle == nullptr) return error(MPI_ERR_ARG, "%s: the message argument is NULL", call);
  MPI_Message h = *handle;
  auto* entry = entry_of(messages_, HandleKind::kMessage, h);
  if (entry == nullptr || !*entry) {
    return error(MPI_ERR_REQUEST, "%s: %d is not a message from MPI_Mprobe/MPI_Improbe (%s)", call, h,
                 why_not_found(HandleKind::kMessage, h));
  }
  *msg = std::move(*entry);
  *handle = MPI_MESSAGE_NULL;
  return Error::ok();
}

MPI_Info Context::add_info(Info info) {
  for (size_t i = 2; i < infos_.size(); ++i) {
    if (!infos_[i]) {
      infos_[i] = std::make_unique<Info>(std::move(info));
      return handle_of(HandleKind::kInfo, i);
    }
  }
  infos_.push_back(std::make_unique<Info>(std::move(info)));
  return handle_of(HandleKind::kInfo, infos_.size() - 1);
}

Info* Context::find_info(MPI_Info handle) {
  auto* entry = entry_of(infos_, HandleKind::kInfo, handle);
  return entry != nullptr ? entry->get() : nullptr;
}

double Context::wtime() const {
  auto now = std::chrono::steady_clock::now().time_since_epoch();
  return std::chrono::duration<double>(now).count() - wtime_base_;
}

}  // namespace gasket::mpi
