// The library object: init/finalize, teams (split, destroy, slot agreement), contexts, checks.
#include "shmem-api/library.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "core/base/log.h"
#include "core/config/config.h"
#include "core/version.h"

namespace gasket::shmem {

Library* Library::instance_ = nullptr;

Library& Library::get(const char* call) {
  if (__builtin_expect(instance_ == nullptr, 0)) {
    log::fatal("%s: OpenSHMEM is not initialised (call shmem_init first)", call);
  }
  return *instance_;
}

namespace {
// Programs that call start_pes (or forget shmem_finalize) and end normally (status 0) are
// finalized at exit, as the standard allows, so the launcher sees a clean end. A PE that exits
// with another status (exit(3) on an error path) leaves at once: a collective finalize would wait
// in a barrier its peers never join, and the job would hang instead of the launcher ending it
// with "PE n exited with status 3".
void finalize_at_exit(int status, void*) {
  if (status == 0 && Library::running()) shmem_finalize();
}
}  // namespace

void Library::start(int requested, const char* call) {
  if (instance_ != nullptr) return;  // repeated init: the library is already running
  if (requested < SHMEM_THREAD_SINGLE || requested > SHMEM_THREAD_MULTIPLE) {
    log::fatal("%s: thread level %d is not one of SHMEM_THREAD_SINGLE..SHMEM_THREAD_MULTIPLE", call, requested);
  }
  InitOptions options;
  options.thread_multiple = requested == SHMEM_THREAD_MULTIPLE;
  Status st = init(options);
  if (!st.is_ok()) log::fatal("%s: %s", call, st.message().c_str());
  Result<config::Config> cfg = config::Config::load(config::environment_lookup());
  if (!cfg.is_ok()) log::fatal("%s: %s", call, cfg.status().message().c_str());

  auto* lib = new Library();
  lib->thread_level_ = requested;
  lib->debug_ = cfg->boolean(config::Knob::SHMEM_DEBUG);
  lib->pool_ = static_cast<int64_t*>(sym_calloc(kMaxTeams * kSlotWords, sizeof(int64_t), call));
  if (lib->pool_ == nullptr) log::fatal("%s: no symmetric memory for the team synchronisation areas", call);
  // The cell area of the small same-node collectives; without it they take the SyncArea algorithms.
  if (!lib->cells_.create(call).is_ok()) GASKET_DEBUG("%s: no collective cell area; collectives use the SyncArea algorithms", call);
  lib->cell_wait_ = coll::CellWait::standard(requested == SHMEM_THREAD_MULTIPLE);
  instance_ = lib;
  int n = n_pes(), me = my_pe();
  lib->add_team(coll::PeSet::strided(0, 1, n, call), 0, 1, nullptr);
  std::vector<int> node;
  for (int pe = 0; pe < n; ++pe)
    if (node_of(pe) == node_of(me)) node.push_back(pe);
  lib->add_team(coll::PeSet::of_list(node, call), 1, 2, nullptr);
  lib->contexts_.push_back(Context{true, 0, 0});
  if (cfg->boolean(config::Knob::SHMEM_INFO) && me == 0) {
    std::printf("%s (gasket %s): OpenSHMEM %d.%d, %d PEs on %d nodes, transport to PE %d: %s, "
                "symmetric heap %zu bytes, thread level %d%s\n",
                SHMEM_VENDOR_STRING, kVersion, SHMEM_MAJOR_VERSION, SHMEM_MINOR_VERSION, n,
                n_nodes(), n - 1, transport_name(n - 1), sym_heap_size(), requested,
                lib->debug_ ? ", SHMEM_DEBUG on" : "");
    for (const config::KnobSpec& k : config::knobs()) {
      if (cfg->origin(k.knob) != "default") std::printf("  %s=%s\n", k.name, cfg->text(k.knob).c_str());
    }
    std::fflush(stdout);
  }
  static bool registered = false;
  if (!registered) registered = on_exit(finalize_at_exit, nullptr) == 0;  // glibc: the handler sees the status
}

void Library::stop() {
  Library* lib = instance_;
  if (lib == nullptr) return;
  barrier_all();
  lib->cells_.destroy("shmem_finalize");
  sym_free(lib->pool_, "shmem_finalize");
  instance_ = nullptr;
  delete lib;
  Status st = finalize();
  if (!st.is_ok()) log::fatal("shmem_finalize: %s", st.message().c_str());
}

Team& Library::team(shmem_team_t handle, const char* call) {
  auto index = reinterpret_cast<uintptr_t>(handle);
  if (index == 0 || index > teams_.size() || !teams_[index - 1].alive) {
    log::fatal("%s: bad team handle %p (SHMEM_TEAM_INVALID, destroyed or never created)", call,
               static_cast<void*>(handle));
  }
  return teams_[index - 1];
}

int Library::add_team(coll::PeSet set, int slot, uint32_t tag, const shmem_team_config_t* config) {
  Team t;
  t.alive = true;
  // The cells serve the team when every member is mapped here and reached directly: a backend
  // carrying same-node traffic may still map the heap, but a barrier through the cells would then
  // pass puts and atomics the backend has not delivered yet.
  const bool has_cells = slot < coll::CellArea::kSlots;
  t.on_cells = has_cells && coll::cells_apply(cells_, slot, set, 0);
  for (int r = 0; t.on_cells && r < set.size(); ++r) t.on_cells = std::strcmp(transport_name(set.pe(r)), "direct") == 0;
  t.set = std::move(set);
  t.slot = slot;
  t.tag = tag;
  if (t.on_cells) t.cell_table = coll::cell_table(cells_, slot, t.set);
  last_tag_ = tag > last_tag_ ? tag : last_tag_;
  t.sync = pool_ + static_cast<size_t>(slot) * kSlotWords;
  if (config != nullptr) t.config = *config;
  used_slots_[slot / 64] |= uint64_t{1} << (slot % 64);
  if (has_cells) cells_.take(slot);
  teams_.push_back(std::move(t));
  return static_cast<int>(teams_.size()) - 1;
}

int Library::split(shmem_team_t parent_handle, const std::vector<std::vector<int>>& groups,
                   const std::vector<const shmem_team_config_t*>& configs,
                   std::vector<shmem_team_t*> out, const char* call) {
  std::lock_guard<std::recursive_mutex> lock(mutex_);
  Team& parent = team(parent_handle, call);
  if (parent.set.my_rank() < 0) log::fatal("%s: PE %d is not a member of the parent team", call, my_pe());
  coll::PeSet pset = parent.set;  // teams_ may grow below
  coll::SyncArea psync = parent.sync;
  // Agree on free slots: AND of every member's free-slot mask, through the parent's exchange word.
  // A destroyed team's cells stay taken until all its members have left its last collective.
  static_assert(coll::CellArea::kSlots == 64, "the cell slots are the first mask word");
  int64_t* exchange = psync + kExchangeWord;
  for (size_t w = 0; w < kSlotMaskWords; ++w) exchange[w] = static_cast<int64_t>(~used_slots_[w]);
  exchange[0] = static_cast<int64_t>(~used_slots_[0] & cells_.free_slots());
  uint64_t common[kSlotMaskWords] = {};
  coll::reduce(pset, psync, common, reinterpret_cast<const uint64_t*>(exchange), kSlotMaskWords,
               coll::ReduceOp::kAnd, call);
  // The new teams' cell tags: above every tag any member has given out (so a reused cell slot's
  // old flags never count for the new team).
  *exchange = static_cast<int64_t>(last_tag_);
  uint64_t top = 0;
  coll::reduce(pset, psync, &top, reinterpret_cast<const uint64_t*>(exchange), 1, coll::ReduceOp::kMax, call);
  std::vector<int> slots;
  for (int s = 2; s < kMaxTeams && slots.size() < groups.size(); ++s)
    if (common[s / 64] & (uint64_t{1} << (s % 64))) slots.push_back(s);
  for (shmem_team_t* o : out) *o = SHMEM_TEAM_INVALID;
  if (slots.size() < groups.size()) {
    // Every member sees the same agreed mask, so every member returns here: the split fails on
    // all of them, as OpenSHMEM asks (non-zero, SHMEM_TEAM_INVALID), and the job goes on.
    GASKET_DEBUG("%s: no free team slot: at most %d teams may exist at once", call, kMaxTeams - 2);
    return 1;
  }
  for (size_t g = 0; g < groups.size(); ++g) {
    if (groups[g].empty()) continue;
    coll::PeSet set = pset.subset(groups[g], call);
    int index = add_team(std::move(set), slots[g], static_cast<uint32_t>(top + 1 + g), configs[g]);
    if (out[g] != nullptr) *out[g] = team_handle(index);
  }
  last_tag_ = static_cast<uint32_t>(top + groups.size());
  return 0;
}

void Library::destroy_team(shmem_team_t handle, const char* call) {
  std::lock_guard<std::recursive_mutex> lock(mutex_);
  if (handle == SHMEM_TEAM_WORLD || handle == SHMEM_TEAM_SHARED) {
    log::fatal("%s: SHMEM_TEAM_WORLD and SHMEM_TEAM_SHARED cannot be destroyed", call);
  }
  if (handle == SHMEM_TEAM_INVALID) return;
  Team& t = team(handle, call);
  int index = static_cast<int>(reinterpret_cast<uintptr_t>(handle) - 1);
  for (size_t c = 1; c < contexts_.size(); ++c) {
    if (contexts_[c].alive && contexts_[c].team == index) {
      quiet();  // contexts of a destroyed team are destroyed with it
      contexts_[c].alive = false;
    }
  }
  t.alive = false;
  used_slots_[t.slot / 64] &= ~(uint64_t{1} << (t.slot % 64));
  if (t.on_cells) {
    cells_.retire(t.slot, t.set, t.tag, t.cell_seq);
  } else if (t.slot < coll::CellArea::kSlots) {
    cells_.release(t.slot);
  }
}

Context& Library::context(shmem_ctx_t handle, const char* call) {
  auto index = reinterpret_cast<uintptr_t>(handle);
  if (index == 0 || index > contexts_.size() || !contexts_[index - 1].alive) {
    log::fatal("%s: bad context %p (SHMEM_CTX_INVALID, destroyed or never created)", call, static_cast<void*>(handle));
  }
  return contexts_[index - 1];
}

int Library::ctx_target(shmem_ctx_t handle, int pe, const char* call) {
  const Context& c = context(handle, call);
  if (c.team == 0) return pe;
  const Team& t = teams_[static_cast<size_t>(c.team)];
  if (pe < 0 || pe >= t.set.size()) {
    log::fatal("%s: target PE %d is out of range: the context's team has %d PEs", call, pe, t.set.size());
  }
  return t.set.pe(pe);
}

int Library::create_context(int team_index, long options, shmem_ctx_t* out, const char* call) {
  if (out == nullptr) log::fatal("%s: null context pointer", call);
  const long known = SHMEM_CTX_PRIVATE | SHMEM_CTX_SERIALIZED | SHMEM_CTX_NOSTORE;
  if ((options & ~known) != 0) log::fatal("%s: unknown context options 0x%lx", call, options);
  std::lock_guard<std::recursive_mutex> lock(mutex_);
  // Every context shares the PE's one ordering domain: a quiet on any context completes the
  // operations of all, which honours PRIVATE, SERIALIZED and NOSTORE (they only relax guarantees).
  contexts_.push_back(Context{true, team_index, options});
  *out = reinterpret_cast<shmem_ctx_t>(static_cast<uintptr_t>(contexts_.size()));
  return 0;
}

void Library::destroy_context(shmem_ctx_t handle, const char* call) {
  std::lock_guard<std::recursive_mutex> lock(mutex_);
  if (handle == SHMEM_CTX_DEFAULT) log::fatal("%s: SHMEM_CTX_DEFAULT cannot be destroyed", call);
  Context& c = context(handle, call);
  quiet();
  c.alive = false;
}

bool Library::open_session(shmem_ctx_t handle, const char* call) {
  std::lock_guard<std::recursive_mutex> lock(mutex_);
  Context& c = context(handle, call);
  if (c.in_session) return false;
  c.in_session = true;
  return true;
}

void Library::close_session(shmem_ctx_t handle, const char* call) {
  std::lock_guard<std::recursive_mutex> lock(mutex_);
  context(handle, call).in_session = false;
}

shmem_team_t Library::context_team(shmem_ctx_t handle, const char* call) {
  return team_handle(context(handle, call).team);
}

void Library::check_symmetric(const void* addr, size_t bytes, const char* role, const char* call) const {
  if (debug_ && bytes != 0 && !addr_accessible(addr, bytes, my_pe())) {
    log::fatal("%s: %s address %p (%zu bytes) is not symmetric memory (SHMEM_DEBUG)", call, role, addr, bytes);
  }
}

Cmp comparison(int cmp, const char* call) {
  if (cmp < SHMEM_CMP_EQ || cmp > SHMEM_CMP_LE) {
    log::fatal("%s: comparison %d is not one of SHMEM_CMP_EQ..SHMEM_CMP_LE", call, cmp);
  }
  static const Cmp kMap[] = {Cmp::kEq, Cmp::kNe, Cmp::kGt, Cmp::kGe, Cmp::kLt, Cmp::kLe};
  return kMap[cmp];
}

}  // namespace gasket::shmem
