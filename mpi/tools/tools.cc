#include "mpi/tools/tools.h"

#include <chrono>
#include <cstring>
#include <sstream>

#include "core/base/log.h"
#include "core/runtime.h"
#include "mpi/context/context.h"

namespace gasket::mpi::tools {

namespace {

using config::Knob;
using config::Type;

// The one MPI_T state of the process: from the first MPI_T_init_thread to the last MPI_T_finalize
// (the tools interface outlives MPI_Init..MPI_Finalize, so it cannot live in the MPI context).
struct Instance {
  std::mutex mutex;
  int users = 0;
  std::unique_ptr<Interface> interface;
};
Instance& instance() {
  static Instance one;
  return one;
}

// Knobs whose value the runtime can change while it runs (scope MPI_T_SCOPE_LOCAL); every other
// knob is read at init and fixed for the run (MPI_T_SCOPE_CONSTANT).
bool writable(Knob k) { return k == Knob::LOG || k == Knob::MPI_EAGER_LIMIT || k == Knob::MPI_SHM_EAGER_LIMIT; }

constexpr int kStringCount = 1024;  // characters a string cvar's buffer must hold

std::vector<std::string> split_choices(const char* choices) {
  std::vector<std::string> items;
  std::stringstream in(choices);
  for (std::string item; std::getline(in, item, '|');) items.push_back(item);
  return items;
}

int choice_index(const gasket_T_enum& e, const std::string& value) {
  for (size_t i = 0; i < e.items.size(); ++i) {
    if (e.items[i] == value) return static_cast<int>(i);
  }
  return 0;
}

}  // namespace

const std::vector<PerformanceVariable>& performance_variables() {
  static const std::vector<PerformanceVariable> kVariables = {
      {"mpi_eager_received", MPI_T_PVAR_CLASS_COUNTER, Counter::kEagerReceived,
       "Messages received by the eager protocol (data in the packet)"},
      {"mpi_rendezvous_single_copy", MPI_T_PVAR_CLASS_COUNTER, Counter::kRendezvousPull,
       "Rendezvous received by one copy from a same-node sender"},
      {"mpi_rendezvous_get", MPI_T_PVAR_CLASS_COUNTER, Counter::kRendezvousGet,
       "Rendezvous received by a get of the sender's buffer over the backend"},
      {"mpi_rendezvous_scattered", MPI_T_PVAR_CLASS_COUNTER, Counter::kRendezvousScattered,
       "Rendezvous moved into or out of non-contiguous blocks without staging"},
      {"mpi_rendezvous_split", MPI_T_PVAR_CLASS_COUNTER, Counter::kRendezvousSplit,
       "Large same-node rendezvous copied by both sides at once"},
      {"mpi_rendezvous_put", MPI_T_PVAR_CLASS_COUNTER, Counter::kRendezvousPut,
       "Rendezvous whose data the sender put straight into the receive buffer"},
      {"mpi_rendezvous_bounce", MPI_T_PVAR_CLASS_COUNTER, Counter::kRendezvousBounce,
       "Rendezvous whose data went through the receiver's bounce zone"},
      {"mpi_sends_over_budget", MPI_T_PVAR_CLASS_COUNTER, Counter::kOverBudget,
       "Small sends that went by rendezvous because the receiver's eager budget was spent"},
      {"mpi_posted_receives", MPI_T_PVAR_CLASS_LEVEL, Counter::kPostedReceives,
       "Receives posted and not yet matched (the posted queue's length)"},
      {"mpi_unexpected_messages", MPI_T_PVAR_CLASS_LEVEL, Counter::kUnexpectedMessages,
       "Messages arrived before their receive (the unexpected queue's length)"},
      {"mpi_unexpected_bytes", MPI_T_PVAR_CLASS_SIZE, Counter::kUnexpectedBytes,
       "Eager bytes held for messages arrived before their receive"},
  };
  return kVariables;
}

int Interface::init(int required, int* provided) {
  Instance& in = instance();
  std::lock_guard<std::mutex> hold(in.mutex);
  if (in.users == 0) {
    in.interface.reset(new Interface());
    in.interface->thread_level_ = std::min(std::max(required, MPI_THREAD_SINGLE), MPI_THREAD_MULTIPLE);
  }
  ++in.users;
  if (provided != nullptr) *provided = in.interface->thread_level_;
  return MPI_SUCCESS;
}

int Interface::finalize() {
  Instance& in = instance();
  std::lock_guard<std::mutex> hold(in.mutex);
  if (in.users == 0) return MPI_T_ERR_NOT_INITIALIZED;
  if (--in.users == 0) in.interface.reset();
  return MPI_SUCCESS;
}

Interface* Interface::get() {
  Instance& in = instance();
  std::lock_guard<std::mutex> hold(in.mutex);
  return in.interface.get();
}

Interface::Interface() {
  Result<config::Config> loaded = config::Config::load(config::environment_lookup());
  if (loaded.is_ok()) {
    environment_ = std::make_unique<config::Config>(std::move(loaded.value()));
  } else {  // a bad value: the runtime will refuse it at init; the tools see the defaults
    environment_ = std::make_unique<config::Config>(
        std::move(config::Config::load([](const char*) -> const char* { return nullptr; }).value()));
  }
  const auto& all = config::knobs();
  for (size_t i = 0; i < all.size(); ++i) {
    const config::KnobSpec& k = all[i];
    if (k.type == Type::kChoice) {
      enums_.push_back(std::make_unique<gasket_T_enum>(gasket_T_enum{k.name, split_choices(k.choices)}));
    } else {
      enums_.push_back(nullptr);
    }
    auto c = std::find_if(categories_.begin(), categories_.end(), [&](const Category& x) { return x.name == k.category; });
    if (c == categories_.end()) c = categories_.insert(categories_.end(), Category{k.category, {}, {}});
    c->cvars.push_back(static_cast<int>(i));
  }
  // The MPI engine's counters belong to the knobs' "mpi" category.
  auto mpi = std::find_if(categories_.begin(), categories_.end(), [](const Category& x) { return x.name == "mpi"; });
  for (size_t i = 0; i < performance_variables().size(); ++i) mpi->pvars.push_back(static_cast<int>(i));
}

const config::Config& Interface::config() const {
  core::Runtime* rt = core::Runtime::get();
  return rt != nullptr ? rt->config() : *environment_;
}

MPI_Datatype Interface::cvar_datatype(int index) const {
  switch (knob(index).type) {
    case Type::kSize: return MPI_UNSIGNED_LONG_LONG;
    case Type::kInt: return MPI_LONG_LONG;
    case Type::kString: return MPI_CHAR;
    case Type::kBool:
    case Type::kChoice: return MPI_INT;
  }
  return MPI_INT;
}

int Interface::cvar_count(int index) const { return knob(index).type == Type::kString ? kStringCount : 1; }

int Interface::cvar_scope(int index) const {
  return writable(knob(index).knob) ? MPI_T_SCOPE_LOCAL : MPI_T_SCOPE_CONSTANT;
}

void Interface::cvar_read(int index, void* buf) const {
  const config::KnobSpec& k = knob(index);
  Context* c = Context::get();
  switch (k.type) {
    case Type::kSize: {
      unsigned long long v = config().size(k.knob);
      if (c != nullptr && (k.knob == Knob::MPI_EAGER_LIMIT || k.knob == Knob::MPI_SHM_EAGER_LIMIT)) {
        Guard g(*c);
        v = c->engine().eager_limit_of(k.knob == Knob::MPI_SHM_EAGER_LIMIT);
      }
      if (c != nullptr && k.knob == Knob::MPI_ALLOC_MEM_POOL) {  // the pool's size, also when "auto"
        Guard g(*c);
        v = c->alloc_pool().size();
      }
      std::memcpy(buf, &v, sizeof v);
      return;
    }
    case Type::kInt: {
      long long v = config().integer(k.knob);
      std::memcpy(buf, &v, sizeof v);
      return;
    }
    case Type::kBool: {
      int v = config().boolean(k.knob) ? 1 : 0;
      std::memcpy(buf, &v, sizeof v);
      return;
    }
    case Type::kChoice: {
      const gasket_T_enum& e = *enums_[static_cast<size_t>(index)];
      int v = choice_index(e, config().text(k.knob));
      if (k.knob == Knob::LOG) {  // the level in force, which MPI_T may have changed
        for (size_t i = 0; i < e.items.size(); ++i) {
          log::Level l;
          if (log::parse_level(e.items[i], &l) && l == log::level()) v = static_cast<int>(i);
        }
      }
      std::memcpy(buf, &v, sizeof v);
      return;
    }
    case Type::kString: {
      const std::string& text = config().text(k.knob);
      size_t n = std::min(text.size(), static_cast<size_t>(kStringCount - 1));
      std::memcpy(buf, text.data(), n);
      static_cast<char*>(buf)[n] = '\0';
      return;
    }
  }
}

int Interface::cvar_write(int index, const void* buf) {
  const config::KnobSpec& k = knob(index);
  if (!writable(k.knob)) return MPI_T_ERR_CVAR_SET_NEVER;
  if (k.knob == Knob::LOG) {
    int v;
    std::memcpy(&v, buf, sizeof v);
    const gasket_T_enum& e = *enums_[static_cast<size_t>(index)];
    log::Level l;
    if (v < 0 || v >= static_cast<int>(e.items.size()) || !log::parse_level(e.items[static_cast<size_t>(v)], &l)) {
      return MPI_T_ERR_INVALID;
    }
    log::set_level(l);
    return MPI_SUCCESS;
  }
  Context* c = Context::get();
  if (c == nullptr) {
    // The eager limits exist while MPI runs: before, a later time may come (NOT_NOW); after
    // MPI_Finalize the runtime cannot start again, so none will (MPI 4.1 section 15.3.6: NEVER).
    return Context::state() == LibraryState::kFinalized ? MPI_T_ERR_CVAR_SET_NEVER : MPI_T_ERR_CVAR_SET_NOT_NOW;
  }
  unsigned long long v;
  std::memcpy(&v, buf, sizeof v);
  Guard g(*c);
  return c->engine().set_eager_limit(k.knob == Knob::MPI_SHM_EAGER_LIMIT, v) ? MPI_SUCCESS
                                                                             : MPI_T_ERR_CVAR_SET_NOT_NOW;
}

uint64_t Interface::counter(Counter which) const {
  Context* c = Context::get();
  if (c == nullptr) return 0;
  Guard g(*c);
  p2p::Engine::Counters n = c->engine().counters();
  switch (which) {
    case Counter::kEagerReceived: return n.eager_received;
    case Counter::kRendezvousPull: return n.rndv_pull;
    case Counter::kRendezvousGet: return n.rndv_get;
    case Counter::kRendezvousScattered: return n.rndv_scattered;
    case Counter::kRendezvousSplit: return n.rndv_split;
    case Counter::kRendezvousPut: return n.rndv_put;
    case Counter::kRendezvousBounce: return n.rndv_bounce;
    case Counter::kOverBudget: return n.over_budget;
    case Counter::kPostedReceives: return n.posted_receives;
    case Counter::kUnexpectedMessages: return n.unexpected_messages;
    case Counter::kUnexpectedBytes: return n.unexpected_bytes;
  }
  return 0;
}

int64_t Interface::timestamp() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

}  // namespace gasket::mpi::tools
