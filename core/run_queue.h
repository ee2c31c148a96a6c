// Whether the machine's CPUs are contested right now: the kernel's count of runnable tasks
// (/proc/loadavg's fourth field, "running/total") against the online CPUs. An oversubscribed job
// asks it before napping (core/wait.cc): while its PEs are mostly asleep (put/wait with idle PEs
// in a barrier) the CPUs are free and a waiter may keep polling instead of paying a cross-CPU
// wake-up per message.
#pragma once

#include <atomic>
#include <cstdint>

namespace gasket::core {

// The runnable count in /proc/loadavg's text ("0.08 0.05 0.10 3/181 12345" -> 3), or -1 when the
// text does not have that shape.
int runnable_tasks(const char* loadavg_text);

class RunQueue {
 public:
  RunQueue();  // opens /proc/loadavg and counts the online CPUs
  ~RunQueue();
  RunQueue(const RunQueue&) = delete;
  RunQueue& operator=(const RunQueue&) = delete;
  // True when more tasks are runnable than there are CPUs, or when that cannot be read (the
  // caller then keeps its contested-machine behaviour). A "contested" answer is kept for
  // kFreshNs (a read costs a pread, ~1.4 µs here, as much as a put/wait turnaround on a shared
  // CPU); "free" is read afresh each time, since the caller yields on it and a stale "free"
  // would hand a time slice to another process that became runnable meanwhile.
  bool contested() const;
  int cpus() const { return cpus_; }
  // The runnable tasks right now (a fresh read), or -1 when /proc/loadavg cannot be read.
  int runnable() const;
  static constexpr int64_t kFreshNs = 100000;

 private:
  bool read_contested() const;
  int fd_ = -1;
  int cpus_ = 1;
  // When the CPUs were last found contested (CLOCK_MONOTONIC ns); relaxed: any thread may set it.
  mutable std::atomic<int64_t> contested_at_ns_{INT64_MIN / 2};
};

}  // namespace gasket::core
