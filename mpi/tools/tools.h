// The MPI tools interface (MPI_T): control variables are the GASKET_* knobs of
// core/config/knobs.def (read from that table, never copied), performance variables are the MPI
// engine's counters, categories are the knobs' categories. Usable before MPI_Init and after
// MPI_Finalize: its state (Interface) lives from the first MPI_T_init_thread to the matching last
// MPI_T_finalize, apart from the MPI context. May call core/config, core/base and mpi/context.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "core/config/config.h"
#include "mpi.h"

// The opaque MPI_T handle types of mpi.h.
struct gasket_T_enum {
  std::string name;
  std::vector<std::string> items;  // value i is items[i]
};
struct gasket_T_pvar_session;
struct gasket_T_pvar_handle {
  int index = 0;
  gasket_T_pvar_session* session = nullptr;
  bool started = false;
  uint64_t accumulated = 0;  // counters: the value while stopped
  uint64_t base = 0;         // counters: the engine's count when last started (or reset while started)
};
struct gasket_T_pvar_session {
  std::vector<std::unique_ptr<gasket_T_pvar_handle>> handles;
};
struct gasket_T_cvar_handle {
  int index = 0;
};

namespace gasket::mpi::tools {

// What a performance variable reads (the MPI engine's counters and queue lengths).
enum class Counter {
  kEagerReceived, kRendezvousPull, kRendezvousGet, kRendezvousScattered, kRendezvousSplit, kRendezvousPut,
  kRendezvousBounce, kOverBudget, kPostedReceives, kUnexpectedMessages, kUnexpectedBytes
};

struct PerformanceVariable {
  const char* name;
  int var_class;  // MPI_T_PVAR_CLASS_COUNTER (startable, resettable) or LEVEL/SIZE (continuous, read-only)
  Counter counter;
  const char* desc;
};
const std::vector<PerformanceVariable>& performance_variables();

struct Category {
  std::string name;
  std::vector<int> cvars, pvars;
};

// The value a control variable has now; `ok` false for an index out of range.
class Interface {
 public:
  // Reference counted: the first init makes it, the last finalize destroys it.
  static int init(int required, int* provided);
  static int finalize();
  // The live interface (null when MPI_T is not initialised); callers hold lock() while using it.
  static Interface* get();
  std::mutex& lock() { return mutex_; }

  int num_cvars() const { return static_cast<int>(config::knobs().size()); }
  const config::KnobSpec& knob(int index) const { return config::knobs()[static_cast<size_t>(index)]; }
  // The MPI datatype and element count of a cvar's value, and its enumeration (null: none).
  MPI_Datatype cvar_datatype(int index) const;
  int cvar_count(int index) const;
  MPI_T_enum cvar_enum(int index) { return enums_[static_cast<size_t>(index)].get(); }
  int cvar_scope(int index) const;
  void cvar_read(int index, void* buf) const;
  // MPI_SUCCESS, MPI_T_ERR_CVAR_SET_NEVER (fixed for the run), MPI_T_ERR_CVAR_SET_NOT_NOW (the MPI
  // runtime is not started, or the value exceeds what it was sized for at init).
  int cvar_write(int index, const void* buf);

  // The counter's current value (0 while the MPI runtime is not started).
  uint64_t counter(Counter which) const;

  const std::vector<Category>& categories() const { return categories_; }
  // The runtime clock (the one event source), in nanoseconds.
  static int64_t timestamp();

 private:
  Interface();
  const config::Config& config() const;

  std::mutex mutex_;
  int thread_level_ = MPI_THREAD_SINGLE;
  std::unique_ptr<config::Config> environment_;  // the knobs as the environment sets them
  std::vector<std::unique_ptr<gasket_T_enum>> enums_;  // per cvar; null where it has no fixed set
  std::vector<Category> categories_;
};

}  // namespace gasket::mpi::tools
